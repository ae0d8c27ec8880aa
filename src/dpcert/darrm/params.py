"""The γ parameter of the DaRRM quantities: a name or a table (a core choice parameter with files).

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

A table given as a file path parses to the tuple of its exact values (:func:`~dpcert.darrm.gamma.read_table`),
and that tuple, not the path, is what certificates record.
"""

from __future__ import annotations

from dpcert.core.params import Param, choice
from dpcert.darrm.gamma import NAMED, read_table

__all__ = ["GAMMA_FILES", "gamma_param"]

#: What a γ table file holds (used in error messages).
GAMMA_FILES = "a γ table (CSV 'l,gamma' or a JSON list)"


def gamma_param(name: str = "gamma", doc: str = "") -> Param:
    """The γ parameter: one of :data:`~dpcert.darrm.gamma.NAMED`, or a γ table (a file path, or its values)."""
    return choice(name, NAMED, files=GAMMA_FILES, table=read_table, doc=doc)
