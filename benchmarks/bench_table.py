"""A 12-row table in one ``dpcert table check`` against the same 12 rows as 12 ``dpcert claim`` calls (issue 22).

The table is DaRRM's Table 2 as printed (the 12 totals, ``claim = digits``: the rows of
``verify/tables/examples/darrm_table2.csv`` whose claim is digits and whose quantity is a general composition).
Both sides are timed as fresh interpreter runs (wall clock, subprocess start included), median of ``--runs``.

Usage: ``python benchmarks/bench_table.py [--runs N] [--workers N]`` (run from the repository; uses the installed or
``PYTHONPATH`` dpcert).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "verify" / "tables" / "examples" / "darrm_table2.csv"
CLI = [sys.executable, "-m", "dpcert.cli"]


def twelve_rows() -> list[dict[str, str]]:
    lines = [line for line in EXAMPLE.read_text().splitlines() if line and not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    out = [r for r in rows if r["claim"] == "digits" and r["quantity"].startswith("composition.general.")]
    assert len(out) == 12, len(out)
    return out


def claim_argv(row: dict[str, str]) -> list[str]:
    inputs = [f"{k}={row[k]}" for k in ("k", "eps", "delta", "delta_prime") if row[k]]
    return [*CLI, "claim", row["quantity"], *inputs, "--rounds-to", row["value"]]


def wall(cmds: list[list[str]]) -> float:
    t0 = time.perf_counter()
    for cmd in cmds:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workers", type=int, default=None, help="--workers of table check (default: every core)")
    a = ap.parse_args()
    rows = twelve_rows()
    with tempfile.TemporaryDirectory() as d:
        table = Path(d) / "darrm_table2_digits.csv"
        cols = ["quantity", "k", "eps", "delta", "delta_prime", "value", "claim"]
        with table.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(cols)
            w.writerows([[r[c] for c in cols] for r in rows])
        check = [*CLI, "table", "check", str(table), "-q"] + (["--workers", str(a.workers)] if a.workers else [])
        claims = [claim_argv(r) for r in rows]
        wall([check])  # warm the file cache
        one = statistics.median(wall([check]) for _ in range(a.runs))
        twelve = statistics.median(wall(claims) for _ in range(a.runs))
    print(f"12 rows, one `dpcert table check`: {one:.2f} s (median of {a.runs})")
    print(f"12 rows, 12 `dpcert claim` calls: {twelve:.2f} s (median of {a.runs})")
    print(f"speed-up: {twelve / one:.1f}x")


if __name__ == "__main__":
    main()
