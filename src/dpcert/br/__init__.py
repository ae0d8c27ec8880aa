"""Bounded-range composition (Dong–Durfee–Rogers, ICML 2020): the optimal composition of exponential mechanisms.

Modules: ``rr`` (generalized randomized response, Definition 2.4), ``nonadaptive`` (Theorem 3 and its inverse,
certified), ``bounds`` (OptKL, MGF, DR19, DRV10, zCDP upper bounds as eps_g(delta), capped at k eps; the
eps-DP and eps/2-DP optima are the foundation's ``composition.kov.eps``), ``adaptive`` (certified bracket of the
adaptive optimum by the lattice method), ``heterogeneous`` (Lemma 3.1: a certified lower/upper bracket for small k),
``queries`` (query counts within a budget), ``claims`` (notes §7 claims),
``cli`` (``dpcert br ...``).

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`; ``CLAIMS`` lists the
bundled claims. The registry (:mod:`dpcert.engine.registry`) collects both from here. Both are built on first
access (PEP 562), so that importing ``dpcert.br.cli`` for ``dpcert --help`` loads nothing heavy.
"""

from dpcert.core.tables import lazy_tables

__all__ = ["QUANTITIES", "CLAIMS"]

# built on first access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = lazy_tables(
    __name__, quantities=("nonadaptive", "bounds", "adaptive"), claims=("claims", "adaptive_claims")
)
