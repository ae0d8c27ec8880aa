"""Malformed rows are ERROR with their line number and stop nothing; malformed files are one line and exit 2."""

from __future__ import annotations

import io
import json
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from dpcert.cli import main
from dpcert.core.claim import Verdict
from dpcert.errors import InvalidParameter
from dpcert.tables.check import check_table
from dpcert.tables.reader import MAX_ROWS, read_table

GOOD = "composition.general.eps,20,0.2676,,0.0001,5.352,digits,,"
CSV_ROWS = [
    ("quantity,k,eps,delta,delta_prime,value,claim,figures,expected", None),
    (GOOD, None),
    ("composition.no_such,20,0.2676,,0.0001,5.352,digits,,", "invalid quantity='composition.no_such'"),
    ("composition.general.eps,20,,,0.0001,5.352,digits,,", "missing input eps of composition.general.eps"),
    ("composition.general.eps,20,0.2676,0.1,0.0001,5.352,digits,,", "unknown input 'delta' of composition.general.eps"),
    ("composition.general.eps,20,0.2676,,0.0001,abc,upper,,", "invalid value='abc'"),
    ("composition.general.eps,20,0.2676,,0.0001,n/a,digits,,", "invalid printed='n/a'"),
    ("composition.general.eps,20,0.2676,,0.0001,5.352,approx,,", "invalid claim='approx'"),
    ("composition.general.eps,20,0.2676,,0.0001,5.352,digits,three,", "invalid figures='three'"),
    ("composition.general.eps,20,0.2676,,0.0001,5.352,upper,3,", "figures go with digits"),
    ("composition.general.eps,20,0.2676,,0.0001,5.352,digits,,MAYBE", "invalid expected='MAYBE'"),
    ("composition.general.eps,20,-1,,0.0001,5.352,digits,,", "invalid eps='-1'"),
    ("composition.general.eps,0,0.2676,,0.0001,5.352,digits,,", "invalid k='0'"),
    ("composition.general.eps,20,0.١,,0.0001,5.352,digits,,", "ASCII"),
    ("composition.general.eps,20,0.2676", "3 cells, but the header names 9 columns"),
    (GOOD, None),
]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_every_malformed_row_kind_is_an_error_on_its_line(tmp_path):
    path = _write(tmp_path, "bad.csv", "\n".join(r for r, _ in CSV_ROWS) + "\n")
    report = check_table(path, workers=2)
    assert [r.line for r in report.rows] == list(range(2, len(CSV_ROWS) + 1))
    for (_, problem), r in zip(CSV_ROWS[1:], report.rows, strict=True):
        if problem is None:
            assert r.verdict is Verdict.CERTIFIED, r.detail
        else:
            assert r.verdict is Verdict.ERROR and problem in r.detail, (r.line, r.detail)
            assert r.to_json()["enclosure"] is None and r.to_json()["line"] == r.line
    assert report.exit_code == 2


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_command_reports_malformed_rows_without_a_traceback(tmp_path):
    path = _write(tmp_path, "bad.csv", "\n".join(r for r, _ in CSV_ROWS) + "\n")
    code, out, err = _run(["table", "check", str(path), "--workers", "1"])
    assert code == 2
    assert "Traceback" not in out + err and "internal error" not in err
    for line, (_, problem) in enumerate(CSV_ROWS[1:], 2):
        if problem is not None:
            assert f"  line {line}: ERROR (expected CERTIFIED): " in out
    code, out, err = _run(["table", "check", str(path), "--json", "-q"])
    rows = json.loads(out)["rows"]
    assert code == 2 and err == ""
    assert [r["verdict"] for r in rows].count("CERTIFIED") == 2
    assert {r["line"] for r in rows if r["verdict"] == "ERROR"} == set(range(3, len(CSV_ROWS)))


def test_json_rows_that_are_not_objects_or_hold_other_values(tmp_path):
    text = """{
  "rows": [
    {"quantity": "composition.simple.eps", "k": 3, "eps": 0.1, "value": 0.3, "claim": "upper"},
    [1, 2],
    {"quantity": "composition.simple.eps", "k": true, "eps": "0.1", "value": "0.3", "claim": "upper"},
    {"quantity": "composition.simple.eps", "k": 3, "eps": null, "value": "0.3", "claim": "upper"},

    {"quantity": "composition.simple.eps", "k": 3, "eps": {"a": 1}, "value": "0.3",
     "claim": "upper"},
    "composition.simple.eps",
    {"quantity": "composition.simple.eps", "k": 3, "eps": "0.1", "value": "0.3", "claim": "upper"}
  ]
}
"""
    report = check_table(_write(tmp_path, "t.json", text), workers=1)
    got = [(r.line, r.verdict.value) for r in report.rows]
    assert got == [(3, "CERTIFIED"), (4, "ERROR"), (5, "ERROR"), (6, "ERROR"), (8, "ERROR"), (10, "ERROR"),
                   (11, "CERTIFIED")]  # fmt: skip
    details = [r.detail for r in report.rows]
    assert "not a list" in details[1] and "true/false" in details[2] and "null" in details[3]
    assert "an object" in details[4] and "not a string" in details[5]


