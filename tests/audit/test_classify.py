"""The audit's placement of a peer's answer against an enclosure (pure logic, no peer needed)."""

from fractions import Fraction

import pytest

from dpcert.audit.run import classify

LO, HI = Fraction(1), Fraction(2)


@pytest.mark.parametrize(
    "claim, value, expected",
    [
        ("upper", 0.5, ("unsafe", 0.5, "below")),  # a bound below the truth
        ("upper", 3.0, ("loose", 0.5, "above")),
        ("upper", 1.5, ("inside", 0.0, None)),
        ("value", 0.5, ("unsafe", 0.5, "below")),
        ("value", 3.0, ("wrong", 0.5, "above")),  # claimed exact, above the truth
        ("lower", 3.0, ("wrong", 0.5, "above")),
        ("lower", 0.5, ("loose", 0.5, "below")),
        ("upper", float("inf"), ("loose", float("inf"), "above")),
        ("bracket", (0.5, 1.0, 0.9), ("unsafe", 0.1, "below")),  # the whole bracket below the truth
        ("bracket", (2.5, 3.0, 4.0), ("wrong", 0.25, "above")),
        ("bracket", (0.5, 1.5, 3.0), ("inside", 0.5, "above")),  # holds it; the upper end 50 % above
    ],
)
def test_verdicts(claim, value, expected):
    verdict, distance, direction = classify(claim, value, LO, HI)
    assert (verdict, direction) == (expected[0], expected[2])
    assert distance == pytest.approx(expected[1])


def test_nan_is_wrong():
    assert classify("value", float("nan"), LO, HI)[0] == "wrong"


def test_a_stated_tolerance_makes_a_value_inside_but_never_an_unsafe_bound_safe():
    tol = Fraction(1, 10)
    assert classify("value", 0.95, LO, HI, abs_tol=tol) == ("inside", pytest.approx(0.05), "below")
    assert classify("value", 2.05, LO, HI, abs_tol=tol)[0] == "inside"
    assert classify("upper", 0.95, LO, HI, abs_tol=tol)[0] == "unsafe"
    assert classify("upper", 2.05, LO, HI, abs_tol=tol)[0] == "inside"
    assert classify("value", 0.85, LO, HI, abs_tol=tol)[0] == "unsafe"


def test_distance_from_a_zero_end_is_absolute():
    assert classify("upper", -0.25, Fraction(0), Fraction(1)) == ("unsafe", 0.25, "below")
    assert classify("upper", 0.25, Fraction(0), Fraction(0)) == ("loose", 0.25, "above")


def test_a_distance_too_large_for_a_float_is_infinite():
    # a certified 1e-4000 against a peer's 1e-300: the ratio does not fit a double (it raised OverflowError)
    tiny = Fraction(1, 10**4000)
    assert classify("upper", 1e-300, tiny, tiny) == ("loose", float("inf"), "above")


def test_a_value_one_ulp_from_the_truth_is_inside_but_a_bound_one_ulp_below_is_unsafe():
    import math

    third = Fraction(1, 3)
    below = math.nextafter(float(third), 0) if Fraction(float(third)) > third else float(third)
    assert Fraction(below) < third
    assert classify("value", below, third, third)[0] == "inside"
    assert classify("upper", below, third, third)[0] == "unsafe"
    assert classify("value", math.nextafter(below, 0), third, third)[0] == "unsafe"  # two ulps: not faithful


def test_a_negative_value_where_the_truth_is_zero_is_out_of_domain_not_unsafe():
    # prv-accountant's compute_epsilon at δ = 0.9, σ = 1 returns about -2.29; the exact ε(0.9) is 0 (clamped)
    assert classify("bracket", (-2.3, -2.29, -2.28), Fraction(0), Fraction(0))[0] == "unsafe"  # a bracket: below
    assert classify("upper", -2.28, Fraction(0), Fraction(0)) == ("wrong", 2.28, "below")
