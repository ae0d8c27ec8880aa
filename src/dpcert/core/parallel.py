"""Searches and enumerations as pure functions over deterministic chunks, run on every local core.

A long check is split into chunks (a list fixed before anything runs); a pure function maps one chunk to a small
:class:`~dpcert.core.summary.Summary`; summaries merge associatively, in chunk order, so the result is identical
whatever the executor and the number of workers. Three executors run the same functions (:class:`RunOptions`):
``serial`` (in this process), ``processes`` (the default: the standard library's ``ProcessPoolExecutor`` on every
local core, used through its public API only) and ``dask`` (:mod:`dpcert.core.dask_cluster`). A checkpoint
(:class:`~dpcert.core.checkpoint.Checkpoint`, ``--checkpoint FILE``) records each finished chunk, so a resumed run
merges the same summaries in the same order as an uninterrupted one. What a worker does and which of its results
are used (the code fingerprint, inline work inside a worker) is in :mod:`dpcert.core.workers`.

A command offers the options ``--workers``, ``--executor``, ``--scheduler``, ``--wait-for-workers`` and
``--checkpoint`` (the command line's part, in :mod:`dpcert.cli_support`) and passes ``make_run_options(...,
key=<its inputs as text>, progress=<label or None>)`` down to ``map_chunks(fn, chunks, run=run)`` (or
:func:`map_each` for results that are not summaries); a command making several ``map_chunks`` calls shares one
checkpoint file, one section per call.

Faults in a local pool: a chunk whose worker dies (``BrokenProcessPool``) is run again alone in a fresh process; a
chunk that dies there too is not dropped but reported in ``Summary.failed`` (its caller says UNDECIDED for its
range). Workers never outlive the run: each has a watchdog thread that ends it when the process running the pool
ends (watched by its pid, through a pidfd on Linux, so also under ``forkserver``, whose workers are the fork
server's children) or asks it to stop, which that process does on Ctrl-C, SIGTERM or any exception before the
exception propagates. So killing the main process (SIGKILL, a timeout, a CI cancellation) leaves no orphan. On
every executor SIGTERM unwinds the stack (:func:`sigterm_unwinds`: the checkpoint is flushed) before the process
dies of it. Workers ignore SIGINT: a Ctrl-C to the process group is handled once, by the parent.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from dpcert.core import workers as _workers
from dpcert.core.checkpoint import CHECKPOINT_KEY_ENV, Checkpoint, _section, checkpoint_key_path
from dpcert.core.dask_cluster import (
    MAX_WAIT_FOR_WORKERS,
    SCHEDULER_ENV,
    WAIT_FOR_WORKERS,
    _run_dask,
    _scheduler_address,
)
from dpcert.core.summary import Summary
from dpcert.core.workers import _FirstError, _Foreign, _one_blas_thread, code_fingerprint, in_worker
from dpcert.errors import RunOptionError, WorkerDied

__all__ = [
    "Summary",
    "map_chunks",
    "map_each",
    "default_workers",
    "WorkerDied",
    "RunOptions",
    "Checkpoint",
    "Progress",
    "EXECUTORS",
    "MAX_WORKERS",
    "MAX_ATTEMPTS",
    "make_run_options",
    "MAX_REQUEUES",
    "code_fingerprint",
    "in_worker",
    "sigterm_unwinds",
    "WAIT_FOR_WORKERS",
    "MAX_WAIT_FOR_WORKERS",
    "SCHEDULER_ENV",
    "checkpoint_key_path",
    "CHECKPOINT_KEY_ENV",
]

#: The executors of :func:`map_chunks` (``--executor``).
EXECUTORS = ("serial", "processes", "dask")
#: Most workers ``--workers`` asks for.
MAX_WORKERS = 256
#: Times a chunk is started before a death of its worker makes it a failed chunk (the first run shares a pool
#: with other chunks; every later one is alone in a fresh process, so a death there is its own).
MAX_ATTEMPTS = 2
#: Times a chunk that never started is sent back because its pool broke (another chunk's worker died, or workers
#: that die at start) before the run gives up with :class:`~dpcert.errors.WorkerDied`.
MAX_REQUEUES = 8

#: in a worker of a local pool: the run's shared bytes, one per chunk (set by the worker that starts the chunk, so
#: that the parent knows what a dead worker was running) and a last one, set by the parent to stop every worker
_SHARED: Any = None


def _worker_init(parent: int, shared: Any) -> None:
    """Pool initializer: SIGINT left to the parent, one BLAS thread, and a watchdog thread
    (:func:`~dpcert.core.workers.start_watchdog`) that ends this worker when ``parent``, the process running the
    pool, ends or sets the stop byte."""
    global _SHARED
    _SHARED, _workers._IN_WORKER = shared, True
    _one_blas_thread()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # blocked by the parent while it started us (see _run_pool)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STARTUP_BLOCKED)
    _workers.start_watchdog(parent, shared)


def _run_one(fn: Callable[[Any], Summary], i: int, chunk: Any) -> tuple[str, Summary]:
    """In a worker: mark chunk ``i`` started, run it, and return the result with the code's fingerprint."""
    if _SHARED is not None:
        _SHARED[i] = 1
    value = fn(chunk)
    return code_fingerprint(), value


