"""prv-accountant (Microsoft): privacy random variables composed by FFT, with error bars (a bracket)."""

from __future__ import annotations

from typing import Any

from dpcert.audit.peers._common import MAX_RDP_ORDER, TOO_MANY_ORDERS, doubles
from dpcert.audit.peers.adapter import Call, Peer, not_run

__all__ = ["PEER"]

#: The accuracy asked of the accountant: ``eps_error`` and ``delta_error`` (at most 1/1000 of a target δ).
EPS_ERROR = 0.01
DELTA_ERROR = 1e-10
#: Pure-DP compositions beyond these sizes are not run: the accountant's domain grows with k·ε (k = 10^5 at
#: ε = 0.01 took 240 s, k = 1000 at ε = 1 took 20 s on the development machine).
MAX_K, MAX_K_EPS = 2000, 100
#: Gaussian compositions beyond this are not run (the accountant's domain grows with √k).
MAX_K_GAUSS = 10_000


def calls(case: Any) -> list[Call]:
    from prv_accountant import PRVAccountant
    from prv_accountant.other_accountants import RDP
    from prv_accountant.privacy_random_variables import (
        GaussianMechanism,
        PoissonSubsampledGaussianMechanism,
        PureDPMechanism,
    )

    q, d = case.quantity, doubles(case)

    def accountant(prv: Any, k: int, delta: float | None = None) -> Any:
        de = DELTA_ERROR if delta is None else min(DELTA_ERROR, delta / 1000)
        return PRVAccountant(prvs=prv, eps_error=EPS_ERROR, delta_error=de, max_self_compositions=k)

    out: list[Call] = []
    too_big = q.startswith("composition.kov.") and (d["k"] > MAX_K or d["k"] * d["eps"] > MAX_K_EPS)
    if q.startswith("gaussian.") and d.get("k", 1) > MAX_K_GAUSS:
        return [not_run(f"PRVAccountant(GaussianMechanism(sigma)) ({q})", "bracket", f"not run: k > {MAX_K_GAUSS}")]
    if q == "composition.kov.delta" and too_big:
        out.append(
            not_run(
                "PRVAccountant(PureDPMechanism(eps)).compute_delta(eps_g, [k])",
                "bracket",
                f"not run: k > {MAX_K} or k*eps > {MAX_K_EPS} (cost)",
            )
        )
    elif q == "composition.kov.eps" and too_big:
        out.append(
            not_run(
                "PRVAccountant(PureDPMechanism(eps)).compute_epsilon(delta, [k])",
                "bracket",
                f"not run: k > {MAX_K} or k*eps > {MAX_K_EPS} (cost)",
            )
        )
    elif q == "composition.kov.delta":
        k = d["k"]
        out.append(
            Call(
                "PRVAccountant(PureDPMechanism(eps)).compute_delta(eps_g, [k])",
                "bracket",
                lambda: accountant(PureDPMechanism(d["eps"]), k).compute_delta(d["eps_g"], [k]),
            )
        )
    elif q == "composition.kov.eps":
        k = d["k"]
        out.append(
            Call(
                "PRVAccountant(PureDPMechanism(eps)).compute_epsilon(delta, [k])",
                "bracket",
                lambda: accountant(PureDPMechanism(d["eps"]), k, d["delta"]).compute_epsilon(d["delta"], [k]),
            )
        )
    elif q == "gaussian.delta" and d["sensitivity"] == 1:
        k = d["k"]
        out.append(
            Call(
                "PRVAccountant(GaussianMechanism(sigma)).compute_delta(eps, [k])",
                "bracket",
                lambda: accountant(GaussianMechanism(d["sigma"]), k).compute_delta(d["eps"], [k]),
            )
        )
    elif q == "gaussian.eps" and d["sensitivity"] == 1:
        k = d["k"]
        out.append(
            Call(
                "PRVAccountant(GaussianMechanism(sigma)).compute_epsilon(delta, [k])",
                "bracket",
                lambda: accountant(GaussianMechanism(d["sigma"]), k, d["delta"]).compute_epsilon(d["delta"], [k]),
            )
        )
    elif q == "sgm.delta":
        prv = PoissonSubsampledGaussianMechanism(d["q"], d["sigma"])
        out.append(
            Call(
                "PRVAccountant(PoissonSubsampledGaussianMechanism(q, sigma)).compute_delta(eps, [1])",
                "bracket",
                lambda: accountant(prv, 1).compute_delta(d["eps"], [1]),
                note="remove direction only",
            )
        )
    elif q == "sgm.rdp":
        out.append(
            Call(
                "PoissonSubsampledGaussianMechanism(q, sigma).rdp(alpha)",
                "upper",
                lambda: float(PoissonSubsampledGaussianMechanism(d["q"], d["sigma"]).rdp(d["alpha"])),
            )
        )
    elif q == "dpsgd.rdp.eps" and d["conversion"] == "cks" and d["max_order"] > MAX_RDP_ORDER:
        out.append(not_run("other_accountants.RDP(orders=2..max_order)", "upper", TOO_MANY_ORDERS))
    elif q == "dpsgd.rdp.eps" and d["conversion"] == "cks":
        orders = list(range(2, d["max_order"] + 1))
        prv = PoissonSubsampledGaussianMechanism(d["q"], d["sigma"])
        out.append(
            Call(
                "other_accountants.RDP(orders=2..max_order).compute_epsilon(delta, [steps])",
                "upper",
                lambda: float(RDP([prv], orders=orders).compute_epsilon(d["delta"], [d["steps"]])[2]),
            )
        )
    return out


PEER = Peer("prv-accountant", "prv-accountant", "prv_accountant", calls, "pip install 'dpcert[peers]'")
