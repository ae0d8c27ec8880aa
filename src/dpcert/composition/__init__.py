"""Composition theory shared by several papers: basic, advanced (DRV), general (KOV Thm 3.4), RDP.

``QUANTITIES`` maps each quantity's name to its :class:`~dpcert.core.quantity.Quantity`.
"""

from dpcert.composition import basic, general, rdp
from dpcert.core.quantity import Quantity

QUANTITIES: dict[str, Quantity] = {q.name: q for mod in (basic, general, rdp) for q in mod.QUANTITIES}

__all__ = ["QUANTITIES"]
