"""Certified float64 bounds of analytic functions at the points of a uniform grid, by Taylor models in blocks.

The problem. Functions f_1 … f_F of one real variable l are given, with three ways of evaluating them in ball
arithmetic: their Taylor series at a point, an enclosure on a complex box, and balls at single points. Wanted:
float64 arrays lo, hi with lo_i <= f(i/n) <= hi_i *exactly* for every grid index i in [i_lo, i_hi], each within a
relative ~1e-13 of the value, at a few float operations per point instead of one ball evaluation per point. Only
IEEE-754 products and sums (correctly rounded, round to nearest) enter the float part; no libm function does.

**One block.** Let m >= 1 be a power of two, j_c an integer, c = j_c/n, h = m/n; the block is the indices
i = j_c − m … j_c + m − 1, so l = c + hτ with τ = (i − j_c)/m in [−1, 1), an exact double. Let R > h be a double
(the disk's radius) and ρ = R/h.

1. *Analyticity and a bound on a disk.* The mechanism encloses each f on the complex box
   B = [c − R, c + R] + i[−R, R] ⊇ D = {|z − c| <= R}, and by answering at all certifies (its own proof) that f is
   analytic on a neighbourhood of B and real on the real axis. The enclosure gives M >= |f| on B, hence on D. The
   function g(τ) = f(c + hτ) = Σ_k a_k τ^k is then analytic on |τ| <= ρ, and Cauchy's estimate gives
   |a_k| <= M ρ^{−k}; for real |τ| <= 1 the tail after degree N is at most r_N = M ρ^{−(N+1)}/(1 − 1/ρ).
2. *The Taylor polynomial.* Arb's power-series arithmetic encloses a_0 … a_N (balls A_k; the input point is a ball,
   every coefficient of the composition is enclosed). g, the A_k and M are multiplied by one power of two 2^{−e}
   (exact) with |a_0| 2^{−e} near 1: the float part works on normalised values and neither underflows nor
   overflows in any term that matters. Let ã_k be doubles near the A_k and p̃(τ) = Σ ã_k τ^k. Arb encloses the
   difference polynomial Σ (A_k − ã_k) τ^k on the ball τ ∈ [−1, 1]; its magnitude κ bounds |Σ a_k τ^k − p̃(τ)|
   for |τ| <= 1. Hence |g(τ) − p̃(τ)| <= κ + r_N on the block.
3. *Horner in doubles.* v = fl(p̃(τ)) by q̂_N = ã_N, w_i = fl(τ q̂_{i+1}), q̂_i = fl(w_i + ã_i). The IEEE model:
   fl(x + y) = (x + y)/(1 + δ) (a sum in the subnormal range is exact) and fl(xy) = xy(1 + ε) + η with |δ|, |ε| <= u
   = 2^−53 and |η| <= 2^−1075 (only on underflow). Writing q_i for the exact recurrence on the same ã and τ and
   f_i = q̂_i − q_i, the model gives exactly q̂_i (1 + δ_i) = τ q̂_{i+1}(1 + ε_i) + η_i + ã_i, so
   f_i = τ f_{i+1} + ε_i τ q̂_{i+1} + η_i − δ_i q̂_i and, with f_N = 0 and |τ| <= 1,
   |v − p̃(τ)| = |f_0| <= u Σ_{i<N} |τ|^i (|τ||q̂_{i+1}| + |q̂_i|) + N 2^−1075 <= 2u Σ_{i<=N} |τ|^i |q̂_i| + N 2^−1075.
   Unrolling the recurrence for q̂_i itself ([Hig02] §3.1 and §5.1: a product of at most 2N factors (1 + ε)^{±1}
   differs from 1 by at most γ_{2N} = 2Nu/(1 − 2Nu)) gives
   |τ|^i |q̂_i| <= (1 + γ_{2N}) Σ_{k>=i} |ã_k||τ|^k + N 2^−1074. Summing over i, with |τ| <= 1:
   |v − p̃(τ)| <= 2u (1 + γ_{2N}) W + 2^−1000, W = Σ_k (k + 1)|ã_k| (N <= 1024, so the underflow terms, at most
   (N + 1)² 2^−1070, are below 2^−1000). Leading zero coefficients (blocks of lower degree share one table) change
   nothing: 0·τ + 0 = 0 and 0·τ + ã = ã are exact.
4. *One double per block.* k >= (κ + r_N + 2u(1 + γ_{2N})W + 2^−1000)(1 + 2^−50), computed in balls and rounded up
   with integer arithmetic, bounds |g(τ) − v| at every point of the block. Then lo = pred(fl(v − k)) and
   hi = succ(fl(v + k)) (pred, succ: the neighbouring doubles): a correctly rounded x̂ of an exact x satisfies
   pred(x̂) <= x <= succ(x̂), so lo <= v − k <= g(τ) <= v + k <= hi.
5. *Undoing the normalisation.* f = g·2^e: the bounds are multiplied by 2^e in at most two IEEE products by powers of
   two that are normal doubles (built from their bit patterns), each followed by the same outward step; below
   2^−2044 the value is under the least subnormal in magnitude (the normalised |lo|, |hi| <= 2^64 are checked), so
   lo = 0 or −2^−1074 and hi = 0 or 2^−1074 by the signs of the normalised bounds.

A block is *accepted* only when k <= rel_tol·(|v| − k) at every point and for every function (relative accuracy; a
function that vanishes at a point is never accepted there). Otherwise it is split into halves, down to
``min_half`` (down to 8 when the model was built but not accurate enough: the values vary too fast there for a
small block to pay); the points of a block that still fails get the per-point balls, rounded outwards. A half of a
failed block first checks, from one point evaluation, that its degree is within reach, so that a hopeless block
costs no series. Which blocks are tried, with which degree, radius and starting size, is a choice of speed only:
every bound returned is proved by steps 1–5 or is a ball's own.

References:
    Horner's rule and its rounding errors: [Hig02] §3.1 and §5.1; Cauchy's estimate for Taylor coefficients:
    [Ahl79] ch. 4; Taylor models (a polynomial with a proved remainder): [MB03].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np
from flint import acb, arb, arb_poly, arb_series, ctx

from dpcert.arith.ball import ball, ball_to_float, workprec

__all__ = ["AnalyticFamily", "GridBoundsStats", "grid_bounds"]

_INF = np.inf


class AnalyticFamily(Protocol):
    """What :func:`grid_bounds` needs of F functions f_1 … f_F of one real variable (each real-analytic where used).

    ``count`` is F. Every method works at the current working precision and must return enclosures (balls that
    contain the exact values), in the order f_1 … f_F.
    """

    count: int

    def series(self, c: arb, h: arb, length: int) -> Sequence[arb_series] | None:
        """For every function, the power series of τ ↦ f(c + hτ) at τ = 0 to ``length`` terms (flint's series
        length is set to ``length``; c and h are balls: the coefficients must hold for every point of them), or
        ``None`` where they cannot be computed (no analyticity there)."""
        ...

    def disk(self, z: acb) -> list[acb] | None:
        """Enclosures of every function on the complex box ``z``, or ``None``. A non-``None`` answer is also the
        claim that every function is analytic on a neighbourhood of the box and real on the real axis."""
        ...

    def points(self, n: int, indices: Sequence[int]) -> list[list[arb]]:
        """For every function, balls of f(i/n) at each index i (the fallback, and the reference)."""
        ...


@dataclass
class GridBoundsStats:
    """How the points were decided: by accepted Taylor blocks, or by per-point balls (and how many blocks)."""

    blocks: int = 0
    block_points: int = 0
    point_evaluations: int = 0
    rejected_blocks: int = 0


@dataclass
class _Block:
    jc: int
    m: int
    degree: int = 0
    exps: tuple[int, ...] = ()
    coef: np.ndarray | None = None  # (F, degree + 1) doubles ã_k, normalised
    k: np.ndarray | None = None  # (F,) doubles, the constant error part k
    probe: bool = False  # a half of a block that failed: check the degree at the centre before the series


#: the largest Taylor degree (Horner steps) the absolute allowance 2^−1000 of the proof covers
_MAX_STEPS = 1024
# exact balls (powers of two and 1 + 2^−50 are exact at any precision >= 51 bits)
_U = arb(2) ** -53  # the unit round-off of doubles
_PAD = arb(2) ** -1000  # the absolute allowance for underflow (step 3)
_SLACK = 1 + arb(2) ** -50
_UNIT = arb(0, 1)  # the ball [−1, 1] of τ
_ONE = arb(1)


def _exponent(x: arb) -> int | None:
    """An integer e with 2^e near |mid(x)| (the normalisation), or None when x may be zero or is not finite."""
    if not x.is_finite() or x.contains(0):
        return None
    man, exp = x.mid().man_exp()
    return int(exp) + int(abs(int(man))).bit_length()


def _pow2(e: np.ndarray) -> np.ndarray:
    """2^e as doubles for integer e in [−1022, 1023], built from the IEEE bit pattern (exact)."""
    return ((e.astype(np.int64) + 1023) << 52).view(np.float64)


def _scale_out(lo: np.ndarray, hi: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of x·2^e from bounds lo <= x <= hi with hi <= 2^64 (step 5 of the module's proof)."""
    e = e.astype(np.int64)
    e1 = np.clip(e, -1022, 1023)
    p1 = _pow2(e1)
    lo = np.nextafter(lo * p1, -_INF)
    hi = np.nextafter(hi * p1, _INF)
    far = e < -1022
    if far.any():  # the rest of the power of two, itself a normal double; below 2^−2044: [0, 2^−1074]
        e2 = np.clip(e[far] - e1[far], -1022, 1023)
        p2 = _pow2(e2)
        deep = e[far] < -2044
        lf, hf = lo[far], hi[far]  # below 2^−2044 (|x| <= 2^64): within one subnormal of 0, on each side of it
        lo[far] = np.where(deep, np.where(lf < 0, -5e-324, 0.0), np.nextafter(lf * p2, -_INF))
        hi[far] = np.where(deep, np.where(hf > 0, 5e-324, 0.0), np.nextafter(hf * p2, _INF))
    return lo, hi


