"""Benchmark: the certified tight DP-SGD accounting (PLD) at issue 30's settings, beside the float accountants.

For each setting it prints dpcert's certified enclosure (ε(δ), or σ for the calibration row), its relative width
and wall time (one run: the certified run is the long one; ``--progress`` sends its progress to stderr), then
dp-accounting's ``PLDAccountant`` at its default grid (value and median time over ``--runs``), prv-accountant's
bracket [ε_lower, ε_upper] (its own ``eps_error = 0.01``, ``delta_error = δ/1000``, as Opacus sets them) and time,
the ratio dpcert time / dp-accounting time, and the row's target where the issue sets one. The calibration row
(σ for ε = 3 at the MNIST setting) compares with dp-accounting's ``calibrate_dp_mechanism`` and Opacus'
``get_noise_multiplier(accountant="prv")``. Peers' values are floats and prove nothing; a peer that refuses a
setting (prv-accountant at δ = 1e-15) is printed with its error. Exit status 1 if a target is missed.

    python benchmarks/bench_pld.py [--quick] [--runs 3] [--json] [--progress] [--seconds 120]

``--quick`` runs three small settings with one peer run each and a 30 s budget (a few minutes at most). The whole
table is long (every row asks for relative width 1e-3 or its target within ``--seconds``); do not run it on a
shared machine at full load.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from timing import median_time  # noqa: E402

from dpcert.gaussian.pld import dpsgd_eps, dpsgd_sigma  # noqa: E402

MNIST = ("256/60000", 14040)
#: the width asked of dpcert in a row with no target of its own
DEFAULT_WIDTH = 1e-3


@dataclass(frozen=True)
class Setting:
    """One row: ``sigma`` is None for the calibration row (then ``eps`` is the target ε)."""

    name: str
    q: str
    sigma: str | None
    steps: int
    delta: str
    eps: str | None = None
    width: float = DEFAULT_WIDTH  # the relative width asked of dpcert (the target's, when it has one)
    target: str = ""  # the target, in words
    seconds: float | None = None  # the time target (s), when it is absolute
    vs_peer: bool = False  # the time target is the peers' time (ratio <= 1)


SETTINGS = [
    Setting("MNIST", MNIST[0], "1.1", MNIST[1], "1e-5", target="width <= 1e-3, ratio <= 1", vs_peer=True),
    Setting(
        "MNIST sigma for eps=3",
        MNIST[0],
        None,
        MNIST[1],
        "1e-5",
        eps="3",
        target="width <= 1e-3, time <= a peer's",
        vs_peer=True,
    ),
    Setting("q=1e-4 sigma=1", "1e-4", "1", 10**4, "1e-5", width=1e-2, target="width <= 1e-2 in <= 5 s", seconds=5),
    Setting(
        "q=1e-3 sigma=1 k=1e6", "1e-3", "1", 10**6, "1e-6", width=1e-3, target="width <= 1e-3 in <= 10 s", seconds=10
    ),
    Setting("MNIST delta=1e-15", MNIST[0], "1.1", MNIST[1], "1e-15", width=1e-2, target="width <= 1e-2"),
    Setting("De et al. CIFAR-10", "4096/50000", "3", 2500, "1e-5"),
    Setting("opacus#643", "0.2", "3", 50, "1/48000"),
] + [Setting(f"q=0.01 sigma={s} k=1e{e}", "0.01", s, 10**e, "1e-5") for s in ("0.5", "1", "10") for e in (2, 3, 4, 5)]
QUICK = ("opacus#643", "q=0.01 sigma=0.5 k=1e2", "q=0.01 sigma=1 k=1e2")


def _dpa_eps(q: float, s: float, k: int, d: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k))
    return float(acc.get_epsilon(d))


def _prv_eps(q: float, s: float, k: int, d: float) -> tuple[float, float]:
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    acc = PRVAccountant(
        [PoissonSubsampledGaussianMechanism(q, s)], eps_error=0.01, delta_error=d / 1000, max_self_compositions=[k]
    )
    lo, _, hi = acc.compute_epsilon(d, [k])
    return float(lo), float(hi)


def _dpa_sigma(q: float, k: int, e: float, d: float) -> float:
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    def event(s: float) -> Any:
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k)

    return float(dpa.calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, event, e, d))


def _opacus_sigma(q: float, k: int, e: float, d: float) -> float:
    from opacus.accountants.utils import get_noise_multiplier

    return float(get_noise_multiplier(target_epsilon=e, target_delta=d, sample_rate=q, steps=k, accountant="prv"))


def _timed(fn: Any, runs: int) -> dict[str, Any]:
    """A peer's value and median time, or its refusal."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t, v = median_time(fn, max(1, runs))
    except ImportError as exc:
        return {"error": f"not installed ({exc.name})"}
    except Exception as exc:  # noqa: BLE001 - a peer's refusal is a result, not a failure of the benchmark
        return {"error": f"{type(exc).__name__}: {exc}"[:100]}
    return {"value": v, "seconds": t}


