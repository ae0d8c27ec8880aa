"""dpcert's privacy events: dp-accounting 0.6's event language, with every number held exactly.

Each class has the name and the fields of its dp-accounting counterpart (``GaussianDpEvent(noise_multiplier=…)``,
``PoissonSampledDpEvent(sampling_probability=…, event=…)``, …), so that a description written for dp-accounting
reads the same here, plus :class:`DiscreteGaussianDpEvent` (OpenDP's noise, which dp-accounting lacks). The events
only *describe* a mechanism; :class:`dpcert.accounting.accountant.Accountant` certifies them.

**Numbers.** A real field is held as a :class:`~fractions.Fraction`: a string is read exactly (``"0.1"`` is 1/10,
``"1/3"`` is 1/3), an ``int`` or ``Fraction`` as it is, and a ``float`` at its decimal text (``0.1`` is
``Fraction(repr(0.1))`` = 1/10, the number the user typed, not the binary double 0.1000000000000000055…): an event
is the mechanism the user meant, and dp-accounting's floats are typed decimals. Integer fields (bucket counts,
dataset and batch sizes, counts) must be whole numbers. A value outside the field's domain raises
:class:`~dpcert.errors.InvalidParameter` naming the field, its value and what is allowed.

**Conventions** (dp-accounting's docstrings): a noise multiplier is the noise's scale over the norm bound C of one
record's contribution, so under add/remove neighbours a query moves by up to C and under replace-one by up to 2C.
The events carry no neighbouring relation; the accountant is given one and applies it to every event.

**dp-accounting's own objects.** :func:`as_event` turns a dp-accounting ``DpEvent`` (or any object whose class name
is one of the event names here and which has its fields) into dpcert's event, recursively; dp-accounting is never
imported for it (it is not a dependency).

References:
    dp-accounting 0.6, ``dp_event.py`` (the class and field names); the discrete Gaussian: C. Canonne, G. Kamath,
    T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, ClassVar

from dpcert.arith.exact import fraction_to_decimal, parse_int, parse_rational
from dpcert.errors import InvalidParameter

__all__ = [
    "DpEvent",
    "NoOpDpEvent",
    "NonPrivateDpEvent",
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "DiscreteLaplaceDpEvent",
    "DiscreteGaussianDpEvent",
    "RandomizedResponseDpEvent",
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
    "EVENT_CLASSES",
    "as_event",
    "number_text",
]

#: The most events a composition may list and the most values a list field may hold (a file is read whole).
MAX_ITEMS = 10**5
#: The deepest nesting of events accepted.
MAX_DEPTH = 64


def _real(field: str, value: Any, lo: Fraction | None = None, hi: Fraction | None = None, *, lo_open: bool = False,
          what: str = "") -> Fraction:  # fmt: skip
    """A real field, exactly: a float at its decimal text, anything else through parse_rational; range-checked."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(field, value, what or "a finite real number")
        value = repr(value)  # the decimal the user typed (repr is the shortest text that reads back as the double)
    x = parse_rational(value, field).value
    if (lo is not None and (x < lo or (lo_open and x == lo))) or (hi is not None and x > hi):
        raise InvalidParameter(field, value, what or "a real number in range")
    return x


def _int(field: str, value: Any, lo: int, hi: int | None = None, what: str = "") -> int:
    """An integer field: an int, an integral Fraction or float, or a string of digits; range-checked."""
    if isinstance(value, bool):
        raise InvalidParameter(field, value, what or f"an integer >= {lo}")
    if isinstance(value, (float, Fraction)):
        if isinstance(value, float) and not math.isfinite(value) or value != int(value):
            raise InvalidParameter(field, value, what or f"an integer >= {lo}")
        value = int(value)
    n = int(parse_int(value, field))
    if n < lo or (hi is not None and n > hi):
        raise InvalidParameter(field, value, what or f"an integer >= {lo}")
    return n


def _event(field: str, value: Any, depth: int = 0) -> DpEvent:
    ev = as_event(value, depth=depth + 1)
    return ev


def _items(field: str, value: Any) -> list[Any]:
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise InvalidParameter(field, value, "a list")
    out = []
    for x in value:
        out.append(x)
        if len(out) > MAX_ITEMS:
            raise InvalidParameter(field, f"<more than {MAX_ITEMS} items>", f"at most {MAX_ITEMS} items")
    return out


