"""dp-accounting's accountants on a ledger of its own events: the ``accounting.eps`` and ``accounting.delta`` rows.

A case of ``accounting.eps`` (or ``accounting.delta``) holds its events as event-file JSON text (dp-accounting's
class names under ``"type"``, its field names, numbers as exact strings). :func:`to_dp_accounting` builds
dp-accounting's own ``DpEvent`` objects from that text, the same classes with the same fields, every number as the
double nearest it; where a number is not a double (``"0.1"``), the events dpcert encloses are the same text with
that number replaced by the double's exact value (``truth``), so the row is about what the peer was given.

The case's ``neighboring`` input picks dp-accounting's ``NeighboringRelation``: ``add_remove`` is
``ADD_OR_REMOVE_ONE``, ``replace_one`` is ``REPLACE_ONE``. One exception: dp-accounting's RDP accountant takes
``SingleEpochTreeAggregationDpEvent`` only under ``REPLACE_SPECIAL`` (a record replaced by the zero record), which is
what dpcert's add/remove relation is for that event (its step counts are fixed by the event, so a record's absence
moves no other record, and a zero record contributes nothing to any node: the same pair of output laws); a tree
ledger under ``add_remove`` is asked of ``RdpAccountant(REPLACE_SPECIAL)``, and the row says so.

Three calls per case, each only where dp-accounting's ``supports`` says the accountant takes the ledger under that
relation (otherwise a row ``skipped``, its note "not supported: …", as the other adapters answer):

* ``PLDAccountant(relation).compose(ledger).get_epsilon(delta)``: its default pessimistic PLD, an upper bound;
* the bracket of its optimistic and pessimistic PLDs (:func:`pld_bracket`): the same PLDs dp-accounting's
  accountant builds, each with ``pessimistic_estimate`` False and True; its lower end is not claimed a proved bound
  by dp-accounting (the optimistic PLD rounds the losses down and drops the truncated tails), so the row is
  ``wrong`` only when that end lies above dpcert's certified upper end;
* ``RdpAccountant(relation).compose(ledger).get_epsilon(delta)``: an upper bound.

Whether dpcert's lower end bounds the mechanism's ε at all is the audit's business, not the adapter's
(:mod:`dpcert.audit.ledgers`): for a ledger certified by RDP or through a proved pair that is not tight, it does not,
and such a row can only be found ``loose`` (above the certified upper end), never ``unsafe``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

from dpcert.audit.peers._common import doubles
from dpcert.audit.peers.adapter import Call, not_run

__all__ = [
    "calls",
    "to_dp_accounting",
    "pld_of",
    "pld_bracket",
    "RELATIONS",
    "INTEGER_FIELDS",
    "relation_for",
    "SLOW_MIXTURE",
]

#: dpcert's neighbouring relations and dp-accounting's names for them.
RELATIONS = {"add_remove": "ADD_OR_REMOVE_ONE", "replace_one": "REPLACE_ONE"}
#: The event fields dp-accounting takes as integers (all others are floats).
INTEGER_FIELDS = frozenset(
    {
        "num_buckets",
        "sensitivity",
        "source_dataset_size",
        "sample_size",
        "dataset_size",
        "truncated_batch_size",
        "count",
        "step_counts",
    }
)
_QUANTITIES = ("accounting.eps", "accounting.delta")
_REPLACE_SPECIAL_NOTE = (
    "REPLACE_SPECIAL (a record replaced by the zero record): for tree aggregation the pair dpcert certifies under "
    "add_remove"
)


def _number(field: str, text: str, path: str) -> tuple[Any, str, bool]:
    """(the value dp-accounting is given, its exact text for dpcert, whether that differs from ``text``)."""
    exact = Fraction(text)
    if field in INTEGER_FIELDS:
        if exact.denominator != 1:
            raise ValueError(f"{path}: {text!r} is not an integer")
        return int(exact), text, False
    value = float(exact)
    if Fraction(value) == exact:
        return value, text, False
    got = Fraction(value)
    return value, f"{got.numerator}/{got.denominator}", True


def _build(data: Any, path: str) -> tuple[Any, Any, bool]:
    from dp_accounting import dp_event

    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError(f"{path or 'event'}: not an event object")
    cls = getattr(dp_event, data["type"], None)
    if cls is None or not isinstance(cls, type) or not issubclass(cls, dp_event.DpEvent):
        raise ValueError(f"{path or 'event'}: dp-accounting has no event {data['type']!r}")
    kwargs: dict[str, Any] = {}
    exact: dict[str, Any] = {"type": data["type"]}
    changed = False
    for name, v in data.items():
        if name == "type":
            continue
        where = f"{path}.{name}" if path else name
        if name == "event":
            kwargs[name], exact[name], c = _build(v, where)
        elif name == "events":
            built = [_build(e, f"{where}[{i}]") for i, e in enumerate(v)]
            kwargs[name], exact[name] = [b[0] for b in built], [b[1] for b in built]
            c = any(b[2] for b in built)
        elif isinstance(v, list):
            nums = [_number(name, str(x), f"{where}[{i}]") for i, x in enumerate(v)]
            kwargs[name], exact[name] = [n[0] for n in nums], [n[1] for n in nums]
            c = any(n[2] for n in nums)
        else:
            kwargs[name], exact[name], c = _number(name, str(v), where)
        changed = changed or c
    return cls(**kwargs), exact, changed


def to_dp_accounting(text: str) -> tuple[Any, str, bool]:
    """dp-accounting's event for an event file's JSON text, the JSON text of what it was actually given (every
    number at the double it received, exactly), and whether that differs from ``text``.

    A list of events is their ``ComposedDpEvent``, as in an event file.

    Raises:
        ValueError: an event dp-accounting does not have, or a non-integer where it takes an integer.
    """
    data = json.loads(text, parse_float=str, parse_int=str)
    if isinstance(data, list):
        data = {"type": "ComposedDpEvent", "events": data}
    event, exact, changed = _build(data, "")
    return event, json.dumps(exact, separators=(",", ":")), changed


def _is_tree_only(event: Any) -> bool:
    from dp_accounting import dp_event

    if isinstance(event, dp_event.SingleEpochTreeAggregationDpEvent):
        return True
    if isinstance(event, dp_event.SelfComposedDpEvent):
        return _is_tree_only(event.event)
    if isinstance(event, dp_event.ComposedDpEvent):
        return bool(event.events) and all(_is_tree_only(e) for e in event.events)
    return False


def relation_for(accountant: str, event: Any, neighboring: str) -> str:
    """dp-accounting's relation name for dpcert's ``neighboring`` (``REPLACE_SPECIAL`` for a tree ledger under
    ``add_remove`` at the RDP accountant, see the module docstring)."""
    if accountant == "RdpAccountant" and neighboring == "add_remove" and _is_tree_only(event):
        return "REPLACE_SPECIAL"
    return RELATIONS[neighboring]


def pld_of(event: Any, relation: Any, pessimistic: bool, interval: float = 1e-4) -> Any:
    """The PLD dp-accounting's ``PLDAccountant`` builds for ``event`` (the same constructors, the same
    discretisation interval), with ``pessimistic_estimate`` as given, or ``None`` for an event outside its branches.

    Counts are applied as the accountant applies them (the Gaussian's by one mechanism of σ/√count, the others by
    ``self_compose``), except that a randomized response's count is applied too (0.6.0's accountant drops it).
    """
    from dp_accounting import dp_event
    from dp_accounting.pld import privacy_loss_distribution as pld

    def one(e: Any, count: int) -> Any:
        kw = {"pessimistic_estimate": pessimistic, "value_discretization_interval": interval}
        # connect-the-dots is pessimistic only: dp-accounting falls back to privacy buckets for the optimistic PLD
        # (and logs a warning saying so); asked for them directly, it builds the same PLD without the warning
        dots = {} if pessimistic else {"use_connect_dots": False}
        if isinstance(e, dp_event.SelfComposedDpEvent):
            return one(e.event, e.count * count)
        if isinstance(e, dp_event.ComposedDpEvent):
            out = pld.identity(interval, pessimistic_estimate=pessimistic)
            for sub in e.events:
                part = one(sub, count)
                if part is None:
                    return None
                out = out.compose(part)
            return out
        if isinstance(e, dp_event.NoOpDpEvent):
            return pld.identity(interval, pessimistic_estimate=pessimistic)
        if isinstance(e, dp_event.TruncatedSubsampledGaussianDpEvent):
            if not pessimistic:  # dp-accounting builds this PLD pessimistically only
                return None
            return pld.from_truncated_subsampled_gaussian_mechanism(
                e.dataset_size,
                e.sampling_probability,
                e.truncated_batch_size,
                e.noise_multiplier,
                value_discretization_interval=interval,
                neighboring_relation=relation,
            ).self_compose(count)
        if isinstance(e, dp_event.GaussianDpEvent):
            return pld.from_gaussian_mechanism(
                e.noise_multiplier / math.sqrt(count), neighboring_relation=relation, **kw, **dots
            )
        if isinstance(e, dp_event.LaplaceDpEvent):
            return pld.from_laplace_mechanism(e.noise_multiplier, **kw, **dots).self_compose(count)
        if isinstance(e, dp_event.DiscreteLaplaceDpEvent):
            return pld.from_discrete_laplace_mechanism(e.noise_parameter, e.sensitivity, **kw).self_compose(count)
        if isinstance(e, dp_event.RandomizedResponseDpEvent):
            return pld.from_randomized_response(
                e.noise_parameter, e.num_buckets, neighboring_relation=relation, **kw
            ).self_compose(count)
        if isinstance(e, dp_event.MixtureOfGaussiansDpEvent):
            return pld.from_mixture_gaussian_mechanism(
                e.standard_deviation, e.sensitivities, e.sampling_probs, **kw, **dots
            ).self_compose(count)
        if isinstance(e, dp_event.PoissonSampledDpEvent) and isinstance(e.event, dp_event.GaussianDpEvent):
            return pld.from_gaussian_mechanism(
                e.event.noise_multiplier,
                sampling_prob=e.sampling_probability,
                neighboring_relation=relation,
                **kw,
                **dots,
            ).self_compose(count)
        if isinstance(e, dp_event.PoissonSampledDpEvent) and isinstance(e.event, dp_event.LaplaceDpEvent):
            return pld.from_laplace_mechanism(
                e.event.noise_multiplier, sampling_prob=e.sampling_probability, **kw, **dots
            ).self_compose(count)
        return None

    return one(event, 1)


def pld_bracket(event: Any, relation: Any, quantity: str, target: float) -> tuple[float, float, float]:
    """(optimistic, pessimistic, pessimistic) ε(δ) or δ(ε) of dp-accounting's two PLDs (:func:`pld_of`).

    Raises:
        ValueError: an event outside the PLD accountant's branches, or one it builds pessimistically only
            (``TruncatedSubsampledGaussianDpEvent``).
    """
    if _holds(event, "NonPrivateDpEvent"):  # the accountant's answer: ε = inf, δ = 1
        return (math.inf,) * 3 if quantity == "epsilon" else (1.0,) * 3
    ends = []
    for pessimistic in (False, True):
        p = pld_of(event, relation, pessimistic)
        if p is None:
            raise ValueError("dp-accounting builds no optimistic PLD for this event")
        ends.append(p.get_epsilon_for_delta(target) if quantity == "epsilon" else p.get_delta_for_epsilon(target))
    return float(ends[0]), float(ends[1]), float(ends[1])


#: Why the optimistic PLD of a mixture of Gaussians is not asked: dp-accounting builds it by privacy buckets over
#: its whole grid, 18 s for one MixtureOfGaussiansDpEvent(4, [1, 0.5], [0.5, 0.5]) here (80 s at σ = 2).
SLOW_MIXTURE = "not run: dp-accounting's optimistic mixture-of-Gaussians PLD takes 20-80 s per event"


def _holds(event: Any, kind: str) -> bool:
    """Whether the ledger holds an event of dp-accounting's class ``kind``."""
    from dp_accounting import dp_event

    if type(event).__name__ == kind:
        return True
    if isinstance(event, (dp_event.SelfComposedDpEvent, dp_event.PoissonSampledDpEvent)):
        return _holds(event.event, kind)
    if isinstance(event, dp_event.ComposedDpEvent):
        return any(_holds(e, kind) for e in event.events)
    return False


