"""Dask faults end in bounded time with one line that names the cause (issue 29, item 4).

Everything here runs on loopback: a port nothing listens on, services that are not Dask schedulers (silent, an HTTP
server, garbage bytes), a scheduler without workers, a scheduler killed during a run, a worker killed during a run.
Each test runs under a hard time limit, so that a hang fails it instead of hanging the suite.
"""

from __future__ import annotations

import http.server
import logging
import math
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from timeguard import time_limit

import dpcert.core.dask_cluster as dask_cluster
import dpcert.core.parallel as parallel
from dpcert.cli import main
from dpcert.core.parallel import RunOptions, Summary, map_chunks, map_each
from dpcert.errors import InvalidParameter, RunOptionError, SchedulerLost

try:
    import distributed
except ImportError:  # the `distributed` extra
    distributed = None

pytestmark = pytest.mark.skipif(distributed is None, reason='needs dask.distributed (pip install ".[distributed]")')

SRC = str(Path(__file__).resolve().parents[2] / "src")
#: a DaRRM certification of 12 chunks, a fraction of a second of work
ARGS = ["darrm", "certify", "gamma=one", "K=11", "m=5", "eps=0.1", "Delta=0", "delta=0", "--executor", "dask", "-q"]


def _free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(capsys, *args: str, limit: float) -> tuple[int, list[str], float]:
    """``dpcert`` in this process under a hard time limit: (exit code, stderr lines, seconds)."""
    t0 = time.monotonic()
    with time_limit(limit):
        rc = main([*ARGS, *args])
    return rc, capsys.readouterr().err.strip().splitlines(), time.monotonic() - t0


class _Service:
    """A TCP service on loopback that accepts every connection and answers it with ``reply`` (nothing: silent)."""

    def __init__(self, reply: bytes = b"") -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.reply, self.conns = reply, []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed
                return
            self.conns.append(conn)
            if self.reply:
                conn.sendall(self.reply)

    def close(self) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


# ------------------------------------------------------------------------------ reaching the scheduler


def test_a_refused_port_is_said_at_once(capsys):
    # on f3737cd: 12 s of retries before the same kind of line
    port = _free_port()
    rc, err, took = _cli(capsys, "--scheduler", f"tcp://127.0.0.1:{port}", limit=20)
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"dpcert: error: invalid --scheduler='tcp://127.0.0.1:{port}': expected the address")
    assert "nothing listens there: the connection was refused" in err[0]
    assert took < 3


@pytest.mark.parametrize("kind", ["silent", "http"])
def test_a_service_that_is_no_dask_scheduler_is_refused_within_the_deadline(kind, capsys, monkeypatch):
    # on f3737cd: Client(address, timeout=10) bounded the connection, not the handshake, and waited forever
    monkeypatch.setattr(dask_cluster, "SCHEDULER_TIMEOUT", 1.5)
    if kind == "silent":
        service = _Service()
        address, close = service.address, service.close
    else:  # `python -m http.server` on loopback
        http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None  # type: ignore[method-assign]
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        address, close = f"tcp://127.0.0.1:{server.server_address[1]}", server.shutdown
    try:
        rc, err, took = _cli(capsys, "--scheduler", address, limit=20)
    finally:
        close()
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"dpcert: error: invalid --scheduler='{address}'")
    said = ("gave no Dask answer within 1.5 s", "does not speak Dask's protocol", "closed the connection")
    assert any(s in err[0] for s in said), err[0]
    assert took < 1.5 + 4


def test_garbage_bytes_are_said_to_be_no_dask_protocol(capsys):
    # on f3737cd the bytes were read as a frame length: a MemoryError, reported as `invalid inputs=...`
    service = _Service(b"HTTP/1.0 400 Bad request\r\n\r\n" * 20)
    try:
        rc, err, took = _cli(capsys, "--scheduler", service.address, limit=20)
    finally:
        service.close()
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"dpcert: error: invalid --scheduler='{service.address}'")
    assert "does not speak Dask's protocol" in err[0] and "invalid inputs" not in err[0]
    assert took < 5


def test_a_dask_worker_given_as_the_scheduler_is_named(capsys):
    with distributed.LocalCluster(n_workers=1, processes=False, protocol="tcp", dashboard_address=None) as lc:
        address = next(iter(lc.scheduler_info["workers"]))
        rc, err, _ = _cli(capsys, "--scheduler", address, limit=20)
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"dpcert: error: invalid --scheduler='{address}'")
    assert "(a Dask Worker answers there, not a scheduler)" in err[0]


# ------------------------------------------------------------------------------ a scheduler without workers


