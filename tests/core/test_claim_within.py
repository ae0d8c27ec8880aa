"""The Within comparison (a golden vector's claim "the value lies in [lo, hi]"): decided on exact ends, read back
from its JSON record, malformed records refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpcert.arith.ball import Enclosure
from dpcert.core.claim import Within, comparison_from_json
from dpcert.errors import InvalidParameter

W = Within("0.1", "0.2")


@pytest.mark.parametrize(
    ("lo", "hi", "want"),
    [
        ("0.1", "0.2", True),  # the closed ends themselves
        ("0.15", "0.15", True),
        ("0.2", "0.21", None),  # straddles hi
        ("0.05", "0.1", None),
        ("0.2000000000000000000001", "0.3", False),
        ("0", "0.0999999999999999999999", False),
    ],
)
def test_within_decides_on_exact_ends(lo, hi, want):
    assert W.decide(Enclosure(Fraction(lo), Fraction(hi))) is want


def test_within_reads_decimals_exactly_and_round_trips():
    w = Within("1.5e-7", "3e+45")
    assert w.interval == (Fraction(15, 10**8), Fraction(3 * 10**45))
    assert comparison_from_json(w.to_json()) == w
    assert w.describe() == "lies in [1.5e-7, 3e+45]"


@pytest.mark.parametrize(
    "record",
    [
        {"kind": "within", "value": {"lo": "0.2", "hi": "0.1"}},
        {"kind": "within", "value": {"lo": "0x1", "hi": "1"}},
        {"kind": "within", "value": {"lo": 0.1, "hi": "1"}},
        {"kind": "within", "value": {"lo": "0.1"}},
        {"kind": "within", "value": "0.1"},
    ],
)
def test_malformed_within_records_are_refused(record):
    with pytest.raises(InvalidParameter):
        comparison_from_json(record)
