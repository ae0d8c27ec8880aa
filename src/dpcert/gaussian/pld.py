"""Tight DP-SGD accounting: a certified enclosure of the k-step δ(ε) of the Poisson-subsampled Gaussian.

**The quantity.** For a dominating pair (P, Q) with P ≪ Q and Y = dP/dQ = e^L, the k-fold composition has the
hockey-stick divergence δ_k(ε) = E_{Q^k}[(Y_1⋯Y_k − e^ε)₊]. DP-SGD with Poisson rate q and noise multiplier σ
(sensitivity 1, add/remove neighbours) has two pairs, *remove*: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²), and
*add*: the same two swapped; each is composed k times on its own and δ_k is the larger of the two
(docs/derivations/gaussian.md#sgm-directions: that remove dominates is not proved, so both are computed).

**Why a discretisation can be proved.** f(y_1, …, y_k) = (Π y_i − c)₊ is, for fixed other coordinates >= 0,
increasing and convex in each y_i >= 0. Hence, with the steps independent:

* replacing one step's Y by Z with E g(Z) >= E g(Y) for every increasing convex g (Z >=_icx Y) raises E f, and
  by induction over the coordinates (condition on the others) raises δ_k; Z <=_icx Y lowers it;
* a larger (sub-)measure raises E f, a smaller one lowers it (f >= 0); an atom at y = 0 contributes nothing.

Write g_i = e^{iΔ} (Δ = 1/n) and split Q's mass by cells [g_i, g_{i+1}) of Y (x ↦ L(x) is monotone, so each cell
is an x-interval and its masses m_i = Q(cell), μ_i = E_Q[Y 1_cell] = P(cell) are Gaussian CDF differences, taken
with Arb's erfc). Let c_i = μ_i − g_i m_i >= 0 and d_i = g_{i+1} m_i − μ_i >= 0 (the cell's conditional mean
lies in the cell).

* **Upper (connect the dots).** On a cell, a convex g lies below its chord, so ∫_cell g dQ <= (m_i − u_i) g(g_i)
  + u_i g(g_{i+1}) with u_i = c_i/(g_{i+1} − g_i) ∈ [0, m_i] (the chord integrated against Q restricted to the
  cell). The two atoms keep the cell's mass and mean, so the error is of second order in Δ per step (a variance
  increase of about Δ²/6), and the composed error grows like kΔ² (√k·Δ on the scale of the composed loss)
  rather than like kΔ. Mass with L below the bottom grid point is moved *up* to it (g increasing). Mass above
  the top point L_max cannot be placed: E_{Q^k}[f·1{some L_i >= L_max}] <= Σ_i E_{Q^k}[Π Y_j 1{L_i >= L_max}]
  = k·P(L >= L_max), which is added, and the rest is the composition of Q restricted to L < L_max.
* **Lower (a mean-preserving contraction onto the grid).** If a piece of Y's law with conditional mean y̅ is
  replaced by an atom at y̅, the result Z satisfies E[Y | Z] = Z, so Z <=_cx Y (Jensen). Here cell j is split in
  fractions: β_j of it goes to the atom at g_{j+1} (it lies below), the rest to g_j (it lies above). The group at
  g_j, made of the fraction β_{j−1} of cell j−1 and the part of cell j it needs, has mean >= g_j exactly when
  (1 − β_j) c_j >= β_{j−1} d_{j−1}; the part of cell j it does not need is rounded down to g_j (its mean is
  >= g_j), which lowers g further. So with this inequality *certified in balls* for every j, placing the weight
  w_j = (1 − β_j) m_j + β_{j−1} m_{j−1} at g_j gives Z <=_icx Y. The β are chosen in floats (any choice is valid,
  the inequality is what is proved, and a group whose inequality is not proved gets β_{j−1} = 0): the largest β
  allowed, recursing up from the bottom and down from the top, meeting at the group that loses the least mean,
  so that the groups are balanced (mean exactly at the grid point, second order error) except where a recursion
  had to clip and at the meeting group, whose slack is rounded down (a first-order loss, the reason the lower
  end converges more slowly than the upper one). The top tail
  L >= L_max is one more cell that only receives; mass below the bottom grid point is dropped.
* **Composition.** The atoms are polynomials in z (index = grid exponent); k-fold powers are taken by binary
  powering with ``flint.arb_poly`` products (Arb, rigorous). After every product the index range is windowed:
  for the lower bound, mass below the window is dropped and mass above it moved down to the window top; for the
  upper bound, mass below is moved up to the window bottom and mass above is dropped, its y-mass e added to an
  error term. The error carried through a product is exact bookkeeping: if X ≼ X′ + e_X (meaning E_{X*ν} f_c <=
  E_{X′*ν} f_c + e_X·mean(ν) for every c >= 0 and ν >= 0, using (yz − c)₊ <= yz) and Y ≼ Y′ + e_Y, then X*Y ≼
  X′*Y′ + e_X·mean(Y) + e_Y·mean(X′); mean(Z^s) = mean(Z)^s, and mean(X′) is evaluated from X′ in balls.
* **Evaluation.** δ = Σ_j w_j (g_j − e^ε)₊ over the final atoms (both bounds), plus, for the upper one, the
  carried error and k·P(L >= L_max).

Every quantity above is a ball containing the exact value of the construction, so the lower end of the lower
sum and the upper end of the upper sum enclose δ_k(ε). The grid and the windows are chosen from float estimates
(only the tightness depends on them). The enclosure narrows like Δ² (both ends are second order); ``n = 1/Δ``
is the resolution reported.

References:
    Convex-order comparison: M. Shaked, J. G. Shanthikumar, "Stochastic Orders", Springer 2007, Thm 4.A.15 [SS07]
    (increasing convex order closed under products of independent non-negative variables is the coordinatewise
    argument above). Connect-the-dots: V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, "Connect the
    Dots: Tighter Discrete Approximations of Privacy Loss Distributions", PETS 2022 (arXiv 2207.04380). Privacy
    loss distributions of the subsampled Gaussian: docs/derivations/gaussian.md#sgm-directions.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb, arb_poly

from dpcert.arith.ball import Enclosure, ball, fraction_of, workprec
from dpcert.arith.exact import Exact, as_fraction
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = [
    "PldResult",
    "dpsgd_delta",
    "dpsgd_eps",
    "dpsgd_sigma",
    "DPSGD_DELTA",
    "DPSGD_EPS",
    "DPSGD_SIGMA",
    "QUANTITIES",
    "MAX_STEPS",
    "Measure",
    "StepMeasures",
    "Composed",
    "step_measures",
    "compose",
    "delta_enclosure",
    "eps_enclosure",
    "both_directions",
    "delta_of",
    "start_resolution",
    "MAX_CELLS",
    "PREC",
]

#: Working precision (bits) of the cell masses and of the products.
PREC = 128
#: The largest number of grid cells of one step's law (checked before any work).
MAX_CELLS = 4_000_000
_DIRECTIONS = ("remove", "add")


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
        tail: a ball containing P(L >= L_max) (added k times to the upper bound).
        mean_upper: a ball containing the mean of ``upper``.
    """

    n: int
    lower: Measure
    upper: Measure
    tail: arb
    mean_upper: arb


