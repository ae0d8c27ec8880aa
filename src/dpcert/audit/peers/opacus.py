"""Opacus (Meta): the RDP analysis of DP-SGD (``opacus.accountants.analysis.rdp``), its three accountants
(``RDPAccountant``, ``PRVAccountant``, ``GaussianAccountant``) and ``get_noise_multiplier`` with each. Requires
PyTorch, so it is not in dpcert's ``peers`` extra (``pip install "dpcert[opacus]"``); the adapter runs where Opacus
is installed.

Opacus accounts every run as Poisson sampling with add/remove neighbours, so it is asked only cases of that
scheme and relation. Each accountant is given the history ``[(sigma, q, steps)]`` as Opacus' own
``get_noise_multiplier`` gives it, and its ``get_epsilon(delta)`` is what a training script reports: an upper
bound is what it is used as, so every answer is placed as one. ``PRVAccountant.get_epsilon`` returns the upper end
of its error bars (``eps_error=0.01``, ``delta_error=delta/1000``); ``GaussianAccountant`` is the central-limit
approximation μ = q·sqrt(steps·(e^{1/σ²} − 1)), which Opacus itself warns can underestimate.
``get_noise_multiplier(accountant=...)`` returns the σ its accountant finds within ``epsilon_tolerance=0.01`` below
the target ε: a σ claimed sufficient, so one below the certified least σ is unsafe.
"""

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
    elif q in ("dpsgd.eps", "dpsgd.sigma") and _opacus_scheme(d):
        out += _accountant_calls(q, d)
    return out


def _opacus_scheme(d: dict[str, Any]) -> bool:
    """Whether a case is Poisson sampling with add/remove neighbours (its inputs, or their defaults)."""
    return d.get("sampling", "poisson") == "poisson" and d.get("neighboring", "add_remove") == "add_remove"


def _accountant_calls(q: str, d: dict[str, Any]) -> list[Call]:
    from opacus.accountants import GaussianAccountant, PRVAccountant, RDPAccountant
    from opacus.accountants.utils import get_noise_multiplier

    out: list[Call] = []
    if q == "dpsgd.eps":
        for cls in (RDPAccountant, PRVAccountant, GaussianAccountant):

            def eps(cls: Any = cls) -> float:
                acc = cls()
                acc.history = [(d["sigma"], d["q"], d["steps"])]
                return float(acc.get_epsilon(delta=d["delta"]))

            out.append(Call(f"{cls.__name__}: history [(sigma, q, steps)]; get_epsilon(delta)", "upper", eps))
    else:
        for mechanism in ("rdp", "prv", "gdp"):

            def sigma(mechanism: str = mechanism) -> float:
                return float(
                    get_noise_multiplier(
                        target_epsilon=d["eps"],
                        target_delta=d["delta"],
                        sample_rate=d["q"],
                        steps=d["steps"],
                        accountant=mechanism,
                    )
                )

            out.append(Call(f"get_noise_multiplier(eps, delta, q, steps, accountant={mechanism!r})", "upper", sigma))
    return out


PEER = Peer("opacus", "opacus", "opacus.accountants.analysis.rdp", calls, "pip install opacus (requires PyTorch)")
