"""dpcert's privacy events, by dp-accounting's names: ``dpcert.events.GaussianDpEvent(noise_multiplier=…)``, ….

Every event of dp-accounting 0.6 with the same class and field names, numbers held exactly (a float at its decimal
text), plus :class:`DiscreteGaussianDpEvent`; give them to :class:`dpcert.Accountant`. The classes live in
:mod:`dpcert.accounting.events`; this module is their public address.

>>> import dpcert
>>> acc = dpcert.Accountant(neighboring="replace_one")
>>> r = acc.compose(dpcert.events.GaussianDpEvent(noise_multiplier=2)).epsilon(1e-5, rel_tol=1e-4)
>>> r.enclosure.short(5), r.neighboring
('[4.3769, 4.3773]', 'replace_one')
"""

from dpcert.accounting.events import (
    ComposedDpEvent,
    DiscreteGaussianDpEvent,
    DiscreteLaplaceDpEvent,
    DpEvent,
    GaussianDpEvent,
    LaplaceDpEvent,
    MixtureOfGaussiansDpEvent,
    NonPrivateDpEvent,
    NoOpDpEvent,
    PoissonSampledDpEvent,
    RandomizedResponseDpEvent,
    RepeatAndSelectDpEvent,
    SampledWithoutReplacementDpEvent,
    SampledWithReplacementDpEvent,
    SelfComposedDpEvent,
    SingleEpochTreeAggregationDpEvent,
    TruncatedSubsampledGaussianDpEvent,
    ZCDpEvent,
    as_event,
)

__all__ = [
    "DpEvent",
    "RandomizedResponseDpEvent",
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "DiscreteLaplaceDpEvent",
    "DiscreteGaussianDpEvent",
    "MixtureOfGaussiansDpEvent",
    "ZCDpEvent",
    "PoissonSampledDpEvent",
    "SampledWithReplacementDpEvent",
    "SampledWithoutReplacementDpEvent",
    "SingleEpochTreeAggregationDpEvent",
    "RepeatAndSelectDpEvent",
    "TruncatedSubsampledGaussianDpEvent",
    "SelfComposedDpEvent",
    "ComposedDpEvent",
    "NoOpDpEvent",
    "NonPrivateDpEvent",
    "as_event",
]
