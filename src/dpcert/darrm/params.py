"""The γ parameter of the DaRRM quantities: a name or a table path (a core choice parameter with files)."""

from __future__ import annotations

from dpcert.core.params import Param, choice
from dpcert.darrm.gamma import NAMED

__all__ = ["GAMMA_FILES", "gamma_param"]

#: What a γ table file holds (used in error messages).
GAMMA_FILES = "a γ table (CSV 'l,gamma' or a JSON list)"


def gamma_param(name: str = "gamma", doc: str = "") -> Param:
    """The γ parameter: one of :data:`~dpcert.darrm.gamma.NAMED` or the path of an existing γ table file."""
    return choice(name, NAMED, files=GAMMA_FILES, doc=doc)
