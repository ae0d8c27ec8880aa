"""Searches and enumerations as pure functions over deterministic chunks, run on every local core.

A long check is split into chunks (a list fixed before anything runs); a pure function maps one chunk to a small
:class:`Summary` (counts by path, the worst case, the undecided items); summaries merge associatively, in chunk
order, so the result is identical whatever the executor and the number of workers. Three executors run the same
functions (:class:`RunOptions`): ``serial`` (in this process), ``processes`` (the default: the standard library's
``ProcessPoolExecutor`` on every local core) and ``dask`` (``dask.distributed``, imported only when asked: a running
scheduler given by address or ``DPCERT_SCHEDULER``, else a ``LocalCluster``).

Faults: a chunk whose worker dies is run again in a fresh process of its own (Dask: rescheduled on another worker);
a chunk that dies there too is not dropped but reported in :attr:`Summary.failed` (its caller says UNDECIDED for
its range). A Dask scheduler that is not there, does not answer as one within :data:`SCHEDULER_TIMEOUT`, has no
worker within ``--wait-for-workers`` or goes away during the run ends it in one line
(:class:`~dpcert.errors.RunOptionError`, :class:`~dpcert.errors.SchedulerLost`). A checkpoint (:class:`Checkpoint`,
``--checkpoint FILE``) records each finished chunk's summary atomically, keyed by a hash of the inputs and the dpcert
version, so a resumed run merges the same summaries in the same order as an uninterrupted one.

Trust: a worker's result carries the :func:`code_fingerprint` of the code that computed it, and one of other code is
computed again here, never merged; a checkpoint entry is authenticated under the user's key (never in the file) and
bound to the fingerprint. A :func:`map_chunks` started inside a worker runs inline there (:func:`in_worker`).

A command offers the options ``--workers``, ``--executor``, ``--scheduler``, ``--wait-for-workers`` and
``--checkpoint`` (the command line's part, in :mod:`dpcert.cli_support`) and passes ``make_run_options(...,
key=<its inputs as text>, progress=<label or None>)`` down to ``map_chunks(fn, chunks, run=run)`` (or
:func:`map_each` for results that are not summaries); a command making several ``map_chunks`` calls shares one
checkpoint file, one section per call.

Workers never outlive the run. Each worker dies with its parent (Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``;
everywhere: a watchdog thread that exits when the process that started the pool is gone, watched by its pid), so
killing the main process (SIGKILL, a timeout, a CI cancellation) leaves no orphan. SIGTERM to the main process,
Ctrl-C, or any exception while the pool runs terminates the workers before the exception propagates; on every
executor SIGTERM unwinds the stack (:func:`sigterm_unwinds`: the checkpoint is flushed) before the process dies of
it. Workers ignore SIGINT: a Ctrl-C to the process group is handled once, by the parent. A Dask ``LocalCluster``'s
worker processes end with their parent (``distributed`` watches a pipe from it); a remote cluster's workers are the
cluster's and only lose the tasks.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from dpcert.errors import RunOptionError, SchedulerLost, WorkerDied

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
#: Environment variable naming the Dask scheduler when ``--scheduler`` is not given.
SCHEDULER_ENV = "DPCERT_SCHEDULER"
#: Seconds for a Dask scheduler to accept a connection and answer in Dask's protocol (both together) before
#: ``--scheduler`` is refused.
SCHEDULER_TIMEOUT = 10.0
#: Seconds a run waits, by default, for a Dask scheduler without workers to get one (``--wait-for-workers``).
WAIT_FOR_WORKERS = 30.0
#: The longest ``--wait-for-workers`` (seconds).
MAX_WAIT_FOR_WORKERS = 86400.0

#: how often a worker's watchdog looks whether the run still wants it (seconds)
_WATCH_PERIOD = 0.1

#: in a worker of a local pool: the run's shared bytes, one per chunk (set by the worker that starts the chunk, so
#: that the parent knows what a dead worker was running) and a last one, set by the parent to stop every worker
_SHARED: Any = None


def _one_blas_thread() -> None:
    """In a worker: one BLAS/OpenMP thread. The workers already use every core; a BLAS pool of its own in each
    (OpenBLAS starts one thread per core) oversubscribes them: measured at DaRRM K = 41, Δ > 0 on 2 cores, 2 workers
    took as long as 1 until this was set."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)  # applies at once, for the life of the worker


