"""The FMT20 baseline ("Hiding among the clones"): (ε, δ)-DP of shuffling, and its composition over T rounds.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

Two variants, both of Feldman–McMillan–Talwar [FMT20], arXiv 2012.12803 (2020), the paper Girgis et al. [GDDSK21]
compare with in
Figs. 3–5 (their footnote 3: "we used the open source implementation ... apple/ml-shuffling-amplification"):

* **closed form** (certified): the formula of ``closedformanalysis`` in apple/ml-shuffling-amplification
  (``computeamplification.py``, read at commit 993d285), with a = 8·sqrt(e^{ε0} log(4/δ)/n), c = 8e^{ε0}/n,
  e = log(1 + a + c)::

      ε = log(1 + (1 − e^{−ε0}) / (1 + e^{−ε0−e}) · (a + c)),

  valid when ε0 <= log(n / (16 log(4/δ))) (the code's condition; the condition is decided exactly here), else the
  code returns ε0 (the shuffled mechanism is ε0-DP for replacement neighbours). We could not retrieve the FMT20
  paper's text to match this symbol for symbol with its theorem; it is the authors' own implementation of their
  closed-form bound.
* **exact clone** (float64 evidence): the hockey-stick divergence of FMT20's clone pair, computed exactly (the
  code's ``numericalanalysis`` computes an upper bound on the same δ by blocking the clone count, then bisects).
  With C ~ Bin(n−1, e^{−ε0}), A ~ Bin(C, 1/2), α = e^{ε0}/(e^{ε0}+1)::

      P = α·(A, C−A+1) + (1−α)·(A+1, C−A),    Q = (1−α)·(A, C−A+1) + α·(A+1, C−A).

  C is a function of the output (the coordinates sum to C+1), so δ(ε) = Σ_c Bin(c; n−1, e^{−ε0})·H_c(ε), where
  H_c is the hockey-stick of the two-component mixtures of Bin(c, 1/2) and 1 + Bin(c, 1/2); their likelihood ratio
  is monotone in A, so H_c is one cumulative binomial at a cut-off. The map A ↦ C+1−A swaps P and Q, so both
  orders give the same δ. The sum is taken over c within 25 standard deviations of the mean, and the excluded
  mass (about 1e-130 or less) is added to δ (H_c <= 1), so the float value is an upper estimate of the same δ.

T rounds are composed by KOV15's optimal composition theorem (Kairouz–Oh–Viswanath ICML 2015 [KOV15], Thm 3.3): T
(ε̃, δ̃)-DP mechanisms are (ε_g, 1 − (1−δ̃)^T (1 − δ_g))-DP where δ_g is the optimal δ of T ε̃-DP mechanisms at
ε_g (:mod:`dpcert.composition.kov`); δ_g is taken as (δ − Tδ̃)/(1 − Tδ̃), a rational lower bound of the exact
remainder (Bernoulli's inequality), so the total stays <= δ. The split of the total δ between δ̃ and δ_g is not
stated by Girgis et al. [GDDSK21] (docs/derivations/shuffle.md#readings-of-the-figures); it is chosen here in float64 on
a
geometric grid (any split is valid), and the
value at the chosen split is certified for the closed form.

References:
    V. Feldman, A. McMillan, K. Talwar, "Hiding among the clones: a simple and nearly optimal analysis of privacy
    amplification by shuffling", arXiv 2012.12803 (FOCS 2021), closed form and numerical clone analysis as
    implemented in apple/ml-shuffling-amplification; P. Kairouz, S. Oh, P. Viswanath, ICML 2015, Thm 3.3;
    Girgis et al. [GDDSK21] (CCS 2021) §4, Figs. 3–5 and footnote 3.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from flint import arb

from dpcert.arith.ball import Enclosure, ball, le, refine
from dpcert.arith.context import FLOAT, BallContext
from dpcert.arith.exact import Exact, to_fraction
from dpcert.composition import kov
from dpcert.errors import InvalidParameter
from dpcert.shuffle._floats import log_pos

__all__ = [
    "closed_form_applies",
    "closed_form",
    "closed_form_ball",
    "closed_form_float",
    "clone_delta_float",
    "clone_eps_float",
    "kov_total_eps_float",
    "kov_split",
    "closed_kov_eps_ball",
    "closed_kov_eps_float",
    "subsampled_kov_eps_float",
]


def closed_form(ctx: Any, n: int, eps0: Any, delta: Any, *, log_4_over_delta: Any = None) -> Any:
    """FMT20's closed-form shuffled ε (the ``closedformanalysis`` formula), in the arithmetic of ``ctx``.

    Args:
        ctx: :data:`~dpcert.arith.context.FLOAT` or a :class:`~dpcert.arith.context.BallContext`.
        n: number of clients.
        eps0: LDP parameter (exact).
        delta: the shuffled mechanism's δ (exact).
        log_4_over_delta: log(4/δ) when the caller has it (float64 callers: 4/δ overflows for δ < 2^-1020).

    Returns:
        The formula's value (the caller checks the validity condition).

    References:
        Feldman–McMillan–Talwar [FMT20] arXiv 2012.12803, closed-form bound, as in apple/ml-shuffling-amplification.
    """
    e0, nn = ctx.num(eps0), ctx.num(n)
    big_l = ctx.log(4 / ctx.num(delta)) if log_4_over_delta is None else ctx.num(log_4_over_delta)
    a = 8 * ctx.sqrt(ctx.exp(e0) * big_l / nn)
    c = 8 * ctx.exp(e0) / nn
    e = ctx.log1p(a + c)
    return ctx.log1p(-ctx.expm1(-e0) / (1 + ctx.exp(-e0 - e)) * (a + c))


def closed_form_applies(n: int, eps0: Exact | Fraction, delta: Exact | Fraction, max_prec: int = 1 << 12) -> bool:
    """The validity condition ε0 <= log(n / (16 log(4/δ))), i.e. 16 e^{ε0} log(4/δ) <= n, decided in balls.

    Raises:
        PrecisionExhausted: if undecided at ``max_prec`` (only on exact equality, which needs e^{ε0} log(4/δ)
            rational).

    References:
        apple/ml-shuffling-amplification, ``closedformanalysis`` (its parameter-regime check).
    """
    e0, d = to_fraction(eps0), to_fraction(delta)

    def step(prec: int) -> bool | None:
        with BallContext(prec) as ctx:
            lhs = 16 * ctx.exp(ball(e0)) * ctx.log(4 / ball(d))
        return le(lhs, ball(Fraction(n)))

    return refine(step, what=f"FMT20 closed-form regime at n={n}, eps0={e0}, delta={d}", max_prec=max_prec)[0]


def closed_form_ball(ctx: Any, n: int, eps0: Exact, delta: Exact) -> arb | Fraction:
    """Certified FMT20 closed-form ε(δ) of one shuffled round; exactly ε0 outside the formula's regime.

    References:
        Feldman–McMillan–Talwar [FMT20] arXiv 2012.12803, closed-form bound (apple/ml-shuffling-amplification,
        ``closedformanalysis``).
    """
    if not closed_form_applies(n, eps0, delta):
        return to_fraction(eps0)
    return closed_form(ctx, n, to_fraction(eps0), to_fraction(delta))


def closed_form_float(n: int, eps0: Any, delta: Any) -> float:
    """float64 FMT20 closed-form ε(δ) (evidence); ε0 outside the regime, checked in float.

    References:
        Feldman–McMillan–Talwar [FMT20] arXiv 2012.12803 (apple/ml-shuffling-amplification, ``closedformanalysis``).
    """
    e0 = float(eps0)
    big_l = math.log(4) - log_pos(delta)  # log(4/δ), also where δ or 4/δ leaves the float64 range
    if e0 > math.log(n) - math.log(16 * big_l):
        return e0
    return float(closed_form(FLOAT, n, e0, 0.5, log_4_over_delta=big_l))


# ----------------------------------------------------------------------------------------------------------------
# the exact clone pair (float64 evidence)


@lru_cache(maxsize=64)
def _clone_weights(n: int, eps0: float) -> tuple[np.ndarray, np.ndarray, float]:
    from scipy import stats  # imported on use: scipy.stats costs ~1 s at start-up

    q = math.exp(-eps0)
    m = n - 1
    mu, sd = m * q, math.sqrt(max(m * q * (1 - q), 1.0))
    c = np.arange(max(0, math.floor(mu - 25 * sd)), min(m, math.ceil(mu + 25 * sd)) + 1)
    w = stats.binom.pmf(c, m, q)
    return c.astype(np.float64), w, max(0.0, 1.0 - float(np.sum(w)))


def clone_delta_float(n: int, eps0: Any, eps: Any) -> float:
    """float64 δ(ε) of FMT20's clone pair for n clients with ε0-LDP randomizers (hockey-stick, exact up to float).

    Args:
        n: number of clients (>= 1).
        eps0: LDP parameter (> 0).
        eps: the shuffled ε (>= 0).

    Returns:
        δ(ε) = Σ_c Bin(c; n−1, e^{−ε0}) H_c(ε), plus the binomial mass outside the summed window.

    Raises:
        InvalidParameter: for n < 1, ε0 <= 0 or ε < 0.

    References:
        Feldman–McMillan–Talwar [FMT20] arXiv 2012.12803, the clone reduction (``deltacomp`` / ``onestep`` of
        apple/ml-shuffling-amplification compute an upper bound on the same δ).
    """
    e0, ep = float(eps0), float(eps)
    if n < 1:
        raise InvalidParameter("n", n, "an integer >= 1")
    if not e0 > 0:
        raise InvalidParameter("eps0", eps0, "a real number > 0")
    if not ep >= 0:
        raise InvalidParameter("eps", eps, "a real number >= 0")
    if ep >= e0:
        return 0.0
    alpha = math.exp(e0) / (math.exp(e0) + 1)
    c, w, outside = _clone_weights(n, e0)
    x = math.exp(ep)
    num = alpha - x * (1 - alpha)  # > 0 since ε < ε0
    beta = num / ((1 + x) * (2 * alpha - 1))
    cut = np.floor(beta * (c + 1))  # A <= cut: likelihood ratio P/Q >= e^ε
    from scipy import stats

    f0 = stats.binom.cdf(cut, c, 0.5)
    f1 = stats.binom.cdf(cut - 1, c, 0.5)
    p_mass = alpha * f0 + (1 - alpha) * f1
    q_mass = (1 - alpha) * f0 + alpha * f1
    h = np.maximum(p_mass - x * q_mass, 0.0)
    return float(np.dot(w, h) + outside)


def clone_eps_float(n: int, eps0: Any, delta: Any) -> float:
    """float64 least ε with the clone pair's δ(ε) <= δ (Brent's method; evidence).

    Raises:
        InvalidParameter: for δ outside (0, 1) (and as :func:`clone_delta_float`).

    References:
        Feldman–McMillan–Talwar [FMT20] arXiv 2012.12803, numerical clone analysis.
    """
    dx, e0 = to_fraction(delta), float(eps0)
    if not 0 < dx < 1:
        raise InvalidParameter("delta", delta, "a real number in (0, 1)")
    d = float(dx)
    if d < 1e-300:
        return math.nan  # δ(ε) is summed in float64, which resolves no δ this small: no float evidence
    if clone_delta_float(n, e0, 0.0) <= d:
        return 0.0
    from scipy import optimize

    return float(optimize.brentq(lambda e: clone_delta_float(n, e0, e) - d, 0.0, e0, xtol=1e-14, rtol=1e-13))


# ----------------------------------------------------------------------------------------------------------------
# T rounds by KOV15


def _kov_rest(T: int, delta_step: Any, delta: Any) -> Any:
    """δ_g left for KOV15: (δ − Tδ̃)/(1 − Tδ̃) <= 1 − (1−δ)/(1−δ̃)^T (Bernoulli: (1−δ̃)^T >= 1 − Tδ̃), so the
    composition's total δ = 1 − (1−δ̃)^T (1−δ_g) stays <= δ; exact on rationals, short where (1−δ̃)^T is not."""
    if T * delta_step >= delta:
        return 0  # nothing left (callers skip such splits)
    return (delta - T * delta_step) / (1 - T * delta_step)