class _Terminated(BaseException):
    """SIGTERM reached the main process during a run (raised from the handler to unwind through cleanup)."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated


@contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """Within it, SIGTERM unwinds the stack like an exception (every ``finally`` runs: workers are stopped, a
    checkpoint is flushed), and the process then dies of SIGTERM as the default action would have made it. Only in
    the main thread (where a handler can be set), only when SIGTERM was not ignored, and only the outermost of
    nested uses acts."""
    global _UNWINDING
    main = threading.current_thread() is threading.main_thread()
    if _UNWINDING or _workers._IN_WORKER or not main or signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:
        yield
        return
    old = signal.signal(signal.SIGTERM, _raise_terminated)
    _UNWINDING = True
    try:
        yield
    except _Terminated:
        _UNWINDING = False
        signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)  # to the handler that was there (by default: die of it)
        raise SystemExit(128 + signal.SIGTERM) from None
    finally:
        if _UNWINDING:
            _UNWINDING = False
            signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


#: whether a :func:`sigterm_unwinds` is active in this process
_UNWINDING = False


C = TypeVar("C")


def default_workers() -> int:
    """Workers for local runs: every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


# --------------------------------------------------------------------------------------------- options


@dataclass(frozen=True)
class RunOptions:
    """How to run a chunked computation (never what is computed: results are identical for every choice).

    Attributes:
        executor: ``"serial"``, ``"processes"`` (local processes, the default) or ``"dask"``.
        workers: local processes, or the workers of the ``LocalCluster`` Dask starts; ``None``: every core.
        scheduler: a Dask scheduler address (``tcp://HOST:PORT``); ``None``: ``$DPCERT_SCHEDULER``, else a
            ``LocalCluster``.
        checkpoint: a file recording finished chunks (resumed when it exists), or ``None``.
        checkpoint_key: what the checkpoint is of (the caller's inputs, any text; hashed with the dpcert version);
            ``None``: the chunks themselves.
        progress: a label for progress lines on stderr, or ``None`` for silence.
        wait_for_workers: with ``"dask"``, seconds to wait for the scheduler to have a worker (at the start, or when
            all left during the run) before the run ends in one line; ``None``:
            :data:`~dpcert.core.dask_cluster.WAIT_FOR_WORKERS`.
    """

    executor: str = "processes"
    workers: int | None = None
    scheduler: str | None = None
    checkpoint: str | None = None
    checkpoint_key: str | None = None
    progress: str | None = None
    wait_for_workers: float | None = None

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise RunOptionError("--executor", self.executor, f"one of {', '.join(EXECUTORS)}")
        if self.workers is not None and (
            isinstance(self.workers, bool) or not isinstance(self.workers, int) or not 1 <= self.workers <= MAX_WORKERS
        ):
            raise RunOptionError("--workers", self.workers, f"an integer in [1, {MAX_WORKERS}]")
        if self.scheduler is not None and self.executor != "dask":
            raise RunOptionError("--scheduler", self.scheduler, "only with --executor dask")
        wait = self.wait_for_workers
        if wait is not None:
            if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 < wait <= MAX_WAIT_FOR_WORKERS:
                raise RunOptionError(
                    "--wait-for-workers", wait, f"a number of seconds in (0, {MAX_WAIT_FOR_WORKERS:g}]"
                )
            if self.executor != "dask":
                raise RunOptionError("--wait-for-workers", wait, "only with --executor dask")

    @property
    def wait_seconds(self) -> float:
        """Seconds a Dask run waits for a worker (:attr:`wait_for_workers`, else
        :data:`~dpcert.core.dask_cluster.WAIT_FOR_WORKERS`)."""
        return WAIT_FOR_WORKERS if self.wait_for_workers is None else float(self.wait_for_workers)

    @property
    def n_workers(self) -> int:
        return default_workers() if self.workers is None else self.workers

    def forks_workers(self, n_chunks: int) -> bool:
        """Whether ``n_chunks`` chunks run in worker processes forked from this one (a local pool of several
        workers, or the ``LocalCluster`` dpcert starts when no scheduler is given): what this process holds before
        the run, they inherit."""
        if self.executor == "dask":
            return _scheduler_address(self.scheduler) is None
        return self.executor == "processes" and self.n_workers > 1 and n_chunks > 1


