"""Scale-out (issue 21): the same result from every executor and worker count, a worker's death retried, a failed
chunk reported and never dropped, checkpoints resumed to the uninterrupted result and refused when foreign."""

from __future__ import annotations

import json
import os
import signal
from fractions import Fraction
from pathlib import Path

import pytest

import dpcert.darrm.privacy as privacy
from dpcert.cli import main
from dpcert.core.parallel import Checkpoint, RunOptions, Summary, map_chunks
from dpcert.darrm.gamma import named_gamma
from dpcert.errors import InvalidParameter

try:
    import distributed
except ImportError:  # the `distributed` extra: CI installs it (README's test command)
    distributed = None

needs_dask = pytest.mark.skipif(distributed is None, reason='needs dask.distributed (pip install ".[distributed]")')

#: a small DaRRM question with Δ > 0 (8 corners, 12 chunks, 31824 multisets), certified
ARGS = ["gamma=sub", "K=11", "m=3", "eps=0.1", "Delta=1e-5", "delta=0.00003"]


def _problem(gamma: str = "sub", m: int = 3) -> privacy.Problem:
    K, eps, D, d = 11, Fraction(1, 10), Fraction(1, 10**5), Fraction(3, 10**5)
    return privacy.problem(named_gamma(gamma, K, Fraction(m), eps, D, d), K, m, eps, D, d)


def _same(res: privacy.PrivacyResult) -> dict:
    out = res.to_json()
    out.pop("seconds")
    return out


def _cli_json(capsys, *extra: str) -> tuple[int, dict]:
    rc = main(["darrm", "certify", *ARGS, "--json", "-q", *extra])
    out = json.loads(capsys.readouterr().out)
    out.pop("seconds")
    return rc, out


# ------------------------------------------------------------------------------ the same result everywhere


def test_serial_and_processes_give_the_same_certify_json(capsys):
    rc1, serial = _cli_json(capsys, "--executor", "serial")
    rc2, two = _cli_json(capsys, "--workers", "2")
    rc3, three = _cli_json(capsys, "--workers", "3", "--executor", "processes")
    assert rc1 == rc2 == rc3 == 0
    assert serial == two == three
    # the independent count: multisets of K = 11 among 8 corners, all decided by the float filter
    assert serial["counts"] == {"float": 31824} and serial["verdict"] == "CERTIFIED"


@needs_dask
def test_dask_local_cluster_gives_the_same_result_as_serial_and_processes():
    pr = _problem("one", 5)  # refuted: counterexamples and a positive maximum to agree on
    serial = _same(privacy.certify(pr, run=RunOptions("serial")))
    procs = _same(privacy.certify(pr, run=RunOptions("processes", 2)))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        dask = _same(privacy.certify(pr, run=RunOptions("dask", 2, scheduler=lc.scheduler_address)))
    assert serial == procs == dask
    assert serial["verdict"] == "REFUTED" and serial["counts"]["violating"] > 0


@needs_dask
def test_the_cli_reaches_a_scheduler_named_by_the_environment(capsys, monkeypatch):
    _, serial = _cli_json(capsys, "--executor", "serial")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        monkeypatch.setenv("DPCERT_SCHEDULER", lc.scheduler_address)
        rc, dask = _cli_json(capsys, "--executor", "dask")
    assert rc == 0 and dask == serial


def _fails_at_two(chunk: int) -> Summary:
    if chunk == 2:
        raise InvalidParameter("chunk", chunk, "not 2")
    return Summary({"ok": 1})


@needs_dask
def test_a_chunk_that_raises_on_dask_raises_here_and_the_others_merge():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        run = RunOptions("dask", scheduler=lc.scheduler_address)
        with pytest.raises(InvalidParameter, match="invalid chunk=2"):
            map_chunks(_fails_at_two, range(5), run=run)
        assert map_chunks(_fails_at_two, [0, 1, 3], run=run).counts == {"ok": 3}


#: run with MALLOC_TRIM_THRESHOLD_=65536 (what a Dask nanny gives its workers): bytes glibc holds in mmapped blocks
#: while a 1 MiB array is alive, outside a dpcert task, inside one, and outside again
MALLOC_PROBE = """
import ctypes, numpy as np
from dpcert.core.dask_cluster import _dask_task

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info

def mmapped_for_an_array(_=None):
    before = libc.mallinfo2().hblkhd
    a = np.ones(1 << 17)
    return libc.mallinfo2().hblkhd - before

print(mmapped_for_an_array(), _dask_task(mmapped_for_an_array, None)[1], mmapped_for_an_array())  # (code, value)

# two tasks in two threads of one worker: the first to end leaves the other's thresholds raised
import threading
other_ended, seen = threading.Event(), []

def long_task(_):
    other_ended.wait(10)
    return mmapped_for_an_array()

t = threading.Thread(target=lambda: seen.append(_dask_task(long_task, None)[1]))
t.start()
short = _dask_task(mmapped_for_an_array, None)[1]
other_ended.set()
t.join()
print(short, seen[0], mmapped_for_an_array())
"""