def kov_total_eps_float(T: int, eps_step: float, delta_step: float, delta: float) -> float:
    """float64 ε_g of T (ε̃, δ̃)-DP rounds at total δ by KOV15 Thm 3.3 (inf if δ̃ takes the whole budget).

    References:
        Kairouz–Oh–Viswanath ICML 2015 [KOV15], Thm 3.3.
    """
    rest = _kov_rest(T, delta_step, delta)
    if rest <= 0:
        return math.inf
    if float(rest) < 1e-300:
        # the float δ(ε_g) of KOV15 cannot resolve so small a δ: T·ε̃ (KOV15 at δ_g = 0) is the float estimate
        return T * eps_step
    return kov.kov_eps_float(T, eps_step, rest)


#: per-round δ̃ tried, as fractions of the total δ (those with T·δ̃ >= δ leave nothing for KOV15 and are skipped)
_SPLITS = np.geomspace(1e-10, 0.9, 23)


@lru_cache(maxsize=4096)
def _step_eps(variant: str, n: int, eps0: float, delta_step: float, gamma: float = 1.0) -> float:
    # with Poisson subsampling at rate γ (LQS12): the shuffle runs at δ̃/γ and ε' = log(1 + γ(e^ε̃ − 1))
    d = delta_step / Fraction(gamma)
    if d >= 1:
        return math.inf
    e = closed_form_float(n, eps0, d) if variant == "closed" else clone_eps_float(n, eps0, d)
    return e if gamma == 1 else math.log1p(gamma * math.expm1(e))


