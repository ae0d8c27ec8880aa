"""Command-line habits every command shares: inputs after options, no abbreviated options, a missing input named
as missing, usage hints naming a command that exists, `verify` rows streamed, `check`'s summary, tables that fit
the terminal."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

import pytest

from dpcert.cli import _parser, main
from dpcert.core.claim import QuantityClaim


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own exits (usage errors, --help)
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every (sub)command's words after ``dpcert`` and its parser, and whether it has subcommands of its own."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                yield (*path, name), sub, nested
                yield from commands(sub, (*path, name))


COMMANDS = list(commands(_parser()))
LEAVES = [words for words, _, nested in COMMANDS if not nested]


# ------------------------------------------------------------------------------------------- inputs after options


@pytest.mark.parametrize(
    "argv",
    [
        ["dpsgd", "eps", "q=0.01", "sigma=1.1", "--method", "rdp", "steps=1000", "delta=1e-5", "--json"],
        ["eval", "composition.kov.delta", "k=10", "--digits", "5", "eps=0.1", "--json", "eps_g=1"],
        ["claim", "composition.simple.eps", "k=3", "--at-most", "0.3", "eps=0.1", "--json"],
    ],
)
def test_name_value_inputs_after_an_option_are_read(argv):
    """The inputs around an option are all read: the answer is the one with every input first."""
    inputs = [a for a in argv if "=" in a]
    rest = [a for a in argv if "=" not in a]
    words = rest[: 2 if rest[0] in {"dpsgd", "eval", "claim"} else 1]
    code, out, err = run(argv)
    assert code == 0, err
    code2, out2, _ = run([*words, *inputs, *rest[len(words) :]])
    drop = ("seconds",)
    a, b = json.loads(out), json.loads(out2)
    assert {k: v for k, v in a.items() if k not in drop} == {k: v for k, v in b.items() if k not in drop}


def test_every_command_with_name_value_inputs_parses_them_around_its_options():
    """Parsing only: each command whose positionals include ``name=value`` inputs takes one after an option."""
    seen = 0
    for words, parser, nested in COMMANDS:
        inputs = [a for a in parser._actions if a.dest == "inputs" and not a.option_strings]
        flags = [a for a in parser._actions if a.option_strings and a.nargs == 0 and a.dest not in {"help"}]
        if nested or not inputs or not flags:
            continue
        before = [a for a in parser._actions if not a.option_strings and a.dest != "inputs"]
        argv = [*words, *(["X"] * len(before)), "a=1", flags[0].option_strings[0], "b=2"]
        required = [a for a in parser._actions if a.option_strings and a.required]
        for a in required:
            argv += [a.option_strings[0], "1"]
        for group in parser._mutually_exclusive_groups:
            if group.required:
                argv += [group._group_actions[0].option_strings[0], "1"]
        ns = _parser().parse_args(argv)
        assert ns.inputs == ["a=1", "b=2"], words
        seen += 1
    assert seen >= 8  # eval, claim, the paper commands: darrm certify, br adaptive, dpsgd eps, ...


# ---------------------------------------------------------------------------------------- no abbreviated options


def test_no_parser_accepts_an_abbreviated_option():
    assert _parser().allow_abbrev is False
    assert all(p.allow_abbrev is False for _, p, _ in COMMANDS)


def test_an_abbreviation_is_refused_not_read_as_another_option():
    """`--q 0.01` was read as `--quiet` (and 0.01 as a manifest)."""
    code, out, err = run(["verify", "--q", "0.01"])
    assert code == 2 and out == ""
    assert err == "dpcert: error: unrecognized arguments: --q (see `dpcert verify --help`)\n"
    code, _, err = run(["dpsgd", "eps", "q=0.01", "sigma=1.1", "steps=10", "delta=1e-5", "--meth", "rdp"])
    assert code == 2 and "--meth" in err and "dpcert dpsgd eps --help" in err


# ----------------------------------------------------------------------------------------------- a missing input


@pytest.mark.parametrize(
    "argv, name",
    [
        (["dpsgd", "eps", "q=0.01", "sigma=1.1", "steps=1000"], "delta"),
        (["eval", "composition.kov.delta", "k=10", "eps=0.1"], "eps_g"),
        (["br", "adaptive", "k=3", "eps=1"], "eps_g"),
        (["darrm", "certify", "gamma=sub", "K=11", "m=1", "Delta=0", "delta=0"], "eps"),
    ],
)
def test_a_missing_input_is_named_missing_with_what_it_may_be(argv, name):
    code, out, err = run(argv)
    assert code == 2 and out == ""
    assert err.startswith(f"dpcert: error: missing input {name}=… (") and err.count("\n") == 1, err
    assert "None" not in err


# ------------------------------------------------------------------------------------ hints name real commands


@pytest.mark.parametrize("words", LEAVES, ids=" ".join)
def test_every_usage_hint_names_a_command_that_exists(words):
    """`dpcert br adaptive --nope` said `see dpcert adaptive --help`, a command that does not exist."""
    code, _, err = run([*words, "--no-such-option"])
    assert code == 2 and err.count("\n") == 1, err
    hint = err.rsplit("(see `", 1)[1].split("`", 1)[0]
    assert hint == f"dpcert {' '.join(words)} --help", err
    code, out, _ = run(hint.split()[1:])
    assert code == 0 and out.startswith("usage: dpcert " + " ".join(words))


# ------------------------------------------------------------------------------------------- verify streams rows


def test_verify_writes_a_row_before_the_last_claim_is_checked(tmp_path, monkeypatch):
    """Each row is written once the claims before it are done, not after the whole run (`dpcert verify | head`)."""
    m = tmp_path / "m.toml"
    m.write_text(
        "".join(
            f'[[claims]]\nid = "u.s.{c}"\nreference = "r"\nquantity = "composition.simple.eps"\n'
            f'inputs = {{ k = {k}, eps = "0.1" }}\nat_most = "1"\n'
            for c, k in (("a", 1), ("b", 2), ("c", 3))
        )
    )
    events: list[tuple[str, str]] = []
    real = QuantityClaim.check

    def check(self, *args, **kwargs):
        events.append(("check", self.id))
        return real(self, *args, **kwargs)

    class Recorder(io.StringIO):
        def write(self, text: str) -> int:
            events.extend(("row", line.split()[0]) for line in text.splitlines() if line.startswith("u.s."))
            return super().write(text)

    monkeypatch.setattr(QuantityClaim, "check", check)
    out = Recorder()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert main(["verify", str(m), "-q", "--workers", "1"]) == 0
    assert [e for e in events if e[0] == "row"] == [("row", "u.s.a"), ("row", "u.s.b"), ("row", "u.s.c")]
    assert events.index(("row", "u.s.a")) < events.index(("check", "u.s.c"))
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["claim", "verdict", "expected", "enclosure", "s"]
    assert lines[2].split()[:5] == ["u.s.a", "CERTIFIED", "CERTIFIED", "ok", "0.1"]
    assert lines[-1].startswith("3 claims: 3 CERTIFIED; 3/3 as expected")


# ------------------------------------------------------------------------------------------- check's summary line


def test_check_ends_with_a_summary_line(tmp_path):
    d = tmp_path / "certs"
    for k in (2, 3):
        argv = ["claim", "composition.simple.eps", f"k={k}", "eps=0.1", "--at-most", "1", "--certificate", str(d)]
        assert run(argv)[0] == 0
    code, out, _ = run(["check", str(d)])
    assert code == 0 and out.splitlines()[-1] == "2 certificates: 2 OK, 0 MISMATCH"
    code, out, _ = run(["check", str(d), "--json"])  # the JSON keeps its shape: one record per certificate
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == 2 and all(r["ok"] for r in data)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code, out, _ = run(["check", str(d), str(bad)])
    assert code == 2 and out.splitlines()[-1] == "3 certificates: 2 OK, 0 MISMATCH, 1 unreadable"


# ----------------------------------------------------------------------------------------- tables fit the width


@pytest.mark.parametrize("command", ["list", "quantities"])
@pytest.mark.parametrize("columns", [None, "100", "80"])
def test_list_and_quantities_fit_the_terminal(command, columns, monkeypatch):
    """283 and 368 columns wide before; now within $COLUMNS, or 100 when stdout is not a terminal (a pipe)."""
    if columns is None:
        env = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES"}}
        proc = subprocess.run(
            [sys.executable, "-m", "dpcert.cli", command], capture_output=True, text=True, timeout=120, env=env
        )
        code, out = proc.returncode, proc.stdout
    else:
        monkeypatch.setenv("COLUMNS", columns)
        code, out, _ = run([command])
    assert code == 0
    width = int(columns or 100)
    assert max(len(line) for line in out.splitlines()) <= width
    code, js, _ = run([command, "--json"])  # the JSON is whole: every id, every field
    records = json.loads(js)
    key = "id" if command == "list" else "name"
    firsts = {line.split()[0] for line in out.splitlines()[2:] if line and not line[0].isspace()}
    assert firsts == {r[key] for r in records}  # each id once, whole, at the start of its row
    if command == "quantities":
        assert all(r["summary"] for r in records)