@pytest.mark.skipif(not hasattr(__import__("ctypes").CDLL(None), "mallinfo2"), reason="needs glibc >= 2.33")
def test_a_dask_task_keeps_freed_memory_for_reuse_and_restores_the_workers_malloc_settings():
    """A Dask nanny's MALLOC_TRIM_THRESHOLD_ fixes glibc's mmap threshold at 128 KiB, so every larger NumPy
    temporary is a fresh mmap (the DaRRM chunks took 2.3x the CPU); a dpcert task raises the thresholds while it
    runs and puts the environment's back after (a 1 MiB array is mmapped before and after it, not within it); with
    tasks in several threads, when the last one ends."""
    import subprocess
    import sys

    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    out = subprocess.run([sys.executable, "-c", MALLOC_PROBE], env=env, capture_output=True, text=True, check=True)
    alone, threads = (list(map(int, line.split())) for line in out.stdout.splitlines())
    before, within, after = alone
    assert before >= 1 << 20 and within == 0 and after >= 1 << 20
    short, long_after_short, after_both = threads
    assert short == 0 and long_after_short == 0 and after_both >= 1 << 20


def test_dask_missing_or_unreachable_is_one_line(capsys, monkeypatch):
    assert main(["darrm", "certify", *ARGS, "--scheduler", "tcp://127.0.0.1:1"]) == 2  # not --executor dask
    assert "--scheduler" in capsys.readouterr().err
    if distributed is not None:
        monkeypatch.setattr("dpcert.core.dask_cluster.SCHEDULER_TIMEOUT", 0.5)
        rc = main(["darrm", "certify", *ARGS, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "-q"])
        err = capsys.readouterr().err.strip().splitlines()
        assert rc == 2 and len(err) == 1 and "invalid --scheduler='tcp://127.0.0.1:9'" in err[0]
        # the option is named first, not wrapped as an error of the claim's inputs (a fault of the run)
        assert err[0].startswith("dpcert: error: invalid --scheduler='tcp://127.0.0.1:9': expected the address")


# ------------------------------------------------------------------------------ faults


def _dies(task):
    """The DaRRM chunk function, except that the chunk named by $DPCERT_TEST_DIE kills its worker: always, or
    only on its first run when $DPCERT_TEST_MARK names a file not yet there."""
    pr, a = task
    if str(a) == os.environ.get("DPCERT_TEST_DIE"):
        mark = os.environ.get("DPCERT_TEST_MARK")
        if mark is None or not os.path.exists(mark):
            if mark is not None:
                Path(mark).touch()
            os.kill(os.getpid(), signal.SIGKILL)
    return _real_chunk(task)


_real_chunk = privacy._chunk


def test_a_worker_killed_mid_run_is_retried_and_the_result_is_complete(tmp_path, monkeypatch):
    pr = _problem()
    serial = _same(privacy.certify(pr, run=RunOptions("serial")))
    monkeypatch.setattr(privacy, "_chunk", _dies)
    monkeypatch.setenv("DPCERT_TEST_DIE", "5")
    monkeypatch.setenv("DPCERT_TEST_MARK", str(tmp_path / "died"))
    retried = _same(privacy.certify(pr, run=RunOptions("processes", 2)))
    assert (tmp_path / "died").exists()  # the worker running chunk 5 did die
    assert retried == serial and "failed_chunks" not in retried


def test_a_chunk_that_kills_every_worker_is_undecided_for_its_range(monkeypatch):
    pr = _problem()
    monkeypatch.setattr(privacy, "_chunk", _dies)
    monkeypatch.setenv("DPCERT_TEST_DIE", "4")
    res = privacy.certify(pr, run=RunOptions("processes", 2))
    assert res.verdict.value == "UNDECIDED"
    [lost] = res.failed
    # chunk a = 4: 4 of the 11 mechanisms at the first 4 corners, C(4+3,3) * C(7+3,3) multisets
    assert lost["range"] == {"first_group_corners": 4, "multisets": 35 * 120} and lost["chunk"] == 4
    assert "signal 9, SIGKILL" in lost["reason"] and "2 attempts" in lost["reason"]
    assert res.counts["float"] == 31824 - 35 * 120 and res.counts["failed_chunks"] == 1
    assert res.margin.hi is None  # the maximum has no upper end: a chunk's multisets are unknown


