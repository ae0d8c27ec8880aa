"""Peer adapters: how each float accountant computes a dpcert quantity, if it does.

An adapter is a :class:`Peer`: a pip name, the module whose import says it is installed, and ``calls(case)``, the
list of :class:`Call` s of its API that compute the case's quantity (empty when it computes no such thing). A call
says what it claims (``upper``: an upper bound; ``value``: the value itself; ``bracket``: (lower, estimate,
upper)) and, when the peer is given something other than the case's inputs as doubles, which exact inputs dpcert
must enclose instead (``truth``).

Adapters import their peer only inside ``calls`` so that listing them costs nothing.
"""

from __future__ import annotations

from dpcert.audit.peers.adapter import BRENTQ_RTOL, Call, Peer, not_run

__all__ = ["Call", "Peer", "PEERS", "BRENTQ_RTOL", "not_run", "peer_names"]


def _peers() -> list[Peer]:
    from dpcert.audit.peers import autodp, dp_accounting, opacus, opendp, prv, tf_privacy

    return [dp_accounting.PEER, prv.PEER, autodp.PEER, opendp.PEER, tf_privacy.PEER, opacus.PEER]


#: The peers in report order.
PEERS: list[Peer] = _peers()


def peer_names() -> list[str]:
    """The names ``--peer`` accepts."""
    return [p.name for p in PEERS]
