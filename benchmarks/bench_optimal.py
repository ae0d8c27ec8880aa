"""Benchmark: optimal composition of ε-DP mechanisms, certified vs float vs dp-accounting, before vs after.

Scaling (the targets of issue 10): for k ∈ {10^3, …, 10^7} at ε = 0.01 and δ = 1e-6 it times the certified and
the float δ(ε_g) at ε_g = ε_g(1e-6) (six decimals, the same exact input for every run) and the certified and float
ε_g(1e-6). With ``--baseline PATH`` (a checkout of older dpcert, e.g. ``git worktree add /tmp/dpcert-baseline
d9899e5``) the same calls are timed from PATH/src in a subprocess and printed beside today's numbers.

Peers: for k ∈ {10, 100, 1000, 10000} at ε = 0.1 and a fixed ε_g per k (the DP-OptComp values of an independent
reproduction at δ = 1e-6,
five decimals; 96.57184 for k = 10^4 from dpcert), it times

* ``kov_delta``: the certified enclosure of δ(ε_g) (relative width <= 1e-15);
* ``kov_delta_float``: the float64 δ(ε_g);
* dp-accounting (when importable): the PLD of the randomized-response pair with ``pessimistic_estimate=True``,
  ``self_compose(k).get_delta_for_epsilon(ε_g)`` on its default 1e-4 grid;
* ``kov_eps`` / ``kov_eps_float``: the certified bracket (width <= 1e-12 relative) and the float ε_g(1e-6).

Each time is the median of ``--runs`` runs (time.perf_counter). Usage::

    python benchmarks/bench_optimal.py [--json] [--runs N] [--baseline PATH] [--baseline-runs N]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from timing import median_time  # benchmarks/timing.py (the script's folder is on sys.path)

# the umbrella module exists in old and new trees alike, so the --baseline worker imports the same names
from dpcert.composition.optimal import kov_delta, kov_delta_float, kov_eps, kov_eps_float

EPS = "0.1"
DELTA = "1e-6"
CASES = [(10, "0.99937"), (100, "4.77457"), (1000, "19.34467"), (10000, "96.57184")]
TARGETS = {
    "certified delta, k = 1000": (1000, "cert_s", 1.0),
    "float delta, k = 10000": (10000, "float_s", 0.010),
}

# scaling section (issue 10): ε = 0.01, δ = 1e-6
SCALE_EPS = "0.01"
SCALE_KS = [10**3, 10**4, 10**5, 10**6, 10**7]
SCALE_TARGETS = {
    "certified eps_g(delta), k = 10^6": (10**6, "cert_eps_s", 0.1),
    "certified eps_g(delta), k = 10^7": (10**7, "cert_eps_s", 1.0),
    "certified delta(eps_g), k = 10^7": (10**7, "cert_delta_s", 0.1),
}


def scale_eps_g(k: int) -> str:
    """ε_g(1e-6) at ε = 0.01 to six decimals: the exact ε_g at which δ is timed (same input before and after)."""
    return f"{kov_eps_float(k, SCALE_EPS, DELTA):.6f}"


def time_scaling(cases: list[tuple[int, str]], runs: int) -> list[dict[str, Any]]:
    """Median times of the four calls per k (the calls the baseline worker makes too)."""
    rows = []
    for k, eps_g in cases:
        row: dict[str, Any] = {"k": k, "eps_g": eps_g}
        row["cert_delta_s"], enc = median_time(lambda k=k, g=eps_g: kov_delta(k, SCALE_EPS, g), runs)
        row["cert_delta"] = enc.short(10)
        row["float_delta_s"], val = median_time(lambda k=k, g=eps_g: kov_delta_float(k, SCALE_EPS, g), runs)
        row["float_delta"] = f"{val:.10g}"
        row["cert_eps_s"], enc = median_time(lambda k=k: kov_eps(k, SCALE_EPS, DELTA), runs)
        row["cert_eps"] = enc.short(12)
        row["float_eps_s"], val = median_time(lambda k=k: kov_eps_float(k, SCALE_EPS, DELTA), runs)
        row["float_eps"] = f"{val:.12g}"
        rows.append(row)
    return rows


def run_baseline(path: str, cases: list[tuple[int, str]], runs: int) -> list[dict[str, Any]]:
    """The same calls timed from ``path/src`` in a subprocess (this script in ``--worker`` mode)."""
    env = {**os.environ, "PYTHONPATH": os.path.join(os.path.abspath(path), "src")}
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(cases), "--runs", str(runs)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def scaling(runs: int, baseline: str | None, baseline_runs: int) -> dict[str, Any]:
    cases = [(k, scale_eps_g(k)) for k in SCALE_KS]
    # warm-up: scipy's first import and flint's caches are not what is being measured
    kov_delta(10, SCALE_EPS, "0.1")
    kov_eps_float(10, SCALE_EPS, DELTA)
    rows = time_scaling(cases, runs)
    before = run_baseline(baseline, cases, baseline_runs) if baseline else None
    targets = {}
    for name, (k, col, limit) in SCALE_TARGETS.items():
        got = next((r[col] for r in rows if r["k"] == k), math.inf)
        targets[name] = {"limit_s": limit, "seconds": got, "met": got < limit}
    slower = [r["k"] for r in rows if r["float_delta_s"] > r["cert_delta_s"]]
    targets["float delta no slower than certified delta at every k"] = {
        "limit_s": None,
        "seconds": max(r["float_delta_s"] / r["cert_delta_s"] for r in rows),
        "met": not slower,
    }
    return {"eps": SCALE_EPS, "delta": DELTA, "runs": runs, "rows": rows, "baseline": before, "targets": targets}


def print_scaling(result: dict[str, Any], baseline: str | None) -> None:
    print(f"Scaling at eps = {result['eps']}, delta = {result['delta']}; median of {result['runs']} runs, ms")
    before = {r["k"]: r for r in result["baseline"]} if result["baseline"] else {}
    cols = [("cert_delta_s", "cert delta"), ("float_delta_s", "float delta"), ("cert_eps_s", "cert eps_g")]
    cols.append(("float_eps_s", "float eps_g"))
    if before:
        print(f"(before = {baseline}, after = this tree)")
        head = f"{'k':>9} {'eps_g':>12} | " + " | ".join(f"{t + ' before':>18} {'after':>9}" for _, t in cols)
    else:
        head = f"{'k':>9} {'eps_g':>12} | " + " | ".join(f"{t:>12}" for _, t in cols)
    print(head)
    print("-" * len(head))
    for r in result["rows"]:
        b = before.get(r["k"])
        if b:
            cells = " | ".join(f"{_ms(b[c]):>18} {_ms(r[c])}" for c, _ in cols)
        else:
            cells = " | ".join(f"{_ms(r[c]):>12}" for c, _ in cols)
        print(f"{r['k']:>9} {r['eps_g']:>12} | {cells}")
    print()
    print("values: delta(eps_g) certified | float ; eps_g(1e-6) certified | float" + " (after, before)" * bool(before))
    for r in result["rows"]:
        b = before.get(r["k"])
        line = f"{r['k']:>9}: {r['cert_delta']} | {r['float_delta']} ; {r['cert_eps']} | {r['float_eps']}"
        if b:
            line += f"\n{'before':>9}: {b['cert_delta']} | {b['float_delta']} ; {b['cert_eps']} | {b['float_eps']}"
        print(line)
    print()
    for name, t in result["targets"].items():
        if t["limit_s"] is None:
            print(f"target {name}: {'MET' if t['met'] else 'MISSED'} (worst float/cert ratio {t['seconds']:.2f})")
        else:
            print(
                f"target {name} < {t['limit_s'] * 1e3:g} ms: {'MET' if t['met'] else 'MISSED'} "
                f"({t['seconds'] * 1e3:.3f} ms)"
            )
    print()


def dp_accounting_delta() -> Callable[[int, float], float] | None:
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError:
        return None
    eps = float(EPS)
    log_q, log_1mq = -math.log1p(math.exp(-eps)), -math.log1p(math.exp(eps))

    def delta(k: int, eps_g: float) -> float:
        pair = pld.from_two_probability_mass_functions(
            {0: log_q, 1: log_1mq}, {0: log_1mq, 1: log_q}, pessimistic_estimate=True
        )
        return float(pair.self_compose(k).get_delta_for_epsilon(eps_g))

    return delta


def run(runs: int) -> dict[str, Any]:
    peer = dp_accounting_delta()
    rows = []
    for k, eps_g in CASES:
        row: dict[str, Any] = {"k": k, "eps": EPS, "eps_g": eps_g}
        row["cert_s"], enc = median_time(lambda k=k, g=eps_g: kov_delta(k, EPS, g), runs)
        row["cert_delta"] = enc.short(10)
        row["float_s"], val = median_time(lambda k=k, g=eps_g: kov_delta_float(k, EPS, g), runs)
        row["float_delta"] = f"{val:.10g}"
        if peer is not None:
            row["dpacc_s"], val = median_time(lambda k=k, g=eps_g: peer(k, float(g)), runs)
            row["dpacc_delta"] = f"{val:.10g}"
        row["cert_eps_s"], enc = median_time(lambda k=k: kov_eps(k, EPS, DELTA), runs)
        row["cert_eps"] = enc.short(12)
        row["float_eps_s"], val = median_time(lambda k=k: kov_eps_float(k, EPS, float(DELTA)), runs)
        row["float_eps"] = f"{val:.12g}"
        rows.append(row)
    targets = {}
    for name, (k, col, limit) in TARGETS.items():
        got = next(r[col] for r in rows if r["k"] == k)
        targets[name] = {"limit_s": limit, "seconds": got, "met": got < limit}
    return {"runs": runs, "dp_accounting": peer is not None, "rows": rows, "targets": targets}


def _ms(s: float) -> str:
    return f"{s * 1e3:9.3f}"


def print_table(result: dict[str, Any]) -> None:
    print(f"Optimal composition of eps-DP mechanisms, eps = {EPS}; median of {result['runs']} runs, ms")
    head = (
        f"{'k':>6} {'eps_g':>9} | {'certified':>9} {'float':>9} {'dp-acc':>9} | {'dpacc/cert':>10} "
        f"{'cert/float':>10} | {'cert eps_g':>10} {'float eps_g':>11}"
    )
    print(head)
    print("-" * len(head))
    for r in result["rows"]:
        dpacc = _ms(r["dpacc_s"]) if "dpacc_s" in r else f"{'-':>9}"
        ratio = f"{r['dpacc_s'] / r['cert_s']:10.1f}" if "dpacc_s" in r else f"{'-':>10}"
        print(
            f"{r['k']:>6} {r['eps_g']:>9} | {_ms(r['cert_s'])} {_ms(r['float_s'])} {dpacc} | {ratio} "
            f"{r['cert_s'] / r['float_s']:10.1f} | {_ms(r['cert_eps_s'])} {_ms(r['float_eps_s']):>11}"
        )
    print()
    print("values: delta(eps_g) certified | float | dp-accounting (pessimistic PLD, grid 1e-4); eps_g(1e-6)")
    for r in result["rows"]:
        print(
            f"{r['k']:>6}: {r['cert_delta']} | {r['float_delta']} | {r.get('dpacc_delta', '-')}"
            f" ; eps_g {r['cert_eps']} | {r['float_eps']}"
        )
    if not result["dp_accounting"]:
        print("(dp-accounting not importable: its column is empty)")
    print()
    for name, t in result["targets"].items():
        print(
            f"target {name} < {t['limit_s'] * 1e3:g} ms: {'MET' if t['met'] else 'MISSED'} "
            f"({t['seconds'] * 1e3:.3f} ms)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (at least 5)")
    parser.add_argument("--baseline", metavar="PATH", help="a dpcert checkout whose src/ is timed too (before/after)")
    parser.add_argument("--baseline-runs", type=int, default=3, help="runs per baseline measurement (at least 1)")
    parser.add_argument("--worker", metavar="CASES", help=argparse.SUPPRESS)  # baseline subprocess: JSON cases in
    args = parser.parse_args(argv)
    if args.worker:
        cases = [tuple(c) for c in json.loads(args.worker)]
        print(json.dumps(time_scaling(cases, max(1, args.runs))))  # type: ignore[arg-type]
        return 0
    scale = scaling(max(5, args.runs), args.baseline, max(1, args.baseline_runs))
    result = run(max(5, args.runs))
    if args.json:
        print(json.dumps({"scaling": scale, "peers": result}, indent=2))
    else:
        print_scaling(scale, args.baseline)
        print_table(result)
    met = all(t["met"] for t in result["targets"].values()) and all(t["met"] for t in scale["targets"].values())
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