def test_a_scheduler_without_workers_is_waited_for_as_long_as_asked_then_refused(capsys):
    # on f3737cd the run waited forever, printing nothing (and there was no --wait-for-workers)
    levels = {n: logging.getLogger(n).level for n in ("distributed", "distributed.client", "distributed.core")}
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as lc:
        address = lc.scheduler_address
        rc, err, took = _cli(capsys, "--scheduler", address, "--wait-for-workers", "1.5", limit=20)
    assert rc == 2 and len(err) == 2, err
    assert err[0] == (
        f"dpcert: the Dask scheduler at {address} has no workers: waiting up to 1.5 s for one (--wait-for-workers)"
    )
    assert err[1].startswith(f"dpcert: error: invalid --scheduler='{address}': expected a Dask scheduler with workers")
    assert "none joined within 1.5 s" in err[1] and "--wait-for-workers SECONDS" in err[1]
    assert 1.5 <= took < 1.5 + 5
    # distributed's loggers were silenced for the run, and are as they were after it
    assert {n: logging.getLogger(n).level for n in levels} == levels


def _square(x: int) -> Summary:
    s = Summary()
    s.add("sum", x * x)
    return s


def test_a_worker_that_joins_while_the_run_waits_runs_its_chunks():
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as lc:
        threading.Timer(0.5, lc.scale, (1,)).start()
        with time_limit(30):
            total = map_chunks(_square, range(6), run=RunOptions("dask", scheduler=lc.scheduler_address))
    assert total.counts == {"sum": 55}


def _slow_square(x: int) -> Summary:
    time.sleep(0.1)
    return _square(x)


def test_workers_that_all_leave_during_the_run_end_it_after_the_wait(capsys):
    # on f3737cd the tasks waited for a worker forever, printing nothing
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as lc:
        address = lc.scheduler_address

        def retire(i: int, value: Summary) -> None:
            if i == 1:
                lc.scale(0)

        t0 = time.monotonic()
        with time_limit(30), pytest.raises(SchedulerLost) as lost:
            run = RunOptions("dask", scheduler=address, wait_for_workers=1)
            parallel.map_each(_slow_square, range(40), run=run, on_result=retire)
        took = time.monotonic() - t0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"dpcert: the Dask scheduler at {address} has no workers left: waiting up to 1 s for one (--wait-for-workers)"
    ]
    assert str(lost.value).startswith(f"the Dask scheduler at {address} lost its workers: none for 1 s (")
    assert "of 40 chunks done; start some with `dask worker" in str(lost.value)
    assert took < 1 + 6


def _raises_at_3(x: int) -> Summary:
    if x == 3:
        raise InvalidParameter("x", 3, "anything but 3")
    return _square(x)


def test_a_chunk_that_raises_on_dask_raises_its_own_error_not_a_fault_of_the_scheduler():
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as lc:
        with time_limit(30), pytest.raises(InvalidParameter, match=r"^invalid x=3: expected anything but 3$") as err:
            map_chunks(_raises_at_3, range(8), run=RunOptions("dask", scheduler=lc.scheduler_address))
    assert not isinstance(err.value, SchedulerLost)


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, True, "5", 86401])
def test_wait_for_workers_is_a_number_of_seconds(bad):
    with pytest.raises(RunOptionError, match=r"^invalid --wait-for-workers=.*: expected a number of seconds"):
        RunOptions("dask", wait_for_workers=bad)


