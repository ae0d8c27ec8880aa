"""dpcert's events: dp-accounting's class and field names, exact numbers, validation, and dp-accounting's own objects
converted as they are."""

from __future__ import annotations

import inspect
from fractions import Fraction as F

import pytest

from dpcert.accounting import events as ev
from dpcert.errors import InvalidParameter

#: dp-accounting 0.6's sixteen event classes (the issue's list)
DP_ACCOUNTING_EVENTS = [
    "RandomizedResponseDpEvent", "GaussianDpEvent", "LaplaceDpEvent", "DiscreteLaplaceDpEvent",
    "MixtureOfGaussiansDpEvent", "ZCDpEvent", "PoissonSampledDpEvent", "SampledWithReplacementDpEvent",
    "SampledWithoutReplacementDpEvent", "SingleEpochTreeAggregationDpEvent", "RepeatAndSelectDpEvent",
    "TruncatedSubsampledGaussianDpEvent", "SelfComposedDpEvent", "ComposedDpEvent", "NoOpDpEvent", "NonPrivateDpEvent",
]  # fmt: skip


def one_of_each() -> list[ev.DpEvent]:
    """One valid event of every class (nested ones around a Gaussian)."""
    g = ev.GaussianDpEvent("1.1")
    return [
        ev.RandomizedResponseDpEvent("0.3", 4),
        g,
        ev.LaplaceDpEvent(2),
        ev.DiscreteLaplaceDpEvent("0.8", 1),
        ev.DiscreteGaussianDpEvent("1.5", 1),
        ev.MixtureOfGaussiansDpEvent(1, [0, 1, 2], ["0.5", "0.3", "0.2"]),
        ev.ZCDpEvent("0.5"),
        ev.PoissonSampledDpEvent("0.01", g),
        ev.SampledWithReplacementDpEvent(1000, 10, g),
        ev.SampledWithoutReplacementDpEvent(1000, 10, g),
        ev.SingleEpochTreeAggregationDpEvent(3, [4, 5]),
        ev.RepeatAndSelectDpEvent(g, 3, "inf"),
        ev.TruncatedSubsampledGaussianDpEvent(1000, "0.01", 20, 1),
        ev.SelfComposedDpEvent(g, 10),
        ev.ComposedDpEvent([g, ev.LaplaceDpEvent(1)]),
        ev.NoOpDpEvent(),
        ev.NonPrivateDpEvent(),
    ]


def test_every_dp_accounting_event_is_here_plus_the_discrete_gaussian():
    assert set(ev.EVENT_CLASSES) == set(DP_ACCOUNTING_EVENTS) | {"DiscreteGaussianDpEvent"}
    assert {type(e).__name__ for e in one_of_each()} == set(ev.EVENT_CLASSES)


def test_field_names_are_dp_accountings():
    """Each class has exactly the attrs fields of dp-accounting's class of that name, in the same order."""
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event

    for name in DP_ACCOUNTING_EVENTS:
        theirs = [a.name for a in getattr(dp_event, name).__attrs_attrs__]
        ours = list(inspect.signature(ev.EVENT_CLASSES[name]).parameters)
        assert ours == theirs, name


