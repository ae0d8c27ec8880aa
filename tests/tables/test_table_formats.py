"""CSV, JSON and TOML tables give the same rows and verdicts; JSON/TOML numbers are read as written; the JSON
Schema (src/dpcert/tables/schema.json) accepts the shipped and written JSON tables and refuses what the reader
refuses as a file."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest

from dpcert.tables.check import check_table
from dpcert.tables.reader import read_table

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "src/dpcert/tables/schema.json").read_text())
EXAMPLES = Path(__file__).resolve().parents[2] / "verify" / "tables" / "examples"

#: rows with every claim kind, a list parameter, a REFUTED digits row and an expected erratum
ROWS = [
    {"quantity": "composition.general.eps", "k": 50, "eps": "0.2676", "delta_prime": "0.0001", "value": "9.901",
     "claim": "digits"},
    {"quantity": "composition.general.eps", "k": 50, "eps": "0.2676", "delta_prime": "0.0001", "value": "9.900",
     "claim": "digits", "note": "a misprint"},
    {"quantity": "composition.general.delta", "k": 100, "delta": "0.0003", "delta_prime": "0.0001",
     "value": "0.030", "claim": "digits"},
    {"quantity": "composition.general.delta", "k": 20, "delta": "0.0003", "delta_prime": "0.0001",
     "value": "0.006", "claim": "upper", "expected": "REFUTED"},
    {"quantity": "composition.kov.delta", "k": 1000, "eps": "0.1", "eps_g": "19", "value": "1.67E-6",
     "claim": "digits", "figures": "truncated"},
    {"quantity": "composition.kov.delta", "k": 1000, "eps": "0.1", "eps_g": "19", "value": "1.7E-6",
     "claim": "digits", "figures": 2},
    {"quantity": "composition.simple.eps", "k": 3, "eps": "1/3", "value": "1", "claim": "lower"},
    {"quantity": "composition.mv.delta", "eps_list": ["0.1", "0.2", "0.3"], "eps_g": "0.2", "value": "0.2",
     "claim": "upper"},
]  # fmt: skip


def _csv(rows: list[dict]) -> str:
    columns: list[str] = []
    for r in rows:
        columns += [c for c in r if c not in columns]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([",".join(r[c]) if isinstance(r.get(c), list) else r.get(c, "") for c in columns])
    return out.getvalue()


def _toml(rows: list[dict], *, floats: bool = False) -> str:
    def value(v):
        if isinstance(v, list):
            return "[" + ", ".join(json.dumps(x) for x in v) + "]"
        if floats and isinstance(v, str) and v.replace(".", "", 1).isdigit() and "." in v:
            return v  # a TOML float, written as printed
        return json.dumps(v)

    return "".join("\n[[rows]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in r.items()) for r in rows)


def _json(rows: list[dict], *, numbers: bool = False) -> str:
    if not numbers:
        return json.dumps({"rows": rows}, indent=1)
    # decimals as bare JSON numbers, exactly as printed (0.030 keeps its zero)
    text = json.dumps({"rows": rows}, indent=1)
    for r in rows:
        for v in r.values():
            if isinstance(v, str) and v.replace(".", "", 1).isdigit() and "." in v:
                text = text.replace(f'"{v}"', v)
    return text


def _verdicts(path: Path) -> list[dict]:
    report = check_table(path, workers=1)
    keep = ("quantity", "inputs", "claim", "verdict", "expected", "enclosure", "detail", "at_printed_precision")
    return [{k: r.to_json().get(k) for k in keep} for r in report.rows]


@pytest.mark.parametrize(
    "variant",
    ["json", "json-numbers", "toml", "toml-floats"],
)
def test_csv_json_and_toml_give_the_same_result(tmp_path, variant):
    (tmp_path / "t.csv").write_text(_csv(ROWS))
    text = {
        "json": _json(ROWS),
        "json-numbers": _json(ROWS, numbers=True),
        "toml": _toml(ROWS),
        "toml-floats": _toml(ROWS, floats=True),
    }[variant]
    other = tmp_path / f"t.{variant.split('-')[0]}"
    other.write_text(text)
    if variant == "json-numbers":
        assert '"value": 0.030' in text  # the printed zero is written as a bare number
    if variant == "toml-floats":
        assert "value = 0.030\n" in text
    want = _verdicts(tmp_path / "t.csv")
    got = _verdicts(other)
    # inputs are text in every format (a JSON or TOML 50 is read as "50"); a list parameter is a comma-separated
    # cell in CSV and a list in JSON and TOML
    for row in got:
        row["inputs"] = {k: ",".join(v) if isinstance(v, list) else v for k, v in row["inputs"].items()}
    assert got == want
    assert [w["verdict"] for w in want] == [
        "CERTIFIED", "REFUTED", "CERTIFIED", "REFUTED", "CERTIFIED", "CERTIFIED", "CERTIFIED", "CERTIFIED"
    ]  # fmt: skip
    assert want[1]["at_printed_precision"] == "9.901"


def test_line_numbers_in_each_format(tmp_path):
    (tmp_path / "t.csv").write_text(_csv(ROWS[:3]))
    (tmp_path / "t.json").write_text(json.dumps({"rows": ROWS[:3]}, indent=2))
    (tmp_path / "t.toml").write_text(_toml(ROWS[:3]))
    lines = {fmt: [r.line for r in read_table(tmp_path / f"t.{fmt}")[1]] for fmt in ("csv", "json", "toml")}
    assert lines["csv"] == [2, 3, 4]
    text = (tmp_path / "t.json").read_text().splitlines()
    assert [text[i - 1].strip() for i in lines["json"]] == ["{"] * 3
    assert [text[i - 1] for i in lines["json"]][0] == "    {"
    toml_text = (tmp_path / "t.toml").read_text().splitlines()
    assert [toml_text[i - 1] for i in lines["toml"]] == ["[[rows]]"] * 3


def test_json_line_numbers_skip_brackets_and_quotes_inside_strings(tmp_path):
    text = '[\n {"quantity": "a", "note": "[{\\"x\\", ]", "value": "1", "claim": "upper"},\n\n {"quantity": "b"}]'
    (tmp_path / "t.json").write_text(text)
    assert [r.line for r in read_table(tmp_path / "t.json")[1]] == [2, 4]


def test_the_schema_accepts_the_shipped_and_written_json_tables(tmp_path):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    validator.validate(json.loads((EXAMPLES / "gaussian_rdp.json").read_text()))
    validator.validate(json.loads(_json(ROWS)))
    validator.validate(json.loads(_json(ROWS, numbers=True)))
    validator.validate(ROWS)  # a bare list of rows is a table too
    read_table(EXAMPLES / "gaussian_rdp.json")


@pytest.mark.parametrize(
    "doc",
    [
        {"rows": {}},
        {"rows": [], "extra": 1},
        {"description": 1, "rows": []},
        "rows",
        {"rows": [{"quantity": "composition.simple.eps", "k": 3, "eps": "0.1", "value": "0.3"}]},
        {"rows": [{"quantity": "composition.simple.eps", "k": 3, "value": "0.3", "claim": "approx"}]},
        {"rows": [{"quantity": "composition.simple.eps", "k": True, "value": "0.3", "claim": "upper"}]},
        {"rows": [{"quantity": "composition.simple.eps", "k": 3, "value": "0.3", "claim": "digits", "figures": 0}]},
        {"rows": [[1, 2]]},
    ],
)
def test_the_schema_refuses_what_the_reader_refuses(tmp_path, doc):
    """Each document is refused by the schema, and by dpcert: as a file, or on its one row (ERROR)."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    try:
        report = check_table(path, workers=1)
    except ValueError:
        return  # refused as a file
    assert [r.verdict.value for r in report.rows] == ["ERROR"]
