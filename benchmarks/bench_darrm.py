"""Benchmark: certifying a DaRRM γ over every corner multiset, against a plain per-multiset numpy loop.

Cases (ε = 0.1):

* K = 11, Δ = 1e-5, δ = 1 − (1−Δ)^3, γ_Sub with m = 3: 31,824 multisets (Figure 2), target < 0.1 s;
* K = 101, Δ = δ = 0, γ_DSub with m = 10: 182,104 multisets (App. D.1.2), target < 0.5 s;
* with ``--large``: K = 41, Δ = 1e-5, δ = 1 − (1−Δ)^5, γ_Sub with m = 5: 73,629,072 multisets, target < 120 s and
  peak memory < 2 GB (run in a subprocess so its peak RSS is its own).

For each it reports the median certification time (``certify``, one worker), the float-kernel-only time, the
exact-path time (the difference), the share of rows the float filter decided, the verdict, and the plain loop
(``plain_loop_max``: one np.convolve chain per multiset) on the same run — for K = 101 only with
``--plain-large`` (about a minute), never for K = 41.

Usage::

    python benchmarks/bench_darrm.py [--json] [--runs N] [--large] [--plain-large]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from typing import Any

EPS = Fraction(1, 10)
D5 = Fraction(1, 100000)
CASES = {
    "K=11, Delta>0": ("sub", 11, 3, D5, 0.1),
    "K=101, Delta=0": ("dsub", 101, 10, Fraction(0), 0.5),
    "K=41, Delta>0": ("sub", 41, 5, D5, 120.0),
}


def _problem(gamma: str, K: int, m: int, Delta: Fraction):
    from dpcert.darrm.gamma import named_gamma
    from dpcert.darrm.privacy import problem

    delta = 1 - (1 - Delta) ** m
    return problem(named_gamma(gamma, K, Fraction(m), EPS, Delta, delta), K, Fraction(m), EPS, Delta, delta)


def _kernel_only(pr: Any) -> float:
    from dpcert.darrm.kernel import block_margins
    from dpcert.darrm.privacy import _float_setting

    _float_setting.cache_clear()
    t0 = time.perf_counter()
    fs = _float_setting(pr)
    for a in range(pr.K + 1):
        block_margins(fs, a)
    return time.perf_counter() - t0


def run_case(name: str, runs: int, plain: bool) -> dict[str, Any]:
    from dpcert.darrm.privacy import _float_setting, certify, plain_loop_max

    gamma, K, m, Delta, target = CASES[name]
    pr = _problem(gamma, K, m, Delta)
    times, res = [], None
    for _ in range(runs):
        _float_setting.cache_clear()
        t0 = time.perf_counter()
        res = certify(pr)
        times.append(time.perf_counter() - t0)
    kernel = statistics.median(_kernel_only(pr) for _ in range(runs))
    assert res is not None
    cert = statistics.median(times)
    rows = res.rows
    out: dict[str, Any] = {
        "case": name,
        "gamma": gamma,
        "m": m,
        "rows": rows,
        "verdict": res.verdict.value,
        "certify_s": cert,
        "kernel_s": kernel,
        "exact_path_s": max(0.0, cert - kernel),
        "float_share": res.counts.get("float", 0) / rows,
        "counts": res.counts,
        "target_s": target,
        "met": cert < target,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if plain:
        t0 = time.perf_counter()
        plain_loop_max(pr)
        out["plain_loop_s"] = time.perf_counter() - t0
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--large", action="store_true", help="also K = 41, Delta > 0 (73.6 M rows; about a minute)")
    ap.add_argument("--plain-large", action="store_true", help="also the plain loop for K = 101 (about a minute)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:  # a single case in this process (used for the memory-isolated K = 41 run)
        print(json.dumps(run_case(a.one, 1, False)))
        return 0
    rows = [run_case("K=11, Delta>0", a.runs, True), run_case("K=101, Delta=0", a.runs, a.plain_large)]
    if a.large:
        proc = subprocess.run(
            [sys.executable, __file__, "--one", "K=41, Delta>0"], capture_output=True, text=True, check=True
        )
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        r["met"] = r["met"] and r["peak_rss_mb"] < 2048
        rows.append(r)
    if a.json:
        print(json.dumps(rows, indent=2))
    else:
        hdr = f"{'case':16} {'rows':>11} {'verdict':10} {'certify s':>10} {'kernel s':>9} {'exact s':>8} "
        hdr += f"{'float %':>9} {'plain s':>8} {'peak MB':>8} {'target s':>8}  met"
        print(hdr)
        print("-" * len(hdr))
        for r in rows:
            plain = f"{r['plain_loop_s']:.2f}" if "plain_loop_s" in r else "-"
            print(
                f"{r['case']:16} {r['rows']:>11,} {r['verdict']:10} {r['certify_s']:>10.3f} {r['kernel_s']:>9.3f} "
                f"{r['exact_path_s']:>8.3f} {100 * r['float_share']:>8.4f}% {plain:>8} {r['peak_rss_mb']:>8.0f} "
                f"{r['target_s']:>8.1f}  {'yes' if r['met'] else 'NO'}"
            )
    return 0 if all(r["met"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
