"""Benchmark: scale-out (issue 21) — the same certification on 1 and 2 local workers and on a Dask LocalCluster.

Cases:

* ``dpcert darrm certify gamma=sub K=41 m=5 eps=0.1 Delta=1e-5 delta=general`` (73,629,072 multisets): 2 local
  worker processes vs 1 (target speed-up >= 1.8), and Dask with 2 worker processes vs the 2 local processes (target:
  within 15 %) in two ways: the ``LocalCluster`` dpcert starts itself (``--executor dask``, no scheduler: its
  start, import and shutdown are timed) and an existing cluster (a ``distributed.LocalCluster(n_workers=2,
  threads_per_worker=1, processes=True)`` this benchmark starts before, untimed, and passes with ``--scheduler``;
  timed twice: first while its workers still import dpcert and build the levels, then again); the peak RSS of the
  main process and of the largest worker;
* ``dpcert verify --full``: ``--workers 2`` vs ``--workers 1`` (target speed-up >= 1.6); ``--select GLOB`` runs a
  part of it instead.

Each run is a fresh ``python -m dpcert.cli`` process (wall time measured from outside, start-up included); every run's
``--json`` output must equal the first's apart from timing fields, or the benchmark says so and exits 1. The ratios
are from one run each on whatever else the machine is doing: the report prints the load average next to them, and
the CPU seconds of all the run's processes (a speed-up on a busy machine is bounded by the cores left to it; equal CPU
seconds on 1 and 2 workers mean the work split without overhead).

Usage::

    python benchmarks/bench_scale.py [--skip-verify] [--skip-darrm] [--select GLOB] [--K 41] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Any


def darrm_argv(K: int) -> list[str]:
    """``dpcert darrm certify gamma=sub K=K m=5 eps=0.1 Delta=1e-5 delta=general --json -q``."""
    return ["darrm", "certify", "gamma=sub", f"K={K}", "m=5", "eps=0.1", "Delta=1e-5", "delta=general", "--json", "-q"]


#: runs ``dpcert.cli.main(argv)``, then prints the peak RSS (KiB) of itself and of its largest waited-for child
WRAPPER = """
import json, resource, sys
from dpcert.cli import main
try:
    rc = main(sys.argv[1:])
except SystemExit as exc:
    rc = exc.code
sys.stdout.flush()
ru = resource.getrusage
sys.stderr.write("\\nRSS " + json.dumps([ru(resource.RUSAGE_SELF).ru_maxrss, ru(resource.RUSAGE_CHILDREN).ru_maxrss])
                 + "\\n")