def calls(case: Any) -> list[Call]:
    import dp_accounting as dpa
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    if case.quantity not in _QUANTITIES:
        return []
    d = doubles(case)
    neighboring = d.get("neighboring", "add_remove")
    if neighboring not in RELATIONS:
        return []
    (text,) = d["events"]
    event, exact_text, changed = to_dp_accounting(text)
    truth = ({**d, "events": (exact_text,)},) if changed else None
    if case.quantity == "accounting.eps":
        quantity, target, what = "epsilon", d["delta"], "get_epsilon(delta)"
    else:
        quantity, target, what = "delta", d["eps"], "get_delta(eps)"

    def get(acc: Any) -> float:
        return float(acc.get_epsilon(target) if quantity == "epsilon" else acc.get_delta(target))

    out: list[Call] = []
    rel_name = relation_for("PLDAccountant", event, neighboring)
    rel = getattr(dpa.NeighboringRelation, rel_name)
    pld_f = f"PLDAccountant({rel_name}).compose(events).{what}"
    bracket_f = f"PLD(events, pessimistic_estimate=False|True) {what}"
    if not PLDAccountant(rel).supports(event):
        why = f"not supported: dp-accounting's PLDAccountant does not take it under {rel_name}"
        out += [not_run(pld_f, "upper", why), not_run(bracket_f, "bracket", why)]
    else:
        out.append(Call(pld_f, "upper", lambda: get(PLDAccountant(rel).compose(event)), truth))
        if _holds(event, "MixtureOfGaussiansDpEvent"):
            out.append(not_run(bracket_f, "bracket", SLOW_MIXTURE))
        elif _holds(event, "TruncatedSubsampledGaussianDpEvent"):
            out.append(not_run(bracket_f, "bracket", "not run: dp-accounting builds this PLD pessimistically only"))
        else:
            out.append(
                Call(
                    bracket_f,
                    "bracket",
                    lambda: pld_bracket(event, rel, quantity, target),
                    truth,
                    note="its optimistic and pessimistic PLDs",
                )
            )
    rdp_name = relation_for("RdpAccountant", event, neighboring)
    rdp_rel = getattr(dpa.NeighboringRelation, rdp_name)
    rdp_f = f"RdpAccountant({rdp_name}).compose(events).{what}"
    if not RdpAccountant(neighboring_relation=rdp_rel).supports(event):
        why = f"not supported: dp-accounting's RdpAccountant does not take it under {rdp_name}"
        out.append(not_run(rdp_f, "upper", why))
    else:
        note = _REPLACE_SPECIAL_NOTE if rdp_name == "REPLACE_SPECIAL" else ""
        out.append(
            Call(
                rdp_f,
                "upper",
                lambda: get(RdpAccountant(neighboring_relation=rdp_rel).compose(event)),
                truth,
                note=note,
            )
        )
    return out
