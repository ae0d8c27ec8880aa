"""Timing shared by the benchmark scripts: medians of wall time, since the machines are shared and noisy."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_time(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """Median wall time of ``runs`` calls, and the last result."""
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out
