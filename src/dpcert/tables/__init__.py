"""Parameter tables: certify every row of someone's table of numbers (``dpcert table check FILE``).

A table (CSV, JSON or TOML; the format is in ``docs/tables.md``) names, on each row, a quantity, its exact inputs,
the value the table prints and how it is meant (an upper bound, a lower bound or the printed digits). Each row
becomes a :class:`~dpcert.core.claim.QuantityClaim` and gets CERTIFIED / REFUTED / UNDECIDED, or ERROR with its line
number when the row is malformed. The public names are imported on first access, so that ``dpcert --help`` (which
imports :mod:`dpcert.tables.cli`) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["RawRow", "read_table", "row_claims", "check_table", "TableReport", "RowResult", "template"]

_HOME = {
    "RawRow": "reader",
    "read_table": "reader",
    "row_claims": "check",
    "check_table": "check",
    "TableReport": "check",
    "RowResult": "check",
    "template": "template",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
