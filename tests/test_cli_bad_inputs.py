"""Bad input never hurts: every CLI subcommand, given generated bad inputs, prints one line and exits 2 (issue 18 §3).

The property test enumerates the subcommands from the parser itself, so a new command fails
:func:`test_every_subcommand_has_a_generator` until it is given one here. Each call runs ``dpcert.cli.main`` in
process under a time guard (a hang fails the test instead of stopping it), and asserts: exit code 2, nothing on
stdout, exactly one line on stderr starting with ``dpcert: error:``, no "internal error", and a short line (a bad
input is quoted, never echoed whole).

The regression tests below it each failed before this change (see their docstrings).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
import tracemalloc
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from timeguard import Hang, time_limit

from dpcert.cli import _parser, main

#: Seconds one call may take before it counts as a hang.
PER_CALL_SECONDS = 10
#: Seconds the whole module's property tests may take (a guard on a loaded machine, not a target).
OVERALL_SECONDS = 240
#: Examples per subcommand.
EXAMPLES = 25
_START: list[float] = []  # when this module's first test started (not when it was collected)


@pytest.fixture(scope="module", autouse=True)
def _overall_clock():
    _START.append(time.monotonic())
    yield


def run(argv: list[str], seconds: float = PER_CALL_SECONDS) -> tuple[int, str, str]:
    """``main(argv)`` in process: exit code, stdout, stderr (argparse's refusals exit through SystemExit)."""
    out, err = io.StringIO(), io.StringIO()
    with time_limit(seconds), redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def assert_refused(argv: list[str], seconds: float = PER_CALL_SECONDS) -> str:
    """``argv`` exits 2 with one short ``dpcert: error:`` line on stderr and nothing on stdout; returns the line."""
    assert not _START or time.monotonic() - _START[0] < OVERALL_SECONDS, "the bad-input tests exceeded their time guard"
    try:
        code, out, err = run(argv, seconds)
    except Hang:
        pytest.fail(f"hang: {_show(argv)}")
    assert code == 2, f"exit {code} for {_show(argv)}: {err[:300]!r} {out[:300]!r}"
    assert out == "", f"stdout for {_show(argv)}: {out[:300]!r}"
    assert err.endswith("\n") and err.count("\n") == 1, f"not one line for {_show(argv)}: {err[:500]!r}"
    assert err.startswith("dpcert: error:"), err[:300]
    assert "internal error" not in err and "Traceback" not in err, err[:300]
    assert len(err) < 1500, f"{len(err)} characters for {_show(argv)}: {err[:300]!r}"
    return err


def _show(argv: list[str]) -> str:
    return repr([a if len(a) < 60 else a[:40] + f"…({len(a)})" for a in argv])


def refused_by_parser(argv: list[str]) -> bool:
    """Whether argparse itself refuses ``argv`` (before any command runs)."""
    err = io.StringIO()
    try:
        with redirect_stderr(err):
            _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code == 2 and err.getvalue().count("\n") == 1
    return False


# ------------------------------------------------------------------------------------------------ generators

#: Values no parameter accepts: numbers, integers, lists, choices and order ranges all refuse them.
BAD_TEXT = [
    "١٢",  # Arabic-Indic digits
    "１２",  # fullwidth digits
    "0.١",
    "1e١",
    "١..٣",
    "1e999999999",
    "1e-999999999",
    "7" * 5000,  # past Python's int-string limit
    "0." + "0" * 5000 + "1",
    "1/" + "7" * 5000,
    "1e" + "9" * 5000,
    "nan",
    "inf",
    "-inf",
    "",
    "1/0",
    "0x10",
    "1_000",
    "abc",
    "1\n2",
    "1e",
    ".",
    "+-1",
    "2..1000000000",
    "1e9..2",
    ",".join(["0.1"] * 200_000),  # a long list
    "x" * 100_000,
]
#: Values a parameter may well accept: filler around the one defect every example has.
PLAUSIBLE = ["1", "3", "0.5", "1/3", "1e-6", "0", "11", "sub", "one", "2..4"]
#: Option values no typed option accepts (integers in a range, or a positive finite number of seconds).
BAD_OPTION = ["١٢٨", "1e9", "-5", "99999999999999999999999", "", "nan", "inf", "0x40", "12 8", "1" * 5000]

non_ascii = st.text(st.characters(min_codepoint=0x80, max_codepoint=0x2FFF), min_size=1, max_size=12)


#: an event no certified method covers under add/remove (fixed draws: replace-one only)
_UNCOVERED = (
    '{"type": "SampledWithReplacementDpEvent", "source_dataset_size": 9, "sample_size": 2, '
    '"event": {"type": "GaussianDpEvent", "noise_multiplier": 1}}'
)


def _write(d: Path, name: str, data: str | bytes) -> str:
    p = d / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(p)


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    """Files no command accepts, by kind: generic (any reader), and per reader (manifest, mechanism, certificate)."""
    d = tmp_path_factory.mktemp("bad_inputs")
    fifo = d / "fifo.json"
    os.mkfifo(fifo)
    loop = d / "loop.json"
    os.symlink(loop, loop)
    generic = [str(fifo), "/dev/zero", str(loop), str(d / "missing.json")]
    for suffix in (".json", ".csv", ".toml"):
        generic += [
            _write(d, f"binary{suffix}", b"\x00\x01\x02binary"),
            _write(d, f"latin1{suffix}", "caf\xe9 = 1\n".encode("latin-1")),
            _write(d, f"bom{suffix}", "\ufeff[1]\n"),
            _write(d, f"empty{suffix}", ""),
            _write(d, f"deep{suffix}", "a = " + "[" * 5000 + "]" * 5000 + "\n"),
        ]
    generic.append(_write(d, "deep_json.json", "[" * 5000 + "]" * 5000))
    generic.append(_write(d, "dup.json", '{"a": 1, "a": 2}'))
    claim = '[[claims]]\nid = "t.x.{i}"\nreference = "r"\nquantity = "composition.simple.eps"\n'
    manifest = [
        _write(
            d,
            "cycle_a.toml",
            'include = ["cycle_b.toml"]\n' + claim.format(i=0) + 'inputs = { k = 2, eps = "0.1" }\nat_most = "1"\n',
        ),
        _write(d, "cycle_b.toml", 'include = ["cycle_a.toml"]\n'),
        _write(d, "digits.toml", claim.format(i=1) + 'inputs = { k = 2, eps = "١٢" }\nat_most = "1"\n'),
        _write(d, "huge.toml", claim.format(i=2) + 'inputs = { k = 2, eps = "1e-999999999" }\nat_most = "1"\n'),
        _write(d, "unknown.toml", claim.format(i=3).replace("composition.simple.eps", "no.such") + 'at_most = "1"\n'),
        _write(d, "comment_only.toml", "# nothing to verify\n"),
    ]
    rows = lambda s0, s1: json.dumps({"rows": [{"secret": s0, "p": [1, 0]}, {"secret": s1, "p": [0, 1]}]})  # noqa: E731
    mechanism = [
        _write(d, "merge.json", rows(1, "1")),
        _write(d, "null.json", rows(None, "a")),
        _write(d, "list.json", rows(["a"], "b")),
        _write(d, "digits.csv", "secret,input,y,z\na,x,١/٢,١/٢\n"),
        _write(d, "exponent.csv", "secret,input,y,z\na,x,1e999999999,0\n"),
        _write(d, "sum.csv", "secret,input,y,z\na,x,1/2,1/3\n"),
        _write(d, "bigfield.csv", "secret,input,y\n" + "a" * (140 * 1024) + ",x,1\n"),
        str(d),
    ]
    certificate = [str(loop), str(d / "missing.json")] + [p for p in generic if p.endswith(".json") and "fifo" not in p]
    (d / "dir.csv").mkdir()
    table = [  # files that are no table at all (a table with malformed rows is checked, its rows reported)
        _write(d, "no_columns.csv", "a,b\n1,2\n"),
        _write(d, "dup_columns.csv", "quantity,value,value,claim\n"),
        _write(d, "rows_object.json", '{"rows": {}}'),
        _write(d, "inline.toml", 'rows = [{quantity = "x"}]\n'),
        _write(d, "table.txt", "quantity,value,claim\n"),
        _write(d, "too_many.csv", "quantity,k,eps,value,claim\n" + "composition.simple.eps,3,0.1,0.3,upper\n" * 10001),
        str(d / "dir.csv"),
    ]
    vector = {
        "id": "composition.simple.eps.x",
        "topic": "composition",
        "quantity": "composition.simple.eps",
        "inputs": {"k": "1", "eps": "0.1"},
        "lo": "0.1",
        "hi": "0.1",
        "exact": True,
        "why": "w",
        "certificate": {"file": "certificates/vectors.composition.simple.eps.x.json", "sha256": "0" * 64},
        "dpcert": "0.1.0",
    }
    vdoc = lambda **kw: json.dumps(  # noqa: E731
        {"format": "dpcert-vectors", "version": 1, "dpcert": "0.1.0", "digits": 20, "vectors": [{**vector, **kw}]}
    )
    vectors = [
        _write(d, "not_vectors.json", '{"a": 1}'),
        _write(d, "v_quantity.json", vdoc(quantity="no.such")),
        _write(d, "v_inputs.json", vdoc(inputs={"k": "0", "eps": "0.1"})),
        _write(d, "v_digits.json", vdoc(inputs={"k": "١", "eps": "0.1"})),
        _write(d, "v_order.json", vdoc(lo="2", hi="1")),
        _write(d, "v_exponent.json", vdoc(lo="1e-999999999")),
        _write(d, "v_sha.json", vdoc(certificate={"file": "/etc/passwd", "sha256": "0"})),
    ]
    events = [
        _write(d, "e_type.json", '{"type": "GaussianDpEvent2", "noise_multiplier": 1}'),
        _write(d, "e_field.json", '{"type": "GaussianDpEvent", "sigma": 1}'),
        _write(d, "e_range.json", '[{"type": "PoissonSampledDpEvent", "sampling_probability": 2, "event": {}}]'),
        _write(d, "e_digits.json", '{"type": "GaussianDpEvent", "noise_multiplier": "١"}'),
        _write(d, "e_huge.json", '{"type": "GaussianDpEvent", "noise_multiplier": 1e999999999}'),
        _write(d, "e_deep.json", '{"type": "SelfComposedDpEvent", "count": 1, "event": ' * 70 + "{}" + "}" * 70),
        _write(d, "e_uncovered.json", _UNCOVERED),
        _write(d, "e_nonprivate.json", '{"type": "GaussianDpEvent", "noise_multiplier": 0}'),
    ]
    out = [str(d), str(d / "missing" / "v.json"), str(d / "binary.json" / "v.json")]
    certdir = [str(d / "binary.json"), str(d / "missing" / "deeper")]
    return {
        "generic": generic,
        "manifest": manifest,
        "mechanism": mechanism,
        "certificate": certificate,
        "table": table,
        "vectors": vectors,
        "events": events,
        "out": out,
        "certdir": certdir,
    }


def _leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
        return
    for action in subs:
        for name, sub in action.choices.items():
            yield from _leaves(sub, (*prefix, name))


def _typed_options(parser: argparse.ArgumentParser) -> list[str]:
    return [a.option_strings[-1] for a in parser._actions if a.option_strings and a.type is not None]


#: name=value commands and a valid input set of each (every example breaks it, or plausible filler, somewhere)
INPUT_NAMES = {
    ("darrm", "certify"): {"gamma": "sub", "K": "11", "m": "3", "eps": "0.1", "Delta": "1e-5", "delta": "0.00003"},
    ("darrm", "error"): {"gamma": "sub", "K": "11", "m": "3", "mu": "0.75"},
    ("darrm", "optimize"): {"K": "11", "m": "3", "eps": "0.1", "Delta": "1e-5", "delta": "0.00003", "prior": "0.75"},
    ("shuffle", "rdp"): {"n": "1000", "eps0": "1", "lam": "2..4"},
    ("shuffle", "dp"): {"n": "1000000", "eps0": "0.5", "T": "1000", "delta": "1e-6"},
    ("br", "compare"): {"k": "10", "eps": "0.1", "delta": "1e-6"},
    ("br", "optimum"): {"k": "10", "eps": "1", "eps_g": "0"},
    ("br", "adaptive"): {"k": "4", "eps": "1", "eps_g": "0"},
    ("dpsgd", "eps"): {"q": "0.01", "sigma": "1", "steps": "1000", "delta": "1e-5"},
    ("dpsgd", "delta"): {"q": "0.01", "sigma": "1", "steps": "1000", "eps": "2"},
    ("dpsgd", "sigma"): {"q": "0.01", "steps": "1000", "eps": "2", "delta": "1e-5"},
}
FILE_COMMANDS = {
    ("verify",): "manifest",
    ("check",): "certificate",
    ("sml", "mechanism"): "mechanism",
    ("table", "check"): "table",
    ("vectors", "check"): "vectors",
    ("account",): "events",
}
OTHER = {("list",), ("quantities",), ("eval",), ("claim",), ("table", "template"), ("vectors", "export"), ("audit",)}
COMMANDS = sorted(INPUT_NAMES) + sorted(FILE_COMMANDS) + sorted(OTHER)


def test_every_subcommand_has_a_generator():
    found = {path for path, _ in _leaves(_parser())}
    assert found == set(COMMANDS), f"give these commands a bad-input generator here: {found ^ set(COMMANDS)}"


def _quantities() -> dict[str, dict[str, str]]:
    """Every quantity with a valid input set when a registered claim has one (else its names, values to draw)."""
    from dpcert.core.claim import QuantityClaim
    from dpcert.engine import registry

    out = {name: dict.fromkeys((p.name for p in q.params), "") for name, q in registry.quantities().items()}
    for c in registry.claims().values():
        if isinstance(c, QuantityClaim) and not c.slow and all(isinstance(v, (str, int)) for v in c.inputs.values()):
            out[c.quantity.name] = {k: str(v) for k, v in c.inputs.items()}
    return out


@st.composite
def bad_inputs(draw, valid: dict[str, str], files: list[str]):
    """name=value items with at least one defect: a bad value, a repeated or unknown name, no '=', or no name.

    The other items are either the valid set (so the one defect must be found on its own) or plausible filler.
    """
    if all(valid.values()) and draw(st.booleans()):
        items = [f"{n}={v}" for n, v in valid.items()]
    else:
        items = [f"{n}={draw(st.sampled_from(PLAUSIBLE))}" for n in valid]
    bad_value = st.one_of(st.sampled_from(BAD_TEXT), non_ascii, st.sampled_from(files))
    defects = draw(
        st.lists(st.sampled_from(["value", "repeat", "unknown", "no_eq", "no_name"]), min_size=1, max_size=3)
    )
    for defect in defects:
        if defect == "value" and items:
            i = draw(st.integers(0, len(items) - 1))
            items[i] = items[i].split("=", 1)[0] + "=" + draw(bad_value)
        elif defect == "repeat" and items:
            items.append(draw(st.sampled_from(items)))
        elif defect == "no_eq":
            items.append(draw(st.sampled_from(["k", "eps"]) | non_ascii.filter(lambda s: "=" not in s)))
        elif defect == "no_name":
            items.append("=" + draw(st.sampled_from(PLAUSIBLE)))
        else:
            items.append(draw(st.sampled_from(["zz", "ε", "K2"]) | non_ascii.filter(lambda s: "=" not in s)) + "=1")
    return draw(st.permutations(items))


@st.composite
def options(draw, parser: argparse.ArgumentParser, *, bad: bool):
    """Typed options with valid-looking or (``bad``) refused values, and sometimes an unknown option."""
    out: list[str] = []
    typed = _typed_options(parser)
    if bad and (not typed or draw(st.booleans())):
        return [draw(st.sampled_from(["--bogus", "--max-prec=", "--json=1"]))]
    if bad:
        out += [draw(st.sampled_from(typed)), draw(st.sampled_from(BAD_OPTION))]
    if draw(st.booleans()) and any(a.option_strings == ["--json"] for a in parser._actions):
        out.append("--json")
    return out


def _argv(draw, path: tuple[str, ...], parser: argparse.ArgumentParser, files: dict[str, list[str]]) -> list[str]:
    """One bad command line for ``path``: its inputs, files or options hold at least one defect."""
    every_file = files["generic"]
    if path in INPUT_NAMES:
        bad_option = draw(st.booleans()) and draw(st.booleans())
        inputs = draw(bad_inputs(INPUT_NAMES[path], every_file))
        return [*path, *inputs, *draw(options(parser, bad=bad_option))]
    if path in FILE_COMMANDS:
        kind = FILE_COMMANDS[path]
        pool = files[kind] + ([] if kind == "certificate" else every_file)
        if kind == "events":  # one event file, and the answer asked for
            target = draw(st.sampled_from([["--delta", "1e-5"], ["--eps", "1"]]))
            return [*path, draw(st.sampled_from(pool)), *target, *draw(options(parser, bad=False))]
        if kind == "certificate":  # check reports each unreadable certificate on its own line (and in --json)
            return [*path, draw(st.sampled_from(pool))]
        chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2))
        return [*path, *chosen, *draw(options(parser, bad=False))]
    if path == ("table", "template"):
        name = draw(st.sampled_from(["no.such.quantity", "composition.simple", "١٢", ""]) | non_ascii)
        fmt = draw(st.sampled_from([[], ["--format", "xml"], ["--format", "csv"], ["--format", ""], ["--bogus"]]))
        return ["table", "template", name, *fmt]
    if path == ("list",):
        glob = draw(st.sampled_from(["zz*", "nope", "darrm.nothing.*", "١٢"]) | non_ascii)
        return ["list", glob]
    if path == ("quantities",):
        return ["quantities", *draw(options(parser, bad=True))]
    if path == ("vectors", "export"):  # every defect is refused before any vector is certified
        defect = draw(st.sampled_from(["topic", "format", "out", "certificates", "max-prec", "csv-json", "other"]))
        argv = ["vectors", "export"]
        if defect == "topic":
            argv += ["--topic", draw(st.sampled_from(["nope", "١٢", "", "composition.kov"]) | non_ascii)]
        elif defect == "format":
            argv += ["--format", draw(st.sampled_from(["xml", "JSON", "", "١"]))]
        elif defect == "out":
            argv += ["--out", draw(st.sampled_from(files["out"]))]
        elif defect == "certificates":
            argv += ["--certificates", draw(st.sampled_from(files["certdir"]))]
        elif defect == "max-prec":
            argv += ["--max-prec", draw(st.sampled_from(BAD_OPTION))]
        elif defect == "csv-json":
            argv += ["--format", "csv", "--json"]
        else:
            argv += [draw(st.sampled_from(["--bogus", "extra", "--topic"]))]
        return argv
    if path == ("audit",):  # an unknown peer or a bad vectors file (refused before any peer runs), a bad option
        which = draw(st.sampled_from(["peer", "vectors", "option"]))
        if which == "peer":
            peer = draw(st.sampled_from(["no-such-peer", "", "dp_accounting", "DP-ACCOUNTING", "١٢"]) | non_ascii)
            return ["audit", "--peer", peer, *draw(options(parser, bad=False))]
        if which == "vectors":
            return ["audit", "--vectors", draw(st.sampled_from(every_file)), *draw(options(parser, bad=False))]
        bad = [["--bogus"], ["--json", "--markdown"], ["--peer"], ["--json=1"]]
        bad += [["--call-seconds", v] for v in ("0", "-1", "inf", "nan", "1e9", "١")]
        return ["audit", *draw(st.sampled_from(bad))]
    # eval and claim: a registered quantity (or none such) and its inputs, one defect at least
    qs = _quantities()
    name = draw(st.sampled_from(sorted(qs)) | st.sampled_from(["no.such.quantity", "composition.simple"]))
    valid = qs.get(name, {"k": "2", "eps": "0.1"})
    bad_option = name in qs and draw(st.booleans()) and draw(st.booleans())
    inputs = draw(bad_inputs(valid, every_file))
    argv = [path[0], name, *inputs, *draw(options(parser, bad=bad_option))]
    if path == ("claim",):
        argv += [draw(st.sampled_from(["--at-most", "--at-least", "--rounds-to", "--truncates-to"]))]
        argv += [draw(st.sampled_from(["1", "0.5"] + BAD_TEXT[:6]))]
    return argv


