"""``accounting.eps`` and ``accounting.delta``: the accountant's answers as named quantities.

An event ledger is an input like any other: ``events=FILE`` names an event file (:mod:`dpcert.accounting.eventfile`),
read once where the input is parsed and recorded as its canonical JSON text (so a certificate holds the events
themselves, never a path, and re-checking it reads no file); ``events=example`` is the ledger of the docs' example,
:data:`EXAMPLE`. ``neighboring`` is ``add_remove`` (default) or ``replace_one``. So ``dpcert eval accounting.eps
events=run.json delta=1e-5 neighboring=replace_one`` and ``dpcert claim accounting.eps … --at-most 2.5`` work as for
every quantity, and table rows may name an event file.

Both are *bracket* quantities: the PLD engine's enclosure narrows with the grid (about 4x per doubling of the
resolution), not with the ball precision; the ball evaluator runs one fixed grid per effort level, the bracket
evaluator refines within a time budget (:class:`dpcert.accounting.accountant.Accountant`).
"""

from __future__ import annotations

import functools
import json
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.accounting.accountant import Accountant
from dpcert.accounting.eventfile import event_of_json, loads_events, read_events
from dpcert.accounting.events import (
    ComposedDpEvent,
    DpEvent,
    GaussianDpEvent,
    LaplaceDpEvent,
    PoissonSampledDpEvent,
    SelfComposedDpEvent,
)
from dpcert.arith.ball import Enclosure
from dpcert.arith.exact import Exact, as_fraction
from dpcert.core.files import loads_json
from dpcert.core.params import choice, probability, real
from dpcert.core.quantity import Quantity
from dpcert.core.vocabulary import NEIGHBORING
from dpcert.errors import InvalidParameter
from dpcert.pld.accountant import ball_level, enclosure_ball

__all__ = ["EXAMPLE", "ACCOUNTING_EPS", "ACCOUNTING_DELTA", "QUANTITIES", "events_table", "ledger_of"]

#: The docs' example ledger (``events=example``): 100 steps of DP-SGD (Poisson rate 0.01, noise multiplier 1.1),
#: 100 more at noise multiplier 0.9, then 5 Laplace releases (noise multiplier 20).
EXAMPLE = ComposedDpEvent(
    [
        SelfComposedDpEvent(PoissonSampledDpEvent("0.01", GaussianDpEvent("1.1")), 100),
        SelfComposedDpEvent(PoissonSampledDpEvent("0.01", GaussianDpEvent("0.9")), 100),
        SelfComposedDpEvent(LaplaceDpEvent("20"), 5),
    ]
)

_NAMED = {"example": EXAMPLE}


def _canonical(event: DpEvent) -> tuple[str, ...]:
    return (json.dumps(event.to_json(), separators=(",", ":"), ensure_ascii=False),)


#: What the ``events`` input takes, in words (the end of every message refusing an inline ledger).
EVENTS_ALLOWED = (
    'an event file\'s path, example, or the events as JSON text: one event {"type": "<dp-accounting class name>", '
    "...its fields} or a list of events, as in an event file"
)


def _inline(text: str) -> DpEvent:
    """The event of a ledger given inline as JSON text (``events='[{"type": ...}]'``), refused naming the field
    by its path under ``events`` and saying what the input takes."""
    try:
        return loads_events(text, where=text)
    except InvalidParameter as exc:
        if exc.name == "events":  # invalid JSON, too deep, too long: the text as given
            raise InvalidParameter("events", text, f"{exc.allowed}; events takes {EVENTS_ALLOWED}") from None
        name = "events" + ("" if exc.name.startswith("[") else ".") + exc.name
        raise InvalidParameter(name, exc.value, exc.allowed) from None


def events_table(value: Any) -> tuple[str, ...]:
    """The ``events`` input as what it records: a path is read (an event file), JSON text (starting with ``{`` or
    ``[``) is read as a file's content, a recorded value (a one-item list of the events' JSON text) is checked as a
    file's is; each becomes the one-item tuple of canonical JSON text.

    Raises:
        InvalidParameter: an unreadable or invalid event file, text or value.
    """
    if isinstance(value, str):
        if value.lstrip()[:1] in ("{", "["):  # no event file's path starts so: write ./{name} for one that does
            return _canonical(_inline(value))
        try:
            return _canonical(read_events(value))
        except InvalidParameter as exc:
            if exc.name == "events" and exc.allowed.startswith("a readable file"):
                raise InvalidParameter("events", value, f"{exc.allowed}: {EVENTS_ALLOWED}") from None
            raise
    items = list(value)
    if len(items) != 1 or not isinstance(items[0], str):
        raise InvalidParameter("events", value, "an event file's path, or one recorded event text")
    data = loads_json(items[0], where="events", what="events", parse_float=str, parse_int=str)
    return _canonical(event_of_json(data))


