"""Sphinx extension: the parts of dpcert's documentation generated from the code at build time.

A page asks for generated Markdown with a MyST comment line of its own, e.g. ``% dpcert: cli`` (the command-line
reference, from :func:`dpcert.cli._parser`), ``% dpcert: errata`` (every bundled claim expected REFUTED or
UNDECIDED, from the registry), ``% dpcert: quantities dpcert.darrm`` (a package's named quantities) or ``% dpcert:
topic-pages`` (the entries of a toctree: every package's topic page, from the packages' declarations). The
``source-read`` hook replaces the line with the text, so nothing is copied by hand and nothing can drift; an
unknown request fails the build. Counts quoted in running text are MyST substitutions (``{{ n_claims }}``, see
:func:`counts`). The same functions are imported by ``tests/test_docs.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
from collections.abc import Iterator
from typing import Any

_MARKER = re.compile(r"^% dpcert: ([a-z-]+)(?: (\S+))?[ \t]*$", re.MULTILINE)
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")


def esc(text: str, cell: bool = False) -> str:
    """``text`` shown as it is in Markdown, on one line: every ASCII punctuation character backslash-escaped,
    except that a `code span` in it stays code (``cell``: inside a table row)."""
    parts = " ".join(str(text).split()).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        parts = ["`".join(parts)]
    return "".join(code(p, cell) if i % 2 else _PUNCT.sub(r"\\\1", p) for i, p in enumerate(parts))


def code(text: str, cell: bool = False) -> str:
    """``text`` as inline code (a backtick inside is fenced by more backticks); ``cell``: inside a table row, where
    a ``|`` must be written ``\\|`` even in code."""
    text = " ".join(str(text).split())
    if cell:
        text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def anchor(words: str) -> str:
    """A MyST label from words: ``dpcert darrm certify`` -> ``cli-darrm-certify``."""
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")


# ------------------------------------------------------------------------------------------- CLI reference


@contextlib.contextmanager
def _columns(n: int) -> Iterator[None]:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(n)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


def walk_parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Every (sub)command: (its words after ``dpcert``, its parser, its one-line help), depth first in the order
    the parser lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), sub, helps.get(name, "")
                yield from walk_parsers(sub, (*path, name))


def _invocation(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    return parser._get_formatter()._format_action_invocation(action)


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is argparse.SUPPRESS or isinstance(action, (argparse._StoreTrueAction, argparse._HelpAction)):
        return ""
    if isinstance(d, list) and not d:
        return ""
    return code(str(d), cell=True)


#: what an option without a help text of its own does (the same in every command)
GENERIC_HELP = {"--json": "machine-readable output (JSON on stdout)"}


def _arguments_table(parser: argparse.ArgumentParser) -> list[str]:
    exclusive = {}
    for i, group in enumerate(parser._mutually_exclusive_groups):
        for a in group._group_actions:
            exclusive[id(a)] = (i, group.required)
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        notes = []
        if id(action) in exclusive:
            i, required = exclusive[id(action)]
            others = [
                o.option_strings[0]
                for o in parser._mutually_exclusive_groups[i]._group_actions
                if o is not action and o.option_strings
            ]
            notes.append(("exactly one of this and " if required else "not with ") + ", ".join(others))
        elif action.option_strings and action.required:
            notes.append("required")
        raw = action.help if action.help and action.help is not argparse.SUPPRESS else ""
        raw = raw or GENERIC_HELP.get(action.option_strings[0] if action.option_strings else "", "")
        if isinstance(action, argparse._AppendAction) and "repeatable" not in raw:
            notes.append("repeatable")
        helptext = esc(raw, cell=True)
        if notes:
            helptext = (helptext + " " if helptext else "") + "(" + esc("; ".join(notes), cell=True) + ")"
        rows.append(f"| {code(_invocation(parser, action), cell=True)} | {_default(action)} | {helptext} |")
    if not rows:
        return []
    return ["| argument | default | what |", "| --- | --- | --- |", *rows]


def cli_reference() -> str:
    """Markdown for every ``dpcert`` subcommand: label, heading, help, usage and an argument table."""
    from dpcert.cli import _parser

    with _columns(88):
        root = _parser()
        out = [
            "(cli-dpcert)=",
            "## `dpcert`",
            "",
            esc(root.description or ""),
            "",
            "```text",
            root.format_usage().rstrip(),
            "```",
            "",
            *_arguments_table(root),
            "",
        ]
        for words, parser, help_ in walk_parsers(root):
            level = "#" * min(1 + len(words), 6)
            out += [f"({anchor('cli ' + ' '.join(words))})=", f"{level} `dpcert {' '.join(words)}`", ""]
            if help_:
                out += [esc(help_), ""]
            if parser.description and parser.description != help_:
                out += [esc(parser.description), ""]
            out += ["```text", parser.format_usage().rstrip(), "```", ""]
            out += [*_arguments_table(parser), ""]
            if parser.epilog:
                out += [esc(parser.epilog), ""]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------ errata


def _packages() -> list[Any]:
    from dpcert.engine.registry import packages

    return [importlib.import_module(name) for name in packages()]


def topic_pages() -> list[str]:
    """The packages' topic pages (their declarations' ``docs``), in the order of the packages' ranks."""
    from dpcert.engine.registry import declarations

    return [d.docs for d in declarations()]