_PARSERS = {path: parser for path, parser in _leaves(_parser())}


def _property(path: tuple[str, ...], files: dict[str, list[str]], examples: int) -> None:
    parser = _PARSERS[path]

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def check(data):
        argv = _argv(data.draw, path, parser, files)
        data.draw(st.just(_show(argv)), label="argv")
        assert_refused(argv)

    check()


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_bad_inputs_are_refused_in_one_line(path, bad_files):
    _property(path, bad_files, EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_many_bad_inputs_are_refused_in_one_line(path, bad_files):
    """The same property with eight times the examples (``pytest -m slow``)."""
    _START[:] = [time.monotonic()]
    _property(path, bad_files, 8 * EXAMPLES)


@pytest.mark.parametrize("group", ["darrm", "sml", "shuffle", "br", "table", "vectors"])
def test_an_unknown_subcommand_is_one_line(group):
    assert_refused([group, "bogus"])
    assert_refused([group, "١٢", "k=1"])


def test_an_unknown_command_is_one_line():
    assert_refused(["bogus"])
    assert_refused(["a\nb"])


# ------------------------------------------------------------------------------------------------ regressions


def test_non_ascii_digits_are_refused():
    """Before: ``eps=١٢`` meant 12 (exit 0, 24 printed)."""
    err = assert_refused(["eval", "composition.simple.eps", "k=2", "eps=١٢"])
    assert "ASCII" in err


def test_a_repeated_name_is_refused():
    """Before: ``k=1 k=2`` silently took k = 2."""
    err = assert_refused(["eval", "composition.simple.eps", "k=1", "eps=0.1", "k=2"])
    assert "given twice" in err


@pytest.mark.parametrize("digits", [4301, 5000, 8000])
def test_numbers_past_pythons_int_string_limit(digits):
    """Before: 4,301–8,010 digits were an internal error (ValueError from int())."""
    for value in ["7" * digits, "0." + "7" * digits, "1/" + "7" * digits]:
        err = assert_refused(["eval", "composition.simple.eps", "k=2", f"eps={value}"])
        assert "at most 4000 digits" in err and f"({len(value)} characters)" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["darrm", "certify", "gamma=one", "K=3", "m=1", "eps=1", "Delta=0", "delta=0", "--max-prec", v]
        for v in ("0", "-5", "1000000000", "١٢٨")
    ]
    + [
        ["darrm", "certify", "gamma=one", "K=3", "m=1", "eps=1", "Delta=0", "delta=0", "--workers", v]
        for v in ("0", "100000", "١")
    ]
    + [["br", "adaptive", "k=2", "eps=1", "eps_g=0", "--n", v] for v in ("0", "1000000000", "1e9")]
    + [["br", "adaptive", "k=2", "eps=1", "eps_g=0", "--workers", v] for v in ("0", "100000")]
    + [["br", "adaptive", "k=2", "eps=1", "eps_g=0", "--executor", "threads"]]
    + [["br", "adaptive", "k=2", "eps=1", "eps_g=0", "--seconds", v] for v in ("inf", "nan", "0", "-1", "1e9")]
    + [["sml", "mechanism", "m.json", "--node-limit", v] for v in ("-1", "١٢")]
    + [["sml", "mechanism", "m.json", "--workers", v] for v in ("0", "100000")]
    + [["eval", "composition.simple.eps", "k=2", "eps=1", "--max-prec", v] for v in ("١٢٨", "63")],
    ids=lambda a: " ".join(a[:2] + a[-2:]),
)
def test_options_are_validated_when_parsed(argv):
    """Before: darrm certify took --max-prec 0, -5 and 10^9 and --workers 100000; br adaptive took --n 10^9 (3.7 GB)
    and --seconds inf (never stopped). Checked at the parser: nothing runs, whatever the command would do."""
    assert refused_by_parser(argv)


