"""Composition theory shared by several papers: basic, advanced (DRV), general ([KOV15, Thm 3.4]), optimal, RDP.

One module per idea: ``basic`` (simple and DRV), ``general`` ([KOV15, Thm 3.4]), ``kov`` (optimal homogeneous δ(ε_g)
and ε_g(δ)), ``mv`` (optimal heterogeneous δ), ``identities`` (exact identities between them), ``rdp``;
``optimal`` gathers the public functions of ``kov`` and ``mv``.

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`; ``CLAIMS`` lists the
bundled claims. The registry (:mod:`dpcert.engine.registry`) collects both from here.

Public functions (imported on first use): :func:`kov_delta` and :func:`kov_eps` (the optimal homogeneous
composition, δ(ε_g) and its inverse ε_g(δ), certified), :func:`mv_delta` (the optimal heterogeneous δ).
"""

from dpcert.composition.declaration import DECLARATION

__all__ = [
    "QUANTITIES",
    "CLAIMS",
    "kov_delta",
    "kov_eps",
    "mv_delta",
]

_EXPORTS = {
    "kov_delta": "optimal",
    "kov_eps": "optimal",
    "mv_delta": "optimal",
}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public functions are built on first
# access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
