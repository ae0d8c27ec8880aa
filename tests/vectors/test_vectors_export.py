"""``dpcert vectors export``: what it writes reads back, its certificates re-check with ``dpcert check``'s machinery,
and the CSV form holds the same numbers."""

from __future__ import annotations

import csv
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from dpcert.certificates import recheck
from dpcert.cli import main
from dpcert.engine.certificate import load_certificate
from dpcert.errors import InvalidParameter
from dpcert.vectors import load
from dpcert.vectors.export import export


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_export_writes_vectors_and_certificates_that_read_back(tmp_path):
    out = tmp_path / "v.json"
    text, vectors, _ = export(["rdp"], out=out)
    assert out.read_text() == text
    again = load(out)
    assert again == vectors and {v.topic for v in vectors} == {"rdp"}
    for v in again:
        cert = load_certificate(tmp_path / v.certificate_file)
        assert cert["sha256"] == v.certificate_sha256 and cert["verdict"] == "CERTIFIED"
        assert cert["claim"]["comparison"] == {"kind": "within", "value": {"lo": v.lo, "hi": v.hi}}
    # dpcert check rebuilds the claim from the certificate alone and re-runs it
    report = recheck(tmp_path / again[0].certificate_file)
    assert report.ok, report.detail


def test_export_of_the_bundle_topics_reproduces_the_bundle():
    bundled = {v.id: v for v in load()}
    _, vectors, _ = export(["composition"])
    assert vectors
    for v in vectors:
        assert (v.lo, v.hi, v.exact) == (bundled[v.id].lo, bundled[v.id].hi, bundled[v.id].exact), v.id


def test_csv_holds_the_same_numbers_and_inputs():
    text, vectors, _ = export(["sml"], fmt="csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["id"] for r in rows] == [v.id for v in vectors]
    for r, v in zip(rows, vectors, strict=True):
        assert (r["lo"], r["hi"], r["certificate_sha256"]) == (v.lo, v.hi, v.certificate_sha256)
        assert dict(item.split("=", 1) for item in r["inputs"].split()) == dict(v.inputs)


def test_an_unknown_topic_or_format_is_refused():
    with pytest.raises(InvalidParameter, match="--topic"):
        export(["nope"])
    with pytest.raises(InvalidParameter, match="--format"):
        export(["rdp"], fmt="xml")


def test_cli_export_to_stdout_and_to_a_file(tmp_path):
    code, out, _ = run(["vectors", "export", "--topic", "rdp", "--topic", "br", "--format", "csv", "-q"])
    assert code == 0
    topics = {r["topic"] for r in csv.DictReader(io.StringIO(out))}
    assert topics == {"rdp", "br"}
    f = tmp_path / "sub" / "v.json"
    f.parent.mkdir()
    code, out, _ = run(["vectors", "export", "--topic", "darrm", "--out", str(f), "--json", "-q"])
    summary = json.loads(out)
    assert code == 0 and summary["vectors"] == len(load(f)) and summary["topics"] == ["darrm"]
    assert (f.parent / "certificates").is_dir()


def test_cli_export_json_flag_contradicting_csv_is_one_line():
    code, out, err = run(["vectors", "export", "--format", "csv", "--json"])
    assert code == 2 and out == "" and err.count("\n") == 1 and "--json" in err