def _worker_init(parent: int, shared: Any) -> None:
    """Pool initializer: SIGINT left to the parent, one BLAS thread, and a watchdog thread (:func:`_watch`) that
    ends this worker when ``parent``, the process running the pool, ends or sets the stop byte."""
    global _SHARED, _IN_WORKER
    _SHARED, _IN_WORKER = shared, True
    _one_blas_thread()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # blocked by the parent while it started us (see _run_pool)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STARTUP_BLOCKED)
    threading.Thread(target=_watch, args=(parent, shared), name="dpcert-watchdog", daemon=True).start()


def _watch(parent: int, shared: Any) -> None:
    """End this process once process ``parent`` has ended or has set ``shared[-1]``. ``parent`` is watched by its
    pid, not as ``os.getppid()`` (under ``forkserver`` the direct parent is the fork server): on Linux through a
    pidfd, which becomes readable when it exits and which a reused pid cannot fool; elsewhere by polling the pid."""
    import select

    try:
        fd = os.pidfd_open(parent)  # type: ignore[attr-defined,unused-ignore]
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # pragma: no cover - no pidfd (not Linux, or before 5.3): poll
        fd = None
    while not shared[-1]:
        if fd is not None:
            if select.select([fd], [], [], _WATCH_PERIOD)[0]:
                break
        elif _pid_alive(parent):  # pragma: no cover - the fallback
            time.sleep(_WATCH_PERIOD)
        else:  # pragma: no cover - the fallback
            break
    os._exit(1)


def _pid_alive(pid: int) -> bool:  # pragma: no cover - the fallback of _watch
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone (or the pid now belongs to another user's process)
        return False
    return True


#: set in a process that runs dpcert's chunks for another (a worker of a local pool)
_IN_WORKER = False
#: set while a dpcert task runs on a Dask worker (a task, not the process: a ``LocalCluster(processes=False)`` runs
#: its workers in threads of the client's process)
_IN_DASK_TASK: ContextVar[bool] = ContextVar("dpcert_in_dask_task", default=False)


def in_worker() -> bool:
    """Whether this runs in a worker of a parallel run (a local pool's worker, a dpcert task on a Dask worker, any
    daemonic process): there a :func:`map_chunks` or :func:`map_each` runs its chunks inline, never in a pool of its
    own (a Dask worker may not have children, and a pool per worker would oversubscribe the cores)."""
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


def _run_one(fn: Callable[[Any], Summary], i: int, chunk: Any) -> tuple[str, Summary]:
    """In a worker: mark chunk ``i`` started, run it, and return the result with the code's fingerprint."""
    if _SHARED is not None:
        _SHARED[i] = 1
    value = fn(chunk)
    return code_fingerprint(), value


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
    if _UNWINDING or _IN_WORKER or not main or signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:
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


@dataclass
class Summary:
    """What a chunk decided: counts by path, the worst case (largest ``score``), undecided items, refutations.

    ``merge`` is associative and keeps the first of equal scores in chunk order, so merging in order gives the
    same summary for any chunking of the same items. ``failed`` lists the chunks that could not be run (their
    worker died on every attempt): their items are decided by nobody, and a caller reports their range UNDECIDED.
    """

    counts: dict[str, int] = field(default_factory=dict)
    worst_score: Any = None
    worst_case: Any = None
    undecided: list[Any] = field(default_factory=list)
    refuted: list[Any] = field(default_factory=list)
    #: the highest ball precision (bits) any item needed; 0 when everything was exact
    precision: int = 0
    #: the chunks whose worker died on every attempt, each as ``{"chunk": i, "of": n, "range": ..., "reason": ...}``
    failed: list[Any] = field(default_factory=list)

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
            [*self.failed, *other.failed],
        )
        for path, n in other.counts.items():
            out.add(path, n)
        if other.worst_score is not None:
            out.consider(other.worst_score, other.worst_case)
        return out

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON-safe data that :meth:`from_json` restores exactly (tuples, floats, fractions)."""
        return {k: _encode(getattr(self, k)) for k in _FIELDS}

    @classmethod
    def from_json(cls, data: Any) -> Summary:
        """The summary :meth:`to_json` gave.

        Raises:
            ValueError: ``data`` is not one (a field missing, unknown or of the wrong type).
        """
        if not isinstance(data, dict) or set(data) != set(_FIELDS):
            raise ValueError("not a summary")
        out = cls(**{k: _decode(data[k]) for k in _FIELDS})
        counts_ok = isinstance(out.counts, dict) and all(type(n) is int for n in out.counts.values())
        lists_ok = all(isinstance(x, list) for x in (out.undecided, out.refuted, out.failed))
        if not counts_ok or not lists_ok or type(out.precision) is not int:
            raise ValueError("not a summary")
        return out


_FIELDS = ("counts", "worst_score", "worst_case", "undecided", "refuted", "precision", "failed")


def _encode(v: Any) -> Any:
    """JSON-safe, type-preserving: floats by their hex (exact, also inf), tuples and fractions tagged."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return {"f": v.hex()}
    if isinstance(v, Fraction):
        return {"q": [v.numerator, v.denominator]}
    if isinstance(v, tuple):
        return {"t": [_encode(x) for x in v]}
    if isinstance(v, list):
        return [_encode(x) for x in v]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"d": {k: _encode(x) for k, x in v.items()}}
    if type(v).__module__ == "numpy" and hasattr(v, "item"):  # a numpy scalar: its Python value
        return _encode(v.item())
    raise TypeError(f"a checkpoint cannot record a {type(v).__name__}")


