"""The registry: every named quantity and every bundled claim, collected from the declared paper packages.

A paper package is a subpackage of dpcert with a ``declaration.py`` holding its
:class:`~dpcert.core.packages.PackageDeclaration`; :func:`declarations` finds them by walking dpcert's
subpackages, so no list names the packages. Each exports ``QUANTITIES`` (name -> Quantity) and ``CLAIMS`` (a list
of claims).
"""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil
import sys
from functools import lru_cache

from dpcert.core.claim import Claim
from dpcert.core.packages import PackageDeclaration
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter, UnknownClaim

__all__ = ["declarations", "packages", "quantities", "claims", "quantity", "select", "matches"]

#: the module of a paper package that holds its ``DECLARATION``
DECLARATION_MODULE = "declaration"


@lru_cache(maxsize=1)
def declarations() -> tuple[PackageDeclaration, ...]:
    """Every paper package's declaration, in the order of their ranks.

    A subpackage of dpcert is a paper package when it has a ``declaration`` module; the subpackages are found on
    ``dpcert.__path__`` without importing them, and only the paper packages are imported (their ``__init__`` and
    declaration import none of their mathematics).

    Raises:
        RuntimeError: for a declaration that names another package, or two packages of the same rank.
    """
    found: list[PackageDeclaration] = []
    # the search path of the dpcert package, which Python imported before this module; read, not imported again
    # (the top-level package is the user layer, above the engine)
    for info in pkgutil.iter_modules(sys.modules["dpcert"].__path__):
        if not info.ispkg:
            continue
        spec = info.module_finder.find_spec(f"dpcert.{info.name}", None)  # type: ignore[call-arg]
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        if not any(m.name == DECLARATION_MODULE for m in pkgutil.iter_modules(locations)):
            continue
        module = importlib.import_module(f"dpcert.{info.name}.{DECLARATION_MODULE}")
        decl = getattr(module, "DECLARATION", None)
        if not isinstance(decl, PackageDeclaration) or decl.package != f"dpcert.{info.name}":
            raise RuntimeError(f"{module.__name__}.DECLARATION must be the PackageDeclaration of dpcert.{info.name}")
        found.append(decl)
    found.sort(key=lambda d: d.rank)
    for a, b in zip(found, found[1:], strict=False):
        if a.rank == b.rank:
            raise RuntimeError(f"{a.package} and {b.package} declare the same rank {a.rank}")
    return tuple(found)


def packages() -> tuple[str, ...]:
    """The dotted names of the paper packages, in the order of their ranks (from :func:`declarations`)."""
    return tuple(d.package for d in declarations())


#: The paper packages' dotted names, derived from their declarations (``dpcert`` adds each ``<package>.cli``).
PACKAGES: tuple[str, ...] = packages()


@lru_cache(maxsize=1)
def quantities() -> dict[str, Quantity]:
    """All named quantities, by name."""
    out: dict[str, Quantity] = {}
    for decl in declarations():
        for name, q in importlib.import_module(decl.package).QUANTITIES.items():
            if name in out:
                raise RuntimeError(f"quantity {name} registered twice")
            if name.split(".", 1)[0] not in decl.prefixes:
                raise RuntimeError(f"quantity {name} of {decl.package}: its prefix is not among the declared prefixes")
            out[name] = q
    return out


@lru_cache(maxsize=1)
def claims() -> dict[str, Claim]:
    """All bundled claims, by id."""
    out: dict[str, Claim] = {}
    for decl in declarations():
        for c in importlib.import_module(decl.package).CLAIMS:
            if c.id in out:
                raise RuntimeError(f"claim {c.id} registered twice")
            if c.id.split(".", 1)[0] != decl.name:
                raise RuntimeError(f"claim {c.id} of {decl.package}: a package's claim ids start with {decl.name}.")
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
