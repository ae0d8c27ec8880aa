"""One step of a privacy loss on a grid, both ends proved: Z_lo <=_icx Y and Y ≼ Z_hi + k·P(L >= L_max).

**Why a discretisation can be proved.** For a direction (P, Q) with Y = dP_ac/dQ (:mod:`dpcert.pld.loss`), the
k-fold composition has δ_k(ε) = P_s^k-part + E_{Q^k}[(Y_1⋯Y_k − e^ε)₊]. The function f(y_1, …, y_k) = (Π y_i − c)₊
is, for fixed other coordinates >= 0, increasing and convex in each y_i >= 0. Hence, with the steps independent:

* replacing one step's Y by Z with E g(Z) >= E g(Y) for every increasing convex g (Z >=_icx Y) raises E f, and by
  induction over the coordinates (condition on the others) raises δ_k; Z <=_icx Y lowers it;
* a larger (sub-)measure raises E f, a smaller one lowers it (f >= 0); an atom at y = 0 contributes nothing.

Write g_i = e^{iΔ} (Δ = 1/n, the *resolution* n) and split Q's mass by the cells [g_i, g_{i+1}) of Y: the cell
masses m_i = Q(cell) and μ_i = E_Q[Y 1_cell] = P_ac(cell) are differences of the survival balls the mechanism
supplies (:meth:`~dpcert.pld.loss.PrivacyLoss.survivals`). Let c_i = μ_i − g_i m_i >= 0 and d_i = g_{i+1} m_i − μ_i
>= 0 (the cell's conditional mean of Y lies in the cell, atoms of L included).

* **Upper end (connect the dots).** On a cell a convex g lies below its chord, so ∫_cell g dQ <= (m_i − u_i) g(g_i) +
  u_i g(g_{i+1}) with u_i = c_i/(g_{i+1} − g_i) ∈ [0, m_i] (the chord integrated against Q on the cell). The two
  atoms keep the cell's mass and mean, so the error is of second order in Δ per step (a variance increase of
  about Δ²/6 on the scale of the loss for a smooth law). Mass below the bottom grid point is moved *up* to it (g
  increasing). Mass above the top point L_max cannot be placed: E_{Q^k}[f·1{some L_i >= L_max}] <= Σ_i E_{Q^k}[Π Y_j
  1{L_i >= L_max}] <= k·P_ac(L >= L_max) (the other factors have Q-mean <= 1), which is added (``tail``), and the
  rest is the composition of Q restricted to L < L_max.
* **Lower end (a mean-preserving contraction onto the grid).** If a piece of Y's law with conditional mean ȳ is
  replaced by an atom at ȳ, the result Z satisfies E[Y | Z] = Z, so Z <=_cx Y (Jensen). Cell j is split in
  fractions: β_j of it goes to the atom at g_{j+1} (the cell lies below it), the rest to g_j (the cell lies above
  it). The group at g_j, made of the fraction β_{j−1} of cell j−1 and the part of cell j it needs, has mean >= g_j
  exactly when (1 − β_j) c_j >= β_{j−1} d_{j−1}; the part of cell j it does not need is rounded down to g_j (its
  mean is >= g_j), which lowers g further. So with this inequality *certified in balls* for every j, placing the
  weight w_j = (1 − β_j) m_j + β_{j−1} m_{j−1} at g_j gives Z <=_icx Y. The β are chosen in floats (any choice is
  valid: the inequality is what is proved, and a group whose inequality is not proved gets β_{j−1} = 0), the
  largest allowed, recursing up from the bottom and down from the top and meeting at the group that loses the
  least mean (:func:`_betas`), so that the groups are balanced (mean exactly at the grid point: second order)
  except where a recursion had to clip and at the meeting group, whose slack is rounded down. The top tail L >=
  L_max is one more cell that only receives; mass below the bottom grid point is dropped (a smaller measure).

**Atoms.** An atom of L inside a cell is split by the upper construction like any mass (second order), but the
lower one can only keep it in a group whose mean is balanced by mass on the other side of a grid point; with none
there (an atom at the end of the range) its slack is rounded down, a first-order loss. A mechanism with atoms at
rational losses should therefore be run at resolutions that put them on grid points (``dpcert.laplace.pld`` does).

Every number above is a ball containing the exact value of the construction at the working precision
:func:`working_precision`, so the lower measure's and the upper measure's exact values are what the composition
(:mod:`dpcert.pld.compose`) and the evaluation (:mod:`dpcert.pld.accountant`) use.

References:
    Convex order: M. Shaked, J. G. Shanthikumar, "Stochastic Orders", Springer 2007, Thm 4.A.15 [SS07]. Connect the
    dots: V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, PETS 2022 (arXiv 2207.04380).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_poly

from dpcert.arith.ball import ball, workprec
from dpcert.errors import InvalidParameter
from dpcert.pld.loss import PrivacyLoss

__all__ = ["Measure", "StepMeasures", "GridTooLarge", "discretise", "mean", "working_precision", "MAX_CELLS", "PREC"]

#: Working precision (bits) of the cell masses and of the products (before the resolution's share).
PREC = 128
#: The largest number of grid cells of one step's law (checked before any work).
MAX_CELLS = 4_000_000


def working_precision(n: int) -> int:
    """The bits used at resolution n (the grid exponents j/n need about 2·log2(n) more than :data:`PREC`)."""
    return PREC + 2 * n.bit_length() + 16


class GridTooLarge(InvalidParameter):
    """One step's loss range does not fit :data:`MAX_CELLS` cells at this resolution (a coarser grid may)."""

    def __init__(self, n: int, cells: int) -> None:
        super().__init__("resolution", n, f"a grid whose one-step loss range fits {MAX_CELLS} cells (needs {cells})")
        self.n = n
        self.cells = cells


