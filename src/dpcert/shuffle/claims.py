"""Claims of the shuffle-model RDP paper (notes shuffle_rdp §5 and §7)."""

from __future__ import annotations

from dpcert.core.claim import Claim

__all__ = ["CLAIMS"]

CLAIMS: list[Claim] = []
