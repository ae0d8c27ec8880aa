"""Table rows of the accountant and of DP-SGD as trained: ``events=FILE`` (read beside the table, recorded as its
content) and ``epochs= batch_size= n=`` (recorded as q and steps). Each printed value is judged against the
certified PLD enclosure: a right row is CERTIFIED, a wrong one REFUTED; the enclosure is checked against
dp-accounting's pessimistic PLD where it is installed."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from dpcert.core.claim import Verdict
from dpcert.tables.check import check_table, row_claim
from dpcert.tables.reader import RawRow

# 100 steps of DP-SGD at Poisson rate 0.01 and noise multiplier 1: one run written two ways
EVENTS = {
    "type": "SelfComposedDpEvent",
    "count": 100,
    "event": {
        "type": "PoissonSampledDpEvent",
        "sampling_probability": "0.01",
        "event": {"type": "GaussianDpEvent", "noise_multiplier": 1},
    },
}
TABLE = """\
quantity,events,delta,epochs,batch_size,n,sigma,value,claim,expected
accounting.eps,run.json,1e-5,,,,,0.719,upper,
accounting.eps,run.json,1e-5,,,,,0.717,upper,REFUTED
dpsgd.eps,,1e-5,1,100,10000,1,0.718,digits,
dpsgd.eps,,1e-5,1,100,10000,1,0.717,upper,REFUTED
"""


@pytest.fixture
def table(tmp_path: Path) -> Path:
    (tmp_path / "run.json").write_text(json.dumps(EVENTS), encoding="utf-8")
    path = tmp_path / "run_table.csv"
    path.write_text(TABLE, encoding="utf-8")
    return path


def test_right_rows_are_certified_and_wrong_rows_refuted(table):
    report = check_table(table, workers=1)
    verdicts = [r.verdict for r in report.rows]
    assert verdicts == [Verdict.CERTIFIED, Verdict.REFUTED, Verdict.CERTIFIED, Verdict.REFUTED], [
        r.detail for r in report.rows
    ]
    assert report.exit_code == 0
    encs = [r.enclosure for r in report.rows]
    # the event file and the trained form state the same run: one enclosure
    assert encs[0] == encs[2]
    lo, hi = encs[0].lo, encs[0].hi
    # the printed values against the certified ends: 0.717 < lo (so "<= 0.717" is false), hi <= 0.719
    assert Fraction("0.717") < lo < hi <= Fraction("0.719")
    assert Fraction("0.7175") <= lo and hi <= Fraction("0.7185")  # 0.718 are its printed digits


def test_the_enclosure_holds_dp_accountings_pessimistic_pld(table):
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    d = pld.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=1e-4)
    peer = d.self_compose(100).get_epsilon_for_delta(1e-5)
    enc = check_table(table, workers=1).rows[0].enclosure
    # a pessimistic estimate is an upper bound (to float accuracy); a fine grid's is close to the tight value
    assert float(enc.lo) <= peer + 1e-12
    assert abs(peer - float(enc.hi)) < 1e-3


def test_a_certificate_records_the_events_and_q_steps_never_the_path(table, tmp_path):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from dpcert.certificates import recheck
    from dpcert.cli import main

    certs = tmp_path / "certs"
    certs.mkdir()
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["table", "check", str(table), "--workers", "1", "--certificates", str(certs)]) == 0
    written = {json.loads(p.read_text())["claim"]["source"]["line"]: p for p in certs.glob("*.json")}
    assert sorted(written) == [2, 3, 4, 5]
    first = json.loads(written[2].read_text())
    events = first["claim"]["inputs"]["events"]
    assert isinstance(events, list) and len(events) == 1 and "run.json" not in json.dumps(first)
    assert json.loads(events[0])["count"] == 100
    trained = json.loads(written[4].read_text())["claim"]["inputs"]
    assert trained["q"]["exact"] == "1/100" and trained["steps"] == 100 and "epochs" not in trained
    (tmp_path / "run.json").unlink()  # re-checking reads no file
    for p in written.values():
        result = recheck(p)
        assert result.ok, result.detail


def test_a_recorded_row_naming_a_path_is_not_read(table):
    cells = {"quantity": "accounting.eps", "events": "run.json", "delta": "1e-5", "value": "1", "claim": "upper"}
    rc = row_claim(RawRow(2, cells), table, "0" * 64, files=False)
    assert rc.claim is None and "not a path" in rc.problem


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ("../run.json", "in the table's directory or below it"),
        ("/etc/hostname", "in the table's directory or below it"),
        ("missing.json", "events"),
    ],
)
def test_an_event_file_outside_the_table_or_missing_is_an_error_of_its_row(tmp_path, events, problem):
    sub = tmp_path / "sub"
    sub.mkdir()
    (tmp_path / "run.json").write_text(json.dumps(EVENTS), encoding="utf-8")
    path = sub / "t.csv"
    path.write_text(f"quantity,events,delta,value,claim\naccounting.eps,{events},1e-5,1,upper\n", encoding="utf-8")
    row = check_table(path, workers=1).rows[0]
    assert row.verdict is Verdict.ERROR and problem in row.detail, row.detail


def test_an_event_file_in_a_subdirectory_is_read(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.json").write_text(json.dumps(EVENTS), encoding="utf-8")
    path = tmp_path / "t.json"
    rows = [{"quantity": "accounting.delta", "events": "runs/a.json", "eps": 1, "value": "6.8e-7", "claim": "upper"}]
    path.write_text(json.dumps({"rows": rows}), encoding="utf-8")
    row = check_table(path, workers=1).rows[0]
    assert row.verdict is Verdict.CERTIFIED, row.detail
    # dp-accounting's pessimistic PLD gives 6.6714e-07 at this point (value_discretization_interval 1e-4)
    assert row.enclosure.lo <= Fraction("6.6715e-7") and row.enclosure.hi >= Fraction("6.6710e-7")


def test_trained_inputs_that_are_not_a_whole_number_of_steps_or_mixed_are_errors(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(
        "quantity,q,steps,epochs,batch_size,n,sigma,delta,value,claim\n"
        "dpsgd.eps,,,1,100,10001,1,1e-5,1,upper\n"
        "dpsgd.eps,0.01,,1,100,10000,1,1e-5,1,upper\n"
        "dpsgd.eps,,,1,100,,1,1e-5,1,upper\n",
        encoding="utf-8",
    )
    rows = check_table(path, workers=1).rows
    assert all(r.verdict is Verdict.ERROR for r in rows)
    assert "whole number of steps" in rows[0].detail
    assert "not both" in rows[1].detail
    assert "missing n" in rows[2].detail
