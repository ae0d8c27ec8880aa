"""Benchmark: certified σ calibration (``dpsgd.sigma``) beside Opacus' and dp-accounting's float calibrations.

Issue 30's target: σ for ε = 3 at the MNIST setting (q = 256/60000, 14,040 steps, δ = 1e-5), a certified bracket
at most 1e-3 wide (relative, as ``dpcert dpsgd sigma --rel-tol`` and the JSON ``"width"`` measure it: (σ_hi −
σ_lo)/σ_hi) in no more time than Opacus' ``get_noise_multiplier(accountant="prv")`` or dp-accounting's
``calibrate_dp_mechanism`` (PLDAccountant at its default grid). The three run alternately, ``--runs`` times each, in
one process; the medians are printed with dpcert's bracket and width, each peer's σ (a float, proving nothing), and
the ratio of dpcert's time to the faster peer's. A peer that is not installed is skipped. Exit status 1 if the
target is missed.

    python benchmarks/bench_calibrate.py [--runs 3] [--case mnist] [--progress]

``--route bisect`` times the previous calibration (certified bisection) instead, for the before/after comparison.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from fractions import Fraction
from typing import Any

from dpcert.gaussian.pld import dpsgd_sigma

CASES = {
    # name: q, steps, eps, delta, target relative width
    "mnist": ("256/60000", 14040, "3", "1e-5", 1e-3),
    "mnist-1pct": ("256/60000", 14040, "3", "1e-5", 1e-2),
}


def _opacus(q: float, k: int, e: float, d: float) -> float:
    from opacus.accountants.utils import get_noise_multiplier

    return float(get_noise_multiplier(target_epsilon=e, target_delta=d, sample_rate=q, steps=k, accountant="prv"))


def _dp_accounting(q: float, k: int, e: float, d: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    def event(s: float) -> Any:
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k)

    return float(dpa.calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, event, e, d))


PEERS = {
    "Opacus get_noise_multiplier(accountant='prv')": ("opacus", _opacus),
    "dp-accounting calibrate_dp_mechanism(PLDAccountant)": ("dp_accounting", _dp_accounting),
}


def _installed(module: str) -> bool:
    try:
        __import__(module)
    except Exception:  # noqa: BLE001 - a peer that cannot be imported is skipped
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--case", choices=sorted(CASES), action="append")
    ap.add_argument("--route", choices=("located", "bisect"), default="located")
    ap.add_argument("--progress", action="store_true", help="dpcert's probes on stderr")
    a = ap.parse_args(argv)
    progress = (lambda m: print(f"  {m}", file=sys.stderr)) if a.progress else None
    peers = {label: fn for label, (module, fn) in PEERS.items() if _installed(module)}
    ok = True
    for name in a.case or ["mnist"]:
        q, k, e, d, width = CASES[name]
        qf, ef, df = float(Fraction(q)), float(e), float(d)
        ours: list[float] = []
        theirs: dict[str, list[float]] = {label: [] for label in peers}
        values: dict[str, float] = {}
        res = None
        for _ in range(max(1, a.runs)):
            t0 = time.perf_counter()
            res = dpsgd_sigma(q, k, e, d, rel_tol=width, seconds=600, progress=progress, route=a.route)
            ours.append(time.perf_counter() - t0)
            for label, fn in peers.items():
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    values[label] = fn(qf, k, ef, df)
                theirs[label].append(time.perf_counter() - t0)
        assert res is not None
        mine = statistics.median(ours)
        rel = res.enclosure.rel_width()
        lo, hi = res.enclosure.decimal(10)
        print(f"{name}: q={q} steps={k} eps={e} delta={d}, target width <= {width:g}")
        print(
            f"  dpcert dpsgd.sigma ({a.route}, certified) [{lo}, {hi}]  width {rel:.2e}  median {mine:.2f} s  "
            f"resolutions {res.runs}"
        )
        medians = {label: statistics.median(ts) for label, ts in theirs.items()}
        for label, t in medians.items():
            print(f"  {label}: sigma = {values[label]:.6f}  median {t:.2f} s")
        if medians:
            fastest = min(medians, key=medians.__getitem__)
            met = rel <= width and mine <= medians[fastest]
            print(
                f"  ratio {mine / medians[fastest]:.2f} against the faster peer ({fastest.split()[0]}); "
                f"{'MET' if met else 'MISSED'}"
            )
        else:
            met = rel <= width
            print(f"  no peer installed; width {'MET' if met else 'MISSED'}")
        ok &= met
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
