"""Running claims: ``dpcert verify`` as a library call."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO

from dpcert.arith.ball import MAX_PREC
from dpcert.core.claim import ClaimResult, Evidence, Verdict
from dpcert.core.parallel import Checkpoint, RunOptions, map_each, sigterm_unwinds
from dpcert.engine.manifest import Entry, default_entries, entries_for_selectors, load_manifest
from dpcert.engine.registry import matches
from dpcert.errors import UnknownClaim

__all__ = ["VerifyReport", "run_entries", "verify", "HEAD_START_SECONDS"]

#: With the default worker count (``RunOptions.workers`` is ``None``: every core), claims first run here, one after
#: another, until they have taken this long (or a slow claim is next); only the rest go to a pool of worker processes.
#: A pool costs about 0.1 s (importing it, forking the workers, warming their caches), more than a run of a few cheap
#: claims takes in all (``verify -s 'darrm.table4.*'``: 8 claims, 20 ms): measured on 2 cores, such runs took 0.08 to
#: 0.17 s longer on 2 workers than on 1. An explicit worker count (``--workers N``) uses N processes from the start.
HEAD_START_SECONDS = 0.25


@dataclass
class VerifyReport:
    """Results of a verify run.

    ``exit_code``: 0 when every verdict is the expected one, 1 when a decided verdict differs, 2 when a check
    failed or a claim is undecided that was expected decided (an open question expected UNDECIDED is as expected).
    """

    results: list[ClaimResult]
    skipped_slow: int = 0
    seconds: float = 0.0
    sources: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if any(r.verdict is Verdict.ERROR or (r.verdict is Verdict.UNDECIDED and not r.ok) for r in self.results):
            return 2
        if any(not r.ok for r in self.results):
            return 1
        return 0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.results:
            out[r.verdict.value] = out.get(r.verdict.value, 0) + 1
        out["as_expected"] = sum(r.ok for r in self.results)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "counts": self.counts(),
            "skipped_slow": self.skipped_slow,
            "seconds": round(self.seconds, 3),
            "sources": self.sources,
            "results": [r.to_json() for r in self.results],
        }


class _SlowNotice:
    """Prints a progress line for any claim still running after ``after`` seconds."""

    def __init__(self, stream: TextIO | None, after: float = 1.0) -> None:
        self.stream, self.after = stream, after
        self._timer: threading.Timer | None = None

    def start(self, i: int, n: int, claim_id: str) -> None:
        if self.stream is None:
            return
        t0 = time.perf_counter()

        def say() -> None:
            assert self.stream is not None
            self.stream.write(f"  [{i}/{n}] {claim_id} … still running after {time.perf_counter() - t0:.0f} s\n")
            self.stream.flush()

        self._timer = threading.Timer(self.after, say)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


@sigterm_unwinds()  # SIGTERM unwinds: the checkpoint of finished claims is flushed
def run_entries(
    entries: Sequence[Entry],
    *,
    full: bool = False,
    max_prec: int = MAX_PREC,
    progress: TextIO | None = None,
    on_result: Callable[[ClaimResult], None] | None = None,
    run: RunOptions | None = None,
    recipe: tuple[Any, ...] | None = None,
    on_plan: Callable[[list[Entry]], None] | None = None,
    in_order: Callable[[ClaimResult], None] | None = None,
) -> VerifyReport:
    """Check each entry (slow ones only when ``full``) and collect the results, in the entries' order.

    ``on_result`` is called with each result as its claim finishes (``dpcert verify --certificates`` writes the
    certificate there, so an interrupted run keeps every certificate it finished). ``on_plan`` is called once,
    before any check, with the entries that will run, in order; ``in_order`` with each result as soon as every
    result before it is done, so in the entries' order whatever order the claims finish in (``dpcert verify``
    prints its rows there: ``dpcert verify | head -3`` shows the first rows without waiting for the last claim).

    ``run`` with more than one worker checks claims in parallel; it needs ``recipe`` (how :func:`verify` selected
    the entries, so that a worker selects the same ones: claims themselves need not pickle); without one the
    entries run here, one after another. With the default worker count (local processes, ``run.workers`` is
    ``None``) the first claims run here until they have taken :data:`HEAD_START_SECONDS` and only the rest go to the
    workers, so a short run never starts a pool. Verdicts and evidence are the same either way.
    """
    t0 = time.perf_counter()
    chosen = [e for e in entries if full or not e.full]
    parallel = (
        run is not None
        and recipe is not None
        and len(chosen) > 1
        and (run.executor == "dask" or (run.executor == "processes" and run.n_workers > 1))
    )
    ckpt = None
    done: dict[int, ClaimResult] = {}
    if run is not None and run.checkpoint is not None:
        ids = [e.claim.id for e in chosen]
        key = run.checkpoint_key or f"verify {max_prec} {ids}"
        ckpt = Checkpoint(run.checkpoint, key)
        done = _restore(ckpt, chosen, max_prec)

    if on_plan is not None:
        on_plan(list(chosen))
    shown = [0]  # the results handed to in_order: every one before this index

    def show() -> None:
        while in_order is not None and shown[0] in done:
            in_order(done[shown[0]])
            shown[0] += 1

    def keep(i: int, r: ClaimResult, record: bool = True) -> None:  # each result as it finishes
        done[i] = r
        if on_result is not None:
            on_result(r)
        show()
        if ckpt is not None and record:  # a claim not run (its worker died) is not recorded: a resume runs it
            try:
                ckpt.put("verify", i, _record(r))
            except TypeError:  # evidence a checkpoint cannot hold: the claim runs again on resume
                pass

    for i in sorted(done):  # the results of a resumed run, as if they had just finished
        if on_result is not None:
            on_result(done[i])
    show()
    todo = [i for i in range(len(chosen)) if i not in done]
    try:
        if parallel:
            assert run is not None and recipe is not None
            if run.workers is None and run.executor == "processes":  # every core, once the run proves worth a pool
                todo = _run_serial(chosen, todo, max_prec, progress, keep, budget=HEAD_START_SECONDS)
            if len(todo) > 1:
                _run_parallel(chosen, todo, max_prec, progress, keep, run, recipe)
            else:
                _run_serial(chosen, todo, max_prec, progress, keep)
        else:
            _run_serial(chosen, todo, max_prec, progress, keep)
    finally:  # what finished is on disk, also after Ctrl-C or an error
        if ckpt is not None:
            ckpt.flush()
    results = [done[i] for i in range(len(chosen))]
    sources = sorted({e.source for e in chosen})
    return VerifyReport(results, len(entries) - len(chosen), time.perf_counter() - t0, sources)


def _record(r: ClaimResult) -> dict[str, Any]:
    ev = r.evidence
    enc = None if ev.enclosure is None else (ev.enclosure.lo, ev.enclosure.hi)
    evidence = (enc, ev.method, ev.precision, ev.detail, ev.worst_case, dict(ev.counts), dict(ev.extra))
    return {"id": r.claim.id, "verdict": r.verdict.value, "evidence": evidence, "seconds": r.seconds, "error": r.error}


def _restore(ckpt: Checkpoint, chosen: list[Entry], max_prec: int) -> dict[int, ClaimResult]:
    from dpcert.arith.ball import Enclosure

    out = {}
    for i, rec in ckpt.values("verify").items():
        try:
            if i >= len(chosen) or rec["id"] != chosen[i].claim.id:
                raise ValueError
            enc, method, precision, detail, worst, counts, extra = rec["evidence"]
            ev = Evidence(None if enc is None else Enclosure(*enc), method, precision, detail, worst, counts, extra)
            e = chosen[i]
            out[i] = ClaimResult(
                e.claim, Verdict(rec["verdict"]), ev, rec["seconds"], e.expected, rec["error"], max_prec
            )
        except (ValueError, TypeError, KeyError):
            raise ckpt._damaged() from None
    return out


def _run_serial(
    chosen: list[Entry],
    todo: list[int],
    max_prec: int,
    progress: TextIO | None,
    keep: Callable[[int, ClaimResult], None],
    budget: float | None = None,
) -> list[int]:
    """The claims ``todo`` here, one after another; with a ``budget`` (seconds), only until they have taken that
    long or a slow claim is next. Returns the claims not run."""
    notice = _SlowNotice(progress)
    t0 = time.perf_counter()
    for n, i in enumerate(todo):
        e = chosen[i]
        if budget is not None and (e.full or time.perf_counter() - t0 >= budget):
            return todo[n:]
        notice.start(i + 1, len(chosen), e.claim.id)
        try:
            r = e.claim.check(max_prec=max_prec, expected=e.expected)
        finally:
            notice.stop()
        keep(i, r)
        if progress is not None and r.seconds > 1.0:
            progress.write(f"  [{i + 1}/{len(chosen)}] {e.claim.id}: {r.verdict.value} in {r.seconds:.1f} s\n")
    return []


def _run_parallel(
    chosen: list[Entry],
    todo: list[int],
    max_prec: int,
    progress: TextIO | None,
    keep: Callable[..., None],
    run: RunOptions,
    recipe: tuple[Any, ...],
) -> None:
    """The claims ``todo`` on ``run``'s workers, each result handed to ``keep`` as it finishes. A claim whose worker
    died on every attempt is UNDECIDED (not run), never dropped."""
    finished = len(chosen) - len(todo)

    def done(j: int, value: tuple[Verdict, Evidence, float, str | None]) -> None:
        nonlocal finished
        finished += 1
        i = todo[j]
        e = chosen[i]
        verdict, evidence, seconds, error = value
        r = ClaimResult(e.claim, verdict, evidence, seconds, e.expected, error, max_prec)
        keep(i, r)
        if progress is not None and r.seconds > 1.0:
            progress.write(f"  [{finished}/{len(chosen)}] {e.claim.id}: {r.verdict.value} in {r.seconds:.1f} s\n")

    tasks = [(recipe, i, chosen[i].claim.id, max_prec, chosen[i].expected.value) for i in todo]
    outcomes = map_each(_check_entry, tasks, run=replace(run, progress=None, checkpoint=None), on_result=done)
    for j, (value, reason) in enumerate(outcomes):
        if value is None:  # its worker died on every attempt
            e = chosen[todo[j]]
            detail = f"not run: {reason}"
            r = ClaimResult(e.claim, Verdict.UNDECIDED, Evidence(detail=detail), 0.0, e.expected, detail, max_prec)
            keep(todo[j], r, record=False)


@lru_cache(maxsize=4)
def _chosen(recipe: tuple[Any, ...]) -> list[Entry]:
    manifests, selectors, full, extra = recipe
    entries, full_all = _select(list(manifests), list(selectors), full, extra)
    return [e for e in entries if full or full_all or not e.full]


def _check_entry(task: tuple[Any, ...]) -> tuple[Verdict, Evidence, float, str | None]:
    """In a worker: check one claim of the entries ``recipe`` selects (found again here: claims need not pickle)."""
    recipe, i, claim_id, max_prec, expected = task
    e = _chosen(recipe)[i]
    if e.claim.id != claim_id:  # pragma: no cover - the manifests changed on disk during the run
        raise UnknownClaim(claim_id)
    r = e.claim.check(max_prec=max_prec, expected=Verdict(expected))
    return r.verdict, r.evidence, r.seconds, r.error


def _select(
    manifests: list[str | Path],
    selectors: list[str],
    full: bool = False,
    extra: Callable[[], Sequence[Entry]] | None = None,
) -> tuple[list[Entry], bool]:
    """The entries of ``verify(manifests, selectors, full=full, extra=extra)`` and whether selecting by id runs
    slow claims too."""
    entries: list[Entry] = []
    if not manifests and not selectors:
        entries += default_entries()
    for m in manifests:
        entries += load_manifest(m)
    if extra is not None:
        entries += extra()
    if selectors and manifests:
        for sel in selectors:
            if not any(matches(e.claim.id, sel) for e in entries):
                raise UnknownClaim(sel)
        entries = [e for e in entries if any(matches(e.claim.id, sel) for sel in selectors)]
    elif selectors:
        entries = entries_for_selectors(selectors)
    return entries, bool(selectors and not manifests)


def verify(
    manifests: Iterable[str | Path] = (),
    selectors: Iterable[str] = (),
    *,
    full: bool = False,
    max_prec: int = MAX_PREC,
    progress: TextIO | None = None,
    on_result: Callable[[ClaimResult], None] | None = None,
    run: RunOptions | None = None,
    extra: Callable[[], Sequence[Entry]] | None = None,
    on_plan: Callable[[list[Entry]], None] | None = None,
    in_order: Callable[[ClaimResult], None] | None = None,
) -> VerifyReport:
    """Run manifests and/or claim selectors; with neither, every package's bundled manifests.

    ``extra``: entries that join the manifests' (before any selector picks among them), given as a function that
    builds them (module-level, so that a worker process builds the same entries again: claims need not pickle).
    ``dpcert verify --full`` passes :func:`dpcert.vectors.check.entries`, the bundled golden vectors, each
    re-certified against its certificate and a re-run; the engine itself knows nothing of vectors.

    ``progress``: a stream for progress lines on claims slower than a second (the CLI passes stderr).
    ``on_result``: called with each result as its claim finishes; ``on_plan``: with the entries about to run;
    ``in_order``: with each result once every result before it is done (see :func:`run_entries`).
    ``run``: claims in parallel (:class:`~dpcert.core.parallel.RunOptions`; with its default worker count, every
    core once the claims run here have taken :data:`HEAD_START_SECONDS`); default: one after another.

    >>> report = verify(selectors=["darrm.table2.mnist.q20.*"], progress=None)
    >>> report.exit_code, [r.verdict.value for r in report.results]
    (0, ['CERTIFIED', 'CERTIFIED'])
    """
    manifests, selectors = list(manifests), list(selectors)
    entries, by_id = _select(manifests, selectors, full, extra)
    return run_entries(
        entries,
        full=full or by_id,
        max_prec=max_prec,
        progress=progress,
        on_result=on_result,
        run=run,
        recipe=(tuple(str(m) for m in manifests), tuple(selectors), full, extra),
        on_plan=on_plan,
        in_order=in_order,
    )