def _title(pkg: Any) -> str:
    first = (pkg.__doc__ or pkg.__name__).strip().splitlines()[0].strip()
    return first[:-1] if first.endswith(".") else first


def verify_command(claim: Any) -> str:
    """The command that reproduces a bundled claim's verdict."""
    return f"dpcert verify --select {claim.id}" + (" --full" if claim.slow else "")


def claim_command(claim: Any) -> str | None:
    """``dpcert claim QUANTITY name=value ... --rounds-to X`` for a quantity claim with scalar inputs, else None."""
    from dpcert.arith.exact import Exact
    from dpcert.core.claim import QuantityClaim

    if not isinstance(claim, QuantityClaim) or claim.comparison is None:
        return None
    words = ["dpcert", "claim", claim.quantity.name]
    for name, value in claim.inputs.items():
        if isinstance(value, Exact):
            if value.source != "str":
                return None
            value = value.given
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not re.fullmatch(r"[\w.+-/]+", str(value)):
            return None
        words.append(f"{name}={value}")
    spec = claim.comparison.to_json()
    value = spec["value"]
    if isinstance(value, dict):
        if value.get("type") != "str":
            return None
        value = value["given"]
    words.append(f"--{spec['kind'].replace('_', '-')} {value}")
    if spec.get("figures"):
        words.append(f"--figures {spec['figures']}")
    return " ".join(words)


def errata_claims() -> list[tuple[Any, list[Any], list[Any]]]:
    """(package, its claims expected REFUTED, those expected UNDECIDED) for every paper package."""
    out = []
    for pkg in _packages():
        claims = list(pkg.CLAIMS)
        out.append(
            (
                pkg,
                [c for c in claims if c.expected.value == "REFUTED"],
                [c for c in claims if c.expected.value == "UNDECIDED"],
            )
        )
    return out


def _claim_block(claim: Any, verdict: str) -> list[str]:
    lines = [f"**{code(claim.id)}** ({esc(claim.reference)})", ""]
    lines += [f"- Statement: {esc(claim.statement)}"]
    if claim.erratum:
        lines += [f"- {'Erratum' if verdict == 'REFUTED' else 'Status'}: {esc(claim.erratum)}"]
    lines += [f"- Reproduce ({verdict}{', slow' if claim.slow else ''}): {code(verify_command(claim))}"]
    direct = claim_command(claim)
    if direct:
        lines += [f"- The same check by hand: {code(direct)}"]
    return [*lines, ""]


