"""Workers of a parallel run never outlive it, and a run's faults are reported as faults (issue 18, section 3).

Each test starts a real parallel run in a subprocess (a slow chunk function that records its worker's pid, then
sleeps), acts on it with a signal, and looks at /proc.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc (Linux)")

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: a parallel run of 4 slow chunks on 2 workers; each worker writes its pid into DIR first
RUN = textwrap.dedent(
    """
    import os, sys, time
    from dpcert.core.parallel import Summary, map_chunks

    def slow(chunk):
        open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
        time.sleep(60)
        return Summary()

    map_chunks(slow, range(4), workers=2)
    """
)

#: the same slow chunks under the real CLI (`dpcert darrm certify --workers 2`), its chunk function swapped
CLI_RUN = textwrap.dedent(
    """
    import os, sys, time
    import dpcert.darrm.privacy as privacy
    from dpcert.cli import main
    from dpcert.core.parallel import Summary

    def slow(chunk):
        open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
        time.sleep(60)
        return Summary()

    privacy._chunk = slow
    sys.exit(main(["darrm", "certify", "gamma=sub", "K=11", "m=3", "eps=0.1", "Delta=0", "delta=0", "--workers",
                   "2", "--quiet"]))
    """
)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _start(code: str, tmp_path: Path, *args: str, path: str = SRC) -> tuple[subprocess.Popen, list[int]]:
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job would be
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pids = [int(p.name) for p in tmp_path.iterdir()]
        if len(pids) == 2:
            return proc, pids
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the workers did not start: {proc.communicate()}")


def _gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _cleanup(pids: list[int]) -> None:
    for p in pids:
        if _alive(p):
            os.kill(p, signal.SIGKILL)


def test_sigkill_of_the_parent_leaves_no_worker(tmp_path):
    proc, workers = _start(RUN, tmp_path)
    try:
        proc.kill()
        proc.wait(5)
        assert _gone_within(workers, 3), "workers orphaned after SIGKILL of the parent"
    finally:
        _cleanup(workers)


def test_sigterm_of_the_parent_terminates_the_workers_and_the_parent(tmp_path):
    proc, workers = _start(RUN, tmp_path)
    try:
        proc.terminate()
        assert proc.wait(5) == -signal.SIGTERM  # dies of SIGTERM, as it would by default, after cleaning up
        assert _gone_within(workers, 3)
    finally:
        _cleanup(workers)


#: chunks 0 and 1 sleep (each worker writes DIR/<pid> holding its chunk); 2 and 3 return at once
RETRY_RUN = textwrap.dedent(
    """
    import json, os, sys, time
    from dpcert.core.parallel import Summary, map_chunks

    def slow(chunk):
        if chunk < 2:
            with open(os.path.join(sys.argv[1], str(os.getpid())), "w") as f:
                f.write(str(chunk))
            time.sleep(60)
        return Summary({"ok": 1})

    s = map_chunks(slow, range(4), workers=2)
    print(json.dumps({"counts": s.counts, "failed": s.failed}))
    """
)


def _new_pids(tmp_path: Path, known: set[int], n: int, proc: subprocess.Popen) -> list[int]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pids = [int(p.name) for p in tmp_path.iterdir() if int(p.name) not in known and p.read_text()]
        if len(pids) == n:
            return pids
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the retried chunks did not start")


def test_a_killed_worker_is_retried_alone_and_a_second_death_is_reported_not_dropped(tmp_path):
    proc, workers = _start(RETRY_RUN, tmp_path)
    seen = set(workers)
    try:
        os.kill(workers[0], signal.SIGKILL)
        # the pool broke: the two running chunks are retried, each alone in a fresh process
        retried = _new_pids(tmp_path, seen, 2, proc)
        seen |= set(retried)
        assert sorted(int((tmp_path / str(p)).read_text()) for p in retried) == [0, 1]
        for p in retried:  # a second death of each: both chunks fail, the other two still run
            os.kill(p, signal.SIGKILL)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        res = json.loads(out)
        assert res["counts"] == {"ok": 2, "failed_chunks": 2}
        assert [f["chunk"] for f in res["failed"]] == [0, 1]
        assert all(f["reason"] == "its worker died (signal 9, SIGKILL) on each of 2 attempts" for f in res["failed"]), (
            res["failed"]
        )
        assert _gone_within(list(seen), 3)
    finally:
        _cleanup(list(seen))


DASK_RUN = textwrap.dedent(
    """
    import os, sys, threading, time
    from dpcert.core.parallel import RunOptions, Summary, map_chunks

    def slow(chunk):  # the file holds the names of the worker's threads
        names = " ".join(t.name for t in threading.enumerate())
        with open(os.path.join(sys.argv[1], str(os.getpid())), "w") as f:
            f.write(names)
        time.sleep(60)
        return Summary()

    if __name__ == "__main__":
        map_chunks(slow, range(4), run=RunOptions("dask", 2))
    """
)


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs dask.distributed")
def test_sigkill_of_the_parent_leaves_no_dask_local_cluster_worker(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(DASK_RUN)
    pids = tmp_path / "pids"
    pids.mkdir()
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + str(tmp_path)}
    proc = subprocess.Popen([sys.executable, str(script), str(pids)], env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 30
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            workers = [int(p.name) for p in pids.iterdir()]
            time.sleep(0.05)
        assert len(workers) == 2, proc.communicate()
        assert all(w != proc.pid for w in workers)  # the chunks run in worker processes
        # each worker watches the parent's pid itself: distributed's guard (a pipe per worker) fails when two
        # workers are forked at once and each holds the other's pipe end
        time.sleep(0.2)  # the files written
        assert all("dpcert-watchdog" in (pids / str(w)).read_text().split() for w in workers)
        proc.kill()
        proc.wait(5)
        assert _gone_within(workers, 10), "Dask workers orphaned after SIGKILL of the parent"
    finally:
        _cleanup(workers)


def test_ctrl_c_to_the_process_group_prints_one_line(tmp_path):
    proc, workers = _start(CLI_RUN, tmp_path)
    try:
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: every process of the group
        _, err = proc.communicate(timeout=10)
        assert proc.returncode == 130
        assert err.strip().splitlines() == ["dpcert: interrupted"]
        assert _gone_within(workers, 3)
    finally:
        _cleanup(workers)


# ------------------------------------------------------------------------------ every start method

#: the slow chunks, in a module that spawned and forkserver workers can import (a function of `-c` they cannot)
SLOW_MODULE = textwrap.dedent(
    """
    import os, sys, time
    from dpcert.core.parallel import Summary

    def slow(chunk):
        if chunk < 2:
            with open(os.path.join(os.environ["PID_DIR"], str(os.getpid())), "w") as f:
                f.write(str(chunk))
            time.sleep(60)
        return Summary({"ok": 1})
    """
)

#: chunks 0 and 1 sleep in the two workers (each writes DIR/<pid> holding its chunk), under the start method argv[2]
METHOD_RUN = textwrap.dedent(
    """
    import json, multiprocessing, sys
    from dpcert.core.parallel import map_chunks
    from slowchunks import slow

    multiprocessing.set_start_method(sys.argv[2], force=True)
    s = map_chunks(slow, range(4), workers=2)
    print(json.dumps({"counts": s.counts, "failed": s.failed}))
    """
)


def _start_method(tmp_path: Path, method: str) -> tuple[subprocess.Popen, list[int], Path]:
    mod, pids = tmp_path / "mod", tmp_path / "pids"
    mod.mkdir()
    pids.mkdir()
    (mod / "slowchunks.py").write_text(SLOW_MODULE)
    os.environ["PID_DIR"] = str(pids)  # inherited by the run (_start copies the environment)
    try:
        proc, workers = _start(METHOD_RUN, pids, method, path=os.pathsep.join([SRC, str(mod)]))
    finally:
        del os.environ["PID_DIR"]
    return proc, workers, pids


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_no_worker_outlives_its_parent_under_every_start_method(tmp_path, method, how):
    # each worker watches the process that runs the pool by its pid (a pidfd on Linux), not its direct parent:
    # under forkserver that is the fork server. SIGTERM unwinds the run, which stops its workers, then kills it.
    proc, workers, _ = _start_method(tmp_path, method)
    family = _descendants(proc.pid)  # the workers, and under forkserver the fork server
    assert set(workers) <= set(family)
    try:
        proc.send_signal(how)
        assert proc.wait(10) == -how
        assert _gone_within(family, 3), f"processes orphaned after {how.name} of the parent ({method})"
    finally:
        _cleanup(family)


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = [], [pid]
    while frontier:
        kids = [c for c, p in parents.items() if p in frontier]
        found += kids
        frontier = kids
    return found


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_chunk_that_kills_its_worker_is_reported_under_every_start_method(tmp_path, method):
    # the worker's exit code (which names the signal) comes from the executor's processes under every start method,
    # also when they are children of the fork server
    proc, workers, pids = _start_method(tmp_path, method)
    seen = set(workers)
    try:
        os.kill(workers[0], signal.SIGKILL)
        retried = _new_pids(pids, seen, 2, proc)
        seen |= set(retried)
        for p in retried:
            os.kill(p, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        res = json.loads(out)
        assert res["counts"] == {"ok": 2, "failed_chunks": 2}
        assert all(f["reason"] == "its worker died (signal 9, SIGKILL) on each of 2 attempts" for f in res["failed"]), (
            res["failed"]
        )
        assert _gone_within(list(seen), 3)
    finally:
        _cleanup(list(seen))


def _private_uses(source: str) -> list[str]:
    """The private attributes ``source`` reads of objects other than its own (``self``, its ``_workers`` module):
    ``x._name`` and ``getattr(x, "_name", ...)``; ``os._exit`` is public API."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base, name = node.value, node.attr
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and str(node.args[1].value)[:1] == "_"
        ):  # fmt: skip
            base, name = node.args[0], node.args[1].value
        else:
            continue
        own = isinstance(base, ast.Name) and (
            base.id in ("self", "cls", "_workers") or (base.id, name) == ("os", "_exit")
        )
        if not own:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


def test_the_executors_use_no_private_attribute_of_another_library():
    # bed5ed8 read ProcessPoolExecutor._processes and ._executor_manager_thread: a rename in any Python release would
    # have silently switched off the termination of the workers on an error
    import dpcert.core

    core = Path(dpcert.core.__file__).parent
    for name in ("parallel", "workers", "summary", "checkpoint", "dask_cluster"):
        assert _private_uses((core / f"{name}.py").read_text()) == [], name
    # the check finds what bed5ed8 did
    assert _private_uses(
        'procs += list(getattr(pool, "_processes", {}).values())\nm = pool._executor_manager_thread'
    ) == [
        "1: getattr(pool, '_processes', {})",
        "2: pool._executor_manager_thread",
    ]
