"""Chunks of a parallel run on a Dask cluster: a scheduler given by address, or a ``LocalCluster`` started here.

:func:`dpcert.core.parallel.map_chunks` with ``executor="dask"`` calls ``_run_dask``. ``dask.distributed`` is
imported only then. A scheduler that is not there, does not answer as one within :data:`SCHEDULER_TIMEOUT`, has no
worker within ``--wait-for-workers`` or goes away during the run ends it in one line
(:class:`~dpcert.errors.RunOptionError`, :class:`~dpcert.errors.SchedulerLost`); workers of another version or of
other code are refused at connection, and results of other code that arrive later are computed again
(:class:`~dpcert.core.workers._Foreign`). A ``LocalCluster``'s worker processes end with their parent
(a watchdog on its pid, :func:`~dpcert.core.workers.start_watchdog`); a remote cluster's workers are the cluster's
and only lose the tasks.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial
from typing import Any

from dpcert.core.workers import (
    _IN_DASK_TASK,
    _FirstError,
    _Foreign,
    _one_blas_thread,
    code_fingerprint,
    start_watchdog,
)
from dpcert.errors import RunOptionError, SchedulerLost

__all__ = ["SCHEDULER_ENV", "SCHEDULER_TIMEOUT", "WAIT_FOR_WORKERS", "MAX_WAIT_FOR_WORKERS"]

#: Environment variable naming the Dask scheduler when ``--scheduler`` is not given.
SCHEDULER_ENV = "DPCERT_SCHEDULER"
#: Seconds for a Dask scheduler to accept a connection and answer in Dask's protocol (both together) before
#: ``--scheduler`` is refused.
SCHEDULER_TIMEOUT = 10.0
#: Seconds a run waits, by default, for a Dask scheduler without workers to get one (``--wait-for-workers``).
WAIT_FOR_WORKERS = 30.0
#: The longest ``--wait-for-workers`` (seconds).
MAX_WAIT_FOR_WORKERS = 86400.0


def _dpcert_version() -> str | None:
    """On a Dask worker: the dpcert version it imports (``None`` without dpcert)."""
    try:
        from dpcert._version import __version__
    except ImportError:  # pragma: no cover - a worker without dpcert
        return None
    return __version__


#: glibc's ``mallopt`` parameters M_TRIM_THRESHOLD and M_MMAP_THRESHOLD
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: glibc's own mmap threshold when nothing fixed it (its minimum: 128 KiB; ``MALLOC_MMAP_THRESHOLD_`` overrides)
_GLIBC_MMAP_THRESHOLD = 128 * 1024
#: the thresholds a dpcert task runs with on a Dask worker: the largest glibc's dynamic adjustment reaches on 64-bit
#: systems (mmap 32 MiB, trim twice that)
_TASK_MMAP_THRESHOLD, _TASK_TRIM_THRESHOLD = 32 << 20, 64 << 20


#: dpcert tasks running in this worker process (a worker may run several in threads) and their lock: the malloc
#: thresholds are raised by the first to start and restored by the last to end
_TASKS_RUNNING = 0
_TASKS_LOCK = threading.Lock()


def _malloc_thresholds(raised: bool) -> None:
    """On a worker whose glibc malloc thresholds were fixed by ``MALLOC_TRIM_THRESHOLD_`` (a Dask nanny sets 65536,
    ``distributed.nanny.pre-spawn-environ``): raise them to what glibc's own adjustment reaches, or put the
    environment's values back and hand the freed memory to the system (``malloc_trim``). Nothing where nothing fixed
    them (glibc then adjusts them itself) or there is no glibc."""
    trim_env = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if trim_env is None or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        trim = int(trim_env)
        mmap = int(os.environ.get("MALLOC_MMAP_THRESHOLD_", _GLIBC_MMAP_THRESHOLD))
        libc = ctypes.CDLL(None)
        mallopt, malloc_trim = libc.mallopt, libc.malloc_trim
    except (OSError, AttributeError, ValueError):  # pragma: no cover - not glibc, or a value glibc would not read
        return
    if raised:
        mallopt(_M_MMAP_THRESHOLD, _TASK_MMAP_THRESHOLD)
        mallopt(_M_TRIM_THRESHOLD, _TASK_TRIM_THRESHOLD)
    else:
        mallopt(_M_TRIM_THRESHOLD, trim)
        mallopt(_M_MMAP_THRESHOLD, mmap)
        malloc_trim(0)


def _dask_task(fn: Callable[[Any], Any], chunk: Any, parent: int | None = None) -> tuple[str, Any]:
    """On a Dask worker: ``fn(chunk)`` with freed memory kept for reuse while it runs, as in a plain Python process.

    A Dask nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also fixes glibc's mmap threshold at
    128 KiB: every NumPy temporary above that (the DaRRM chunk's 256 KiB row blocks) is then a fresh ``mmap`` whose
    pages fault in one by one, and returned at once. Measured at DaRRM K = 41, Δ > 0: the chunks took 1.75 CPU
    seconds instead of 0.75 in such a process, an existing 2-worker cluster 2.2x the local processes' wall time.
    The worker's settings are restored when its last dpcert task ends and the freed memory returned, as Dask wants.
    On a ``LocalCluster`` started by the run, ``parent`` is the run's process: the worker's watchdog is started
    (once; also in a worker the nanny started again), so that it ends with that process.
    Returns the value with the fingerprint of the code that computed it."""
    global _TASKS_RUNNING
    if parent is not None:
        start_watchdog(parent)
    in_task = _IN_DASK_TASK.set(True)  # a map_chunks inside fn runs inline (a Dask worker may not have children)
    with _TASKS_LOCK:
        _TASKS_RUNNING += 1
        if _TASKS_RUNNING == 1:
            _malloc_thresholds(raised=True)
    try:
        value = fn(chunk)
        return code_fingerprint(), value
    finally:
        _IN_DASK_TASK.reset(in_task)
        with _TASKS_LOCK:
            _TASKS_RUNNING -= 1
            if _TASKS_RUNNING == 0:
                _malloc_thresholds(raised=False)


def _scheduler_address(scheduler: str | None) -> str | None:
    """The Dask scheduler a run uses: ``scheduler``, else ``$DPCERT_SCHEDULER``; ``None``: a new ``LocalCluster``."""
    return scheduler or os.environ.get(SCHEDULER_ENV) or None


#: how often a Dask run checks, while it waits for results, that its scheduler is there and has workers (seconds)
_DASK_WATCH_PERIOD = 0.5


def _refuse(address: str, problem: str) -> RunOptionError:
    return RunOptionError(
        "--scheduler", address, f"the address of a running Dask scheduler, tcp://HOST:PORT ({problem})"
    )


def _reach_scheduler(address: str, timeout: float) -> dict[str, Any]:
    """The identity of the Dask scheduler at ``address`` (``type``, ``n_workers``, ...), asked within ``timeout``
    seconds for the connection and the answer together; else :class:`~dpcert.errors.RunOptionError` in one line
    naming what is there: nothing (a refused connection is final at once, not retried for seconds), a service that
    says nothing or does not speak Dask's protocol, or a Dask server that is not a scheduler.

    ``distributed.Client(address, timeout=...)`` bounds the connection only: its handshake waits forever on a
    service that accepts and says nothing (an HTTP server), and bytes that are not Dask's become a ``MemoryError``
    (they are read as a frame length). So the scheduler is asked for its identity here first, in a thread of its own
    whose event loop the deadline ends."""
    import asyncio
    import socket

    from distributed.comm import connect
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.security import Security

    try:
        scheme, loc = parse_address(address)
        host, port = parse_host_port(loc) if scheme in ("tcp", "tls") else (None, None)
    except (ValueError, TypeError):
        raise _refuse(address, "not an address") from None
    t0 = time.monotonic()
    if host is not None:  # a plain TCP connection first: refused, unknown or unreachable is said at once
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except ConnectionRefusedError:
            raise _refuse(address, "nothing listens there: the connection was refused") from None
        except TimeoutError:
            raise _refuse(address, f"no connection within {timeout:g} s") from None
        except OSError as exc:  # an unknown host, an unreachable network
            raise _refuse(address, f"cannot connect: {exc.strerror or exc}") from None

    left = max(timeout - (time.monotonic() - t0), 0.5)  # the same deadline for the connection and the answer

    async def identity() -> Any:
        comm = await connect(address, timeout=left, **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity"})  # (a worker's identity takes no arguments)
            return await comm.read()
        finally:
            comm.abort()

    box: dict[str, Any] = {}

    def ask() -> None:
        try:
            box["reply"] = asyncio.run(asyncio.wait_for(identity(), left))
        except BaseException as exc:  # noqa: BLE001 - said below, in the caller's thread
            box["error"] = exc

    asker = threading.Thread(target=ask, name="dpcert-scheduler-probe", daemon=True)
    asker.start()
    asker.join(left + 5)  # the deadline inside ends it; this bounds the wait should the loop not stop
    reply, exc = box.get("reply"), box.get("error")
    if "reply" not in box and (exc is None or isinstance(exc, (TimeoutError, asyncio.TimeoutError))):
        raise _refuse(address, f"a service there accepted the connection but gave no Dask answer within {timeout:g} s")
    if isinstance(exc, OSError):  # distributed's CommClosedError
        raise _refuse(address, "the service there closed the connection without a Dask answer")
    if exc is not None:  # bytes that are not Dask messages: a MemoryError (read as a frame length), a decoding error
        raise _refuse(
            address, f"the service there does not speak Dask's protocol; its reply raised {type(exc).__name__}"
        )
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        what = reply.get("type") if isinstance(reply, dict) else None
        raise _refuse(address, f"a Dask {what} answers there, not a scheduler" if what else "not a Dask scheduler")
    return reply


def _hint(address: str) -> str:
    return f"start some with `dask worker {address}`, or wait longer with --wait-for-workers SECONDS"


def _say_waiting(address: str, seconds: float, *, left: bool = False) -> None:
    sys.stderr.write(
        f"dpcert: the Dask scheduler at {address} has no workers{' left' if left else ''}: waiting up to "
        f"{seconds:g} s for one (--wait-for-workers)\n"
    )
    sys.stderr.flush()


def _wait_for_workers(client: Any, address: str, seconds: float) -> None:
    """Return once the scheduler has a worker; else say once on stderr that the run waits for one, and refuse the
    scheduler in one line when none came within ``seconds``."""
    import asyncio

    if client.scheduler_info(n_workers=0).get("n_workers", 0) > 0:
        return
    _say_waiting(address, seconds)
    try:
        client.wait_for_workers(1, timeout=seconds)
    except (TimeoutError, asyncio.TimeoutError):
        raise RunOptionError(
            "--scheduler",
            address,
            f"a Dask scheduler with workers (none joined within {seconds:g} s; {_hint(address)})",
        ) from None


@contextmanager
def _quiet_client_logs() -> Iterator[None]:
    """distributed's own loggers in this process silenced (their levels put back after): a scheduler that goes away
    makes its client log a traceback per failed reconnection, where dpcert says what happened in one line."""
    import logging

    try:
        import distributed  # noqa: F401 - its import sets its loggers' levels, overridden here
    except ImportError:  # said in one line by _dask_client
        yield
        return
    names = ["distributed", "tornado"]
    names += [n for n, lg in logging.root.manager.loggerDict.items() if n.startswith(("distributed.", "tornado."))
              and isinstance(lg, logging.Logger) and lg.level != logging.NOTSET]  # fmt: skip
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for n, level in saved.items():
            logging.getLogger(n).setLevel(level)


def _dask_client(n: int, scheduler: str | None, wait: float) -> tuple[Any, Any]:
    """A ``distributed.Client`` on ``scheduler`` (or ``$DPCERT_SCHEDULER``), else on a new ``LocalCluster`` of ``n``
    single-threaded worker processes; (client, cluster or None). An existing scheduler must answer as one within
    :data:`SCHEDULER_TIMEOUT` seconds and have a worker within ``wait`` seconds, else the run ends in one line."""
    try:
        import distributed
    except ImportError:
        raise RunOptionError(
            "--executor", "dask", 'an installed Dask (pip install "dpcert[distributed]") or another executor'
        ) from None
    address = _scheduler_address(scheduler)
    if address is not None:
        _reach_scheduler(address, SCHEDULER_TIMEOUT)
        try:
            client = distributed.Client(address, timeout=SCHEDULER_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise _refuse(address, str(exc)) from None
        try:
            _wait_for_workers(client, address, wait)
            _check_workers(client, address)
        except BaseException:
            client.close()
            raise
        return client, None
    import logging
    import warnings

    import dask

    # on Linux the local workers are forked (Dask's "fork" method): they start in a fraction of a second with dpcert
    # imported and its caches warm, where spawned ones import everything again (seconds)
    option = "distributed.worker.multiprocessing-method"
    method = "fork" if sys.platform.startswith("linux") else dask.config.get(option)
    with dask.config.set({option: method}), warnings.catch_warnings():
        # no dashboard; the scheduler's own small HTTP server takes another port when 8787 is taken (by a cluster
        # the user runs), which Dask announces in a warning on stderr that says nothing about dpcert's run
        warnings.filterwarnings("ignore", message="Port 8787 is already in use", category=UserWarning)
        cluster = distributed.LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        )
    client = distributed.Client(cluster)
    client.run(_one_blas_thread)  # as the local process workers: one BLAS thread each, no oversubscription
    # the workers end with this process. distributed's own guard (a pipe each worker reads until its parent's end
    # closes) fails when both workers' pipes exist before either forks (the nannies make them, then fork from
    # threads): each child inherits the other's kept end, and both outlive a SIGKILL of this process (seen on a
    # loaded CI machine); a pidfd watchdog does not depend on inherited fds
    client.run(start_watchdog, os.getpid())
    return client, cluster


def _check_workers(client: Any, address: str) -> None:
    """Refuse a cluster whose workers run another dpcert version or other code (workers joining later: _Foreign)."""
    from dpcert._version import __version__

    versions = set(client.run(_dpcert_version).values())
    if versions - {__version__}:  # another dpcert on a worker could compute something else
        found = ", ".join(sorted(map(str, versions)))
        raise RunOptionError("--scheduler", address, f"workers running dpcert {__version__} (found {found})")
    try:
        codes = set(client.run(code_fingerprint).values())
    except Exception:  # noqa: BLE001 - a worker whose dpcert has no fingerprint is running other code
        codes = {"none"}
    if codes - {code_fingerprint()}:  # the same version string, other sources
        raise RunOptionError(
            "--scheduler",
            address,
            f"workers running this dpcert's code (sources {code_fingerprint()[:12]}; "
            f"found {', '.join(sorted(c[:12] for c in codes))})",
        )


def _run_dask(
    fn: Callable[[Any], Any],
    chunks: list[Any],
    todo: list[int],
    n: int,
    run: Any,
    finished: Callable[[int, Any], None],
) -> dict[int, str]:
    """``fn`` over ``chunks[todo]`` on a Dask cluster. A worker's death reschedules its task on another worker
    (Dask's ``distributed.scheduler.allowed-failures``); a task that kills too many is a failed chunk.

    Each task is released as its result arrives (only the result is kept), so a worker that dies later does not
    make Dask compute again the chunks it had returned. A scheduler that goes away, or keeps no worker for
    ``run.wait_seconds``, ends the run with :class:`~dpcert.errors.SchedulerLost` in one line (a watch thread
    checks every :data:`_DASK_WATCH_PERIOD` seconds); distributed's own tracebacks are silenced meanwhile."""
    remote = _scheduler_address(run.scheduler) is not None
    with _quiet_client_logs() if remote else nullcontext():
        client, cluster = _dask_client(n, run.scheduler, run.wait_seconds)  # refuses a missing Dask in one line
        try:
            return _gather_dask(client, fn, chunks, todo, run, finished, local=cluster is not None)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _gather_dask(
    client: Any, fn: Callable[[Any], Any], chunks: list[Any], todo: list[int], run: Any,
    finished: Callable[[int, Any], None], *, local: bool = False,
) -> dict[int, str]:  # fmt: skip
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    address = client.scheduler.address
    failed: dict[int, str] = {}
    first = _FirstError()
    foreign = _Foreign(f"the Dask scheduler {_scheduler_address(run.scheduler) or '(a LocalCluster)'}")
    token = hashlib.sha256(f"{time.time_ns()}:{os.getpid()}".encode()).hexdigest()[:16]
    parent = os.getpid() if local else None  # a LocalCluster's workers end with this process (_dask_task)
    keys = [f"dpcert-{token}-{i}" for i in todo]
    futures = client.map(partial(_dask_task, fn, parent=parent), [chunks[i] for i in todo], key=keys, pure=False)
    index = {f.key: i for f, i in zip(futures, todo, strict=True)}
    # each summary gathered by the client's event loop as its task finishes (with_results), not by a round trip
    # from here per chunk after it (f.result()); the futures are held by `results` alone, each until it is done
    results = as_completed(futures, with_results=True, raise_errors=False)
    del futures
    settled: set[int] = set()
    fault: list[BaseException] = []
    stop = threading.Event()

    def state() -> str:
        return f"{len(settled)} of {len(todo)} chunks done"

    def watch() -> None:  # the scheduler still there, and with workers (or with some again within the wait)
        alone_since: float | None = None
        try:
            while not stop.wait(_DASK_WATCH_PERIOD):
                if client.status != "running":
                    raise SchedulerLost(address, f"went away during the run ({state()})")
                if client.scheduler_info(n_workers=0).get("n_workers", 0) > 0:
                    alone_since = None
                elif alone_since is None:
                    alone_since = time.monotonic()
                    _say_waiting(address, run.wait_seconds, left=True)
                elif time.monotonic() - alone_since > run.wait_seconds:
                    raise SchedulerLost(
                        address, f"lost its workers: none for {run.wait_seconds:g} s ({state()}; {_hint(address)})"
                    )
        except BaseException as exc:  # noqa: BLE001 - raised by the run's own thread
            if not stop.is_set():
                lost = SchedulerLost(address, f"went away during the run ({state()}; {type(exc).__name__})")
                fault.append(exc if isinstance(exc, SchedulerLost) else lost)
                results.clear()  # ends the loop below

    watcher = threading.Thread(target=watch, name="dpcert-dask-watch", daemon=True)
    watcher.start()
    try:
        for f, value in results:
            i, status = index[f.key], f.status
            exc = f.exception() if status == "error" else None
            f.release()  # only the result is kept: the worker holding it may die later, and Dask computes nothing again
            del f
            if status == "finished":
                settled.add(i)
                finished(i, foreign.accept(fn, chunks[i], value))
            elif status == "error":
                settled.add(i)
                if isinstance(exc, KilledWorker):
                    failed[i] = f"its workers died ({exc})"
                else:
                    first.note(i, exc)
            else:  # lost or cancelled: the scheduler went away (its client cancels every task), or forgot the task
                what = "went away" if client.status != "running" else f"dropped the task of chunk {i} ({status})"
                raise SchedulerLost(address, f"{what} during the run ({state()})")
            del value
            if first.due(lambda j: j in settled or j not in index.values()):
                break
    finally:
        stop.set()
        watcher.join(5)
    if fault and len(settled) < len(todo) and not first.due(lambda j: j in settled or j not in index.values()):
        raise fault[0]  # (a fault noticed after the last result, or after the error that ends the run, is none)
    if first.index is not None:
        assert first.exc is not None
        raise first.exc
    return failed
