"""Optimal nonadaptive composition of k ε-bounded-range mechanisms (Theorem 3 of Dong–Durfee–Rogers [DDR20]), certified.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

For ε_g ∈ (−kε, kε) (Theorem 3 with Lemma 6.2 [DDR20] and fact (b) of docs/derivations/br.md#nonadaptive-facts)::

    δ_OPT(k, ε, ε_g) = max_{ℓ : 0 < t_ℓ < ε} V_ℓ,      t_ℓ = (ε_g + (ℓ+1)ε)/(k+1),
    V_ℓ = Σ_{i=0}^{ℓ} Bin(k, 1 − q_{t_ℓ})(i) · (1 − e^{ε_g − k t_ℓ + iε})                (q-form, all terms > 0)

and δ_OPT = 0 for ε_g >= kε, δ_OPT = 1 − e^{ε_g} for ε_g <= −kε (Lemma 5.2). Each V_ℓ is a binomial mass sum
with weights in (0, 1], summed from the peak of the masses outward by
:func:`dpcert.arith.sums.log_concave_sum` (rigorous geometric head/tail bounds), so it costs O(sqrt(k)) terms
rather than O(k).

Certification. Not every one of the up to k candidates is summed: V_ℓ is bounded above by a Chernoff bound,
valid for every λ > 0 (with L = k t − Xε, X ~ Bin(k, 1 − q_t), V = E[(1 − e^{ε_g − L})^+] and
(1 − e^{−y})^+ <= c(λ) e^{λy}, c(λ) = sup_y (1 − e^{−y}) e^{−λy} = (1/(1+λ)) (λ/(1+λ))^λ)::

    V_ℓ <= c(λ) · e^{λ(k t − ε_g)} · (q_t + (1 − q_t) e^{−λε})^k .

Evaluated in balls with t ranging over a whole block of candidates (interval arithmetic encloses the bound for
every t of the block), it discards blocks certainly below a certified lower bound of the best candidate; a block
that is not discarded is split down to blocks of 32.

The candidate values are flat near the optimum (at k = 10^4, ε = 0.1, ε_g = 0 about 500 candidates lie within
1e-4 relative of the best), so no bound of a single V_ℓ cruder than its sum separates them. Instead the *steps*
V_{ℓ+1} − V_ℓ are signed (:func:`_step_signs`): by Lemma 5.7 each step is the difference of two lobe integrals
of the single-term derivative of F_ℓ, F_{ℓ+1}, bounded in closed form (tangent and chord of a concave log-mass),
with a resolution of about 1/k of a lobe; every step but the one at the top is decided, in O(1) ball operations.
A candidate below a neighbour is not the maximum, so only the undominated survivors (usually one to three) are
summed; should the step signs stay undecided for many (e.g. at huge ε), the survivors are summed at 2^-4,
2^-16, 2^-28 relative accuracy and dropped when certainly below the best. The last few go to
:func:`dpcert.arith.search.certified_argmax`, which also decides the exact ties of the symmetry
δ^k(t, 0) = δ^k(ε − t, 0) (candidates ℓ and k − 1 − ℓ at ε_g = 0, fact (d) of docs/derivations/br.md#nonadaptive-facts)
exactly.

The inverse ε_g(δ) (the least ε_g >= 0 with δ_OPT(ε_g) <= δ) is bracketed by
:func:`dpcert.arith.search.certified_root`; each probe proves every candidate <= δ (by the Chernoff blocks, the
step signs and the sums of the undominated rest) or one candidate > δ (a partial sum already above δ).

The float path (evidence) sums the candidates in log space; for many candidates it scans a coarse grid of ℓ and
refines around the best two grid points by ternary search (so it assumes the candidate values have at most two
humps, as observed; the certified path assumes nothing).

References:
    J. Dong, D. Durfee, R. Rogers, ICML 2020 (arXiv 1909.13830): Theorem 3, Lemmas 5.2, 5.5–5.7, 6.2,
    Corollary 5.4 [DDR20]; docs/derivations/br.md#nonadaptive-facts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, fmpz

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, ball, fraction_of, le, workprec
from dpcert.arith.exact import Exact, parse_rational
from dpcert.arith.search import Probe, certified_argmax, certified_root
from dpcert.arith.sums import Weight, log_concave_sum, log_concave_sum_float
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = [
    "BR_MAX_K",
    "BR_MAX_EPS",
    "Optimum",
    "candidates",
    "nonadaptive_delta",
    "nonadaptive_delta_float",
    "nonadaptive_delta_ball",
    "nonadaptive_optimum",
    "nonadaptive_eps",
    "nonadaptive_eps_float",
    "nonadaptive_eps_ball",
    "candidate_value",
    "DELTA",
    "EPS",
    "QUANTITIES",
]

#: Largest k accepted (a certified δ takes about 3 s at k = 10^5 and 30 s at k = 10^6; the float path stays fast).
BR_MAX_K = 10**6
#: Largest ε accepted.
BR_MAX_EPS = 1000

_REF = "Dong–Durfee–Rogers ICML 2020 Theorem 3"

_K = integer("k", 1, BR_MAX_K, doc="number of composed eps-BR mechanisms")
_EPS = real("eps", 0, BR_MAX_EPS, lo_open=True, doc="per-mechanism bounded-range parameter eps > 0")
_EPS_G = real("eps_g", doc="global epsilon (any real; negative values are meaningful)")
_DELTA = probability("delta", zero=False, doc="target global delta in (0, 1)")


def candidates(k: int, e: Fraction, g: Fraction) -> tuple[int, int]:
    """The range [lo, hi] of ℓ in {0..k−1} with t_ℓ = (g + (ℓ+1)e)/(k+1) strictly inside (0, e), decided exactly.

    Empty (lo > hi) when g >= ke or g <= −ke (fact (c) of docs/derivations/br.md#nonadaptive-facts).
    """
    r = g / e
    lo = max(0, math.floor(-r - 1) + 1)
    hi = min(k - 1, math.ceil(k - r) - 1)
    return lo, hi


def _t(k: int, e: Fraction, g: Fraction, ell: int) -> Fraction:
    return (g + (ell + 1) * e) / (k + 1)


def _guard_bits(k: int, e: Fraction) -> int:
    # masses carry exponents of size ~k·(|log q| + |log(1 − q)| + log 2); each costs relative error |x|·2^-prec
    bits = 3 * k.bit_length() + (math.ceil(e) + 1).bit_length() + 16
    # below 2^-60 the step signs' lobe integrals (differences of terms of size h, their difference of relative
    # size about ε) cancel about log2(1/ε) bits: 13,000 at ε = 1e-3999
    if e < Fraction(1, 2**60):
        bits += (1 / e).__floor__().bit_length()
    return bits


# --------------------------------------------------------------------------------------------- float path


def _log_q_float(ef: float, t: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log q_t, log(1 − q_t)) in float64 from t and u = ε − t (each formed directly: no cancellation)."""
    den = math.expm1(-ef)
    with np.errstate(divide="ignore"):  # t within rounding of 0 or ε: a mass of 0 (-inf), which sums to 0
        log_q = np.log(np.expm1(-u) / den)
        log_1mq = -u + np.log(np.expm1(-t) / den)
    return log_q, log_1mq


def _values_matrix(k: int, ef: float, gf: float, ells: np.ndarray) -> np.ndarray:
    """V_ℓ for small k: the whole (candidate × i) matrix in log space."""
    from scipy.special import gammaln, logsumexp

    t = (gf + (ells + 1) * ef) / (k + 1)
    log_q, log_1mq = _log_q_float(ef, t, ((k - ells) * ef - gf) / (k + 1))
    i = np.arange(k + 1)
    log_c = gammaln(k + 1) - gammaln(i + 1) - gammaln(k - i + 1)
    expo = (gf - k * t)[:, None] + i[None, :] * ef  # < 0 exactly for the active i <= ℓ
    active = i[None, :] <= ells[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        logw = np.where(active, np.log(-np.expm1(np.minimum(expo, -1e-300))), -np.inf)
        terms = log_c[None, :] + (k - i)[None, :] * log_q[:, None] + i[None, :] * log_1mq[:, None] + logw
    return np.exp(logsumexp(terms, axis=1))


def _value_float(k: int, ef: float, gf: float, ell: int) -> float:
    """V_ℓ for one candidate (large k): masses from the peak outward, truncated by the geometric bounds."""
    from scipy.special import gammaln

    t = (gf + (ell + 1) * ef) / (k + 1)
    u = ((k - ell) * ef - gf) / (k + 1)
    log_q, log_1mq = (float(v[0]) for v in _log_q_float(ef, np.array([t]), np.array([u])))
    if not (math.isfinite(log_q) and math.isfinite(log_1mq)):
        return 0.0  # t rounds to 0 or ε in float: a degenerate pair (evidence only; the ball path is exact here)
    r = math.exp(log_1mq - log_q)
    d0 = gf - k * t
    # masses are scaled by the peak's log-mass, the sum rescaled at the end (no underflow at large k)
    peak = min(ell, max(0, math.floor((k + 1) * math.exp(log_1mq))))
    lg_k = gammaln(k + 1)

    def log_mass(i: np.ndarray) -> np.ndarray:
        return lg_k - gammaln(i + 1) - gammaln(k - i + 1) + (k - i) * log_q + i * log_1mq

    shift = float(log_mass(np.array([peak]))[0])

    def envelope(i: np.ndarray) -> np.ndarray:
        return np.exp(log_mass(i) - shift)

    def ratio(i: np.ndarray) -> np.ndarray:
        return (k - i) / (i + 1) * r

    def weight(i: np.ndarray) -> np.ndarray:
        return -np.expm1(np.minimum(d0 + i * ef, -1e-300))

    (s,) = log_concave_sum_float(envelope, ratio, 0, ell, weights=[weight], peak=peak)
    return math.exp(math.log(s) + shift) if s > 0 else 0.0


def _short(x: Fraction) -> str:
    """A rational for a message: exact when short, else 17 significant digits (1e-3999 has 4000 digits)."""
    return str(x) if x.numerator.bit_length() + x.denominator.bit_length() <= 128 else Enclosure.exact(x).short(17)


def _hint_scale(e: Fraction) -> Fraction:
    """A power of two S with εS inside float64's comfortable range (1 unless ε < 2^-900).

    The ball path takes float64 *hints* (the likely best candidate, a Chernoff λ); at ε far below float64's
    range (1e-3999) they would divide by an underflowed zero. As ε → 0 the candidate values scale like
    ε·W_ℓ(ε_g/ε) and the optimal λε is a function of ratios only, so the hints are taken at (εS, ε_gS) and λ
    rescaled by S. Hints only: any answer is valid, a poor one costs time.
    """
    if e >= Fraction(1, 2**900):
        return Fraction(1)
    return Fraction(2 ** max(0, (1 / e).__floor__().bit_length() - 20))


def _best_hint(k: int, e: Fraction, g: Fraction) -> int:
    """The float estimate of the maximising candidate ℓ (a hint for the ball path), at a float-safe scale."""
    s = _hint_scale(e)
    return _float_best(k, e * s, g * s)[1]


def _float_best(k: int, e: Fraction, g: Fraction) -> tuple[float, int]:
    """(max V_ℓ, the maximising ℓ) in float64 over the interior candidates (g strictly inside (−ke, ke))."""
    lo, hi = candidates(k, e, g)
    ef, gf = float(e), float(g)
    n = hi - lo + 1
    if k <= 400:
        ells = np.arange(lo, hi + 1)
        vals = _values_matrix(k, ef, gf, ells)
        j = int(np.argmax(vals))
        return float(vals[j]), int(ells[j])
    cache: dict[int, float] = {}

    def v(ell: int) -> float:
        if ell not in cache:
            cache[ell] = _value_float(k, ef, gf, ell)
        return cache[ell]

    if n <= 64:
        best = max(range(lo, hi + 1), key=v)
        return v(best), best
    grid = sorted({lo + (n - 1) * j // 64 for j in range(65)})
    order = sorted(range(len(grid)), key=lambda j: v(grid[j]), reverse=True)
    for j in order[:2]:
        a, b = grid[max(0, j - 1)], grid[min(len(grid) - 1, j + 1)]
        while b - a > 2:  # integer ternary search of a hump inside [a, b]
            m1, m2 = a + (b - a) // 3, b - (b - a) // 3
            if v(m1) < v(m2):
                a = m1 + 1
            else:
                b = m2 - 1 if v(m1) > v(m2) else m2
        for ell in range(a, b + 1):
            v(ell)
    best = max(cache, key=lambda ell: cache[ell])
    return cache[best], best


def nonadaptive_delta_float(k: Any, eps: Any, eps_g: Any) -> float:
    """float64 δ_OPT(k, ε, ε_g) of k nonadaptively composed ε-BR mechanisms (evidence, not a certificate).

    Args:
        k: number of mechanisms, 1 <= k <= :data:`BR_MAX_K`.
        eps: per-mechanism ε > 0 (decimals as strings mean them exactly).
        eps_g: global ε_g, any real.

    Returns:
        δ_OPT as a float.

    Raises:
        InvalidParameter: for bad inputs.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3 and Lemma 5.2.
    """
    k = _K.parse(k)
    e, g = _EPS.exact(eps), _EPS_G.exact(eps_g)
    if g >= k * e:
        return 0.0
    if g <= -k * e:
        return -math.expm1(float(g))
    return max(_float_best(k, e, g)[0], -math.expm1(float(g)) if g < 0 else 0.0)


# --------------------------------------------------------------------------------------------- ball path


def _rr_balls(e: Fraction, t: arb | Fraction) -> tuple[arb, arb]:
    """(q_t, 1 − q_t) as balls (t a rational or a ball of t's)."""
    den = ball(-e).expm1()
    tb = ball(t)
    return (tb - ball(e)).expm1() / den, (tb - ball(e)).exp() * (-tb).expm1() / den


def candidate_value(
    k: int, e: Fraction, g: Fraction, ell: int, prec: int, *, above: Fraction | None = None, plain: bool = False
) -> Any:
    """Rigorous ball of V_ℓ (relative accuracy about 2^-prec); with ``above``, possibly a partial sum > above.

    The caller holds the working precision; guard bits are added here.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3 (q-form of eq. 6, active terms i <= ℓ by fact (b) of
        docs/derivations/br.md#nonadaptive-facts) [DDR20].
    """
    t = _t(k, e, g, ell)
    d0 = g - k * t
    with workprec(prec + _guard_bits(k, e)):
        q, omq = _rr_balls(e, t)
        log_q, log_omq = q.log(), omq.log()
        r = omq / q

        def term(i: int) -> arb:
            return _mass(k, i, log_q, log_omq)

        d0b, eb = ball(d0), ball(e)

        def w_at(i: int) -> arb:
            # d0 + iε < 0 for i <= ℓ; ball sums (not Fractions) keep this cheap, the guard bits cover the rounding
            return -(d0b + i * eb).expm1()

        s = log_concave_sum(
            term,
            lambda i: r * (k - i) / (i + 1),  # non-increasing in i: binomial masses are log-concave
            0,
            ell,
            prec=prec,
            weights=[Weight(w_at, lambda i, w: w_at(i + 1))],
            stop_above=above,
            plain=plain,
            # the binomial mode (a float estimate: any start is valid, the bounds are rigorous wherever it is)
            peak=min(ell, max(0, math.floor((k + 1) * float(omq.mid())))),
        )
        return (s.values[0], s.plain) if plain else s.values[0]


def _chernoff_lambda(k: int, ef: float, a: float, t: float) -> float | None:
    """The λ > 0 minimising λa + k log(q + (1 − q)e^{−λε}) (a = kt − ε_g), or None when no λ > 0 helps."""
    den = math.expm1(-ef)
    if den == 0:  # ε below float64's range (e.g. 1e-3999): no hint; the block is then summed, not bounded
        return None
    q = math.expm1(t - ef) / den
    omq = math.exp(t - ef) * math.expm1(-t) / den
    r = a / (k * ef)
    if not (0 < r < omq) or q <= 0:
        return None
    lam = math.log(omq * (1 - r) / (r * q)) / ef
    return lam if math.isfinite(lam) and lam > 0 else None


def _chernoff_block(k: int, e: Fraction, g: Fraction, lo: int, hi: int, lam: Fraction) -> arb:
    """A ball bound of max_{lo<=ℓ<=hi} V_ℓ: c(λ) e^{λ(kt − g)} (q_t + (1 − q_t) e^{−λε})^k with t over the block."""
    t_lo, t_hi = _t(k, e, g, lo), _t(k, e, g, hi)
    tb = ball(t_lo).union(ball(t_hi)) if hi > lo else ball(t_lo)
    q, omq = _rr_balls(e, tb)
    lb = ball(lam)
    log_c = -(1 + lb).log() + lb * (lb / (1 + lb)).log()
    return (log_c + lb * (k * tb - ball(g)) + k * (q + omq * (-lb * ball(e)).exp()).log()).exp()


def _mass(k: int, i: int, log_q: arb, log_omq: arb) -> arb:
    """Bin(k, 1 − q)(i) = C(k, i) q^{k−i} (1 − q)^i as a ball at the working precision."""
    if k <= 2**14:
        return arb(fmpz.bin_uiui(k, i)) * ((k - i) * log_q + i * log_omq).exp()
    lg = arb(k + 1).lgamma() - arb(i + 1).lgamma() - arb(k - i + 1).lgamma()
    return (lg + (k - i) * log_q + i * log_omq).exp()


def _survivors(k: int, e: Fraction, g: Fraction, level: arb, lo: int, hi: int) -> tuple[list[int], int]:
    """Candidates in [lo, hi] not certainly below ``level`` by the Chernoff block bound; and blocks evaluated.

    Blocks of fewer than 32 candidates are kept whole (the step signs of :func:`_undominated` are cheaper).
    """
    sc = _hint_scale(e)  # λ hints are taken at (εS, ε_gS) and rescaled: λε depends on ratios only as ε → 0
    ef, gf = float(e * sc), float(g * sc)
    out: list[int] = []
    stack = [(lo, hi)]
    blocks = 0
    while stack:
        a, b = stack.pop()
        if b - a < 32:
            out.extend(range(a, b + 1))
            continue
        mid = (a + b) // 2
        tm = float(_t(k, e, g, mid) * sc)
        lam = _chernoff_lambda(k, ef, k * tm - gf, tm)
        if lam is not None:
            blocks += 1
            bound = _chernoff_block(k, e, g, a, b, Fraction(lam) * sc)
            if bound < level:
                continue
        stack += [(mid + 1, b), (a, mid)]
    return sorted(out), blocks


def _integral_exp(c: arb, h: arb) -> arb:
    """∫_0^h e^{cx} dx = expm1(ch)/c as a ball (not finite when the ball c contains 0: then undecided)."""
    return (c * h).expm1() / c


def _step_signs(k: int, e: Fraction, g: Fraction, wanted: dict[int, int]) -> dict[int, int]:
    """Certified signs of V_{ℓ+1} − V_ℓ (ℓ and ℓ + 1 interior candidates): for each ℓ of ``wanted`` the sign asked
    for (+1 or −1) when it is proved, else 0 (undecided, or the other sign; only the asked side is evaluated).

    Run inside the caller's working precision. Proof. Between the candidates the optimal value δ^k(t) of a fixed
    t (eq. 6) equals F_ℓ(t) on [s_ℓ, s_{ℓ+1}], s_ℓ = (ε_g + ℓε)/k (fact 2.3(b)), and F_ℓ(s_{ℓ+1}) = F_{ℓ+1}(s_{ℓ+1})
    (the added term vanishes there). With s = s_{ℓ+1}, t_ℓ <= s <= t_{ℓ+1} (s − t_ℓ = t_ℓ/k, t_{ℓ+1} − s = v/k with
    v = ε − t_{ℓ+1}), so V_{ℓ+1} − V_ℓ = P − N with the two lobes of Lemma 5.7's derivative

        N = ∫_{t_ℓ}^{s} (−F_ℓ'),   P = ∫_s^{t_{ℓ+1}} F_{ℓ+1}',
        F_j'(t) = (k−j) C(k, j) p_t^{k−1−j} (1−p_t)^j (e^{ε_g − t} − e^{kt − (j+1)ε}) / (1 − e^{−ε}),

    whose last factors keep one sign on each lobe. Up to common factors, p_t^{k−1−j}(1−p_t)^j = e^{μ_j(t)} with
    μ_j = (k−1−j) log(e^{−t} − e^{−ε}) + j log(1 − e^{−t}) concave (both logs are). On a lobe [a, a + h] the
    tangent at a bounds μ_j above and the chord below, so each lobe lies between e^{μ_j(a)} J(chord slope) and
    e^{μ_j(a)} J(μ_j'(a)), J(κ) = ∫_0^h e^{κx} β(a + x) dx in closed form (β the sign-definite factor).
    The resolution is about 1/k of a lobe, while V_{ℓ+1} − V_ℓ is about 7e-4·(ℓ − ℓ*) lobes at k = 10^4: every
    step but the one at the top is decided.

    References:
        Dong–Durfee–Rogers ICML 2020, Lemma 5.7 and Corollary 5.4 [DDR20]; docs/derivations/br.md#nonadaptive-facts.
    """
    eb, gb = ball(e), ball(g)
    emb = (-eb).exp()
    pts: dict[tuple[int, int], tuple[arb, arb, arb, arb]] = {}

    def at(t: arb, key: tuple[int, int]) -> tuple[arb, arb, arb, arb]:
        # (log(e^{-t} − e^{-ε}), log(1 − e^{-t}), their t-derivatives); cached: t_{ℓ+1} is the next step's t_ℓ
        if key not in pts:
            a = -(t - eb).expm1()  # 1 − e^{t−ε} > 0
            b = -(-t).expm1()  # 1 − e^{−t} > 0
            pts[key] = (a.log() - t, b.log(), -1 / a, 1 / t.expm1())  # expm1: no cancellation at tiny t
        return pts[key]

    out: dict[int, int] = {}
    for ell in sorted(wanted):
        tl = (gb + (ell + 1) * eb) / (k + 1)
        tn = (gb + (ell + 2) * eb) / (k + 1)
        s = (gb + (ell + 1) * eb) / k
        h_n = tl / k
        h_p = ((k - ell - 1) * eb - gb) / (k * (k + 1))
        la, lb, lc = at(tl, (0, ell)), at(s, (1, ell)), at(tn, (0, ell + 1))
        n0, n1 = k - 1 - ell, ell  # μ_ℓ's coefficients; μ_{ℓ+1}'s are (n0 − 1, n1 + 1)
        mu_a = n0 * la[0] + n1 * la[1]
        mu_b0 = n0 * lb[0] + n1 * lb[1]
        mu_b1 = mu_b0 - lb[0] + lb[1]
        mu_c1 = (n0 - 1) * lc[0] + (n1 + 1) * lc[1]
        # lobe N on [t_ℓ, s] (j = ℓ): β/e^{ε_g} = e^{−t_ℓ}(e^{kx} − e^{−x}); lobe P on [s, t_{ℓ+1}]
        # (j = ℓ + 1): β/e^{ε_g} = e^{−s−x} − e^{kx−ε}. Chord slopes give lower bounds, tangent slopes upper ones:
        # V_{ℓ+1} > V_ℓ needs P_lo > N_hi, V_{ℓ+1} < V_ℓ needs P_hi < N_lo.
        up = wanted[ell] > 0
        c_n = n0 * la[2] + n1 * la[3] if up else (mu_b0 - mu_a) / h_n
        c_p = (mu_c1 - mu_b1) / h_p if up else (n0 - 1) * lb[2] + (n1 + 1) * lb[3]
        lobe_n = _integral_exp(c_n + k, h_n) - _integral_exp(c_n - 1, h_n)
        lobe_p = (-s).exp() * _integral_exp(c_p - 1, h_p) - emb * _integral_exp(c_p + k, h_p)
        # log(P/N) = log((k−ℓ−1)/(ℓ+1)) + μ_{ℓ+1}(s) − μ_ℓ(t_ℓ) + t_ℓ + log J_P − log J_N
        log_ratio = (arb(k - ell - 1) / (ell + 1)).log() + mu_b1 - mu_a + tl + lobe_p.log() - lobe_n.log()
        out[ell] = wanted[ell] if (log_ratio > 0 if up else log_ratio < 0) else 0
    return out


def _undominated(k: int, e: Fraction, g: Fraction, alive: list[int], lo: int, hi: int, best: int) -> list[int]:
    """The candidates of ``alive`` not certainly below a neighbouring candidate (by :func:`_step_signs`).

    A dominated candidate is strictly below another one, so the maximum over all candidates is attained among
    the undominated ones (and the candidates discarded earlier, which are below the best's lower bound).
    """
    # below the float estimate of the top a candidate should be below its right neighbour, above it below its
    # left one: one signed step each (a wrong estimate only leaves more candidates to sum)
    wanted = {ell: 1 for ell in alive if ell < best and ell < hi}
    wanted.update({ell - 1: -1 for ell in alive if ell > best and ell - 1 >= lo})
    sign = _step_signs(k, e, g, wanted)
    return [ell for ell in alive if not (sign.get(ell, 0) > 0 or sign.get(ell - 1, 0) < 0)]


def _pruned(k: int, e: Fraction, g: Fraction, level: arb, lo: int, hi: int, best: int, prec: int) -> list[int]:
    """The candidates that may still reach ``level`` or be the maximum: Chernoff blocks, then step signs.

    Candidates certainly below ``level`` (Chernoff block bound) or certainly below a neighbour (step signs) go;
    should many survive (step signs undecided, e.g. at huge ε), they are summed at 2^-4, 2^-16, 2^-28 relative
    accuracy and dropped when certainly below ``level``.
    """
    with workprec(prec + _guard_bits(k, e)):
        alive, _ = _survivors(k, e, g, level, lo, hi)
        alive = _undominated(k, e, g, alive, lo, hi, best)
    if len(alive) > 8:
        with workprec(prec):
            for bits in (0, 12, 24):  # rising accuracy on fewer and fewer candidates
                alive = [ell for ell in alive if not candidate_value(k, e, g, ell, bits) < level]
    return alive


@dataclass(frozen=True)
class Optimum:
    """A certified δ_OPT with its maximising candidates.

    Attributes:
        enclosure: rigorous enclosure of δ_OPT (exact when δ_OPT is rational: 0 for ε_g >= kε).
        maximisers: the maximising ℓ (several only when proved equal, e.g. ℓ and k−1−ℓ at ε_g = 0); empty in
            the boundary cases |ε_g| >= kε.
        t: the maximising t_ℓ = (ε_g + (ℓ+1)ε)/(k+1), exact.
        exact_tie: whether several maximisers were proved equal (exactly, by the symmetry).
        precision: bits used.
        interior: how many interior candidates there were; summed: how many were summed.
    """

    enclosure: Enclosure
    maximisers: tuple[int, ...]
    t: tuple[Fraction, ...]
    exact_tie: bool
    precision: int
    interior: int
    summed: int


def _boundary(k: int, e: Fraction, g: Fraction, prec: int) -> arb | Fraction | None:
    if g >= k * e:
        return Fraction(0)
    if g <= -k * e:
        with workprec(prec):
            return -ball(g).expm1()
    return None


def _mirrored(k: int, e: Fraction, g: Fraction, start_prec: int, max_prec: int) -> Optimum:
    """δ_OPT at ε_g < 0 from ε_g > 0 by the symmetry δ^k(t, ε_g) = 1 − e^{ε_g} + e^{ε_g} δ^k(ε − t, −ε_g).

    The map t ↦ ε − t sends t_ℓ(ε_g) to t_{k−1−ℓ}(−ε_g) and the value is an increasing affine function of the
    mirrored one, so the maximisers correspond exactly. Near ε_g ≈ −kε all candidates lie within e^{ε_g} of
    1 − e^{ε_g}; on the mirrored side they are separated at a modest precision.

    References:
        docs/derivations/br.md#nonadaptive-facts, fact (d) (from δ_{P‖Q}(ε) = 1 − e^ε + e^ε δ_{Q‖P}(−ε), t ↔ ε − t).
    """
    m = _optimum(k, e, -g, start_prec, max_prec)
    prec = max(start_prec, m.precision) + 16
    with workprec(prec):
        gb = ball(g)
        val = -gb.expm1() + gb.exp() * ball(m.enclosure.ball())
    ells = tuple(sorted(k - 1 - ell for ell in m.maximisers))
    return Optimum(
        Enclosure.from_ball(val), ells, tuple(_t(k, e, g, c) for c in ells), m.exact_tie, prec, m.interior, m.summed
    )


def _optimum(k: int, e: Fraction, g: Fraction, start_prec: int, max_prec: int) -> Optimum:
    with workprec(start_prec):
        b = _boundary(k, e, g, start_prec)
    if b is not None:
        return Optimum(
            Enclosure.exact(b) if isinstance(b, Fraction) else Enclosure.from_ball(b), (), (), False, 0, 0, 0
        )
    if g < 0:
        return _mirrored(k, e, g, start_prec, max_prec)
    lo, hi = candidates(k, e, g)
    best = _best_hint(k, e, g)
    prec0 = max(start_prec, 64)
    with workprec(prec0):
        level = candidate_value(k, e, g, best, prec0)
    alive = _pruned(k, e, g, level.lower(), lo, hi, best, prec0)
    if best not in alive:
        alive.append(best)
    items = sorted(alive)  # ε_g >= 0 here: the end points t = 0, ε are worth 0 < every candidate

    def value(c: int, prec: int) -> arb | Fraction:
        return candidate_value(k, e, g, c, prec)

    def equal(a: int, b: int) -> bool:
        # δ^k(t, 0) = δ^k(ε − t, 0) and t_{k−1−ℓ} = ε − t_ℓ at ε_g = 0 (docs/derivations/br.md#nonadaptive-facts, fact
        # (d)): an exact tie
        return g == 0 and a + b == k - 1

    res = certified_argmax(
        items,
        value,
        equal=equal,
        start_prec=start_prec,
        max_prec=max_prec,
        what=f"br.nonadaptive(k={k}, eps={_short(e)}, eps_g={_short(g)})",
    )
    ells = tuple(int(c) for c in res.maximisers)
    return Optimum(
        res.enclosure, ells, tuple(_t(k, e, g, c) for c in ells), res.exact_tie, res.precision, hi - lo + 1, len(alive)
    )


def nonadaptive_optimum(k: Any, eps: Any, eps_g: Any, *, max_prec: int = MAX_PREC) -> Optimum:
    """Certified δ_OPT(k, ε, ε_g) with the maximising candidate(s) ℓ and t_ℓ (Theorem 3 of Dong–Durfee–Rogers [DDR20]).

    Args:
        k: number of mechanisms, an integer in [1, :data:`BR_MAX_K`].
        eps: per-mechanism ε > 0 (decimals as strings to mean them exactly).
        eps_g: global ε_g, any real.
        max_prec: the largest precision (bits).

    Returns:
        An :class:`Optimum`.

    Raises:
        InvalidParameter: for bad inputs.
        PrecisionExhausted: if two candidates can be neither separated nor proved equal at ``max_prec``.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3, Lemma 5.2, Lemma 6.2.

    >>> opt = nonadaptive_optimum(2, 1, 0)
    >>> opt.maximisers, opt.t, opt.exact_tie
    ((0, 1), (Fraction(1, 3), Fraction(2, 3)), True)
    """
    k = _K.parse(k)
    e, g = _EPS.exact(eps), _EPS_G.exact(eps_g)
    return _optimum(k, e, g, START_PREC, max_prec)


def nonadaptive_delta_ball(ctx: Any, k: int, eps: Exact | Fraction, eps_g: Exact | Fraction) -> arb | Fraction:
    """Rigorous ball of δ_OPT(k, ε, ε_g) at about ctx.prec bits (exact 0 for ε_g >= kε).

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3 and Lemma 5.2.
    """
    k = _K.parse(k)
    e, g = _EPS.exact(eps), _EPS_G.exact(eps_g)
    opt = _optimum(k, e, g, ctx.prec, max(ctx.prec, getattr(ctx, "max_prec", MAX_PREC)))
    return opt.enclosure.ball()


def nonadaptive_delta(k: Any, eps: Any, eps_g: Any, *, rel_tol: float = 1e-15, max_prec: int = MAX_PREC) -> Enclosure:
    """Certified enclosure of δ_OPT(k, ε, ε_g) of k nonadaptively composed ε-BR mechanisms.

    Args:
        k: number of mechanisms, an integer in [1, :data:`BR_MAX_K`].
        eps: per-mechanism ε > 0 (decimals as strings to mean them exactly).
        eps_g: global ε_g, any real (negative values are meaningful).
        rel_tol: relative width asked for.
        max_prec: the largest precision (bits).

    Returns:
        An :class:`~dpcert.arith.ball.Enclosure`.

    Raises:
        InvalidParameter: for bad inputs.
        PrecisionExhausted: if ``max_prec`` does not suffice.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3.

    >>> nonadaptive_delta(1, 1, 0).short(12)   # tanh(1/4)
    '[0.244918662403, 0.244918662404]'
    """
    return DELTA.enclose(k=k, eps=eps, eps_g=eps_g, rel_tol=rel_tol, max_prec=max_prec)


# --------------------------------------------------------------------------------------------- ε_g(δ)


def nonadaptive_eps_float(k: Any, eps: Any, delta: Any) -> float:
    """float64 least ε_g >= 0 with δ_OPT(ε_g) <= δ, by Brent's method on log δ_OPT (evidence).

    Returns 0 when δ >= δ_OPT(0).

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3 (inverted; δ_OPT is continuous and decreasing on (−kε, kε)).
    """
    from scipy.optimize import brentq

    k = _K.parse(k)
    e, d = _EPS.exact(eps), _DELTA.exact(delta)
    ef, df = float(e), float(d)
    if nonadaptive_delta_float(k, e, 0) <= df:
        return 0.0

    def f(x: float) -> float:
        v = nonadaptive_delta_float(k, e, Fraction(x))
        return (math.log(v) if v > 0 else -1e300) - math.log(df)

    return brentq(f, 0.0, k * ef, xtol=1e-14, rtol=1e-15, maxiter=200)


def _below(k: int, e: Fraction, g: Fraction, d: Fraction, prec: int, best: int) -> bool | None:
    """Decide δ_OPT(g) <= d (None: undecided at this precision); ``best``: the float estimate of the top."""
    b = _boundary(k, e, g, prec)
    if isinstance(b, Fraction):
        return b <= d
    if b is not None:
        return le(b, ball(d))
    lo, hi = candidates(k, e, g)
    if g < 0 and not (-ball(g).expm1() <= ball(d)):
        return False if -ball(g).expm1() > ball(d) else None
    alive = _pruned(k, e, g, ball(d), lo, hi, best, prec)
    for ell in alive:
        v = candidate_value(k, e, g, ell, prec, above=d)
        if v > ball(d):
            return False
        if not v <= ball(d):
            return None
    return True


def _eps_bracket(
    k: int, e: Fraction, d: Fraction, tol: Fraction, start_prec: int, max_prec: int
) -> tuple[Fraction, Fraction]:
    def decide(g: Fraction, prec: int) -> Probe | None:
        best = _best_hint(k, e, g) if -k * e < g < k * e else 0
        holds = _below(k, e, g, d, prec, best)
        if holds is None or not -k * e < g < k * e:
            return None if holds is None else Probe(holds)
        # Newton hints on log δ (close to quadratic in ε_g): the best candidate's value v and Σ masses P give
        # dδ/dε_g = v − P at fixed t (envelope theorem); hints only, never trusted for the answer
        v, mass = candidate_value(k, e, g, best, prec, plain=True)
        if not v > 0:
            return Probe(holds)
        return Probe(holds, fraction_of((v / ball(d)).log().mid()), fraction_of(((v - mass) / v).mid()))

    def guess() -> float:
        return nonadaptive_eps_float(k, e, d)

    br = certified_root(
        decide,
        0,
        k * e,
        tol=tol,
        guess=guess,
        guess_rel_err=Fraction(1, 2**40),
        start_prec=start_prec,
        max_prec=max_prec,
        what=f"br.nonadaptive: delta(k={k}, eps={_short(e)}, eps_g) <= {_short(d)}",
    )
    return br.lo, br.hi


def nonadaptive_eps(
    k: Any, eps: Any, delta: Any, *, rel_tol: Any = Fraction(1, 10**12), max_prec: int = MAX_PREC
) -> Enclosure:
    """Certified bracket of the least ε_g >= 0 with δ_OPT(k, ε, ε_g) <= δ (nonadaptive BR composition).

    Args:
        k: number of mechanisms, an integer in [1, :data:`BR_MAX_K`].
        eps: per-mechanism ε > 0.
        delta: target δ in (0, 1).
        rel_tol: relative width of the bracket (relative to max(1, |ends|)).
        max_prec: the largest precision (bits).

    Returns:
        ``Enclosure(lo, hi)``: δ_OPT(hi) <= δ certified (hi is a valid ε_g); δ_OPT(lo) > δ certified, or lo = 0.

    Raises:
        InvalidParameter: for bad inputs.
        PrecisionExhausted: if a comparison is undecided at ``max_prec``.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3; Figure 1 (BR OptComp curve).

    >>> nonadaptive_eps(100, "0.1", "1e-6").decimal(7)
    ('2.246026', '2.246027')
    """
    parsed = EPS.parse({"k": k, "eps": eps, "delta": delta})
    t = parse_rational(rel_tol, "rel_tol").value
    if t <= 0:
        raise InvalidParameter("rel_tol", rel_tol, "a positive real number")
    lo, hi = _eps_bracket(parsed["k"], parsed["eps"].value, parsed["delta"].value, t, START_PREC, max_prec)  # type: ignore[union-attr,arg-type]
    return Enclosure(lo, hi)


def nonadaptive_eps_ball(ctx: Any, k: int, eps: Exact | Fraction, delta: Exact | Fraction) -> arb | Fraction:
    """Rigorous ball of the nonadaptive ε_g(δ), relative width about 2^-(ctx.prec/2).

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Theorem 3.
    """
    k = _K.parse(k)
    e, d = _EPS.exact(eps), _DELTA.exact(delta)
    cap = getattr(ctx, "max_prec", MAX_PREC)
    # certified_root's relative width is relative to max(1, |ends|): below 1 scale it by the search interval
    # [0, kε], so that a tiny ε (1e-3999) still gets a bracket narrow relative to its size
    tol = Fraction(1, 2 ** (ctx.prec // 2)) * min(Fraction(1), k * e)
    lo, hi = _eps_bracket(k, e, d, tol, min(ctx.prec, cap), cap)
    with workprec(ctx.prec):
        return Enclosure(lo, hi).ball()


DELTA = Quantity(
    "br.nonadaptive.delta",
    (_K, _EPS, _EPS_G),
    nonadaptive_delta_ball,
    _REF,
    "optimal delta(eps_g) of k nonadaptively composed eps-bounded-range mechanisms",
    float=lambda k, eps, eps_g: nonadaptive_delta_float(k, eps, eps_g),
    float_rtol=1e-9,
)
EPS = Quantity(
    "br.nonadaptive.eps",
    (_K, _EPS, _DELTA),
    nonadaptive_eps_ball,
    _REF,
    "least eps_g >= 0 with optimal nonadaptive delta(eps_g) <= delta for k eps-bounded-range mechanisms",
    float=lambda k, eps, delta: nonadaptive_eps_float(k, eps, delta),
    float_rtol=1e-9,
)

QUANTITIES = [DELTA, EPS]