def test_numbers_are_exact_and_floats_are_read_at_their_decimal_text():
    assert ev.GaussianDpEvent(1.1).noise_multiplier == F(11, 10)  # not the double 1.1000000000000000888...
    assert ev.GaussianDpEvent("1/3").noise_multiplier == F(1, 3)
    assert ev.PoissonSampledDpEvent(1e-5, ev.NoOpDpEvent()).sampling_probability == F(1, 10**5)
    assert ev.GaussianDpEvent(F(7, 3)) == ev.GaussianDpEvent("7/3")
    assert ev.SelfComposedDpEvent(ev.NoOpDpEvent(), 3.0).count == 3
    assert ev.ZCDpEvent(1).xi == 0


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda: ev.GaussianDpEvent(-1), "noise_multiplier"),
        (lambda: ev.GaussianDpEvent(float("nan")), "noise_multiplier"),
        (lambda: ev.GaussianDpEvent(True), "noise_multiplier"),
        (lambda: ev.PoissonSampledDpEvent("1.5", ev.NoOpDpEvent()), "sampling_probability"),
        (lambda: ev.PoissonSampledDpEvent("0.5", "not an event"), "event"),
        (lambda: ev.RandomizedResponseDpEvent("0.5", 0), "num_buckets"),
        (lambda: ev.DiscreteLaplaceDpEvent("0.5", "1.5"), "sensitivity"),
        (lambda: ev.MixtureOfGaussiansDpEvent(1, [0, 1], ["0.5", "0.6"]), "sampling_probs"),
        (lambda: ev.MixtureOfGaussiansDpEvent(1, [0, 1], ["1"]), "sampling_probs"),
        (lambda: ev.SampledWithoutReplacementDpEvent(10, 11, ev.NoOpDpEvent()), "sample_size"),
        (lambda: ev.SelfComposedDpEvent(ev.NoOpDpEvent(), -1), "count"),
        (lambda: ev.SelfComposedDpEvent(ev.NoOpDpEvent(), 2.5), "count"),
        (lambda: ev.RepeatAndSelectDpEvent(ev.NoOpDpEvent(), 1, -1), "shape"),
        (lambda: ev.ComposedDpEvent("abc"), "events"),
        (lambda: ev.DiscreteGaussianDpEvent(0), "sigma"),
    ],
)
def test_a_value_out_of_its_domain_is_refused_naming_the_field(make, field):
    with pytest.raises(InvalidParameter) as info:
        make()
    assert info.value.name == field


def test_events_are_frozen_and_hashable():
    g = ev.GaussianDpEvent(1)
    with pytest.raises(AttributeError):
        g.noise_multiplier = 2  # type: ignore[misc]
    assert len({g, ev.GaussianDpEvent("1.0"), ev.GaussianDpEvent(2)}) == 2


def test_dp_accounting_objects_convert_field_by_field():
    pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event as dpa

    theirs = dpa.ComposedDpEvent(
        [
            dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), 100),
            dpa.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.25, 0.75]),
            dpa.RepeatAndSelectDpEvent(dpa.LaplaceDpEvent(2.0), 3.0, float("inf")),
            dpa.ZCDpEvent(0.5),
            dpa.NoOpDpEvent(),
        ]
    )
    ours = ev.ComposedDpEvent(
        [
            ev.SelfComposedDpEvent(ev.PoissonSampledDpEvent("0.01", ev.GaussianDpEvent("1.1")), 100),
            ev.MixtureOfGaussiansDpEvent(1, [0, 1], ["0.25", "0.75"]),
            ev.RepeatAndSelectDpEvent(ev.LaplaceDpEvent(2), 3, "inf"),
            ev.ZCDpEvent("0.5", 0),
            ev.NoOpDpEvent(),
        ]
    )
    assert ev.as_event(theirs) == ours
    # nested dp-accounting events are converted inside dpcert's own constructors too
    assert ev.PoissonSampledDpEvent("0.01", dpa.GaussianDpEvent(1.1)) == ev.PoissonSampledDpEvent(
        "0.01", ev.GaussianDpEvent("1.1")
    )


def test_an_object_that_is_no_event_is_refused():
    class GaussianDpEvent:  # the right name without the field
        pass

    with pytest.raises(InvalidParameter, match="noise_multiplier"):
        ev.as_event(GaussianDpEvent())
    with pytest.raises(InvalidParameter, match="a DpEvent"):
        ev.as_event(3)


def test_number_text_reads_back_exactly():
    for x in (F(1, 10), F(1, 3), F(-5, 8), F(10**30 + 1, 10**12), F(0)):
        text = ev.number_text(x)
        assert F(text) == x
