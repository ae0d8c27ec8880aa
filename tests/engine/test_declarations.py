"""Each paper package is named once, by its declaration, and everything else is derived from the declarations.

A package registered by hand in several lists drifted (``dpcert.gaussian`` was left out of the public-API tests
and exported no function); here a package of this test's own, written into a temporary folder on dpcert's path,
declares itself once and the registry, the command line, the golden vectors' topics, the documentation's table of
topic pages and the default ``dpcert verify`` run all find it.
"""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dpcert
from dpcert.core.claim import Verdict
from dpcert.core.packages import PackageDeclaration
from dpcert.engine import manifest, registry
from dpcert.engine.verify import verify
from dpcert.errors import InvalidParameter
from dpcert.vectors import cases

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import dpcert_docs  # noqa: E402


def _clear_caches() -> None:
    for fn in (registry.declarations, registry.quantities, registry.claims, cases.prefix_topics):
        fn.cache_clear()


# ------------------------------------------------------------------------------------ the real packages


def _subpackages() -> list[str]:
    return [f"dpcert.{i.name}" for i in pkgutil.iter_modules(dpcert.__path__) if i.ispkg]


def _tabled() -> set[str]:
    """The subpackages of dpcert that have ``QUANTITIES`` or ``CLAIMS``."""
    out = set()
    for name in _subpackages():
        module = importlib.import_module(name)
        if hasattr(module, "QUANTITIES") or hasattr(module, "CLAIMS"):
            out.add(name)
    return out


def test_every_package_with_quantities_or_claims_is_declared():
    """A subpackage that builds ``QUANTITIES`` or ``CLAIMS`` but has no declaration would be left out of the
    registry, the default run, the vectors and the docs without anyone noticing."""
    tabled = _tabled()
    assert tabled == set(registry.packages())
    assert {"dpcert.composition", "dpcert.gaussian"} <= tabled  # the walk saw the packages at all


def test_every_submodules_tables_are_registered():
    """A submodule's ``QUANTITIES`` or ``CLAIMS`` left out of its package's declaration would not be registered."""
    quantities = {id(q) for q in registry.quantities().values()}
    claims = set(registry.claims())
    for package in registry.packages():
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
            module = importlib.import_module(info.name)
            table = vars(module).get("QUANTITIES", [])
            for q in table.values() if isinstance(table, dict) else table:
                assert id(q) in quantities, (info.name, q.name)
            for c in vars(module).get("CLAIMS", []):
                assert c.id in claims, (info.name, c.id)


def test_declarations_describe_their_packages():
    for decl in registry.declarations():
        pkg = importlib.import_module(decl.package)
        assert pkg.DECLARATION is decl
        used = {name.split(".", 1)[0] for name in pkg.QUANTITIES}
        assert used == set(decl.prefixes), decl.package  # no prefix declared and unused, none used undeclared
        assert all(c.id.startswith(decl.name + ".") for c in pkg.CLAIMS)
    ranks = [d.rank for d in registry.declarations()]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)


def test_the_bundled_manifests_are_the_declared_ones():
    """Each ``verify/*.toml`` belongs to exactly one package, so none is left out of the default run."""
    declared = [m for d in registry.declarations() for m in d.manifests]
    assert sorted(declared) == sorted(p.name for p in (ROOT / "verify").glob("*.toml"))


def test_the_default_run_is_the_declared_manifests_in_order(tmp_path):
    """The default run reads the declared manifests in the packages' order: the claims of the old hand-kept
    ``verify/default.toml`` (its includes), with their expectations, in that order."""
    old_includes = [
        "composition.toml", "darrm.toml", "darrm_privacy.toml", "darrm_optimize.toml", "sml.toml", "shuffle.toml",
        "shuffle_figures.toml", "br.toml", "br_adaptive.toml", "gaussian.toml",
    ]  # fmt: skip
    old_includes += ["laplace.toml", "accounting.toml"]  # packages declared since (rank after gaussian's)
    assert [p.name for p in manifest.default_manifests()] == old_includes
    one = tmp_path / "default.toml"
    paths = [str(manifest.bundled_dir() / name) for name in old_includes]
    one.write_text(f"format = 1\ninclude = {paths!r}\n".replace("'", '"'))
    want = manifest.load_manifest(one)
    got = manifest.default_entries()
    assert [(e.claim.id, e.expected, e.full, e.source) for e in got] == [
        (e.claim.id, e.expected, e.full, e.source) for e in want
    ]
    assert len(got) >= 470


