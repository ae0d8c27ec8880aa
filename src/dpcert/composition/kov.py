"""Optimal composition of k ε-DP mechanisms (Kairouz–Oh–Viswanath [KOV15]): δ(ε_g) and its inverse ε_g(δ), certified.

Homogeneous (k mechanisms, each ε-DP; Murtagh–Vadhan [MV16] Thm 1.4, rephrasing Kairouz–Oh–Viswanath [KOV15] Thm 3.3)::

    δ(ε_g) = (1 + e^ε)^{-k} Σ_{i=0}^{k} C(k, i) max{ e^{iε} − e^{ε_g} e^{(k−i)ε}, 0 }
           = Σ_{i : (2i−k)ε > ε_g} Bin(k, q)(i) · (−expm1(ε_g − (2i−k)ε)),   q = e^ε / (1 + e^ε).

The second form has only positive terms. Which i qualify is decided exactly on the rational ε and ε_g, so a
term that is exactly zero is never mistaken for a tiny positive one (or the reverse). The binomial masses are
log-concave, so the sum is taken from its peak outward by :func:`dpcert.arith.sums.log_concave_sum` (rigorous
geometric tail and head bounds carried as a radius) and its float twin: O(sqrt(k)) terms instead of k.

ε_g(δ) is the least ε_g ≥ 0 with δ(ε_g) ≤ δ; δ(·) is continuous, non-increasing and zero from kε on. It is
bracketed by :func:`dpcert.arith.search.certified_root` from the float inverse, each probe certifying
δ(ε_g) ≤ δ in balls and handing back δ − δ_target and δ'(ε_g) for Newton's method.

Input caps (so that every input is answered in seconds or refused at once): k <= :data:`KOV_MAX_K`,
ε <= :data:`KOV_MAX_EPS`.

References:
    P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem for Differential Privacy", ICML 2015, Thm 3.3 [KOV15].
    J. Murtagh, S. Vadhan, "The Complexity of Computing the Optimal Composition of Differential Privacy",
    TCC 2016, Thm 1.4 [MV16].
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, fmpz

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, ball, fraction_of, le, workprec
from dpcert.arith.exact import Exact, parse_rational
from dpcert.arith.search import Probe, certified_root
from dpcert.arith.sums import Weight, log_concave_sum, log_concave_sum_float
from dpcert.core.claim import QuantityClaim, Rounds
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = [
    "kov_delta_ball",
    "kov_delta_float",
    "kov_delta",
    "kov_eps",
    "kov_eps_ball",
    "kov_eps_float",
    "KOV_MAX_K",
    "KOV_MAX_EPS",
    "KOV_DELTA",
    "KOV_EPS",
    "QUANTITIES",
    "CLAIMS",
]

#: Largest k accepted: the certified sums have O(sqrt(k)) terms; at k = 10^8 a certified δ takes well under a
#: second and a certified ε_g(δ) a few seconds (about 10 s at 10^9, hence the cap).
KOV_MAX_K = 10**8
#: Largest ε accepted: beyond it e^ε exceeds 10^4342 and every mechanism is practically non-private.
KOV_MAX_EPS = 10**4

_REF_KOV = "Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4"

# the typed parameters of this module's quantities; the public functions validate through them too
_K = integer("k", 1, KOV_MAX_K, doc="number of composed mechanisms")
_EPS = real("eps", 0, KOV_MAX_EPS, doc="per-mechanism epsilon (pure DP)")
# any size: eps_g >= k*eps is answered exactly 0 by one rational comparison, so no magnitude cap is needed
_EPS_G = real("eps_g", 0, doc="global epsilon of the composition", max_abs=None)
_DELTA = probability("delta", doc="target global delta; 0 gives k*eps")


def first_index(k: int, e: Fraction, g: Fraction) -> int:
    """The least i with (2i − k)ε > ε_g, decided exactly (greater than k when none qualifies). Needs ε > 0."""
    # (2i − k)ε > g  ⇔  i > (k + g/ε)/2
    if g >= k * e:
        return k + 1
    return math.floor((k + g / e) / 2) + 1


# --------------------------------------------------------------------------------------------- δ(ε_g)


def _guard_bits(k: int, e: Fraction) -> int:
    # The start term carries an exponent of size ~k·log(1 + e^ε) (and log C(k, i) ~ k log k), and the recurrence
    # adds one rounding per term, so relative error grows like (k·(1 + ε) + n_terms)·2^-prec; these bits absorb it.
    return 2 * k.bit_length() + (math.ceil(e) + 1).bit_length() + 12


def _mass_ball(k: int, i: int, e: Fraction, log1p_x: arb) -> arb:
    """Bin(k, q)(i) = C(k, i) e^{iε} / (1 + e^ε)^k as a ball at the working precision."""
    if k <= 2**14:  # the exact binomial is cheaper than three log-gammas up to here
        return arb(fmpz.bin_uiui(k, i)) * (ball(i * e) - k * log1p_x).exp()
    log_c = arb(k + 1).lgamma() - arb(i + 1).lgamma() - arb(k - i + 1).lgamma()
    return (log_c + ball(i * e) - k * log1p_x).exp()


def _mode(k: int, e: Fraction, i0: int) -> int:
    """Where Bin(k, q) peaks, from i0 on: the first i >= i0 with e^ε (k − i) < i + 1 (in float: only a start)."""
    ef = float(e)
    if ef > 700:
        return k
    x = math.exp(ef)
    return min(k, max(i0, math.ceil((x * k - 1) / (x + 1))))


def _kov_sum(
    k: int, e: Fraction, g: Fraction, prec: int, *, slope: bool = False, above: Fraction | None = None
) -> tuple[Any, Any]:
    """(δ(ε_g), δ'(ε_g)) as balls at about ``prec`` bits of relative accuracy, or exact zeros.

    δ' is the right derivative (δ has kinks where a new term enters); it is only computed when ``slope``, as
    −(Σ Bin(k, q)(i) − δ), a hint for Newton's method (it may cancel). With ``above``, the sum stops as soon as it
    certainly exceeds that level and returns ``(None, None)``: δ(ε_g) > above is then proved.
    """
    i0 = first_index(k, e, g)
    if i0 > k:
        return Fraction(0), Fraction(0)
    with workprec(prec + _guard_bits(k, e)):
        x = ball(e).exp()
        log1p_x = x.log1p()
        # h_i = 1 − e^{ε_g − (2i−k)ε} ∈ (0, 1]: exact expm1 where a stretch starts (it may be tiny), then
        # h_{i+1} = (1 − x^{-2}) + x^{-2} h_i, a sum of positive terms, so no cancellation ever occurs.
        a = -ball(-2 * e).expm1()
        b = ball(-2 * e).exp()
        total = log_concave_sum(
            lambda i: _mass_ball(k, i, e, log1p_x),
            lambda i: x * (k - i) / (i + 1),  # Bin(k, q)(i+1)/Bin(k, q)(i), decreasing in i: log-concave
            i0,
            k,
            prec=prec,
            weights=[Weight(lambda i: -ball(g - (2 * i - k) * e).expm1(), lambda i, h: a + b * h)],
            plain=slope,
            stop_above=above,
            peak=_mode(k, e, i0),
        )
        if total.exceeded:
            return None, None
        value = total.values[0]
        # δ'(ε_g) = −Σ Bin(k, q)(i) e^{ε_g − (2i−k)ε} = −Σ Bin(k, q)(i) (1 − h_i)
        return value, (value - total.plain if slope else None)


def kov_delta_ball(ctx: Any, k: int, eps: Exact | Fraction, eps_g: Exact | Fraction) -> arb | Fraction:
    """Rigorous ball of the optimal δ(ε_g) of the k-fold composition of ε-DP mechanisms.

    Args:
        ctx: a :class:`~dpcert.arith.context.BallContext` (or anything with ``.prec``); the caller sets
            flint's working precision, and the sum runs at that many bits plus guard bits for the recurrence.
        k: number of mechanisms, 1 <= k <= :data:`KOV_MAX_K`.
        eps: per-mechanism ε in [0, :data:`KOV_MAX_EPS`] (exact).
        eps_g: global ε_g >= 0 (exact).

    Returns:
        An ``arb`` ball of relative width about 2^-ctx.prec, or the exact ``Fraction(0)`` when no term
        qualifies (ε_g >= kε, or ε = 0 where δ = max(1 − e^{ε_g}, 0) = 0).

    Raises:
        InvalidParameter: for k or ε outside their domains, or ε_g < 0.

    References:
        Kairouz–Oh–Viswanath ICML 2015 [KOV15] Thm 3.3; Murtagh–Vadhan TCC 2016 [MV16] Thm 1.4.
    """
    k = _K.parse(k)
    e, g = _EPS.exact(eps), _EPS_G.exact(eps_g)
    if e == 0:
        return Fraction(0)
    value, _ = _kov_sum(k, e, g, ctx.prec)
    return value


def kov_delta_float(k: Any, eps: Any, eps_g: Any) -> float:
    """float64 δ(ε_g) of the k-fold composition of ε-DP mechanisms (evidence, not a certificate).

    Vectorised over chunks of i from the peak of the binomial outward, truncated by the same geometric tail and
    head bounds as the certified sum (:func:`dpcert.arith.sums.log_concave_sum_float`): Binomial(k, q) masses
    from scipy (boost's pmf, relative error ~1e-13 even far in the tail, where a log-gamma log-pmf loses ~1e-11
    at k = 10^4), with a scaled fallback when masses underflow.

    Args:
        k: number of mechanisms, 1 <= k <= :data:`KOV_MAX_K` (an int).
        eps: per-mechanism ε in [0, :data:`KOV_MAX_EPS`] (float, string, Fraction or Exact).
        eps_g: global ε_g >= 0.

    Returns:
        δ(ε_g) as a float.

    Raises:
        InvalidParameter: for k or ε outside their domains, a non-integer k, or ε_g < 0.

    References:
        Kairouz–Oh–Viswanath ICML 2015 [KOV15] Thm 3.3; Murtagh–Vadhan TCC 2016 [MV16] Thm 1.4.
    """
    k = _K.parse(k)
    e, g = _EPS.exact(eps), _EPS_G.exact(eps_g)
    if e == 0:
        return 0.0
    return _kov_float_sums(k, e, g, slope=False)[0]


def _kov_float_sums(k: int, e: Fraction, g: Fraction, *, slope: bool = True) -> tuple[float, float]:
    """float64 (δ(ε_g), −δ'(ε_g)) for validated k and exact ε > 0, ε_g >= 0 (−δ' is 0.0 unless ``slope``)."""
    from scipy import special, stats  # only here: importing dpcert must stay fast

    i0 = first_index(k, e, g)
    if i0 > k:
        return 0.0, 0.0
    ef = float(e)
    # the exponent is formed exactly at i0 (where it may be tiny) and stepped in float from there
    d0 = float(g - (2 * i0 - k) * e)

    def weight(i: np.ndarray) -> np.ndarray:
        return -np.expm1(d0 - 2.0 * ef * (i - i0))

    def slope_weight(i: np.ndarray) -> np.ndarray:
        return np.exp(d0 - 2.0 * ef * (i - i0))

    def ratio(i: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(ef) * (k - i) / (i + 1)

    # Bin(k, q)(i) = Bin(k, p)(k − i) with p = 1 − q = 1/(1 + e^ε): p is the small side, so it keeps its
    # relative accuracy (q rounds to 1 from ε ≈ 37 on)
    p = float(special.expit(-ef))
    dp = 0.0
    if p > 0:
        # p is off from 1/(1 + e^ε) (ε exact) by an ulp or so, which moves a tail mass by ~(i − kq)/p ulps
        # (1e-12 at k = 10^4); the exact offset, taken once from a ball, is put back in the exponent
        with workprec(96):
            dp = float(fraction_of((1 / (1 + ball(e).exp()) - ball(Fraction(p))).mid()))

    # boost's pmf without scipy's per-call argument checks (the arguments are valid by construction); they cost
    # more than the pmf itself for the few thousand masses a sum needs
    binom_pmf = getattr(stats.binom, "_pmf", stats.binom.pmf)

    def mass(i: np.ndarray) -> np.ndarray:
        pmf = binom_pmf(k - i, k, p)
        if p > 0:
            pmf = pmf * np.exp((k - i) * math.log1p(dp / p) + i * math.log1p(-dp / (1 - p)))
        return pmf

    peak = _mode(k, e, i0)
    weights = [weight, slope_weight] if slope else [weight]
    sums = log_concave_sum_float(mass, ratio, i0, k, weights=weights, peak=peak)
    if sums[0] <= 1e-280:
        sums = _kov_float_underflow(k, e, i0, peak, ratio, weights)
    return sums[0], (sums[1] if slope else 0.0)


def _kov_float_underflow(k: int, e: Fraction, i0: int, peak: int, ratio: Any, weights: Any) -> tuple[float, ...]:
    """The weighted sums (δ, and −δ' when asked) when the binomial masses underflow: masses scaled by 2^-E."""
    # A log-pmf near −700 carries an absolute rounding of ~1e-13, i.e. that much relative error after exp;
    # keeping the exponent apart (ldexp) avoids it. Each chunk starts from its first mass taken once from a ball
    # and is stepped by the float ratio.
    ef = float(e)
    with workprec(96):
        log1p_x = ball(e).exp().log1p()
        t_peak = fraction_of(_mass_ball(k, peak, e, log1p_x).mid())
    if t_peak == 0:
        return tuple(0.0 for _ in weights)
    ex = t_peak.numerator.bit_length() - t_peak.denominator.bit_length()

    def scaled(i: np.ndarray) -> np.ndarray:
        with workprec(96):
            first = float(fraction_of(_mass_ball(k, int(i[0]), e, log1p_x).mid()) / Fraction(2) ** ex)
        j = i[:-1]
        with np.errstate(over="ignore", under="ignore"):
            return first * np.exp(np.concatenate([[0.0], np.cumsum(np.log((k - j) / (j + 1)) + ef)]))

    sums = log_concave_sum_float(scaled, ratio, i0, k, weights=weights, peak=peak)
    return tuple(math.ldexp(v, ex) if math.isfinite(v) else math.inf for v in sums)


def kov_delta(k: Any, eps: Any, eps_g: Any, *, rel_tol: float = 1e-15, max_prec: int = MAX_PREC) -> Enclosure:
    """Certified enclosure of the optimal δ(ε_g) of the k-fold composition of ε-DP mechanisms.

    Args:
        k: number of mechanisms, an integer in [1, :data:`KOV_MAX_K`] (floats such as 2.0 are refused).
        eps: per-mechanism ε in [0, :data:`KOV_MAX_EPS`]; give decimals as strings (``"0.1"``) to mean them exactly.
        eps_g: global ε_g >= 0.
        rel_tol: the enclosure's relative width is at most this (or it is exact).
        max_prec: the largest precision (bits) tried.

    Returns:
        An :class:`~dpcert.arith.ball.Enclosure` with exact rational endpoints.

    Raises:
        InvalidParameter: for bad k, ε or ε_g.
        PrecisionExhausted: if ``max_prec`` bits do not reach ``rel_tol``.

    References:
        Kairouz–Oh–Viswanath ICML 2015 [KOV15] Thm 3.3; Murtagh–Vadhan TCC 2016 [MV16] Thm 1.4.

    >>> kov_delta(1, "1", 0).short(12)    # tanh(1/2)
    '[0.46211715726, 0.462117157261]'
    >>> kov_delta(10, "0.1", 1).is_exact  # ε_g = kε: exactly 0
    True
    """
    return KOV_DELTA.enclose(k=k, eps=eps, eps_g=eps_g, rel_tol=rel_tol, max_prec=max_prec)


# --------------------------------------------------------------------------------------------- ε_g(δ)


def kov_eps_float(k: Any, eps: Any, delta: Any) -> float:
    """float64 ε_g(δ): the least ε_g >= 0 with δ(ε_g) <= δ, by Brent's method on the float δ (evidence).

    Args:
        k: number of mechanisms, 1 <= k <= :data:`KOV_MAX_K`.
        eps: per-mechanism ε in [0, :data:`KOV_MAX_EPS`].
        delta: target δ in [0, 1).

    Returns:
        ε_g as a float: kε for δ = 0, and 0 when δ >= δ(0).

    Raises:
        InvalidParameter: for bad k, ε or δ.

    References:
        Kairouz–Oh–Viswanath ICML 2015 [KOV15] Thm 3.3; Murtagh–Vadhan TCC 2016 [MV16] Thm 1.4.
    """
    k = _K.parse(k)
    e, d = _EPS.exact(eps), _DELTA.exact(delta)
    ke = float(k * e)
    if d == 0 or e == 0:
        return ke if d == 0 else 0.0
    df = float(d)
    if kov_delta_float(k, e, 0) <= df:
        return 0.0
    # safeguarded Newton on log δ (close to quadratic in ε_g), bisection whenever a step leaves the bracket
    lo, hi = 0.0, ke
    ef = float(e)
    g = k * ef * math.tanh(ef / 2) + ef * math.sqrt(2 * k * max(1.0, -math.log(max(df, 1e-300))))
    if not lo < g < hi:
        g = hi / 2
    last_step = math.inf
    for _ in range(200):
        value, slope = _kov_float_sums(k, e, Fraction(g))
        if value > df:
            lo = g
        else:
            hi = g
        if value > 0 and slope > 0:
            nxt = g + (math.log(value) - math.log(df)) * value / slope
            step = abs(nxt - g)
            # converged, or the steps stopped shrinking at the float δ's own noise (~1e-13 relative)
            if step <= 1e-14 * g or (step <= 1e-13 * g and step >= last_step / 2):
                return min(max(nxt, lo), hi)
        else:
            nxt, step = math.nan, math.inf
        if not lo < nxt < hi:
            nxt = lo + (hi - lo) / 2
            if hi - lo <= 1e-15 * hi:
                return nxt
        g, last_step = nxt, step
    return g


def _eps_bracket(
    k: int, e: Fraction, d: Fraction, tol: Fraction, *, start_prec: int = START_PREC, max_prec: int = MAX_PREC
) -> tuple[Fraction, Fraction]:
    """Certified [lo, hi] around ε_g(δ): δ(hi) <= δ and (δ(lo) > δ or lo = 0), hi − lo <= tol·max(1, hi)."""
    ke = k * e
    if d == 0:
        return ke, ke
    if e == 0:
        return Fraction(0), Fraction(0)

    def decide(g: Fraction, prec: int) -> Probe | None:
        value, slope = _kov_sum(k, e, g, prec, slope=True, above=d)
        if value is None:
            return Probe(False)  # a partial sum already exceeds δ
        if isinstance(value, Fraction):
            return Probe(value <= d)
        holds = le(value, ball(d))
        if holds is None:
            return None
        if isinstance(slope, Fraction) or not slope < 0 or not value > 0:
            return Probe(holds)
        # Newton on log δ: log δ is close to quadratic in ε_g (a Gaussian tail), δ itself is not
        return Probe(holds, fraction_of((value / ball(d)).log().mid()), fraction_of((slope / value).mid()))

    def guess() -> float | None:
        value = kov_eps_float(k, e, d)
        return value if 0 < value < ke else None

    # the ends are probed first: δ(kε) = 0 costs nothing, and δ(0) <= δ means the answer is exactly 0
    bracket = certified_root(
        decide,
        0,
        ke,
        tol=tol,
        guess=guess,
        guess_rel_err=Fraction(1, 2**36),  # the float inverse: ~1e-13 relative at k = 10^6, ~1e-12 at 10^7
        start_prec=start_prec,
        max_prec=max_prec,
        what=f"composition.kov: delta(k={k}, eps={e}, eps_g) <= {d}",
    )
    return bracket.lo, bracket.hi


def kov_eps(k: Any, eps: Any, delta: Any, *, rel_tol: Any = Fraction(1, 10**12), max_prec: int = MAX_PREC) -> Enclosure:
    """Certified bracket of the optimal ε_g(δ) of the k-fold composition of ε-DP mechanisms.

    Args:
        k: number of mechanisms, an integer in [1, :data:`KOV_MAX_K`].
        eps: per-mechanism ε in [0, :data:`KOV_MAX_EPS`] (decimals as strings to mean them exactly).
        delta: target δ in [0, 1). δ = 0 gives exactly kε; δ >= δ(0) gives exactly 0.
        rel_tol: the bracket's width is at most ``rel_tol·max(1, hi)`` (an exact rational, a decimal string or a
            float; the keyword every dpcert function uses for a relative accuracy).
        max_prec: the largest precision (bits) any comparison may use.

    Returns:
        ``Enclosure(lo, hi)``: δ(hi) <= δ is certified, so hi is a valid (safe) ε_g; δ(lo) > δ is certified,
        or lo = 0. The least valid ε_g lies in [lo, hi].

    Raises:
        InvalidParameter: for bad k, ε, δ, a non-positive rel_tol or max_prec < 1.
        PrecisionExhausted: if a comparison is still undecided at ``max_prec``.

    References:
        Kairouz–Oh–Viswanath ICML 2015 [KOV15] Thm 3.3; Murtagh–Vadhan TCC 2016 [MV16] Thm 1.4.

    >>> kov_eps(100, "0.1", "1e-6").decimal(8)
    ('4.7745675', '4.7745676')
    """
    parsed = KOV_EPS.parse({"k": k, "eps": eps, "delta": delta})
    t = parse_rational(rel_tol, "rel_tol").value
    if t <= 0:
        raise InvalidParameter("rel_tol", rel_tol, "a positive real number")
    if isinstance(max_prec, bool) or not isinstance(max_prec, int) or max_prec < 1:
        raise InvalidParameter("max_prec", max_prec, "a positive integer (bits)")
    e, d = parsed["eps"].value, parsed["delta"].value  # type: ignore[union-attr]
    lo, hi = _eps_bracket(parsed["k"], e, d, t, start_prec=min(START_PREC, max_prec), max_prec=max_prec)  # type: ignore[arg-type]
    return Enclosure(lo, hi)


def kov_eps_ball(
    ctx: Any, k: int, eps: Exact | Fraction, delta: Exact | Fraction, *, max_prec: int | None = None
) -> arb | Fraction:
    """Rigorous ball of ε_g(δ) whose relative width is about 2^-(ctx.prec/2), so it narrows as prec rises.

    Args:
        ctx: a ball context (its ``prec`` sets the bracket tolerance and the first comparison precision).
        k: number of mechanisms, 1 <= k <= :data:`KOV_MAX_K`.
        eps: per-mechanism ε in [0, :data:`KOV_MAX_EPS`].
        delta: target δ in [0, 1).
        max_prec: the largest precision (bits) any comparison may use (default: ``ctx.max_prec``, else
            :data:`~dpcert.arith.ball.MAX_PREC`).

    Returns:
        An ``arb`` ball containing the certified bracket, or an exact ``Fraction`` (0 or kε).

    Raises:
        InvalidParameter: for bad inputs.
        PrecisionExhausted: if a comparison is undecided at ``max_prec`` bits.

    References:
        Kairouz–Oh–Viswanath ICML 2015 [KOV15] Thm 3.3; Murtagh–Vadhan TCC 2016 [MV16] Thm 1.4.
    """
    k = _K.parse(k)
    e, d = _EPS.exact(eps), _DELTA.exact(delta)
    prec = ctx.prec
    cap = getattr(ctx, "max_prec", MAX_PREC) if max_prec is None else max_prec
    lo, hi = _eps_bracket(k, e, d, Fraction(1, 2 ** (prec // 2)), start_prec=min(prec, cap), max_prec=cap)
    with workprec(prec):
        return Enclosure(lo, hi).ball()


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

QUANTITIES = [KOV_DELTA, KOV_EPS]


# --------------------------------------------------------------------------------------------- printed values

# DP-OptComp column of an independent mpmath reproduction of Dong–Durfee–Rogers [DDR20] Fig. 1 (εg at δ = 1e-6);
# the ids keep their historical "brnotes" infix (committed certificates name them)
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
        "of an independent mpmath reproduction of Dong–Durfee–Rogers ICML 2020 Fig. 1",
        statement=f"the optimal eps_g of {k} composed {eps}-DP mechanisms at delta = 1e-6 rounds to {printed}",
        quantity=KOV_EPS,
        inputs={"k": k, "eps": eps, "delta": "1e-6"},
        comparison=Rounds(printed),
    )


CLAIMS = [_br_notes_claim(e, k, v) for e, k, v in _BR_NOTES_COLUMN]