def make_run_options(
    *,
    executor: str = "processes",
    workers: int | None = None,
    scheduler: str | None = None,
    checkpoint: str | None = None,
    key: str | None = None,
    progress: str | None = None,
    wait_for_workers: float | None = None,
) -> RunOptions:
    """:class:`RunOptions` from a command's plain values, its checkpoint checked before any work.

    Args:
        key: what the command computes (its inputs as text); keys the checkpoint with the dpcert version.
        progress: the label of progress lines on stderr (``None``: silent).
        wait_for_workers: seconds a Dask run waits for a worker (``None``:
            :data:`~dpcert.core.dask_cluster.WAIT_FOR_WORKERS`).

    Raises:
        RunOptionError: ``--scheduler`` or ``--wait-for-workers`` without ``--executor dask``; ``--checkpoint``
            naming a directory, a file that is not a checkpoint, or a checkpoint of other inputs or another dpcert
            version (checked here, before any work).
    """
    if checkpoint is not None and Path(checkpoint).is_dir():
        raise RunOptionError("--checkpoint", checkpoint, "a file (it is a directory)")
    if checkpoint is not None and key is not None:
        Checkpoint(checkpoint, key)  # refuses a foreign file at once
    return RunOptions(
        executor=executor,
        workers=workers,
        scheduler=scheduler,
        checkpoint=checkpoint,
        checkpoint_key=key,
        progress=progress,
        wait_for_workers=wait_for_workers,
    )


# --------------------------------------------------------------------------------------------- progress


