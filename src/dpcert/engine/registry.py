"""The registry: every named quantity and every bundled claim, collected explicitly from the paper packages."""

from __future__ import annotations

import fnmatch
import importlib
from functools import lru_cache

from dpcert.core.claim import Claim
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter, UnknownClaim

__all__ = ["quantities", "claims", "quantity", "select", "matches"]


#: The paper packages. Each exports ``QUANTITIES`` (name -> Quantity) and ``CLAIMS`` (a list of claims); adding a
#: paper to dpcert is one line here.
PACKAGES: tuple[str, ...] = (
    "dpcert.composition",
    "dpcert.darrm",
    "dpcert.sml",
    "dpcert.shuffle",
    "dpcert.br",
    "dpcert.gaussian",
)


def _packages() -> list:
    return [importlib.import_module(name) for name in PACKAGES]


@lru_cache(maxsize=1)
def quantities() -> dict[str, Quantity]:
    """All named quantities, by name."""
    out: dict[str, Quantity] = {}
    for pkg in _packages():
        for name, q in pkg.QUANTITIES.items():
            if name in out:
                raise RuntimeError(f"quantity {name} registered twice")
            out[name] = q
    return out


@lru_cache(maxsize=1)
def claims() -> dict[str, Claim]:
    """All bundled claims, by id."""
    out: dict[str, Claim] = {}
    for pkg in _packages():
        for c in pkg.CLAIMS:
            if c.id in out:
                raise RuntimeError(f"claim {c.id} registered twice")
            out[c.id] = c
    return out


def quantity(name: str) -> Quantity:
    """The quantity called ``name``.

    Raises:
        InvalidParameter: for an unknown name.
    """
    table = quantities()
    if name not in table:
        close = [n for n in table if n.split(".")[0] == name.split(".")[0]]
        hint = f"a registered quantity (see `dpcert quantities`){'; e.g. ' + ', '.join(close[:4]) if close else ''}"
        raise InvalidParameter("quantity", name, hint)
    return table[name]


def matches(claim_id: str, pattern: str) -> bool:
    """Whether a claim id equals ``pattern`` or matches it as a glob."""
    return claim_id == pattern or fnmatch.fnmatchcase(claim_id, pattern)


def select(pattern: str) -> list[Claim]:
    """Claims whose id matches a glob (``darrm.table2.*``) or equals ``pattern``.

    Raises:
        UnknownClaim: when nothing matches.
    """
    table = claims()
    if pattern in table:
        return [table[pattern]]
    hits = [c for cid, c in table.items() if matches(cid, pattern)]
    if not hits:
        raise UnknownClaim(pattern, sorted({cid.split(".")[0] for cid in table}))
    return hits
