"""dp-accounting's DP-SGD answers: ``PoissonSampledDpEvent(q, GaussianDpEvent(σ))`` composed ``steps`` times by its
PLD and RDP accountants, under the neighbouring relation the case names.

A case of ``dpsgd.eps``, ``dpsgd.delta`` or ``dpsgd.sigma`` names its relation by its ``neighboring`` input
(``add_remove`` when the quantity has none) and its sampling scheme by ``sampling`` (``poisson`` when it has none);
the rows here are for Poisson sampling, the only one both accountants take as this event. Under ``replace_one``
dp-accounting's RDP accountant refuses a Poisson-sampled event (its ``supports`` says so): that row is listed, not
run, with the reason, so that no verdict is drawn from a call the peer does not offer. ``dpsgd.sigma`` is asked of
``calibrate_dp_mechanism`` with each accountant: the σ it returns is claimed sufficient for (ε, δ), so one below the
certified least σ is unsafe.
"""

from __future__ import annotations

from typing import Any

from dpcert.audit.peers._common import doubles
from dpcert.audit.peers.adapter import Call, not_run

__all__ = ["calls", "RELATIONS", "MAX_STEPS_PLD"]

#: dpcert's neighbouring relations and dp-accounting's names for them.
RELATIONS = {"add_remove": "ADD_OR_REMOVE_ONE", "replace_one": "REPLACE_ONE"}
#: Above this many steps the PLD accountant is not asked (its self-composition's grid grows with √steps; 14040
#: steps at the MNIST setting take a few seconds).
MAX_STEPS_PLD = 100_000


def calls(case: Any) -> list[Call]:
    import dp_accounting as dpa
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    q = case.quantity
    if q not in ("dpsgd.eps", "dpsgd.delta", "dpsgd.sigma"):
        return []
    d = doubles(case)
    if d.get("sampling", "poisson") != "poisson":
        return []
    relation = d.get("neighboring", "add_remove")
    if relation not in RELATIONS:
        return []
    rel = getattr(dpa.NeighboringRelation, RELATIONS[relation])
    steps = d["steps"]
    if q == "dpsgd.sigma":
        return _calibrations(d, rel, RELATIONS[relation])
    event = dpa.PoissonSampledDpEvent(d["q"], dpa.GaussianDpEvent(d["sigma"]))
    if q == "dpsgd.eps":
        get, what = (lambda a: a.get_epsilon(d["delta"])), "get_epsilon(delta)"
    else:
        get, what = (lambda a: a.get_delta(d["eps"])), "get_delta(eps)"
    out: list[Call] = []
    pld = f"PLDAccountant({RELATIONS[relation]}).compose(PoissonSampled(Gaussian), steps).{what}"
    if steps > MAX_STEPS_PLD:
        out.append(not_run(pld, "upper", f"not run: steps > {MAX_STEPS_PLD}"))
    else:
        out.append(Call(pld, "upper", lambda: get(PLDAccountant(rel).compose(event, steps))))
    rdp = f"RdpAccountant({RELATIONS[relation]}).compose(PoissonSampled(Gaussian), steps).{what}"
    if not RdpAccountant(neighboring_relation=rel).supports(event):
        out.append(
            not_run(rdp, "upper", f"not run: dp-accounting's RdpAccountant does not support it under {relation}")
        )
    else:
        out.append(Call(rdp, "upper", lambda: get(RdpAccountant(neighboring_relation=rel).compose(event, steps))))
    return out


def _calibrations(d: dict[str, Any], rel: Any, relname: str) -> list[Call]:
    import dp_accounting as dpa
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    def event(sigma: float) -> Any:
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(d["q"], dpa.GaussianDpEvent(sigma)), d["steps"])

    out: list[Call] = []
    for label, make in (
        ("PLDAccountant", lambda: PLDAccountant(rel)),
        ("RdpAccountant", lambda: RdpAccountant(neighboring_relation=rel)),
    ):
        function = f"calibrate_dp_mechanism({label}({relname}), PoissonSampled(Gaussian(sigma)) x steps, eps, delta)"
        if not make().supports(event(1.0)):
            out.append(not_run(function, "upper", f"not run: dp-accounting's {label} does not support it"))
            continue

        def run(make: Any = make) -> float:
            return float(dpa.calibrate_dp_mechanism(make, event, d["eps"], d["delta"], dpa.LowerEndpointAndGuess(0, 1)))

        out.append(Call(function, "upper", run))
    return out