class Progress:
    """Progress lines on stderr (chunks done, the rate across workers, an estimate of the time left), at most one
    a second and only once a run has taken more than ``after`` seconds.

    The rate counts only the chunks finished since counting started (not those a resumed checkpoint held), and is
    stated only once :attr:`ESTIMATE_AFTER` of them have finished: before that a line says "estimating…" (one
    chunk's time, which includes the start of the workers, is no estimate of the rest)."""

    #: chunks finished in this run before a rate and the time left are stated
    ESTIMATE_AFTER = 3

    def __init__(
        self,
        label: str,
        *,
        stream: Any = None,
        after: float = 1.0,
        every: float = 1.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.label, self.stream, self.after, self.every, self.clock = label, stream, after, every, clock
        self.t0 = clock()
        self.last = -float("inf")
        self.base: int | None = None

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if self.base is None:  # chunks already done when counting started (a resumed checkpoint)
            self.base = done
            return
        el = now - self.t0
        if el <= self.after or (now - self.last < self.every and done < total):
            return
        self.last = now
        ran = done - self.base
        if ran >= self.ESTIMATE_AFTER or done >= total:
            rate = ran / el
            left = f", about {(total - done) / rate:.0f} s left" if rate > 0 and done < total else ""
            speed = f"{rate:.2f} chunks/s"
        else:
            speed, left = "estimating…", ""
        stream = self.stream if self.stream is not None else sys.stderr
        stream.write(f"{self.label}: {done}/{total} chunks, {speed}, {el:.1f} s{left}\n")
        stream.flush()


# --------------------------------------------------------------------------------------------- map_chunks


def map_chunks(
    fn: Callable[[C], Summary],
    chunks: Sequence[C] | Iterable[C],
    *,
    workers: int | None = None,
    run: RunOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    describe: Callable[[C], Any] | None = None,
) -> Summary:
    """Apply ``fn`` to every chunk and merge the summaries in chunk order.

    ``fn`` must be a module-level function (picklable) and pure: the same chunk always gives the same summary.
    An exception in a worker (every dpcert exception pickles intact) is raised here as it would be serially (the
    first failing chunk's, in chunk order).

    Args:
        workers: local processes when ``run`` is not given (``None``: every core; ``1``: this process).
        run: executor, workers, checkpoint and progress (:class:`RunOptions`); its ``workers`` wins when set.
        progress: called with (chunks done, chunks total) as chunks finish (in addition to ``run.progress``).
        describe: what a chunk covers, recorded for a failed chunk (default: its index only).

    Returns:
        The merged :class:`~dpcert.core.summary.Summary`; chunks whose worker died on every attempt are in its
        ``failed``.
    """
    chunks = list(chunks)
    if run is None:
        run = RunOptions(workers=workers)
    elif run.workers is None and workers is not None:
        run = replace(run, workers=workers)
    ckpt: Checkpoint | None = None
    section = ""
    parts: dict[int, Summary] = {}
    if run.checkpoint is not None:
        section = _section(fn, chunks)
        ckpt = Checkpoint(run.checkpoint, run.checkpoint_key if run.checkpoint_key is not None else section)
        parts = ckpt.finished(section)
    record = None if ckpt is None else partial(ckpt.record, section)
    with sigterm_unwinds(), _flushed(ckpt):  # what finished is on disk, also after Ctrl-C, SIGTERM or an error
        # one worker, one core, like each pool worker (_one_blas_thread): OpenBLAS's own threads would spin on the
        # other cores (measured at DaRRM K = 41, Δ > 0: 5.5 CPU seconds for 3 s of wall time, no faster)
        failed = _execute(fn, chunks, run, parts, record, progress, one_blas_thread=True)
    total = Summary()
    for i in range(len(chunks)):
        if i in parts:
            total = total.merge(parts[i])
        else:
            rec: dict[str, Any] = {"chunk": i, "of": len(chunks), "reason": failed.get(i, "not run")}
            if describe is not None:
                rec["range"] = describe(chunks[i])
            total = total.merge(Summary({"failed_chunks": 1}, failed=[rec]))
    return total


@contextmanager
def _flushed(ckpt: Checkpoint | None) -> Iterator[None]:
    try:
        yield
    finally:
        if ckpt is not None:
            ckpt.flush()


def map_each(
    fn: Callable[[C], Any],
    items: Sequence[C] | Iterable[C],
    *,
    run: RunOptions | None = None,
    on_result: Callable[[int, Any], None] | None = None,
) -> list[tuple[Any, str | None]]:
    """``fn`` over ``items`` on ``run``'s executor, each result handed to ``on_result(index, result)`` as it
    finishes (in any order); returns ``(result, None)`` per item in the items' order, ``(None, reason)`` for an
    item whose worker died on every attempt. ``fn``: module-level and picklable, as for :func:`map_chunks`
    (no checkpoint: results need not be summaries)."""
    items = list(items)
    out: dict[int, Any] = {}
    with sigterm_unwinds():
        failed = _execute(fn, items, run or RunOptions(), out, on_result, None, one_blas_thread=False)
    return [(out[i], None) if i in out else (None, failed.get(i, "not run")) for i in range(len(items))]


def _execute(
    fn: Callable[[Any], Any],
    items: list[Any],
    run: RunOptions,
    out: dict[int, Any],
    on_result: Callable[[int, Any], None] | None,
    progress: Callable[[int, int], None] | None,
    *,
    one_blas_thread: bool,
) -> dict[int, str]:
    """``fn`` over the ``items`` not yet in ``out`` (index -> result) on ``run``'s executor (inline in a worker of
    another run), each result put in ``out`` and handed to ``on_result(index, result)`` as it arrives, progress
    reported. Returns the items that failed (index -> reason)."""
    if in_worker():  # already a worker of a run: inline, never a pool in each worker
        run = replace(run, executor="serial", scheduler=None, wait_for_workers=None)
    reporters = [r for r in (progress, Progress(run.progress) if run.progress else None) if r is not None]

    def finished(i: int, value: Any) -> None:
        out[i] = value
        if on_result is not None:
            on_result(i, value)
        for r in reporters:
            r(len(out), len(items))

    for r in reporters:
        r(len(out), len(items))
    todo = [i for i in range(len(items)) if i not in out]
    n = run.n_workers
    if todo and run.executor == "dask":
        return _run_dask(fn, items, todo, n, run, finished)
    if run.executor != "serial" and n > 1 and len(todo) > 1:
        return _run_pool(fn, items, todo, min(n, len(todo)), finished)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1) if one_blas_thread else nullcontext():
        for i in todo:
            finished(i, fn(items[i]))
    return {}


