"""Rényi DP: the Gaussian mechanism's RDP, and the two RDP → (ε, δ)-DP conversions, each written once.

Every paper package that converts RDP into (ε, δ)-DP (the shuffle model, DP-SGD, DaRRM's GNMax) imports the
conversions from here. They are scalar formulas against a context's small vocabulary (``ctx.num``, ``ctx.log``,
``ctx.log1p``, ``ctx.exp``, ``ctx.max``), so one text runs in float64, in balls, in exact rationals and (for the
symbolic identity check of the shuffle claims) in sympy. Each input goes through ``ctx.num``, so a formula takes
a parsed :class:`~dpcert.arith.exact.Exact`, a ``Fraction`` or a value already in the context alike.

* Mironov (CSF 2017, Prop. 3; PATE's Theorem 5): (α, ρ)-RDP implies (ρ + log(1/δ)/(α − 1), δ)-DP.
* Canonne–Kamath–Steinke (arXiv 2004.00010 v4, Prop. 12; the same expression as Balle–Barthe–Gaboardi–Hsu–Sato,
  AISTATS 2020, Thm 21, and Girgis et al. CCS 2021, Lemma 1): (α, ρ)-RDP implies (ε, δ)-DP for
  ε = ρ + log(1 − 1/α) − (log δ + log α)/(α − 1), and, solved for δ at a given ε,
  δ = exp((α − 1)(ρ − ε)) (1 − 1/α)^α / (α − 1). The two forms are inverse to each other:
  α log(1 − 1/α) − log(α − 1) = (α − 1) log(1 − 1/α) − log α, since log(α − 1) = log α + log(1 − 1/α). The CKS ε
  is below Mironov's, since both extra terms are negative for α > 1.

Why CKS's max(0, ·) is proved, not a clamp: the proof bounds (z − e^ε)₊ <= z^α (α−1)^{α−1} / (α^α e^{(α−1)ε})
for every z >= 0, which holds for every real ε, negative ones included; so the formula's ε, even negative, is a
valid ε, and δ(ε) is non-increasing, so δ(0) <= δ(ε_CKS) <= δ when ε_CKS < 0: (0, δ)-DP holds.

References:
    I. Mironov [Mir17], "Rényi Differential Privacy", CSF 2017: Prop. 3 (conversion) and Prop. 7 / Table 2 (Gaussian).
    C. Canonne, G. Kamath, T. Steinke [CKS20], arXiv 2004.00010 v4, Prop. 12; B. Balle, G. Barthe, M. Gaboardi,
    J. Hsu, T. Sato [BBGHS20], AISTATS 2020, Thm 21.
    N. Papernot et al. [PSMRTE18], "Scalable Private Learning with PATE", ICLR 2018: GNMax is (α, α/σ²)-RDP (§4.1) and
    Theorem 5 (= [Mir17] Prop. 3); restated as Theorem D.1 in DaRRM (Jiang–Zhang–Joshi [JZJ24]), Appendix D.2.1.
"""

from __future__ import annotations

from typing import Any

from dpcert.arith.context import FLOAT
from dpcert.arith.exact import Exact
from dpcert.core.params import probability, real
from dpcert.core.quantity import Quantity

__all__ = [
    "gaussian_rdp",
    "gnmax_rdp",
    "mironov_eps",
    "rdp_to_dp_eps",
    "cks_eps_raw",
    "cks_eps",
    "cks_delta_raw",
    "ALPHA",
    "QUANTITIES",
]


def gaussian_rdp(ctx: Any, alpha: Exact, sigma: Exact, sensitivity: Exact) -> Any:
    """α Δ² / (2σ²): the RDP of order α of the Gaussian mechanism with L2 sensitivity Δ (Mironov [Mir17] Prop. 7)."""
    s = ctx.num(sensitivity)
    sg = ctx.num(sigma)
    return ctx.num(alpha) * s * s / (2 * sg * sg)