def ledger_of(events: Any) -> DpEvent:
    """The event an ``events`` input stands for (a name of :data:`_NAMED`, or a recorded JSON text)."""
    if isinstance(events, str):
        return _NAMED[events]
    return event_of_json(loads_json(events[0], where="events", what="events", parse_float=str, parse_int=str))


@functools.lru_cache(maxsize=32)
def _at_level(events: Any, neighboring: str, quantity: str, target: Fraction, level: int) -> Enclosure:
    acc = Accountant(neighboring).compose(ledger_of(events))
    return acc.enclosure_at_level(quantity, target, level)


def _eps_ball(ctx: Any, events: Any, delta: Exact, neighboring: str) -> arb | Fraction:
    enc = _at_level(events, neighboring, "epsilon", as_fraction(delta), ball_level(ctx.prec))
    return enclosure_ball(enc, ctx.prec, exact_point=True)


def _delta_ball(ctx: Any, events: Any, eps: Exact, neighboring: str) -> arb | Fraction:
    enc = _at_level(events, neighboring, "delta", as_fraction(eps), ball_level(ctx.prec))
    return enclosure_ball(enc, ctx.prec, exact_point=True)


def _eps_within(seconds: float, events: Any, delta: Exact, neighboring: str, rel_tol: float = 1e-6) -> tuple:
    r = Accountant(neighboring).compose(ledger_of(events)).epsilon(delta, rel_tol=rel_tol, seconds=seconds)
    return r.enclosure, r.resolution


def _delta_within(seconds: float, events: Any, eps: Exact, neighboring: str, rel_tol: float = 1e-9) -> tuple:
    r = Accountant(neighboring).compose(ledger_of(events)).delta(eps, rel_tol=rel_tol, seconds=seconds)
    return r.enclosure, r.resolution


_EVENTS = choice(
    "events",
    tuple(_NAMED),
    files="an event file (JSON: dp-accounting's event names and fields) or its JSON text",
    table=events_table,
    doc="the events composed: an event file, its JSON text (an event object or a list), or example",
)
_NEIGHBORING = choice(
    "neighboring",
    NEIGHBORING,
    default="add_remove",
    doc="the neighbouring relation: a record added or removed, or one record replaced",
)
_DELTA = probability("delta", zero=False, doc="target delta in (0, 1)")
_EPS = real("eps", 0, doc="epsilon >= 0")
_REF = (
    "privacy loss distributions of each event's dominating pair under the neighbouring relation, composed at one "
    "resolution (arb_poly powers, heterogeneous steps joined by the engine's combine); upper: connect-the-dots "
    "(Doroshenko et al. PETS 2022), lower: convex minorant of the potential or equal-mean groups; convex order "
    "(Shaked-Shanthikumar 2007 Thm 4.A.15)"
)

ACCOUNTING_EPS = Quantity(
    "accounting.eps",
    (_EVENTS, _DELTA, _NEIGHBORING),
    _eps_ball,
    _REF,
    "certified eps(delta) of a ledger of dp-accounting events (an event file) under a neighbouring relation",
    bracket=True,
    within=_eps_within,
    within_takes_width=True,
    narrow_hint="dpcert account FILE --delta DELTA --seconds {seconds}",
)
ACCOUNTING_DELTA = Quantity(
    "accounting.delta",
    (_EVENTS, _EPS, _NEIGHBORING),
    _delta_ball,
    _REF,
    "certified delta(eps) of a ledger of dp-accounting events (an event file) under a neighbouring relation",
    bracket=True,
    within=_delta_within,
    within_takes_width=True,
    narrow_hint="dpcert account FILE --eps EPS --seconds {seconds}",
)

QUANTITIES = [ACCOUNTING_EPS, ACCOUNTING_DELTA]
