"""Composition theory shared by several papers: basic, advanced (DRV), general (KOV Thm 3.4), RDP.

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`.
"""

from dpcert.composition import basic, general, optimal, rdp
from dpcert.core.quantity import Quantity

QUANTITIES: dict[str, Quantity] = {q.name: q for mod in (basic, general, optimal, rdp) for q in mod.QUANTITIES}

__all__ = ["QUANTITIES"]