def test_odd_k_has_a_stated_cap_checked_before_work():
    """Before: K = 1000001 ran into 1.5 GB of memory (a hang)."""
    err = assert_refused(["darrm", "certify", "gamma=sub", "K=1000001", "m=3", "eps=1", "Delta=0", "delta=0"], 5)
    assert "K <= 201" in err
    err = assert_refused(["darrm", "error", "gamma=sub", "K=1000001", "m=3", "mu=0.5"], 5)
    assert "K <= 1001" in err
    err = assert_refused(["darrm", "error", "gamma=sub", "K=1003", "m=3", "p=" + ",".join(["0.7"] * 1003)], 5)
    assert "K <= 1001" in err
    # the quantities behind `dpcert eval` take the same caps
    err = assert_refused(
        ["eval", "darrm.privacy.margin", "gamma=sub", "K=1000001", "m=3", "eps=1", "Delta=0", "delta=0"], 5
    )
    assert "<= 201" in err
    assert "<= 1001" in assert_refused(["eval", "darrm.error", "gamma=sub", "K=1000001", "m=3", "mu=0.5"], 5)


def test_darrm_error_counts_p_before_parsing_it():
    err = assert_refused(["darrm", "error", "gamma=one", "K=3", "m=1", "p=" + ",".join(["x"] * 10**5)])
    assert "3 comma-separated probabilities" in err


