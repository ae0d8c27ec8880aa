"""Exactly what is written: ASCII digits only, and every size limit an InvalidParameter (issue 18 §3).

Before: ``parse_rational("١٢")`` was 12 (``\\d`` and ``Fraction()`` accept any Unicode digit), a certificate's
``given`` could hold confusable digits (``Decimal``/``float`` accept them too), and a number of 4,301–8,010 digits
passed the length check and crashed in ``int()`` on Python's int-string limit (a ValueError, an "internal error").
"""

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpcert.arith.exact import MAX_DIGITS, Exact, parse_int, parse_rational
from dpcert.errors import InvalidParameter

# Arabic-Indic, Devanagari, fullwidth, mathematical bold and superscript-free digits: all Nd, all accepted by int()
UNICODE_DIGITS = ["١٢", "१२", "１２", "𝟏𝟐", "1٢", "0.١", "1e١", "١/٣", "٣.٥e-٢"]


@pytest.mark.parametrize("text", UNICODE_DIGITS)
def test_non_ascii_digits_are_refused_by_every_parser(text):
    with pytest.raises(InvalidParameter, match="ASCII"):
        parse_rational(text, "eps")
    if "." not in text and "e" not in text and "/" not in text:
        with pytest.raises(InvalidParameter, match="ASCII"):
            parse_int(text, "k")


def test_python_itself_reads_unicode_digits():
    """Why the parsers must check: every Python number constructor takes "١٢" as 12."""
    assert int("١٢") == 12 and float("١٢") == 12.0 and Decimal("١٢") == 12 and Fraction("١٢") == 12


@pytest.mark.parametrize(
    "record",
    [
        {"given": "١٢", "type": "decimal", "exact": "12"},  # Decimal("١٢") == 12
        {"given": "١٢", "type": "float", "exact": "12"},  # float("١٢") == 12.0
        {"given": "١٢", "type": "int", "exact": "12"},
        {"given": "١/٣", "type": "fraction", "exact": "1/3"},
        {"given": "12", "type": "str", "exact": "١٢"},
    ],
)
def test_certificate_records_with_confusable_digits_are_refused(record):
    with pytest.raises(InvalidParameter):
        Exact.from_json(record, "eps")


def test_ascii_records_still_round_trip():
    for value in ["0.1", 3, Fraction(1, 3), Decimal("1E-7"), 0.1]:
        e = parse_rational(value, "x")
        assert Exact.from_json(e.to_json(), "x") == e


def _digits(n: int, d: str = "7") -> str:
    return d * n


# every path that used to reach int() with more than 4300 digits, and its neighbours on both sides of MAX_DIGITS
TOO_BIG = [
    _digits(4301),  # an integer of 4301 digits (passed the 8010-character check, crashed in Fraction)
    _digits(8000),
    "0." + _digits(4500),  # a decimal's fraction digits
    _digits(4400) + ".5",  # a decimal's integer digits
    "1/" + _digits(4301),  # a fraction's denominator
    _digits(4301) + "/3",  # a fraction's numerator
    "1e" + _digits(4400, "1"),  # an exponent of 4400 digits (int() of the exponent crashed)
    "1e-" + _digits(5000, "1"),
    "0." + "0" * 5000 + "1",  # 1e-5001: a small value whose denominator is too large
    "1e4001",
    "1e-4001",
]


@pytest.mark.parametrize("text", TOO_BIG, ids=lambda t: f"{len(t)}chars:{t[:6]}")
def test_numbers_past_the_int_string_limit_are_invalid_parameter(text):
    with pytest.raises(InvalidParameter, match=f"at most {MAX_DIGITS} digits"):
        parse_rational(text, "eps")


@pytest.mark.parametrize("text", [_digits(4301), "+" + _digits(4301)])
def test_long_integers_are_invalid_parameter(text):
    with pytest.raises(InvalidParameter, match=f"at most {MAX_DIGITS} digits"):
        parse_int(text, "k")


@pytest.mark.parametrize(
    "text, value",
    [
        # inside the limit, written with padding that does not count: leading and trailing zeros
        ("0" * 5000 + "1", Fraction(1)),
        ("1." + "0" * 5000, Fraction(1)),
        ("0" * 3000 + "1/" + "0" * 3000 + "3", Fraction(1, 3)),
        ("1" + "0" * 4500 + "e-3999", Fraction(10) ** 501),
        ("1e4000", Fraction(10) ** 4000),
        ("1e-4000", Fraction(1, 10**4000)),
        ("-" + "9" * 4000, -(10**4000 - 1)),
        ("-.5e1", Fraction(-5)),
        ("+0.000", Fraction(0)),
    ],
)
def test_the_limit_counts_significant_digits(text, value):
    assert parse_rational(text, "x").value == value


@settings(max_examples=200)
@given(
    sign=st.sampled_from(["", "+", "-"]),
    whole=st.text("0123456789", max_size=12),
    part=st.none() | st.text("0123456789", max_size=12),
    exp=st.none() | st.integers(-60, 60),
    exp_sign=st.booleans(),
)
@example(sign="", whole="", part="5", exp=None, exp_sign=False)
def test_decimal_strings_equal_pythons_fraction(sign, whole, part, exp, exp_sign):
    """The hand-measured parse gives exactly what ``fractions.Fraction`` gives for ASCII decimals (independent)."""
    if not whole and not part:
        return
    text = sign + whole + ("" if part is None else "." + part)
    if exp is not None:
        text += ("E" if exp_sign else "e") + str(exp)
    assert parse_rational(text, "x").value == Fraction(text)


@settings(max_examples=100)
@given(st.integers(-(10**30), 10**30), st.integers(1, 10**30), st.sampled_from(["", "000"]))
def test_fraction_strings_equal_pythons_fraction(p, q, pad):
    text = f"{p}/{pad}{q}"
    assert parse_rational(text, "x").value == Fraction(p, q)
