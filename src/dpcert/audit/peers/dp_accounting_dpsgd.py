"""dp-accounting's DP-SGD answers: ``PoissonSampledDpEvent(q, GaussianDpEvent(σ))`` composed ``steps`` times by its
PLD and RDP accountants, under the neighbouring relation the case names.

A case of ``dpsgd.eps`` or ``dpsgd.delta`` names its relation by its ``neighboring`` input (``add_remove`` when the
quantity has none) and its sampling scheme by ``sampling`` (``poisson`` when it has none); the rows here are for
Poisson sampling, the only one both accountants take as this event. Under ``replace_one`` dp-accounting's RDP
accountant refuses a Poisson-sampled event (its ``supports`` says so): that row is listed, not run, with the
reason, so that no verdict is drawn from a call the peer does not offer.
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
    if q not in ("dpsgd.eps", "dpsgd.delta"):
        return []
    d = doubles(case)
    if d.get("sampling", "poisson") != "poisson":
        return []
    relation = d.get("neighboring", "add_remove")
    if relation not in RELATIONS:
        return []
    rel = getattr(dpa.NeighboringRelation, RELATIONS[relation])
    event = dpa.PoissonSampledDpEvent(d["q"], dpa.GaussianDpEvent(d["sigma"]))
    steps = d["steps"]
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