sys.exit(rc)
"""


def _untimed(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k not in ("seconds",)}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


def run(argv: list[str]) -> dict[str, Any]:
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", WRAPPER, *argv], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    rss_line = [line for line in p.stderr.splitlines() if line.startswith("RSS ")]
    if p.returncode not in (0, 1) or not rss_line:
        raise SystemExit(f"bench_scale: {' '.join(argv)} failed ({p.returncode}): {p.stderr[-2000:]}")
    main_kib, child_kib = json.loads(rss_line[-1][4:])
    return {
        "argv": argv,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "exit": p.returncode,
        "peak_rss_main_mib": round(main_kib / 1024, 1),
        "peak_rss_largest_child_mib": round(child_kib / 1024, 1),
        "out": _untimed(json.loads(p.stdout)),
    }


def _worker_cpu() -> float:
    """On a Dask worker: the CPU seconds of its process."""
    return time.process_time()


def existing_cluster_runs(argv: list[str], times: int) -> tuple[list[dict[str, Any]], str]:
    """``argv`` run ``times`` times against an existing cluster of 2 single-threaded worker processes (started here,
    outside the timed commands, like ``dask worker`` processes: spawned by nannies); each run's CPU seconds include
    the workers'. Returns the runs and the scheduler address."""
    import logging
    import warnings

    import distributed

    # the scheduler's small HTTP server moves to another port when 8787 is taken (a cluster closing): not news here
    warnings.filterwarnings("ignore", message="Port 8787 is already in use", category=UserWarning)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        runs = []
        for _ in range(times):
            cpu0 = sum(client.run(_worker_cpu).values())
            r = run([*argv, "--scheduler", cluster.scheduler_address])
            r["cpu_s"] = round(r["cpu_s"] + sum(client.run(_worker_cpu).values()) - cpu0, 2)
            runs.append(r)
        return runs, cluster.scheduler_address


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-darrm", action="store_true")
    ap.add_argument("--skip-verify", action="store_true")
    ap.add_argument("--select", metavar="GLOB", help="verify only these claims (default: verify --full)")
    ap.add_argument(
        "--K", type=int, default=41, help="the DaRRM case's K (default 41, the target's; 61: 8.0e8 multisets, ~10 s)"
    )
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    report: dict[str, Any] = {
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cores": len(os.sched_getaffinity(0)),
        "load_before": os.getloadavg(),
    }
    same = True
    darrm = darrm_argv(a.K)
    key = f"darrm_K{a.K}"
    if not a.skip_darrm:
        one = run([*darrm, "--executor", "processes", "--workers", "1"])
        two = run([*darrm, "--executor", "processes", "--workers", "2"])
        dask = run([*darrm, "--executor", "dask", "--workers", "2"])
        (cold, warm), _ = existing_cluster_runs([*darrm, "--executor", "dask"], 2)
        same &= one["out"] == two["out"] == dask["out"] == cold["out"] == warm["out"]
        report[key] = {
            "verdict": one["out"]["verdict"],
            "one_worker_s": one["wall_s"],
            "two_workers_s": two["wall_s"],
            "dask_local_cluster_2_s": dask["wall_s"],
            "dask_existing_cluster_2_s": {"first": cold["wall_s"], "again": warm["wall_s"]},
            "cpu_s": {
                "one": one["cpu_s"],
                "two": two["cpu_s"],
                "dask": dask["cpu_s"],
                "dask_existing": {"first": cold["cpu_s"], "again": warm["cpu_s"]},
            },
            "speedup_2_vs_1": round(one["wall_s"] / two["wall_s"], 2),
            "dask_vs_processes": round(dask["wall_s"] / two["wall_s"], 2),
            "dask_existing_vs_processes": {
                "first": round(cold["wall_s"] / two["wall_s"], 2),
                "again": round(warm["wall_s"] / two["wall_s"], 2),
            },
            "peak_rss_mib": {
                "one_worker_main": one["peak_rss_main_mib"],
                "two_workers_main": two["peak_rss_main_mib"],
                "two_workers_largest_worker": two["peak_rss_largest_child_mib"],
            },
            "identical_json": one["out"] == two["out"] == dask["out"] == cold["out"] == warm["out"],
            "load_after": os.getloadavg(),
        }
    if not a.skip_verify:
        sel = ["--select", a.select] if a.select else ["--full"]
        v1 = run(["verify", *sel, "--json", "-q", "--workers", "1"])
        v2 = run(["verify", *sel, "--json", "-q", "--workers", "2"])
        same &= v1["out"] == v2["out"]
        report["verify"] = {
            "what": " ".join(sel),
            "claims": len(v1["out"]["results"]),
            "one_worker_s": v1["wall_s"],
            "two_workers_s": v2["wall_s"],
            "cpu_s": {"one": v1["cpu_s"], "two": v2["cpu_s"]},
            "speedup_2_vs_1": round(v1["wall_s"] / v2["wall_s"], 2),
            "identical_json": v1["out"] == v2["out"],
            "load_after": os.getloadavg(),
        }
    report["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if a.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"bench_scale ({report['started']} .. {report['finished']}, {report['cores']} cores, "
              f"load {report['load_before'][0]:.2f} before)")  # fmt: skip
        if key in report:
            d = report[key]
            print(
                f"  darrm certify K={a.K} Delta>0 ({d['verdict']}): 1 worker {d['one_worker_s']} s, 2 workers "
                f"{d['two_workers_s']} s -> speed-up {d['speedup_2_vs_1']}x (target >= 1.8)"
            )
            ex, exr = d["dask_existing_cluster_2_s"], d["dask_existing_vs_processes"]
            print(f"    Dask, the LocalCluster(2) dpcert starts itself: {d['dask_local_cluster_2_s']} s = "
                  f"{d['dask_vs_processes']}x the 2 local processes")  # fmt: skip
            print(f"    Dask, an existing cluster of 2 workers (--scheduler): first run {ex['first']} s = "
                  f"{exr['first']}x, again {ex['again']} s = {exr['again']}x the 2 local processes")  # fmt: skip
            verdicts = [
                ("self-started LocalCluster", d["dask_vs_processes"]),
                ("existing cluster, first run", exr["first"]),
                ("existing cluster, again", exr["again"]),
            ]
            print("    target Dask <= 1.15x the local processes: "
                  + "; ".join(f"{name} {r}x {'meets' if r <= 1.15 else 'misses'}" for name, r in verdicts))  # fmt: skip
            r = d["peak_rss_mib"]
            print(f"    peak RSS: main {r['two_workers_main']} MiB, largest worker {r['two_workers_largest_worker']} "
                  f"MiB (one worker, in the main process: {r['one_worker_main']} MiB); identical JSON: "
                  f"{d['identical_json']}")  # fmt: skip
            c = d["cpu_s"]
            print(f"    CPU seconds (all processes): 1 worker {c['one']}, 2 workers {c['two']}, Dask {c['dask']}, "
                  f"existing cluster {c['dask_existing']['first']} / {c['dask_existing']['again']} (with its "
                  "workers')")  # fmt: skip
        if "verify" in report:
            v = report["verify"]
            print(f"  verify {v['what']} ({v['claims']} claims): 1 worker {v['one_worker_s']} s, 2 workers "
                  f"{v['two_workers_s']} s -> speed-up {v['speedup_2_vs_1']}x (target >= 1.6); identical JSON: "
                  f"{v['identical_json']}")  # fmt: skip
            print(f"    CPU seconds (all processes): 1 worker {v['cpu_s']['one']}, 2 workers {v['cpu_s']['two']}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