def test_toml_cells_that_are_not_numbers_or_strings(tmp_path):
    text = """# a comment
[[rows]]
quantity = "composition.simple.eps"
k = 3
eps = 0.1
value = "0.3"
claim = "upper"

[[rows]]
quantity = "composition.simple.eps"
k = 3
eps = true
value = "0.3"
claim = "upper"

[[rows]]
quantity = "composition.simple.eps"
k = 3
eps = 1979-05-27
value = "0.3"
claim = "upper"
"""
    report = check_table(_write(tmp_path, "t.toml", text), workers=1)
    assert [(r.line, r.verdict.value) for r in report.rows] == [(2, "CERTIFIED"), (9, "ERROR"), (16, "ERROR")]
    assert "column 'eps'" in report.rows[1].detail


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("t.txt", "quantity,value,claim\n", "ends in .csv, .json or .toml"),
        ("t.csv", "", "a header line naming the columns"),
        ("t.csv", "# only a comment\n\n", "a header line naming the columns"),
        ("t.csv", "quantity,k,value\n", "lacks claim"),
        ("t.csv", "quantity,k,k,value,claim\n", "names 'k' twice"),
        ("t.csv", "quantity,,value,claim\n", "an empty column name"),
        ("t.csv", 'quantity,value,claim\n"a,b\n', "valid CSV"),
        ("t.json", "[1, 2", "valid JSON"),
        ("t.json", '{"rows": {}}', "whose rows are a list"),
        ("t.json", '{"rows": [], "extra": 1}', "not ['extra']"),
        ("t.json", '"rows"', "a JSON table"),
        ("t.json", '{"description": 1, "rows": []}', "whose description is a string"),
        ("t.toml", 'rows = [{quantity = "x"}]\n', "each row written as a [[rows]] table"),
        ("t.toml", "description = 'nothing'\n", "with its rows as [[rows]] tables"),
        ("t.toml", "rows = 1\n", "with its rows as [[rows]] tables"),
        ("t.toml", "[[rows]\n", "valid TOML"),
        ("t.toml", "x = 1\n[[rows]]\nquantity = 'a'\n", "not ['x']"),
    ],
)
def test_a_file_that_is_not_a_table_is_one_line_and_exit_2(tmp_path, name, text, problem):
    path = _write(tmp_path, name, text)
    with pytest.raises(InvalidParameter) as exc:
        read_table(path)
    assert problem in str(exc.value)
    code, out, err = _run(["table", "check", str(path)])
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("dpcert: error: ")
    assert problem in err


def test_the_row_limit_is_checked_before_any_row_runs(tmp_path):
    row = "composition.simple.eps,3,0.1,0.3,upper\n"
    path = _write(tmp_path, "big.csv", "quantity,k,eps,value,claim\n" + row * (MAX_ROWS + 1))
    t0 = time.perf_counter()
    code, out, err = _run(["table", "check", str(path), "-q"])
    assert code == 2 and out == "" and f"at most {MAX_ROWS} rows" in err
    assert time.perf_counter() - t0 < 2  # refused while reading, not after checking 10,000 rows
    big_json = _write(tmp_path, "big.json", json.dumps({"rows": [{"quantity": "x"}] * (MAX_ROWS + 1)}))
    with pytest.raises(InvalidParameter, match=f"at most {MAX_ROWS} rows"):
        read_table(big_json)


def test_a_row_cannot_make_dpcert_read_another_file(tmp_path):
    """A choice parameter that takes a table takes its values, not a path, from a table row."""
    gamma = _write(tmp_path, "gamma.csv", "l,gamma\n0,1\n1,1\n")
    text = f"quantity,gamma,K,m,mu,value,claim\ndarrm.error,{gamma},3,1,0.75,1,upper\n"
    report = check_table(_write(tmp_path, "t.csv", text), workers=1)
    assert report.rows[0].verdict is Verdict.ERROR and "not a path" in report.rows[0].detail


def test_a_huge_json_integer_is_an_error_of_its_row_only(tmp_path):
    """An integer of 5000 digits (past Python's int-string limit) is refused by the exact parser, on its row."""
    rows = [
        {"quantity": "composition.simple.eps", "k": 3, "eps": "0.1", "value": "0.3", "claim": "upper"},
        {"quantity": "composition.simple.eps", "k": 3, "eps": "0.1", "value": "0.3", "claim": "upper"},
    ]
    text = json.dumps({"rows": rows}, indent=1).replace('"k": 3', '"k": ' + "7" * 5000, 1)
    report = check_table(_write(tmp_path, "t.json", text), workers=1)
    assert [r.verdict.value for r in report.rows] == ["ERROR", "CERTIFIED"]
    assert "at most 4000 digits" in report.rows[0].detail


def test_no_quantity_has_an_input_named_like_a_table_column():
    """A parameter called value, claim, figures, expected, note or quantity could not be given in a table."""
    from dpcert.engine import registry
    from dpcert.tables.reader import OPTIONAL, REQUIRED

    clash = {
        (q.name, p.name) for q in registry.quantities().values() for p in q.params if p.name in REQUIRED + OPTIONAL
    }
    assert clash == set()
