"""A paper package's ``QUANTITIES`` and ``CLAIMS``, built on first access.

Every paper package exports ``QUANTITIES`` (name -> :class:`~dpcert.core.quantity.Quantity`) and ``CLAIMS`` (a
list of claims) for the registry. Building them imports the package's mathematics (numpy, scipy, flint), so the
package's ``__init__`` defers it (PEP 562) and importing ``<package>.cli`` for ``dpcert --help`` stays cheap. A
paper package gets its ``__getattr__`` from its declaration, which names the submodules
(:meth:`dpcert.core.packages.PackageDeclaration.lazy_tables`); by hand it reads::

    __getattr__ = lazy_tables(__name__, quantities=("gamma", "privacy"), claims=("claims",),
                              exports={"certify": "privacy"})

``exports`` names the package's public functions (its ``__all__`` besides the tables) and the submodule each
lives in; they too are imported on first access.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_tables"]


def lazy_tables(
    package: str,
    *,
    quantities: Sequence[str],
    claims: Sequence[str],
    exports: Mapping[str, str] | None = None,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` building ``QUANTITIES`` from the ``QUANTITIES`` lists of the ``quantities``
    submodules and ``CLAIMS`` from the ``CLAIMS`` lists of the ``claims`` submodules, once, in that order; and
    resolving each public name of ``exports`` (name -> submodule) from its submodule.

    Raises:
        RuntimeError: when two submodules define a quantity of the same name.
    """

    def build(name: str) -> Any:
        if name == "QUANTITIES":
            table: dict[str, Any] = {}
            for sub in quantities:
                for q in importlib.import_module(f"{package}.{sub}").QUANTITIES:
                    if q.name in table:
                        raise RuntimeError(f"quantity {q.name} defined twice in {package}")
                    table[q.name] = q
            return table
        if name == "CLAIMS":
            return [c for sub in claims for c in importlib.import_module(f"{package}.{sub}").CLAIMS]
        if exports and name in exports:
            return getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __getattr__(name: str) -> Any:
        value = build(name)
        module = sys.modules[package]
        setattr(module, name, value)
        # importing a submodule binds it on the package under its own name: an export of that name
        # (dpcert.darrm.optimize, the function of the module dpcert.darrm.optimize) must win over the module
        for export, sub in (exports or {}).items():
            if export == sub and isinstance(module.__dict__.get(export), types.ModuleType):
                setattr(module, export, getattr(module.__dict__[export], export))
        return value

    return __getattr__
