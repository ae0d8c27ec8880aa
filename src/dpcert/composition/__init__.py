"""Composition theory shared by several papers: basic, advanced (DRV), general (KOV Thm 3.4), optimal, RDP.

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`; ``CLAIMS`` lists the
bundled claims. The registry (:mod:`dpcert.engine.registry`) collects both from here.
"""

from dpcert.composition import basic, general, optimal, rdp
from dpcert.core.quantity import Quantity

QUANTITIES: dict[str, Quantity] = {q.name: q for mod in (basic, general, optimal, rdp) for q in mod.QUANTITIES}

from dpcert.composition import claims as _claims  # noqa: E402  (its claims look quantities up in QUANTITIES)

CLAIMS = [*optimal.CLAIMS, *_claims.CLAIMS]

__all__ = ["QUANTITIES", "CLAIMS"]
