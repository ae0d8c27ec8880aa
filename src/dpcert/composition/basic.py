"""Simple (basic) composition and the advanced composition theorem of Dwork–Rothblum–Vadhan [DRV10].

References:
    C. Dwork, A. Roth, *The Algorithmic Foundations of Differential Privacy* (2014) [DR14], Theorem 3.16 (basic
    composition) and Theorem 3.20 (advanced composition, Dwork–Rothblum–Vadhan 2010) [DRV10]. DaRRM (Jiang–Zhang–Joshi
    [JZJ24])
    Theorem 2.2 restates basic composition.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpcert.arith.context import FLOAT
from dpcert.arith.exact import Exact
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity

__all__ = ["simple_eps", "simple_delta", "drv_eps", "drv_delta", "QUANTITIES"]


def simple_eps(k: int, eps: Exact) -> Fraction:
    """k·ε, the ε of the k-fold (adaptive) composition of ε-DP mechanisms (basic composition). Exact."""
    return k * eps.value


def simple_delta(k: int, delta: Exact) -> Fraction:
    """k·δ, the δ of basic composition. Exact; a value ≥ 1 is a vacuous (but true) guarantee."""
    return k * delta.value


def drv_eps(ctx: Any, k: int, eps: Exact, delta_prime: Exact) -> Any:
    """ε' = sqrt(2k ln(1/δ')) ε + k ε (e^ε − 1) (advanced composition, [DR14, Thm 3.20]).

    The k-fold adaptive composition of (ε, δ)-DP mechanisms is (ε', kδ + δ')-DP.
    """
    e = ctx.num(eps)
    return ctx.sqrt(2 * k * -ctx.log(ctx.num(delta_prime))) * e + k * e * ctx.expm1(e)


def drv_delta(k: int, delta: Exact, delta_prime: Exact) -> Fraction:
    """kδ + δ' (advanced composition). Exact."""
    return k * delta.value + delta_prime.value


_K = integer("k", 1, doc="number of composed mechanisms")
_EPS = real("eps", 0, doc="per-mechanism epsilon")
_DELTA = probability("delta", doc="per-mechanism delta")
_DP = probability("delta_prime", zero=False, doc="the slack delta' of advanced composition")

QUANTITIES = [
    Quantity(
        "composition.simple.eps",
        (_K, _EPS),
        lambda ctx, k, eps: simple_eps(k, eps),
        "Dwork–Roth Thm 3.16; DaRRM Thm 2.2",
        "k·eps of basic composition (exact)",
        exact=True,
    ),
    Quantity(
        "composition.simple.delta",
        (_K, _DELTA),
        lambda ctx, k, delta: simple_delta(k, delta),
        "Dwork–Roth Thm 3.16; DaRRM Thm 2.2",
        "k·delta of basic composition (exact)",
        exact=True,
    ),
    Quantity(
        "composition.drv.eps",
        (_K, _EPS, _DP),
        drv_eps,
        "Dwork–Rothblum–Vadhan 2010; Dwork–Roth Thm 3.20",
        "advanced composition: sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1)",
        float=lambda **kw: drv_eps(FLOAT, **kw),
    ),
    Quantity(
        "composition.drv.delta",
        (_K, _DELTA, _DP),
        lambda ctx, **kw: drv_delta(**kw),
        "Dwork–Rothblum–Vadhan 2010; Dwork–Roth Thm 3.20",
        "advanced composition: k delta + delta' (exact)",
        exact=True,
    ),
]
