"""The "general composition" theorem of Kairouz–Oh–Viswanath [KOV15] (2015, Theorem 3.4), as DaRRM uses it.

For ε > 0, δ ∈ [0, 1] and δ' ∈ (0, 1], the k-fold adaptive composition of (ε, δ)-DP mechanisms is
(ε', 1 − (1 − δ)^k (1 − δ'))-DP with

    ε' = min{ kε,
              kε·tanh(ε/2) + ε·sqrt(2k·log(e + sqrt(kε²)/δ')),
              kε·tanh(ε/2) + ε·sqrt(2k·log(1/δ')) },

where tanh(ε/2) = (e^ε − 1)/(e^ε + 1) and e inside the log is Euler's number.

References:
    P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem for Differential Privacy", ICML 2015, Thm 3.4 [KOV15].
    S. Jiang, Q. Zhang, G. Joshi, "Optimized Tradeoffs for Private Prediction with Majority Ensembling" (DaRRM),
    TMLR [JZJ24], Theorem 2.3 and Tables 2, 3, 5, 7, 9.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dpcert.arith.context import FLOAT
from dpcert.arith.exact import Exact
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity

__all__ = ["general_eps_terms", "general_eps", "general_delta", "general_delta_float", "QUANTITIES"]


def general_eps_terms(ctx: Any, k: int, eps: Exact, delta_prime: Exact) -> tuple[Any, Any, Any]:
    """The three candidates of [KOV15, Thm 3.4], in order: kε, the log(e + …) term, the log(1/δ') term."""
    e = ctx.num(eps)
    dp = ctx.num(delta_prime)
    drift = k * e * ctx.expm1(e) / (ctx.exp(e) + 1)
    t1 = ctx.exact(k * eps.value)  # rational: kept exact so that eps' = k*eps is enclosed exactly
    t2 = drift + e * ctx.sqrt(2 * k * ctx.log(ctx.e() + ctx.sqrt(ctx.num(k)) * e / dp))
    t3 = drift + e * ctx.sqrt(2 * k * -ctx.log(dp))
    return t1, t2, t3


def general_eps(ctx: Any, k: int, eps: Exact, delta_prime: Exact) -> Any:
    """ε' of [KOV15, Thm 3.4] (the minimum of the three candidates)."""
    return ctx.min(*general_eps_terms(ctx, k, eps, delta_prime))


def general_delta(k: int, delta: Exact, delta_prime: Exact) -> Fraction:
    """1 − (1 − δ)^k (1 − δ'), the total δ of [KOV15, Thm 3.4]. Exact rational."""
    return 1 - (1 - delta.value) ** k * (1 - delta_prime.value)


def general_delta_float(k: int, delta: Exact, delta_prime: Exact) -> float:
    """float64 1 − (1 − δ)^k (1 − δ') in log space, −expm1(k·log1p(−δ) + log1p(−δ')): an independent evaluation
    (no cancellation for tiny δ, where the direct form loses every digit)."""
    return -math.expm1(k * math.log1p(-float(delta)) + math.log1p(-float(delta_prime)))


_K = integer("k", 1, doc="number of composed mechanisms")
_EPS = real("eps", 0, lo_open=True, doc="per-mechanism epsilon (> 0 in KOV Thm 3.4)")
_DELTA = probability("delta", doc="per-mechanism delta")
_DP = probability("delta_prime", zero=False, one=True, doc="the slack delta' in (0, 1]")

QUANTITIES = [
    Quantity(
        "composition.general.eps",
        (_K, _EPS, _DP),
        general_eps,
        "Kairouz–Oh–Viswanath 2015, Thm 3.4; DaRRM Thm 2.3",
        "eps' of the general composition theorem",
        float=lambda **kw: general_eps(FLOAT, **kw),
    ),
    Quantity(
        "composition.general.delta",
        (_K, _DELTA, _DP),
        lambda ctx, **kw: general_delta(**kw),
        "Kairouz–Oh–Viswanath 2015, Thm 3.4; DaRRM Thm 2.3",
        "1 - (1 - delta)^k (1 - delta') of the general composition theorem (exact)",
        float=lambda **kw: general_delta_float(**kw),
        exact=True,
    ),
]
