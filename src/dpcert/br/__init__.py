"""Bounded-range composition (Dong–Durfee–Rogers, ICML 2020) [DDR20]: the optimal composition of exponential mechanisms.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

Modules: ``rr`` (generalized randomized response, Definition 2.4), ``nonadaptive`` (Theorem 3 and its inverse,
certified), ``bounds`` (OptKL, MGF, DR19, DRV10, zCDP upper bounds as eps_g(delta), capped at k eps; the
eps-DP and eps/2-DP optima are the foundation's ``composition.kov.eps``), ``adaptive`` (certified bracket of the
adaptive optimum by the lattice method), ``heterogeneous`` (Lemma 3.1: a certified lower/upper bracket for small k),
``queries`` (query counts within a budget), ``claims`` (the claims of [DDR20] and dpcert's readings of them),
``cli`` (``dpcert br ...``).

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`; ``CLAIMS`` lists the
bundled claims. The registry (:mod:`dpcert.engine.registry`) collects both from here. Both are built on first
access (PEP 562), so that importing ``dpcert.br.cli`` for ``dpcert --help`` loads nothing heavy.

Public functions (imported on first use): :func:`nonadaptive_delta`, :func:`nonadaptive_eps` and
:func:`nonadaptive_optimum` (Theorem 3, certified), :func:`adaptive_bracket` (the lattice bracket of the adaptive
optimum at a lattice size) and :func:`adaptive_bracket_within` (the narrowest bracket within a time budget), an
:class:`AdaptiveBracket`; :func:`heterogeneous_bracket` (Lemma 3.1); :func:`query_count` (queries within a budget).
"""

from dpcert.br.declaration import DECLARATION

__all__ = [
    "QUANTITIES",
    "CLAIMS",
    "nonadaptive_delta",
    "nonadaptive_eps",
    "nonadaptive_optimum",
    "adaptive_bracket",
    "adaptive_bracket_within",
    "AdaptiveBracket",
    "heterogeneous_bracket",
    "query_count",
]

_EXPORTS = {
    "nonadaptive_delta": "nonadaptive",
    "nonadaptive_eps": "nonadaptive",
    "nonadaptive_optimum": "nonadaptive",
    "adaptive_bracket": "adaptive",
    "adaptive_bracket_within": "adaptive",
    "AdaptiveBracket": "adaptive",
    "heterogeneous_bracket": "heterogeneous",
    "query_count": "queries",
}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public functions are built on first
# access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
