"""Which ends of dpcert's enclosure of a ledger's ε or δ bound the *mechanism*, and so may place a peer's answer.

``accounting.eps`` and ``accounting.delta`` enclose the ε(δ) or δ(ε) of the dominating pairs dpcert composes
(:mod:`dpcert.accounting.losses`), or of a certified RDP curve (:mod:`dpcert.accounting.rdp`). Their upper end
always bounds the mechanism's value from above (a dominating pair's, or RDP's, value is at least the mechanism's).
Their lower end bounds it from below only when every pair is **tight**, that is, attained by some pair of
neighbouring datasets, for each direction composed:

* the additive events (``GaussianDpEvent``, ``LaplaceDpEvent``, ``DiscreteLaplaceDpEvent``,
  ``DiscreteGaussianDpEvent``), ``RandomizedResponseDpEvent`` and ``MixtureOfGaussiansDpEvent``: their pairs are the
  output laws at a worst pair of neighbours (the module docstring of :mod:`dpcert.accounting.losses`);
* ``PoissonSampledDpEvent`` under ``add_remove`` with a tight inner event (the remove and add mixtures are the
  output laws when the other records contribute nothing);
* ``SelfComposedDpEvent``, ``ComposedDpEvent`` and ``NoOpDpEvent`` of tight events: one fixed ordered pair of
  datasets realises each direction at every step, so the composed direction is attained too.

Everything else is an upper end only: ``PoissonSampledDpEvent`` under ``replace_one`` and the fixed-size samplers
(a proved pair that amplifies δ but not ε, far above the truth), and the RDP events (``ZCDpEvent``,
``SingleEpochTreeAggregationDpEvent``, ``RepeatAndSelectDpEvent``, and any ledger holding one, which the accountant
answers by RDP with the lower end 0). For those the audit places a peer against [0, hi]: an answer above hi is
``loose`` by a proved margin, and one below it is ``inside``, never ``unsafe``. The list errs on the safe side: an
event dpcert later proves tight stays upper-end-only here until it is added, which can hide a finding but never
make one up.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["TIGHT", "lower_end_proved", "UPPER_ONLY_NOTE"]

#: The events whose dpcert pair is attained under both relations where dpcert certifies them.
TIGHT = frozenset(
    {
        "GaussianDpEvent",
        "LaplaceDpEvent",
        "DiscreteLaplaceDpEvent",
        "DiscreteGaussianDpEvent",
        "RandomizedResponseDpEvent",
        "MixtureOfGaussiansDpEvent",
        "NoOpDpEvent",
    }
)
#: The note of a row placed against an upper end only.
UPPER_ONLY_NOTE = (
    "dpcert certifies an upper end only here (RDP, or a proved pair that is not tight): placed against [0, hi], "
    "so an answer below hi is inside, never unsafe"
)


def _tight(data: Any, neighboring: str) -> bool:
    if not isinstance(data, dict):
        return False
    kind = data.get("type")
    if kind in TIGHT:
        return True
    if kind == "PoissonSampledDpEvent":
        return neighboring == "add_remove" and _tight(data.get("event"), neighboring)
    if kind == "SelfComposedDpEvent":
        return _tight(data.get("event"), neighboring)
    if kind == "ComposedDpEvent":
        return all(_tight(e, neighboring) for e in data.get("events", []))
    return False


def lower_end_proved(quantity: str, inputs: dict[str, Any]) -> bool:
    """Whether the lower end of dpcert's enclosure of ``quantity`` at ``inputs`` bounds the mechanism's value
    (always, except for the ledger quantities, as the module docstring lists)."""
    if quantity not in ("accounting.eps", "accounting.delta"):
        return True
    events = inputs.get("events")
    if not isinstance(events, (list, tuple)) or len(events) != 1 or not isinstance(events[0], str):
        return False  # a named ledger or anything else: claim nothing below
    data = json.loads(events[0])
    if isinstance(data, list):
        data = {"type": "ComposedDpEvent", "events": data}
    return _tight(data, str(inputs.get("neighboring", "add_remove")))
