"""Executors that always finish and never merge what this code did not compute (issue 29).

Work started inside a worker runs there, never in a second pool; local pools finish under every start method; a
result computed by other code is never merged; a checkpoint entry proves itself under this user's key or is not
used; SIGTERM flushes the checkpoint on every executor.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import dpcert.core.dask_cluster as dask_cluster
import dpcert.core.parallel as parallel
import dpcert.core.workers as workers
from dpcert.cli import main
from dpcert.core.parallel import Checkpoint, RunOptions, Summary, map_chunks, map_each

try:
    import distributed
except ImportError:  # the `distributed` extra
    distributed = None

needs_dask = pytest.mark.skipif(distributed is None, reason='needs dask.distributed (pip install ".[distributed]")')

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture(autouse=True)
def _own_checkpoint_key(tmp_path, monkeypatch):
    """Each test its own checkpoint key (also for the subprocesses it starts)."""
    monkeypatch.setenv("DPCERT_CHECKPOINT_KEY", str(tmp_path / "key" / "checkpoint.key"))


# ------------------------------------------------------------------------------ 1. no pool inside a worker


def _pid_chunk(x: int) -> Summary:
    s = Summary()
    s.add(str(os.getpid()))
    return s


def _maps_chunks(x: int) -> tuple[int, dict[str, int]]:
    """A task that, like a claim, maps chunks itself on every core (workers=None)."""
    return os.getpid(), map_chunks(_pid_chunk, range(4), workers=None).counts


def test_chunks_mapped_inside_a_pool_worker_run_in_that_worker():
    # on f3737cd each worker started a pool of its own: the inner chunks ran in grandchildren
    out = map_each(_maps_chunks, range(3), run=RunOptions("processes", 2))
    assert [reason for _, reason in out] == [None] * 3
    for (worker, inner), _ in out:
        assert worker != os.getpid()  # it ran in a worker
        assert inner == {str(worker): 4}  # and its 4 chunks in that same process


def test_a_claim_that_maps_chunks_gives_the_serial_result_on_two_workers(capsys, tmp_path, monkeypatch):
    # composition.sandwich.* call map_chunks(..., workers=None) inside the claim; every process that starts a pool
    # writes its pid (the forked workers inherit the wrapper): only this one may
    pools = tmp_path / "pools"
    run_pool = parallel._run_pool

    def noted(*args, **kw):
        with open(pools, "a") as f:
            f.write(f"{os.getpid()}\n")
        return run_pool(*args, **kw)

    select = ["verify", "-s", "composition.sandwich.optimal_le_general_le_drv", "-s", "darrm.table4.*", "--json", "-q"]
    assert main([*select, "--executor", "serial"]) == 0
    serial = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(parallel, "_run_pool", noted)
    assert main([*select, "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert pools.read_text().split() == [str(os.getpid())]  # on f3737cd also each worker's pid: a nested pool
    strip = lambda rep: [{k: v for k, v in r.items() if k != "seconds"} for r in rep["results"]]  # noqa: E731
    assert strip(two) == strip(serial) and serial["counts"]["as_expected"] == 9


@needs_dask
def test_verify_of_the_sandwich_claims_on_a_local_cluster_is_certified(capsys):
    # on f3737cd: ERROR "daemonic processes are not allowed to have children" (the claim started a pool in the
    # Dask worker)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    ) as cluster:
        argv = ["verify", "-s", "composition.sandwich.*", "--json", "-q", "--executor", "dask"]
        rc = main([*argv, "--scheduler", cluster.scheduler_address])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0, out
    verdicts = {r["id"]: r["verdict"] for r in out["results"]}
    assert verdicts == {
        "composition.sandwich.optimal_le_general_le_drv": "CERTIFIED",
        "composition.sandwich.optimal_le_general_le_drv_large_k": "CERTIFIED",
    }


# ------------------------------------------------------------------------------ 2. every start method finishes

#: chunk functions importable by spawned workers (a module on PYTHONPATH, not the test's)
CHUNKS_MODULE = textwrap.dedent(
    """
    import os, time
    from fractions import Fraction
    from dpcert.core.parallel import Summary

    def square(c):
        s = Summary()
        s.add("items")
        s.add("sum", c * c)
        s.consider(Fraction(c * c % 17, 3), {"c": c})
        return s

    def slow(c):
        time.sleep(0.3)
        with open(os.environ["CHUNK_LOG"], "a") as f:
            f.write(f"{c}\\n")
        return square(c)
    """
)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    (tmp_path / "chunkfns.py").write_text(CHUNKS_MODULE)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, str(tmp_path)]), **extra}


def _run_script(
    script: str, env: dict[str, str], timeout: float, args: list[str] = ()
) -> subprocess.CompletedProcess[str]:
    """``script`` in a fresh interpreter; killed with its process group after ``timeout`` s (a livelock fails)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args], env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"no end in {timeout} s (a livelock)")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