def test_lam_ranges_are_counted_before_the_list_is_built():
    """Before: ``lam=2..2000000`` built two million strings, then refused them (``lam=2..10^9``: 3.5 GB)."""
    tracemalloc.start()
    try:
        err = assert_refused(["shuffle", "rdp", "n=1000", "eps0=1", "lam=2..2000000"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "at most 10000 orders" in err
    assert peak < 20 * 2**20, f"{peak} bytes"
    assert_refused(["shuffle", "rdp", "n=1000", "eps0=1", "lam=2..1000000000"], 5)


@pytest.mark.parametrize("lam", ["", ",", " , "])
def test_an_empty_lam_is_an_error(lam):
    """Before: ``lam=`` printed an empty table and exited 0."""
    err = assert_refused(["shuffle", "rdp", "n=1000", "eps0=1", f"lam={lam}"])
    assert "at least one order" in err


def test_every_order_is_parsed_before_the_first_is_computed(monkeypatch):
    """Before: ``lam=2,١٢`` computed the λ = 2 row, then refused ١٢."""
    from dpcert.shuffle import QUANTITIES

    calls = []
    q = QUANTITIES["shuffle.rdp.thm2"]
    monkeypatch.setattr(type(q), "enclose", lambda self, *a, **k: calls.append(self.name) or 1 / 0)
    assert_refused(["shuffle", "rdp", "n=1000", "eps0=1", "lam=2,١٢"])
    assert calls == []


def test_an_empty_manifest_is_an_error(tmp_path):
    """Before: a manifest naming no claim verified nothing and exited 0."""
    m = tmp_path / "m.toml"
    m.write_text("# nothing\n")
    assert "no claims" in assert_refused(["verify", str(m), "-q"])


def test_a_mechanism_whose_secrets_1_and_text_1_would_merge_is_refused(tmp_path):
    """Before: secrets 1 and "1" merged into one secret: SML 0 instead of log 2, exit 0."""
    m = tmp_path / "m.json"
    m.write_text(json.dumps({"rows": [{"secret": 1, "p": [1, 0]}, {"secret": "1", "p": [0, 1]}]}))
    assert "row[0].secret" in assert_refused(["sml", "mechanism", str(m)])


def test_a_long_bad_value_is_quoted_briefly():
    """Before: the value of an unknown name was echoed whole (a 100,000-character line)."""
    err = assert_refused(["eval", "composition.simple.eps", "k=2", "eps=1", "zz=" + "x" * 100_000])
    assert len(err) < 400 and "100002 characters" in err
    err = assert_refused(["eval", "composition.simple.eps", "k=2", "eps=" + "x" * 100_000])
    assert len(err) < 400


_CHECK_SCRIPT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from dpcert.cli import main
sys.exit(main(["check", sys.argv[1]]))
"""


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_check_refuses_a_fifo_or_a_device_in_one_line(tmp_path, kind):
    """``dpcert check`` of a FIFO (it blocked) or /dev/zero (it read without end): one line, exit 2, in a
    memory-limited subprocess so that an unbounded reader cannot hurt the machine running the tests."""
    path = "/dev/zero"
    if kind == "fifo":
        path = str(tmp_path / "c.json")
        os.mkfifo(path)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHECK_SCRIPT, path], capture_output=True, text=True, timeout=20, env=env
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"dpcert check {kind} hung")
    assert proc.returncode == 2, proc.stderr[-500:]
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("dpcert: error:"), proc.stderr[-500:]
    assert "internal error" not in proc.stderr


@pytest.mark.parametrize("option", ["--rounds-to", "--truncates-to", "--at-most", "--at-least"])
def test_printed_values_of_a_claim_are_ascii_digits(option):
    """Before: ``--rounds-to ٠.٢`` read as 0.2 (the printed-number pattern used ``\\d``) and the claim was
    CERTIFIED."""
    assert_refused(["claim", "composition.simple.eps", "k=2", "eps=0.1", option, "٠.٢"])


def test_darrm_error_refuses_an_exact_error_too_large_to_compute_before_the_work():
    """Before: K = 1001 with a 100-digit mu ran for minutes (eval and darrm error alike)."""
    mu = "0." + "3" * 100
    for argv in (["darrm", "error"], ["eval", "darrm.error"]):
        err = assert_refused([*argv, "gamma=sub", "K=1001", "m=3", f"mu={mu}"], 5)
        assert "fewer digits" in err


def test_darrm_error_valid_inputs_finish_and_print():
    """Before: K = 1001 with mu = 0.1234567 was an internal error (the exact value has more than 4300 digits, past
    Python's int-to-string limit), and K = 401 different 7-digit probabilities took 14 s (a Fraction per cell)."""
    code, out, err = run(["darrm", "error", "gamma=sub", "K=1001", "m=3", "mu=0.1234567", "--json"], 10)
    assert code == 0 and err == ""
    from flint import fmpq, fmpz

    from dpcert.darrm import QUANTITIES

    exact = json.loads(out)["error"]["exact"]
    assert len(exact) > 4300
    value = fmpq(*(fmpz(x) for x in exact.split("/")))  # FLINT reads what int() would refuse
    # the float evaluator (an independent float64 sum) agrees
    fl = QUANTITIES["darrm.error"].evaluate_float(gamma="sub", K=1001, m=3, mu="0.1234567")
    assert abs(float(value) - fl) < 1e-12
    start = time.perf_counter()
    code, out, _ = run(["darrm", "error", "gamma=sub", "K=401", "m=3", "p=" + ",".join(["0.1234567"] * 401)], 10)
    assert code == 0 and time.perf_counter() - start < 5