def test_wait_for_workers_goes_with_dask_only(capsys):
    with pytest.raises(RunOptionError, match="only with --executor dask"):
        RunOptions("processes", wait_for_workers=5)
    with pytest.raises(SystemExit) as stop:  # a usage error
        main(["darrm", "certify", *ARGS[2:8], "--executor", "dask", "--wait-for-workers", "0"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--wait-for-workers must be a number in (0, 86400]" in err[0]
    assert RunOptions("dask").wait_seconds == parallel.WAIT_FOR_WORKERS == 30.0


# ------------------------------------------------------------------------------ faults during the run


def _start_cluster(tmp_path: Path, workers: int, env: dict[str, str]) -> tuple[str, list[subprocess.Popen]]:
    """A `dask scheduler` and ``workers`` single-threaded `dask worker` processes on loopback (no nanny), all
    registered; (address, processes)."""
    info = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    scheduler = ["--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info)]
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", *scheduler], **quiet)]
    try:
        deadline = time.monotonic() + 30
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        for _ in range(workers):
            worker = ["--scheduler-file", str(info), "--nthreads", "1", "--no-nanny", "--no-dashboard"]
            procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", *worker], **quiet))
        with distributed.Client(scheduler_file=str(info), timeout=30) as c:
            c.wait_for_workers(workers, timeout=30)
            return c.scheduler.address, procs
    except BaseException:
        _stop(procs)
        raise


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.kill()
    for p in procs:
        p.wait(10)


CHUNKS = textwrap.dedent(
    """
    import os, signal, time, uuid
    from pathlib import Path
    import dpcert.darrm.privacy as privacy
    from dpcert.core.parallel import Summary

    _real = privacy._chunk

    def darrm_chunk(task):
        # the DaRRM chunk, slowed; the third to start kills the scheduler
        runs = Path(os.environ["DPCERT_TEST_RUNS"])
        (runs / uuid.uuid4().hex).touch()
        if len(list(runs.iterdir())) == 3:
            os.kill(int((runs.parent / "scheduler.pid").read_text()), signal.SIGKILL)
        time.sleep(0.3)
        return _real(task)

    def counted(i):
        # one file per execution of chunk i, named by the chunk and the worker's pid
        time.sleep(0.2)
        (Path(os.environ["DPCERT_TEST_RUNS"]) / f"{i}-{os.getpid()}-{uuid.uuid4().hex}").touch()
        s = Summary()
        s.add("x")
        return s
    """
)

DPCERT = textwrap.dedent(
    """
    import sys
    import dpcert.darrm.privacy as privacy
    import test_dask_chunks
    from dpcert.cli import main

    privacy._chunk = test_dask_chunks.darrm_chunk
    sys.exit(main(sys.argv[1:]))
    """
)


@pytest.fixture
def chunks_module(tmp_path, monkeypatch):
    """The chunk functions above as a module the workers (and this process) import; executions counted in a
    folder."""
    (tmp_path / "test_dask_chunks.py").write_text(CHUNKS)
    runs = tmp_path / "runs"
    runs.mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("DPCERT_TEST_RUNS", str(runs))
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + str(tmp_path)}
    return runs, env


def test_a_scheduler_killed_during_the_run_is_one_line(tmp_path, chunks_module):
    # on f3737cd: about 35 lines of Dask tracebacks, then `invalid inputs={...}: expected AssertionError:`
    runs, env = chunks_module
    address, procs = _start_cluster(tmp_path, 1, env)
    try:
        script = tmp_path / "dpcert_run.py"
        script.write_text(DPCERT)
        (tmp_path / "scheduler.pid").write_text(str(procs[0].pid))
        t0 = time.monotonic()
        out = subprocess.run([sys.executable, str(script), *ARGS, "--scheduler", address], env=env,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
        took = time.monotonic() - t0
    finally:
        _stop(procs)
    assert procs[0].returncode == -signal.SIGKILL  # the scheduler was killed mid-run, by the third chunk
    err = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(err) == 1, out.stderr
    assert err[0].startswith(f"dpcert: error: the Dask scheduler at {address} went away during the run (")
    assert "chunks done" in err[0] and "Traceback" not in out.stderr
    assert took < 30


def test_a_dead_worker_does_not_make_dask_compute_returned_chunks_again(tmp_path, chunks_module):
    # on f3737cd every future stayed referenced to the end: the chunks the dead worker had returned were computed
    # again (14 of them in the run)
    import test_dask_chunks

    runs, env = chunks_module
    address, procs = _start_cluster(tmp_path, 2, env)
    returned: list[int] = []  # the chunks whose results had arrived when a worker was killed
    ran: dict[int, int] = {}  # who ran them

    def kill_a_worker(i: int, value: Summary) -> None:
        returned.append(i)
        if len(returned) == 8:
            ran.update((int(p.name.split("-")[0]), int(p.name.split("-")[1])) for p in runs.iterdir())
            time.sleep(0.5)  # the released tasks reach the scheduler
            os.kill(ran[returned[0]], signal.SIGKILL)

    try:
        with time_limit(60):
            out = map_each(test_dask_chunks.counted, range(16), run=RunOptions("dask", scheduler=address),
                           on_result=kill_a_worker)  # fmt: skip
    finally:
        _stop(procs)
    assert [reason for _, reason in out] == [None] * 16
    killed = ran[returned[0]]
    assert len(set(ran.values())) == 2 and killed in (procs[1].pid, procs[2].pid)  # both workers had run chunks
    executions: dict[int, int] = {}
    for p in runs.iterdir():
        i = int(p.name.split("-")[0])
        executions[i] = executions.get(i, 0) + 1
    assert sorted(executions) == list(range(16))
    # every chunk returned before the kill ran once, also those the killed worker held
    assert [executions[i] for i in returned[:8]] == [1] * 8, executions
    assert any(ran[i] == killed for i in returned[:8])


def test_a_scheduler_lost_error_is_a_fault_of_the_run():
    exc = SchedulerLost("tcp://127.0.0.1:1", "went away during the run (3 of 12 chunks done)")
    assert isinstance(exc, RunOptionError)  # a claim's check passes it on; the command exits 2
    assert str(exc) == "the Dask scheduler at tcp://127.0.0.1:1 went away during the run (3 of 12 chunks done)"
    import pickle

    assert str(pickle.loads(pickle.dumps(exc))) == str(exc)
