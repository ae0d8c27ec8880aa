"""One step of a privacy loss on a grid in float64 arrays, both ends proved: the fast path of the discretisation.

:func:`dpcert.pld.discretise.discretise` builds one step's two measures in Arb balls, one Python-level operation per
cell. This module builds measures of the same construction from float64 bounds of the survival masses
(:meth:`~dpcert.pld.loss.PrivacyLoss.survival_bounds`) in vectorised numpy, and proves on the floats it ends up with
the property each end needs. The notation is :mod:`dpcert.pld.discretise`'s: g_i = e^{i/n} (i counted from the
bottom of the grid, i = 0 … top), h_i = g_{i+1} − g_i, SQ_i = Q(L >= L_i), SP_i = P_ac(L >= L_i), m_i, μ_i, c_i,
d_i the cell quantities and U_i = SP_i − g_i SQ_i the potential u_Y(g_i).

**What each end needs.** The composition (:mod:`dpcert.pld.fftcompose`, :mod:`dpcert.pld.compose`) replaces one
step's law by a measure Z of non-negative atoms; by the induction of :mod:`dpcert.pld.discretise` (each coordinate
enters through t ↦ E(Y − t)₊ at t > 0) δ_k is raised when u_Z >= u_Y'' on (0, ∞) and lowered when u_Z <= u_Y there,
where Y'' is Y under Q restricted to L < L_max with the mass below g_0 moved up to g_0 (the part above L_max is the
k·P_ac(L >= L_max) the upper end adds). Both ends are proved in that form, on the float atoms themselves: the float
measure *is* the measure composed (every float is a dyadic, an exact real), so no claim "the floats are close to
the balls" is needed, only that the floats' own potentials sit on the right side.

*Why not atom by atom.* The atoms are second differences of the survival masses divided by h ≈ 1/n, so a bound of
each atom from bounds of the survival masses is n times wider than those (near L = 0, where SP ≈ 1, an absolute
width of about n·2^-52 per atom): the upper measure would gain mass ≈ n·2^-52 per cell, which k steps multiply. At
the level of potentials the same input widths cost only about 2^-52·SP_i, a relative 2^-52·SP_i/U_i of U_i.

**The upper end.** The atoms are the chord split of the survival midpoints (floats, rounded any way: a choice),
negative noise set to 0. Their potential V_i = u_Z(g_i) = Σ_{j>i} w_j (g_j − g_i) is checked against U''_i =
(SP_i − SP_top) − g_i (SQ_i − SQ_top) (the potential of Y'' at g_i, i < top), and their total mass against
Q(L < L_max) = 1 − SQ_top. *Claim:* V_i >= U''_i for every i < top and Σ w_j >= 1 − SQ_top give u_Z >= u_Y'' on
(0, ∞). *Proof:* u_Y'' is convex, so on a cell it lies below its chord, and the chord lies below u_Z, which is linear
on the cell (no atom inside) and above u_Y'' at both ends (at the top both are 0: no atom above g_top, no mass of
Y'' above L_max). Above g_top, u_Y'' = 0 <= u_Z. Below g_0 every atom of both is at or above g_0, so u_Z(t) = V_0 +
(g_0 − t)·Σw >= U''_0 + (g_0 − t)(1 − SQ_top) = u_Y''(t). ∎ The check compares U''_i's upper end (from the
survival bounds) with V_i's lower end (:func:`_potential`). Where the midpoints' atoms fall short — by the inputs'
widths, about 2^-52·SP_i absolute, which near the top of the grid is a larger share of the small U''_i — the atoms
are raised by factors f_j >= 1 that do not decrease with j: then every atom above g_i is raised by at least f_{i+1}, so
V_i by at least that factor, and f_{i+1} is chosen >= the largest shortfall need_k/v_k of the points k <= i (the mass's
shortfall sets f_0). A point's shortfall is so paid only by the atoms above it (a bulk atom is raised by about 1e-13,
the top ones by what the top needs), which keeps the relative change of the potential at every t near the uncertainty
there. The check after the raise is exact in floats: dn(f_{i+1}·v_i) >= Ū''_i and dn(f_0·mass) >= 1 − S̲Q_top. What a
factor cannot reach (v_i = 0: no atom above) is added at the top, α, which raises V_i by α(g_top − g_i) >=
α·dist_i, dist_i a lower bound of g_top − g_i. Anything still short hands the loss to the arb path.

**The lower end.** The lowerings η are chosen as in :mod:`dpcert.pld.discretise` (:func:`_lowerings_np`, the same
algorithm in arrays), from the midpoints of c_i, d_i where their lower bounds are positive and 0 where not (a cell
empty in exact arithmetic has c = d = 0, and the noise of its float bounds must not steer the recursions), from a
lower bound U̲ of the potential, then raised where a cell is not covered for the upper bounds c̄, d̄ (η_a >=
c̄(1 − η_b/d̄): a lowering of at most c̄, the noise level in such a cell), by 2^-30 relative, and by (8γ + 2^-46)·U̲_i
(room for the potential's bound and the float noise of the minorant); the points (g_i, U̲_i − η_i) (0 where η_i
>= U̲_i, and 0 at the top) go through a float greatest convex minorant with left slope −S̲Q_0(1 − 8γ − 2^-46), whose
slope jumps, negative noise set to 0, are the atoms w_j >= 0. Again a choice; the proof is on the atoms. Their
potential φ = u_Z is convex and linear on every cell whatever the atoms are (non-negative atoms on the grid). Checked
in outward-rounded floats, with φ̄_i an upper bound of φ(g_i):

* left of the grid: Σ w_j <= SQ_0 and φ̄_0 <= U̲_0, so φ(t) = φ(g_0) + (g_0 − t)Σw <= U_0 + SQ_0 (g_0 − t), the
  tangent at g_0 (slope the left derivative −SQ_0), which lies below the convex u_Y;
* on each cell [a, b] one of: (A) the cell lemma, ℓ_a = U̲_a − φ̄_a >= 0, ℓ_b >= 0 and ℓ_a d̄ + ℓ_b c̄ >= c̄ d̄ — the
  lemma's condition ℓ_a/c + ℓ_b/d >= 1 is monotone (larger ℓ, smaller c and d only help, and c = 0 or d = 0 makes it
  ℓ >= 0), so it holds for the exact ℓ >= ℓ̲, c <= c̄, d <= d̄; (B) φ below the tangent at a at both ends (φ̄_a <=
  U̲_a, φ̄_b <= U̲_a − S̄Q_a h̄); (C) below the tangent at b (φ̄_a <= U̲_b + S̲Q_b h̲, φ̄_b <= U̲_b); (D) φ = 0 on
  the cell (no atom above a: exactly 0, u_Y >= 0);
* right of g_top, φ = 0 <= u_Y.

The checks use that the exact c, d and U are >= 0 (a cell's conditional mean lies in the cell; U is a potential),
which is why an empty cell is decided here although its balls straddle 0 on the arb path. A cell that fails gets
its left point lowered by c̄ more (then ℓ_a >= c and (A) holds whatever ℓ_b >= 0) and the minorant is rebuilt, at
most :data:`_REPAIRS` times; the equal-mean groups of :mod:`dpcert.pld.discretise` are the fallback after that. The
groups (also built when asked, ``groups=True``, and for a loss with a ``lattice`` of atoms, whose arb path used them)
are certified as there — group j's (1 − β_j) c_j >= β_{j−1} d_{j−1}, checked with c̲_j and d̄_{j−1} (the β are chosen
from those same bounds) — and its atoms are lower bounds of (1 − β_j) m_j + β_{j−1} m_{j−1}: a smaller measure has a
smaller potential.

**Rounding, proved.** IEEE-754 +, −, ×, ÷ of float64 are correctly rounded (numpy's array operations, SIMD or not,
are these operations; no fused multiply-add is formed across two ufunc calls), so the exact result of one
operation lies within one ulp of the float returned, and ``np.nextafter`` towards ∓∞ gives a lower or upper bound;
with gradual underflow this holds for subnormal results too (a run that flushes subnormals to zero is detected,
:func:`_ieee_ok`, and handed to the arb path). Interval products here only meet operands whose exact values are >= 0
(masses, potentials, g, h) with bounds clipped to [0, ∞) where the exact value is known non-negative, so lo·lo and
hi·hi are the ends; the one division in a bound (α above) has its numerator rounded up and its divisor a lower
bound, and is rounded up itself (other quotients only choose sizes, which a check then proves). A sum of non-negative
terms in which each term meets at most m roundings, in any order, is within γ_m = mu/(1 − mu) relative of the exact sum,
u = 2^-52 here (a unit that covers any rounding mode), plus 2^-1075 per product that underflows; the sums here run in
blocks of about √N (:func:`_suffix`, m about 2√N), and the potentials' bounds (:func:`_potential`) carry (1 ∓ 3γ_m) and
N·2^-1074. No libm function enters a bound: g_i = e^{i/n} and e^{1/n} − 1 are Arb balls rounded outwards (:func:`_grid`:
g = T1[a]·T2[r] with both tables from Arb, one rounded product). No maintained library offers vectorised IEEE interval
arrays (pyinterval, mpmath's ``iv`` and python-flint are scalar), hence these few helpers.

**Refusals.** Survival bounds that are not finite, not in [0, 1], crossed (lo > hi), inconsistent with monotone
survivals or with a cell mean inside its cell (c̄ < 0, d̄ < 0, Ū < 0), a grid past e^{±700}, or a check still
failing after the repairs: the loss goes to :func:`dpcert.pld.discretise.discretise` (the arb path), never guessed.
:data:`STATS` counts which path decided.

References:
    N. J. Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., SIAM 2002, Lemma 3.1 and §4.2 [Hig02]
    (γ_n, summation); IEEE Std 754-2019 §4.3 (correct rounding).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import arb, arb_poly

from dpcert.arith.ball import ball, workprec
from dpcert.pld.discretise import (
    _ETA_FLOOR,
    _ETA_MARGIN,
    MAX_CELLS,
    GridTooLarge,
    Measure,
    StepMeasures,
    _betas,
    discretise,
    working_precision,
)
from dpcert.pld.loss import PrivacyLoss

__all__ = ["discretise_float", "STATS", "FLOAT_CELLS", "ball_bounds"]

#: How many one-step discretisations each path decided (``"float"``: this module; ``"arb"``: handed to the arb path
#: after a float check was not decided; ``"small"``: a grid below :data:`FLOAT_CELLS`, given to the arb path).
STATS = {"float": 0, "arb": 0, "small": 0}

#: The unit roundoff used in every γ (2^-52: any IEEE rounding mode).
_U = 2.0**-52
#: The smallest subnormal, the absolute error of one product that underflows is below it.
_TINY = 2.0**-1074
#: Rebuilds of the lower minorant after failing cells are lowered (then the equal-mean groups).
_REPAIRS = 3
#: The relative factor the upper atoms may be raised by (past it the top atom takes the deficit).
_SCALE_CAP = 2.0**-20
#: Below this many cells the arb discretisation is used (:func:`dpcert.pld.discretise.discretise`): on a small grid
#: it costs milliseconds, and its balls carry the survival masses to 128 bits, where float bounds of them cost a
#: relative 1e-13 or so of width (a docs example's δ at 20 digits moved in its 13th; the arb path is also what every
#: certificate re-checks). Above it the arb path's Python-level ball arithmetic per cell is what the float path saves.
FLOAT_CELLS = 4096
#: Vectorised passes of the hull before the monotone chain takes over (:func:`_hull`).
_HULL_PASSES = 64
#: Largest |i/n| of a grid point (e^{±700} stays normal).
_MAX_EXP = 700


def _dn(x: np.ndarray) -> np.ndarray:
    return np.nextafter(x, -np.inf)


def _up(x: np.ndarray) -> np.ndarray:
    return np.nextafter(x, np.inf)


def _gamma(m: int) -> float:
    """A float >= γ_m = mu/(1 − mu) (u = 2^-52), for mu <= 10^-3."""
    mu = m * _U
    if mu > 1e-3:
        raise ValueError(f"{m} terms are too many for the float summation bound")
    return mu * 1.01


def _ieee_ok() -> bool:
    """Whether float64 arithmetic keeps subnormals (no flush-to-zero or denormals-are-zero mode)."""
    tiny = np.array([2.0**-1074, 2.0**-1022])
    return bool(tiny[0] * 1.0 > 0 and (tiny[1] / 2.0) > 0 and tiny[0] + tiny[0] == 2.0**-1073)


def ball_bounds(balls: list[arb]) -> tuple[np.ndarray, np.ndarray]:
    """Float64 arrays (lo, hi) with lo <= every real in each ball <= hi (NaN or ±inf where a ball is not finite).

    The midpoint's float is within 2^-52 relative (and 2^-1074 absolute) of it and the radius's float within 2^-52
    relative, so mid ∓ (2^-50·|mid| + 2·rad + 2^-1073), rounded outwards by one ulp, covers the ball.
    """
    mid = np.array([float(b.mid()) for b in balls], dtype=np.float64)
    rad = np.array([float(b.rad()) for b in balls], dtype=np.float64)
    slack = np.abs(mid) * 2.0**-50 + 2.0 * rad + 2.0**-1073
    return _dn(mid - slack), _up(mid + slack)


@lru_cache(maxsize=16)
def _grid(n: int, i_lo: int, i_hi: int) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Bounds of g_i = e^{i/n}, i = i_lo … i_hi, and of e^{1/n} − 1, from Arb (read-only arrays).

    g = T1[a]·T2[r] (i = i_lo + a·b + r) with T1, T2 rounded outwards from balls: the product of the lower (upper)
    ends, rounded down (up), is a lower (upper) bound; every value stays in [e^-700, e^700] (normal).
    """
    count = i_hi - i_lo + 1
    b = max(1, math.isqrt(count))
    a = -(-count // b)
    with workprec(128):
        e = ball(Fraction(1, n))
        t2 = [(e * j).exp() for j in range(b)]
        t1 = [ball(Fraction(i_lo + k * b, n)).exp() for k in range(a)]
        em1 = e.exp() - 1
    t1lo, t1hi = ball_bounds(t1)
    t2lo, t2hi = ball_bounds(t2)
    elo, ehi = ball_bounds([em1])
    glo = _dn(np.outer(t1lo, t2lo).ravel()[:count])
    ghi = _up(np.outer(t1hi, t2hi).ravel()[:count])
    glo.flags.writeable = False
    ghi.flags.writeable = False
    return glo, ghi, float(elo[0]), float(ehi[0])


def _interval(lo: float, hi: float) -> arb:
    """The ball [lo, hi] of two floats (exact: floats are dyadics)."""
    return ball(Fraction(float(lo))).union(ball(Fraction(float(hi))))


def _suffix(x: np.ndarray) -> np.ndarray:
    """Suffix sums S_l = Σ_{j>=l} x_j of non-negative floats, in blocks of b = max(128, ⌊√N⌋): within each block,
    then over the block totals. Each term passes through at most b + N/b + 1 roundings, so each computed S_l is
    within γ_{b+N/b+1} relative of the exact one (:func:`_sum_gamma`)."""
    size = len(x)
    b = _block(size)
    nb = -(-size // b)
    pad = np.zeros(nb * b)
    pad[:size] = x
    within = np.cumsum(pad.reshape(nb, b)[:, ::-1], axis=1)[:, ::-1]
    after = np.zeros(nb)
    after[:-1] = np.cumsum(within[::-1, 0])[::-1][1:]
    return (within + after[:, None]).ravel()[:size]


def _block(size: int) -> int:
    return max(128, math.isqrt(size))


def _sum_gamma(size: int) -> float:
    """A float >= γ_m for m = the roundings one term meets in :func:`_suffix` of ``size`` terms (plus two)."""
    b = _block(size)
    return _gamma(b + -(-size // b) + 3)


def _potential(w: np.ndarray, h: np.ndarray, upper: bool) -> np.ndarray:
    """Bounds of u_Z(g_i) = Σ_{j>i} w_j (g_j − g_i) = Σ_{l>=i} h_l Σ_{j>l} w_j for the float atoms w_j >= 0 (j = 0 …
    top), given h = lower bounds of h_l (``upper`` False: a lower bound) or upper bounds (``upper``: an upper bound).

    Two suffix sums and one product per term: each term of the exact sum Σ_l h_l Σ_{j>l} w_j is met by at most 2m + 1
    roundings (m of :func:`_sum_gamma`), so the computed value is within γ_{2m+1} relative of the exact sum with the
    h given, plus 2^-1075 per product that underflows (N of them); γ_{2m+1}/(1 − γ_{2m+1}) <= 3γ_m (m >= 131), so
    the bounds carry (1 ∓ 3γ_m) and N·2^-1074. Exactly 0 where no atom lies above g_i (a sum of non-negative floats
    is 0 only when every term is).
    """
    size = len(w)
    tail = _suffix(w)  # tail[l] = Σ_{j>=l} w_j
    v = np.zeros(size)
    v[:-1] = _suffix(h * tail[1:])
    gam = 3.0 * _sum_gamma(size)
    if upper:
        out = _up(_up(v * (1.0 + gam)) + size * _TINY)
    else:
        out = np.maximum(_dn(_dn(v * (1.0 - gam)) - size * _TINY), 0.0)
    out[:-1][tail[1:] == 0] = 0.0  # no atom above: the potential is 0 exactly
    out[-1] = 0.0
    return out


def _mass(w: np.ndarray) -> tuple[float, float]:
    """Bounds of Σ w_j (w_j >= 0 floats)."""
    s = float(_suffix(w)[0])
    gam = 2.0 * _sum_gamma(len(w))
    return float(_dn(s * (1.0 - gam))), float(_up(s * (1.0 + gam)))


def discretise_float(loss: PrivacyLoss, n: int, tail: float, groups: bool = False) -> StepMeasures:
    """One step's lower and upper discretisations at resolution n built in float64 arrays (module docstring), or
    by :func:`dpcert.pld.discretise.discretise` on a grid below :data:`FLOAT_CELLS` cells or when a float check is
    not decided.

    The measures carry their atoms as floats (:attr:`~dpcert.pld.discretise.Measure.values`), exactly.

    Args:
        loss: the direction. n: grid cells per unit of loss. tail: the P-mass (float) the grid range may leave out
            on each side (tightness only). groups: also build the equal-mean groups' lower measure (always built
            for a loss with a ``lattice`` of atoms).

    Raises:
        GridTooLarge: if the range needs more than :data:`~dpcert.pld.discretise.MAX_CELLS` cells.
    """
    i_lo, i_hi = loss.grid_range(n, max(tail, 1e-320))
    if i_hi - i_lo > MAX_CELLS:
        raise GridTooLarge(n, i_hi - i_lo)
    if i_hi - i_lo < FLOAT_CELLS:
        STATS["small"] += 1
        return discretise(loss, n, tail, groups)
    built = _build(loss, n, i_lo, i_hi, groups)
    if built is None:
        STATS["arb"] += 1
        return discretise(loss, n, tail, groups)
    STATS["float"] += 1
    return built


def _bounds_ok(sq_lo: np.ndarray, sq_hi: np.ndarray, sp_lo: np.ndarray, sp_hi: np.ndarray, size: int) -> bool:
    """Whether the survival bounds are well formed: finite, in [0, 1], lo <= hi, and room for non-increasing values."""
    for x in (sq_lo, sq_hi, sp_lo, sp_hi):
        if x.shape != (size,) or not np.all(np.isfinite(x)) or np.any(x < 0) or np.any(x > 1):
            return False
    if np.any(sq_lo > sq_hi) or np.any(sp_lo > sp_hi):
        return False
    return not (np.any(sq_lo[1:] > sq_hi[:-1]) or np.any(sp_lo[1:] > sp_hi[:-1]))


def _build(loss: PrivacyLoss, n: int, i_lo: int, i_hi: int, groups: bool) -> StepMeasures | None:
    cells = i_hi - i_lo
    if cells < 1 or max(abs(i_lo), abs(i_hi)) > _MAX_EXP * n or not _ieee_ok():
        return None
    with workprec(working_precision(n)):
        raw = loss.survival_bounds(n, i_lo, i_hi)
    sq_lo, sq_hi, sp_lo, sp_hi = (np.asarray(x, dtype=np.float64) for x in raw)
    if not _bounds_ok(sq_lo, sq_hi, sp_lo, sp_hi, cells + 1):
        return None
    glo, ghi, elo, ehi = _grid(n, i_lo, i_hi)
    hlo = _dn(glo[:-1] * elo)
    hhi = _up(ghi[:-1] * ehi)
    # cell quantities, rigorous (the exact m, μ, c, d are >= 0: bounds clipped there)
    m_lo = np.maximum(_dn(sq_lo[:-1] - sq_hi[1:]), 0.0)
    m_hi = _up(sq_hi[:-1] - sq_lo[1:])
    mu_lo = np.maximum(_dn(sp_lo[:-1] - sp_hi[1:]), 0.0)
    mu_hi = _up(sp_hi[:-1] - sp_lo[1:])
    hm_hi = _up(hhi * m_hi)
    c_hi = np.minimum(_up(mu_hi - _dn(glo[:-1] * m_lo)), hm_hi)
    d_hi = np.minimum(_up(_up(ghi[1:] * m_hi) - mu_lo), hm_hi)
    c_lo = np.maximum(_dn(mu_lo - _up(ghi[:-1] * m_hi)), 0.0)
    u_lo = np.maximum(_dn(sp_lo - _up(ghi * sq_hi)), 0.0)
    u_hi = _up(sp_hi - _dn(glo * sq_lo))
    if np.any(c_hi < 0) or np.any(d_hi < 0) or np.any(u_hi < 0):
        return None  # no exact survivals fit these bounds
    upper = _upper(sq_lo, sq_hi, sp_lo, sp_hi, glo, ghi, hlo, elo, ehi)
    if upper is None:
        return None
    d_lo = np.maximum(_dn(_dn(glo[1:] * m_lo) - mu_hi), 0.0)
    lower = _lower(sq_lo, sq_hi, glo, ghi, hlo, hhi, elo, ehi, m_lo, m_hi, (c_lo, c_hi), (d_lo, d_hi), u_lo)
    # a loss with atoms on a lattice (Laplace's two, a discrete mechanism's): the groups' lower measure too, which
    # the accountant composes beside the minorant, keeping the larger lower end. Next to atoms the groups' is the
    # tighter one at up to a few dozen steps (measured, Laplace r = 1 at n = 256, 10 steps: the minorant's δ bracket
    # alone 11 times wider), and the arb path, whose balls cannot decide the empty cells beside an atom, used it
    groups = groups or loss.lattice is not None
    grouped = _groups(m_lo, c_lo, d_hi, sq_lo[-1], u_lo[-1]) if lower is None or groups else None
    if lower is None:
        lower = grouped
    assert lower is not None
    gam = 2.0 * _sum_gamma(cells + 1)  # one product, then the sum
    mean_lo = float(_dn(_dn(float(_suffix(upper * glo)[0]) * (1.0 - gam)) - (cells + 1) * _TINY))
    mean_hi = float(_up(_up(float(_suffix(upper * ghi)[0]) * (1.0 + gam)) + (cells + 1) * _TINY))

    def measure(w: np.ndarray) -> Measure:
        poly = arb_poly(w.tolist())
        w = w[: poly.length()]  # as the polynomial, without trailing zero atoms
        w.flags.writeable = False
        return Measure(i_lo, poly, w)

    second = measure(grouped) if groups and grouped is not None else None
    return StepMeasures(
        n,
        measure(lower),
        measure(upper),
        _interval(sp_lo[-1], sp_hi[-1]),
        _interval(max(mean_lo, 0.0), mean_hi),
        loss.infinite_mass(),
        second,
    )


def _chord_split(sq: np.ndarray, sp: np.ndarray, g: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The upper construction's atoms from (float) survival values: each cell's mass split between its ends so as
    to keep its mean, the mass below the grid at the bottom point (floats, not rounded in any direction)."""
    cells = len(h)
    m = np.maximum(sq[:-1] - sq[1:], 0.0)
    mu = np.maximum(sp[:-1] - sp[1:], 0.0)
    c = np.clip(mu - g[:-1] * m, 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        up_part = np.where(h > 0, c / h, 0.0)
    up_part = np.clip(up_part, 0.0, m)
    w = np.zeros(cells + 1)
    w[:-1] += m - up_part
    w[1:] += up_part
    w[0] += max(1.0 - sq[0], 0.0)
    return np.maximum(w, 0.0)


def _upper(
    sq_lo: np.ndarray,
    sq_hi: np.ndarray,
    sp_lo: np.ndarray,
    sp_hi: np.ndarray,
    glo: np.ndarray,
    ghi: np.ndarray,
    hlo: np.ndarray,
    elo: float,
    ehi: float,
) -> np.ndarray | None:
    """The upper measure's float atoms, proved (module docstring), or None."""
    sq = (sq_lo + sq_hi) / 2
    sp = (sp_lo + sp_hi) / 2
    g = (glo + ghi) / 2
    w = _chord_split(sq, sp, g, g[:-1] * ((elo + ehi) / 2))
    # U''_i, upper bounds, i < top
    sqd_lo = np.maximum(_dn(sq_lo[:-1] - sq_hi[-1]), 0.0)
    need = _up(_up(sp_hi[:-1] - sp_lo[-1]) - _dn(glo[:-1] * sqd_lo))
    mass_need = float(_up(1.0 - sq_lo[-1]))
    v = _potential(w, hlo, upper=False)[:-1]
    mass = _mass(w)[0]
    if np.all(need <= v) and mass >= mass_need:
        return w
    # graded raise: atom j times f_j >= 1 + ρ_j with ρ non-decreasing in j, so that every atom above g_i is raised
    # by at least f_{i+1} and V_i by at least that factor; ρ_j covers the largest shortfall need_i/v_i − 1 of the
    # points below j (and the mass's). What a factor cannot reach (v_i = 0: no atom above) is added at the top, α.
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where((need > v) & (v > 0), need / v - 1.0, 0.0)
    r_mass = mass_need / mass - 1.0 if mass > 0 else 0.0
    rho = np.empty(len(w))
    rho[0] = max(r_mass, 0.0)
    rho[1:] = np.maximum(np.maximum.accumulate(r), rho[0])
    f = _up(1.0 + (rho * (1.0 + 2.0**-10) + 2.0**-48))
    w = np.where(w > 0, _up(w * f), 0.0)
    # the proof: the exact V_i of the raised atoms is >= f_{i+1}·(exact V_i before) >= f_{i+1}·v_i, and the mass
    # >= f_0·mass (f is non-decreasing)
    reached = _dn(f[1:] * v)
    short = need > reached
    if np.any(short):
        dist = _dn(glo[-1] - ghi[:-1])  # g_top − g_i, lower bounds
        if np.any(dist[short] <= 0):
            return None
        alpha = float(np.max(_up(_up(need[short] - reached[short]) / dist[short])))
        w[-1] = float(_up(w[-1] + alpha))  # V_i rises by α(g_top − g_i) >= α·dist_i more
    if not float(_dn(f[0] * mass)) >= mass_need or not np.all(np.diff(f) >= 0):
        return None
    return w


def _lower(
    sq_lo: np.ndarray,
    sq_hi: np.ndarray,
    glo: np.ndarray,
    ghi: np.ndarray,
    hlo: np.ndarray,
    hhi: np.ndarray,
    elo: float,
    ehi: float,
    m_lo: np.ndarray,
    m_hi: np.ndarray,
    c_b: tuple[np.ndarray, np.ndarray],
    d_b: tuple[np.ndarray, np.ndarray],
    u_lo: np.ndarray,
) -> np.ndarray | None:
    """The lower measure's float atoms (the convex minorant, module docstring), proved, or None."""
    (c_lo, c_hi), (d_lo, d_hi) = c_b, d_b
    g = (glo + ghi) / 2
    h = g[:-1] * ((elo + ehi) / 2)
    m = (m_lo + m_hi) / 2
    # the choice sees a cell quantity not proved positive as 0 (an empty cell: its float noise must not steer the
    # recursions); the cover of (c̄, d̄) is then restored from the left end, which lowers a point by at most c̄
    c_mid = np.where(c_lo > 0, (c_lo + c_hi) / 2, 0.0)
    d_mid = np.where(d_lo > 0, (d_lo + d_hi) / 2, 0.0)
    eta = _lowerings_np(m, c_mid, d_mid, h, u_lo)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a subnormal d̄: no fill (a choice only)
        right = np.append(eta[1:], u_lo[-1])  # η_top: the top point is put at 0
        fill = np.where(d_hi > 0, c_hi * np.maximum(0.0, 1.0 - right / d_hi), 0.0)
    eta = np.maximum(eta, fill * (1.0 + 2.0**-30))
    # room for the potential's bound (3γ relative, :func:`_potential`) and the minorant's float noise
    room = 8.0 * _sum_gamma(len(u_lo)) + 2.0**-46
    eta = eta * (1.0 + 2.0**-30) + room * u_lo[:-1]
    left_slope = float(_dn(sq_lo[0] * (1.0 - room)))
    # the tangents' conditions (B) and (C), bounds of their right-hand sides
    below_a = _dn(u_lo[:-1] - _up(sq_hi[:-1] * hhi))
    below_b = _dn(u_lo[1:] + _dn(sq_lo[1:] * hlo))
    for _ in range(_REPAIRS + 1):
        v = np.where(eta >= u_lo[:-1], 0.0, u_lo[:-1] - eta)
        v = np.append(v, 0.0)
        w = _minorant_atoms(g, v, left_slope)
        if w is None:
            return None
        phi = _potential(w, hhi, upper=True)
        if not (phi[0] <= u_lo[0] and _mass(w)[1] <= sq_lo[0]):
            return None
        la = _dn(u_lo[:-1] - phi[:-1])
        lb = _dn(u_lo[1:] - phi[1:])
        lemma = (la >= 0) & (lb >= 0)
        lemma &= _dn(_dn(np.maximum(la, 0) * d_hi) + _dn(np.maximum(lb, 0) * c_hi)) >= _up(c_hi * d_hi)
        tan_a = (phi[:-1] <= u_lo[:-1]) & (phi[1:] <= below_a)
        tan_b = (phi[:-1] <= below_b) & (phi[1:] <= u_lo[1:])
        zero = (phi[:-1] == 0) & (phi[1:] == 0)
        bad = ~(lemma | tan_a | tan_b | zero)
        if not np.any(bad):
            return w
        # lower the left point of a failing cell by its whole c (then ℓ_a >= c: the lemma holds)
        eta[bad] = (c_hi[bad] + eta[bad]) * (1.0 + 2.0**-30) + room * u_lo[:-1][bad]
    return None


def _minorant_atoms(g: np.ndarray, v: np.ndarray, left_slope: float) -> np.ndarray | None:
    """The slope jumps (floats, negative noise set to 0) of the greatest convex minorant of the points (g_i, v_i)
    whose left ray has slope −``left_slope``; None if no hull edge is that flat."""
    hull = _hull(g, v)
    slopes = np.diff(v[hull]) / np.diff(g[hull])
    flat = np.nonzero(slopes + left_slope >= 0)[0]
    if len(flat) == 0 or slopes[-1] > 0:
        return None
    first = int(flat[0])
    w = np.zeros(len(g))
    w[hull[first]] = slopes[first] + left_slope
    w[hull[first + 1 : -1]] = np.diff(slopes[first:])
    w[-1] = -slopes[-1]
    return np.maximum(w, 0.0)


def _hull(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the lower convex hull of points with increasing x (floats; tightness only), strict vertices only.

    Each pass drops, all at once, the vertices that are not strictly convex (a run of them is a concave stretch, so
    the chord replacing it passes below every one of them: the polyline only moves down and keeps every point above
    it) and jumps over the points between each end and its hull neighbour (the point of largest slope to the last
    point, of least slope from the first: every point in between lies on or above that edge), which a tail peeled
    one point per pass would otherwise cost. A convex polyline through points with every point on or above it is the
    hull. After :data:`_HULL_PASSES` passes the monotone chain finishes what is left.
    """
    idx = np.arange(len(x))
    for _ in range(_HULL_PASSES):
        xs, ys = x[idx], y[idx]
        if len(idx) > 2:
            last = int(np.argmax((ys[-1] - ys[:-1]) / (xs[-1] - xs[:-1])))
            first = len(idx) - 1 - int(np.argmin(((ys[1:] - ys[0]) / (xs[1:] - xs[0]))[::-1]))
            if last < len(idx) - 2 or first > 1:
                keep = np.zeros(len(idx), dtype=bool)
                keep[0] = keep[-1] = True
                keep[first : last + 1] = True
                idx, xs, ys = idx[keep], xs[keep], ys[keep]
        s = np.diff(ys) / np.diff(xs)
        keep = np.ones(len(idx), dtype=bool)
        keep[1:-1] = s[:-1] < s[1:]
        if keep.all():
            return idx
        idx = idx[keep]
    hull: list[int] = []
    for i in idx.tolist():  # a long chain of removals: the monotone chain on what is left
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (y[b] - y[a]) * (x[i] - x[b]) < (y[i] - y[b]) * (x[b] - x[a]):
                break
            hull.pop()
        hull.append(i)
    return np.array(hull)


def _groups(m_lo: np.ndarray, c_lo: np.ndarray, d_hi: np.ndarray, tail_q_lo: float, tail_c_lo: float) -> np.ndarray:
    """The equal-mean groups' lower measure (:mod:`dpcert.pld.discretise`) in floats: β chosen from c̲, d̄, each
    group's (1 − β_j) c_j >= β_{j−1} d_{j−1} checked with c̲_j and d̄_{j−1} (rounded outwards; a group not proved
    gets β_{j−1} = 0), the atoms lower bounds of (1 − β_j) m_j + β_{j−1} m_{j−1}."""
    cells = len(m_lo)
    cc = np.append(c_lo, tail_c_lo)
    mm = np.append(m_lo, tail_q_lo)
    beta = np.array(_betas(cc.tolist(), d_hi.tolist(), mm.tolist()))
    beta[cells] = 0.0
    keep = _dn(_dn(1.0 - beta[1:]) * cc[1:]) >= _up(beta[:-1] * d_hi)
    beta[:-1] = np.where(keep, beta[:-1], 0.0)
    w = _dn(_dn(1.0 - beta) * mm)
    w[1:] = _dn(w[1:] + _dn(beta[:-1] * mm[:-1]))
    return np.maximum(w, 0.0)


def _lowerings_np(m: np.ndarray, c: np.ndarray, d: np.ndarray, h: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`dpcert.pld.discretise._lowerings` in arrays (the same choice, up to the order of float sums): the
    sequential recursions run only as far as their results are read."""
    cells = len(m)
    uc, ud = u[:-1], u[1:]
    pos = (c > 0) & (d > 0)
    both = pos & (uc > 0) & (ud > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = np.where(both, uc / np.where(both, c, 1.0), 0.0)
        b = np.where(both, ud / np.where(both, d, 1.0), 0.0)
        den = a * a + b * b
        left = np.where(both, uc * a / den, 0.0)
        right = np.where(both, ud * b / den, 0.0)
    left = np.where(pos & ~both, c, np.nan_to_num(left, nan=0.0, posinf=0.0))
    right = np.nan_to_num(right, nan=0.0, posinf=0.0)
    uni = np.empty(cells + 1)
    uni[0] = left[0] / 2
    uni[1:cells] = (right[:-1] + left[1:]) / 2
    uni[cells] = u[cells]
    with np.errstate(divide="ignore", invalid="ignore"):
        cover = np.where(pos, uni[:-1] / np.where(pos, c, 1.0) + uni[1:] / np.where(pos, d, 1.0), np.inf)
    cl, dl = c.tolist(), d.tolist()
    un = uni.tolist()  # the fixes run in order (each may scale the next cell's left end): Python floats
    for i in np.nonzero(cover < 1)[0].tolist():
        cv = un[i] / cl[i] + un[i + 1] / dl[i]
        if cv < 1:
            if cv <= 0:
                un[i] = cl[i]
            elif i + 1 < cells:
                un[i] /= cv
                un[i + 1] /= cv
            else:
                un[i] = cl[i] * (1 - un[i + 1] / dl[i])
    unl = un[:cells]
    uni = np.array(unl)
    ul = u.tolist()
    # backward recursion from the top, as far as the point where it ends (j2)
    bwd = [0.0] * (cells + 1)
    bwd[cells] = ul[cells]
    j2 = 0
    for i in range(cells - 1, -1, -1):
        bwd[i] = cl[i] * max(0.0, 1.0 - bwd[i + 1] / dl[i]) if dl[i] > 0 else 0.0
        if i >= 1 and bwd[i] <= unl[i] and bwd[i + 1] > 0:
            j2 = i
            break
    below = np.concatenate(([0.0], np.cumsum(m)))
    room = np.zeros(cells)
    room[1:] = np.cumsum(h[: cells - 1] * below[: cells - 1] + d[: cells - 1])
    tight = 1 - 2.0**-30
    top = min(cells, j2 + 1)
    fits = np.ones(cells + 1, dtype=bool)
    fits[:top] = np.logical_and.accumulate((uni[:top] * _ETA_MARGIN <= room[:top] * tight)[::-1])[::-1]
    fwd = [0.0] * (cells + 1)
    if np.all(uni[:top] - uni[0] <= room[:top] * tight):
        j1 = 0
    else:
        j1 = cells
        for i in range(1, cells):
            fwd[i] = dl[i - 1] * max(0.0, 1.0 - fwd[i - 1] / cl[i - 1]) if cl[i - 1] > 0 else 0.0
            if fwd[i] <= unl[i] and fits[i]:
                j1 = i
                break
        if any(fwd[i] > ul[i] / 2 for i in range(j1)):
            j1 = 0
    eta = uni.copy()
    if j2 >= j1:
        eta[:j1] = fwd[:j1]
        eta[j2 + 1 :] = bwd[j2 + 1 : cells]
    else:
        eta[:j1] = fwd[:j1]
        eta[j1 + 1 :] = bwd[j1 + 1 : cells]
        if j1 < cells:
            eta[j1] = max(fwd[j1], bwd[j1])
    return np.maximum(eta * _ETA_MARGIN, _ETA_FLOOR)
