"""DaRRM's privacy accounting with general composition (Section 6.2, Appendix D.1.1).

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

The paper expresses budgets as multiples of the per-mechanism ε: the privacy allowance m of D.1.1 and the RR
parameter τ are both ε'/ε, where ε' is the general-composition ε ([KOV15, Thm 3.4], [JZJ24, Thm 2.3]) of M (for m) or
K (for τ) mechanisms. λ and the overall δ are the matching 1 − (1 − Δ)^k (1 − δ').

References:
    S. Jiang, Q. Zhang, G. Joshi, DaRRM (TMLR), Theorem 2.3, Appendix D.1.1 and Table 3.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpcert.arith.context import FLOAT
from dpcert.arith.exact import Exact
from dpcert.composition.general import general_eps
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity

__all__ = ["allowance", "ALLOWANCE", "QUANTITIES"]


def allowance(ctx: Any, k: int, eps: Exact, delta_prime: Exact) -> Any:
    """ε'/ε for the k-fold general composition: DaRRM's privacy allowance m (k = M) and RR's τ (k = K)."""
    eps_prime = general_eps(ctx, k, eps, delta_prime)
    if isinstance(eps_prime, Fraction):  # ε' = kε exactly, so the allowance is exactly k
        return eps_prime / eps.value
    return eps_prime / ctx.num(eps)


#: ε'/ε of the k-fold general composition (DaRRM's m, RR's τ); Table 3's claims enclose it directly.
ALLOWANCE = Quantity(
    "darrm.general.allowance",
    (integer("k", 1), real("eps", 0, lo_open=True), probability("delta_prime", zero=False, one=True)),
    allowance,
    "DaRRM App. D.1.1 (Table 3: m and tau)",
    "eps'/eps of k-fold general composition (privacy allowance m, RR tau)",
    float=lambda **kw: allowance(FLOAT, **kw),
)

QUANTITIES = [ALLOWANCE]
