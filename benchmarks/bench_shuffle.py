"""Benchmark: shuffle-model RDP bounds (Girgis et al., CCS 2021), float vs certified.

Times (medians of ``--runs`` runs, time.perf_counter):

* float, all the paper's bounds (Theorem 1, Theorem 2, eq. (10), Corollaries 1–2 and the default upper bound
  min(Thm 1, Thm 2, RR_1)) at n = 10^6, ε0 = 1, λ = 2..256, each one vectorised call; target < 50 ms in total;
* certified Theorem 1 and Theorem 2 at n = 10^6, ε0 = 1, λ = 2..256 (one enclosure of relative width 1e-15 each);
  target < 1 s;
* the certified exact 2RR pair (both orders) and U_red (derived here) at n = 10^6, ε0 = 1, every λ = 2..256, one
  enclosure each, from cold caches (the binomial masses, inverse moments and cumulant table are computed once and
  shared by every λ); target < 30 s for the whole sweep;
* how the cost grows with n (10^3 … 10^7, ε0 = 1): the cold time of λ = 256 (it builds what λ shares) and the warm
  time per λ over λ = 2, 17, 32, …, 256 (for n = 10^7, past the quantities' n <= 10^6, through their evaluators);
* RDP → DP with the best λ (float search, certified value), T = 1000, n = 10^6, ε0 = 0.5, δ = 1e-6; target < 2 s.
* ``--reduction-grid``: only the cold time of one U_red enclosure (relative width 1e-15) at every point of
  n ∈ {10001, 10^5, 10^6} × ε0 ∈ {0.1, 1, 7, 10} × λ ∈ {2, 64, 512, 1024} (issue 18: the promised domain must
  finish in bounded time), and the worst point.

Usage::

    python benchmarks/bench_shuffle.py [--json] [--runs N] [--quick] [--reduction-grid]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
from timing import median_time  # benchmarks/timing.py (the script's folder is on sys.path)

from dpcert.shuffle import QUANTITIES, bounds, conversion

N = 10**6
LAMS = np.arange(2, 257)


def float_all() -> dict[str, Any]:
    return {
        "thm1": bounds.thm1_float(N, 1.0, LAMS),
        "thm2": bounds.thm2_float(N, 1.0, LAMS),
        "efm19": bounds.efm19_float(N, 1.0, LAMS),
        "cor1": bounds.cor1_float(N, 1.0, LAMS),
        "cor2": bounds.cor2_float(N, 1.0, LAMS),
        "upper": conversion.upper_float(N, 1.0, LAMS),
    }


def certified_thm12() -> int:
    for lam in range(2, 257):
        QUANTITIES["shuffle.rdp.thm1"].enclose(n=N, eps0=1, lam=lam)
        QUANTITIES["shuffle.rdp.thm2"].enclose(n=N, eps0=1, lam=lam)
    return 2 * 255


def clear_caches() -> None:
    """Forget everything shared across λ (binomial windows, inverse moments, cumulant tables)."""
    from dpcert.shuffle import pair, reduction

    pair._window.cache_clear()
    for fn in (reduction._cumulant_powers, reduction._inverse_moments, reduction._moment_sums):
        fn.cache_clear()


def one(name: str, n: int, lam: int, **extra: Any) -> Any:
    """An enclosure of relative width 1e-15 (past the quantity's n limit: its evaluator, with the same loop)."""
    from dpcert.arith.exact import parse_rational
    from dpcert.core.quantity import enclosure_of

    q = QUANTITIES[name]
    if n <= 10**6:
        return q.enclose(n=n, eps0=1, lam=lam, **extra)
    parsed = {"n": n, "eps0": parse_rational("1"), "lam": parse_rational(str(lam)), **extra}
    prec = 64
    while True:  # Quantity.enclose's rule, without the input limit
        enc = enclosure_of(q.ball_at(prec, parsed))
        if enc.rel_width() <= 1e-15:
            return enc
        prec *= 2


def sweep(n: int, lams: Any) -> tuple[float, float]:
    """Seconds for the pair (both orders, ``order=max``) and for U_red over ``lams``."""
    t0 = time.perf_counter()
    for lam in lams:
        one("shuffle.rdp.pair", n, int(lam), order="max")
    t1 = time.perf_counter()
    for lam in lams:
        one("shuffle.rdp.reduction", n, int(lam))
    return t1 - t0, time.perf_counter() - t1


def dp_best(t: int) -> Any:
    return QUANTITIES["shuffle.dp.eps"].enclose(n=N, eps0="0.5", T=t, delta="0.000001")


def reduction_grid() -> int:
    """Cold time of U_red at each grid point (caches cleared before each), printed as it goes; the worst last."""
    worst = (0.0, "")
    for lam in (2, 64, 512, 1024):
        for eps0 in ("10", "7", "1", "0.1"):
            for n in (10001, 10**5, 10**6):
                clear_caches()
                t0 = time.perf_counter()
                enc = QUANTITIES["shuffle.rdp.reduction"].enclose(n=n, eps0=eps0, lam=lam)
                dt = time.perf_counter() - t0
                where = f"n={n} eps0={eps0} lam={lam}"
                print(f"{where:<32} {dt:8.2f} s  {enc.short(8)}", flush=True)
                worst = max(worst, (dt, where))
    print(f"worst: {worst[1]} {worst[0]:.2f} s")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="growth table up to n = 10^6 only")
    ap.add_argument("--reduction-grid", action="store_true", help="only the cold U_red grid (n, eps0, lam)")
    a = ap.parse_args()
    if a.reduction_grid:
        return reduction_grid()
    rows: list[dict[str, Any]] = []

    def row(what: str, seconds: float, target: float | None, note: str = "") -> None:
        rows.append(
            {
                "measurement": what,
                "median_s": seconds,
                "target_s": target,
                "met": None if target is None else seconds < target,
                "note": note,
            }
        )

    float_all()  # warm-up (imports)
    s, _ = median_time(float_all, a.runs)
    row("float: Thm 1, Thm 2, eq. (10), Cor 1, Cor 2, upper; n = 10^6, lam = 2..256", s, 0.050)
    s, _ = median_time(certified_thm12, max(1, a.runs // 2))
    row("certified Thm 1 + Thm 2, n = 10^6, lam = 2..256", s, 1.0)
    clear_caches()
    t_pair, t_red = sweep(N, LAMS)
    row("certified exact pair (both orders), n = 10^6, lam = 2..256, cold caches", t_pair, None)
    row("certified U_red (derived here), n = 10^6, lam = 2..256, cold caches", t_red, None)
    row("certified pair + U_red, n = 10^6, lam = 2..256 (sum)", t_pair + t_red, 30.0)
    warm = np.arange(2, 257, 15)
    ns = (10**3, 10**4, 10**5, 10**6) if a.quick else (10**3, 10**4, 10**5, 10**6, 10**7)
    for n in ns:
        clear_caches()
        c_pair, c_red = sweep(n, [256])
        w_pair, w_red = sweep(n, warm)
        row(
            f"growth n = {n:.0e}: pair / U_red, cold lam = 256; warm per lam",
            c_pair + c_red,
            None,
            f"cold {c_pair:.3f} s / {c_red:.3f} s; warm per lam {w_pair / warm.size * 1e3:.1f} ms / "
            f"{w_red / warm.size * 1e3:.2f} ms",
        )
    conversion.best_lambda.cache_clear()
    s, enc = median_time(lambda: (conversion.best_lambda.cache_clear(), dp_best(1000))[1], max(1, a.runs // 2))
    row("RDP -> DP, best lam + certified eps, T = 1000, n = 10^6, eps0 = 0.5, delta = 1e-6", s, 2.0, enc.short(10))

    if a.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(r["measurement"]) for r in rows)
    print(f"{'measurement':<{width}}  {'median':>10}  {'target':>8}  met   note")
    for r in rows:
        tgt = "" if r["target_s"] is None else f"{r['target_s']:.3g} s"
        met = "" if r["met"] is None else ("yes" if r["met"] else "NO")
        print(f"{r['measurement']:<{width}}  {r['median_s']:>9.4f}s  {tgt:>8}  {met:<4}  {r['note']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
