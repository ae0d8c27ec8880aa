"""Upper bounds on the adaptive composition of k ε-BR mechanisms, as ε_g(δ): OptKL, MGF, DR19, DRV10, zCDP.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

All are valid for adaptive composition and are capped at kε (basic composition; ε-BR ⇒ ε-DP)::

    OptKL  (Cor. 3.1):  ε_g = k·maxkl(ε) + sqrt(½ k ε² ln(1/δ))
    DR19   (Fig. 2 U): ε_g = k ε²/2     + sqrt(½ k ε² ln(1/δ))       (λ-optimum of U = ½ε²(λ²/4 + λ))
    DRV10  (Fig. 2 U): ε_g = k ε²/2     + sqrt(2 k ε² ln(1/δ))       (λ-optimum of U = ½ε²(λ² + λ))
    zCDP   (added):    ρ = k ε²/8,  ε_g = ρ + 2 sqrt(ρ ln(1/δ))     (ε-BR ⇒ ε²/8-zCDP, Cesar–Rogers 2021) [CR21]
    MGF    (Thm 5):    ε_g = inf_{λ>0} (k h_ε(λ) + ln(1/δ))/λ,
                       h_ε(λ) = sup_{t∈[0,ε]} λ(ε − t) + ln(1 + p_{ε,t}(e^{−λε} − 1)).

h_ε has a closed-form maximiser: with c = e^{−λε},
1 + p_t(c − 1) = (1 − c e^{−ε} − e^{−t}(1 − c))/(1 − e^{−ε}),
so the objective is λ(ε − t) + ln(a − b e^{−t}) + const with a, b > 0, strictly concave in t, and its derivative
vanishes at e^{−t*} = λ(1 − e^{−(λ+1)ε}) / ((1 + λ)(1 − e^{−λε})); the sup is at t* clamped to [0, ε].
Any λ > 0 gives a valid bound (Lemma 7.1), so the MGF bound is certified at the λ a float search picks (golden
section on ln λ; the objective is unimodal there, docs/derivations/br.md#the-mgf-bound): ``br.mgf.eps`` is that
certified bound.

References:
    Dong–Durfee–Rogers [DDR20]: Corollary 3.1, Theorem 5, Lemmas 7.1–7.3, Figure 2; Durfee–Rogers [DR19] NeurIPS
    2019 (DR19); Dwork–Rothblum–Vadhan FOCS 2010 [DRV10] with Bun–Steinke TCC 2016 [BS16] (improved DRV10); Cesar–Rogers
    [CR21] ALT
    2021 (ε-BR ⇒ ε²/8-zCDP) [CR21]; docs/derivations/br.md#the-mgf-bound.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dpcert.arith.context import FLOAT
from dpcert.br import rr
from dpcert.br.nonadaptive import _DELTA, _EPS, _K
from dpcert.core.quantity import Quantity

__all__ = ["optkl_eps", "dr19_eps", "drv10_eps", "zcdp_eps", "mgf_h", "mgf_eps_at", "mgf_lambda", "QUANTITIES"]


def _cap(ctx: Any, k: int, eps: Any, value: Any) -> Any:
    return ctx.min(ctx.exact(k * eps.value), value)


def optkl_eps(ctx: Any, k: int, eps: Any, delta: Any) -> Any:
    """OptKL, Corollary 3.1 of Dong–Durfee–Rogers [DDR20]: min{kε, k maxkl(ε) + sqrt(½kε² ln(1/δ))}."""
    e = ctx.num(eps)
    return _cap(ctx, k, eps, k * rr.maxkl(ctx, e) + ctx.sqrt(k * e * e * -ctx.log(ctx.num(delta)) / 2))


def dr19_eps(ctx: Any, k: int, eps: Any, delta: Any) -> Any:
    """DR19 (Durfee–Rogers 2019 [DR19] BR composition): min{kε, kε²/2 + sqrt(½kε² ln(1/δ))}."""
    e = ctx.num(eps)
    return _cap(ctx, k, eps, k * e * e / 2 + ctx.sqrt(k * e * e * -ctx.log(ctx.num(delta)) / 2))


def drv10_eps(ctx: Any, k: int, eps: Any, delta: Any) -> Any:
    """Improved DRV10 (ε-DP ⇒ ε²/2-zCDP, Bun–Steinke [BS16]): min{kε, kε²/2 + sqrt(2kε² ln(1/δ))}."""
    e = ctx.num(eps)
    return _cap(ctx, k, eps, k * e * e / 2 + ctx.sqrt(2 * k * e * e * -ctx.log(ctx.num(delta))))


def zcdp_eps(ctx: Any, k: int, eps: Any, delta: Any) -> Any:
    """ε-BR ⇒ ε²/8-zCDP (Cesar–Rogers 2021) [CR21], composed and converted: min{kε, ρ + 2 sqrt(ρ ln(1/δ))}, ρ =
    kε²/8."""
    e = ctx.num(eps)
    rho = k * e * e / 8
    return _cap(ctx, k, eps, rho + 2 * ctx.sqrt(rho * -ctx.log(ctx.num(delta))))


def mgf_h(ctx: Any, eps: Any, lam: Any) -> Any:
    """h_ε(λ) of Theorem 5 at its closed-form maximiser t* (module docstring), for ε > 0, λ > 0.

    In ball arithmetic, when t* is not certainly inside (0, ε) the larger of the objective at t* and at the
    nearby end encloses the sup.
    """
    c1 = -ctx.expm1(-lam * eps)  # 1 − e^{−λε}
    s = lam * -ctx.expm1(-(lam + 1) * eps) / ((1 + lam) * c1)  # e^{−t*}

    def g(t: Any) -> Any:
        # ln(1 + p(e^{−λε} − 1)) = ln((1 − p) + p e^{−λε}): both terms positive, 1 − p from expm1
        return lam * (eps - t) + ctx.log(rr.one_minus_p(ctx, eps, t) + rr.p_rr(ctx, eps, t) * ctx.exp(-lam * eps))

    if not getattr(ctx, "rigorous", False):
        return g(min(max(-ctx.log(s), 0.0), eps))
    # t* = −log1p(s − 1) with s − 1 formed without cancellation: λc2 − (1+λ)c1 = λ e^{−λε}(1 − e^{−ε}) − c1
    # (c2 = 1 − e^{−(λ+1)ε}); −log(s) loses every bit when t* is far below 2^-prec (ε = 1e-3999)
    t_star = -ctx.log1p((lam * ctx.exp(-lam * eps) * -ctx.expm1(-eps) - c1) / ((1 + lam) * c1))
    zero = ctx.num(0)
    if t_star <= 0:
        return g(zero)
    if t_star >= eps:
        return g(eps)
    if t_star > 0 and t_star < eps:
        return g(t_star)
    end = zero if t_star < eps / 2 else eps
    return ctx.max(g(end), g(t_star.intersection(zero.union(eps))))


def mgf_eps_at(ctx: Any, k: int, eps: Any, delta: Any, lam: Any) -> Any:
    """(k h_ε(λ) + ln(1/δ))/λ: a valid ε_g(δ) for every λ > 0 (Theorem 5 with Lemma 7.1)."""
    return (k * mgf_h(ctx, eps, lam) - ctx.log(delta)) / lam


def mgf_lambda(k: int, eps: float, delta: float) -> float:
    """The λ minimising (k h_ε(λ) + ln(1/δ))/λ, by golden section on ln λ ∈ [−20, 12] (float64)."""
    return _lambda_search(k, eps, -math.log(delta))


def _lambda_search(k: int, eps: float, log_inv_delta: float) -> float:
    from scipy.optimize import minimize_scalar

    def f(x: float) -> float:
        lam = math.exp(x)
        return (k * mgf_h(FLOAT, eps, lam) + log_inv_delta) / lam

    res = minimize_scalar(f, bounds=(-20.0, 12.0), method="bounded", options={"xatol": 1e-10})
    return math.exp(res.x)


#: Below this ε (and δ) float64 cannot carry the λ search directly (1e-400 rounds to 0): see :func:`_lam`.
_FLOAT_FLOOR = Fraction(1, 2**900)


def _log_inv(d: Fraction) -> float:
    """ln(1/δ) in float64, also for δ below float64's range (math.log of the integers, not of a 0.0)."""
    return -math.log(d) if d >= _FLOAT_FLOOR else math.log(d.denominator) - math.log(d.numerator)