@dataclass(frozen=True)
class Measure:
    """Atoms w_j at y = e^{j/n}, j = off, off + 1, …: a polynomial in z with an index offset."""

    off: int
    poly: arb_poly

    @property
    def length(self) -> int:
        return self.poly.length()


@dataclass(frozen=True)
class StepMeasures:
    """One step's two discretisations in one direction, at resolution n (Δ = 1/n).

    Attributes:
        lower: Z_lo <=_icx Y (a sub-probability measure on the grid).
        upper: Z_hi >=_icx Y restricted to L < L_max.
        tail: a ball containing P_ac(L >= L_max) (added k times to the upper bound).
        mean_upper: a ball containing the mean of ``upper`` (>= the mean of Y restricted to L < L_max).
        infinite: P_s(Ω), the mass of an infinite loss (exact).
    """

    n: int
    lower: Measure
    upper: Measure
    tail: arb
    mean_upper: arb
    infinite: Fraction = Fraction(0)


def _fl(a: arb) -> float:
    return float(a.mid())


def mean(meas: Measure, n: int) -> arb:
    """Σ_j w_j e^{j/n} in balls."""
    base = ball(Fraction(1, n)).exp()
    return ball(Fraction(meas.off, n)).exp() * meas.poly(base)


def cells_needed(loss: PrivacyLoss, n: int, tail: float) -> int:
    """The number of grid cells one step of ``loss`` takes at resolution n (float range choice)."""
    i_lo, i_hi = loss.grid_range(n, tail)
    return i_hi - i_lo


def discretise(loss: PrivacyLoss, n: int, tail: float) -> StepMeasures:
    """One step's lower and upper discretisations at resolution n (see the module docstring).

    Args:
        loss: the direction. n: grid cells per unit of loss. tail: the P-mass (float) the grid range may leave out
            on each side (tightness only).

    Raises:
        GridTooLarge: if the range needs more than :data:`MAX_CELLS` cells.
    """
    i_lo, i_hi = loss.grid_range(n, max(tail, 1e-320))
    if i_hi - i_lo > MAX_CELLS:
        raise GridTooLarge(n, i_hi - i_lo)
    with workprec(working_precision(n)):
        sq, sp = loss.survivals(n, i_lo, i_hi)
        g = [(ball(Fraction(i, n))).exp() for i in range(i_lo, i_hi + 1)]
        cells = i_hi - i_lo  # cell r = [g_r, g_{r+1}), r = 0..cells-1 (index i_lo + r)
        m = [sq[r] - sq[r + 1] for r in range(cells)]
        mu = [sp[r] - sp[r + 1] for r in range(cells)]
        c = [mu[r] - g[r] * m[r] for r in range(cells)]
        d = [g[r + 1] * m[r] - mu[r] for r in range(cells)]
        below_q = 1 - sq[0]
        tail_q, tail_p = sq[cells], sp[cells]
        # upper: chord split; the mass below the bottom point moved up to it
        up = [arb(0)] * (cells + 1)
        up[0] = below_q
        for r in range(cells):
            u = c[r] / (g[r + 1] - g[r])
            up[r] += m[r] - u
            up[r + 1] += u
        # lower: contraction; the tail L >= L_max is cell `cells`, which only receives
        cf = [max(_fl(x), 0.0) for x in c] + [max(_fl(tail_p - g[cells] * tail_q), 0.0)]
        dfl = [max(_fl(x), 0.0) for x in d]
        mf = [max(_fl(x), 0.0) for x in m]
        beta = _betas(cf, dfl, mf)
        mm = m + [tail_q]
        cc = c + [tail_p - g[cells] * tail_q]
        for j in range(1, cells + 1):  # certify group j: (1 − β_j) c_j >= β_{j−1} d_{j−1}
            if beta[j - 1] == 0.0:
                continue
            bj = arb(beta[j]) if j < cells else arb(0)
            if not (1 - bj) * cc[j] - arb(beta[j - 1]) * d[j - 1] >= 0:
                beta[j - 1] = 0.0
        lo = []
        for j in range(cells + 1):
            bj = arb(beta[j]) if j < cells else arb(0)
            w = (1 - bj) * mm[j]
            if j > 0 and beta[j - 1] != 0.0:
                w += arb(beta[j - 1]) * mm[j - 1]
            lo.append(w)
        upper = Measure(i_lo, arb_poly(up))
        mean_up = mean(upper, n)
        return StepMeasures(n, Measure(i_lo, arb_poly(lo)), upper, tail_p, mean_up, loss.infinite_mass())


