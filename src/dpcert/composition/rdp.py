"""Rényi DP of the Gaussian mechanism and the RDP → (ε, δ)-DP conversion used with it.

References:
    I. Mironov [Mir17], "Rényi Differential Privacy", CSF 2017: Prop. 3 (conversion) and Prop. 7 / Table 2 (Gaussian).
    N. Papernot et al. [PSMRTE18], "Scalable Private Learning with PATE", ICLR 2018: GNMax is (λ, λ/σ²)-RDP (§4.1) and
    Theorem 5 (= Mironov [Mir17] Prop. 3); restated as Theorem D.1 in DaRRM (Jiang–Zhang–Joshi [JZJ24]), Appendix D.2.1.
"""

from __future__ import annotations

from typing import Any

from dpcert.arith.context import FLOAT
from dpcert.arith.exact import Exact
from dpcert.core.params import probability, real
from dpcert.core.quantity import Quantity

__all__ = ["gaussian_rdp", "gnmax_rdp", "rdp_to_dp_eps", "QUANTITIES"]


def gaussian_rdp(ctx: Any, lam: Exact, sigma: Exact, sensitivity: Exact) -> Any:
    """λ Δ² / (2σ²): the RDP of order λ of the Gaussian mechanism with L2 sensitivity Δ (Mironov [Mir17] Prop. 7)."""
    s = ctx.num(sensitivity)
    sg = ctx.num(sigma)
    return ctx.num(lam) * s * s / (2 * sg * sg)


def gnmax_rdp(ctx: Any, lam: Exact, sigma: Exact) -> Any:
    """λ/σ², the RDP of order λ of GNMax (PATE 2018 §4.1: a vote histogram moves by 1 in two classes)."""
    sg = ctx.num(sigma)
    return ctx.num(lam) / (sg * sg)


def rdp_to_dp_eps(ctx: Any, lam: Any, eps_rdp: Any, delta: Any) -> Any:
    """ε_RDP + log(1/δ)/(λ − 1): (λ, ε_RDP)-RDP implies this ε at δ (Mironov [Mir17] Prop. 3; [PSMRTE18, Thm 5]).

    ``lam`` must exceed 1 (DaRRM's Theorem D.1 prints "λ ≥ 1", which divides by zero at λ = 1).
    """
    return ctx.num(eps_rdp) - ctx.log(ctx.num(delta)) / (ctx.num(lam) - 1)


_LAM = real("lam", 1, lo_open=True, doc="Rényi order lambda > 1")
_SIGMA = real("sigma", 0, lo_open=True, doc="Gaussian noise scale")

QUANTITIES = [
    Quantity(
        "rdp.gaussian.eps",
        (_LAM, _SIGMA, real("sensitivity", 0, lo_open=True)),
        gaussian_rdp,
        "Mironov 2017, Prop. 7",
        "RDP of order lam of the Gaussian mechanism",
        float=lambda **kw: gaussian_rdp(FLOAT, **kw),
    ),
    Quantity(
        "rdp.gnmax.eps",
        (_LAM, _SIGMA),
        gnmax_rdp,
        "Papernot et al. 2018 (PATE), §4.1; DaRRM App. D.2.1",
        "RDP lam/sigma^2 of GNMax",
        float=lambda **kw: gnmax_rdp(FLOAT, **kw),
    ),
    Quantity(
        "rdp.to_dp.eps",
        (_LAM, real("eps_rdp", 0), probability("delta", zero=False)),
        rdp_to_dp_eps,
        "Mironov 2017, Prop. 3; PATE Thm 5; DaRRM Thm D.1",
        "eps_rdp + log(1/delta)/(lam - 1)",
        float=lambda **kw: rdp_to_dp_eps(FLOAT, **kw),
    ),
]
