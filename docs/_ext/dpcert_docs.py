"""Sphinx extension: the parts of dpcert's documentation generated from the code at build time.

A page asks for generated Markdown with a MyST comment line of its own, e.g. ``% dpcert: cli`` (the command-line
reference, from :func:`dpcert.cli._parser`), ``% dpcert: errata`` (every bundled claim expected REFUTED or
UNDECIDED, from the registry) or ``% dpcert: quantities dpcert.darrm`` (a package's named quantities). The
``source-read`` hook replaces the line with the text, so nothing is copied by hand and nothing can drift; an
unknown request fails the build. The same functions are imported by ``tests/test_docs.py``.
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


def esc(text: str) -> str:
    """``text`` shown as it is in Markdown (every ASCII punctuation character backslash-escaped, one line)."""
    return _PUNCT.sub(r"\\\1", " ".join(str(text).split()))


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


def walk_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
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
        if isinstance(action, argparse._AppendAction):
            notes.append("repeatable")
        helptext = esc(action.help or "") if action.help and action.help is not argparse.SUPPRESS else ""
        if notes:
            helptext = (helptext + " " if helptext else "") + "(" + esc("; ".join(notes)) + ")"
        rows.append(f"| {code(_invocation(parser, action), cell=True)} | {_default(action)} | {helptext} |")
    if not rows:
        return []
    return ["| argument | default | what |", "| --- | --- | --- |", *rows]


def cli_reference() -> str:
    """Markdown for every ``dpcert`` subcommand: label, heading, help, usage and an argument table."""
    from dpcert.cli import _parser

    with _columns(100):
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
            level = "#" * min(2 + len(words), 6)
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
    from dpcert.engine.registry import PACKAGES

    return [importlib.import_module(name) for name in PACKAGES]


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
    lines += [f"- Printed: {esc(claim.statement)}"]
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
            f"| {code(f'dpcert verify --select {prefix}.*', cell=True)} |"
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
    out += ["", f"{n} bundled claims: {code(f'dpcert list {package.split(chr(46))[-1]}.*')} lists them.", ""]
    return "\n".join(out)


GENERATORS = {
    "cli": lambda arg: cli_reference(),
    "errata": lambda arg: errata(),
    "quantities": quantities,
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


def setup(app: Any) -> dict[str, Any]:
    app.connect("source-read", _source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
