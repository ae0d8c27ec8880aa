"""One step of a privacy loss on a grid, both ends proved: u_lo <= u_Y on [0, ∞) and Y ≼ Z_hi + k·P(L >= L_max).

**Why a discretisation can be proved.** For a direction (P, Q) with Y = dP_ac/dQ (:mod:`dpcert.pld.loss`), the
k-fold composition has δ_k(ε) = P_s^k-part + E_{Q^k}[(Y_1⋯Y_k − e^ε)₊]. Fix every coordinate but one and call the
product of the others R >= 0: the remaining expectation is E[(Y R − c)₊] = R·u_Y(c/R) (c = e^ε > 0), where

    u_Y(t) = E_Q[(Y − t)₊]        (the *potential* of Y's law; convex, non-increasing, u_Y' = −Q(Y > t))

and, for a measure Z of atoms w_j at g_j, u_Z(t) = Σ_j w_j (g_j − t)₊. Hence, with the steps independent and by
induction over the coordinates (condition on the others):

* a Z with u_Z <= u_Y on [0, ∞) (for a probability law: Z <=_icx Y) lowers δ_k, whatever its total mass;
* a Z with E g(Z) >= E g(Y) for every increasing convex g (Z >=_icx Y) raises it, and a larger measure raises it.

Write g_i = e^{iΔ} (Δ = 1/n, the *resolution* n) and split Q's mass by the cells [g_i, g_{i+1}) of Y: the cell
masses m_i = Q(cell) and μ_i = E_Q[Y 1_cell] = P_ac(cell) are differences of the survival balls SQ_i = Q(L >= iΔ),
SP_i = P_ac(L >= iΔ) the mechanism supplies (:meth:`~dpcert.pld.loss.PrivacyLoss.survivals`). Let c_i = μ_i − g_i m_i
>= 0 and d_i = g_{i+1} m_i − μ_i >= 0 (the cell's conditional mean of Y lies in the cell, atoms of L included), and
h_i = g_{i+1} − g_i, so that c_i + d_i = h_i m_i.

* **Upper end (connect the dots).** On a cell a convex g lies below its chord, so ∫_cell g dQ <= (m_i − u_i) g(g_i) +
  u_i g(g_{i+1}) with u_i = c_i/(g_{i+1} − g_i) ∈ [0, m_i] (the chord integrated against Q on the cell). The two
  atoms keep the cell's mass and mean, so the error is of second order in Δ per step (a variance increase of
  about Δ²/6 on the scale of the loss for a smooth law). Mass below the bottom grid point is moved *up* to it (g
  increasing). Mass above the top point L_max cannot be placed: E_{Q^k}[f·1{some L_i >= L_max}] <= Σ_i E_{Q^k}[Π Y_j
  1{L_i >= L_max}] <= k·P_ac(L >= L_max) (the other factors have Q-mean <= 1), which is added (``tail``), and the
  rest is the composition of Q restricted to L < L_max.

* **Lower end (a convex minorant of the potential on the grid).** The potential is known exactly at the grid
  points, U_i = u_Y(g_i) = SP_i − g_i SQ_i, and −SQ_i = −Q(Y >= g_i) is its left derivative there, so u_Y lies above
  every tangent T_i(t) = U_i − SQ_i (t − g_i). On the cell [a, b] = [g_i, g_{i+1}] the chord C through (a, U_a) and
  (b, U_b) has C − T_a = (t − a) d_i/h_i and C − T_b = (b − t) c_i/h_i (from U_a − U_b = c_i + h_i SQ_b and m_i =
  SQ_a − SQ_b), so u_Y >= max(T_a, T_b) = C − min((t − a) d_i, (b − t) c_i)/h_i.

  *Cell lemma.* A segment φ on [a, b] with φ(a) = U_a − η_a, φ(b) = U_b − η_b, η_a, η_b >= 0, lies below u_Y if
  η_a d_i + η_b c_i >= c_i d_i. Proof: C − φ = (η_a (b − t) + η_b (t − a))/h_i must be >= min((t − a) d_i, (b − t)
  c_i)/h_i; both sides are linear on [a, t*] and on [t*, b], where t* − a = h_i c_i/(c_i + d_i) is where the two
  terms of the min meet; at a and b the inequality is η >= 0, at t* it is the condition. A segment also lies below
  u_Y if it lies below T_a at both ends, or below T_b at both ends, or is 0 (u_Y >= 0).

  *The measure.* Choose lowerings η_i >= 0 that cover every cell (the lemma's condition) and put the top point at
  0 (η_top = U_top: no mass above the grid). Let φ be the greatest convex function, linear between grid points,
  below the points (g_i, U_i − η_i), equal to 0 right of the top point and of slope −SQ_0 left of its first point
  (the mass below the grid is dropped). Then φ <= U_i − η_i at every grid point, so every cell stays covered (a
  larger lowering only helps), and left of g_0 φ lies below T_0. φ's slope jumps w_j >= 0 are the atoms of Z_lo
  (total mass SQ_0 <= 1), u_{Z_lo} = φ <= u_Y on [0, ∞), and δ_k computed from Z_lo is a lower bound.

  *Why it is second order, and why an edge costs little.* u_Y − u_{Z_lo} is the interpolation of the lowerings
  minus the chord gap, so a lowering at a grid point lowers u_{Z_lo} only on the two cells beside it, with two
  exceptions: a lowering at the bottom point (the left ray then lies lower too: u drops at every t below, a loss
  of mean) and a point lowered by all of U_i (φ = 0 from there up: the tail above is lost). Over a smooth part of
  the law η_i ≈ c_i d_i/(c_i + d_i) ≈ h_i m_i/4, O(Δ²) per cell (:func:`_lowerings` splits each cell's cover
  between its ends by the potentials there and takes the mean of the two cells' demands at each point). At an
  edge of the law (the subsampled Gaussian's Y >= 1 − q in the remove direction, Y <= 1/(1 − q) in the add
  direction) the mass piles up inside one cell, u_Y bends sharply inside it, and no grid measure can follow: a
  first-order loss near that cell. The lowerings keep it there: from the bottom, η_0 = 0 and η_{i+1} = d_i (1 −
  η_i/c_i)₊ (each cell covered exactly, and always within the room the left ray leaves) until the smooth choice
  fits that room; from the top, η_top = U_top and η_i = c_i (1 − η_{i+1}/d_i)₊ downwards. A deficit confined to a
  few cells moves a k-fold δ by O(Δ²). Rounding mass down at the bottom of the grid instead (the groups below)
  loses mean, which moves δ_k by about k times that mean. The price of locality: the point just above a pile
  carries part of its deficit, so a single step (or a few) evaluated exactly there can come out lower than with
  the groups (measured: the remove direction at q = 1e-3, σ = 1/2, n = 2048, whose pile fills the cell below L =
  0, has δ_1(0) 17 times wider; from a few steps on, and away from that point, the minorant is the tighter one).
  So at a few steps (:data:`dpcert.pld.accountant.GROUPS_STEPS`) the groups below are built too (``groups=True``,
  ``lower_groups``), composed on their own, and the larger of the two lower ends is kept: both are lower bounds.
  (Raising the minorant's points to the groups' potential where it is higher does not do it, measured at that
  setting: in the cell below the pile's, the chord from the minorant's point to the groups' point passes over the
  tangents' envelope the cell lemma rests on, and the points the checks then put back leave δ_1(0) where it was.)

  *Certification.* The lowerings are floats (exact dyadics): any choice is valid, only the tightness depends on
  it. The points U_i − η_i are balls; the minorant is built in balls, a point kept only where convexity is proved
  (so every atom is a proved non-negative ball), and every cell's condition is then checked in balls.

* **Fallback: equal-mean groups.** If a check above is not decided, the lower measure is a mean-preserving
  contraction: a piece of Y's law with conditional mean ȳ replaced by an atom at ȳ gives Z with E[Y | Z] = Z, so Z
  <=_cx Y (Jensen). Cell j is split in fractions: β_j of it goes to the atom at g_{j+1}, the rest to g_j; the group
  at g_j has mean >= g_j exactly when (1 − β_j) c_j >= β_{j−1} d_{j−1} (certified in balls; a group whose inequality
  is not proved gets β_{j−1} = 0), and is put at g_j (Jensen, then a move down). The β are chosen in floats
  (:func:`_betas`); the slack of unbalanced groups is the mean this construction loses.

**Atoms.** An atom of L inside a cell is split by the upper construction like any mass (second order); the lower
one treats it like an edge (a local first-order deficit). A mechanism with atoms at rational losses is best run at
resolutions that put them on grid points (``dpcert.laplace.pld`` does).

Every number above is a ball containing the exact value of the construction at the working precision
:func:`working_precision`, so the lower measure's and the upper measure's exact values are what the composition
(:mod:`dpcert.pld.compose`) and the evaluation (:mod:`dpcert.pld.accountant`) use.

References:
    Convex order: M. Shaked, J. G. Shanthikumar, "Stochastic Orders", Springer 2007, Thm 4.A.15 [SS07] (Z <=_icx Y
    iff E(Z − t)₊ <= E(Y − t)₊ for all t, for laws of equal total mass). Connect the dots: V. Doroshenko, B. Ghazi,
    P. Kamath, R. Kumar, P. Manurangsi, PETS 2022 (arXiv 2207.04380). The lower construction is this module's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
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
    """Atoms w_j at y = e^{j/n}, j = off, off + 1, …: a polynomial in z with an index offset.

    ``values``, when set, holds the same atoms as float64 (the measure was built in floats,
    :mod:`dpcert.pld.floatdisc`): each atom is then exactly its float, a dyadic, and ``poly`` holds the same numbers
    as exact balls, so the float path reads ``values`` without converting.
    """

    off: int
    poly: arb_poly
    values: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def length(self) -> int:
        return self.poly.length()


@dataclass(frozen=True)
class StepMeasures:
    """One step's two discretisations in one direction, at resolution n (Δ = 1/n).

    Attributes:
        lower: Z_lo with u_{Z_lo} <= u_Y on [0, ∞) (a sub-probability measure on the grid).
        upper: Z_hi >=_icx Y restricted to L < L_max.
        tail: a ball containing P_ac(L >= L_max) (added k times to the upper bound).
        mean_upper: a ball containing the mean of ``upper`` (>= the mean of Y restricted to L < L_max).
        infinite: P_s(Ω), the mass of an infinite loss (exact).
        lower_groups: the equal-mean groups' lower measure (module docstring), when asked for (``groups=True``):
            a second valid lower measure, tighter than ``lower`` at one to a few steps next to a pile of mass.
    """

    n: int
    lower: Measure
    upper: Measure
    tail: arb
    mean_upper: arb
    infinite: Fraction = Fraction(0)
    lower_groups: Measure | None = None


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


def discretise(loss: PrivacyLoss, n: int, tail: float, groups: bool = False) -> StepMeasures:
    """One step's lower and upper discretisations at resolution n (see the module docstring).

    Args:
        loss: the direction. n: grid cells per unit of loss. tail: the P-mass (float) the grid range may leave out
            on each side (tightness only). groups: also build the equal-mean groups' lower measure
            (``lower_groups``; the fallback's, whichever ``lower`` is).

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
        tail_c = tail_p - g[cells] * tail_q  # U at the top point: E_Q[(Y − g_top)₊] >= 0
        lo = _lower_minorant(g, sq, sp, m, c, d, tail_c)
        grouped = _lower_groups(m, c, d, tail_q, tail_c) if lo is None or groups else None
        if lo is None:  # a check the balls could not decide: the contraction of equal-mean groups (valid too)
            lo = grouped
        upper = Measure(i_lo, arb_poly(up))
        mean_up = mean(upper, n)
        second = Measure(i_lo, arb_poly(grouped)) if groups and grouped is not None else None
        return StepMeasures(n, Measure(i_lo, arb_poly(lo)), upper, tail_p, mean_up, loss.infinite_mass(), second)


#: The relative margin by which every lowering η_i exceeds what its cells need (room for the balls' radii).
_ETA_MARGIN = 1.0 + 2.0**-40
#: The least lowering (a floor, so that a cell whose c_i or d_i is below the float range is still covered).
_ETA_FLOOR = 2.0**-1000


def _lowerings(m: list[float], c: list[float], d: list[float], h: list[float], u: list[float]) -> list[float]:
    """Float lowerings η_0 … η_{top−1} covering every cell (η_i/c_i + η_{i+1}/d_i >= 1), small, and shaped so that
    the minorant needs no lowering at the bottom (module docstring); ``u`` holds U_0 … U_top (U_top is the top's).
    """
    cells = len(m)
    # the smooth lowering. A cell is covered by ρ_i a + ρ_{i+1} b >= 1 in the relative lowerings ρ = η/U (a =
    # U_i/c_i, b = U_{i+1}/d_i); the split of least ρ_i² + ρ_{i+1}² is ρ ∝ (a, b): equal where U_i ≈ U_{i+1} (η ≈
    # c d/(c + d) ≈ h m/4), and on the end of larger potential where they differ (a point with little potential
    # above it, near an edge, is not lowered to nothing). Each point takes the mean of its two cells' demands,
    # raised where a cell is then not covered.
    left = [0.0] * cells
    right = [0.0] * (cells + 1)
    for i in range(cells):
        if c[i] > 0 and d[i] > 0 and u[i] > 0 and u[i + 1] > 0:
            a, b = u[i] / c[i], u[i + 1] / d[i]
            left[i], right[i + 1] = u[i] * a / (a * a + b * b), u[i + 1] * b / (a * a + b * b)
        elif c[i] > 0 and d[i] > 0:  # no potential above the right end: the left end covers the cell
            left[i] = c[i]
    uni = [(right[i] + left[i]) / 2 for i in range(cells)] + [u[cells]]
    for i in range(cells):
        if c[i] > 0 and d[i] > 0:
            cover = uni[i] / c[i] + uni[i + 1] / d[i]
            if cover < 1:
                if cover <= 0:  # neither end lowered (no potential at either): the left end covers the cell
                    uni[i] = c[i]
                elif i + 1 < cells:
                    uni[i] /= cover
                    uni[i + 1] /= cover
                else:  # the top point's lowering is fixed (v_top = 0)
                    uni[i] = c[i] * (1 - uni[i + 1] / d[i])
    uni.pop()
    fwd = [0.0] * (cells + 1)  # η_0 = 0, then each cell covered exactly, upwards
    for i in range(cells):
        fwd[i + 1] = d[i] * max(0.0, 1.0 - fwd[i] / c[i]) if c[i] > 0 else 0.0
    bwd = [0.0] * (cells + 1)
    bwd[cells] = u[cells]  # v_top = 0, then each cell covered exactly, downwards
    for i in range(cells - 1, -1, -1):
        bwd[i] = c[i] * max(0.0, 1.0 - bwd[i + 1] / d[i]) if d[i] > 0 else 0.0
    # the backward recursion ends where it first resets after covering the law's last populated cells
    j2 = next((i for i in range(cells - 1, 0, -1) if bwd[i] <= uni[i] and bwd[i + 1] > 0), 0)
    # the bottom: the minorant's left ray has slope −SQ_0, and a point U_i − η_i below the ray through the bottom
    # point would force a lowering at the bottom, which lowers u at every t below. The room is η_i − η_0 <= B_i =
    # U_i − U_0 + SQ_0 (g_i − g_0) = Σ_{j<i} (h_j·Q(cells below j) + d_j) (no sum of signs). The forward recursion
    # always fits (η_{i+1} <= d_i <= B_{i+1}); the smooth lowering is used from the first point where it fits
    room = [0.0] * cells
    below = 0.0
    for i in range(1, cells):
        room[i] = room[i - 1] + h[i - 1] * below + d[i - 1]
        below += m[i - 1]
    tight = 1 - 2.0**-30
    fits = [True] * (cells + 1)  # fits[i]: the smooth lowering fits the room at every j >= i (below j2)
    for i in range(min(cells, j2 + 1) - 1, -1, -1):
        fits[i] = fits[i + 1] and uni[i] * _ETA_MARGIN <= room[i] * tight
    if all(uni[i] - uni[0] <= room[i] * tight for i in range(min(cells, j2 + 1))):
        j1 = 0
    else:
        j1 = next((i for i in range(1, cells) if fwd[i] <= uni[i] and fits[i]), cells)
        if any(fwd[i] > u[i] / 2 for i in range(j1)):
            j1 = 0  # a grid too coarse for the edge: the forward lowering would flatten the law onto one point
    eta = list(uni)
    if j2 >= j1:
        eta[:j1] = fwd[:j1]
        eta[j2 + 1 :] = bwd[j2 + 1 : cells]
    else:  # the recursions meet: forward below j1, backward above, the larger of both at j1
        eta[:j1] = fwd[:j1]
        eta[j1 + 1 :] = bwd[j1 + 1 : cells]
        if j1 < cells:
            eta[j1] = max(fwd[j1], bwd[j1])
    return [max(x * _ETA_MARGIN, _ETA_FLOOR) for x in eta]


def _lower_minorant(
    g: list[arb], sq: list[arb], sp: list[arb], m: list[arb], c: list[arb], d: list[arb], tail_c: arb
) -> list[arb] | None:
    """The lower measure's atoms at g_0 … g_top (balls), or None if a check is not decided (module docstring).

    The lowerings are chosen in floats (:func:`_lowerings`); the points (g_i, U_i − η_i) are exact; their greatest
    convex minorant with slope >= −Q(L >= L_0) is found in balls (a point is kept only where convexity is proved);
    every condition of the proof is then checked in balls.
    """
    cells = len(m)
    u_b = [sp[i] - g[i] * sq[i] for i in range(cells)] + [tail_c]
    eta = _lowerings(
        [max(_fl(x), 0.0) for x in m],
        [max(_fl(x), 0.0) for x in c],
        [max(_fl(x), 0.0) for x in d],
        [_fl(g[i + 1] - g[i]) for i in range(cells)],
        [_fl(x) for x in u_b],
    )
    # a point lowered by all of U_i is put at 0 exactly (no mass above it: u_Z vanishes there)
    v = [arb(0) if eta[i] >= _fl(u_b[i]) else u_b[i] - arb(eta[i]) for i in range(cells)] + [arb(0)]

    def slope(a: int, b: int) -> arb:
        return (v[b] - v[a]) / (g[b] - g[a])

    hull = [0]
    slopes: list[arb] = []  # slopes[k] = slope(hull[k], hull[k + 1])
    for i in range(1, cells + 1):
        s = slope(hull[-1], i)
        while slopes and not slopes[-1] < s:  # keep a point only where convexity is proved
            hull.pop()
            slopes.pop()
            s = slope(hull[-1], i)
        hull.append(i)
        slopes.append(s)
    # the left ray has slope −Q(L >= L_0) (mass below the grid is dropped): start where the hull is not steeper
    first = 0
    while first < len(slopes) and not slopes[first] + sq[0] >= 0:
        first += 1
    if first == len(slopes):
        return None
    if not slopes[-1] <= 0:
        return None
    atoms = [arb(0)] * (cells + 1)
    atoms[hull[first]] = slopes[first] + sq[0]
    for k in range(first + 1, len(slopes)):
        atoms[hull[k]] = slopes[k] - slopes[k - 1]
    atoms[cells] = -slopes[-1]
    # the minorant at every point, and the proof's conditions on every cell
    phi = list(v)
    base = hull[first]
    for i in range(base):
        phi[i] = v[base] + sq[0] * (g[base] - g[i])
    for k in range(first, len(slopes)):
        a, b = hull[k], hull[k + 1]
        for i in range(a + 1, b):
            phi[i] = v[a] + slopes[k] * (g[i] - g[a])
    for i in range(cells):
        if not _below_on_cell(phi[i], phi[i + 1], u_b[i], u_b[i + 1], sq[i], sq[i + 1], g[i + 1] - g[i], c[i], d[i]):
            return None
    return atoms


def _below_on_cell(pa: arb, pb: arb, ua: arb, ub: arb, qa: arb, qb: arb, h: arb, c: arb, d: arb) -> bool:
    """Whether the segment from (a, pa) to (b, pb) is proved below u_Y on the cell [a, b] (module docstring): below
    both tangents' envelope at a, b and its kink, or below one tangent at both ends."""
    if pa.is_zero() and pb.is_zero():
        return True  # u_Y >= 0
    la, lb = ua - pa, ub - pb
    if la >= 0 and lb >= 0 and la * d + lb * c - c * d >= 0:
        return True
    if pa <= ub + qb * h and pb <= ub:
        return True
    return bool(pa <= ua and pb <= ua - qa * h)


def _lower_groups(m: list[arb], c: list[arb], d: list[arb], tail_q: arb, tail_c: arb) -> list[arb]:
    """The fallback lower measure: cells split into groups whose means are proved >= their grid point, each
    group put at its point (Jensen, then a move down); the top tail L >= L_max is one more cell that only receives.
    """
    cells = len(m)
    cf = [max(_fl(x), 0.0) for x in c] + [max(_fl(tail_c), 0.0)]
    dfl = [max(_fl(x), 0.0) for x in d]
    mf = [max(_fl(x), 0.0) for x in m]
    beta = _betas(cf, dfl, mf)
    mm = m + [tail_q]
    cc = c + [tail_c]
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
    return lo


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
