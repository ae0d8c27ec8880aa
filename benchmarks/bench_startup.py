"""Start-up time of one CLI call against the floor of its numerical libraries (issue 18, section 5).

Measures, as the median of several fresh interpreter runs (wall clock, subprocess start included in both):

* ``dpcert eval composition.simple.eps k=2 eps=0.1`` (``python -m dpcert.cli ...``), and
* ``python -c "import numpy, flint"``,

and prints both with the target ``eval <= 3 x (numpy + flint) + 0.15 s``.

Usage: ``python benchmarks/bench_startup.py [--runs N]`` (run from the repository; uses the installed or
``PYTHONPATH`` dpcert).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

EVAL = [sys.executable, "-m", "dpcert.cli", "eval", "composition.simple.eps", "k=2", "eps=0.1"]
FLOOR = [sys.executable, "-c", "import numpy, flint"]


def median_seconds(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    runs = ap.parse_args().runs
    median_seconds(FLOOR, 1)  # warm the file cache
    median_seconds(EVAL, 1)
    floor = median_seconds(FLOOR, runs)
    ev = median_seconds(EVAL, runs)
    target = 3 * floor + 0.15
    print(f"import numpy, flint: {floor:.3f} s (median of {runs})")
    print(f"dpcert eval composition.simple.eps k=2 eps=0.1: {ev:.3f} s (median of {runs})")
    verdict = "met" if ev <= target else "NOT met"
    print(f"ratio eval / floor: {ev / floor:.2f}; target 3 x floor + 0.15 s = {target:.3f} s: {verdict}")


if __name__ == "__main__":
    main()
