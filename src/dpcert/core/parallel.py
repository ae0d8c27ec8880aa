"""Searches and enumerations as pure functions over deterministic chunks, run on every local core.

A long check is split into chunks (a list fixed before anything runs); a pure function maps one chunk to a small
:class:`Summary` (counts by path, the worst case, the undecided items); summaries merge associatively, in chunk
order, so the result is identical whatever the number of workers. The pool is the standard library's
``ProcessPoolExecutor``; a Dask cluster can run the same functions later through the same interface.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["Summary", "map_chunks", "default_workers"]

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
        with ProcessPoolExecutor(max_workers=min(n, len(chunks))) as pool:
            parts = list(pool.map(fn, chunks))
    total = Summary()
    for p in parts:
        total = total.merge(p)
    return total
