"""The import graph of ``src/dpcert``: layers, arrows pointing down only, no circle between files.

Every import is collected, those inside functions and under ``if TYPE_CHECKING:`` included (an import hidden in a
function is still a dependency; it only hides a circle from import time): ``import dpcert.x``, ``from dpcert.x
import y`` (an arrow to the submodule ``dpcert.x.y`` when there is one, else to ``dpcert.x``), relative imports,
and ``importlib.import_module("dpcert.x")`` with a constant name. An import of ``dpcert.x.y`` is an arrow to
``dpcert/x/y.py`` only, not to the package ``dpcert/x/__init__.py`` Python runs first.

The layers, bottom to top (an arrow may point within a layer or down, never up):

1. ``foundation``: ``errors.py``, ``_version.py``, ``_text.py`` (the standard library only);
2. ``arith``: exact rationals, balls, rounding;
3. ``core``: parameters, quantities, claims, files, the parallel runner (no argparse);
4. ``mathematics``: ``composition``, ``darrm``, ``br``, ``sml``, ``shuffle``, ``gaussian`` (each package but its
   ``cli.py``): a paper's mathematics and its claims, built on core; they never import the engine;
5. ``engine``: the registry (which imports the paper packages by name: the engine reads the mathematics), manifests,
   certificates, ``verify``;
6. ``user``: ``tables``, ``vectors``, ``audit``, ``testing.py``, ``pytest_plugin.py``, ``events.py``, ``opacus.py`` and
   the package's public face ``dpcert/__init__.py``: what a user runs on top of the engine;
7. ``cli_support``: ``cli_support.py``, the parser class, option types, output helpers and run-option wiring every
   command shares;
8. ``commands``: ``cli.py`` and every ``<package>/cli.py``.

There is no exception list: a new module is placed by its path, and a path no rule places fails the test.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS = ("foundation", "arith", "core", "mathematics", "engine", "user", "cli_support", "commands")
_RANK = {name: i for i, name in enumerate(LAYERS)}
#: first dotted component under ``dpcert`` -> layer (a package's ``cli.py`` is always ``commands``)
_BY_TOP = {
    "errors": "foundation",
    "_version": "foundation",
    "_text": "foundation",
    "arith": "arith",
    "core": "core",
    "pld": "mathematics",
    "engine": "engine",
    "tables": "user",
    "vectors": "user",
    "audit": "user",
    "testing": "user",
    "certificates": "user",
    "pytest_plugin": "user",
    "events": "user",
    "opacus": "user",
    "cli_support": "cli_support",
    "cli": "commands",
}


def modules(src: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``), for every ``.py`` under ``src/dpcert``."""
    out = {}
    for f in sorted((src / "dpcert").rglob("*.py")):
        parts = list(f.relative_to(src).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (f, is_pkg)
    return out


def layer(module: str, src: Path = SRC) -> str | None:
    """The layer of a dotted module name, or ``None`` when no rule places it. A package that declares itself (a
    ``declaration.py``, :mod:`dpcert.core.packages`) is mathematics: a new paper package is placed by its
    declaration, with no line here."""
    parts = module.split(".")
    if module == "dpcert":
        return "user"
    if parts[-1] == "cli" and len(parts) >= 2:
        return "commands"
    if (src / "dpcert" / parts[1] / "declaration.py").is_file():
        return "mathematics"
    return _BY_TOP.get(parts[1])


def _imported_names(node: ast.AST, package: str, mods: dict[str, tuple[Path, bool]]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            origin = ".".join(base + ([node.module] if node.module else []))
        else:
            origin = node.module or ""
        return [f"{origin}.{a.name}" if f"{origin}.{a.name}" in mods else origin for a in node.names]
    if (
        isinstance(node, ast.Call)
        and (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


def import_graph(src: Path) -> dict[str, dict[str, int]]:
    """module -> {imported dpcert module: line of the first such import}, every import of every file."""
    mods = modules(src)
    graph: dict[str, dict[str, int]] = {m: {} for m in mods}
    for m, (f, is_pkg) in mods.items():
        package = m if is_pkg else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"), str(f))):
            for name in _imported_names(node, package, mods):
                if name != "dpcert" and not name.startswith("dpcert."):
                    continue
                while name not in mods:  # ``dpcert.x.y.name`` of a function: the module that holds it
                    name = name.rpartition(".")[0]
                if name != m:
                    graph[m].setdefault(name, node.lineno)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[tuple[list[str], list[str]]]:
    """The strongly connected components of more than one file (Tarjan): each as its files, sorted, and one circle
    through the first of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[list[str], list[str]]] = []

    def visit(v: str) -> None:  # the graph is a few hundred files: recursion depth is no concern
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append((sorted(comp), _circle(graph, set(comp))))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _circle(graph: dict[str, dict[str, int]], comp: set[str]) -> list[str]:
    """One circle inside a strongly connected component: a shortest path back to its first file."""
    start = min(comp)
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w not in comp:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [*reversed(path), start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no circle through {start}")  # pragma: no cover - a component always has one


def _where(src: Path, module: str, graph: dict[str, dict[str, int]], target: str) -> str:
    f, _ = modules(src)[module]
    return f"{f.relative_to(src)}:{graph[module][target]}"


def circle_problems(src: Path) -> list[str]:
    graph = import_graph(src)
    out = []
    for files, circle in cycles(graph):
        arrows = " -> ".join(f"{a} ({_where(src, a, graph, b)})" for a, b in zip(circle, circle[1:], strict=False))
        out.append(f"{len(files)} files import each other ({', '.join(files)}), e.g. {arrows} -> {circle[-1]}")
    return out


def layer_problems(src: Path) -> list[str]:
    graph = import_graph(src)
    out = []
    for m in sorted(graph):
        lm = layer(m, src)
        if lm is None:
            out.append(f"{m}: no layer places it (add its path to tests/test_imports.py's layers)")
            continue
        for target in sorted(graph[m]):
            lt = layer(target, src)
            if lt is not None and _RANK[lt] > _RANK[lm]:
                out.append(f"{_where(src, m, graph, target)} imports {target}: up from {lm} to {lt}")
    return out


def test_every_file_has_a_layer_and_no_import_points_up():
    problems = layer_problems(SRC)
    assert not problems, f"{len(problems)} import(s) against the layers:\n" + "\n".join(problems)


def test_no_circle_between_files():
    problems = circle_problems(SRC)
    assert not problems, "\n".join(problems)


def test_the_walk_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """The checker itself: a circle made only of imports inside functions and a relative import is found, and an
    upward arrow from core to the command line is named with its file and line."""
    pkg = tmp_path / "dpcert"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "cli_support.py").write_text("def f():\n    from dpcert.core import parallel\n")
    (pkg / "core" / "parallel.py").write_text("import os\n\n\ndef g():\n    from ..cli_support import f\n")
    (pkg / "core" / "files.py").write_text("from . import parallel\n")
    graph = import_graph(tmp_path)
    assert graph["dpcert.core.parallel"] == {"dpcert.cli_support": 5}
    assert graph["dpcert.core.files"] == {"dpcert.core.parallel": 1}
    assert graph["dpcert.cli_support"] == {"dpcert.core.parallel": 2}
    both = ["dpcert.cli_support", "dpcert.core.parallel"]
    assert cycles(graph) == [(both, [*both, "dpcert.cli_support"])]
    assert layer_problems(tmp_path) == [
        "dpcert/core/parallel.py:5 imports dpcert.cli_support: up from core to cli_support"
    ]
    (pkg / "stray.py").write_text("")
    assert "dpcert.stray: no layer places it" in layer_problems(tmp_path)[-1]
