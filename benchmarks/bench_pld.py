"""Benchmark: the certified tight DP-SGD ε (PLD) against dp-accounting's PLD accountant and prv-accountant.

Issue 20's targets: ``dpsgd.eps`` for q = 0.01, σ = 1, δ = 1e-5, k = 1000 at relative width <= 1 % in under 60 s,
and the TF Privacy MNIST run (q = 256/60000, σ = 1.1, 14040 steps, δ = 1e-5) at <= 1 % in under 5 minutes. For
each case it prints dpcert's certified enclosure, its relative width and wall time (one run: the certified run is
long; the progress goes to stderr with ``--progress``), and each peer's float value and time (median of
``--runs``), the time ratio, and whether the peer's value lies inside the certified enclosure. Peers' values are
floats and prove nothing. Exit status 1 if a target is missed.

    python benchmarks/bench_pld.py [--runs 3] [--json] [--progress] [--rel-tol 0.001]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from timing import median_time  # noqa: E402

from dpcert.gaussian.pld import dpsgd_eps  # noqa: E402

CASES = [
    # name, q, sigma, steps, delta, target seconds
    ("q=0.01 sigma=1 k=1000", "0.01", "1", 1000, "1e-5", 60.0),
    ("MNIST q=256/60000 sigma=1.1 k=14040", "256/60000", "1.1", 14040, "1e-5", 300.0),
]
REL_TOL = 0.01


def _dp_accounting_pld(q: float, s: float, k: int, d: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k))
    return float(acc.get_epsilon(d))


def _dp_accounting_pld_default(q: float, s: float, k: int, d: float) -> float:
    """dp-accounting's PLDAccountant at its default grid (the issue-30 speed reference)."""
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k))
    return float(acc.get_epsilon(d))


def _dp_accounting_rdp(q: float, s: float, k: int, d: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.rdp import rdp_privacy_accountant

    acc = rdp_privacy_accountant.RdpAccountant()
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k))
    return float(acc.get_epsilon(d))


def _prv(q: float, s: float, k: int, d: float) -> float:
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = PRVAccountant(
        [PoissonSubsampledGaussianMechanism(q, s)], eps_error=0.01, delta_error=d / 1000, max_self_compositions=[k]
    )
    lo, est, hi = acc.compute_epsilon(d, [k])
    return float(hi)  # its upper estimate


PEERS = {
    "dp_accounting PLD": _dp_accounting_pld,
    "dp_accounting PLD default": _dp_accounting_pld_default,
    "dp_accounting RDP": _dp_accounting_rdp,
    "prv_accountant": _prv,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--rel-tol", type=float, default=REL_TOL, help="dpcert's relative width (default 0.01)")
    a = ap.parse_args(argv)
    rows = []
    ok = True
    for name, q, s, k, d, target in CASES:
        say = (lambda m: print(f"  {m}", file=sys.stderr, flush=True)) if a.progress else None
        t0 = time.perf_counter()
        res = dpsgd_eps(q, s, k, d, rel_tol=a.rel_tol, seconds=target, progress=say)
        took = time.perf_counter() - t0
        enc = res.enclosure
        width = enc.rel_width()
        met = res.reached and width <= a.rel_tol and took <= target
        ok &= met
        rec = {
            "case": name,
            "enclosure": enc.to_json(12),
            "rel_width": width,
            "seconds": took,
            "resolution": res.resolution,
            "target_s": target,
            "target_rel_width": a.rel_tol,
            "met": met,
            "peers": {},
        }
        qf, sf, df = float(Fraction(q)), float(Fraction(s)), float(Fraction(d))
        for peer, fn in PEERS.items():
            try:
                pt, pv = median_time(lambda fn=fn, args=(qf, sf, k, df): fn(*args), max(1, a.runs))
            except ImportError:
                continue
            except Exception as exc:  # noqa: BLE001 - a peer's failure is reported, not fatal
                rec["peers"][peer] = {"error": f"{type(exc).__name__}: {exc}"[:120]}
                continue
            inside = enc.lo <= Fraction(pv) <= enc.hi
            rec["peers"][peer] = {"eps": pv, "seconds": pt, "ratio": took / pt if pt > 0 else None, "inside": inside}
        rows.append(rec)
    if a.json:
        print(json.dumps(rows, indent=2))
        return 0 if ok else 1
    for r in rows:
        lo, hi = r["enclosure"]["lo"], r["enclosure"]["hi"]
        print(f"{r['case']}, delta = 1e-5")
        print(
            f"  dpcert (certified) eps in [{lo}, {hi}]  rel width {r['rel_width']:.2e}  {r['seconds']:.1f} s  "
            f"(resolution {r['resolution']}; target <= {r['target_rel_width']:g} in < {r['target_s']:.0f} s: "
            f"{'met' if r['met'] else 'MISSED'})"
        )
        for peer, p in r["peers"].items():
            if "error" in p:
                print(f"  {peer:18s} {p['error']}")
                continue
            where = (
                "inside the enclosure"
                if p["inside"]
                else ("below it" if Fraction(p["eps"]) < Fraction(lo) else "above it")
            )
            print(f"  {peer:18s} eps = {p['eps']:.6f}  {p['seconds']:.2f} s  dpcert/peer {p['ratio']:.0f}x  ({where})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