def number_text(x: Fraction) -> str:
    """An exact field value as text: its decimal when it has one (``"0.1"``), else ``"p/q"``.

    >>> number_text(Fraction(1, 10)), number_text(Fraction(1, 3)), number_text(Fraction(5))
    ('0.1', '1/3', '5')
    """
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d != 1:
        return f"{x.numerator}/{x.denominator}"
    digits = len(str(x.denominator)) + len(str(abs(x.numerator))) + 2
    text = fraction_to_decimal(x, digits, "nearest")
    return text if Fraction(text) == x else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class DpEvent:
    """The base class of every event (dp-accounting's ``DpEvent``): what one private release does."""

    #: the event's name in dp-accounting and in event files (the class name)
    type_name: ClassVar[str] = "DpEvent"

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def to_json(self) -> dict[str, Any]:
        """The event as an event-file object: ``{"type": <class name>, <field>: <exact text or nested event>}``."""
        out: dict[str, Any] = {"type": type(self).__name__}
        for f in fields(self):
            out[f.name] = _to_json(getattr(self, f.name))
        return out


def _to_json(v: Any) -> Any:
    if isinstance(v, DpEvent):
        return v.to_json()
    if isinstance(v, Fraction):
        return number_text(v)
    if isinstance(v, float):  # RepeatAndSelect's shape = inf (the Poisson distribution)
        return "inf"
    if isinstance(v, tuple):
        return [_to_json(x) for x in v]
    return v


@dataclass(frozen=True)
class NoOpDpEvent(DpEvent):
    """An event that releases nothing about the data (privacy loss 0)."""


@dataclass(frozen=True)
class NonPrivateDpEvent(DpEvent):
    """An event with no privacy guarantee (δ(ε) = 1 at every ε)."""


@dataclass(frozen=True)
class GaussianDpEvent(DpEvent):
    """The Gaussian mechanism: noise N(0, (σC)²) on a query whose one record moves it by ℓ2 norm <= C.

    >>> GaussianDpEvent(1.1).noise_multiplier
    Fraction(11, 10)
    """

    noise_multiplier: Any

    def __post_init__(self) -> None:
        self._set("noise_multiplier", _real("noise_multiplier", self.noise_multiplier, Fraction(0), what="a real >= 0"))


@dataclass(frozen=True)
class LaplaceDpEvent(DpEvent):
    """The Laplace mechanism: noise Lap(bC) on a query whose one record moves it by ℓ1 norm <= C (b the multiplier)."""

    noise_multiplier: Any

    def __post_init__(self) -> None:
        self._set("noise_multiplier", _real("noise_multiplier", self.noise_multiplier, Fraction(0), what="a real >= 0"))


@dataclass(frozen=True)
class DiscreteLaplaceDpEvent(DpEvent):
    """The discrete Laplace mechanism: pmf ∝ e^{−a|x|} on the integers (a the noise parameter), integer sensitivity."""

    noise_parameter: Any
    sensitivity: Any

    def __post_init__(self) -> None:
        self._set("noise_parameter", _real("noise_parameter", self.noise_parameter, Fraction(0), lo_open=True,
                                           what="a real > 0"))  # fmt: skip
        self._set("sensitivity", _int("sensitivity", self.sensitivity, 1, what="an integer >= 1"))


@dataclass(frozen=True)
class DiscreteGaussianDpEvent(DpEvent):
    """The discrete Gaussian mechanism (OpenDP's noise; Canonne–Kamath–Steinke 2020): pmf ∝ e^{−x²/(2σ²)} on the
    integers, integer sensitivity. Not in dp-accounting 0.6."""

    sigma: Any
    sensitivity: Any = 1

    def __post_init__(self) -> None:
        self._set("sigma", _real("sigma", self.sigma, Fraction(0), lo_open=True, what="a real > 0"))
        self._set("sensitivity", _int("sensitivity", self.sensitivity, 1, what="an integer >= 1"))


@dataclass(frozen=True)
class RandomizedResponseDpEvent(DpEvent):
    """Randomized response: the true value with probability 1 − p, else a uniform one of k buckets."""

    noise_parameter: Any
    num_buckets: Any

    def __post_init__(self) -> None:
        self._set("noise_parameter", _real("noise_parameter", self.noise_parameter, Fraction(0), Fraction(1),
                                           what="a probability in [0, 1]"))  # fmt: skip
        self._set("num_buckets", _int("num_buckets", self.num_buckets, 1, what="an integer >= 1"))