@dataclass(frozen=True)
class Composed:
    """The k-fold composition in one direction: lower and upper atoms and the upper bound's additive error."""

    n: int
    steps: int
    lower: Measure
    upper: Measure
    error: arb  # added to the upper sum (windowing and the k·P(L >= L_max) tail)


# ----------------------------------------------------------------------------------------------- float helpers


def _log_phibar(t: float) -> float:
    from scipy import special

    return float(special.log_ndtr(-t))


def _x_of(direction: str, qf: float, s: float, lv: float) -> float | None:
    """The x where the loss is lv (remove: L >= lv iff x >= it; add: L >= lv iff x <= it), None if no x."""
    if direction == "remove":
        t = math.exp(lv) - (1 - qf)
    else:
        t = math.exp(-lv) - (1 - qf)
    if t <= 0:
        return None
    return s * s * (math.log(t) - math.log(qf)) + 0.5


def _log_surv(direction: str, which: str, qf: float, s: float, lv: float) -> float:
    """log P(L >= lv) (which = 'P') or log Q(L >= lv) (which = 'Q'), float64."""
    x = _x_of(direction, qf, s, lv)
    if x is None:
        return 0.0 if direction == "remove" else -math.inf
    a, b = (-x / s, -(x - 1) / s) if direction == "remove" else (x / s, (x - 1) / s)
    # remove: Φ̄(x/σ) = Φ(−x/σ); add: Φ(x/σ)
    mix = which == ("P" if direction == "remove" else "Q")
    from scipy import special

    first = float(special.log_ndtr(a))
    if not mix:
        return first
    lq = math.log(qf)
    l1 = math.log1p(-qf) if qf < 1 else -math.inf
    return float(_logaddexp(l1 + first, lq + float(special.log_ndtr(b))))


