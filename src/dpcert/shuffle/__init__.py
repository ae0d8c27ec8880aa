"""Shuffle-model RDP (Girgis, Data, Diggavi, Suresh, Kairouz, CCS 2021), certified.

* :mod:`dpcert.shuffle.bounds`: the paper's bounds (Theorems 1–3, Corollaries 1–2, eqs. (8) and (10)), in balls
  and in vectorised float64, with n̄ decided exactly;
* :mod:`dpcert.shuffle.pair`: the exact RDP of the binary randomized-response pair behind Theorem 3, both orders.
"""

from dpcert.core.quantity import Quantity
from dpcert.shuffle import quantities as _quantities

QUANTITIES: dict[str, Quantity] = {q.name: q for q in _quantities.QUANTITIES}

from dpcert.shuffle import claims as _claims  # noqa: E402  (its claims look quantities up in QUANTITIES)

CLAIMS = list(_claims.CLAIMS)

__all__ = ["QUANTITIES", "CLAIMS"]