def _float_down(x: arb) -> float:
    """A double <= every point of the ball x."""
    return -_float_up(-x)


def _float_up(x: arb) -> float:
    """A double >= every point of the ball x (exact integer rounding; Fractions only outside the normal range)."""
    top = x.upper()
    if not top.is_finite():
        return math.inf
    man, exp = top.mid().man_exp()
    man, exp = int(man), int(exp)
    if man == 0:
        return 0.0
    sign = -1 if man < 0 else 1
    mag = abs(man)
    shift = mag.bit_length() - 53
    if shift > 0:  # round the magnitude away from zero (man > 0) or toward zero (man < 0) to 53 bits
        mag, exp = (mag >> shift) + (1 if sign > 0 else 0), exp + shift
    if mag and -1022 <= exp + mag.bit_length() - 1 <= 1023:
        return sign * math.ldexp(float(mag), exp)  # mag <= 2^53 exact in a double, the power of two in range
    return ball_to_float(top, "up")


@dataclass
class _Guess:
    """The series length tried first (the previous block's degree + 3): a speed choice only."""

    length: int = 36


def _build(
    family: AnalyticFamily, n: int, blk: _Block, rho: float, max_degree: int, rem_target: float, guess: _Guess
) -> bool:
    """Steps 1 and 2 for one block, in balls; False when the block cannot be modelled (then it is split)."""
    c = ball(Fraction(blk.jc, n))
    h = ball(Fraction(blk.m, n))
    radius = rho * blk.m / n  # a double: the disk radius R of the proof is exactly this value
    rr = arb(0, radius)
    vals = family.disk(acb(c + rr, rr))
    if vals is None:
        return False
    big = [abs(v).upper() for v in vals]
    if not all(b.is_finite() for b in big):
        return False
    max_degree = min(max_degree, _MAX_STEPS - 1)
    if blk.probe:  # |f(c)| from one point evaluation: a block whose degree is out of reach costs no series
        at_c = family.disk(acb(c))
        if at_c is None:
            return False
        for v, mj in zip(at_c, big, strict=True):
            lo_c = abs(v).lower()
            if not lo_c > 0 or _degree_for(float((mj / lo_c).upper()), rho, rem_target) > max_degree:
                return False
    length = min(guess.length, max_degree + 1)
    while True:
        coefs = _series(family, c, h, length)
        if coefs is None:
            return False
        exps, scales, mms, degree = [], [], [], 0
        for cf, mj in zip(coefs, big, strict=True):
            e = _exponent(cf[0])
            if e is None or e > 1000:
                return False
            scale = arb(2) ** (-e)
            mm = mj * scale
            mf = float(mm.upper())
            if not math.isfinite(mf) or mf > 2.0**60:
                return False
            degree = max(degree, _degree_for(mf, rho, rem_target))
            exps.append(e)
            scales.append(scale)
            mms.append(mm)
        if degree > max_degree:
            return False
        if degree < length:
            break
        length = degree + 1
    guess.length = degree + 3
    rows, ks = [], []
    rho_b = arb(radius) / h  # ρ = R/h, as a ball
    tail = _cauchy_tail(rho_b, degree)
    gam = 2 * degree * _U / (1 - 2 * degree * _U)  # γ_{2N}
    horner = 2 * _U * (1 + gam)
    for cf, scale, mm in zip(coefs, scales, mms, strict=True):
        a = arb_poly(cf[: degree + 1]) * scale
        row = [float(x) for x in a.coeffs()]
        row += [0.0] * (degree + 1 - len(row))
        if not math.isfinite(sum(map(abs, row))) or abs(row[0]) > 2.0**60:
            return False
        kappa = abs((a - arb_poly(row))(_UNIT))
        # w = Σ (k + 1)|ã_k| = P'(1) for P(x) = Σ |ã_k| x^{k+1} (doubles are exact balls; the sum is enclosed)
        w = arb_poly([0.0, *map(abs, row)]).derivative()(_ONE)
        kf = _float_up((kappa + mm * tail + _PAD + horner * w) * _SLACK)
        if not math.isfinite(kf):
            return False
        rows.append(row)
        ks.append(kf)
    blk.degree, blk.exps = degree, tuple(exps)
    blk.coef = np.array(rows, dtype=np.float64)
    blk.k = np.array(ks, dtype=np.float64)
    return True