# --------------------------------------------------------------------------------------------- local processes


def _run_pool(
    fn: Callable[[Any], Any], chunks: list[Any], todo: list[int], n: int, finished: Callable[[int, Any], None]
) -> dict[int, str]:
    """``fn`` over ``chunks[todo]`` in ``n`` processes of the standard library's ``ProcessPoolExecutor`` (its
    public API only), whose workers stop on any way out but success.

    A pool broken by a worker's death (``BrokenProcessPool``; the executor terminates its other workers) keeps what
    finished. The chunks its workers had started run again, each alone in a fresh process, so that a second death
    is the chunk's own (:data:`MAX_ATTEMPTS`); those not started go back to the queue of a fresh pool, at most
    :data:`MAX_REQUEUES` times each (workers that die at start end the run). Returns the chunks that failed
    (index -> reason).
    """
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context()  # the default start method: fork, spawn and forkserver all work
    shared = context.Array("b", len(chunks) + 1, lock=False)  # [i]: chunk i started; [-1]: every worker stops
    attempts, requeued = dict.fromkeys(todo, 0), dict.fromkeys(todo, 0)
    foreign, first = _Foreign("the local pool"), _FirstError()
    failed: dict[int, str] = {}
    settled: set[int] = set()
    queue, alone = list(todo), []
    pools: list[tuple[Any, list[Any]]] = []  # this round's executors, each with the processes it started

    def due() -> bool:
        return first.due(lambda j: j not in attempts or j in settled)

    try:
        while (queue or alone) and not due():
            if alone:  # the chunks that were running when a worker died: each in a fresh process, n at a time
                lanes, alone = [[i] for i in alone[:n]], alone[n:]
            else:
                lanes, queue = [queue], []
            futures: dict[Any, tuple[int, int]] = {}
            lost: dict[int, list[int]] = {}  # lane -> its chunks lost with a worker
            pools = []
            for k, lane in enumerate(lanes):
                before = set(multiprocessing.active_children())
                pool = ProcessPoolExecutor(
                    min(n, len(lane)), mp_context=context, initializer=_worker_init, initargs=(os.getpid(), shared)
                )
                pools.append((pool, []))
                with _startup_signals_blocked():
                    for i in lane:
                        shared[i], attempts[i] = 0, attempts[i] + 1
                        try:
                            if k not in lost:
                                futures[pool.submit(_run_one, fn, i, chunks[i])] = (i, k)
                                continue
                        except BrokenProcessPool:  # a worker died while chunks were sent: the rest never start
                            pass
                        lost.setdefault(k, []).append(i)
                # the processes submit started (their exit codes name a death)
                pools[k][1].extend(p for p in multiprocessing.active_children() if p not in before)
            pending = set(futures)
            while pending and not due():
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in sorted(done, key=lambda f: futures[f][0]):
                    (i, k), exc = futures[f], f.exception()
                    if exc is None:
                        settled.add(i)
                        finished(i, foreign.accept(fn, chunks[i], f.result()))
                    elif isinstance(exc, BrokenProcessPool):
                        lost.setdefault(k, []).append(i)
                    else:
                        first.note(i, exc)
            if due():
                break
            for k, lane_lost in lost.items():
                # the broken pool's own thread joins its processes first: under forkserver a process's exit code
                # is read once from the fork server's pipe, and a second reader racing it gets 255 (no signal)
                pools[k][0].shutdown(wait=True)
                sig = _death_signal(pools[k][1])
                reason = "its worker died" + (f" (signal {sig}, {signal.Signals(sig).name})" if sig else "")
                for i in sorted(lane_lost):
                    if shared[i] or len(lanes[k]) == 1:  # it was running when the worker died
                        if attempts[i] >= MAX_ATTEMPTS:
                            failed[i] = f"{reason} on each of {attempts[i]} attempts"
                        else:
                            alone.append(i)
                    else:  # never started: not an attempt of its own, but counted, so that a pool whose workers
                        attempts[i] -= 1  # die at start (they cannot run at all) ends the run instead of looping
                        requeued[i] += 1
                        if requeued[i] > MAX_REQUEUES:
                            raise WorkerDied(sig)
                        queue.append(i)
            for pool, _ in pools:
                pool.shutdown(wait=True)
            queue.sort()
            alone.sort()
        if first.index is not None:  # a chunk raised, and every chunk before it is done
            assert first.exc is not None
            raise first.exc
    except BaseException:  # Ctrl-C, SIGTERM (see sigterm_unwinds), a worker's exception: no worker keeps running
        shared[-1] = 1  # each worker's watchdog ends it within _workers.WATCH_PERIOD
        for pool, _ in pools:
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    return failed


#: signals the parent blocks while it starts workers, so that none reaches a worker before its handlers are set
_STARTUP_BLOCKED = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _startup_signals_blocked() -> Iterator[None]:
    """In the main thread, :data:`_STARTUP_BLOCKED` blocked while workers start: they inherit the mask and unblock
    it once their handlers are set (:func:`_worker_init`); a Ctrl-C meanwhile waits for the parent."""
    block = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STARTUP_BLOCKED) if block else None
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _death_signal(procs: list[Any]) -> int | None:
    """The signal that killed a worker (``None`` if none died of one). The pool answers a death by terminating
    the other workers (SIGTERM), so another signal names the first death better."""
    # the pool's shutdown has joined its processes; the wait is a guard for a process it did not start itself
    deadline = time.monotonic() + 2
    while any(p.exitcode is None for p in procs) and time.monotonic() < deadline:
        time.sleep(0.01)
    codes = [-p.exitcode for p in procs if p.exitcode is not None and p.exitcode < 0]
    return next((c for c in codes if c != signal.SIGTERM), codes[0] if codes else None)
