"""Bounded-range composition (Dong–Durfee–Rogers, ICML 2020): the optimal composition of exponential mechanisms.

Modules: ``rr`` (generalized randomized response, Definition 2.4), ``nonadaptive`` (Theorem 3 and its inverse,
certified), ``claims`` (the bundled claims of notes §7).

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`; ``CLAIMS`` lists the
bundled claims. The registry (:mod:`dpcert.engine.registry`) collects both from here.
"""

from dpcert.br import nonadaptive
from dpcert.core.quantity import Quantity

QUANTITIES: dict[str, Quantity] = {q.name: q for mod in (nonadaptive,) for q in mod.QUANTITIES}

from dpcert.br import claims as _claims  # noqa: E402  (its claims look quantities up in QUANTITIES)

CLAIMS = list(_claims.CLAIMS)

__all__ = ["QUANTITIES", "CLAIMS"]
