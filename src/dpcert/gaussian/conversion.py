"""RDP → (ε, δ)-DP: the conversion of Canonne–Kamath–Steinke [CKS20] (= Balle et al. [BBGHS20] Thm 21), never negative.

(α, ρ)-RDP with α > 1 implies (ε, δ)-DP for ε = ρ + log(1 − 1/α) − (log δ + log α)/(α − 1) (CKS, "The Discrete
Gaussian for Differential Privacy", arXiv 2004.00010 v4, Prop. 12 [CKS20]; the same expression as Balle–Barthe–
Gaboardi–Hsu–Sato, AISTATS 2020, Thm 21). It is always below Mironov's [Mir17] ρ + log(1/δ)/(α − 1) (Mironov, CSF 2017
[Mir17],
Prop. 3; :func:`dpcert.composition.rdp.rdp_to_dp_eps`), since both extra terms are negative.

Why max(0, ·) is proved, not a clamp: the proof bounds (z − e^ε)₊ <= z^α (α−1)^{α−1} / (α^α e^{(α−1)ε}) for every
z >= 0, which holds for every real ε, negative ones included; so the formula's ε, even negative, is a valid ε, and
δ(ε) is non-increasing, so δ(0) <= δ(ε_CKS) <= δ when ε_CKS < 0: (0, δ)-DP holds
(docs/derivations/gaussian.md#conversion-never-negative;
dp_accounting clamps the same way, opacus#585 is the unclamped report).

References:
    C. Canonne, G. Kamath, T. Steinke, arXiv 2004.00010 v4, Prop. 12 [CKS20]; B. Balle, G. Barthe, M. Gaboardi, J. Hsu,
    T. Sato, AISTATS 2020, Thm 21; I. Mironov, CSF 2017 [Mir17], Prop. 3.
"""

from __future__ import annotations

from typing import Any

from dpcert.arith.context import FLOAT
from dpcert.core.params import probability, real
from dpcert.core.quantity import Quantity

__all__ = ["cks_eps_raw", "cks_eps", "mironov_eps", "RDP_TO_DP_CKS", "QUANTITIES"]


def cks_eps_raw(ctx: Any, lam: Any, eps_rdp: Any, delta: Any) -> Any:
    """ρ + log(1 − 1/α) − (log δ + log α)/(α − 1), not clamped (it may be negative); α > 1."""
    a = ctx.num(lam)
    return ctx.num(eps_rdp) + ctx.log1p(-1 / a) - (ctx.log(ctx.num(delta)) + ctx.log(a)) / (a - 1)


def cks_eps(ctx: Any, lam: Any, eps_rdp: Any, delta: Any) -> Any:
    """max(0, [CKS20, Prop. 12]'s ε): a valid ε for every (α, ρ)-RDP mechanism at δ."""
    return ctx.max(ctx.exact(0), cks_eps_raw(ctx, lam, eps_rdp, delta))


def mironov_eps(ctx: Any, lam: Any, eps_rdp: Any, delta: Any) -> Any:
    """ρ + log(1/δ)/(α − 1) (Mironov [Mir17] Prop. 3), >= ρ >= 0."""
    return ctx.num(eps_rdp) - ctx.log(ctx.num(delta)) / (ctx.num(lam) - 1)


RDP_TO_DP_CKS = Quantity(
    "rdp.to_dp.eps_cks",
    (
        real("lam", 1, lo_open=True, doc="Renyi order lambda > 1"),
        real("eps_rdp", 0, doc="the RDP at order lambda"),
        probability("delta", zero=False),
    ),
    cks_eps,
    "Canonne–Kamath–Steinke arXiv 2004.00010 Prop. 12 (= Balle et al. AISTATS 2020 Thm 21); max(0, .) as proved",
    "max(0, eps_rdp + log(1 - 1/lam) - (log delta + log lam)/(lam - 1))",
    float=lambda **kw: cks_eps(FLOAT, **kw),
)

QUANTITIES = [RDP_TO_DP_CKS]
