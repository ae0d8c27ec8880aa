"""The γ parameter of the DaRRM quantities: a name or a table path (a string-valued parameter).

The core :class:`~dpcert.core.params.Param` knows integers and reals only; this subclass parses a string
(``sub``, ``dsub``, ``max``, ``const`` or the path of an existing table file) and is otherwise a Param.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpcert.core.params import Param
from dpcert.darrm.gamma import NAMED
from dpcert.errors import InvalidParameter

__all__ = ["GammaParam", "gamma_param"]


@dataclass(frozen=True)
class GammaParam(Param):
    """A γ: one of :data:`~dpcert.darrm.gamma.NAMED` or a path to a CSV/JSON table."""

    def allowed(self) -> str:
        return f"one of {', '.join(NAMED)} or the path of a γ table (CSV 'l,gamma' or a JSON list)"

    def parse(self, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise InvalidParameter(self.name, value, self.allowed())
        if value in NAMED or Path(value).is_file():
            return value
        raise InvalidParameter(self.name, value, self.allowed())


def gamma_param(name: str = "gamma", doc: str = "") -> GammaParam:
    """The γ parameter (kind ``"str"``)."""
    return GammaParam(name, "str", doc=doc)  # type: ignore[arg-type]