def _split_search(
    n: int, eps0: float, T: int, delta: Fraction, variant: str, gamma: float = 1.0
) -> tuple[float, Fraction | None]:
    """(float ε, per-round δ̃ as an exact rational) at the best split, or (inf, None) when no split gives a value."""
    best: tuple[float, Fraction | None] = (math.inf, None)
    for frac in _SPLITS:
        # a short decimal, the exact rational the ball path uses (below float64's range: the exact fraction of δ)
        df = float(frac) * float(delta)
        ds = Fraction(f"{df:.6e}") if df > 1e-290 else Fraction(f"{float(frac):.6e}") * delta
        if _kov_rest(T, ds, delta) <= 0:
            continue
        step = _step_eps(variant, n, eps0, ds, gamma)
        if not math.isfinite(step):
            continue
        val = kov_total_eps_float(T, step, ds, delta)
        if val < best[0]:
            best = (val, ds)
    return best


def subsampled_kov_eps_float(n: int, eps0: Any, gamma: Any, T: int, delta: Any, variant: str = "closed") -> float:
    """float64 ε of T rounds: FMT20 at n shuffled clients, Poisson subsampling at rate γ by LQS12 (ε' = log(1 +
    γ(e^ε̃ − 1)), δ' = γδ̃), then KOV15 Thm 3.3, best δ split (evidence; the recipe of Girgis et al. [GDDSK21]'s Fig. 5
    baseline, whose n and split are unstated).

    References:
        Feldman–McMillan–Talwar 2020 [FMT20]; Li–Qardaji–Su ASIACCS 2012 [LQS12] (amplification by sampling);
        Kairouz–Oh–Viswanath ICML 2015 [KOV15], Thm 3.3.
    """
    if variant not in ("closed", "clone"):
        raise InvalidParameter("variant", variant, "closed or clone")
    g = float(gamma)
    if not 0 < g <= 1:
        raise InvalidParameter("gamma", gamma, "a real number in (0, 1]")
    return _split_search(n, float(eps0), T, to_fraction(delta), variant, g)[0]


