"""Bounded-range composition (Dong–Durfee–Rogers, ICML 2020): the optimal composition of exponential mechanisms.

Modules: ``rr`` (generalized randomized response, Definition 2.4), ``nonadaptive`` (Theorem 3 and its inverse,
certified), ``bounds`` (OptKL, MGF, DR19, DRV10, zCDP upper bounds as eps_g(delta), capped at k eps; the
eps-DP and eps/2-DP optima are the foundation's ``composition.kov.eps``), ``adaptive`` (certified bracket of the
adaptive optimum by the lattice method), ``queries`` (query counts within a budget), ``claims`` (notes §7 claims).

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`; ``CLAIMS`` lists the
bundled claims. The registry (:mod:`dpcert.engine.registry`) collects both from here.
"""

from dpcert.br import bounds, nonadaptive
from dpcert.core.quantity import Quantity

QUANTITIES: dict[str, Quantity] = {q.name: q for mod in (nonadaptive, bounds) for q in mod.QUANTITIES}

from dpcert.br import claims as _claims  # noqa: E402  (its claims look quantities up in QUANTITIES)

CLAIMS = list(_claims.CLAIMS)

__all__ = ["QUANTITIES", "CLAIMS"]
