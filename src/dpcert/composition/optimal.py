"""Optimal composition of pure ε-DP mechanisms (Kairouz–Oh–Viswanath; Murtagh–Vadhan), certified and fast.

Homogeneous (k mechanisms, each ε-DP; Murtagh–Vadhan Thm 1.4, rephrasing Kairouz–Oh–Viswanath Thm 3.3)::

    δ(ε_g) = (1 + e^ε)^{-k} Σ_{i=0}^{k} C(k, i) max{ e^{iε} − e^{ε_g} e^{(k−i)ε}, 0 }
           = Σ_{i : (2i−k)ε > ε_g} Bin(k, q)(i) · (−expm1(ε_g − (2i−k)ε)),   q = e^ε / (1 + e^ε).

The second form has only positive terms. Which i qualify is decided exactly on the rational ε and ε_g, so a
term that is exactly zero is never mistaken for a tiny positive one (or the reverse). ε_g(δ) is the least
ε_g ≥ 0 with δ(ε_g) ≤ δ; δ(·) is continuous, non-increasing and zero from kε on.

Heterogeneous (Murtagh–Vadhan Thm 1.5): δ = [Π_j (1 + e^{ε_j})]^{-1} Σ_{S ⊆ [k]} max{e^{Σ_S ε_i} − e^{ε_g}
e^{Σ_{not S} ε_i}, 0}, summed by brute force over the 2^k subsets (grouped by their exact subset sums).

References:
    P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem for Differential Privacy", ICML 2015, Thm 3.3.
    J. Murtagh, S. Vadhan, "The Complexity of Computing the Optimal Composition of Differential Privacy",
    TCC 2016, Thms 1.4 and 1.5.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, fmpq_poly, fmpz
from scipy import optimize, special, stats

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, ball, fraction_of, le, refine, workprec
from dpcert.arith.exact import Exact, RationalFunction, parse_rational
from dpcert.arith.floats import log1pexp, log_binom, logsumexp
from dpcert.core.claim import Evidence, FunctionClaim, QuantityClaim, Rounds, Verdict, check_function
from dpcert.core.params import Param, integer, probability, real, reals
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = [
    "kov_delta_ball",
    "kov_delta_float",
    "kov_delta",
    "kov_eps",
    "kov_eps_ball",
    "kov_eps_float",
    "mv_delta_ball",
    "mv_delta_float",
    "mv_delta",
    "MV_MAX_K",
    "QUANTITIES",
    "CLAIMS",
]

#: Largest k accepted by the brute-force heterogeneous sum (2^k subsets).
MV_MAX_K = 20

_REF_KOV = "Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4"
_REF_MV = "Murtagh–Vadhan TCC 2016 Thm 1.5"


# --------------------------------------------------------------------------------------------- validation


# the typed parameters of this module's quantities; the public functions validate through them too
_K = integer("k", 1, doc="number of composed mechanisms")
_EPS = real("eps", 0, doc="per-mechanism epsilon (pure DP)")
_EPS_G = real("eps_g", 0, doc="global epsilon of the composition")
_DELTA = probability("delta", doc="target global delta; 0 gives k*eps")
_EPS_LIST = reals("eps_list", 0, doc=f"per-mechanism epsilons (at most {MV_MAX_K})")


def _exact(param: Param, value: Any) -> Any:
    """``param.parse(value)`` with reals as their exact Fraction (already-parsed values pass straight through)."""
    v = param.parse(value)
    return v.value if isinstance(v, Exact) else v


def _first_index(k: int, e: Fraction, g: Fraction) -> int:
    """The least i with (2i − k)ε > ε_g, decided exactly (greater than k when none qualifies). Needs ε > 0."""
    # (2i − k)ε > g  ⇔  i > (k + g/ε)/2
    return math.floor((k + g / e) / 2) + 1


# --------------------------------------------------------------------------------------------- homogeneous δ


def _guard_bits(k: int, e: Fraction) -> int:
    # The start term carries an exponent of size ~k·log(1 + e^ε) and the recurrence adds one rounding per
    # term, so relative error grows like (k·(1 + ε) + n_terms)·2^-prec; these bits absorb that.
    return 2 * k.bit_length() + (math.ceil(e) + 1).bit_length() + 12


def _kov_sum(k: int, e: Fraction, g: Fraction, prec: int, *, slope: bool = False) -> tuple[Any, Any]:
    """(δ(ε_g), δ'(ε_g)) as balls at about ``prec`` bits of relative accuracy, or exact zeros.

    δ' is the right derivative (δ has kinks where a new term enters); it is only computed when ``slope``.
    """
    i0 = _first_index(k, e, g)
    if i0 > k:
        return Fraction(0), Fraction(0)
    with workprec(prec + _guard_bits(k, e)):
        x = ball(e).exp()
        # t_i = C(k, i) x^i / (1 + x)^k, started exactly from the binomial and continued by the pmf ratio
        t = arb(fmpz.bin_uiui(k, i0)) * (ball(i0 * e) - k * x.log1p()).exp()
        # h_i = 1 − e^{ε_g − (2i−k)ε} ∈ (0, 1]: exact expm1 for the first term (it may be tiny), then
        # h_{i+1} = (1 − x^{-2}) + x^{-2} h_i, a sum of positive terms, so no cancellation ever occurs.
        h = -ball(g - (2 * i0 - k) * e).expm1()
        a = -ball(-2 * e).expm1()
        b = ball(-2 * e).exp()
        gg = ball(g - (2 * i0 - k) * e).exp() if slope else None  # e^{ε_g − (2i−k)ε} = 1 − h_i
        acc = arb(0)
        dacc = arb(0)
        cutoff = Fraction(1, 2 ** (prec + 4))
        for i in range(i0, k + 1):
            acc += t * h
            if slope:
                dacc += t * gg
                gg *= b
            if i == k:
                break
            r = x * (k - i) / (i + 1)
            t = t * r
            h = a + b * h
            # Past the mode the ratios t_{j+1}/t_j decrease, so Σ_{j>i} t_j h_j ≤ t_{i+1}/(1 − r_{i+1});
            # stop once that rigorous tail bound is far below the sum and carry it as a radius.
            if (i - i0) % 16 == 15:
                r_next = x * (k - i - 1) / (i + 2)
                if r_next < 1:
                    tail = (t / (1 - r_next)).upper()
                    if tail <= acc.lower() * ball(cutoff):
                        acc += arb(0, tail)
                        if slope:
                            dacc += arb(0, tail)
                        break
        return acc, (-dacc if slope else None)


def kov_delta_ball(ctx: Any, k: int, eps: Exact | Fraction, eps_g: Exact | Fraction) -> arb | Fraction:
    """Rigorous ball of the optimal δ(ε_g) of the k-fold composition of ε-DP mechanisms.

    Args:
        ctx: a :class:`~dpcert.arith.context.BallContext` (or anything with ``.prec``); the caller sets
            flint's working precision, and the sum runs at that many bits plus guard bits for the recurrence.
        k: number of mechanisms, >= 1.
        eps: per-mechanism ε >= 0 (exact).
        eps_g: global ε_g >= 0 (exact).

    Returns:
        An ``arb`` ball of relative width about 2^-ctx.prec, or the exact ``Fraction(0)`` when no term
        qualifies (ε_g >= kε, or ε = 0 where δ = max(1 − e^{ε_g}, 0) = 0).

    Raises:
        InvalidParameter: for k < 1, ε < 0 or ε_g < 0.

    References:
        Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4.
    """
    k = _K.parse(k)
    e, g = _exact(_EPS, eps), _exact(_EPS_G, eps_g)
    if e == 0:
        return Fraction(0)
    value, _ = _kov_sum(k, e, g, ctx.prec)
    return value


def kov_delta_float(k: Any, eps: Any, eps_g: Any) -> float:
    """float64 δ(ε_g) of the k-fold composition of ε-DP mechanisms (evidence, not a certificate).

    Vectorised over i: Binomial(k, q) masses from scipy (boost's pmf, relative error ~1e-13 even far in the
    tail, where a log-gamma log-pmf loses ~1e-11 at k = 10^4), with a scaled fallback when masses underflow.

    Args:
        k: number of mechanisms, >= 1 (an int).
        eps: per-mechanism ε >= 0 (float, string, Fraction or Exact).
        eps_g: global ε_g >= 0.

    Returns:
        δ(ε_g) as a float.

    Raises:
        InvalidParameter: for k < 1, a non-integer k, ε < 0 or ε_g < 0.

    References:
        Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4.
    """
    k = _K.parse(k)
    e, g = _exact(_EPS, eps), _exact(_EPS_G, eps_g)
    if e == 0:
        return 0.0
    i0 = _first_index(k, e, g)
    if i0 > k:
        return 0.0
    ef = float(e)
    i = np.arange(i0, k + 1)
    # the exponent is formed exactly at i0 (where it may be tiny) and stepped in float from there
    d = float(g - (2 * i0 - k) * e) - 2.0 * ef * (i - i0)
    fac = -np.expm1(d)
    # Bin(k, q)(i) = Bin(k, p)(k − i) with p = 1 − q = 1/(1 + e^ε): p is the small side, so it keeps its
    # relative accuracy (q rounds to 1 from ε ≈ 37 on)
    p = float(special.expit(-ef))
    pmf = stats.binom.pmf(k - i, k, p)
    if p > 0:
        # p is off from 1/(1 + e^ε) (ε exact) by an ulp or so, which moves a tail mass by ~(i − kq)/p ulps
        # (1e-12 at k = 10^4); the exact offset, taken once from a ball, is put back in the exponent
        with workprec(96):
            dp = float(fraction_of((1 / (1 + ball(e).exp()) - ball(Fraction(p))).mid()))
        pmf = pmf * np.exp((k - i) * math.log1p(dp / p) + i * math.log1p(-dp / (1 - p)))
    total = float(np.dot(pmf, fac))
    if total > 1e-280:
        return total
    return _kov_delta_float_underflow(k, e, i0, i, fac)


def _kov_delta_float_underflow(k: int, e: Fraction, i0: int, i: np.ndarray, fac: np.ndarray) -> float:
    """δ when the binomial masses underflow: the first term as mantissa·2^E, the rest by the pmf ratio."""
    # A log-pmf near −700 carries an absolute rounding of ~1e-13, i.e. that much relative error after exp;
    # keeping the exponent apart (ldexp) avoids it.
    with workprec(96):
        first = arb(fmpz.bin_uiui(k, i0)) * (ball(i0 * e) - k * ball(e).exp().log1p()).exp()
        t0 = fraction_of(first.mid())
    if t0 == 0:
        return 0.0
    ex = t0.numerator.bit_length() - t0.denominator.bit_length()
    m0 = float(t0 / Fraction(2) ** ex)
    j = i[:-1]
    with np.errstate(over="ignore", under="ignore"):
        rel = np.exp(np.concatenate([[0.0], np.cumsum(np.log((k - j) / (j + 1)) + float(e))]))
        scaled = m0 * float(np.dot(rel, fac))
    if math.isfinite(scaled):
        return math.ldexp(scaled, ex)
    # masses rising past the first term by a factor 1e308 while δ < 1e-280 needs ε < ~1e-280: log space
    with np.errstate(divide="ignore"):
        logpmf = log_binom(k, i) - i * log1pexp(-float(e)) - (k - i) * log1pexp(float(e))
        return math.exp(logsumexp(logpmf + np.log(fac)))


def kov_delta(k: Any, eps: Any, eps_g: Any, *, rel_tol: float = 1e-15) -> Enclosure:
    """Certified enclosure of the optimal δ(ε_g) of the k-fold composition of ε-DP mechanisms.

    Args:
        k: number of mechanisms, an integer >= 1 (floats such as 2.0 are refused).
        eps: per-mechanism ε >= 0; give decimals as strings (``"0.1"``) to mean them exactly.
        eps_g: global ε_g >= 0.
        rel_tol: the enclosure's relative width is at most this (or it is exact).

    Returns:
        An :class:`~dpcert.arith.ball.Enclosure` with exact rational endpoints.

    Raises:
        InvalidParameter: for bad k, ε or ε_g.

    References:
        Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4.

    >>> kov_delta(1, "1", 0).short(12)    # tanh(1/2)
    '[0.46211715726, 0.462117157261]'
    >>> kov_delta(10, "0.1", 1).is_exact  # ε_g = kε: exactly 0
    True
    """
    return KOV_DELTA.enclose(k=k, eps=eps, eps_g=eps_g, rel_tol=rel_tol)


# --------------------------------------------------------------------------------------------- ε_g(δ)


def kov_eps_float(k: Any, eps: Any, delta: Any) -> float:
    """float64 ε_g(δ): the least ε_g >= 0 with δ(ε_g) <= δ, by Brent's method on the float δ (evidence).

    Args:
        k: number of mechanisms, >= 1.
        eps: per-mechanism ε >= 0.
        delta: target δ in [0, 1).

    Returns:
        ε_g as a float: kε for δ = 0, and 0 when δ >= δ(0).

    Raises:
        InvalidParameter: for bad k, ε or δ.

    References:
        Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4.
    """
    k = _K.parse(k)
    e, d = _exact(_EPS, eps), _exact(_DELTA, delta)
    ke = float(k * e)
    if d == 0 or e == 0:
        return ke if d == 0 else 0.0
    df = float(d)
    if kov_delta_float(k, e, 0.0) <= df:
        return 0.0

    def f(x: float) -> float:
        return kov_delta_float(k, e, Fraction(x)) - df

    return float(optimize.brentq(f, 0.0, ke, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=400))


def _probe(
    k: int, e: Fraction, g: Fraction, d: Fraction, start_prec: int, max_prec: int
) -> tuple[bool, Fraction | None, Fraction]:
    """Decide δ(g) <= d with rising precision.

    Returns:
        ``(decided, newton, slope)``: the certified answer, a Newton estimate of the root from g (None when
        the slope vanishes), and the midpoint of δ'(g) (exact, for the curvature estimate of the next step).
    """

    def step(prec: int) -> tuple[bool, Any, Any] | None:
        value, slope = _kov_sum(k, e, g, prec, slope=True)
        if isinstance(value, Fraction):
            return (value <= d, value, slope)
        decided = le(value, ball(d))
        return None if decided is None else (decided, value, slope)

    what = f"composition.kov: delta(k={k}, eps={e}, eps_g={g}) <= {d}"
    (decided, value, slope), _ = refine(step, what=what, start_prec=start_prec, max_prec=max_prec)
    if isinstance(value, Fraction) or isinstance(slope, Fraction) or not slope < 0:
        return decided, None, Fraction(0)
    s = fraction_of(slope.mid())
    return decided, g - (fraction_of(value.mid()) - d) / s, s


def _dyadic(x: Fraction, bits: int) -> Fraction:
    # probe points with short dyadic denominators are exact balls and keep the rational arithmetic cheap
    return Fraction(round(x * 2**bits), 2**bits)


def _kov_eps_bracket(
    k: int, e: Fraction, d: Fraction, tol: Fraction, *, start_prec: int = START_PREC, max_prec: int = MAX_PREC
) -> tuple[Fraction, Fraction]:
    """Certified [lo, hi] around ε_g(δ): δ(hi) <= δ and (δ(lo) > δ or lo = 0), hi − lo <= tol·max(1, hi).

    Guess and verify: probe est ± w around the float inverse, then around Newton estimates, with w set from
    the expected Newton error (curvature·step²) and widened when both probes land on one side; a round that
    does not halve the bracket is followed by a bisection step, so the loop always terminates.
    """
    ke = k * e
    if d == 0:
        return ke, ke
    if e == 0:
        return Fraction(0), Fraction(0)
    at_zero, est, _ = _probe(k, e, Fraction(0), d, start_prec, max_prec)
    if at_zero:
        return Fraction(0), Fraction(0)
    lo, hi = Fraction(0), ke
    try:
        guess = kov_eps_float(k, e, d)
        if 0 < guess < ke:
            est = Fraction(guess)
    except (ValueError, ArithmeticError, RuntimeError):
        pass  # only a starting point: the bisection below needs none
    bits = max(64, 2 * (1 + math.ceil(1 / tol).bit_length()))
    w = Fraction(1, 2**36) * max(Fraction(1), est or 0)  # the float inverse is good to ~1e-12 relative
    curvature: float | None = None
    for _ in range(4 * bits + 64):
        scale = max(Fraction(1), hi)
        floor_w = tol * scale / 3
        if hi - lo <= tol * scale:
            return lo, hi
        before = hi - lo
        if est is not None:
            # an estimate outside the bracket (Newton overshoots from the convex side) still says which end
            # is close to the root: probe inwards from that end
            est = min(max(est, lo), hi)
            w = max(min(w, (hi - lo) / 4), floor_w)
            results = []
            for p in (_dyadic(est + w, bits), _dyadic(est - w, bits)):
                if lo < p < hi:
                    decided, newton, slope = _probe(k, e, p, d, start_prec, max_prec)
                    results.append((p, decided, newton, slope))
                    if decided:
                        hi = p
                    else:
                        lo = p
            if len(results) == 2 and results[0][3] and results[1][3]:
                (p1, _, _, s1), (p2, _, _, s2) = results
                curvature = float(abs(s1 - s2) / abs(p1 - p2) / (abs(s1) + abs(s2)))
            with_newton = [(abs(r[2] - r[0]), r[2]) for r in results if r[2] is not None]
            est = min(with_newton)[1] if with_newton else None
            if len(results) == 2 and results[0][1] == results[1][1]:
                w *= 16  # the estimate was off by more than w
            elif with_newton and curvature is not None:
                step = min(with_newton)[0]
                w = max(floor_w, Fraction(4 * curvature) * step * step)
            if hi - lo <= before / 2:
                continue
        p = _dyadic((lo + hi) / 2, bits)
        if not lo < p < hi:
            p = (lo + hi) / 2
        decided, est, _ = _probe(k, e, p, d, start_prec, max_prec)
        if decided:
            hi = p
        else:
            lo = p
    raise AssertionError("kov_eps bracket did not converge")  # unreachable: bisection alone halves each round


def kov_eps(k: Any, eps: Any, delta: Any, *, tol: Fraction = Fraction(1, 10**12)) -> Enclosure:
    """Certified bracket of the optimal ε_g(δ) of the k-fold composition of ε-DP mechanisms.

    Args:
        k: number of mechanisms, an integer >= 1.
        eps: per-mechanism ε >= 0 (decimals as strings to mean them exactly).
        delta: target δ in [0, 1). δ = 0 gives exactly kε; δ >= δ(0) gives exactly 0.
        tol: the bracket's width is at most ``tol·max(1, hi)``.

    Returns:
        ``Enclosure(lo, hi)``: δ(hi) <= δ is certified, so hi is a valid (safe) ε_g; δ(lo) > δ is certified,
        or lo = 0. The least valid ε_g lies in [lo, hi].

    Raises:
        InvalidParameter: for bad k, ε, δ or a non-positive tol.
        PrecisionExhausted: if a comparison is still undecided at the maximum precision.

    References:
        Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4.

    >>> kov_eps(100, "0.1", "1e-6").decimal(8)
    ('4.7745675', '4.7745676')
    """
    parsed = KOV_EPS.parse({"k": k, "eps": eps, "delta": delta})
    t = parse_rational(tol, "tol").value
    if t <= 0:
        raise InvalidParameter("tol", tol, "a positive real number")
    lo, hi = _kov_eps_bracket(parsed["k"], parsed["eps"].value, parsed["delta"].value, t)  # type: ignore[union-attr]
    return Enclosure(lo, hi)


def kov_eps_ball(ctx: Any, k: int, eps: Exact | Fraction, delta: Exact | Fraction) -> arb | Fraction:
    """Rigorous ball of ε_g(δ) whose relative width is about 2^-(ctx.prec/2), so it narrows as prec rises.

    Args:
        ctx: a ball context (its ``prec`` sets the bracket tolerance and the first comparison precision).
        k: number of mechanisms, >= 1.
        eps: per-mechanism ε >= 0.
        delta: target δ in [0, 1).

    Returns:
        An ``arb`` ball containing the certified bracket, or an exact ``Fraction`` (0 or kε).

    Raises:
        InvalidParameter: for bad inputs.
        PrecisionExhausted: if a comparison is undecided at ``ctx.max_prec`` bits.

    References:
        Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4.
    """
    k = _K.parse(k)
    e, d = _exact(_EPS, eps), _exact(_DELTA, delta)
    prec = ctx.prec
    lo, hi = _kov_eps_bracket(
        k, e, d, Fraction(1, 2 ** (prec // 2)), start_prec=prec, max_prec=getattr(ctx, "max_prec", MAX_PREC)
    )
    if lo == hi:
        return lo
    with workprec(prec):
        return ball(lo).union(ball(hi))


# --------------------------------------------------------------------------------------------- heterogeneous


def _mv_setup(eps_list: Any, eps_g: Any) -> tuple[int, list[int], Fraction]:
    """Common denominator D, the integer numerators n_j = ε_j·D, and ε_g (validated)."""
    items = _EPS_LIST.parse(eps_list)
    if len(items) > MV_MAX_K:
        raise InvalidParameter(
            "eps_list",
            f"<{len(items)} values>",
            f"at most {MV_MAX_K} values: the heterogeneous formula (Murtagh–Vadhan "
            "Thm 1.5) is #P-hard and summed here by brute force over 2^k subsets",
        )
    fr = [x.value for x in items]  # type: ignore[union-attr]
    den = math.lcm(*(f.denominator for f in fr))
    return den, [int(f * den) for f in fr], _exact(_EPS_G, eps_g)


def _subset_sums(nums: list[int]) -> tuple[list[int], list[int]]:
    """Distinct subset sums Σ_{i∈S} n_i over all S ⊆ [k], with how many subsets give each (exact integers)."""
    if sum(nums) < 2**62:
        sums = np.zeros(1, dtype=np.int64)
        counts = np.ones(1, dtype=np.int64)
        for n in nums:
            sums = np.concatenate([sums, sums + n])
            counts = np.concatenate([counts, counts])
            sums, inv = np.unique(sums, return_inverse=True)
            # counts are at most 2^20, exact in the float64 weights of bincount
            counts = np.bincount(inv, weights=counts).astype(np.int64)
        return [int(s) for s in sums], [int(c) for c in counts]
    table: Counter[int] = Counter({0: 1})
    for n in nums:
        nxt: Counter[int] = Counter()
        for s, c in table.items():
            nxt[s] += c
            nxt[s + n] += c
        table = nxt
    keys = sorted(table)
    return keys, [table[s] for s in keys]


def _mv_terms(eps_list: Any, eps_g: Any) -> tuple[int, list[int], Fraction, list[tuple[int, int]]]:
    """(D, numerators, ε_g, [(subset sum s, count)] of the subsets whose term is positive).

    The term of S is positive iff Σ_S ε − Σ_{not S} ε > ε_g, i.e. (2s − E)/D > ε_g: decided in integers.
    """
    den, nums, g = _mv_setup(eps_list, eps_g)
    total = sum(nums)
    sums, counts = _subset_sums(nums)
    keep = [(s, c) for s, c in zip(sums, counts, strict=True) if (2 * s - total) * g.denominator > g.numerator * den]
    return den, nums, g, keep


def mv_delta_ball(ctx: Any, eps_list: tuple[Exact, ...], eps_g: Exact | Fraction) -> arb | Fraction:
    """Rigorous ball of the optimal δ(ε_g) of composing ε_1-, …, ε_k-DP mechanisms (brute force, k <= 20).

    Args:
        ctx: a ball context; flint's working precision is the caller's, plus guard bits for the sum.
        eps_list: the per-mechanism ε_j >= 0 (exact), at most :data:`MV_MAX_K` of them.
        eps_g: global ε_g >= 0.

    Returns:
        An ``arb`` ball, or the exact ``Fraction(0)`` when no subset's term is positive.

    Raises:
        InvalidParameter: for an empty or too long list, or negative values.

    References:
        Murtagh–Vadhan TCC 2016 Thm 1.5.
    """
    den, nums, g, keep = _mv_terms(eps_list, eps_g)
    if not keep:
        return Fraction(0)
    total = sum(nums)
    with workprec(ctx.prec + len(nums) + 12):
        log_z = arb(0)
        for n in nums:
            log_z += ball(Fraction(n, den)).exp().log1p()
        acc = arb(0)
        for s, c in keep:
            # count · e^{s − log Z} · (1 − e^{ε_g + E − 2s}): all factors positive, each term computed afresh
            mass = (ball(Fraction(s, den)) - log_z).exp()
            acc += c * mass * -ball(g + Fraction(total - 2 * s, den)).expm1()
        return acc


def mv_delta_float(eps_list: Any, eps_g: Any) -> float:
    """float64 heterogeneous δ(ε_g) (Murtagh–Vadhan Thm 1.5), vectorised over the distinct subset sums.

    Args:
        eps_list: per-mechanism ε_j >= 0 (floats, strings, Fractions or Exact), at most :data:`MV_MAX_K`.
        eps_g: global ε_g >= 0.

    Returns:
        δ(ε_g) as a float (evidence, not a certificate).

    Raises:
        InvalidParameter: for an empty or too long list, or negative values.

    References:
        Murtagh–Vadhan TCC 2016 Thm 1.5.
    """
    den, nums, g, keep = _mv_terms(eps_list, eps_g)
    if not keep:
        return 0.0
    total = sum(nums)
    log_z = float(np.sum(log1pexp([n / den for n in nums])))
    sums = [si for si, _ in keep]
    cnt = np.array([c for _, c in keep], dtype=float)
    if max(abs(2 * sums[-1] - total), abs(2 * sums[0] - total)) < 2**62:
        two_s_minus_e = 2 * np.array(sums, dtype=np.int64) - total
        s = np.array(sums, dtype=np.int64) / den
        d = float(g) - two_s_minus_e / den
        # the exponent of the expm1 factor can be arbitrarily close to 0: redo the near ones exactly
        near = np.flatnonzero(np.abs(d) < 1e-3 * max(1.0, float(g)))
        d[near] = [float(g - Fraction(int(two_s_minus_e[j]), den)) for j in near]
    else:
        s = np.array([float(Fraction(si, den)) for si in sums])
        d = np.array([float(g + Fraction(total - 2 * si, den)) for si in sums])
    with np.errstate(divide="ignore"):
        return math.exp(logsumexp(s - log_z + np.log(-np.expm1(d)), b=cnt))


def mv_delta(eps_list: Any, eps_g: Any, *, rel_tol: float = 1e-15) -> Enclosure:
    """Certified enclosure of the heterogeneous optimal δ(ε_g) (Murtagh–Vadhan Thm 1.5; k <= 20).

    Args:
        eps_list: per-mechanism ε_j >= 0 (a list, or a comma-separated string), at most :data:`MV_MAX_K`.
        eps_g: global ε_g >= 0.
        rel_tol: relative width of the enclosure.

    Returns:
        An :class:`~dpcert.arith.ball.Enclosure`.

    Raises:
        InvalidParameter: for bad inputs or more than :data:`MV_MAX_K` mechanisms.

    References:
        Murtagh–Vadhan TCC 2016 Thm 1.5.

    >>> mv_delta(["0.1", "0.1"], 0).overlaps(kov_delta(2, "0.1", 0))
    True
    """
    return MV_DELTA.enclose(eps_list=eps_list, eps_g=eps_g, rel_tol=rel_tol)


# --------------------------------------------------------------------------------------------- quantities

KOV_DELTA = Quantity(
    "composition.kov.delta",
    (_K, _EPS, _EPS_G),
    kov_delta_ball,
    _REF_KOV,
    "optimal delta(eps_g) of the k-fold composition of eps-DP mechanisms",
    float=lambda k, eps, eps_g: kov_delta_float(k, eps, eps_g),
    # measured: worst relative error 4e-13 over 3000 random inputs with k <= 10^4 and δ down to 1e-300
    float_rtol=1e-12,
)
KOV_EPS = Quantity(
    "composition.kov.eps",
    (_K, _EPS, _DELTA),
    kov_eps_ball,
    _REF_KOV,
    "least eps_g with optimal delta(eps_g) <= delta for the k-fold composition of eps-DP mechanisms",
    float=lambda k, eps, delta: kov_eps_float(k, eps, delta),
    # measured: worst 1e-15 over 600 random inputs (k <= 10^4, δ in [1e-15, 0.9]); headroom for flat stretches
    float_rtol=1e-12,
)
MV_DELTA = Quantity(
    "composition.mv.delta",
    (_EPS_LIST, _EPS_G),
    mv_delta_ball,
    _REF_MV,
    "optimal delta(eps_g) of composing eps_1-, ..., eps_k-DP mechanisms (brute force over 2^k subsets)",
    float=lambda eps_list, eps_g: mv_delta_float(eps_list, eps_g),
    # measured: worst 3e-14 over 500 random inputs with k <= 12
    float_rtol=1e-12,
)

QUANTITIES = [KOV_DELTA, KOV_EPS, MV_DELTA]


# --------------------------------------------------------------------------------------------- claims


def _mono(n: int, c: int = 1) -> fmpq_poly:
    return fmpq_poly([0] * n + [c])


@check_function
def check_kov_identity(max_prec: int, pairs: tuple[tuple[int, int], ...]) -> tuple[Verdict, Evidence]:
    """Claim check: the MV Thm 1.4 and KOV Thm 3.3 sums agree as rational functions of x = e^ε at each (k, i)."""
    bad = []
    for k, i in pairs:
        # ε_g = (k − 2i)ε; which terms of the MV sum are positive does not depend on ε > 0 (ε = 1 here)
        j0 = _first_index(k, Fraction(1), Fraction(k - 2 * i))
        mv = sum(
            (_mono(j, math.comb(k, j)) - _mono(2 * k - 2 * i - j, math.comb(k, j)) for j in range(j0, k + 1)),
            fmpq_poly([]),
        )
        kov = sum(
            (_mono(k - ell, math.comb(k, ell)) - _mono(k - 2 * i + ell, math.comb(k, ell)) for ell in range(i)),
            fmpq_poly([]),
        )
        den = fmpq_poly([1, 1]) ** k
        if not (RationalFunction(mv, den) - RationalFunction(kov, den)).is_zero():
            bad.append((k, i))
    detail = (
        f"MV Thm 1.4 sum minus KOV Thm 3.3 sum at eps_g = (k-2i)eps is the zero rational function "
        f"of x = e^eps for (k, i) in {list(pairs)}"
    )
    if bad:
        return Verdict.REFUTED, Evidence(
            method="exact rational arithmetic",
            worst_case=bad,
            detail=f"non-zero difference for (k, i) in {bad}",
        )
    return Verdict.CERTIFIED, Evidence(
        method="exact rational arithmetic", detail=detail, counts={"identities": len(pairs)}
    )


def _kov_identity(pairs: tuple[tuple[int, int], ...]) -> FunctionClaim:
    return FunctionClaim(
        id="composition.kov.identity_kov_parametrisation",
        reference="Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4",
        statement="For every eps >= 0, the Murtagh–Vadhan sum at eps_g = (k-2i)eps equals KOV's "
        "sum_{l<i} C(k,l)(e^{(k-l)eps} - e^{(k-2i+l)eps})/(1+e^eps)^k (identity in x = e^eps)",
        fn=check_kov_identity,
        inputs={"pairs": pairs},
    )


@check_function
def check_mv_homogeneous(max_prec: int, k: tuple[int, ...]) -> tuple[Verdict, Evidence]:
    """Claim check: the 2^k subset sum with equal ε_i equals the homogeneous binomial sum, for each k."""
    ks = k
    bad = []
    checked = 0
    for k in ks:
        # y = e^{ε/2}; ε_g = (m/2)ε for m = 0..2k covers lattice and off-lattice points
        for m in range(2 * k + 1):
            het = [0] * (3 * k + 1)
            for mask in range(2**k):
                s = bin(mask).count("1")
                # term of S: y^{2|S|} − y^m y^{2(k−|S|)}, kept iff its exponent comparison says positive
                if 2 * s > m + 2 * (k - s):
                    het[2 * s] += 1
                    het[m + 2 * (k - s)] -= 1
            hom = fmpq_poly([])
            for i in range(k + 1):
                if 4 * i - 2 * k > m:
                    hom += _mono(2 * i, math.comb(k, i)) - _mono(m + 2 * (k - i), math.comb(k, i))
            den = fmpq_poly([1, 0, 1]) ** k
            checked += 1
            if not (RationalFunction(fmpq_poly(het), den) - RationalFunction(hom, den)).is_zero():
                bad.append((k, m))
    if bad:
        return Verdict.REFUTED, Evidence(
            method="exact rational arithmetic",
            worst_case=bad,
            detail=f"non-zero difference at (k, 2 eps_g/eps) in {bad}",
        )
    return Verdict.CERTIFIED, Evidence(
        method="exact rational arithmetic",
        counts={"identities": checked},
        detail=f"brute-force 2^k subset sum (MV Thm 1.5, all eps_i = eps) minus MV Thm 1.4 is the zero "
        f"rational function of y = e^(eps/2) for k in {list(ks)} and eps_g = (m/2) eps, m = 0..2k",
    )


def _mv_homogeneous_identity(ks: tuple[int, ...]) -> FunctionClaim:
    return FunctionClaim(
        id="composition.mv.homogeneous_reduction",
        reference="Murtagh–Vadhan TCC 2016 Thms 1.4 and 1.5",
        statement="With all eps_i = eps, the heterogeneous optimal-composition sum over all subsets equals "
        "the homogeneous binomial sum, for every eps >= 0 and eps_g in (eps/2)·{0, ..., 2k}",
        fn=check_mv_homogeneous,
        inputs={"k": ks},
    )


# DP-OptComp column of the notes' reproduction of Dong–Durfee–Rogers Fig. 1 (εg at δ = 1e-6)
_BR_NOTES_COLUMN: tuple[tuple[str, int, str], ...] = (
    ("1", 1, "1.00000"),
    ("1", 2, "2.00000"),
    ("1", 5, "5.00000"),
    ("1", 10, "9.99998"),
    ("1", 20, "19.99947"),
    ("1", 50, "47.64940"),
    ("1", 100, "83.53070"),
    ("1", 200, "147.44185"),
    ("0.1", 10, "0.99937"),
    ("0.1", 50, "3.17290"),
    ("0.1", 100, "4.77457"),
    ("0.1", 200, "7.18559"),
    ("0.1", 500, "12.51788"),
    ("0.1", 1000, "19.34467"),
    ("0.1", 2000, "30.49538"),
    ("0.01", 100, "0.39226"),
    ("0.01", 1000, "1.36545"),
    ("0.01", 2000, "1.99295"),
    ("0.01", 5000, "3.30638"),
)


def _br_notes_claim(eps: str, k: int, printed: str) -> QuantityClaim:
    return QuantityClaim(
        id=f"composition.kov.eps.brnotes_eps{eps.replace('.', 'p')}_k{k}",
        reference="Murtagh–Vadhan TCC 2016 Thm 1.4 (KOV ICML 2015 Thm 3.3); value from the DP-OptComp column "
        "of the reproduction of Dong–Durfee–Rogers ICML 2020 Fig. 1 (notes br_composition.md §6.1)",
        statement=f"the optimal eps_g of {k} composed {eps}-DP mechanisms at delta = 1e-6 rounds to {printed}",
        quantity=KOV_EPS,
        inputs={"k": k, "eps": eps, "delta": "1e-6"},
        comparison=Rounds(printed),
    )


CLAIMS = [
    _kov_identity(((1, 0), (2, 1), (5, 2), (10, 3), (10, 5), (31, 9), (64, 20))),
    _mv_homogeneous_identity((1, 2, 3, 5, 8)),
    *(_br_notes_claim(e, k, v) for e, k, v in _BR_NOTES_COLUMN),
]