def _degree_for(ratio: float, rho: float, rem_target: float) -> int:
    """The least N >= 1 whose normalised tail bound ratio·ρ^{−(N+1)}/(1 − 1/ρ) is below the target (a float
    choice of speed; ratio = M/|f(c)|)."""
    if not math.isfinite(ratio):
        return 1 << 30
    need = math.log(max(ratio, 1e-300) / (rem_target * (1 - 1 / rho))) / math.log(rho) - 1
    return max(1, math.ceil(need))


def _cauchy_tail(rho: arb, degree: int) -> arb:
    """Σ_{k>N} ρ^{−k} = ρ^{−(N+1)}/(1 − 1/ρ): the tail after degree N per unit of M (step 1)."""
    return rho ** (-(degree + 1)) / (1 - 1 / rho)


def _series(family: AnalyticFamily, c: arb, h: arb, length: int) -> list[list[arb]] | None:
    """``family.series`` with flint's power-series length set to ``length`` (restored afterwards)."""
    old = ctx.cap
    try:
        ctx.cap = length
        out = family.series(c, h, length)
    finally:
        ctx.cap = old
    if out is None or any(f.prec < length for f in out):  # prec: how many coefficients the series knows
        return None
    coefs = []
    for f in out:
        cf = list(f.coeffs())  # trailing coefficients that are exactly 0 are left out: put them back
        coefs.append(cf + [arb(0)] * (length - len(cf)))
    return coefs