def _betas(c: list[float], d: list[float], m: list[float]) -> list[float]:
    """The fractions β_j (floats, then exact as dyadics) of the lower construction; β of the last cell is 0.

    Group j needs (1 − β_j) c_j >= β_{j−1} d_{j−1}; the mean lost to rounding is Σ_j slack_j = Σ c_j − Σ β_j (c_j +
    d_j), so the β should be as large as the inequalities allow. The forward recursion (β_j the largest allowed by
    group j, from the bottom) is stable where the cell masses grow, the backward one (β_{j−1} the largest allowed
    by group j, from the top) where they fall; they meet at one group J, whose inequality is restored by lowering
    β_{J−1}. J is chosen to maximise Σ β_j (c_j + d_j) (prefix and suffix sums). All β are then shrunk by 2^-30 so
    that the inequalities have room for the balls (``m`` is unused: kept for the signature).
    """
    cells = len(d)
    fwd = [0.0] * (cells + 1)
    for j in range(cells):
        prev = fwd[j - 1] * d[j - 1] if j > 0 else 0.0
        if c[j] <= 0:
            bj = 0.0
            if j > 0:
                fwd[j - 1] = 0.0
        else:
            bj = 1.0 - prev / c[j]
            if bj < 0:
                fwd[j - 1] = c[j] / d[j - 1] if d[j - 1] > 0 else 0.0
                bj = 0.0
        fwd[j] = min(1.0, bj)
    bwd = [0.0] * (cells + 1)
    for j in range(cells, 0, -1):  # sets β_{j−1} from β_j
        bwd[j - 1] = min(1.0, (1.0 - bwd[j]) * c[j] / d[j - 1]) if d[j - 1] > 0 else 0.0
    w = [c[j] + d[j] for j in range(cells)] + [0.0]
    pre = [0.0] * (cells + 2)  # pre[i] = Σ_{j<i} fwd_j w_j
    for j in range(cells + 1):
        pre[j + 1] = pre[j] + fwd[j] * w[j]
    suf = [0.0] * (cells + 2)  # suf[i] = Σ_{j>=i} bwd_j w_j
    for j in range(cells, -1, -1):
        suf[j] = suf[j + 1] + bwd[j] * w[j]

    def meet(big: int) -> float:  # β_{J−1} at the meeting J = big (groups below forward, from J on backward)
        if big == 0:
            return 0.0
        cap = (1.0 - bwd[big]) * c[big] / d[big - 1] if d[big - 1] > 0 else 0.0
        return max(0.0, min(fwd[big - 1], cap))

    best, big = -1.0, 0
    for cand in range(cells + 1):
        value = (pre[cand - 1] if cand > 0 else 0.0) + meet(cand) * (w[cand - 1] if cand > 0 else 0.0) + suf[cand]
        if value > best:
            best, big = value, cand
    beta = fwd[: max(0, big - 1)] + ([meet(big)] if big > 0 else []) + bwd[big:]
    beta[cells] = 0.0
    shrink = 1.0 - 2.0**-30
    return [b * shrink if b > 0 else 0.0 for b in beta]