@lru_cache(maxsize=256)
def kov_split(n: int, eps0: Fraction, T: int, delta: Fraction, variant: str = "closed") -> tuple[float, Fraction]:
    """(float ε_g, per-round δ̃ as an exact rational) minimising FMT20 + KOV15 over the split of δ (float search).

    Args:
        variant: ``"closed"`` (closed form) or ``"clone"`` (exact clone pair, float only).

    References:
        Feldman–McMillan–Talwar 2020 with Kairouz–Oh–Viswanath 2015 [KOV15] Thm 3.3 [FMT20; KOV15]; the split is ours
        (docs/derivations/shuffle.md#readings-of-the-figures).
    """
    if variant not in ("closed", "clone"):
        raise InvalidParameter("variant", variant, "closed or clone")
    val, ds = _split_search(n, float(eps0), T, to_fraction(delta), variant)
    if ds is None:
        # only the clone variant (float evidence) can fail at every split: δ below float64's range
        return math.nan, Fraction(0)
    return val, ds


def closed_kov_eps_float(n: int, eps0: Any, T: int, delta: Any) -> float:
    """float64 ε of T shuffled rounds by FMT20's closed form + KOV15 (best split; evidence)."""
    return kov_split(n, to_fraction(eps0), T, to_fraction(delta), "closed")[0]