def errata() -> str:
    """Markdown: a summary table, then per paper every erratum (expected REFUTED) and open question (UNDECIDED)."""
    groups = errata_claims()
    out = [
        "| paper | claims | errata (REFUTED) | open (UNDECIDED) | run them all |",
        "| --- | --- | --- | --- | --- |",
    ]
    for pkg, refuted, undecided in groups:
        prefix = pkg.__name__.split(".")[-1]
        out.append(
            f"| {esc(_title(pkg))} | {len(pkg.CLAIMS)} | {len(refuted)} | {len(undecided)} "
            f"| {code('dpcert verify --select ' + repr(prefix + '.*'), cell=True)} |"
        )
    out.append("")
    for pkg, refuted, undecided in groups:
        if not refuted and not undecided:
            continue
        prefix = pkg.__name__.split(".")[-1]
        out += [f"({anchor('errata ' + prefix)})=", f"## {esc(_title(pkg))}", ""]
        if refuted:
            out += [f"### Errata ({len(refuted)})", ""]
            for c in refuted:
                out += _claim_block(c, "REFUTED")
        if undecided:
            out += [f"### Open questions ({len(undecided)})", ""]
            for c in undecided:
                out += _claim_block(c, "UNDECIDED")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------- quantities


def quantities(package: str) -> str:
    """Markdown: a table of the package's named quantities (parameters, what, reference)."""
    pkg = importlib.import_module(package)
    out = ["| quantity | parameters | what | reference |", "| --- | --- | --- | --- |"]
    for name, q in pkg.QUANTITIES.items():
        params = ", ".join(code(p.name, cell=True) for p in q.params)
        what = esc(q.summary) + (" (exact)" if q.exact else "") + (" (a certified bracket)" if q.bracket else "")
        out.append(f"| {code(name, cell=True)} | {params} | {what} | {esc(q.reference)} |")
    n = len(pkg.CLAIMS)
    prefix = package.split(".")[-1]
    out += ["", f"{n} bundled claims: {code('dpcert list ' + repr(prefix + '.*'))} lists them.", ""]
    return "\n".join(out)


#: submodules whose docstrings the topic pages leave out: command lines, declarations, private helpers
_SKIP_MODULE = re.compile(r"(^_|^cli$|^declaration$)")


def docstrings(package: str) -> str:
    """Markdown: each public submodule of ``package`` with its docstring, shown as the plain text it is written in
    (the paper modules write their mathematics in Unicode, not reST)."""
    import pkgutil

    pkg = importlib.import_module(package)
    out = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if _SKIP_MODULE.search(info.name):
            continue
        mod = importlib.import_module(f"{package}.{info.name}")
        doc = (mod.__doc__ or "").strip()
        if not doc:
            continue
        fence = "````" if "```" in doc else "```"
        # a target for :mod:, unless the package exports a function of the module's name (darrm.optimize), which
        # autodoc already documents under that name
        shadowed = getattr(pkg, info.name, mod) is not mod
        target = (
            [f"```{{py:module}} {mod.__name__}", ":no-index:", "```"]
            if shadowed
            else [f"```{{py:module}} {mod.__name__}", "```"]
        )
        out += [f"### `{mod.__name__}`", "", *target, ""]
        out += [fence + "text", doc, fence, ""]
    return "\n".join(out)


#: what each optional extra of pyproject.toml is for
EXTRA_PURPOSE = {
    "test": "the test suite (`pytest`)",
    "notebooks": "executing `proofs_notebooks/` (`tests/test_notebooks.py`)",
    "peers": "cross-checks against other accountants (`tests/peers`)",
    "docs": "building this documentation (`tests/test_docs.py` builds it)",
    "distributed": "running claims on a dask cluster",
}


def extras() -> str:
    """Markdown: the optional extras of ``pyproject.toml`` with the packages each installs."""
    import sys
    from pathlib import Path

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    data = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    out = ["| extra | for | installs |", "| --- | --- | --- |"]
    for name, reqs in data["project"]["optional-dependencies"].items():
        out.append(
            f"| {code(name, cell=True)} | {esc(EXTRA_PURPOSE.get(name, ''), cell=True)} "
            f"| {', '.join(code(r, cell=True) for r in reqs)} |"
        )
    return "\n".join(out)


