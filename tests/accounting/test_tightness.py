"""Whether an answer's lower end bounds the mechanism (``lower_end_bounds_mechanism``) is decided where each pair
is built, and says what the audit's former hand-written list said: for every event kind under both relations,
alone, Poisson-sampled, self-composed and composed with others, the accountant's fact equals that list's rule
(written out below as the reference), wherever the accountant answers; an RDP ledger is never tight; the fact
reaches ``AccountingResult``, its JSON and ``dpcert account --json``; the docs' event table says "tight" exactly
where the accountant does."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from dpcert.accounting import events as ev
from dpcert.accounting import losses
from dpcert.accounting.accountant import Accountant, leaf_pairs
from dpcert.audit.cases import ACCOUNTING_CASES
from dpcert.audit.ledgers import lower_end_proved
from dpcert.audit.peers._common import exact

RELATIONS = ("add_remove", "replace_one")

# ------------------------------------------------------------------------------ the former rule, as the reference

#: The audit's former list of events whose pair dpcert called attained under both relations.
_OLD_TIGHT = {
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "DiscreteLaplaceDpEvent",
    "DiscreteGaussianDpEvent",
    "RandomizedResponseDpEvent",
    "MixtureOfGaussiansDpEvent",
    "NoOpDpEvent",
}


def old_rule(data, neighboring):
    """The audit's former rule on an event-file object (kept here as the reference, not used by the code), with the
    one change made since: a Poisson-sampled Gaussian under replace-one is certified by the tight mirror pair."""
    if not isinstance(data, dict):
        return False
    kind = data.get("type")
    if kind in _OLD_TIGHT:
        return True
    if kind == "PoissonSampledDpEvent":
        inner = data.get("event")
        if neighboring == "replace_one":
            return (
                isinstance(inner, dict)
                and inner.get("type") == "GaussianDpEvent"
                and Fraction(str(inner.get("noise_multiplier"))) > 0
            )
        return old_rule(inner, neighboring)
    if kind == "SelfComposedDpEvent":
        return old_rule(data.get("event"), neighboring)
    if kind == "ComposedDpEvent":
        return all(old_rule(e, neighboring) for e in data.get("events", []))
    return False


# ------------------------------------------------------------------------------------------------- the ledgers

G = ev.GaussianDpEvent(2)
#: One non-trivial event of each kind (trivial forms, such as a rate 0 or a noise 0, are below).
KINDS = {
    "Gaussian": G,
    "Laplace": ev.LaplaceDpEvent(2),
    "DiscreteLaplace": ev.DiscreteLaplaceDpEvent("0.5", 1),
    "DiscreteGaussian": ev.DiscreteGaussianDpEvent(2),
    "RandomizedResponse": ev.RandomizedResponseDpEvent("0.5", 3),
    "MixtureOfGaussians": ev.MixtureOfGaussiansDpEvent(2, [0, 1], ["0.5", "0.5"]),
    "ZCDp": ev.ZCDpEvent("0.1"),
    "PoissonSampled(Gaussian)": ev.PoissonSampledDpEvent("0.01", G),
    "PoissonSampled(Laplace)": ev.PoissonSampledDpEvent("0.125", ev.LaplaceDpEvent(1)),
    "PoissonSampled(Mixture)": ev.PoissonSampledDpEvent(
        "0.125", ev.MixtureOfGaussiansDpEvent(2, [0, 1], ["0.5", "0.5"])
    ),
    "PoissonSampled(PoissonSampled(Laplace))": ev.PoissonSampledDpEvent(
        "0.5", ev.PoissonSampledDpEvent("0.25", ev.LaplaceDpEvent(1))
    ),
    "PoissonSampled(ZCDp)": ev.PoissonSampledDpEvent("0.125", ev.ZCDpEvent("0.1")),
    "SampledWithoutReplacement": ev.SampledWithoutReplacementDpEvent(1000, 10, G),
    "SampledWithReplacement": ev.SampledWithReplacementDpEvent(1000, 10, G),
    "SingleEpochTreeAggregation": ev.SingleEpochTreeAggregationDpEvent(2, [8]),
    "RepeatAndSelect": ev.RepeatAndSelectDpEvent(G, 2, 1),
    "TruncatedSubsampledGaussian": ev.TruncatedSubsampledGaussianDpEvent(1000, "0.01", 20, 2),
    "NoOp": ev.NoOpDpEvent(),
    "NonPrivate": ev.NonPrivateDpEvent(),
}


def _ledgers():
    """Each kind alone, self-composed, composed with a tight Gaussian and with a sampled Laplace step."""
    for name, e in KINDS.items():
        yield name, e
        yield f"SelfComposed({name})", ev.SelfComposedDpEvent(e, 7)
        yield f"Composed({name}, Gaussian)", ev.ComposedDpEvent([e, ev.GaussianDpEvent(8)])
        yield f"Composed({name}, PoissonSampled(Laplace))", ev.ComposedDpEvent([KINDS["PoissonSampled(Laplace)"], e])


LEDGERS = dict(_ledgers())


def _fact(event, neighboring):
    return Accountant(neighboring).compose(event).lower_end_bounds_mechanism()


@pytest.mark.parametrize("neighboring", RELATIONS)
@pytest.mark.parametrize("name", sorted(LEDGERS))
def test_the_fact_equals_the_former_rule_wherever_the_accountant_answers(name, neighboring):
    event = LEDGERS[name]
    got = _fact(event, neighboring)
    if not Accountant(neighboring).supports(event) or "NonPrivate" in name:
        # refused (no answer, no lower end): nothing is claimed below. NonPrivateDpEvent promises nothing, so its
        # exact δ = 1 is the pair's, not a mechanism's (the former rule never named it: the same answer)
        assert got is False
        return
    assert got == old_rule(event.to_json(), neighboring)


def test_every_kind_is_answered_under_some_relation_and_both_answers_occur():
    """The comparison above is not vacuous: each kind is answered somewhere, and both facts occur."""
    seen = set()
    for name, e in KINDS.items():
        answered = [rel for rel in RELATIONS if Accountant(rel).supports(e)]
        assert answered or name in ("TruncatedSubsampledGaussian", "PoissonSampled(ZCDp)"), name
        seen.update(_fact(e, rel) for rel in answered)
    assert seen == {True, False}


def test_the_former_rule_was_wrong_only_where_the_accountant_refuses():
    """Where the former list said tight but the accountant has no answer (randomized response under add/remove, a
    sampled event whose inner event is refused), the fact is false; there is no other disagreement."""
    disagree = sorted(
        (name, rel) for name, e in LEDGERS.items() for rel in RELATIONS if _fact(e, rel) != old_rule(e.to_json(), rel)
    )
    assert disagree, "expected the refused randomized response under add/remove to disagree"
    for name, rel in disagree:
        assert not Accountant(rel).supports(LEDGERS[name]) or "NonPrivate" in name, (name, rel)


@pytest.mark.parametrize("neighboring", RELATIONS)
def test_a_ledger_holding_an_rdp_event_is_never_tight(neighboring):
    """The RDP events, beside tight events that would be tight alone: the ledger is answered by RDP, and RDP's
    lower end is a conversion's, never the mechanism's."""
    tight_alone = ev.ComposedDpEvent([ev.GaussianDpEvent(4), ev.SelfComposedDpEvent(ev.LaplaceDpEvent(8), 3)])
    assert _fact(tight_alone, neighboring)
    for rdp_only in (ev.ZCDpEvent("0.01"), ev.SingleEpochTreeAggregationDpEvent(8, [16]),
                     ev.RepeatAndSelectDpEvent(ev.GaussianDpEvent(4), 2, 1)):  # fmt: skip
        acc = Accountant(neighboring).compose(tight_alone).compose(rdp_only, 2)
        assert not acc.lower_end_bounds_mechanism()
        r = acc.epsilon("1e-5")
        assert r.method == "rdp" and r.lower_end_bounds_mechanism is False


def test_trivial_forms():
    """An empty ledger (exactly 0) and a step that reveals nothing are the mechanism's; a rate 1 is its inner
    event, so replace-one Poisson sampling at rate 1 of a Gaussian is tight (the former rule said not: its list
    erred on the safe side); NonPrivateDpEvent is not (it promises nothing)."""
    assert Accountant().lower_end_bounds_mechanism()
    assert Accountant("replace_one").compose(ev.PoissonSampledDpEvent(1, G)).lower_end_bounds_mechanism()
    assert Accountant("replace_one").compose(ev.PoissonSampledDpEvent(0, G)).lower_end_bounds_mechanism()
    r = Accountant().compose(ev.NonPrivateDpEvent()).delta(1)
    assert (r.method, r.lower_end_bounds_mechanism) == ("exact", False)
    r = Accountant().delta(1)
    assert (r.method, r.enclosure.lo, r.lower_end_bounds_mechanism) == ("exact", 0, True)


@pytest.mark.parametrize("name", ["Gaussian", "PoissonSampled(Laplace)", "SampledWithoutReplacement"])
def test_the_mechanism_module_decides_where_it_builds_the_pair(name):
    """losses.dominating_pairs and the accountant's leaf_pairs agree (the registry's certifiers come first)."""
    e = KINDS[name]
    for rel in RELATIONS:
        found = losses.dominating_pairs(e, rel)
        leaf = leaf_pairs(e, rel)
        assert (found is None) == (leaf is None)
        if found is not None:
            assert found.tight == leaf[1] == old_rule(e.to_json(), rel)
            assert len(found.directions) == len(leaf[0])


def test_a_registered_certifier_is_not_tight_unless_it_says_so(monkeypatch):
    from dpcert.accounting import accountant

    monkeypatch.setattr(accountant, "PLD_CERTIFIERS", dict(accountant.PLD_CERTIFIERS))
    monkeypatch.setattr(accountant, "PLD_TIGHT", set(accountant.PLD_TIGHT))
    assert leaf_pairs(ev.LaplaceDpEvent(2), "add_remove")[1]
    accountant.register_pld("LaplaceDpEvent")(accountant.PLD_CERTIFIERS["LaplaceDpEvent"])
    assert not leaf_pairs(ev.LaplaceDpEvent(2), "add_remove")[1]
    assert not Accountant().compose(ev.LaplaceDpEvent(2)).lower_end_bounds_mechanism()


def test_the_result_and_its_json_carry_the_fact():
    tight = Accountant().compose(KINDS["PoissonSampled(Gaussian)"], 10).epsilon("1e-5", rel_tol=0.05)
    loose = Accountant("replace_one").compose(KINDS["PoissonSampled(Laplace)"], 10).epsilon("1e-5", rel_tol=0.05)
    assert tight.lower_end_bounds_mechanism and not loose.lower_end_bounds_mechanism
    assert tight.to_json()["lower_end_bounds_mechanism"] is True
    assert loose.to_json()["lower_end_bounds_mechanism"] is False


def test_dpcert_account_json_has_the_key(tmp_path, capsys):
    from dpcert.cli import main

    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(KINDS["SampledWithoutReplacement"].to_json()), encoding="utf-8")
    fast = ["--rel-tol", "0.5", "--seconds", "2", "--json", "--quiet"]
    assert main(["account", str(path), "--delta", "1e-5", "--neighboring", "replace_one", *fast]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lower_end_bounds_mechanism"] is False
    assert {"enclosure", "neighboring", "method", "safe"} <= set(out)  # the contract's keys stay
    text = fast[:-2] + ["--quiet"]
    assert main(["account", str(path), "--delta", "1e-5", "--neighboring", "replace_one", *text]) == 0
    assert "upper end only: the lower end is not proved" in capsys.readouterr().out
    path.write_text(json.dumps(ev.LaplaceDpEvent(4).to_json()), encoding="utf-8")
    assert main(["account", str(path), "--eps", "1", *fast]) == 0
    assert json.loads(capsys.readouterr().out)["lower_end_bounds_mechanism"] is True
    assert main(["account", str(path), "--eps", "1", *text]) == 0
    assert "upper end only" not in capsys.readouterr().out


# ------------------------------------------------------------------------------------------- the audit's rows


@pytest.mark.parametrize("case", ACCOUNTING_CASES, ids=lambda c: f"{c.inputs['neighboring']}:{c.inputs['events']}")
def test_every_audit_row_is_placed_as_before(case):
    """The audit's lower_end_proved, now asking the accountant, says on every ledger row what the former list
    did (so every row is placed against the same enclosure, with the same note)."""
    inputs = exact(case)
    (text,) = inputs["events"]
    assert lower_end_proved(case.quantity, inputs) == old_rule(json.loads(text), inputs["neighboring"])


def test_the_audit_claims_nothing_below_where_it_cannot_read_the_ledger():
    assert not lower_end_proved("accounting.eps", {"events": "example"})
    assert not lower_end_proved("accounting.eps", {"events": ('{"type": "NoSuchDpEvent"}',)})
    rr = json.dumps(KINDS["RandomizedResponse"].to_json())
    assert not lower_end_proved("accounting.delta", {"events": (rr,), "neighboring": "add_remove"})  # refused
    assert lower_end_proved("accounting.delta", {"events": (rr,), "neighboring": "replace_one"})
    assert lower_end_proved("dpsgd.eps", {})


# ------------------------------------------------------------------------------------------- the docs' table

PAGE = Path(__file__).resolve().parents[2] / "docs" / "topics" / "accounting.md"
_TABLE_EXAMPLES = {
    "GaussianDpEvent": "Gaussian",
    "LaplaceDpEvent": "Laplace",
    "PoissonSampledDpEvent": "PoissonSampled(Gaussian)",
    "RandomizedResponseDpEvent": "RandomizedResponse",
    "DiscreteLaplaceDpEvent": "DiscreteLaplace",
    "DiscreteGaussianDpEvent": "DiscreteGaussian",
    "MixtureOfGaussiansDpEvent": "MixtureOfGaussians",
    "SampledWithoutReplacementDpEvent": "SampledWithoutReplacement",
    "SampledWithReplacementDpEvent": "SampledWithReplacement",
}


def test_the_docs_table_says_tight_where_the_accountant_does():
    cells = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(\w+DpEvent)\(.*?\)` \| (.*?) \| (.*?) \|$", line)
        if m and m.group(1) in _TABLE_EXAMPLES:
            cells[m.group(1)] = (m.group(2), m.group(3))
    assert sorted(cells) == sorted(_TABLE_EXAMPLES)
    for cls, name in _TABLE_EXAMPLES.items():
        for rel, cell in zip(RELATIONS, cells[cls], strict=True):
            if cell.startswith("PLD"):
                assert cell.startswith("PLD, tight") == _fact(KINDS[name], rel), (cls, rel, cell)