def _logaddexp(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    m = max(a, b)
    return m + math.log1p(math.exp(-abs(a - b)))


def _solve(f: Callable[[float], bool], lo: float, hi: float) -> float:
    """The switching point of a monotone condition f (false at lo, true at hi), by float bisection."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-9:
            break
    return hi


def _range(direction: str, qf: float, s: float, n: int, tail: float) -> tuple[int, int]:
    """The grid index range [i_lo, i_hi] of one step: tails beyond it carry P-mass <= tail (float estimate)."""
    if direction == "remove":
        i_hi = math.ceil(n * _solve(lambda lv: _log_surv("remove", "P", qf, s, lv) <= math.log(tail), -1, 200)) + 1
        if qf < 1:
            i_lo = math.floor(n * math.log1p(-qf)) - 1
        else:  # L = (2x − 1)/(2σ²): P(L < l) is Φ((l σ² − 1/2)/σ)
            i_lo = math.floor(n * -_solve(lambda m: _log_phibar((m * s * s + 0.5) / s) <= math.log(tail), 0, 200)) - 1
    else:
        if qf < 1:
            i_hi = math.ceil(n * -math.log1p(-qf)) + 1
        else:
            i_hi = math.ceil(n * _solve(lambda lv: _log_surv("add", "P", qf, s, lv) <= math.log(tail), -1, 200)) + 1

        def below_small(m: float) -> bool:  # P(L < −m) e^{...} small; P(L < l) = 1 − P(L >= l) = Φ̄(x′/σ)
            x = _x_of("add", qf, s, -m)
            return x is not None and _log_phibar(x / s) <= math.log(tail)

        i_lo = math.floor(n * -_solve(below_small, 0, 200)) - 1
    return i_lo, i_hi


# ----------------------------------------------------------------------------------------------- one step


def _survivals(direction: str, q: Fraction, sigma: Fraction, n: int, i_lo: int, i_hi: int) -> tuple[list, list]:
    """Balls of Q(L >= i/n) and P(L >= i/n) for i = i_lo..i_hi (the current working precision)."""
    sg, bq, one_q = ball(sigma), ball(q), ball(1 - q)
    s2 = arb(2).sqrt()
    sq, sp = [], []
    sign = 1 if direction == "remove" else -1
    step = ball(Fraction(1, n))
    for i in range(i_lo, i_hi + 1):
        t = (sign * i * step).exp() - one_q
        if t <= 0:
            # remove: e^l <= 1 − q < Y everywhere, so L >= l surely; add: L < −log(1 − q) <= l surely
            full = arb(1) if direction == "remove" else arb(0)
            sq.append(full)
            sp.append(full)
            continue
        if not t > 0:
            raise ArithmeticError(f"grid point {i}/{n} undecided against the loss bound at the working precision")
        x = sg * sg * (t / bq).log() + arb(1) / 2
        if direction == "remove":
            a = (x / (sg * s2)).erfc() / 2  # Φ̄(x/σ)
            b = ((x - 1) / (sg * s2)).erfc() / 2
            sq.append(a)
            sp.append(one_q * a + bq * b)
        else:
            a = (-x / (sg * s2)).erfc() / 2  # Φ(x/σ)
            b = (-(x - 1) / (sg * s2)).erfc() / 2
            sp.append(a)
            sq.append(one_q * a + bq * b)
    return sq, sp


def _fl(a: arb) -> float:
    return float(a.mid())


def step_measures(direction: str, q: Fraction, sigma: Fraction, n: int, tail: float, steps: int) -> StepMeasures:
    """One step's lower and upper discretisations at resolution n (see the module docstring).

    Args:
        direction: ``"remove"`` or ``"add"``. q, sigma: exact. n: grid cells per unit of loss.
        tail: the P-mass (float) the grid range may leave out on each side, per step (tightness only).
        steps: k (sets the range from ``tail``/k).
    """
    qf, s = float(q), float(sigma)
    i_lo, i_hi = _range(direction, qf, s, n, max(tail / steps, 1e-300))
    if i_hi - i_lo > MAX_CELLS:
        raise InvalidParameter(
            "sigma",
            str(sigma),
            f"a noise multiplier whose one-step loss range fits {MAX_CELLS} grid cells at resolution {n} "
            f"(q = {q}, sigma = {sigma} needs {i_hi - i_lo})",
        )
    with workprec(PREC + 2 * n.bit_length() + 16):
        sq, sp = _survivals(direction, q, sigma, n, i_lo, i_hi)
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
        mean_up = _mean(upper, n)
        return StepMeasures(n, Measure(i_lo, arb_poly(lo)), upper, tail_p, mean_up)


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


def _mean(meas: Measure, n: int) -> arb:
    """Σ_j w_j e^{j/n} in balls."""
    base = ball(Fraction(1, n)).exp()
    return ball(Fraction(meas.off, n)).exp() * meas.poly(base)


# ----------------------------------------------------------------------------------------------- composition


def _window(meas: Measure, n: int, tau: float) -> tuple[int, int]:
    """Index range [a, b] (relative to meas.off) outside which the y-mass is <= tau on each side (floats)."""
    coeffs = meas.poly.coeffs()
    w = [abs(_fl(x)) for x in coeffs]
    ln = len(w)
    acc = 0.0
    b = ln - 1
    while b > 0:
        ym = w[b] * math.exp((meas.off + b) / n) if w[b] else 0.0
        if acc + ym > tau:
            break
        acc += ym
        b -= 1
    acc = 0.0
    a = 0
    while a < b:
        # mass below a, valued at the window bottom (upper: moved there; lower: dropped, y <= that)
        if (acc + w[a]) * math.exp((meas.off + a + 1) / n) > tau:
            break
        acc += w[a]
        a += 1
    return a, b


def _truncate(meas: Measure, n: int, tau: float, upper: bool) -> tuple[Measure, arb]:
    """Window a product: (windowed measure, the y-mass dropped above the window for the upper bound)."""
    a, b = _window(meas, n, tau)
    coeffs = meas.poly.coeffs()
    if a == 0 and b == len(coeffs) - 1:
        return meas, arb(0)
    kept = list(coeffs[a : b + 1])
    err = arb(0)
    if upper:
        if a > 0:
            kept[0] = kept[0] + sum(coeffs[:a], arb(0))
        if b < len(coeffs) - 1:
            above = Measure(meas.off + b + 1, arb_poly(list(coeffs[b + 1 :])))
            err = _mean(above, n)
    elif b < len(coeffs) - 1:
        kept[-1] = kept[-1] + sum(coeffs[b + 1 :], arb(0))
    return Measure(meas.off + a, arb_poly(kept)), err


def _mul(x: Measure, y: Measure) -> Measure:
    return Measure(x.off + y.off, x.poly * y.poly)


def compose(step: StepMeasures, steps: int, tau: float, progress: Callable[[str], None] | None = None) -> Composed:
    """The k-fold composition of one direction's step measures, by binary powering with windows (rigorous)."""
    n = step.n
    with workprec(PREC + 2 * n.bit_length() + 16):
        m1 = step.mean_upper
        # (lower, upper, error, s): Z^s ≼ upper + error and lower <=_icx Y^s
        cur = (step.lower, step.upper, arb(0), 1)
        res: tuple[Measure, Measure, arb, int] | None = None
        k = steps
        rounds = k.bit_length()
        r = 0
        while k:
            if k & 1:
                if res is None:
                    res = cur
                else:
                    res = _product(res, cur, m1, n, tau)
            k >>= 1
            r += 1
            if k:
                cur = _product(cur, cur, m1, n, tau)
            if progress is not None:
                progress(f"round {r}/{rounds}, window {cur[1].length} atoms")
        assert res is not None
        lower, upper, err, _ = res
        tail = steps * step.tail
        return Composed(n, steps, lower, upper, err + tail)


def _product(x: tuple, y: tuple, m1: arb, n: int, tau: float) -> tuple[Measure, Measure, arb, int]:
    lo_x, up_x, e_x, s_x = x
    lo_y, up_y, e_y, s_y = y
    lower, _ = _truncate(_mul(lo_x, lo_y), n, tau, upper=False)
    upper, e_t = _truncate(_mul(up_x, up_y), n, tau, upper=True)
    err = e_t
    if e_x != 0:
        err += e_x * m1**s_y
    if e_y != 0:
        err += e_y * _mean(up_x, n)
    return lower, upper, err, s_x + s_y


def _hockey(meas: Measure, n: int, eps: Fraction) -> arb:
    """Σ_j w_j (e^{j/n} − e^ε)₊ in balls."""
    j0 = math.floor(eps * n) + 1  # the first j with j/n > ε
    start = max(0, j0 - meas.off)
    coeffs = meas.poly.coeffs()
    if start >= len(coeffs):
        return arb(0)
    high = arb_poly(list(coeffs[start:]))
    first = meas.off + start
    return ball(Fraction(first, n)).exp() * high(ball(Fraction(1, n)).exp()) - ball(eps).exp() * high(arb(1))


def delta_of(composed: Composed, eps: Fraction) -> Enclosure:
    """The certified enclosure of one direction's δ_k(ε) from a composition (lower end >= 0)."""
    n = composed.n
    with workprec(PREC + 2 * n.bit_length() + 16):
        lo = _hockey(composed.lower, n, eps)
        hi = _hockey(composed.upper, n, eps) + composed.error
    return Enclosure(max(Fraction(0), fraction_of(lo.lower())), fraction_of(hi.upper()))


# ----------------------------------------------------------------------------------------------- public drivers


def start_resolution(q: Fraction, sigma: Fraction, steps: int) -> int:
    """A float guess of the resolution n = 1/Δ giving a few per cent relative width (tightness only).

    The chord split adds about Δ²/6 per step to the variance of the composed loss, whose variance is about
    k·Var_Q(L); n is chosen so that the ratio is about 10^-3, and at least 2^6.
    """
    qf, s = float(q), float(sigma)
    var1 = qf * qf * math.expm1(min(1 / (s * s), 700))  # Var_Q(Y) of one remove step
    ratio = 1e-3
    n = math.sqrt(steps / (6 * ratio * steps * max(var1, 1e-300)))
    return max(64, min(int(2 ** math.ceil(math.log2(n))), 2**22))


def both_directions(
    q: Fraction,
    sigma: Fraction,
    steps: int,
    n: int,
    tail: float,
    progress: Callable[[str], None] | None = None,
) -> list[Composed]:
    """The k-fold compositions of both directions (remove, then add) at resolution n.

    Both are always computed: that remove dominates add is not proved (docs/derivations/gaussian.md#sgm-directions).
    ``tail`` is the
    P-mass each side of one step's grid may leave out and, divided by the number of products, each window's.
    """
    out = []
    for direction in _DIRECTIONS:
        if progress is not None:
            progress(f"{direction}: one step on {n} cells per unit loss")
        st = step_measures(direction, q, sigma, n, tail, steps)
        rounds = 2 * max(1, steps.bit_length())
        out.append(
            compose(
                st, steps, tail / rounds, None if progress is None else (lambda m, d=direction: progress(f"{d}: {m}"))
            )
        )
    return out


def delta_enclosure(compositions: list[Composed], eps: Fraction) -> Enclosure:
    """max over directions of the certified δ_k(ε)."""
    encs = [delta_of(c, eps) for c in compositions]
    return Enclosure(max(e.lo for e in encs), max(e.hi for e in encs))


def eps_enclosure(compositions: list[Composed], delta: Fraction, rel_tol: float) -> Enclosure:
    """The certified enclosure of ε(δ) = min{ε >= 0 : δ_k(ε) <= δ} from fixed compositions.

    δ_k is non-increasing in ε, so δ_up(b) <= δ proves ε <= b, and δ_lo(a) > δ proves ε > a. Each end is found
    by :func:`dpcert.arith.search.certified_root` on its own condition (decided from the ball's end points).
    """
    from dpcert.arith.search import certified_root

    def up_holds(e: Fraction) -> bool:
        return delta_enclosure(compositions, e).hi <= delta

    def lo_holds(e: Fraction) -> bool:  # "not certified above δ"
        return not delta_enclosure(compositions, e).lo > delta

    zero = Fraction(0)
    if up_holds(zero):
        return Enclosure.exact(0)
    top = Fraction(1)
    while not up_holds(top):
        top *= 2
        if top > 2**20:
            raise InvalidParameter(
                "delta", str(delta), "a target that some eps <= 2^20 meets (the certified delta(2^20) is above it)"
            )
    # the tolerance is relative to ε itself (certified_root's relative mode scales by max(1, |ε|)): a first
    # coarse search gives the scale
    coarse = certified_root(lambda e, p: up_holds(e), zero, top, tol=Fraction(1, 64), what="delta_up(eps) <= delta")
    scale = max(coarse.lo, Fraction(1, 2**40))
    tol = Fraction(rel_tol).limit_denominator(10**12) / 64 * scale  # probes are cheap (O(n) each)
    hi = certified_root(
        lambda e, p: up_holds(e),
        coarse.lo,
        coarse.hi,
        tol=tol,
        relative=False,
        check_ends=coarse.lo == 0,
        what="delta_up(eps) <= delta",
    ).safe
    if lo_holds(zero):
        return Enclosure(zero, hi)
    lo_br = certified_root(lambda e, p: lo_holds(e), zero, hi, tol=tol, relative=False, what="delta_lo(eps) <= delta")
    return Enclosure(lo_br.lo, hi)


# ----------------------------------------------------------------------------------------------- quantities

#: The largest step count accepted (the composed window grows like √k; checked before any work).
MAX_STEPS = 10**7

_Q = real("q", 0, 1, lo_open=True, doc="Poisson sampling rate in (0, 1]")
_SIGMA = real("sigma", 0, lo_open=True, doc="noise multiplier")
_STEPS = integer("steps", 1, MAX_STEPS, doc="number of DP-SGD steps (an exact integer)")
_EPS = real("eps", 0, doc="epsilon >= 0")
_DELTA = probability("delta", zero=False, doc="target delta in (0, 1)")
_REF = (
    "privacy loss distribution of the Poisson-subsampled Gaussian (both neighbouring directions), k-fold by "
    "arb_poly powers; upper: connect-the-dots chord split (Doroshenko et al. PETS 2022), lower: mean-balanced "
    "contraction onto the grid; convex order (Shaked–Shanthikumar 2007 Thm 4.A.15)"
)

Progress = Callable[[str], None] | None


@dataclass(frozen=True)
class PldResult:
    """A certified PLD enclosure and how it was reached.

    Attributes:
        enclosure: the certified enclosure (δ, ε or σ).
        resolution: n, grid cells per unit of privacy loss, of the narrowest run.
        seconds: the time taken.
        reached: whether the relative width asked for was reached (else the budget ran out first).
        runs: the resolutions tried, in order.
    """

    enclosure: Enclosure
    resolution: int
    seconds: float
    reached: bool
    runs: tuple[int, ...]


def _narrow(enc: Enclosure, rel_tol: float) -> bool:
    return enc.is_exact or (enc.width is not None and (enc.width == 0 or enc.rel_width() <= rel_tol))


def _refining(
    solve: Callable[[int, float], Enclosure],
    n0: int,
    rel_tol: float,
    seconds: float,
    progress: Progress,
    tail_of: Callable[[Enclosure, float], float],
) -> PldResult:
    """Double the resolution (the width falls about 4x each time) until the width is reached or the next run
    would exceed the budget (its time predicted from the last one); every run is valid, so the intersection is."""
    t0 = time.perf_counter()
    n, tail = n0, 1e-22
    best: Enclosure | None = None
    runs: list[int] = []
    while True:
        t1 = time.perf_counter()
        enc = solve(n, tail)
        took = time.perf_counter() - t1
        runs.append(n)
        best = enc if best is None else Enclosure(max(best.lo, enc.lo), min(best.hi, enc.hi))
        if progress is not None:
            progress(f"resolution {n}: {best.short(6)} ({took:.1f} s)")
        if _narrow(best, rel_tol):
            return PldResult(best, n, time.perf_counter() - t0, True, tuple(runs))
        left = seconds - (time.perf_counter() - t0)
        w = best.rel_width()
        factor = 2  # the width falls about 4x per doubling; the time grows about 2x: the largest step that fits
        while factor < 16 and w / factor**2 > rel_tol and took * 2 * factor * 1.3 <= left:
            factor *= 2
        if took * factor * 1.3 > left:
            return PldResult(best, n, time.perf_counter() - t0, False, tuple(runs))
        n *= factor
        tail = tail_of(best, tail)


def _tail_of(rel_tol: float) -> Callable[[Enclosure, float], float]:
    def tail(enc: Enclosure, prev: float) -> float:
        lo = float(enc.lo) if enc.lo is not None else 0.0
        return min(prev, lo * rel_tol / 1000) if lo > 0 else prev

    return tail


def dpsgd_delta(
    q: Any,
    sigma: Any,
    steps: Any,
    eps: Any,
    *,
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of DP-SGD's k-step δ(ε) (max of both directions) within a relative width or budget.

    >>> r = dpsgd_delta("0.01", "1", 10, "0.1")
    >>> r.enclosure.short(4), r.reached
    ('[0.00109, 0.001093]', True)
    """
    parsed = DPSGD_DELTA.parse({"q": q, "sigma": sigma, "steps": steps, "eps": eps})
    qq, s, k, e = (
        as_fraction(parsed["q"]),
        as_fraction(parsed["sigma"]),
        int(parsed["steps"]),
        as_fraction(parsed["eps"]),
    )

    def solve(n: int, tail: float) -> Enclosure:
        return delta_enclosure(both_directions(qq, s, k, n, tail, progress), e)

    return _refining(solve, start_resolution(qq, s, k), rel_tol, seconds, progress, _tail_of(rel_tol))


def dpsgd_eps(
    q: Any,
    sigma: Any,
    steps: Any,
    delta: Any,
    *,
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of DP-SGD's ε(δ) = min{ε >= 0 : δ_k(ε) <= δ} (upper end safe).

    >>> dpsgd_eps("0.01", "1", 10, "1e-3").enclosure.short(4)
    '[0.1036, 0.1038]'
    """
    parsed = DPSGD_EPS.parse({"q": q, "sigma": sigma, "steps": steps, "delta": delta})
    qq, s, k, d = (
        as_fraction(parsed["q"]),
        as_fraction(parsed["sigma"]),
        int(parsed["steps"]),
        as_fraction(parsed["delta"]),
    )

    def solve(n: int, tail: float) -> Enclosure:
        return eps_enclosure(both_directions(qq, s, k, n, tail, progress), d, rel_tol)

    def tail(enc: Enclosure, prev: float) -> float:
        return min(prev, float(d) * rel_tol / 1000)

    return _refining(solve, start_resolution(qq, s, k), rel_tol, seconds, progress, tail)


def _sigma_guess(q: Fraction, steps: int, eps: Fraction, delta: Fraction) -> float:
    """The CLT (μ-GDP) guess μ = q√(k(e^{1/σ²} − 1)) solved for σ (a starting point only, often off)."""
    from dpcert.gaussian.mechanism import sigma_float

    mu = 1 / sigma_float(eps, delta, 1, 1)
    return 1 / math.sqrt(math.log1p(mu * mu / (float(q) ** 2 * steps)))


def dpsgd_sigma(
    q: Any,
    steps: Any,
    eps: Any,
    delta: Any,
    *,
    rel_tol: float = 0.01,
    seconds: float = 600.0,
    progress: Progress = None,
) -> PldResult:
    """Certified calibration: [σ_lo, σ_hi] around σ_min = min{σ : δ_k(ε; σ) <= δ}, with δ(σ_hi) <= δ proved
    (the upper PLD bound) and δ(σ_lo) > δ proved (the lower one).

    δ_k(ε; σ) is non-increasing in σ (a larger σ is the smaller one followed by independent Gaussian noise:
    post-processing), so the two proofs bracket σ_min. The probes share one resolution, doubled when the
    bracket is wider than ``rel_tol`` because the δ enclosures are.

    >>> r = dpsgd_sigma("0.1", 10, "1", "1e-3", rel_tol=0.02)
    >>> r.enclosure.short(3)
    '[1.24, 1.25]'
    """
    from dpcert.arith.search import certified_root

    parsed = DPSGD_SIGMA.parse({"q": q, "steps": steps, "eps": eps, "delta": delta})
    qq, k, e, d = (
        as_fraction(parsed["q"]),
        int(parsed["steps"]),
        as_fraction(parsed["eps"]),
        as_fraction(parsed["delta"]),
    )
    t0 = time.perf_counter()
    guess = _sigma_guess(qq, k, e, d)
    n = start_resolution(qq, Fraction(guess).limit_denominator(1000), k)
    tail = float(d) * rel_tol / 1000
    runs: list[int] = []
    best = Enclosure(Fraction(0), None)  # type: ignore[arg-type]
    while True:
        cache: dict[Fraction, Enclosure] = {}  # one per resolution

        def delta_at(s: Fraction, n: int = n, cache: dict = cache) -> Enclosure:
            if s not in cache:
                cache[s] = delta_enclosure(both_directions(qq, s, k, n, tail), e)
                if progress is not None:
                    progress(f"resolution {n}: sigma = {float(s):.8g}: delta in {cache[s].short(4)}")
            return cache[s]

        lo, hi = Fraction(guess / 2).limit_denominator(2**20), Fraction(guess * 2).limit_denominator(2**20)
        while not delta_at(hi).hi <= d:
            lo, hi = hi, hi * 2
        while delta_at(lo).hi <= d and lo > Fraction(1, 2**20):
            hi, lo = lo, lo / 2
        # relative to σ itself (certified_root's relative mode scales by max(1, |σ|))
        tol = Fraction(rel_tol).limit_denominator(10**9) / 4 * lo
        up = certified_root(
            lambda s, p: delta_at(s).hi <= d, lo, hi, tol=tol, relative=False, check_ends=True, what="sigma_hi"
        )
        s_hi = up.safe
        low_fail = [s for s, enc in cache.items() if enc.lo > d and s <= s_hi]
        s_lo = max(low_fail) if low_fail else Fraction(0)
        if s_lo > 0 and not _narrow(Enclosure(s_lo, s_hi), rel_tol) and delta_at(s_hi).lo <= d:
            dn = certified_root(
                lambda s, p: not delta_at(s).lo > d,
                s_lo,
                s_hi,
                tol=tol,
                relative=False,
                check_ends=False,
                what="sigma_lo",
            )
            s_lo = dn.lo
        runs.append(n)
        cur = Enclosure(max(best.lo, s_lo), s_hi if best.hi is None else min(best.hi, s_hi))
        best = cur
        took = time.perf_counter() - t0
        if _narrow(best, rel_tol) or took * 3 > seconds:
            return PldResult(best, n, time.perf_counter() - t0, _narrow(best, rel_tol), tuple(runs))
        n *= 2


def _parsed(q: Any, sigma: Any, steps: Any) -> tuple[Fraction, Fraction, int]:
    return as_fraction(q), as_fraction(sigma), int(steps)


#: The ball path's largest effort: 2^LEVEL_CAP times the starting resolution.
LEVEL_CAP = 2


def _level(prec: int) -> int:
    """The ball path's effort: the resolution doubles with every doubling of the precision past 64 bits, up to
    :data:`LEVEL_CAP` doublings (a re-check asking for a 1000 times narrower enclosure stops there)."""
    return min(LEVEL_CAP, max(0, (prec // 64).bit_length() - 1))


@functools.lru_cache(maxsize=32)
def _delta_at_level(q: Fraction, s: Fraction, k: int, eps: Fraction, level: int) -> Enclosure:
    # cached: the precisions past the cap give the same run, which a claim's refinement would repeat
    n = start_resolution(q, s, k) * 2**level
    return delta_enclosure(both_directions(q, s, k, n, 1e-22), eps)


@functools.lru_cache(maxsize=32)
def _eps_at_level(q: Fraction, s: Fraction, k: int, delta: Fraction, level: int) -> Enclosure:
    n = start_resolution(q, s, k) * 2**level
    return eps_enclosure(both_directions(q, s, k, n, float(delta) * 1e-6), delta, 1e-4)


@functools.lru_cache(maxsize=32)
def _sigma_at_level(q: Fraction, k: int, eps: Fraction, delta: Fraction, level: int) -> Enclosure:
    return dpsgd_sigma(q, k, eps, delta, rel_tol=0.02 / 2**level, seconds=math.inf).enclosure


def _delta_ball(ctx: Any, q: Exact, sigma: Exact, steps: int, eps: Exact) -> arb:
    enc = _delta_at_level(*_parsed(q, sigma, steps), as_fraction(eps), _level(ctx.prec))
    with workprec(ctx.prec):
        return enc.ball()


def _delta_within(seconds: float, q: Exact, sigma: Exact, steps: int, eps: Exact) -> tuple[Enclosure, int]:
    r = dpsgd_delta(q, sigma, steps, eps, rel_tol=1e-9, seconds=seconds)
    return r.enclosure, r.resolution


def _eps_ball(ctx: Any, q: Exact, sigma: Exact, steps: int, delta: Exact) -> arb | Fraction:
    enc = _eps_at_level(*_parsed(q, sigma, steps), as_fraction(delta), _level(ctx.prec))
    if enc.is_exact:
        return enc.lo
    with workprec(ctx.prec):
        return enc.ball()


def _eps_within(seconds: float, q: Exact, sigma: Exact, steps: int, delta: Exact) -> tuple[Enclosure, int]:
    r = dpsgd_eps(q, sigma, steps, delta, rel_tol=1e-6, seconds=seconds)
    return r.enclosure, r.resolution


def _sigma_ball(ctx: Any, q: Exact, steps: int, eps: Exact, delta: Exact) -> arb:
    enc = _sigma_at_level(as_fraction(q), int(steps), as_fraction(eps), as_fraction(delta), _level(ctx.prec))
    with workprec(ctx.prec):
        return enc.ball()


def _sigma_within(seconds: float, q: Exact, steps: int, eps: Exact, delta: Exact) -> tuple[Enclosure, int]:
    r = dpsgd_sigma(q, steps, eps, delta, rel_tol=1e-4, seconds=seconds)
    return r.enclosure, r.resolution


DPSGD_DELTA = Quantity(
    "dpsgd.delta",
    (_Q, _SIGMA, _STEPS, _EPS),
    _delta_ball,
    _REF,
    "tight delta(eps) of DP-SGD (Poisson rate q, noise multiplier sigma, steps), max of add and remove: the "
    "certified PLD bracket (narrows like 1/n^2 in the resolution n)",
    bracket=True,
    within=_delta_within,
    narrow_hint="dpcert eval dpsgd.delta {inputs} --seconds {seconds}",
)
DPSGD_EPS = Quantity(
    "dpsgd.eps",
    (_Q, _SIGMA, _STEPS, _DELTA),
    _eps_ball,
    _REF,
    "tight eps(delta) of DP-SGD (the least eps >= 0 with delta(eps) <= delta): the certified PLD bracket",
    bracket=True,
    within=_eps_within,
    narrow_hint="dpcert dpsgd eps {inputs} --method pld --seconds {seconds}",
)
DPSGD_SIGMA = Quantity(
    "dpsgd.sigma",
    (_Q, _STEPS, _EPS, _DELTA),
    _sigma_ball,
    _REF + "; monotone in sigma by post-processing",
    "the least noise multiplier making DP-SGD (eps, delta)-DP (tight PLD): [sigma_lo, sigma_hi], delta(sigma_hi) "
    "<= delta and delta(sigma_lo) > delta proved",
    bracket=True,
    within=_sigma_within,
    narrow_hint="dpcert dpsgd sigma {inputs} --seconds {seconds}",
)

QUANTITIES = [DPSGD_DELTA, DPSGD_EPS, DPSGD_SIGMA]
