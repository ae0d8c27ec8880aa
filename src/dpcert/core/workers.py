"""What runs in a worker of a parallel run, and which of its results are used.

A worker (a process of a local pool, a dpcert task on a Dask worker) runs with one BLAS thread
(``_one_blas_thread``), runs any chunks it maps itself inline (:func:`in_worker`), and returns each value with
the :func:`code_fingerprint` of the code that computed it; a value of other code is computed again in the process
that runs the run (``_Foreign``), never merged. ``_FirstError`` keeps a serial run's exception order.
Used by :mod:`dpcert.core.parallel` and :mod:`dpcert.core.dask_cluster`.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

__all__ = ["in_worker", "code_fingerprint", "start_watchdog", "WATCH_PERIOD"]


#: how often a worker's watchdog looks whether the run still wants it (seconds)
WATCH_PERIOD = 0.1
#: the process that started a watchdog (one per process; a forked child inherits the value, not the thread)
_WATCHED: int | None = None
_WATCH_LOCK = threading.Lock()


def start_watchdog(parent: int, shared: Any = None) -> None:
    """Start, once per process, a daemon thread (:func:`_watch`) that ends this process when process ``parent``
    ends or sets the stop byte ``shared[-1]`` (a local pool's shared array; ``None``: the parent's end alone)."""
    global _WATCHED
    with _WATCH_LOCK:
        if _WATCHED == os.getpid():
            return
        _WATCHED = os.getpid()
    threading.Thread(target=_watch, args=(parent, shared), name="dpcert-watchdog", daemon=True).start()


def _watch(parent: int, shared: Any) -> None:
    """End this process once process ``parent`` has ended or has set ``shared[-1]``. ``parent`` is watched by its
    pid, not as ``os.getppid()`` (under ``forkserver`` the direct parent is the fork server; a ``LocalCluster``'s
    workers are children of its nanny threads): on Linux through a pidfd, which becomes readable when it exits and
    which a reused pid cannot fool; elsewhere by polling the pid."""
    import select

    try:
        fd = os.pidfd_open(parent)  # type: ignore[attr-defined,unused-ignore]
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # pragma: no cover - no pidfd (not Linux, or before 5.3): poll
        fd = None
    while shared is None or not shared[-1]:
        if fd is not None:
            if select.select([fd], [], [], WATCH_PERIOD)[0]:
                break
        elif _pid_alive(parent):  # pragma: no cover - the fallback
            time.sleep(WATCH_PERIOD)
        else:  # pragma: no cover - the fallback
            break
    os._exit(1)


def _pid_alive(pid: int) -> bool:  # pragma: no cover - the fallback of _watch
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone (or the pid now belongs to another user's process)
        return False
    return True


def _one_blas_thread() -> None:
    """In a worker: one BLAS/OpenMP thread. The workers already use every core; a BLAS pool of its own in each
    (OpenBLAS starts one thread per core) oversubscribes them: measured at DaRRM K = 41, Δ > 0 on 2 cores, 2 workers
    took as long as 1 until this was set."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)  # applies at once, for the life of the worker


#: set in a process that runs dpcert's chunks for another (a worker of a local pool)
_IN_WORKER = False
#: set while a dpcert task runs on a Dask worker (a task, not the process: a ``LocalCluster(processes=False)`` runs
#: its workers in threads of the client's process)
_IN_DASK_TASK: ContextVar[bool] = ContextVar("dpcert_in_dask_task", default=False)


def in_worker() -> bool:
    """Whether this runs in a worker of a parallel run (a local pool's worker, a dpcert task on a Dask worker, any
    daemonic process): there a :func:`~dpcert.core.parallel.map_chunks` or :func:`~dpcert.core.parallel.map_each`
    runs its chunks inline, never in a pool of its own (a Dask worker may not have children, and a pool per worker
    would oversubscribe the cores)."""
    if _IN_WORKER or _IN_DASK_TASK.get():
        return True
    import multiprocessing

    return bool(multiprocessing.current_process().daemon)


#: the fingerprint of the code this process runs (computed once)
_FINGERPRINT: str | None = None


def code_fingerprint() -> str:
    """The sha256 of the dpcert package's Python sources (their paths and bytes) as this process imported them,
    computed once per process (about 10 ms). Every result a worker returns carries it, and every checkpoint entry
    is bound to it: a result computed by other code (another version, or the same version string with modified
    sources) is never merged."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        root = Path(__file__).resolve().parents[1]  # the dpcert package's folder (this file is dpcert/core/...)
        h = hashlib.sha256()
        for p in sorted(root.rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


class _Foreign:
    """Results returned by workers running other code: each is computed again here, and one line says so."""

    def __init__(self, where: str) -> None:
        self.where, self.chunks = where, 0

    def accept(self, fn: Callable[[Any], Any], chunk: Any, result: Any) -> Any:
        """The value of ``result`` (a worker's ``(fingerprint, value)``) if this code computed it, else ``fn(chunk)``
        computed here."""
        mine = code_fingerprint()
        if type(result) is tuple and len(result) == 2 and isinstance(result[0], str) and result[0] == mine:
            return result[1]
        self.chunks += 1
        if self.chunks == 1:
            sys.stderr.write(
                f"dpcert: a worker of {self.where} runs other dpcert code than this process (sources changed, or "
                f"another installation); its results are not used: their chunks are computed here\n"
            )
            sys.stderr.flush()
        return fn(chunk)


class _FirstError:
    """The exception of the first chunk (in chunk order) that raised, raised once every earlier chunk is done."""

    def __init__(self) -> None:
        self.index: int | None = None
        self.exc: BaseException | None = None

    def note(self, i: int, exc: BaseException) -> None:
        if self.index is None or i < self.index:
            self.index, self.exc = i, exc

    def due(self, settled: Callable[[int], bool]) -> bool:
        return self.index is not None and all(settled(j) for j in range(self.index))
