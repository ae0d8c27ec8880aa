"""A paper package's declaration: the one place that names the package to the rest of dpcert.

Each paper package has a ``declaration.py`` holding ``DECLARATION``, a :class:`PackageDeclaration`. The registry
finds the declarations by walking dpcert's subpackages for that file (:func:`dpcert.engine.registry.declarations`)
and everything that used to be a hand-kept list is derived from them: the registry's packages and their order, the
golden vectors' topics (:mod:`dpcert.vectors.cases`), the claims ``dpcert verify`` runs by default
(:func:`dpcert.engine.manifest.default_entries`), the documentation's table of topic pages, and the tests that run
over every package. Adding a package is its own modules, its manifest, its topic page and one declaration::

    DECLARATION = PackageDeclaration(
        package=__package__,
        rank=70,
        prefixes={"laplace": "laplace"},
        manifests=("laplace.toml",),
        docs="topics/laplace",
        quantities=("mechanism",),
        claims=("claims",),
    )

The module imports nothing but this one, so that finding the declarations (which ``dpcert --help`` does, to add
each package's commands) loads none of a package's mathematics.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dpcert.core.tables import lazy_tables
from dpcert.errors import InvalidParameter

__all__ = ["PackageDeclaration"]

_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class PackageDeclaration:
    """What dpcert needs to know of a paper package.

    Attributes:
        package: the dotted package name (``__package__`` of its ``declaration.py``), e.g. ``dpcert.gaussian``.
        rank: the package's place among the packages (smaller first): the order of the registry, of ``dpcert
            list`` and ``dpcert quantities``, of the default ``dpcert verify`` run, of the commands in ``dpcert
            --help`` and of the topic pages.
        prefixes: each first segment of a quantity name the package registers, mapped to the golden vectors' topic
            its quantities are filed under (``"sgm": "gaussian"``). Two packages may register under one prefix
            (``rdp``) if they file it under the same topic. The package's claim ids start with its short name.
        manifests: the package's bundled manifests (files of ``verify/``), run in this order by ``dpcert verify``.
        docs: the package's topic page, a document name of ``docs/`` without suffix (``topics/gaussian``).
        quantities: the submodules whose ``QUANTITIES`` lists make the package's ``QUANTITIES``, in order.
        claims: the submodules whose ``CLAIMS`` lists make the package's ``CLAIMS``, in order.
    """

    package: str
    rank: int
    prefixes: Mapping[str, str]
    manifests: tuple[str, ...]
    docs: str
    quantities: tuple[str, ...]
    claims: tuple[str, ...]

    def __post_init__(self) -> None:
        parts = str(self.package).split(".")
        if len(parts) != 2 or parts[0] != "dpcert" or not _NAME.fullmatch(parts[1]):
            raise InvalidParameter("package", self.package, "dpcert.<name> (the declaration module's __package__)")
        if self.name not in self.prefixes:
            raise InvalidParameter("prefixes", dict(self.prefixes), f"a mapping that includes {self.name!r}")
        for prefix, topic in self.prefixes.items():
            if not _NAME.fullmatch(prefix) or not _NAME.fullmatch(topic):
                raise InvalidParameter("prefixes", dict(self.prefixes), "lower-case names mapped to lower-case names")
        if not self.manifests or not all(m.endswith(".toml") and "/" not in m for m in self.manifests):
            raise InvalidParameter("manifests", self.manifests, "one or more file names of verify/, each *.toml")
        if not self.docs.startswith("topics/"):
            raise InvalidParameter("docs", self.docs, "a page of docs/topics/, without suffix (topics/<name>)")
        if not self.quantities and not self.claims:
            raise InvalidParameter("quantities", self.quantities, "the submodules of the package's quantities")

    @property
    def name(self) -> str:
        """The package's short name (``gaussian``): its command (``dpcert gaussian``) and its claim-id prefix."""
        return self.package.split(".", 1)[1]

    def lazy_tables(self, exports: Mapping[str, str] | None = None) -> Callable[[str], Any]:
        """The package's module ``__getattr__``: ``QUANTITIES`` and ``CLAIMS`` built from the declared submodules
        on first access, and each public name of ``exports`` (name -> submodule) imported on first access
        (:func:`dpcert.core.tables.lazy_tables`)."""
        return lazy_tables(self.package, quantities=self.quantities, claims=self.claims, exports=exports)