def _decode(v: Any) -> Any:
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if not isinstance(v, dict):
        return v
    if set(v) == {"f"}:
        return float.fromhex(v["f"])
    if set(v) == {"q"}:
        return Fraction(*v["q"])
    if set(v) == {"t"}:
        return tuple(_decode(x) for x in v["t"])
    if set(v) == {"d"}:
        return {k: _decode(x) for k, x in v["d"].items()}
    raise ValueError("unknown tag")


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
            all left during the run) before the run ends in one line; ``None``: :data:`WAIT_FOR_WORKERS`.
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
        """Seconds a Dask run waits for a worker (:attr:`wait_for_workers`, else :data:`WAIT_FOR_WORKERS`)."""
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
        wait_for_workers: seconds a Dask run waits for a worker (``None``: :data:`WAIT_FOR_WORKERS`).

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


# --------------------------------------------------------------------------------------------- checkpoints

#: Environment variable naming the file of the checkpoint key, instead of the one :func:`checkpoint_key_path` names.
CHECKPOINT_KEY_ENV = "DPCERT_CHECKPOINT_KEY"


def checkpoint_key_path() -> Path:
    """Where this user's checkpoint key is: ``$DPCERT_CHECKPOINT_KEY``, else ``dpcert/checkpoint.key`` under
    ``$XDG_CONFIG_HOME`` (default ``~/.config``)."""
    named = os.environ.get(CHECKPOINT_KEY_ENV)
    if named:
        return Path(named)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "dpcert" / "checkpoint.key"


def _checkpoint_secret() -> bytes:
    """This user's checkpoint key (32 random bytes in a file only the user may read, created on first use)."""
    import secrets

    path = checkpoint_key_path()
    bad = RunOptionError(
        "checkpoint key file", str(path), "a file of 64 hex digits that only you can read and write (mode 0600)"
    )
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
            try:
                os.link(tmp, path)  # atomic, and never over a key another process made meanwhile
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
        except OSError:
            raise bad from None
    try:
        st = path.stat()
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        raise bad from None
    private = os.name != "posix" or (st.st_uid == os.getuid() and not st.st_mode & 0o077)  # POSIX modes only
    if not private or len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise bad
    return bytes.fromhex(text)


#: checkpoint files of other code this process has already reported
_REPORTED: set[str] = set()


