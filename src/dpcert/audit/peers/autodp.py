"""autodp: the analytic Gaussian mechanism (Balle–Wang [BW18]), RDP of the subsampled Gaussian, pure-DP composition."""

from __future__ import annotations

import math
from typing import Any

from dpcert.audit.peers._common import doubles
from dpcert.audit.peers.adapter import BRENTQ_RTOL, Call, Peer

__all__ = ["PEER"]


def calls(case: Any) -> list[Call]:
    from autodp import calibrator_zoo, dp_bank, mechanism_zoo, transformer_zoo

    q, d = case.quantity, doubles(case)
    out: list[Call] = []
    one_gaussian = q.startswith("gaussian.") and d.get("sensitivity") == 1 and d.get("k") == 1
    if q == "gaussian.sigma" and one_gaussian:

        def sigma() -> float:
            mech = calibrator_zoo.ana_gaussian_calibrator()(mechanism_zoo.ExactGaussianMechanism, d["eps"], d["delta"])
            return float(mech.params["sigma"])

        out.append(
            Call(
                "calibrator_zoo.ana_gaussian_calibrator()(ExactGaussianMechanism, eps, delta)",
                "value",
                sigma,
                accuracy_on=("gaussian.delta", "sigma", "delta", 1e-12),  # its default tol: |δ(σ) − δ| <= 1e-12
            )
        )
    elif q == "gaussian.eps" and one_gaussian:
        out.append(
            Call(
                "dp_bank.get_eps_ana_gaussian(sigma, delta)",
                "value",
                lambda: float(dp_bank.get_eps_ana_gaussian(d["sigma"], d["delta"])),
                abs_tol=2e-12,  # scipy root_scalar's default brentq xtol, which it uses
                rel_tol=BRENTQ_RTOL,
            )
        )
    elif q == "gaussian.delta" and one_gaussian:
        out.append(
            Call(
                "exp(dp_bank.get_logdelta_ana_gaussian(sigma, eps))",
                "value",
                lambda: math.exp(dp_bank.get_logdelta_ana_gaussian(d["sigma"], d["eps"])),
            )
        )
    elif q == "composition.kov.eps":

        def composed() -> float:
            mech = transformer_zoo.Composition()([mechanism_zoo.PureDP_Mechanism(eps=d["eps"])], [d["k"]])
            return float(mech.get_approxDP(d["delta"]))

        out.append(Call("Composition()([PureDP_Mechanism(eps)], [k]).get_approxDP(delta)", "upper", composed))
    elif q == "sgm.rdp":

        def rdp() -> float:
            sample = transformer_zoo.AmplificationBySampling(PoissonSampling=True)
            mech = sample(mechanism_zoo.GaussianMechanism(sigma=d["sigma"]), d["q"], improved_bound_flag=True)
            return float(mech.RenyiDP(d["alpha"]))

        out.append(
            Call(
                "AmplificationBySampling(PoissonSampling=True)(GaussianMechanism(sigma), q).RenyiDP(alpha)",
                "upper",
                rdp,
            )
        )
    return out


PEER = Peer("autodp", "autodp", "autodp", calls, "pip install 'dpcert[peers]'")