#: the smallest positive per-round ε̃ handed to KOV15 (whose inputs have at most 4000 digits)
_KOV_TINY = Fraction(1, 10**3000)


def _round_out(x: Fraction, *, up: bool, bits: int = 64) -> Fraction:
    """x rounded outwards (down if not ``up``) to ``bits`` significant bits, and to 0 or 10^-3000 below 10^-3000.

    Keeps the rationals handed to KOV15 short: a per-round ε̃ from a tiny ε0 is a ball whose exact ends have
    thousands of digits. Below 10^-3000 the enclosure is [0, ε_g(10^-3000)]: rigorous, but not relatively narrow.
    """
    if x <= 0:
        return Fraction(0)
    if x < _KOV_TINY:
        return _KOV_TINY if up else Fraction(0)
    shift = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    scaled = x * 2**shift if shift >= 0 else x / 2 ** (-shift)
    m = -(-scaled.numerator // scaled.denominator) if up else scaled.numerator // scaled.denominator
    return Fraction(m) / 2**shift if shift >= 0 else Fraction(m * 2 ** (-shift))


def closed_kov_eps_ball(ctx: Any, n: int, eps0: Exact, T: int, delta: Exact) -> arb | Fraction:
    """Certified ε of T rounds: FMT20 closed form per round at the float-chosen δ̃, then KOV15 Thm 3.3.

    The per-round ε̃ is an irrational ball; KOV15's ε_g is non-decreasing in ε̃, so the certified brackets at the
    ball's rational endpoints enclose the value.

    References:
        Feldman–McMillan–Talwar [FMT20] arXiv 2012.12803 (closed form); Kairouz–Oh–Viswanath ICML 2015 [KOV15], Thm 3.3.
    """
    e0, d = to_fraction(eps0), to_fraction(delta)
    _, ds = kov_split(n, e0, T, d, "closed")
    rest = _kov_rest(T, ds, d)
    step = closed_form_ball(ctx, n, Exact(e0, str(e0), "fraction"), Exact(ds, str(ds), "fraction"))
    enc = Enclosure.exact(step) if isinstance(step, Fraction) else Enclosure.from_ball(step)
    assert enc.lo is not None and enc.hi is not None
    tol = Fraction(1, 2 ** (ctx.prec // 2))
    # ε̃ >= 0 (a log1p of a product of non-negative factors); KOV15's ε_g is non-decreasing in ε̃, so the ends
    # may be rounded outwards to rationals KOV15 accepts (at most 4000 digits; see _round_out)
    # as many significant bits as the working precision, so that the enclosure narrows with it
    bits = max(64, ctx.prec)
    lo = kov.kov_eps(T, _round_out(enc.lo, up=False, bits=bits), rest, rel_tol=tol).lo
    hi = kov.kov_eps(T, _round_out(enc.hi, up=True, bits=bits), rest, rel_tol=tol).hi
    assert lo is not None and hi is not None
    return Enclosure(lo, hi).ball()


# ----------------------------------------------------------------------------------------------------------------
# the clone pair's δ(ε), certified (exact binomial cdfs as integers, weights in balls)


def clone_delta_ball(n: int, eps0: Fraction, eps: Fraction, prec: int = 192, width: int = 25) -> arb:
    """Rigorous ball containing an upper bound on the clone pair's δ(ε) (equal to δ(ε) up to the window's tail).

    δ(ε) = Σ_c w_c H_c(ε) with w_c = Bin(c; n−1, e^{−ε0}); for c in a window of ``width`` standard deviations
    around the mean, H_c(ε) = P_c(A <= m_c) − e^ε Q_c(A <= m_c) with the cut-off m_c = ⌊(c+1)β⌋ decided in balls;
    the cumulative Bin(c, 1/2) numerators Σ_{a<=m} C(c, a) are exact integers updated along c; the mass outside
    the window, 1 − Σ_window w_c, is added (H_c <= 1).

    Args:
        n: clients (>= 2); eps0 > 0 and 0 <= eps < eps0, exact.

    Raises:
        InvalidParameter: for n < 2, eps0 <= 0 or eps outside [0, eps0).
        PrecisionExhausted: when a cut-off (c+1)β is too close to an integer for ``prec`` bits.

    References:
        Feldman–McMillan–Talwar [FMT20] arXiv 2012.12803, the clone reduction (``deltacomp`` / ``onestep`` of
        apple/ml-shuffling-amplification compute an upper bound on the same δ in float64).
    """
    from flint import fmpz

    from dpcert.arith.ball import workprec
    from dpcert.errors import PrecisionExhausted

    if n < 2:
        raise InvalidParameter("n", n, "an integer >= 2")
    if not eps0 > 0:
        raise InvalidParameter("eps0", eps0, "a real number > 0")
    if not 0 <= eps < eps0:
        raise InvalidParameter("eps", eps, "a real number in [0, eps0)")
    m_all = n - 1
    qf = math.exp(-float(eps0))
    mu, sd = m_all * qf, math.sqrt(max(m_all * qf * (1 - qf), 1.0))
    c_lo, c_hi = max(0, math.floor(mu - width * sd)), min(m_all, math.ceil(mu + width * sd))
    with workprec(prec):
        e0, x = ball(eps0).exp(), ball(eps).exp()
        q = 1 / e0
        alpha = e0 / (e0 + 1)
        beta = (alpha - x * (1 - alpha)) / ((1 + x) * (2 * alpha - 1))
        w = arb(fmpz.bin_uiui(m_all, c_lo)) * q**c_lo * (1 - q) ** (m_all - c_lo)
        ratio = q / (1 - q)

        def cutoff(c: int) -> int:
            t = (c + 1) * beta
            lo, hi = t.lower().floor().unique_fmpz(), t.upper().floor().unique_fmpz()
            if lo is None or hi is None or lo != hi:
                raise PrecisionExhausted(f"FMT20 clone cut-off at c={c}", prec)
            return int(lo)

        # N = Σ_{a<=m} C(c, a) and B = C(c, m), exact, for the current (c, m)
        c, m = c_lo, cutoff(c_lo)
        b, cum = fmpz(1), fmpz(1)
        for a in range(1, m + 1):
            b = b * (c - a + 1) // a
            cum += b
        total_w, total = ball(0), ball(0)
        while True:
            if m >= 0:
                two_c = ball(2) ** c
                f_m, f_m1 = arb(cum) / two_c, arb(cum - b) / two_c
                h = alpha * f_m + (1 - alpha) * f_m1 - x * ((1 - alpha) * f_m + alpha * f_m1)
                total += w * h
            total_w += w
            if c == c_hi:
                break
            # (c, m) -> (c+1, m): N' = 2N − C(c, m), C(c+1, m) = C(c, m)(c+1)/(c+1−m)
            w = w * (m_all - c) / (c + 1) * ratio
            if m >= 0:
                cum = 2 * cum - b
                b = b * (c + 1) // (c + 1 - m)
            c += 1
            m_new = cutoff(c)
            if m_new == m + 1:  # (c, m) -> (c, m+1): C(c, m+1) = C(c, m)(c−m)/(m+1), N' = N + C(c, m+1)
                if m >= 0:
                    b = b * (c - m) // (m + 1)
                else:
                    b = fmpz(1)
                    cum = fmpz(0)
                cum += b
                m = m_new
            elif m_new != m:
                raise PrecisionExhausted(f"FMT20 clone cut-off jumped at c={c}", prec)
        return total + (1 - total_w)
