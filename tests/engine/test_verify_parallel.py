"""`dpcert verify --workers N`: claims in parallel, certificates written as each finishes, results in manifest
order, output identical to the serial run apart from timing; `--checkpoint` resumes (issue 21)."""

from __future__ import annotations

import json
import os
import signal

import pytest

import dpcert.engine.verify as verify_mod
from dpcert.cli import main
from dpcert.core.parallel import RunOptions
from dpcert.engine.verify import verify

SELECT = ["-s", "darrm.table4.*"]  # 8 claims, 4 CERTIFIED and 4 REFUTED (errata)


def _untimed(obj):
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


def test_parallel_verify_json_and_certificates_equal_the_serial_run(tmp_path, capsys):
    d1, d2 = tmp_path / "one", tmp_path / "two"
    assert main(["verify", *SELECT, "--json", "-q", "--certificates", str(d1)]) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main(["verify", *SELECT, "--json", "-q", "--certificates", str(d2), "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert _untimed(serial) == _untimed({**two, "certificates_written": serial["certificates_written"]})
    assert serial["counts"] == {"CERTIFIED": 4, "REFUTED": 4, "as_expected": 8}
    # every certificate written, the same claims and verdicts (timing and creation time aside)
    names = sorted(p.name for p in d1.iterdir())
    assert names == sorted(p.name for p in d2.iterdir()) and len(names) == 8
    for n in names:
        a, b = (json.loads((d / n).read_text()) for d in (d1, d2))
        assert (a["claim"], a["verdict"], a["evidence"]) == (b["claim"], b["verdict"], b["evidence"])


def test_parallel_verify_text_table_is_the_serial_one_apart_from_seconds(capsys):
    def rows(out: str) -> list[str]:
        lines = out.splitlines()
        return [line.rsplit(None, 1)[0] for line in lines[2:10]]  # the 8 rows without the seconds column

    assert main(["verify", *SELECT]) == 0
    serial = capsys.readouterr().out
    assert main(["verify", *SELECT, "--workers", "2", "-q"]) == 0
    two = capsys.readouterr().out
    assert rows(serial) == rows(two)  # the same rows in the same (manifest) order
    assert serial.splitlines()[-1].rsplit(";", 1)[0] == two.splitlines()[-1].rsplit(";", 1)[0]


_real_check = verify_mod._check_entry


def test_a_resumed_verify_equals_an_uninterrupted_one(tmp_path, monkeypatch):
    sel = ["darrm.table4.*"]
    whole = _untimed(verify(selectors=sel).to_json())
    run = RunOptions("serial", checkpoint=str(tmp_path / "v.ckpt"))
    # serial runs check in this process: interrupt it by a claim whose check raises KeyboardInterrupt
    calls: list[str] = []

    def stop_at_fifth(entry_claim_check):
        def check(self, **kw):
            calls.append(self.id)
            if len(calls) == 5 and os.environ.get("DPCERT_TEST_STOP"):
                raise KeyboardInterrupt
            return entry_claim_check(self, **kw)

        return check

    from dpcert.core import claim as claim_mod

    monkeypatch.setattr(claim_mod.FunctionClaim, "check", stop_at_fifth(claim_mod.FunctionClaim.check))
    monkeypatch.setattr(claim_mod.QuantityClaim, "check", stop_at_fifth(claim_mod.QuantityClaim.check))
    monkeypatch.setenv("DPCERT_TEST_STOP", "1")
    with pytest.raises(KeyboardInterrupt):
        verify(selectors=sel, run=run)
    assert len(calls) == 5
    monkeypatch.delenv("DPCERT_TEST_STOP")
    calls.clear()
    resumed = _untimed(verify(selectors=sel, run=run).to_json())
    assert len(calls) == 4  # the first four came from the checkpoint
    assert resumed == whole


def test_a_claim_whose_worker_dies_twice_is_undecided_not_dropped(monkeypatch):
    monkeypatch.setattr(verify_mod, "_check_entry", _dies_on_third)
    report = verify(selectors=["darrm.table4.*"], run=RunOptions("processes", 2))
    assert len(report.results) == 8 and report.exit_code == 2
    third = report.results[2]
    assert third.verdict.value == "UNDECIDED" and "signal 9, SIGKILL" in third.error and "2 attempts" in third.error
    assert [r.verdict.value for i, r in enumerate(report.results) if i != 2] == [
        r.expected.value for i, r in enumerate(report.results) if i != 2
    ]


def _dies_on_third(task):
    if task[1] == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_check(task)


def test_verify_checkpoint_resumes_and_refuses_another_selection(tmp_path, capsys):
    ck = str(tmp_path / "v.ckpt")
    assert main(["verify", *SELECT, "--json", "-q", "--checkpoint", ck, "--workers", "2"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert len(json.loads(open(ck).read())["sections"]["verify"]) == 8
    assert main(["verify", *SELECT, "--json", "-q", "--checkpoint", ck]) == 0  # every claim from the file
    again = json.loads(capsys.readouterr().out)
    assert _untimed(again) == _untimed(first)
    assert main(["verify", "-s", "darrm.table2.*", "--checkpoint", ck, "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"dpcert: error: invalid --checkpoint={ck!r}: expected a checkpoint of these inputs (it was "
                   "written for other inputs)"]  # fmt: skip


# ------------------------------------------------------------------------------------ every core by default


def _spy_map_each(monkeypatch):
    """Record each call of the pool (``map_each``) by ``verify``: its run options and the claims sent to it."""
    calls: list[tuple[RunOptions, list[int]]] = []
    real = verify_mod.map_each

    def spy(fn, tasks, *, run, on_result):
        calls.append((run, [t[1] for t in tasks]))
        return real(fn, tasks, run=run, on_result=on_result)

    monkeypatch.setattr(verify_mod, "map_each", spy)
    return calls


def test_verify_without_workers_runs_claims_on_every_core_and_equals_one_worker(monkeypatch, capsys):
    one = ["verify", *SELECT, "--json", "-q", "--workers", "1"]
    calls = _spy_map_each(monkeypatch)
    assert main(one) == 0
    serial = json.loads(capsys.readouterr().out)
    assert calls == []  # --workers 1: no pool
    monkeypatch.setattr(verify_mod, "HEAD_START_SECONDS", 0.0)  # these 8 claims take ~20 ms: none run here
    assert main(["verify", *SELECT, "--json", "-q"]) == 0
    default = json.loads(capsys.readouterr().out)
    [(run, sent)] = calls
    assert run.executor == "processes" and run.workers is None  # every core (default_workers())
    assert sent == list(range(8))
    assert _untimed(default) == _untimed(serial)


def test_a_short_default_run_starts_no_pool(monkeypatch, capsys):
    calls = _spy_map_each(monkeypatch)
    monkeypatch.setattr(verify_mod, "HEAD_START_SECONDS", 1e9)  # the head start never runs out
    assert main(["verify", *SELECT, "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["as_expected"] == 8
    assert calls == []


def test_the_head_start_hands_the_rest_to_the_workers_once_its_time_is_up(monkeypatch, capsys):
    assert main(["verify", *SELECT, "--json", "-q", "--workers", "1"]) == 0
    serial = json.loads(capsys.readouterr().out)
    calls = _spy_map_each(monkeypatch)
    clock = iter(range(1000))  # verify's clock: one tenth of a second more at each reading

    class FakeTime:
        @staticmethod
        def perf_counter():
            return next(clock) / 10

    monkeypatch.setattr(verify_mod, "time", FakeTime)
    assert main(["verify", *SELECT, "--json", "-q"]) == 0
    # readings: the run's start (0.0), the head start's (0.1), before claims 0, 1, 2 (0.2, 0.3, 0.4 s): 0.25 s
    # after its start the head start stops before claim 2
    [(_, sent)] = calls
    assert sent == [2, 3, 4, 5, 6, 7]
    assert _untimed(json.loads(capsys.readouterr().out)) == _untimed(serial)


def test_the_head_start_stops_before_a_slow_claim(monkeypatch, tmp_path, capsys):
    m = tmp_path / "m.toml"
    m.write_text(
        '[[claims]]\nselect = "darrm.table4.mnist.lambda"\n'
        '[[claims]]\nselect = "darrm.table4.mnist.sigma_min"\nfull = true\n'
        '[[claims]]\nselect = "darrm.table2.mnist.q20.eps"\n'
    )
    calls = _spy_map_each(monkeypatch)
    monkeypatch.setattr(verify_mod, "HEAD_START_SECONDS", 1e9)
    assert main(["verify", str(m), "--full", "--json", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    [(_, sent)] = calls
    assert sent == [1, 2]  # the first here; the slow one and all after it on the workers
    assert [r["id"] for r in out["results"]] == [
        "darrm.table4.mnist.lambda", "darrm.table4.mnist.sigma_min", "darrm.table2.mnist.q20.eps"
    ]  # fmt: skip


def test_verify_help_states_the_default_and_the_head_start(capsys):
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"default: every core, once the claims run here have taken {verify_mod.HEAD_START_SECONDS:g} s" in text
