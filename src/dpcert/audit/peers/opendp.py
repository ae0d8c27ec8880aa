"""OpenDP: privacy maps with directed rounding; zCDP of the Gaussian converted to (ε, δ) (needs ``contrib``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpcert.audit.peers._common import doubles, exact
from dpcert.audit.peers.adapter import Call, Peer

__all__ = ["PEER"]

#: Compositions of more measurements than this are not built (each is a Rust object).
MAX_K = 10_000


def calls(case: Any) -> list[Call]:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    q, d = case.quantity, doubles(case)
    space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
    out: list[Call] = []
    if q == "composition.simple.eps" and d["k"] <= MAX_K:
        k = d["k"]
        scale = float(1 / exact(case)["eps"])
        # the Laplace mechanism of scale b at sensitivity 1 is exactly (1/b)-DP, b the double given to OpenDP
        truth = ({"k": k, "eps": 1 / Fraction(scale)},)

        def composed() -> float:
            return float(dp.c.make_composition([dp.m.make_laplace(*space, scale=scale)] * k).map(1.0))

        out.append(Call("make_composition([make_laplace(scale=1/eps)] * k).map(1)", "upper", composed, truth))
    elif q in ("gaussian.eps", "gaussian.delta") and d["sensitivity"] == 1 and d["k"] <= MAX_K:
        k, sigma = d["k"], d["sigma"]

        def profile() -> Any:
            gauss = dp.m.make_gaussian(*space, scale=sigma)
            meas = gauss if k == 1 else dp.c.make_composition([gauss] * k)
            return dp.c.make_zCDP_to_approxDP(meas).map(1.0)

        if q == "gaussian.eps":
            out.append(
                Call(
                    "make_zCDP_to_approxDP(make_gaussian(scale=sigma) x k).map(1).epsilon(delta)",
                    "upper",
                    lambda: float(profile().epsilon(d["delta"])),
                )
            )
        else:
            out.append(
                Call(
                    "make_zCDP_to_approxDP(make_gaussian(scale=sigma) x k).map(1).delta(eps)",
                    "upper",
                    lambda: float(profile().delta(d["eps"])),
                )
            )
    return out


PEER = Peer("opendp", "opendp", "opendp.prelude", calls, "pip install 'dpcert[peers]'")