START_METHOD_RUN = textwrap.dedent(
    """
    import json, multiprocessing, sys
    import dpcert.core.parallel as parallel
    from chunkfns import square

    multiprocessing.set_start_method(sys.argv[1], force=True)
    run = parallel.RunOptions(sys.argv[2], workers=2)
    print(json.dumps(parallel.map_chunks(square, range(9), run=run).to_json()))
    """
)


def _run_args(args: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return _run_script(START_METHOD_RUN, env, timeout, args)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_local_pool_finishes_with_the_serial_result_under_every_start_method(tmp_path, method):
    # on f3737cd a worker under forkserver saw the fork server as its parent and exited at once; the chunks it never
    # started were sent back without counting: new workers forever, a run that never returned
    env = _env(tmp_path)
    serial = _run_args([method, "serial"], env, 60)
    assert serial.returncode == 0, serial.stderr
    res = _run_args([method, "processes"], env, 60)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert json.loads(res.stdout) == json.loads(serial.stdout)
    assert json.loads(res.stdout)["counts"] == {"d": {"items": 9, "sum": sum(c * c for c in range(9))}}


def test_workers_that_die_at_start_end_the_run_in_one_line(tmp_path):
    # every worker exits before running anything (on f3737cd: requeued without end)
    script = textwrap.dedent(
        """
        import os
        import dpcert.core.parallel as parallel
        from chunkfns import square
        from dpcert.errors import WorkerDied

        parallel._one_blas_thread = lambda: os._exit(1)  # run first by each (forked) worker: it exits at start
        try:
            parallel.map_chunks(square, range(6), workers=2)
        except WorkerDied as exc:
            print(exc)
        """
    )
    res = _run_script(script, _env(tmp_path), 60)
    assert res.returncode == 0 and res.stdout.startswith("a worker process died"), (res.stdout, res.stderr)


# ------------------------------------------------------------------------------ 5. results of other code


def _forging(c: tuple[int, int]) -> Summary:
    """In a worker (not the test's process): claim to be other code and return another result."""
    main_pid, i = c
    s = Summary()
    if os.getpid() != main_pid:
        workers._FINGERPRINT = "0" * 64
        s.add("forged")
    else:
        s.add("here")
    return s


def test_a_result_with_another_code_fingerprint_is_computed_again_here(capsys):
    total = map_chunks(_forging, [(os.getpid(), i) for i in range(6)], workers=2)
    assert total.counts == {"here": 6}  # none of the forged results was merged
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "other dpcert code" in err[0]


def _forged_off_the_main_thread(real):
    """A ``code_fingerprint`` that answers for other code except in the main thread (this process's own calls): a
    Dask worker's tasks and ``client.run`` run in other threads, or in processes forked from this one."""
    import threading

    return lambda: real() if threading.current_thread() is threading.main_thread() else "0" * 64


def _forge_fingerprint(monkeypatch) -> None:
    """Every use of ``code_fingerprint`` (judging results, in Dask tasks, asking a cluster's workers) forged off the
    main thread."""
    forged = _forged_off_the_main_thread(workers.code_fingerprint)
    for module in (workers, dask_cluster):
        monkeypatch.setattr(module, "code_fingerprint", forged)


@needs_dask
def test_a_dask_result_of_other_code_is_computed_again_here(monkeypatch, capsys):
    _forge_fingerprint(monkeypatch)
    total = map_chunks(_pid_chunk, range(3), run=RunOptions("dask", 1))  # dpcert's LocalCluster forks its worker
    assert total.counts == {str(os.getpid()): 3}
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dpcert:")]
    assert len(err) == 1 and "other dpcert code" in err[0]


@needs_dask
def test_a_cluster_whose_workers_run_other_code_of_the_same_version_is_refused(monkeypatch):
    _forge_fingerprint(monkeypatch)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        with pytest.raises(parallel.RunOptionError, match=r"workers running this dpcert's code .*found 000000000000"):
            map_chunks(_pid_chunk, range(3), run=RunOptions("dask", scheduler=lc.scheduler_address))


def test_the_fingerprint_is_of_the_package_sources():
    import dpcert

    root = Path(dpcert.__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    assert parallel.code_fingerprint() == h.hexdigest()
    foreign = workers._Foreign("a test")
    assert foreign.accept(_pid_chunk, 0, (h.hexdigest(), "kept")) == "kept"
    assert foreign.accept(lambda c: "recomputed", 0, ("1" * 64, "kept")) == "recomputed"
    assert foreign.accept(lambda c: "recomputed", 0, "a bare value (a worker of f3737cd)") == "recomputed"


# ------------------------------------------------------------------------------ 6. checkpoints prove their contents

DARRM = ["darrm", "certify", "gamma=one", "K=11", "m=5", "eps=0.1", "Delta=0", "delta=0", "--json", "-q"]


def _certify(capsys, ck: Path) -> tuple[int, dict | None, list[str]]:
    rc = main([*DARRM, "--checkpoint", str(ck)])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if out.strip() else None), err.strip().splitlines()


def _untimed(d: dict) -> dict:
    return {k: v for k, v in d.items() if "seconds" not in k and k != "timing"}


def _forge(ck: Path) -> None:
    """Replace every refuting chunk's summary by a clean one (chunk 0's), as an attacker without the key would:
    the entry's MAC recomputed under a key of their own."""
    data = json.loads(ck.read_text())
    (section,) = data["sections"].values()

    def value(e):
        return e["v"] if isinstance(e, dict) and "mac" in e else e

    clean = value(section["0"])
    for k, e in section.items():
        if value(e)["refuted"]:
            if isinstance(e, dict) and "mac" in e:
                msg = json.dumps([Checkpoint.FORMAT, data["key"], data["code"], k, clean]).encode()
                section[k] = {"v": clean, "mac": hmac.new(b"not the key", msg, hashlib.sha256).hexdigest()}
            else:  # f3737cd's format: the summary as it is
                section[k] = clean
    ck.write_text(json.dumps(data))


def test_an_edited_checkpoint_is_refused_and_a_genuine_one_resumes(tmp_path, capsys):
    ck = tmp_path / "c.json"
    rc, first, _ = _certify(capsys, ck)
    assert rc == 1 and first["verdict"] == "REFUTED"
    # genuine: half the chunks dropped (an interrupted run), the rest resumed
    data = json.loads(ck.read_text())
    (section,) = data["sections"].values()
    for k in list(section)[::2]:
        del section[k]
    ck.write_text(json.dumps(data))
    rc, again, err = _certify(capsys, ck)
    assert rc == 1 and _untimed(again) == _untimed(first) and err == []
    # edited: on f3737cd this printed CERTIFIED with exit 0
    _forge(ck)
    rc, out, err = _certify(capsys, ck)
    assert rc == 2 and out is None and len(err) == 1
    assert f"invalid --checkpoint={str(ck)!r}" in err[0] and "prove themselves" in err[0]


def _opened(ck: Path, tmp_path: Path) -> tuple[Checkpoint, str]:
    """The checkpoint ``ck`` opened as the command that wrote it holds it (with its key), and its section."""
    data = json.loads(ck.read_text())
    ckpt = Checkpoint(tmp_path / "fresh.json", "any")
    ckpt.path, ckpt.key, ckpt.data = ck, data["key"], data
    (name,) = data["sections"]
    return ckpt, name


def test_a_checkpoint_written_by_other_code_is_recomputed_with_one_line(tmp_path, capsys, monkeypatch):
    ck = tmp_path / "c.json"
    monkeypatch.setattr(workers, "_FINGERPRINT", "1" * 64)  # "other code" writes the file
    rc, genuine, _ = _certify(capsys, ck)
    assert rc == 1
    # it recorded clean summaries for the refuting chunks, each proved under this user's key and its own code
    ckpt, name = _opened(ck, tmp_path)
    clean = ckpt.finished(name)[0]
    for i, s in ckpt.finished(name).items():
        if s.refuted:
            ckpt.record(name, i, clean)
    ckpt.flush()
    monkeypatch.setattr(workers, "_FINGERPRINT", None)  # this code resumes it
    rc, out, err = _certify(capsys, ck)
    assert rc == 1 and _untimed(out) == _untimed(genuine) and out["verdict"] == "REFUTED"
    assert len(err) == 1 and "written by other dpcert code" in err[0] and "computed again" in err[0]


def test_a_damaged_field_is_a_damaged_checkpoint(tmp_path, capsys):
    ck = tmp_path / "c.json"
    rc, _, _ = _certify(capsys, ck)
    ckpt, name = _opened(ck, tmp_path)
    bad = ckpt.finished(name)[0].to_json()
    bad["counts"] = {"d": {"float": "twelve"}}  # written with the key, still not a summary
    ckpt._put(name, 0, bad)
    ckpt.flush()
    # on f3737cd: "invalid inputs={...}: expected TypeError ..."
    rc, out, err = _certify(capsys, ck)
    assert rc == 2 and len(err) == 1 and err[0].endswith("expected a dpcert checkpoint file (it is damaged)")


def test_the_checkpoint_key_is_made_once_readable_by_its_user_only(tmp_path):
    path = parallel.checkpoint_key_path()
    assert path == tmp_path / "key" / "checkpoint.key" and not path.exists()
    Checkpoint(tmp_path / "c.json", "k")
    first = path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600 and len(first.strip()) == 64
    Checkpoint(tmp_path / "c.json", "k")
    assert path.read_text() == first
    path.chmod(0o644)
    with pytest.raises(parallel.RunOptionError, match="checkpoint key file"):
        Checkpoint(tmp_path / "c.json", "k")


# ------------------------------------------------------------------------------ 7. SIGTERM flushes the checkpoint

SIGTERM_RUN = textwrap.dedent(
    """
    import sys
    import dpcert.core.parallel as parallel
    from chunkfns import slow

    parallel.Checkpoint.WRITE_EVERY = 1000.0  # only the first chunk is written while the run goes on
    workers = 2 if sys.argv[1] == "processes" else 1  # (one process worker would run the chunks here)
    run = parallel.RunOptions(sys.argv[1], workers=workers, checkpoint=sys.argv[2], checkpoint_key="k")
    parallel.map_chunks(slow, range(200), run=run)
    """
)


@pytest.mark.parametrize("executor", ["serial", "processes", pytest.param("dask", marks=needs_dask)])
def test_sigterm_flushes_the_checkpoint(tmp_path, executor):
    # on f3737cd the serial and Dask paths died of SIGTERM at once: the file held the first chunk only
    log, ck = tmp_path / "log", tmp_path / "c.json"
    env = _env(tmp_path, CHUNK_LOG=str(log))
    proc = subprocess.Popen([sys.executable, "-c", SIGTERM_RUN, executor, str(ck)], env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (log.exists() and len(log.read_text().split()) >= 5) and time.monotonic() < deadline:
            time.sleep(0.05)
        done = len(log.read_text().split())
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert rc == -signal.SIGTERM
    (section,) = json.loads(ck.read_text())["sections"].values()
    # what had finished when SIGTERM came is on disk, but for a result on its way back (Dask: one more)
    assert done >= 5 and len(section) >= done - 2


def test_sigterm_unwinds_a_decorated_function_then_dies_of_sigterm(tmp_path):
    # dpcert verify and br adaptive keep their own checkpoints: their runs are decorated, so the finally that
    # flushes runs on SIGTERM as well
    script = textwrap.dedent(
        """
        import os, signal, sys
        from dpcert.core.parallel import sigterm_unwinds

        @sigterm_unwinds()
        def run():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                signal.pause()
            finally:
                open(sys.argv[1], "w").write("flushed")

        run()
        """
    )
    mark = tmp_path / "mark"
    res = _run_script(script, _env(tmp_path), 60, [str(mark)])
    assert res.returncode == -signal.SIGTERM and mark.read_text() == "flushed"
