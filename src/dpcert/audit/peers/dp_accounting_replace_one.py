"""dp-accounting under ``REPLACE_ONE``: which of its two accountants is right about the noise multiplier's
sensitivity.

dp-accounting's events state their noise relative to a norm bound C on each record's contribution
(``GaussianDpEvent(noise_multiplier)``: noise standard deviation noise_multiplier·C; ``LaplaceDpEvent``: scale
noise_multiplier·C). Replacing one record moves a sum of such contributions by up to 2C (one contribution leaves,
another arrives), so under ``REPLACE_ONE`` the event is the mechanism of sensitivity 2 in units of C: dpcert's
``gaussian.*`` and ``laplace.*`` at ``sensitivity=2`` and σ (or scale) = noise_multiplier. Its PLD accountant
composes that (a shift of 2); its RDP accountant composes sensitivity 1, the add/remove mechanism, and so answers
the add/remove ε under the replace-one name (google/differential-privacy#378). A case at ``sensitivity=2`` is asked
of both accountants as the ``REPLACE_ONE`` event of noise multiplier σ; the certified enclosure says which is right
and by how much.
"""

from __future__ import annotations

from typing import Any

from dpcert.audit.peers._common import doubles
from dpcert.audit.peers.adapter import Call, not_run

__all__ = ["calls"]

_NOTE = "REPLACE_ONE: a replaced record moves the sum by twice the norm bound (sensitivity 2)"


def calls(case: Any) -> list[Call]:
    import dp_accounting as dpa
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    q = case.quantity
    if q not in ("gaussian.eps", "gaussian.delta", "laplace.eps", "laplace.delta"):
        return []
    d = doubles(case)
    if d["sensitivity"] != 2 or d["k"] != 1:
        return []
    rel = dpa.NeighboringRelation.REPLACE_ONE
    if q.startswith("gaussian."):
        name, event = "GaussianDpEvent(sigma)", dpa.GaussianDpEvent(d["sigma"])
    else:
        name, event = "LaplaceDpEvent(scale)", dpa.LaplaceDpEvent(d["scale"])
    if q.endswith(".eps"):
        get, what = (lambda a: a.get_epsilon(d["delta"])), "get_epsilon(delta)"
    else:
        get, what = (lambda a: a.get_delta(d["eps"])), "get_delta(eps)"
    out: list[Call] = []
    for label, make in (
        ("PLDAccountant", lambda: PLDAccountant(rel)),
        ("RdpAccountant", lambda: RdpAccountant(neighboring_relation=rel)),
    ):
        function = f"{label}(REPLACE_ONE).compose({name}).{what}"
        if not make().supports(event):
            out.append(not_run(function, "upper", f"not run: dp-accounting's {label} does not support it"))
        else:
            out.append(Call(function, "upper", lambda make=make: get(make().compose(event)), note=_NOTE))
    return out
