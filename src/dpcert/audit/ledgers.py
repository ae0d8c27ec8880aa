"""Which ends of dpcert's enclosure of a ledger's ε or δ bound the *mechanism*, and so may place a peer's answer.

``accounting.eps`` and ``accounting.delta`` enclose the ε(δ) or δ(ε) of the dominating pairs dpcert composes
(:mod:`dpcert.accounting.losses`), or of a certified RDP curve (:mod:`dpcert.accounting.rdp`). Their upper end
always bounds the mechanism's value from above. Whether their lower end bounds it from below is the accountant's
to say, where it builds each pair: :meth:`dpcert.accounting.accountant.Accountant.lower_end_bounds_mechanism`
(the reasoning, event by event, is in the module docstring of :mod:`dpcert.accounting.losses`, "Which pairs are
attained"). The audit keeps no list of its own.

Where the lower end is not the mechanism's (an RDP answer, or a proved pair that is not attained, such as Poisson
sampling under replace-one or the fixed-size samplers), the audit places a peer against [0, hi]: an answer above
hi is ``loose`` by a proved margin, and one below it is ``inside``, never ``unsafe``. A ledger the audit cannot
read, or one no certified method covers, claims nothing below.
"""

from __future__ import annotations

from typing import Any

__all__ = ["lower_end_proved", "UPPER_ONLY_NOTE"]

#: The note of a row placed against an upper end only.
UPPER_ONLY_NOTE = (
    "dpcert certifies an upper end only here (RDP, or a proved pair that is not tight): placed against [0, hi], "
    "so an answer below hi is inside, never unsafe"
)


def lower_end_proved(quantity: str, inputs: dict[str, Any]) -> bool:
    """Whether the lower end of dpcert's enclosure of ``quantity`` at ``inputs`` bounds the mechanism's value:
    always, except for the ledger quantities, where the accountant says
    (:meth:`~dpcert.accounting.accountant.Accountant.lower_end_bounds_mechanism`)."""
    if quantity not in ("accounting.eps", "accounting.delta"):
        return True
    from dpcert.accounting.accountant import Accountant
    from dpcert.accounting.eventfile import loads_events
    from dpcert.errors import InvalidParameter

    events = inputs.get("events")
    if not isinstance(events, (list, tuple)) or len(events) != 1 or not isinstance(events[0], str):
        return False  # a named ledger or anything else: claim nothing below
    try:
        acc = Accountant(str(inputs.get("neighboring", "add_remove"))).compose(loads_events(events[0], where="events"))
    except InvalidParameter:
        return False  # unreadable or refused: no enclosure, nothing claimed below
    return acc.lower_end_bounds_mechanism()