def test_a_bad_declaration_is_refused_naming_the_field():
    good = dict(
        package="dpcert.toy",
        rank=70,
        prefixes={"toy": "toy"},
        manifests=("toy.toml",),
        docs="topics/toy",
        quantities=("mechanism",),
        claims=("claims",),
    )
    assert PackageDeclaration(**good).name == "toy"
    for key, value in [
        ("package", "toy"),
        ("package", None),
        ("prefixes", {"lap": "toy"}),
        ("prefixes", {"toy": "Toy"}),
        ("manifests", ()),
        ("manifests", ("verify/toy.toml",)),
        ("docs", "toy"),
    ]:
        with pytest.raises(InvalidParameter, match=f"invalid {key}="):
            PackageDeclaration(**{**good, key: value})


# ------------------------------------------------------------------------------------ a package of our own

_INIT = '''
"""A Toy package of this test's own."""

from dpcert.toy.declaration import DECLARATION

__all__ = ["QUANTITIES", "CLAIMS", "toy_eps"]

__getattr__ = DECLARATION.lazy_tables({"toy_eps": "mechanism"})
'''

_DECLARATION = """
from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=15,
    prefixes={"toy": "toy"},
    manifests=("toy.toml",),
    docs="topics/toy",
    quantities=("mechanism",),
    claims=("claims",),
)
"""

_MECHANISM = '''
from fractions import Fraction

from dpcert.core.params import real
from dpcert.core.quantity import Quantity


def toy_eps(sensitivity, b):
    """The eps of the Toy mechanism: sensitivity / b."""
    return Fraction(sensitivity) / Fraction(b)


TOY_EPS = Quantity(
    "toy.eps",
    (real("sensitivity", 0, lo_open=True, doc="L1 sensitivity"), real("b", 0, lo_open=True, doc="noise scale")),
    lambda ctx, sensitivity, b: sensitivity.value / b.value,
    "Dwork-Roth Thm 3.6",
    "eps = sensitivity / b of the Toy mechanism (exact)",
    exact=True,
)
QUANTITIES = [TOY_EPS]
'''

_CLAIMS = """
from dpcert.core.claim import QuantityClaim, Rounds, Verdict
from dpcert.toy.mechanism import TOY_EPS

CLAIMS = [
    QuantityClaim(
        "toy.eps_half",
        "Dwork-Roth Thm 3.6",
        "sensitivity 1 and b = 2 give eps = 0.5",
        expected=Verdict.CERTIFIED,
        quantity=TOY_EPS,
        inputs={"sensitivity": "1", "b": "2"},
        comparison=Rounds("0.5"),
    ),
    QuantityClaim(
        "toy.eps_typo",
        "a misprint",
        "sensitivity 1 and b = 4 give eps = 0.5",
        expected=Verdict.REFUTED,
        quantity=TOY_EPS,
        inputs={"sensitivity": "1", "b": "4"},
        comparison=Rounds("0.5"),
    ),
]
"""

_CLI = """
def add_commands(sub):
    p = sub.add_parser("toy", help="the Toy mechanism")
    p.set_defaults(fn=lambda a: print("toy here") or 0)
"""

