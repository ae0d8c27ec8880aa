"""Rounds/Truncates.printed_as and at_printed_precision: a value written as the printed number is written.

The independent source is :mod:`decimal`: ``Decimal.quantize`` at the printed exponent (ROUND_HALF_EVEN for
rounding, ROUND_DOWN for truncation) and ``Decimal.scaleb`` for scientific notation.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpcert.arith.ball import Enclosure
from dpcert.core.claim import Rounds, Truncates


def _decimal_of(x: Fraction) -> Decimal:
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        return Decimal(x.numerator) / Decimal(x.denominator)


def _expected(x: Fraction, printed: str, how: str) -> str:
    """``x`` quantized like ``printed``: same last digit (same exponent in scientific notation), by decimal."""
    mode = decimal.ROUND_HALF_EVEN if how == "round" else decimal.ROUND_DOWN
    mant, _, exp = printed.lower().partition("e")
    places = len(mant.partition(".")[2])
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        shifted = _decimal_of(x).scaleb(-int(exp or 0))
        q = shifted.quantize(Decimal(1).scaleb(-places), rounding=mode)
        text = f"{q:f}"
    if how == "round" and text.startswith("-") and Decimal(text) == 0:
        text = text[1:]  # a rounded zero is printed unsigned; a truncated one keeps its sign, as Decimal does
    if exp:
        text += printed[len(mant)] + exp
    return text


def test_the_issue_example():
    assert Rounds("9.900").printed_as(Fraction("9.900906703")) == "9.901"
    enc = Enclosure(Fraction("9.9009067033056544255"), Fraction("9.9009067033056544351"))
    assert Rounds("9.900").at_printed_precision(enc) == "9.901"
    assert Truncates("9.900").at_printed_precision(enc) == "9.900"


@pytest.mark.parametrize(
    ("printed", "x", "want"),
    [
        ("0.030", "0.0296558", "0.030"),  # a trailing zero counts
        ("1.2E-6", "1.25e-6", "1.2E-6"),  # a tie goes to even, the E kept
        ("1.2e-6", "1.35e-6", "1.4e-6"),
        ("15.044", "15.0444835", "15.044"),
        ("34.31", "62.3128852", "62.31"),
        ("5", "4.5", "4"),
        ("-0.12", "-0.1251", "-0.13"),
    ],
)
def test_rounds_printed_as(printed, x, want):
    assert Rounds(printed).printed_as(Fraction(x)) == want == _expected(Fraction(x), printed, "round")


def test_significant_figures_follow_the_value():
    # 2 significant figures of the true value, whatever the printed magnitude
    assert Rounds("1200", figures=2).printed_as(Fraction(987)) == "990"
    assert Rounds("0.012", figures=2).printed_as(Fraction("0.0123")) == "0.012"


def test_an_enclosure_across_a_rounding_boundary_shows_both_ends():
    enc = Enclosure(Fraction("9.9004"), Fraction("9.9006"))
    assert Rounds("9.800").at_printed_precision(enc) == "9.900 to 9.901"
    assert Rounds("9.800").at_printed_precision(Enclosure(None, Fraction(1))) is None


printed_numbers = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{'.' + frac if frac else ''}{exp}",
    st.sampled_from(["", "-"]),
    st.integers(0, 999).map(str),
    st.text("0123456789", max_size=5),
    st.sampled_from(["", "e-6", "E3", "e+2", "E-12"]),
)
values = st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**9)


@settings(max_examples=200, deadline=None)
@given(printed_numbers, values)
@example("0.030", Fraction(296558, 10**7))
@example("1.2E-6", Fraction(125, 10**8))
def test_printed_as_agrees_with_decimal_quantize(printed, x):
    assert Rounds(printed).printed_as(x) == _expected(x, printed, "round")
    assert Truncates(printed).printed_as(x) == _expected(x, printed, "truncate")


@settings(max_examples=200, deadline=None)
@given(printed_numbers, values)
def test_the_value_written_so_is_decided_as_printing_so(printed, x):
    """Writing x as the table would have: Truncates of that text holds for x; Rounds holds unless x is a tie."""
    assert Truncates(Truncates(printed).printed_as(x)).decide(Enclosure.exact(x)) is True
    rounded = Rounds(Rounds(printed).printed_as(x))
    assert rounded.decide(Enclosure.exact(x)) in (True, None)
    lo, hi = rounded.interval
    if rounded.decide(Enclosure.exact(x)) is None:
        assert x in (lo, hi)  # only a value on a rounding boundary is left undecided