def _lam(k: int, eps: Any, delta: Any) -> Fraction:
    """The λ at which the bound is certified: the float optimum, taken as its exact binary value.

    Any λ > 0 gives a valid bound (Lemma 7.1), so the search only has to be a good choice. Below float64's range
    (ε = 1e-3999) it runs at εS for a power of two S with εS ≈ 1e-3 and λ is rescaled to λS: the objective
    depends on λ through λε (up to O(ε²) as ε → 0), so λε is kept; δ enters only through ln(1/δ), which is
    formed from its integers.
    """
    e, d = Fraction(eps.value), Fraction(delta.value)
    scale = Fraction(1)
    if e < _FLOAT_FLOOR:
        scale = Fraction(2 ** max(0, (1 / e).__floor__().bit_length() - 10))
    return Fraction(_lambda_search(k, float(e * scale), _log_inv(d))) * scale


def mgf_eps_ball(ctx: Any, k: int, eps: Any, delta: Any) -> Any:
    """MGF bound (Theorem 5), certified at the float-optimal λ, capped at kε."""
    lam = _lam(k, eps, delta)
    return _cap(ctx, k, eps, mgf_eps_at(ctx, k, ctx.num(eps), ctx.num(delta), ctx.num(lam)))


def mgf_eps_float(k: int, eps: Any, delta: Any) -> float:
    """float64 MGF bound: the minimum found by the λ search, capped at kε."""
    ef, ld = float(eps.value), _log_inv(Fraction(delta.value))
    lam = _lambda_search(k, ef, ld)
    return min(k * ef, (k * mgf_h(FLOAT, ef, lam) + ld) / lam)