_MANIFEST = """
format = 1
description = "the Toy package of the declaration test"

[[claims]]
select = "toy.*"
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """``dpcert.toy``: a package in a temporary folder added to dpcert's path, and a copy of the bundled
    manifests with its own beside them; nothing else in the repository names it."""
    pkg = tmp_path / "src" / "toy"
    pkg.mkdir(parents=True)
    for name, text in [
        ("__init__.py", _INIT),
        ("declaration.py", _DECLARATION),
        ("mechanism.py", _MECHANISM),
        ("claims.py", _CLAIMS),
        ("cli.py", _CLI),
    ]:
        (pkg / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    bundled = tmp_path / "verify"
    bundled.mkdir()
    for p in (ROOT / "verify").glob("*.toml"):
        shutil.copy(p, bundled / p.name)
    (bundled / "toy.toml").write_text(_MANIFEST, encoding="utf-8")
    monkeypatch.setattr(dpcert, "__path__", [*dpcert.__path__, str(pkg.parent)])
    monkeypatch.setattr(manifest, "bundled_dir", lambda: bundled)
    importlib.invalidate_caches()
    _clear_caches()
    yield pkg
    _clear_caches()
    for name in [m for m in sys.modules if m == "dpcert.toy" or m.startswith("dpcert.toy.")]:
        del sys.modules[name]


def test_a_new_package_is_one_declaration(toy):
    # the registry: in the order of its rank (15: after composition, before darrm)
    assert registry.packages()[:3] == ("dpcert.composition", "dpcert.toy", "dpcert.darrm")
    assert (
        registry.quantity("toy.eps").enclose(sensitivity="1", b="3").lo
        == registry.quantity("toy.eps").enclose(sensitivity="1", b="3").hi
    )
    assert [c.id for c in registry.select("toy.*")] == ["toy.eps_half", "toy.eps_typo"]
    from dpcert import toy as pkg  # type: ignore[attr-defined]

    assert pkg.toy_eps(1, 4) == 0.25  # its public function, imported on first use
    # the golden vectors' topics
    assert "toy" in cases.topics() and cases.topic_of("toy.eps") == "toy"
    # the documentation's toctree of topic pages
    assert "\ntopics/toy\n" in dpcert_docs.expand("```{toctree}\n% dpcert: topic-pages\n```\n")
    assert dpcert_docs.topic_pages()[:2] == ["topics/composition", "topics/toy"]
    # the default `dpcert verify`: its manifest read after composition's, its claims with their expectations
    assert [p.name for p in manifest.default_manifests()][:2] == ["composition.toml", "toy.toml"]
    expected = {e.claim.id: e.expected for e in manifest.default_entries() if e.claim.id.startswith("toy.")}
    assert expected == {"toy.eps_half": Verdict.CERTIFIED, "toy.eps_typo": Verdict.REFUTED}
    report = verify(selectors=["toy.*"], progress=None)
    assert [r.verdict for r in report.results] == [Verdict.CERTIFIED, Verdict.REFUTED] and report.exit_code == 0


def test_a_new_package_gets_its_command_and_its_tests(toy):
    """In a fresh process: ``dpcert toy`` exists (the parser adds each declared package's cli) and the
    public-API tests, which run over the declared packages, would run over it."""
    code = (
        f"import dpcert; dpcert.__path__.append({str(toy.parent)!r}); "
        "from dpcert.cli import main; from dpcert.engine.registry import PACKAGES; "
        "print(PACKAGES); raise SystemExit(main(['toy']))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'dpcert.toy'" in out and "toy here" in out


def test_two_packages_cannot_file_a_prefix_under_two_topics(toy):
    text = (toy / "declaration.py").read_text(encoding="utf-8")
    (toy / "declaration.py").write_text(text.replace('{"toy": "toy"}', '{"toy": "toy", "rdp": "x"}'))
    importlib.invalidate_caches()
    with pytest.raises(RuntimeError, match="rdp"):
        cases.prefix_topics()


def test_an_undeclared_package_is_caught(toy):
    """The check above fails for a package that keeps its tables but drops its declaration."""
    (toy / "declaration.py").unlink()
    (toy / "__init__.py").write_text(
        "from dpcert.core.tables import lazy_tables\n"
        "__getattr__ = lazy_tables(__name__, quantities=('mechanism',), claims=('claims',))\n"
    )
    importlib.invalidate_caches()
    assert "dpcert.toy" in _tabled() and "dpcert.toy" not in registry.packages()
