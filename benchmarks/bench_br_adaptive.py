"""Benchmark: the certified bracket of the adaptive optimum of k ε-BR mechanisms (the lattice method of
dpcert.br.adaptive).

Sections:

* **Fixed N**: k = 10, ε = 1, ε_g = 0 at N ∈ {1000, 2000, 4000}: the bracket, its relative width, the time of the
  float lattice recursions and of the ball re-evaluation of the extracted strategy (the proof of the lower end),
  and how many states that strategy reaches. Target: relative width <= 1e-3 in under 60 s.
* **Time budget**: for each k of ``--ks`` (default 20 and 50; ε = 1, ε_g = 0) the narrowest bracket
  ``adaptive_bracket_within`` reaches in ``--budget`` seconds (default 300): N reached, bracket, relative width,
  and whether its lower end already certifies a gap over the nonadaptive optimum (Theorem 3).

Usage::

    python benchmarks/bench_br_adaptive.py [--json] [--budget 300] [--ks 20,50] [--skip-budget]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from dpcert.br.adaptive import adaptive_bracket, adaptive_bracket_within

K, EPS, EPS_G = 10, "1", "0"
NS = (1000, 2000, 4000)


def _row(br: Any, k: int) -> dict[str, Any]:
    return {
        "k": k,
        "n": br.n,
        "lo": float(br.lo),
        "hi": float(br.hi),
        "rel_width": float(br.width / br.hi),
        "nonadaptive": float(br.nonadaptive.hi),
        "gap_certified": br.lo > br.nonadaptive.hi,
        "seconds": br.seconds,
        "lattice_s": br.lattice_seconds,
    }


def fixed_n() -> list[dict[str, Any]]:
    rows = []
    for n in NS:
        t0 = time.perf_counter()
        br = adaptive_bracket(K, EPS, EPS_G, n=n)
        row = _row(br, K)
        row["seconds"] = time.perf_counter() - t0
        row["ball_s"] = row["seconds"] - br.lattice_seconds
        row["states"] = br.states  # states the extracted strategy reaches: the ball re-evaluation's size
        rows.append(row)
    return rows


def budget_rows(ks: list[int], budget: float) -> list[dict[str, Any]]:
    rows = []
    for k in ks:
        br = adaptive_bracket_within(k, EPS, EPS_G, budget)
        row = _row(br, k)
        row["budget_s"] = budget
        rows.append(row)
    return rows


def run(ks: list[int], budget: float, skip_budget: bool) -> dict[str, Any]:
    rows = fixed_n()
    ok = [r for r in rows if r["rel_width"] <= 1e-3 and r["seconds"] < 60]
    targets = {
        "k = 10 relative width <= 1e-3 in under 60 s": {
            "met": bool(ok),
            "seconds": min((r["seconds"] for r in ok), default=None),
        }
    }
    return {"fixed_n": rows, "budget": [] if skip_budget else budget_rows(ks, budget), "targets": targets}


def show(result: dict[str, Any]) -> None:
    print(f"Adaptive bracket, k = {K}, eps = {EPS}, eps_g = {EPS_G} (one run each)")
    print(f"  {'N':>6}  {'bracket':<32} {'rel. width':>10} {'lattice s':>10} {'ball s':>8} {'states':>7}")
    for r in result["fixed_n"]:
        print(
            f"  {r['n']:>6}  [{r['lo']:.10f}, {r['hi']:.10f}] {r['rel_width']:>10.2e} {r['lattice_s']:>10.2f}"
            f" {r['ball_s']:>8.3f} {r['states']:>7}"
        )
    if result["budget"]:
        print("Within a time budget (eps = 1, eps_g = 0)")
        for r in result["budget"]:
            print(
                f"  k = {r['k']:>3}: N = {r['n']:>6}, [{r['lo']:.10f}, {r['hi']:.10f}], rel. width "
                f"{r['rel_width']:.2e} in {r['seconds']:.0f} s (budget {r['budget_s']:.0f} s); nonadaptive "
                f"{r['nonadaptive']:.10f}, gap certified: {r['gap_certified']}"
            )
    print("Targets")
    for name, t in result["targets"].items():
        extra = f" ({t['seconds']:.1f} s)" if t["seconds"] is not None else ""
        print(f"  {name}: {'met' if t['met'] else 'NOT met'}{extra}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds per k of the time-budget section")
    ap.add_argument("--ks", default="20,50", help="comma-separated k's of the time-budget section")
    ap.add_argument("--skip-budget", action="store_true", help="only the fixed-N section")
    args = ap.parse_args(argv)
    ks = [int(x) for x in args.ks.split(",") if x]
    result = run(ks, args.budget, args.skip_budget)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        show(result)
    return 0 if all(t["met"] for t in result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