def _import_peers() -> None:
    """Import the peers once before any timing (their import, seconds for some, is not their accounting time)."""
    for name in ("dp_accounting", "dp_accounting.pld.pld_privacy_accountant", "prv_accountant", "opacus.accountants"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                __import__(name)
        except ImportError:
            pass


def run(st: Setting, runs: int, budget: float, progress: Any) -> dict[str, Any]:
    """One row: dpcert's certified run and the peers'."""
    qf, df = float(Fraction(st.q)), float(Fraction(st.delta))
    t0 = time.perf_counter()
    if st.sigma is None:
        assert st.eps is not None
        res = dpsgd_sigma(st.q, st.steps, st.eps, st.delta, rel_tol=st.width, seconds=budget, progress=progress)
    else:
        res = dpsgd_eps(st.q, st.sigma, st.steps, st.delta, rel_tol=st.width, seconds=budget, progress=progress)
    took = time.perf_counter() - t0
    enc = res.enclosure
    rec: dict[str, Any] = {
        "setting": st.name,
        "q": st.q,
        "sigma": st.sigma,
        "steps": st.steps,
        "delta": st.delta,
        "eps": st.eps,
        "quantity": "sigma" if st.sigma is None else "eps",
        "enclosure": enc.to_json(12),
        "rel_width": enc.rel_width(),
        "seconds": took,
        "resolution": res.resolution,
        "limited_by": res.limited_by,
        "target": st.target,
        "peers": {},
    }
    if st.sigma is None:
        ef = float(Fraction(st.eps or "0"))
        rec["peers"]["dp_accounting"] = _timed(lambda: _dpa_sigma(qf, st.steps, ef, df), runs)
        rec["peers"]["opacus_prv"] = _timed(lambda: _opacus_sigma(qf, st.steps, ef, df), runs)
    else:
        sf = float(Fraction(st.sigma))
        rec["peers"]["dp_accounting"] = _timed(lambda: _dpa_eps(qf, sf, st.steps, df), runs)
        rec["peers"]["prv_accountant"] = _timed(lambda: _prv_eps(qf, sf, st.steps, df), runs)
    dpa = rec["peers"]["dp_accounting"]
    rec["ratio"] = took / dpa["seconds"] if "seconds" in dpa and dpa["seconds"] > 0 else None
    peer_times = [p["seconds"] for p in rec["peers"].values() if "seconds" in p]
    met = None
    if st.target:
        met = rec["rel_width"] is not None and rec["rel_width"] <= st.width
        if st.seconds is not None:
            met = met and took <= st.seconds
        if st.vs_peer:
            met = met and bool(peer_times) and took <= max(peer_times)
    rec["met"] = met
    return rec


def _fmt_value(p: dict[str, Any]) -> tuple[str, str]:
    if "error" in p:
        return p["error"], ""
    v = p["value"]
    text = f"[{v[0]:.5f}, {v[1]:.5f}]" if isinstance(v, tuple) else f"{v:.5f}"
    return text, f"{p['seconds']:.2f}"


def print_table(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'setting':26s} {'dpcert (certified)':28s} {'width':>8s} {'time s':>7s}  {'dp-accounting':>13s} "
        f"{'time s':>7s}  {'prv / opacus':>20s} {'time s':>7s} {'ratio':>7s}  target"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        enc = f"[{float(r['enclosure']['lo']):.6g}, {float(r['enclosure']['hi']):.6g}]"
        width = f"{r['rel_width']:.1e}" if r["rel_width"] is not None else "inf"
        dv, dt = _fmt_value(r["peers"]["dp_accounting"])
        other = r["peers"].get("prv_accountant") or r["peers"].get("opacus_prv") or {"error": "-"}
        pv, pt = _fmt_value(other)
        ratio = f"{r['ratio']:.1f}x" if r["ratio"] is not None else "-"
        verdict = "" if r["met"] is None else ("met" if r["met"] else "MISSED")
        target = f"{r['target']}: {verdict}" if r["target"] else ""
        print(
            f"{r['setting']:26s} {enc:28s} {width:>8s} {r['seconds']:7.1f}  {dv[:13]:>13s} {dt:>7s}  "
            f"{pv[:20]:>20s} {pt:>7s} {ratio:>7s}  {target}"
        )
    print("\nwidth: dpcert's relative width; ratio: dpcert time / dp-accounting time; peers' values are floats.")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    ap.add_argument("--runs", type=int, default=3, help="peer runs (median)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--seconds", type=float, help="dpcert's budget per row (default 120, with --quick 30)")
    a = ap.parse_args(argv)
    settings = [s for s in SETTINGS if not a.quick or s.name in QUICK]
    _import_peers()
    rows = []
    for st in settings:
        say = (lambda m, n=st.name: print(f"  {n}: {m}", file=sys.stderr, flush=True)) if a.progress else None
        budget = a.seconds if a.seconds is not None else (30.0 if a.quick else 120.0)
        rows.append(run(st, 1 if a.quick else a.runs, budget, say))
    if a.json:
        print(json.dumps(rows, indent=2))
    else:
        print_table(rows)
    return 0 if all(r["met"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
