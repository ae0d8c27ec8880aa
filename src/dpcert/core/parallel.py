"""Searches and enumerations as pure functions over deterministic chunks, run on every local core.

A long check is split into chunks (a list fixed before anything runs); a pure function maps one chunk to a small
:class:`Summary` (counts by path, the worst case, the undecided items); summaries merge associatively, in chunk
order, so the result is identical whatever the number of workers. The pool is the standard library's
``ProcessPoolExecutor``; a Dask cluster can run the same functions later through the same interface.

Workers never outlive the run. Each worker dies with its parent (Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``;
everywhere: a watchdog thread that exits when the parent process is gone), so killing the main process (SIGKILL,
a timeout, a CI cancellation) leaves no orphan. SIGTERM to the main process, Ctrl-C, or any exception while the
pool runs terminates the workers before the exception propagates. Workers ignore SIGINT: a Ctrl-C to the
process group is handled once, by the parent. A worker that dies mid-run (killed, out of memory) is reported as
:class:`WorkerDied`, a fault of the run, never as a verdict or a bad input.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dpcert.errors import WorkerDied

__all__ = ["Summary", "map_chunks", "default_workers", "WorkerDied"]


#: how often the watchdog of a worker checks that its parent is alive (seconds)
_WATCHDOG_PERIOD = 0.5


def _die_with_parent(parent: int) -> None:
    """Pool initializer: make this worker end when ``parent`` ends, and leave SIGINT to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # blocked by the parent while it started us (see _run_pool)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STARTUP_BLOCKED)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            pr_set_pdeathsig = 1
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl: the watchdog still works
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            threading.Event().wait(_WATCHDOG_PERIOD)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="dpcert-parent-watchdog", daemon=True).start()


#: signals the parent blocks while it starts workers, so that none reaches a worker before its handlers are set
_STARTUP_BLOCKED = {signal.SIGINT, signal.SIGTERM}


class _Terminated(BaseException):
    """SIGTERM reached the main process while a pool ran (raised from the handler to unwind through cleanup)."""


C = TypeVar("C")


@dataclass
class Summary:
    """What a chunk decided: counts by path, the worst case (largest ``score``), undecided items, refutations.

    ``merge`` is associative and keeps the first of equal scores in chunk order, so merging in order gives the
    same summary for any chunking of the same items.
    """

    counts: dict[str, int] = field(default_factory=dict)
    worst_score: Any = None
    worst_case: Any = None
    undecided: list[Any] = field(default_factory=list)
    refuted: list[Any] = field(default_factory=list)
    #: the highest ball precision (bits) any item needed; 0 when everything was exact
    precision: int = 0

    def add(self, path: str, n: int = 1) -> None:
        self.counts[path] = self.counts.get(path, 0) + n

    def used(self, prec: int) -> None:
        """Record that an item was decided at ``prec`` bits."""
        self.precision = max(self.precision, prec)

    def consider(self, score: Any, case: Any) -> None:
        """Keep ``case`` if its score is the largest so far (ties keep the earlier case)."""
        if self.worst_score is None or score > self.worst_score:
            self.worst_score, self.worst_case = score, case

    def merge(self, other: Summary) -> Summary:
        out = Summary(
            dict(self.counts),
            self.worst_score,
            self.worst_case,
            [*self.undecided, *other.undecided],
            [*self.refuted, *other.refuted],
            max(self.precision, other.precision),
        )
        for path, n in other.counts.items():
            out.add(path, n)
        if other.worst_score is not None:
            out.consider(other.worst_score, other.worst_case)
        return out


def default_workers() -> int:
    """Workers for local runs: every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def map_chunks(fn: Callable[[C], Summary], chunks: Sequence[C] | Iterable[C], *, workers: int | None = None) -> Summary:
    """Apply ``fn`` to every chunk (in processes when ``workers > 1``) and merge the summaries in chunk order.

    ``fn`` must be a module-level function (picklable) and pure: the same chunk always gives the same summary.
    An exception in a worker (every dpcert exception pickles intact) is raised here as it would be serially.
    """
    chunks = list(chunks)
    n = default_workers() if workers is None else workers
    if n <= 1 or len(chunks) <= 1:
        parts = [fn(c) for c in chunks]
    else:
        parts = _run_pool(fn, chunks, min(n, len(chunks)))
    total = Summary()
    for p in parts:
        total = total.merge(p)
    return total


def _run_pool(fn: Callable[[C], Summary], chunks: list[C], n: int) -> list[Summary]:
    """``fn`` over ``chunks`` in ``n`` worker processes, which are terminated on any way out but success.

    Raises:
        WorkerDied: a worker died mid-run.
    """
    main = threading.current_thread() is threading.main_thread()
    old_term: Any = None
    installed = False

    def on_term(signum: int, frame: Any) -> None:
        raise _Terminated

    pool = ProcessPoolExecutor(max_workers=n, initializer=_die_with_parent, initargs=(os.getpid(),))
    procs: list[Any] = []
    block = main and hasattr(signal, "pthread_sigmask")
    try:
        if main:  # a signal handler can only be set in the main thread
            old_term, installed = signal.signal(signal.SIGTERM, on_term), True
        # workers inherit the blocked mask and unblock once their handlers are set; a Ctrl-C meanwhile waits
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STARTUP_BLOCKED) if block else None
        try:
            futures = [pool.submit(fn, c) for c in chunks]
            procs = list(getattr(pool, "_processes", {}).values())  # started by submit: kept to report, terminate
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        parts = [f.result() for f in futures]
    except BrokenProcessPool:
        _stop(pool, procs)
        raise WorkerDied(_death_signal(procs)) from None
    except _Terminated:
        _stop(pool, procs)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # die of SIGTERM, as the default action would have
        os.kill(os.getpid(), signal.SIGTERM)
        raise SystemExit(128 + signal.SIGTERM) from None  # pragma: no cover - not reached
    except BaseException:  # Ctrl-C, a worker's exception: no worker keeps running
        _stop(pool, procs)
        raise
    finally:
        if installed:
            signal.signal(signal.SIGTERM, old_term if old_term is not None else signal.SIG_DFL)
    pool.shutdown(wait=True)
    return parts


def _stop(pool: ProcessPoolExecutor, procs: list[Any]) -> None:
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(5)
    # let the pool's manager thread finish its own cleanup now: at interpreter exit CPython 3.11 otherwise races
    # it on the wake-up pipe ("Exception ignored ... Bad file descriptor" on stderr)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(5)


def _death_signal(procs: list[Any]) -> int | None:
    """The signal that killed a worker (``None`` if none died of one). The pool answers a death by terminating
    the other workers (SIGTERM), so another signal names the first death better."""
    deadline = time.monotonic() + 2
    while any(p.exitcode is None for p in procs) and time.monotonic() < deadline:
        time.sleep(0.01)  # the pool's own thread may be reaping a worker: its exit code appears when it is done
    codes = [-p.exitcode for p in procs if p.exitcode is not None and p.exitcode < 0]
    return next((c for c in codes if c != signal.SIGTERM), codes[0] if codes else None)