_REF = "Dong–Durfee–Rogers ICML 2020"


def _q(name: str, fn: Any, ref: str, summary: str) -> Quantity:
    return Quantity(name, (_K, _EPS, _DELTA), fn, ref, summary, float=lambda **kw: fn(FLOAT, **kw), float_rtol=1e-11)


QUANTITIES = [
    _q("br.optkl.eps", optkl_eps, f"{_REF} Corollary 3.1", "OptKL: eps_g(delta) for k adaptive eps-BR mechanisms"),
    _q("br.dr19.eps", dr19_eps, "Durfee–Rogers 2019; Dong–Durfee–Rogers Fig. 2", "DR19 eps_g(delta), k eps-BR"),
    _q(
        "br.drv10.eps",
        drv10_eps,
        "Dwork–Rothblum–Vadhan 2010, Bun–Steinke 2016; Dong–Durfee–Rogers Fig. 2",
        "improved DRV10 eps_g(delta), k eps-DP mechanisms",
    ),
    _q("br.zcdp.eps", zcdp_eps, "Cesar–Rogers ALT 2021; Bun–Steinke TCC 2016", "eps^2/8-zCDP eps_g(delta), k eps-BR"),
    Quantity(
        "br.mgf.eps",
        (_K, _EPS, _DELTA),
        mgf_eps_ball,
        f"{_REF} Theorem 5",
        "MGF bound eps_g(delta) for k adaptive eps-BR mechanisms, certified at the float-optimal lambda",
        float=mgf_eps_float,
        float_rtol=1e-11,
    ),
]