def test_serial_exception_order_is_kept_in_processes():
    with pytest.raises(ValueError, match="chunk 2"):
        map_chunks(_raises_from_two, range(6), workers=2)


def _raises_from_two(i):
    if i >= 2:
        raise ValueError(f"chunk {i}")
    return Summary({"ok": 1})


# ------------------------------------------------------------------------------ checkpoints

_CALLS: list[int] = []


def _count_and_maybe_stop(task):
    pr, a = task
    _CALLS.append(a)
    if str(a) == os.environ.get("DPCERT_TEST_STOP"):
        raise KeyboardInterrupt  # as Ctrl-C in the middle of a run
    return _real_chunk(task)


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path, monkeypatch):
    pr = _problem("one", 5)
    whole = _same(privacy.certify(pr, run=RunOptions("serial")))
    ck = tmp_path / "run.ckpt"
    run = RunOptions("serial", checkpoint=str(ck), checkpoint_key="k")
    monkeypatch.setattr(privacy, "_chunk", _count_and_maybe_stop)
    monkeypatch.setenv("DPCERT_TEST_STOP", "7")
    _CALLS.clear()
    with pytest.raises(KeyboardInterrupt):
        privacy.certify(pr, run=run)
    assert _CALLS == list(range(8))
    monkeypatch.delenv("DPCERT_TEST_STOP")
    _CALLS.clear()
    resumed = _same(privacy.certify(pr, run=run))
    assert _CALLS == [7, 8, 9, 10, 11]  # the 7 finished chunks came from the checkpoint
    assert resumed == whole
    _CALLS.clear()
    assert _same(privacy.certify(pr, run=RunOptions("processes", 2, checkpoint=str(ck), checkpoint_key="k"))) == whole
    assert _CALLS == []  # everything from the checkpoint


def _square(x: int) -> Summary:
    return Summary({"n": x * x}, float(x), x)


def test_checkpoint_writes_are_throttled_and_flushed_at_the_end(tmp_path, monkeypatch):
    # rewriting the whole file after every chunk is quadratic (12 ms a chunk at K = 101's 1,725 chunks): the file is
    # written at the first chunk, then at most once a WRITE_EVERY, and once more when the run ends
    import dpcert.core.files as files

    writes: list[int] = []
    real = files.atomic_write_text

    def counted(path, text, **kw):
        writes.append(len(json.loads(text)["sections"].popitem()[1]))
        return real(path, text, **kw)

    monkeypatch.setattr(files, "atomic_write_text", counted)
    ck = tmp_path / "many.ckpt"
    total = map_chunks(_square, range(200), run=RunOptions("serial", checkpoint=str(ck), checkpoint_key="k"))
    assert total.counts["n"] == sum(x * x for x in range(200))
    assert writes[0] == 1 and writes[-1] == 200 and len(writes) <= 3  # 200 chunks in well under a second
    assert len(json.loads(ck.read_text())["sections"].popitem()[1]) == 200
    # with no throttle every chunk is written: the count above is the throttle's doing
    writes.clear()
    monkeypatch.setattr(Checkpoint, "WRITE_EVERY", 0.0)
    map_chunks(_square, range(20), run=RunOptions("serial", checkpoint=str(tmp_path / "b.ckpt"), checkpoint_key="k"))
    assert writes == list(range(1, 21))


def test_summary_round_trips_through_json_exactly():
    s = Summary({"a": 2}, 0.1 + 0.2, {"counts": (1, 2), "lo": -1e-300}, [(3,)], [{"q": Fraction(1, 3)}], 64)
    s.failed.append({"chunk": 1, "of": 2, "reason": "x"})
    back = Summary.from_json(json.loads(json.dumps(s.to_json())))
    assert back == s and type(back.worst_case["counts"]) is tuple and back.worst_score == 0.30000000000000004


