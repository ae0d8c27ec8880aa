"""Exact parsing and rational functions in x = e^ε."""

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dpcert.arith.exact import RationalFunction, X, fraction_to_decimal, parse_int, parse_rational
from dpcert.errors import InvalidParameter


def test_decimal_string_is_exact_decimal():
    e = parse_rational("0.1", "eps")
    assert e.value == Fraction(1, 10)
    assert (e.source, e.given) == ("str", "0.1")


def test_float_is_its_binary_value_and_recorded_as_such():
    e = parse_rational(0.1, "eps")
    assert e.value == Fraction(3602879701896397, 36028797018963968)
    assert e.value != Fraction(1, 10)
    assert e.source == "float"


@pytest.mark.parametrize(
    "text,value",
    [("1e-6", Fraction(1, 10**6)), ("1/3", Fraction(1, 3)), (" 20 ", 20), ("-2.5", Fraction(-5, 2))],
)
def test_string_forms(text, value):
    assert parse_rational(text, "x").value == value


def test_decimal_and_int():
    assert parse_rational(Decimal("0.0003"), "d").value == Fraction(3, 10000)
    assert parse_rational(7, "k").value == 7


@pytest.mark.parametrize("bad", ["nan", "inf", "", "0.1.2", "abc", float("nan"), float("inf"), True, None, [1]])
def test_bad_reals_raise_invalid_parameter_naming_the_parameter(bad):
    with pytest.raises(InvalidParameter) as info:
        parse_rational(bad, "eps")
    assert "eps" in str(info.value)


@pytest.mark.parametrize("bad", [2.0, 2.5, "2.0", "two", True, Fraction(1, 2)])
def test_integers_refuse_floats_and_non_integers(bad):
    with pytest.raises(InvalidParameter) as info:
        parse_int(bad, "k")
    assert "k=" in str(info.value)


def test_integer_strings_and_ints():
    assert parse_int("20", "k") == 20
    assert parse_int(-3, "k") == -3


@given(st.fractions(max_denominator=10**6).filter(lambda f: f != 0), st.integers(1, 25))
@example(Fraction(1, 3), 6)
@example(Fraction(-5352, 1000), 4)
def test_fraction_to_decimal_brackets_the_value(x, digits):
    lo = Fraction(fraction_to_decimal(x, digits, "down"))
    hi = Fraction(fraction_to_decimal(x, digits, "up"))
    assert lo <= x <= hi
    # the rounding is to `digits` significant digits: hi - lo is at most one unit in the last place
    assert hi - lo <= abs(x) * Fraction(10) ** (1 - digits) * 10


def test_rational_function_identities():
    f = (X - 1) / (X + 1)
    assert f(Fraction(3)) == Fraction(1, 2)
    assert (f - f).is_zero()
    # (x^2 - 1)/(x - 1) reduces to x + 1 exactly
    assert (X * X - 1) / (X - 1) == X + 1
    # tanh(eps/2) identity: 1 - 2/(x+1) == (x-1)/(x+1)
    assert 1 - 2 / (X + 1) == f
    assert (X**-2) * X * X == RationalFunction(1)


def test_rational_function_zero_division():
    with pytest.raises(ZeroDivisionError):
        X / (X - X)