def gnmax_rdp(ctx: Any, alpha: Exact, sigma: Exact) -> Any:
    """α/σ², the RDP of order α of GNMax (PATE 2018 §4.1: a vote histogram moves by 1 in two classes)."""
    sg = ctx.num(sigma)
    return ctx.num(alpha) / (sg * sg)


def mironov_eps(ctx: Any, alpha: Any, eps_rdp: Any, delta: Any) -> Any:
    """ρ + log(1/δ)/(α − 1): (α, ρ)-RDP implies this ε at δ ([Mir17] Prop. 3; [PSMRTE18, Thm 5]); >= ρ.

    ``alpha`` must exceed 1 (DaRRM's Theorem D.1 prints "λ ≥ 1", which divides by zero at λ = 1).
    """
    return ctx.num(eps_rdp) - ctx.log(ctx.num(delta)) / (ctx.num(alpha) - 1)


#: the evaluator of ``rdp.to_dp.eps`` (Mironov's conversion), under the name other modules import
rdp_to_dp_eps = mironov_eps


def cks_eps_raw(ctx: Any, alpha: Any, eps_rdp: Any, delta: Any) -> Any:
    """ρ + log(1 − 1/α) − (log δ + log α)/(α − 1), not clamped (it may be negative); α > 1 ([CKS20, Prop. 12])."""
    a = ctx.num(alpha)
    return ctx.num(eps_rdp) + ctx.log1p(-1 / a) - (ctx.log(ctx.num(delta)) + ctx.log(a)) / (a - 1)


def cks_eps(ctx: Any, alpha: Any, eps_rdp: Any, delta: Any) -> Any:
    """max(0, [CKS20, Prop. 12]'s ε): a valid ε for every (α, ρ)-RDP mechanism at δ."""
    return ctx.max(ctx.exact(0), cks_eps_raw(ctx, alpha, eps_rdp, delta))


def cks_delta_raw(ctx: Any, alpha: Any, eps_rdp: Any, eps: Any) -> Any:
    """exp((α − 1)(ρ − ε)) (1 − 1/α)^α / (α − 1), not clamped at 1: [CKS20, Prop. 12] solved for δ at ε."""
    a = ctx.num(alpha)
    am1 = a - 1
    return ctx.exp(am1 * (ctx.num(eps_rdp) - ctx.num(eps)) + a * ctx.log1p(-1 / a) - ctx.log(am1))


#: the Rényi order α > 1 (the vocabulary's ``alpha``; ``lam`` is accepted as its legacy name)
ALPHA = real("alpha", 1, lo_open=True, doc="Renyi order alpha > 1")
_SIGMA = real("sigma", 0, lo_open=True, doc="Gaussian noise standard deviation")

QUANTITIES = [
    Quantity(
        "rdp.gaussian.eps",
        (ALPHA, _SIGMA, real("sensitivity", 0, lo_open=True)),
        gaussian_rdp,
        "Mironov 2017, Prop. 7",
        "RDP of order alpha of the Gaussian mechanism",
        float=lambda **kw: gaussian_rdp(FLOAT, **kw),
    ),
    Quantity(
        "rdp.gnmax.eps",
        (ALPHA, _SIGMA),
        gnmax_rdp,
        "Papernot et al. 2018 (PATE), §4.1; DaRRM App. D.2.1",
        "RDP alpha/sigma^2 of GNMax",
        float=lambda **kw: gnmax_rdp(FLOAT, **kw),
    ),
    Quantity(
        "rdp.to_dp.eps",
        (ALPHA, real("eps_rdp", 0), probability("delta", zero=False)),
        mironov_eps,
        "Mironov 2017, Prop. 3; PATE Thm 5; DaRRM Thm D.1",
        "eps_rdp + log(1/delta)/(alpha - 1)",
        float=lambda **kw: mironov_eps(FLOAT, **kw),
    ),
]