class Checkpoint:
    """A file of finished chunks: ``{"format", "dpcert", "key", "code", "sections": {call: {chunk index: entry}}}``.

    ``key`` hashes what the run computes; ``code`` is the :func:`code_fingerprint` of the code that wrote it; each
    :func:`map_chunks` call of the run is a section keyed by its function and chunks. Each entry is ``{"v": value,
    "mac": ...}``, the value authenticated by an HMAC-SHA256 under this user's checkpoint key
    (:func:`checkpoint_key_path`, a key the file does not carry) over the inputs' key, the code fingerprint, the
    section, the index and the value. A file written by other code (another :func:`code_fingerprint`) is not used:
    its chunks are computed again, and one line on stderr says so; a file of this code with an entry that does not
    prove itself (damaged, edited, or written by another user) is refused.

    Written atomically (a temporary file renamed over it), so a kill at any moment leaves the previous or the next
    state, never a torn file: at the first finished chunk, then at most once every :attr:`WRITE_EVERY` seconds, and
    by :meth:`flush` when the run ends, fails or is interrupted (Ctrl-C, SIGTERM). A SIGKILL loses at most the last
    second's chunks, which a resumed run computes again. (Rewriting the whole file after each chunk cost 12 ms per
    chunk at 1,725 chunks, K = 101: serial work in the main process.)

    Raises:
        RunOptionError: the file is not a dpcert checkpoint, is damaged, or is of other inputs or another dpcert
            version; the checkpoint key file is unusable.
    """

    FORMAT = "dpcert-checkpoint"
    #: Seconds between two writes of the file at most while chunks finish.
    WRITE_EVERY = 1.0

    def __init__(self, path: str | os.PathLike[str], key: str) -> None:
        from dpcert._version import __version__
        from dpcert.core.files import check_output

        check_output(path, option="--checkpoint", error=RunOptionError)  # no device, FIFO, symlink, read-only dir
        self.path = Path(path)
        self.version = __version__
        self.key = hashlib.sha256(f"{__version__}\0{key}".encode()).hexdigest()
        self.code = code_fingerprint()
        self._secret = _checkpoint_secret()
        self.data: dict[str, Any] = {
            "format": self.FORMAT,
            "dpcert": __version__,
            "key": self.key,
            "code": self.code,
            "sections": {},
        }
        self._dirty = False
        self._written: float | None = None
        if self.path.exists():
            self._load()

    def _mac(self, section: str, i: int, encoded: Any) -> str:
        msg = json.dumps([self.FORMAT, self.key, self.code, section, i, encoded], separators=(",", ":"))
        return hmac.new(self._secret, msg.encode(), hashlib.sha256).hexdigest()

    def _load(self) -> None:
        from dpcert.core.files import load_json

        data = load_json(self.path, what="checkpoint")
        ok = isinstance(data, dict) and data.get("format") == self.FORMAT and isinstance(data.get("sections"), dict)
        if not ok or not set(self.data) - {"code"} <= set(data) <= set(self.data):
            raise RunOptionError("--checkpoint", str(self.path), "a dpcert checkpoint file (this is not one)")
        if data["dpcert"] != self.version:
            raise RunOptionError(
                "--checkpoint",
                str(self.path),
                f"a checkpoint written by this dpcert {self.version} (it was written by dpcert {data['dpcert']})",
            )
        if data["key"] != self.key:
            raise RunOptionError(
                "--checkpoint", str(self.path), "a checkpoint of these inputs (it was written for other inputs)"
            )
        sections: dict[str, dict[str, Any]] = {}
        untrusted = 0
        for section, entries in data["sections"].items():
            if not isinstance(entries, dict) or not all(k.isdigit() and len(k) < 10 for k in entries):
                raise self._damaged()
            kept = sections[section] = {}
            for k, entry in entries.items():
                good = isinstance(entry, dict) and set(entry) == {"v", "mac"} and isinstance(entry["mac"], str)
                if good and hmac.compare_digest(entry["mac"], self._mac(section, int(k), entry["v"])):
                    kept[k] = entry
                else:
                    untrusted += 1
        if untrusted and data.get("code") == self.code:
            raise RunOptionError(
                "--checkpoint",
                str(self.path),
                f"a dpcert checkpoint whose entries prove themselves under this user's checkpoint key ({untrusted} "
                "do not: damaged, edited, or written by another user; remove the file to start afresh)",
            )
        if untrusted:  # written by other code: nothing in it is used, and the file is rewritten by this code
            self._dirty = True
            if str(self.path) not in _REPORTED:
                _REPORTED.add(str(self.path))
                sys.stderr.write(
                    f"dpcert: --checkpoint {self.path} was written by other dpcert code (its sources differ from "
                    f"this one's): its {untrusted} finished chunk(s) are computed again\n"
                )
                sys.stderr.flush()
        self.data["sections"] = sections

    def finished(self, section: str) -> dict[int, Summary]:
        """The chunks of ``section`` already finished, by index."""
        try:
            return {i: Summary.from_json(v) for i, v in self._raw(section).items()}
        except (ValueError, TypeError, ArithmeticError):
            raise self._damaged() from None

    def record(self, section: str, i: int, summary: Summary) -> None:
        """Add chunk ``i`` of ``section`` and write the file (atomically)."""
        self._put(section, i, summary.to_json())

    def values(self, section: str) -> dict[int, Any]:
        """The values recorded by :meth:`put` in ``section``, by index (tuples, floats and fractions restored)."""
        try:
            return {i: _decode(v) for i, v in self._raw(section).items()}
        except (ValueError, TypeError, ArithmeticError):
            raise self._damaged() from None

    def put(self, section: str, i: int, value: Any) -> None:
        """Record any value of None, bool, int, float, str, Fraction, tuple, list and dict with str keys.

        Raises:
            TypeError: for a value of another type (nothing is written).
        """
        self._put(section, i, _encode(value))

    def _raw(self, section: str) -> dict[int, Any]:
        """The authenticated values of ``section`` (entries that did not prove themselves were dropped on load)."""
        return {int(k): e["v"] for k, e in self.data["sections"].get(section, {}).items()}

    def _put(self, section: str, i: int, encoded: Any) -> None:
        entry = {"v": encoded, "mac": self._mac(section, i, encoded)}
        self.data["sections"].setdefault(section, {})[str(i)] = entry
        self._dirty = True
        if self._written is None or time.monotonic() - self._written >= self.WRITE_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write what was recorded since the last write (atomically); nothing when nothing was."""
        from dpcert.core.files import atomic_write_text

        if self._dirty:
            text = json.dumps(self.data, separators=(",", ":")) + "\n"
            atomic_write_text(self.path, text, what="--checkpoint", error=RunOptionError)
            self._dirty = False
            self._written = time.monotonic()

    def _damaged(self) -> RunOptionError:
        return RunOptionError("--checkpoint", str(self.path), "a dpcert checkpoint file (it is damaged)")


def _section(fn: Callable[..., Any], chunks: list[Any]) -> str:
    """The identity of one :func:`map_chunks` call: its function and its chunks (their ``repr``)."""
    h = hashlib.sha256(f"{fn.__module__}:{fn.__qualname__}".encode())
    for c in chunks:
        h.update(b"\0" + repr(c).encode())
    return h.hexdigest()


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
        The merged :class:`Summary`; chunks whose worker died on every attempt are in its ``failed``.
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
        shared[-1] = 1  # each worker's watchdog ends it within _WATCH_PERIOD
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
    deadline = time.monotonic() + 2
    while any(p.exitcode is None for p in procs) and time.monotonic() < deadline:
        time.sleep(0.01)  # the pool's own thread may be reaping a worker: its exit code appears when it is done
    codes = [-p.exitcode for p in procs if p.exitcode is not None and p.exitcode < 0]
    return next((c for c in codes if c != signal.SIGTERM), codes[0] if codes else None)


# --------------------------------------------------------------------------------------------- dask


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


def _dask_task(fn: Callable[[Any], Any], chunk: Any) -> tuple[str, Any]:
    """On a Dask worker: ``fn(chunk)`` with freed memory kept for reuse while it runs, as in a plain Python process.

    A Dask nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also fixes glibc's mmap threshold at
    128 KiB: every NumPy temporary above that (the DaRRM chunk's 256 KiB row blocks) is then a fresh ``mmap`` whose
    pages fault in one by one, and returned at once. Measured at DaRRM K = 41, Δ > 0: the chunks took 1.75 CPU
    seconds instead of 0.75 in such a process, an existing 2-worker cluster 2.2x the local processes' wall time.
    The worker's settings are restored when its last dpcert task ends and the freed memory returned, as Dask wants.
    Returns the value with the fingerprint of the code that computed it."""
    global _TASKS_RUNNING
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
    fn: Callable[[Any], Summary],
    chunks: list[Any],
    todo: list[int],
    n: int,
    run: RunOptions,
    finished: Callable[[int, Summary], None],
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
            return _gather_dask(client, fn, chunks, todo, run, finished)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _gather_dask(
    client: Any, fn: Callable[[Any], Any], chunks: list[Any], todo: list[int], run: RunOptions,
    finished: Callable[[int, Any], None],
) -> dict[int, str]:  # fmt: skip
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    address = client.scheduler.address
    failed: dict[int, str] = {}
    first = _FirstError()
    foreign = _Foreign(f"the Dask scheduler {_scheduler_address(run.scheduler) or '(a LocalCluster)'}")
    token = hashlib.sha256(f"{time.time_ns()}:{os.getpid()}".encode()).hexdigest()[:16]
    futures = client.map(
        partial(_dask_task, fn), [chunks[i] for i in todo], key=[f"dpcert-{token}-{i}" for i in todo], pure=False
    )
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