@dataclass(frozen=True)
class MixtureOfGaussiansDpEvent(DpEvent):
    """A mixture of Gaussians (Choquette-Choo et al. 2023): a shift c_i with probability p_i, noise σ."""

    standard_deviation: Any
    sensitivities: Any
    sampling_probs: Any

    def __post_init__(self) -> None:
        self._set("standard_deviation", _real("standard_deviation", self.standard_deviation, Fraction(0),
                                              what="a real >= 0"))  # fmt: skip
        sens = tuple(_real("sensitivities", x) for x in _items("sensitivities", self.sensitivities))
        probs = tuple(_real("sampling_probs", x, Fraction(0), Fraction(1), what="probabilities in [0, 1]")
                      for x in _items("sampling_probs", self.sampling_probs))  # fmt: skip
        if not sens or len(sens) != len(probs):
            raise InvalidParameter("sampling_probs", list(self.sampling_probs),
                                   f"as many probabilities as sensitivities ({len(sens)}, at least one)")  # fmt: skip
        if sum(probs) != 1:
            raise InvalidParameter("sampling_probs", [number_text(p) for p in probs], "probabilities summing to 1")
        self._set("sensitivities", sens)
        self._set("sampling_probs", probs)


@dataclass(frozen=True)
class ZCDpEvent(DpEvent):
    """A (ξ, ρ)-zCDP mechanism: Rényi divergence <= ξ + ρα at every order α > 1."""

    rho: Any
    xi: Any = 0

    def __post_init__(self) -> None:
        self._set("rho", _real("rho", self.rho, Fraction(0), what="a real >= 0"))
        self._set("xi", _real("xi", self.xi, Fraction(0), what="a real >= 0"))


@dataclass(frozen=True)
class PoissonSampledDpEvent(DpEvent):
    """Each record enters the sample independently with probability q, then ``event`` runs on the sample."""

    sampling_probability: Any
    event: Any

    def __post_init__(self) -> None:
        self._set("sampling_probability", _real("sampling_probability", self.sampling_probability, Fraction(0),
                                                Fraction(1), what="a probability in [0, 1]"))  # fmt: skip
        self._set("event", _event("event", self.event))


@dataclass(frozen=True)
class SampledWithReplacementDpEvent(DpEvent):
    """``sample_size`` records drawn with replacement from ``source_dataset_size``, then ``event`` on the sample."""

    source_dataset_size: Any
    sample_size: Any
    event: Any

    def __post_init__(self) -> None:
        self._set("source_dataset_size", _int("source_dataset_size", self.source_dataset_size, 1))
        self._set("sample_size", _int("sample_size", self.sample_size, 1))
        self._set("event", _event("event", self.event))


@dataclass(frozen=True)
class SampledWithoutReplacementDpEvent(DpEvent):
    """A uniformly random subset of ``sample_size`` of ``source_dataset_size`` records, then ``event`` on it."""

    source_dataset_size: Any
    sample_size: Any
    event: Any

    def __post_init__(self) -> None:
        n = _int("source_dataset_size", self.source_dataset_size, 1)
        self._set("source_dataset_size", n)
        self._set("sample_size", _int("sample_size", self.sample_size, 1, n,
                                      what=f"an integer in [1, source_dataset_size = {n}]"))  # fmt: skip
        self._set("event", _event("event", self.event))


@dataclass(frozen=True)
class SingleEpochTreeAggregationDpEvent(DpEvent):
    """Tree aggregation over one epoch (Kairouz et al. 2021): Gaussian noise σ on each node, trees of the given
    step counts (one int, or a list of ints for several trees)."""

    noise_multiplier: Any
    step_counts: Any

    def __post_init__(self) -> None:
        self._set("noise_multiplier", _real("noise_multiplier", self.noise_multiplier, Fraction(0), what="a real >= 0"))
        sc = self.step_counts
        if isinstance(sc, (list, tuple)):
            counts: int | tuple[int, ...] = tuple(_int("step_counts", x, 0) for x in _items("step_counts", sc))
            if not counts:
                raise InvalidParameter("step_counts", list(sc), "an integer >= 0 or a non-empty list of them")
        else:
            counts = _int("step_counts", sc, 0, what="an integer >= 0 or a non-empty list of them")
        self._set("step_counts", counts)


