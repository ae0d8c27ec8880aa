"""Benchmark: certified Gaussian mechanism and DP-SGD (RDP route) beside dp-accounting, autodp and prv-accountant.

Prints, for each case, the median wall time of dpcert's certified value and of each peer's float value computing
the same number, their ratio, the values, and whether issue 20's targets are met: each Gaussian quantity
(gaussian.delta/eps/sigma and the heterogeneous gaussian.composed.delta/eps) under 5 ms certified, sgm.rdp at an
integer order <= 256 under 10 ms and at a real order under 50 ms, dpsgd.rdp.eps over every integer order up to 10^4
under 1 s. The real-order search of dpsgd.rdp.eps (orders=real) is timed too, with no target. All medians and ratios
come from one run. Exit status 1 if a target is missed.

    python benchmarks/bench_gaussian.py [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from timing import median_time  # noqa: E402

from dpcert.gaussian import dpsgd_rdp  # noqa: E402
from dpcert.gaussian.composed import GAUSSIAN_COMPOSED_DELTA, GAUSSIAN_COMPOSED_EPS  # noqa: E402
from dpcert.gaussian.dpsgd_rdp import dpsgd_rdp_eps  # noqa: E402
from dpcert.gaussian.mechanism import GAUSSIAN_DELTA, GAUSSIAN_EPS, GAUSSIAN_SIGMA  # noqa: E402
from dpcert.gaussian.sgm import SGM_RDP  # noqa: E402


def _peers() -> dict:
    out: dict = {}
    warnings.simplefilter("ignore")  # the peers' deprecation notices
    try:
        from dp_accounting import dp_event, gaussian_mechanism
        from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss
        from dp_accounting.rdp import rdp_privacy_accountant as rdpa

        out["dp_accounting"] = (dp_event, gaussian_mechanism, rdpa, GaussianPrivacyLoss)
    except ImportError:
        pass
    try:
        from autodp.calibrator_zoo import ana_gaussian_calibrator
        from autodp.mechanism_zoo import ExactGaussianMechanism, NoisySGD_Mechanism

        out["autodp"] = (ana_gaussian_calibrator(), ExactGaussianMechanism, NoisySGD_Mechanism)
    except ImportError:
        pass
    try:
        from prv_accountant import PoissonSubsampledGaussianMechanism
        from prv_accountant.other_accountants import RDP

        out["prv_accountant"] = (PoissonSubsampledGaussianMechanism, RDP)
    except ImportError:
        pass
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    runs = max(3, a.runs)
    peers = _peers()
    rows: list[dict] = []

    def row(group, case, target, fn, *others):
        """One dpcert case and every peer ``(name, fn)`` given (``None`` entries are the peers not installed)."""
        t, value = median_time(fn, runs)
        rec = {"group": group, "case": case, "dpcert_s": t, "dpcert": value, "target_s": target, "peers": []}
        for other in others:
            if other is None:
                continue
            name, peer_fn = other
            pt, pv = median_time(peer_fn, runs)
            rec["peers"].append({"peer": name, "peer_s": pt, "peer_value": pv, "ratio": t / pt if pt > 0 else None})
        rec["ok"] = target is None or t <= target
        rows.append(rec)

    dpa = peers.get("dp_accounting")
    ad = peers.get("autodp")
    prv = peers.get("prv_accountant")

    # Gaussian mechanism (sigma, eps, delta as the peers take them)
    for eps, sigma in (("1", "1"), ("4", "0.5"), ("40", "1")):
        ef, sf = float(eps), float(sigma)
        row(
            "gaussian.delta",
            f"eps={eps} sigma={sigma}",
            0.005,
            lambda e=eps, s=sigma: GAUSSIAN_DELTA.enclose(eps=e, sigma=s, rel_tol=1e-15, abs_tol=0).short(12),
            dpa and ("dp_accounting GaussianPrivacyLoss", lambda e=ef, s=sf: dpa[3](s).get_delta_for_epsilon(e)),
        )
    for delta, sigma in (("1e-5", "1"), ("1e-15", "2"), ("1e-300", "1")):
        df, sf = float(delta), float(sigma)
        row(
            "gaussian.eps",
            f"delta={delta} sigma={sigma}",
            0.005,
            lambda d=delta, s=sigma: GAUSSIAN_EPS.enclose(delta=d, sigma=s, rel_tol=1e-12).short(12),
            dpa and ("dp_accounting get_epsilon_gaussian", lambda d=df, s=sf: dpa[1].get_epsilon_gaussian(s, d)),
            ad and ("autodp ExactGaussianMechanism", lambda d=df, s=sf: ad[1](sigma=s).get_approxDP(d)),
        )
    for eps, delta in (("1", "1e-5"), ("1", "1e-15"), ("50", "1e-6")):
        ef, df = float(eps), float(delta)
        row(
            "gaussian.sigma",
            f"eps={eps} delta={delta}",
            0.005,
            lambda e=eps, d=delta: GAUSSIAN_SIGMA.enclose(eps=e, delta=d, rel_tol=1e-12).short(12),
            dpa and ("dp_accounting get_sigma_gaussian", lambda e=ef, d=df: dpa[1].get_sigma_gaussian(e, d)),
            ad and ("autodp ana_gaussian_calibrator", lambda e=ef, d=df: ad[0](ad[1], e, d).params["sigma"]),
        )

    # heterogeneous composition: the peer evaluates the same closed form at the composed sigma = 1/mu (float)
    for eps, sigmas, sens in (("1", "1,2,3", "1"), ("0.5", "0.7,5,12.5,1.1", "1,2,0.5,3")):
        s = [float(x) for x in sigmas.split(",")]
        d = [float(x) for x in sens.split(",")] * (len(s) if "," not in sens else 1)
        sigma_eff = 1 / math.sqrt(sum((di / si) ** 2 for di, si in zip(d, s, strict=True)))
        row(
            "gaussian.composed",
            f"delta: eps={eps} sigmas={sigmas} sens={sens}",
            0.005,
            lambda e=eps, s=sigmas, d=sens: GAUSSIAN_COMPOSED_DELTA.enclose(
                eps=e, sigmas=s, sensitivities=d, rel_tol=1e-15
            ).short(12),
            dpa
            and (
                "dp_accounting GaussianPrivacyLoss at 1/mu",
                lambda e=float(eps), se=sigma_eff: dpa[3](se).get_delta_for_epsilon(e),
            ),
        )
        row(
            "gaussian.composed",
            f"eps: delta=1e-5 sigmas={sigmas} sens={sens}",
            0.005,
            lambda s=sigmas, d=sens: GAUSSIAN_COMPOSED_EPS.enclose(
                delta="1e-5", sigmas=s, sensitivities=d, rel_tol=1e-12
            ).short(12),
            dpa
            and (
                "dp_accounting get_epsilon_gaussian at 1/mu",
                lambda se=sigma_eff: dpa[1].get_epsilon_gaussian(se, 1e-5),
            ),
        )

    # sgm.rdp at integer and real orders (dp_accounting's fractional series sums |terms|: an upper bound; autodp
    # bounds the subsampled RDP through its amplification-by-sampling transformer)
    peer = None
    if dpa:
        from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian as peer
    for q, sigma, alpha, target in (
        ("0.01", "1", "2", 0.010),
        ("0.01", "1", "32", 0.010),
        ("0.01", "1", "256", 0.010),
        ("256/60000", "1.1", "256", 0.010),
        ("0.01", "1", "2.5", 0.050),
        ("0.01", "1", "1.0001", 0.050),
        ("256/60000", "1.1", "7.5", 0.050),
    ):
        qf, sf, af = float(Fraction(q)), float(Fraction(sigma)), float(Fraction(alpha))
        autodp_mech = ad[2](prob=qf, sigma=sf, niter=1) if ad else None
        row(
            "sgm.rdp" if Fraction(alpha).denominator == 1 else "sgm.rdp (real)",
            f"q={q} sigma={sigma} alpha={alpha}",
            target,
            lambda q=q, s=sigma, a=alpha: SGM_RDP.enclose(q=q, sigma=s, alpha=a, rel_tol=1e-15).short(12),
            peer
            and (
                "dp_accounting _compute_rdp_poisson_subsampled_gaussian",
                lambda qf=qf, sf=sf, a=af, peer=peer: float(peer(qf, sf, [a])[0]),
            ),
            ad and ("autodp NoisySGD_Mechanism(niter=1).RenyiDP", lambda m=autodp_mech, a=af: float(m.RenyiDP(a))),
            prv
            and (
                "prv_accountant PoissonSubsampledGaussianMechanism.rdp",
                lambda qf=qf, sf=sf, a=af: float(prv[0](noise_multiplier=sf, sampling_probability=qf).rdp(a)),
            ),
        )

    # dpsgd.rdp.eps over every integer order 2..10^4, and the real-order search (no target)
    for q, sigma, steps, delta in (
        ("0.01", "1", 1000, "1e-5"),
        ("256/60000", "1.1", 14040, "1e-5"),
        ("0.00033", "4", 10000, "1.13e-18"),
        ("0.001", "50", 10, "1e-5"),  # the optimum sits at the order bound 10^4
    ):
        qf, sf, df = float(Fraction(q)), float(Fraction(sigma)), float(Fraction(delta))

        def dpa_eps(qf=qf, sf=sf, steps=steps, df=df):
            dp_event, _, rdpa, _ = dpa
            acc = rdpa.RdpAccountant()  # its default orders (1.25 ... 63, 128, 256, 512, 1024)
            acc.compose(dp_event.PoissonSampledDpEvent(qf, dp_event.GaussianDpEvent(sf)), steps)
            return acc.get_epsilon_and_optimal_order(df)

        def prv_eps(qf=qf, sf=sf, steps=steps, df=df):
            mech, rdp = prv
            return rdp([mech(noise_multiplier=sf, sampling_probability=qf)]).compute_epsilon(df, [steps])[2]

        others = (
            dpa and ("dp_accounting RdpAccountant (default orders)", dpa_eps),
            ad and ("autodp NoisySGD_Mechanism", lambda qf=qf, sf=sf, t=steps, d=df: ad[2](qf, sf, t).get_approxDP(d)),
            prv and ("prv_accountant RDP (its default orders)", prv_eps),
        )
        row(
            "dpsgd.rdp.eps",
            f"q={q} sigma={sigma} steps={steps} delta={delta}",
            1.0,
            lambda q=q, s=sigma, t=steps, d=delta: (
                (r := dpsgd_rdp_eps(q, s, t, d, rel_tol=1e-12)).enclosure.short(12),
                r.order,
            ),
            *others,
        )
        if steps >= 1000:
            row(
                "dpsgd.rdp.eps (real)",
                f"q={q} sigma={sigma} steps={steps} delta={delta}",
                None,
                lambda q=q, s=sigma, t=steps, d=delta: (
                    dpsgd_rdp._REAL_CACHE.clear(),  # every run searches afresh (the chosen order is cached)
                    (r := dpsgd_rdp_eps(q, s, t, d, orders="real", rel_tol=1e-12)).enclosure.short(12),
                    str(r.order),
                )[1:],
                others[0],
            )

    if a.json:
        print(json.dumps(rows, indent=2, default=str))
    else:
        print(f"median of {runs} runs; dpcert certified vs peer float (evidence only); ms; ratio = dpcert/peer")
        for r in rows:
            flag = "no target" if r["target_s"] is None else ("ok" if r["ok"] else "MISSED")
            target = "" if r["target_s"] is None else f"target {1e3 * r['target_s']:.0f} ms "
            print(f"{r['group']:<20} {r['case']:<46} {1e3 * r['dpcert_s']:9.3f} ms ({target}{flag}) -> {r['dpcert']}")
            for p in r["peers"]:
                ratio = f"{p['ratio']:.3g}x" if p["ratio"] is not None else "n/a"
                print(f"{'':<20}   {p['peer']:<58} {1e3 * p['peer_s']:9.3f} ms ratio {ratio:>8} -> {p['peer_value']}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
