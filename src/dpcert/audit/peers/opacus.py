"""Opacus (Meta): the RDP analysis of DP-SGD (``opacus.accountants.analysis.rdp``). Requires PyTorch, so it is not
in dpcert's ``peers`` extra; the adapter runs where Opacus is installed."""

from __future__ import annotations

from typing import Any

from dpcert.audit.peers._common import MAX_RDP_ORDER, TOO_MANY_ORDERS, doubles
from dpcert.audit.peers.adapter import Call, Peer, not_run

__all__ = ["PEER"]


def calls(case: Any) -> list[Call]:
    from opacus.accountants.analysis import rdp

    q, d = case.quantity, doubles(case)
    out: list[Call] = []
    if q == "sgm.rdp":
        out.append(
            Call(
                "analysis.rdp.compute_rdp(q, sigma, steps=1, orders=[alpha])",
                "upper",
                lambda: float(rdp.compute_rdp(q=d["q"], noise_multiplier=d["sigma"], steps=1, orders=[d["alpha"]])[0]),
            )
        )
    elif q == "dpsgd.rdp.eps" and d["conversion"] == "cks" and d["max_order"] > MAX_RDP_ORDER:
        out.append(not_run("analysis.rdp.get_privacy_spent(orders=2..max_order)", "upper", TOO_MANY_ORDERS))
    elif q == "dpsgd.rdp.eps" and d["conversion"] == "cks":
        orders = list(range(2, d["max_order"] + 1))

        def eps() -> float:
            curve = rdp.compute_rdp(q=d["q"], noise_multiplier=d["sigma"], steps=d["steps"], orders=orders)
            return float(rdp.get_privacy_spent(orders=orders, rdp=curve, delta=d["delta"])[0])

        out.append(Call("analysis.rdp.get_privacy_spent(orders=2..max_order, compute_rdp(...), delta)", "upper", eps))
    return out


PEER = Peer("opacus", "opacus", "opacus.accountants.analysis.rdp", calls, "pip install opacus (requires PyTorch)")