GENERATORS = {
    "topic-pages": lambda arg: "\n".join(topic_pages()),
    "extras": lambda arg: extras(),
    "cli": lambda arg: cli_reference(),
    "errata": lambda arg: errata(),
    "quantities": quantities,
    "docstrings": docstrings,
}


def expand(text: str, where: str = "") -> str:
    """``text`` with every ``% dpcert: NAME [ARG]`` line replaced by its generated Markdown.

    Raises:
        ValueError: for an unknown NAME.
    """

    def one(m: re.Match[str]) -> str:
        name, arg = m.group(1), m.group(2)
        if name not in GENERATORS:
            raise ValueError(f"{where}: unknown generated section {name!r}; known: {sorted(GENERATORS)}")
        return GENERATORS[name](arg)

    return _MARKER.sub(one, text)


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    source[0] = expand(source[0], docname)


_LITERAL = re.compile(r"(``.*?``|`[^`]*`)")


def escape_bars(lines: list[str]) -> list[str]:
    """Docstring lines with every ``|`` outside code and literal blocks escaped.

    dpcert's docstrings write absolute values and norms as ``|x|`` and ``‖x‖``; reST would read ``|x|`` as a
    substitution reference (an error). Lines of a literal block (after a line ending in ``::``) and code spans are
    left as they are.
    """
    out, literal_indent = [], None
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                out.append(line)
                continue
        parts = _LITERAL.split(line)
        out.append("".join(p if i % 2 else p.replace("|", "\\|") for i, p in enumerate(parts)))
        if line.rstrip().endswith("::"):
            literal_indent = indent
    return out


def _process_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    lines[:] = escape_bars(lines)


def _resolve_name(dotted: str) -> bool:
    """Whether ``dotted`` names an existing object: a module, or attributes reached from the longest importable
    module prefix."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        except Exception:  # pragma: no cover - a module that fails to import is no target
            return False
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def _missing_reference(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """A Python cross-reference with no documented target: accepted as plain text when it names a real dpcert
    object in the referring module's scope (a helper or constant the pages do not document; for a package page,
    the scope includes its submodules), left to fail the strict build when it names nothing (a typo, a renamed or
    removed function)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = [target]
    if module:
        candidates.append(f"{module}.{target}")
        if cls:
            candidates.append(f"{module}.{cls}.{target}")
    if any(c.startswith("dpcert.") and _resolve_name(c) for c in candidates):
        return contnode
    if module and module.startswith("dpcert.") and "." not in target:
        # a package page documents its submodules' functions (imported members): their own module is the scope
        import sys

        scope = [m for name, m in list(sys.modules.items()) if name.startswith(module + ".") and m is not None]
        if any(hasattr(m, target) for m in scope):
            return contnode
    return None


def _load_exports(app: Any) -> None:
    """Resolve each paper package's lazy exports (PEP 562), so that autodoc, which lists a module's members from
    ``dir()``, sees the public functions named in ``__all__``."""
    for pkg in _packages():
        for name in getattr(pkg, "__all__", ()):
            getattr(pkg, name)


def counts() -> dict[str, int]:
    """The numbers a page may quote, counted in the registry at build time (MyST substitutions: ``{{ n_claims }}``
    in a page is the number of bundled claims), so that no page states a count that has drifted."""
    from dpcert.engine import registry

    claims = registry.claims().values()
    return {
        "n_claims": len(claims),
        "n_errata": sum(c.expected.value == "REFUTED" for c in claims),
        "n_open": sum(c.expected.value == "UNDECIDED" for c in claims),
        "n_quantities": len(registry.quantities()),
        "n_packages": len(registry.PACKAGES),
    }


def _add_counts(app: Any, config: Any) -> None:
    config.myst_substitutions = {**counts(), **getattr(config, "myst_substitutions", {})}


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _add_counts)
    app.connect("builder-inited", _load_exports)
    app.connect("source-read", _source_read)
    app.connect("autodoc-process-docstring", _process_docstring)
    app.connect("missing-reference", _missing_reference)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
