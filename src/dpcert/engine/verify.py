"""Running claims: ``dpcert verify`` as a library call."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from dpcert.arith.ball import MAX_PREC
from dpcert.core.claim import ClaimResult, Verdict
from dpcert.engine.manifest import Entry, default_manifest, entries_for_selectors, load_manifest
from dpcert.engine.registry import matches
from dpcert.errors import UnknownClaim

__all__ = ["VerifyReport", "run_entries", "verify"]


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


def run_entries(
    entries: Sequence[Entry],
    *,
    full: bool = False,
    max_prec: int = MAX_PREC,
    progress: TextIO | None = None,
    on_result: Callable[[ClaimResult], None] | None = None,
) -> VerifyReport:
    """Check each entry (slow ones only when ``full``) and collect the results.

    ``on_result`` is called with each result as its claim finishes (``dpcert verify --certificates`` writes the
    certificate there, so an interrupted run keeps every certificate it finished).
    """
    t0 = time.perf_counter()
    chosen = [e for e in entries if full or not e.full]
    notice = _SlowNotice(progress)
    results = []
    for i, e in enumerate(chosen, 1):
        notice.start(i, len(chosen), e.claim.id)
        try:
            results.append(e.claim.check(max_prec=max_prec, expected=e.expected))
        finally:
            notice.stop()
        if on_result is not None:
            on_result(results[-1])
        if progress is not None and results[-1].seconds > 1.0:
            progress.write(
                f"  [{i}/{len(chosen)}] {e.claim.id}: {results[-1].verdict.value} in {results[-1].seconds:.1f} s\n"
            )
    sources = sorted({e.source for e in chosen})
    return VerifyReport(results, len(entries) - len(chosen), time.perf_counter() - t0, sources)


def verify(
    manifests: Iterable[str | Path] = (),
    selectors: Iterable[str] = (),
    *,
    full: bool = False,
    max_prec: int = MAX_PREC,
    progress: TextIO | None = None,
    on_result: Callable[[ClaimResult], None] | None = None,
) -> VerifyReport:
    """Run manifests and/or claim selectors; with neither, the bundled default manifest (and, with ``full``, the
    bundled golden vectors, each re-certified against its certificate and a re-run: :mod:`dpcert.vectors.check`).

    ``progress``: a stream for progress lines on claims slower than a second (the CLI passes stderr).
    ``on_result``: called with each result as its claim finishes (see :func:`run_entries`).

    >>> report = verify(selectors=["darrm.table2.mnist.q20.*"], progress=None)
    >>> report.exit_code, [r.verdict.value for r in report.results]
    (0, ['CERTIFIED', 'CERTIFIED'])
    """
    manifests, selectors = list(manifests), list(selectors)
    entries: list[Entry] = []
    bundled = not manifests and not selectors
    if bundled:
        manifests = [default_manifest()]
    for m in manifests:
        entries += load_manifest(m)
    if bundled and full:
        from dpcert.vectors.check import entries as vector_entries

        entries += vector_entries()
    if selectors and manifests:
        for sel in selectors:
            if not any(matches(e.claim.id, sel) for e in entries):
                raise UnknownClaim(sel)
        entries = [e for e in entries if any(matches(e.claim.id, sel) for sel in selectors)]
    elif selectors:
        entries = entries_for_selectors(selectors)
    return run_entries(
        entries,
        full=full or bool(selectors and not manifests),
        max_prec=max_prec,
        progress=progress,
        on_result=on_result,
    )
