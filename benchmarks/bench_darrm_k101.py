"""Benchmark: DaRRM certify at K = 101, Δ > 0 (2.8 × 10^10 corner multisets) — measured per-chunk costs and the
wall time they project on 64 and 1,024 cores (issue 21).

The certification itself (``--run``) is the CLI command, with a checkpoint::

    dpcert darrm certify gamma=sub K=101 m=10 eps=0.1 Delta=1e-5 delta=general --checkpoint FILE --json

Without ``--run`` this script measures, in this process and on one core (one BLAS thread), the two costs a worker
pays and projects the wall time from them:

* **chunk compute**: a sample of the chunks (every ``len(chunks) / --sample``-th), each timed with its level tables
  already built, gives the cost per multiset; the total compute is that times 2.8 × 10^10;
* **level building**: one process serving the level tables of *every* chunk in the run's order (a running table
  advanced to level 101 for p and p', the low levels afresh, group B mirrored) — an upper bound of what any one
  worker builds, whatever share of the chunks it gets.

Projection on P cores (one worker per core, chunks handed out in order): T(P) <= compute / P + level building +
the largest chunk (the last one to start may be the largest) — stated, with its arithmetic, in the report. The
scheduler's own cost (Dask: about a millisecond per task, 1,725 tasks) is left out and said so.

Usage::

    python benchmarks/bench_darrm_k101.py [--sample 24] [--run [--workers 2] [--checkpoint FILE]] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from fractions import Fraction
from typing import Any

ARGS = ["gamma=sub", "K=101", "m=10", "eps=0.1", "Delta=1e-5", "delta=general"]


def _problem() -> Any:
    from dpcert.darrm.gamma import gamma_sub
    from dpcert.darrm.privacy import problem

    D = Fraction(1, 10**5)
    return problem(gamma_sub(101, 10), 101, Fraction(10), Fraction(1, 10), D, 1 - (1 - D) ** 10)


def measure(sample: int) -> dict[str, Any]:
    from threadpoolctl import threadpool_limits

    import dpcert.darrm.privacy as P
    from dpcert.darrm.kernel import FloatSetting

    threadpool_limits(1)
    pr = _problem()
    tasks = P._tasks(pr)
    sizes = [P._describe(t)["multisets"] for t in tasks]
    assert sum(sizes) == pr.n_rows

    # level building: every chunk's four tables in the run's order, in a fresh setting, nothing else
    fs = P._float_setting(pr)
    # (the tables depend on the corners only, not on γ)
    fresh = FloatSetting((Fraction(1),) * (pr.K + 1), pr.K, pr.m, pr.eps, pr.Delta, pr.delta)
    t0 = time.perf_counter()
    for t in tasks:
        a = t[1]
        for side in (0, 1):
            fresh.level(side, 0, a)
            fresh.level(side, 1, pr.K - a)
    build_all = time.perf_counter() - t0
    del fresh

    # chunk compute: sampled chunks, their tables built before the clock starts
    step = max(1, len(tasks) // sample)
    per: list[float] = []
    rows = []
    for i in range(0, len(tasks), step):
        a = tasks[i][1]
        for side in (0, 1):
            fs.level(side, 0, a)
            fs.level(side, 1, pr.K - a)
        t0 = time.perf_counter()
        s = P._chunk(tasks[i])
        dt = time.perf_counter() - t0
        per.append(dt / sizes[i])
        rows.append({"chunk": i, "a": a, "multisets": sizes[i], "s": round(dt, 4), "counts": dict(s.counts)})
    ns = statistics.median(per) * 1e9
    compute = ns * 1e-9 * pr.n_rows
    largest = max(sizes) * ns * 1e-9
    proj = {str(p): round(compute / p + build_all + largest, 1) for p in (1, 2, 64, 1024)}
    return {
        "multisets": pr.n_rows,
        "chunks": len(tasks),
        "largest_chunk_multisets": max(sizes),
        "level_bytes_whole": fs.level_bytes,
        "ns_per_multiset_median": round(ns, 2),
        "ns_per_multiset_range": [round(min(per) * 1e9, 2), round(max(per) * 1e9, 2)],
        "compute_cpu_s": round(compute, 1),
        "level_building_s": round(build_all, 1),
        "largest_chunk_s": round(largest, 3),
        "projected_wall_s": proj,
        "sampled": rows,
    }


def run_cli(workers: int, checkpoint: str | None) -> dict[str, Any]:
    """The CLI command in a fresh process (:func:`bench_scale.run`: wall and CPU seconds, peak RSS, the JSON)."""
    from bench_scale import run  # benchmarks/bench_scale.py (the script's folder is on sys.path)

    argv = ["darrm", "certify", *ARGS, "--json", "-q", "--workers", str(workers)]
    r = run(argv + (["--checkpoint", checkpoint] if checkpoint else []))
    out = r["out"]
    return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "verdict": out["verdict"], "counts": out["counts"],
            "max_margin": out["max_margin"], "peak_rss_main_mib": r["peak_rss_main_mib"],
            "peak_rss_largest_worker_mib": r["peak_rss_largest_child_mib"]}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=24, help="chunks timed (default 24)")
    ap.add_argument("--run", action="store_true", help="also run the whole certification (minutes)")
    ap.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    load = os.getloadavg()
    rep: dict[str, Any] = {"cores": len(os.sched_getaffinity(0)), "load_before": load, **measure(a.sample)}
    if a.run:
        rep["run"] = run_cli(a.workers, a.checkpoint) | {"workers": a.workers}
    rep["load_after"] = os.getloadavg()
    if a.json:
        print(json.dumps(rep, indent=2))
        return 0
    print(f"bench_darrm_k101: K = 101, Delta > 0, {rep['multisets']:,} multisets in {rep['chunks']} chunks "
          f"(largest {rep['largest_chunk_multisets']:,}); whole level tables would be "
          f"{rep['level_bytes_whole'] / 1e9:.1f} GB "
          f"(load {load[0]:.2f} before, {rep['load_after'][0]:.2f} after)")  # fmt: skip
    print(f"  chunk compute: median {rep['ns_per_multiset_median']} ns per multiset over {len(rep['sampled'])} "
          f"sampled chunks (range {rep['ns_per_multiset_range']}) -> {rep['compute_cpu_s']} CPU s in all")  # fmt: skip
    print(f"  level building, every chunk's tables in one process: {rep['level_building_s']} s")
    print("  projected wall time, T(P) <= compute / P + level building + largest chunk "
          f"({rep['largest_chunk_s']} s), scheduler overhead not included:")  # fmt: skip
    for p, t in rep["projected_wall_s"].items():
        print(f"    {p:>5} cores: {rep['compute_cpu_s']} / {p} + {rep['level_building_s']} + {rep['largest_chunk_s']}"
              f" = {t} s")  # fmt: skip
    if "run" in rep:
        r = rep["run"]
        print(f"  measured run on {r['workers']} workers: {r['wall_s']} s wall, {r['cpu_s']} CPU s, peak RSS "
              f"{r['peak_rss_main_mib']} MiB main / {r['peak_rss_largest_worker_mib']} MiB largest worker, "
              f"{r['verdict']}, "
              f"counts {r['counts']}, max margin [{r['max_margin']['lo']}, {r['max_margin']['hi']}]")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
