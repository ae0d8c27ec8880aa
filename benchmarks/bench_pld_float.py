"""Benchmark: the PLD engine's float path (certified ``dpsgd.eps``) beside dp-accounting's PLDAccountant, one process.

Issue 30's float-speed targets: the MNIST setting (q = 256/60000, σ = 1.1, 14,040 steps, δ = 1e-5) at relative
width <= 1e-3 in no more time than dp-accounting's PLD at its default grid (ratio <= 1); q = 1e-4, σ = 1, 10^4 steps,
δ = 1e-5 at <= 1 % in <= 5 s; q = 1e-3, σ = 1, 10^6 steps, δ = 1e-6 at <= 1e-3 in <= 10 s. Each case runs dpcert and
the peer alternately, ``--runs`` times, and prints the medians, dpcert's enclosure and width, and the ratio. The
peer's value is a float and proves nothing.

    python benchmarks/bench_pld_float.py [--runs 3] [--case mnist]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from dpcert.gaussian.pld import dpsgd_eps

CASES = {
    # name: q, sigma, steps, delta, target relative width, target seconds (None: the peer's time)
    "mnist": ("256/60000", "1.1", 14040, "1e-5", 1e-3, None),
    "q1e-4": ("1e-4", "1", 10**4, "1e-5", 1e-2, 5.0),
    "k1e6": ("1e-3", "1", 10**6, "1e-6", 1e-3, 10.0),
}


def _peer(q: float, s: float, k: int, d: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k))
    return float(acc.get_epsilon(d))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--case", choices=sorted(CASES), action="append")
    a = ap.parse_args(argv)
    ok = True
    for name in a.case or list(CASES):
        q, s, k, d, width, target = CASES[name]
        ours, theirs, res, peer = [], [], None, None
        for _ in range(max(1, a.runs)):
            t0 = time.perf_counter()
            res = dpsgd_eps(q, s, k, d, rel_tol=width, seconds=target or 60.0)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            peer = _peer(float(eval(q)), float(s), k, float(d))  # noqa: S307 - the literals above
            theirs.append(time.perf_counter() - t0)
        mine, other = statistics.median(ours), statistics.median(theirs)
        assert res is not None and peer is not None
        rel = res.enclosure.rel_width()
        limit = other if target is None else target
        met = rel <= width and mine <= limit
        ok &= met
        print(
            f"{name}: q={q} sigma={s} steps={k} delta={d}\n"
            f"  dpcert dpsgd.eps (certified) {res.enclosure.short(7)}  rel width {rel:.2e}  median {mine:.2f} s  "
            f"resolutions {res.runs}\n"
            f"  dp-accounting PLDAccountant (float, default grid) eps = {peer:.6f}  median {other:.2f} s\n"
            f"  ratio {mine / other:.2f}; target width <= {width:g} in <= "
            f"{'the peer' if target is None else f'{target:g} s'}: {'met' if met else 'MISSED'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