def _evaluate(
    blocks: list[_Block],
    i_lo: int,
    i_hi: int,
    nf: int,
    rel_tol: float,
    los: np.ndarray,
    his: np.ndarray,
    scale: np.ndarray,
) -> np.ndarray:
    """Steps 3 and 4 for every point of the blocks, vectorised over the blocks of one half-width at a time;
    writes the normalised bounds of the accepted blocks and their exponents e into ``los``/``his``/``scale``
    (rows: functions, columns: i − i_lo) and returns the accepted flags."""
    accepted = np.zeros(len(blocks), dtype=bool)
    by_m: dict[int, list[int]] = {}
    for bi, b in enumerate(blocks):
        # blocks of one half-width share their τ grid (broadcast); the small ones are few points: one flat pass
        by_m.setdefault(b.m if b.m >= _SHARED else 0, []).append(bi)
    for m, members in by_m.items():
        group = [blocks[bi] for bi in members]
        top = max(b.degree for b in group)
        table = np.zeros((top + 1, nf, len(group)))
        for gi, b in enumerate(group):
            table[: b.degree + 1, :, gi] = b.coef.T
        if m:
            tau = (np.arange(2 * m, dtype=np.float64) - m) / m  # exact: integers over a power of two
            idx = np.array([b.jc - m for b in group], dtype=np.int64)[:, None] + np.arange(2 * m, dtype=np.int64)
            owner = np.broadcast_to(np.arange(len(group))[:, None], idx.shape)
            coef_at = table[..., None]  # (degree, function, block, 1): broadcast along the block's points
        else:
            sizes = np.array([2 * b.m for b in group], dtype=np.int64)
            owner = np.repeat(np.arange(len(group)), sizes)
            starts = np.repeat(np.array([b.jc - b.m for b in group], dtype=np.int64), sizes)
            offset = np.arange(owner.size, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            idx = starts + offset
            half = np.repeat(np.array([b.m for b in group], dtype=np.float64), sizes)
            tau = (offset - half) / half  # exact, as above
            coef_at = table[:, :, owner]  # (degree, function, point)
        v = np.zeros((nf, *idx.shape))
        for kk in range(top, -1, -1):  # in place: one IEEE product and one IEEE sum per step, as in step 3
            v *= tau
            v += coef_at[kk]
        err = np.array([b.k for b in group]).T[:, owner]
        lo = np.nextafter(v - err, -_INF)
        hi = np.nextafter(v + err, _INF)
        inside = (idx >= i_lo) & (idx <= i_hi)
        good = ((err <= rel_tol * (np.abs(v) - err)) & (hi <= 2.0**64) & (lo >= -(2.0**64))).all(axis=0) | ~inside
        bad = np.bincount(owner.ravel(), weights=(~good).ravel(), minlength=len(group))
        ok = bad == 0
        accepted[members] = ok
        if not ok.any():
            continue
        exps = np.array([b.exps for b in group], dtype=np.int64).T[:, owner]
        sel = inside & ok[owner]
        cols = idx[sel] - i_lo
        los[:, cols] = lo[:, sel]
        his[:, cols] = hi[:, sel]
        scale[:, cols] = exps[:, sel]
    return accepted


#: blocks at least this half-width are evaluated per half-width, by broadcasting; smaller ones in one flat pass
_SHARED = 64


def _split(b: _Block, i_lo: int, i_hi: int, min_half: int, out: list[_Block], singles: list[int]) -> None:
    """The two halves of a block that failed (those meeting [i_lo, i_hi]), or its points for per-point balls."""
    half = b.m // 2
    if half < min_half:
        singles.extend(range(max(b.jc - b.m, i_lo), min(b.jc + b.m - 1, i_hi) + 1))
        return
    for jc in (b.jc - half, b.jc + half):
        if jc + half - 1 >= i_lo and jc - half <= i_hi:
            out.append(_Block(jc, half, probe=True))


def grid_bounds(
    family: AnalyticFamily,
    n: int,
    i_lo: int,
    i_hi: int,
    *,
    prec: int = 96,
    rel_tol: float = 2.0**-45,
    rho: float = 4.0,
    max_degree: int = 48,
    half_width: int | None = None,
    min_half: int = 4,
    rem_target: float = 2.0**-52,
    point_prec: int = 128,
    stats: GridBoundsStats | None = None,
    on_block: Callable[[int, int], None] | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Float64 bounds (lo, hi) of every function of ``family`` at l = i/n, i = i_lo … i_hi (proof: the module's
    docstring). ``lo <= f(i/n) <= hi`` holds exactly; where a Taylor block was accepted,
    (hi − lo) <= ~2·rel_tol·|f| + 4 ulps.

    Args:
        family: the functions (:class:`AnalyticFamily`).
        n: the grid's resolution (points i/n).
        i_lo, i_hi: the index range (inclusive).
        prec: ball precision (bits) of the Taylor coefficients and disk bounds.
        rel_tol: the relative accuracy a block must prove to be accepted.
        rho: the ratio R/h of the Cauchy disk's radius to the block's half-width.
        max_degree: the largest Taylor degree tried before a block is split.
        half_width: the starting half-width m (a power of two; default about n/8, at most a quarter of the range).
        min_half: blocks are not split below this half-width; their points get per-point balls.
        rem_target: the normalised Cauchy tail the degree is chosen for (a choice of speed and tightness).
        point_prec: the precision of the per-point balls.
        stats: filled with how many points each path decided, when given.
        on_block: called with (j_c, m) of every accepted block (tests and diagnostics).

    Returns:
        One pair of float64 arrays (lo, hi) per function, of length i_hi − i_lo + 1.
    """
    if i_hi < i_lo:
        return [(np.zeros(0), np.zeros(0)) for _ in range(family.count)]
    nf = family.count
    size = i_hi - i_lo + 1
    los = np.full((nf, size), np.nan)
    his = np.full((nf, size), np.nan)
    scale = np.zeros((nf, size), dtype=np.int64)
    st = stats if stats is not None else GridBoundsStats()
    # about n/8, but no more than a quarter of the range (a block mostly outside the range is wasted work)
    m0 = half_width or max(1, min(n // 8, size // 4))
    m0 = 1 << (m0.bit_length() - 1)
    pending = [_Block(i_lo + m0 + 2 * m0 * k, m0) for k in range(-(-size // (2 * m0)))]
    singles: list[int] = []
    guess = _Guess()
    with workprec(prec):
        while pending:
            # the ball part first, splitting every block that cannot be modelled, then one float pass over all
            built: list[_Block] = []
            while pending:
                later: list[_Block] = []
                for b in pending:
                    try:
                        ok = _build(family, n, b, rho, max_degree, rem_target, guess)
                    except (ArithmeticError, ValueError):  # e.g. a log or a division the balls cannot decide
                        ok = False
                    if ok:
                        built.append(b)
                    else:
                        st.rejected_blocks += 1
                        _split(b, i_lo, i_hi, min_half, later, singles)
                pending = later
            if not built:
                break
            accepted = _evaluate(built, i_lo, i_hi, nf, rel_tol, los, his, scale)
            for b, ok in zip(built, accepted, strict=True):
                if ok:
                    st.blocks += 1
                    st.block_points += min(b.jc + b.m - 1, i_hi) - max(b.jc - b.m, i_lo) + 1
                    if on_block is not None:
                        on_block(b.jc, b.m)
                else:  # modelled but not accurate enough: the values vary too fast for this size
                    st.rejected_blocks += 1
                    _split(b, i_lo, i_hi, max(min_half, 8), pending, singles)
    done = ~np.isnan(los[0])
    if done.any():
        los[:, done], his[:, done] = _scale_out(los[:, done], his[:, done], scale[:, done])  # step 5
    if singles:
        singles.sort()
        st.point_evaluations += len(singles)
        with workprec(point_prec):
            balls = family.points(n, singles)
        pos = np.array(singles, dtype=np.int64) - i_lo
        for j in range(nf):
            los[j, pos] = [_float_down(x) for x in balls[j]]
            his[j, pos] = [_float_up(x) for x in balls[j]]
    return [(los[j], his[j]) for j in range(nf)]