def test_a_checkpoint_of_other_inputs_or_version_is_refused(tmp_path, capsys):
    ck = str(tmp_path / "c.json")
    rc, first = _cli_json(capsys, "--checkpoint", ck, "--executor", "serial")
    assert rc == 0 and len(json.loads(Path(ck).read_text())["sections"]) == 1
    rc, again = _cli_json(capsys, "--checkpoint", ck)  # resumed from the file: the same answer
    assert rc == 0 and again == first
    rc = main(["darrm", "certify", *ARGS[:-1], "delta=0.00004", "--checkpoint", ck, "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == [f"dpcert: error: invalid --checkpoint={ck!r}: expected a checkpoint of these inputs "
                               "(it was written for other inputs)"]  # fmt: skip
    data = json.loads(Path(ck).read_text())
    data["dpcert"] = "0.0.1"
    Path(ck).write_text(json.dumps(data))
    rc = main(["darrm", "certify", *ARGS, "--checkpoint", ck, "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "written by dpcert 0.0.1" in err[0]
    Path(ck).write_text('{"format": "something else"}')
    with pytest.raises(InvalidParameter, match="not one"):
        Checkpoint(ck, "k")


def test_for_all_eps_in_chunks_keeps_the_plain_loops_first_tight_and_first_counterexample():
    from itertools import combinations_with_replacement

    from dpcert.darrm.all_eps import certify_all_eps, poly_nonpositive_on

    K, m = 7, 3
    pr = privacy.problem(named_gamma("one", K, Fraction(m), Fraction(1), Fraction(0), Fraction(0)), K, m, 1, 0, 0)
    counts: dict[str, int] = {}
    tight = cex = None
    for combo in combinations_with_replacement(range(4), K):  # the plain loop over 𝒫, in its own order
        vec = tuple(combo.count(j) for j in range(4))
        M = privacy.row_margin(pr, vec).numerator()
        ok, _, method = poly_nonpositive_on(M)
        counts[method] = counts.get(method, 0) + 1
        tight = vec if tight is None and ok and M.is_zero() else tight
        cex = vec if cex is None and not ok else cex
    for run in (RunOptions("serial"), RunOptions("processes", 2)):
        r = certify_all_eps(pr, run=run)
        assert (r.counts, r.tight, tuple(r.counterexample["counts"])) == (counts, tight, cex)
        assert r.verdict.value == "REFUTED"


def test_progress_line_shows_done_rate_and_time_left():
    import io

    out = io.StringIO()
    p = __import__("dpcert.core.parallel", fromlist=["Progress"]).Progress("run", stream=out, after=0, every=0)
    p(1, 8)  # a resumed run: 1 chunk already done when counting starts
    p(4, 8)  # 3 chunks of this run: a rate
    p(8, 8)
    first, last = out.getvalue().splitlines()
    assert first.startswith("run: 4/8 chunks, ") and "chunks/s" in first and first.endswith(" s left")
    assert last.startswith("run: 8/8 chunks, ") and "left" not in last


def test_the_first_progress_line_after_a_resume_does_not_extrapolate_from_one_chunk():
    # resumed at 90 of 100 chunks; this run's first chunk took 20 s (it includes starting the workers), the next
    # ones 1 s each: "about 180 s left" from one chunk was no estimate of the 9 s the run had left
    import io

    from dpcert.core.parallel import Progress

    now = [0.0]
    out = io.StringIO()
    p = Progress("run", stream=out, after=0, every=0, clock=lambda: now[0])
    p(90, 100)
    for t, done in ((20, 91), (21, 92), (22, 93)):
        now[0] = t
        p(done, 100)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["run: 91/100 chunks, estimating…, 20.0 s", "run: 92/100 chunks, estimating…, 21.0 s"]
    # from 3 chunks of this run (never from the 90 resumed): 3/22 chunks/s, 7 chunks left
    assert lines[2] == f"run: 93/100 chunks, {3 / 22:.2f} chunks/s, 22.0 s, about {7 / (3 / 22):.0f} s left"


@needs_dask
def test_a_cluster_whose_workers_run_another_dpcert_is_refused(monkeypatch):
    import dpcert.core.dask_cluster as dask_cluster

    monkeypatch.setattr(dask_cluster, "_dpcert_version", lambda: "0.0.0")  # what each worker reports
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        with pytest.raises(InvalidParameter, match=r"workers running dpcert .* \(found 0\.0\.0\)"):
            privacy.certify(_problem(), run=RunOptions("dask", scheduler=lc.scheduler_address))


def test_which_runs_fork_their_workers_from_this_process(monkeypatch):
    # what the parent builds before a run (the DaRRM level tables) is inherited only by forked workers: a local pool
    # of several, or the LocalCluster dpcert starts; not an existing Dask cluster's (by address or environment)
    monkeypatch.delenv("DPCERT_SCHEDULER", raising=False)
    assert RunOptions("processes", 2).forks_workers(5)
    assert not RunOptions("processes", 2).forks_workers(1)  # one chunk runs here
    assert not RunOptions("processes", 1).forks_workers(5)
    assert not RunOptions("serial").forks_workers(5)
    assert RunOptions("dask", 2).forks_workers(5)
    assert not RunOptions("dask", scheduler="tcp://127.0.0.1:8786").forks_workers(5)
    monkeypatch.setenv("DPCERT_SCHEDULER", "tcp://127.0.0.1:8786")
    assert not RunOptions("dask", 2).forks_workers(5)
