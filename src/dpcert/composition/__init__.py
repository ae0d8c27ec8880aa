"""Composition theory shared by several papers: basic, advanced (DRV), general (KOV Thm 3.4), optimal, RDP.

One module per idea: ``basic`` (simple and DRV), ``general`` (KOV Thm 3.4), ``kov`` (optimal homogeneous δ(ε_g)
and ε_g(δ)), ``mv`` (optimal heterogeneous δ), ``identities`` (exact identities between them), ``rdp``;
``optimal`` gathers the public functions of ``kov`` and ``mv``.

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`; ``CLAIMS`` lists the
bundled claims. The registry (:mod:`dpcert.engine.registry`) collects both from here.
"""

from dpcert.composition import basic, general, identities, kov, mv, rdp
from dpcert.core.quantity import Quantity

QUANTITIES: dict[str, Quantity] = {q.name: q for mod in (basic, general, kov, mv, rdp) for q in mod.QUANTITIES}

from dpcert.composition import claims as _claims  # noqa: E402  (its claims look quantities up in QUANTITIES)

CLAIMS = [*identities.CLAIMS, *kov.CLAIMS, *mv.CLAIMS, *_claims.CLAIMS]

__all__ = ["QUANTITIES", "CLAIMS"]