@dataclass(frozen=True)
class RepeatAndSelectDpEvent(DpEvent):
    """``event`` repeated a random number of times (mean, shape: Papernot–Steinke 2022) and the best kept; shape
    ``inf`` (a float or the string ``"inf"``) is the Poisson distribution."""

    event: Any
    mean: Any
    shape: Any

    def __post_init__(self) -> None:
        self._set("event", _event("event", self.event))
        self._set("mean", _real("mean", self.mean, Fraction(0), what="a real >= 0"))
        shape = self.shape
        if (isinstance(shape, float) and shape == math.inf) or (isinstance(shape, str) and shape.strip() == "inf"):
            self._set("shape", math.inf)
        else:
            self._set("shape", _real("shape", shape, Fraction(-1), lo_open=True, what="a real > -1, or inf"))


@dataclass(frozen=True)
class TruncatedSubsampledGaussianDpEvent(DpEvent):
    """Poisson sampling with rate q from ``dataset_size`` records, the batch truncated to ``truncated_batch_size``,
    then the Gaussian mechanism with noise multiplier σ."""

    dataset_size: Any
    sampling_probability: Any
    truncated_batch_size: Any
    noise_multiplier: Any

    def __post_init__(self) -> None:
        self._set("dataset_size", _int("dataset_size", self.dataset_size, 1))
        self._set("sampling_probability", _real("sampling_probability", self.sampling_probability, Fraction(0),
                                                Fraction(1), what="a probability in [0, 1]"))  # fmt: skip
        self._set("truncated_batch_size", _int("truncated_batch_size", self.truncated_batch_size, 1))
        self._set("noise_multiplier", _real("noise_multiplier", self.noise_multiplier, Fraction(0), what="a real >= 0"))


@dataclass(frozen=True)
class SelfComposedDpEvent(DpEvent):
    """``event`` run ``count`` times (adaptive composition)."""

    event: Any
    count: Any

    def __post_init__(self) -> None:
        self._set("event", _event("event", self.event))
        self._set("count", _int("count", self.count, 0, 10**12, what="an integer in [0, 10^12]"))


@dataclass(frozen=True)
class ComposedDpEvent(DpEvent):
    """Several events run one after another (adaptive composition)."""

    events: Any

    def __post_init__(self) -> None:
        self._set("events", tuple(_event("events", e) for e in _items("events", self.events)))


#: Every event class by its name (the ``type`` of an event file).
EVENT_CLASSES: dict[str, type[DpEvent]] = {
    c.__name__: c
    for c in (
        RandomizedResponseDpEvent,
        GaussianDpEvent,
        LaplaceDpEvent,
        DiscreteLaplaceDpEvent,
        DiscreteGaussianDpEvent,
        MixtureOfGaussiansDpEvent,
        ZCDpEvent,
        PoissonSampledDpEvent,
        SampledWithReplacementDpEvent,
        SampledWithoutReplacementDpEvent,
        SingleEpochTreeAggregationDpEvent,
        RepeatAndSelectDpEvent,
        TruncatedSubsampledGaussianDpEvent,
        SelfComposedDpEvent,
        ComposedDpEvent,
        NoOpDpEvent,
        NonPrivateDpEvent,
    )
}

_NESTED = {"event", "events"}


def as_event(obj: Any, *, depth: int = 0) -> DpEvent:
    """dpcert's event for ``obj``: a dpcert event as it is, or a dp-accounting ``DpEvent`` (any object whose class
    name is an event name here and which has that event's fields) converted field by field, nested events too.

    Raises:
        InvalidParameter: (``event``) for an object that is no event, or a field out of its domain.
    """
    if isinstance(obj, DpEvent):
        return obj
    if depth > MAX_DEPTH:
        raise InvalidParameter("event", "<nested too deep>", f"events nested at most {MAX_DEPTH} deep")
    name = type(obj).__name__
    cls = EVENT_CLASSES.get(name)
    if cls is None:
        raise InvalidParameter(
            "event", obj, "a DpEvent: dpcert.events' or dp-accounting's " + ", ".join(sorted(EVENT_CLASSES))
        )
    kwargs = {}
    for f in fields(cls):
        if not hasattr(obj, f.name):
            raise InvalidParameter("event", obj, f"a {name} with a field {f.name}")
        v = getattr(obj, f.name)
        if f.name == "event":
            v = as_event(v, depth=depth + 1)
        elif f.name == "events":
            v = [as_event(e, depth=depth + 1) for e in _items("events", v)]
        kwargs[f.name] = v
    return cls(**kwargs)
