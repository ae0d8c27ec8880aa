"""``dpcert table check`` and ``dpcert table template`` on the command line: JSON rows, certificates that
``dpcert check`` re-checks, progress on stderr, templates that read back with the quantity's columns."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from dpcert.cli import main
from dpcert.engine import registry
from dpcert.tables.reader import read_table

EXAMPLES = Path(__file__).resolve().parents[2] / "verify" / "tables" / "examples"
TABLE = """quantity,k,eps,delta,delta_prime,value,claim,expected
composition.general.eps,50,0.2676,,0.0001,9.900,digits,
composition.general.delta,20,,0.0003,0.0001,0.006,upper,REFUTED
composition.general.eps,20,0.2676,,0.0001,5.352,upper,
composition.general.eps,20,0.2676,,,5.352,upper,
"""


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse refusals
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def table(tmp_path) -> Path:
    p = tmp_path / "mine.csv"
    p.write_text(TABLE)
    return p


def test_json_has_one_object_with_a_list_of_rows(table):
    code, out, err = run(["table", "check", str(table), "--json", "--workers", "1"])
    doc = json.loads(out)
    assert code == 2 and doc["exit_code"] == 2  # line 5 is malformed (delta_prime missing)
    assert doc["counts"] == {"CERTIFIED": 1, "REFUTED": 2, "ERROR": 1, "as_expected": 2}
    rows = doc["rows"]
    assert [r["line"] for r in rows] == [2, 3, 4, 5]
    first = rows[0]
    assert first["quantity"] == "composition.general.eps"
    assert first["inputs"] == {"k": "50", "eps": "0.2676", "delta_prime": "0.0001"}
    assert first["claim"] == {"kind": "digits", "value": "9.900"}
    assert first["verdict"] == "REFUTED" and first["expected"] == "CERTIFIED" and first["ok"] is False
    assert set(first["enclosure"]) == {"lo", "hi"} and first["enclosure"]["lo"].startswith("9.9009067033")
    assert first["at_printed_precision"] == "9.901"
    assert "violates 'rounds to 9.900'" in first["detail"]
    assert rows[1]["verdict"] == "REFUTED" and rows[1]["ok"] is True
    assert rows[3]["verdict"] == "ERROR" and rows[3]["enclosure"] is None
    assert rows[3]["detail"].startswith("missing input delta_prime of composition.general.eps")
    assert "rows checked" in err  # progress on stderr, JSON alone on stdout


def test_text_output_and_quiet(table):
    code, out, err = run(["table", "check", str(table), "-q"])
    assert code == 2 and err == ""
    assert "(prints as 9.901)" in out
    assert "4 rows: 1 CERTIFIED, 2 REFUTED, 1 ERROR; 2/4 as expected" in out
    assert "  line 5: ERROR (expected CERTIFIED): missing input delta_prime" in out


def test_certificates_are_written_per_row_and_recheck(tmp_path, table):
    certs = tmp_path / "certs"
    code, out, err = run(["table", "check", str(table), "--certificates", str(certs), "--json", "-q"])
    rows = json.loads(out)["rows"]
    written = sorted(p.name for p in certs.glob("*.json"))
    # table.<file>.line<N>.<32 hex digits of the row's source record>
    assert [re.sub(r"\.[0-9a-f]{32}\.json$", "", n) for n in written] == [f"table.mine.line{n}" for n in (2, 3, 4)]
    assert [r.get("certificate") for r in rows][:3] == [str(certs / n) for n in written]
    cert = json.loads((certs / written[1]).read_text())
    assert cert["claim"]["expected"] == "REFUTED" and cert["verdict"] == "REFUTED"
    assert cert["claim"]["reference"] == "table mine.csv, line 3"
    # the row it was read from: what `sha256sum mine.csv` prints, the line, the cells as written
    import hashlib

    source = cert["claim"]["source"]
    assert source["table"] == "mine.csv" and source["line"] == 3
    assert source["sha256"] == hashlib.sha256(table.read_bytes()).hexdigest()
    assert source["row"]["quantity"] == rows[1]["quantity"] and source["row"]["value"] == rows[1]["claim"]["value"]
    code, out, err = run(["check", str(certs)])
    assert code == 0, out + err
    assert out.count("OK  table.mine.line") == 3


def test_the_shipped_examples_check_with_exit_0(tmp_path):
    for name in ("darrm_table2.csv", "darrm_table4_gnmax.toml", "gaussian_rdp.json"):
        code, out, err = run(["table", "check", str(EXAMPLES / name), "-q"])
        assert code == 0, out
    code, out, err = run(["table", "check", str(EXAMPLES / "darrm_table2.csv"), "--certificates", str(tmp_path), "-q"])
    assert code == 0 and len(list(tmp_path.glob("*.json"))) == 28
    code, out, err = run(["check", str(tmp_path)])
    assert code == 0 and out.count("OK ") == 28


@pytest.mark.parametrize("fmt", ["csv", "json", "toml"])
@pytest.mark.parametrize("name", ["composition.general.eps", "dpsgd.rdp.eps", "darrm.privacy.margin"])
def test_a_template_reads_back_with_the_quantitys_columns(tmp_path, fmt, name):
    code, out, err = run(["table", "template", name, "--format", fmt])
    assert code == 0 and err == ""
    path = tmp_path / f"t.{fmt}"
    path.write_text(out)
    _, rows = read_table(path)
    q = registry.quantity(name)
    assert len(rows) == 1 and rows[0].cells["quantity"] == name
    if fmt == "csv":
        header = out.splitlines()[0].split(",")
    else:
        header = list(json.loads(out)["rows"][0]) if fmt == "json" else [
            line.split(" = ")[0] for line in out.splitlines() if " = " in line and not line.startswith("#")
        ]  # fmt: skip
    assert header == ["quantity", *(p.name for p in q.params), "value", "claim", "figures"]
    # the defaults are filled in, nothing else
    assert {k for k in rows[0].cells if k != "quantity"} == {p.name for p in q.params if p.default is not None}


def test_a_filled_template_checks(tmp_path):
    code, out, _ = run(["table", "template", "composition.general.eps"])
    header = out.splitlines()[0]
    path = tmp_path / "filled.csv"
    path.write_text(header + "\ncomposition.general.eps,20,0.2676,0.0001,5.352,digits,\n")
    code, out, err = run(["table", "check", str(path), "-q"])
    assert code == 0 and "1 rows: 1 CERTIFIED" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["table", "template", "no.such.quantity"],
        ["table", "template", "composition.general.eps", "--format", "xml"],
        ["table", "check"],
        ["table", "check", "x.csv", "--workers", "0"],
        ["table", "bogus"],
    ],
)
def test_bad_command_lines_are_one_line(argv):
    code, out, err = run(argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("dpcert: error:")
