"""Balls: three-valued comparisons, rising precision, signs at e^ε, enclosures and safe rounding."""

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given
from hypothesis import strategies as st

from dpcert.arith.ball import Enclosure, ball, ball_to_float, le, lt, refine, sign, sign_at_exp, workprec
from dpcert.arith.exact import X
from dpcert.arith.rounding import fraction_to_float
from dpcert.errors import PrecisionExhausted


def test_ball_refuses_floats():
    with pytest.raises(TypeError):
        ball(0.1)


def test_ball_of_a_tenth_contains_a_tenth_not_the_double():
    with workprec(200):
        b = ball(Fraction(1, 10))
    enc = Enclosure.from_ball(b)
    assert enc.contains(Fraction(1, 10))
    assert not enc.contains(Fraction(0.1))  # deliberately the binary double


def test_three_valued_comparisons():
    with workprec(64):
        third = ball(Fraction(1, 3))
        assert lt(third, ball(Fraction(1, 2))) is True
        assert lt(ball(Fraction(1, 2)), third) is False
        assert lt(third, third) is None  # overlapping balls: unknown, never guessed
        assert le(ball(1), ball(1)) is True  # exact balls compare exactly
        assert sign(ball(0)) == 0 and sign(third) == 1 and sign(-third) == -1
        assert sign(third - third) is None


def test_refine_raises_precision_until_decided():
    # e^(1/10^30) - 1 - 1/10^30 > 0 needs more than 64 bits
    def step(prec):
        x = ball(Fraction(1, 10**30))
        return sign(x.exp() - 1 - x)

    s, prec = refine(step, what="tiny")
    assert s == 1 and prec > 64


def test_refine_gives_up_at_the_stated_maximum():
    with pytest.raises(PrecisionExhausted) as info:
        refine(lambda prec: None, what="never", max_prec=256)
    assert info.value.max_prec == 256


def test_sign_at_exp_exact_zero_and_transcendental_signs():
    f = (X - 1) / (X + 1)
    assert sign_at_exp(f, Fraction(1, 10)) == 1
    assert sign_at_exp(f, Fraction(-1, 10)) == -1
    assert sign_at_exp(f, Fraction(0)) == 0  # exact value at x = 1
    assert sign_at_exp((X + 1) ** 3 - (X**3 + 3 * X**2 + 3 * X + 1), Fraction(7, 3)) == 0


def test_sign_at_exp_close_to_zero_needs_and_gets_precision():
    # x - (1 + eps + eps^2/2 + eps^3/6) at eps = 1e-12 is about eps^4/24 ~ 4e-50 > 0
    e = Fraction(1, 10**12)
    taylor = 1 + e + e**2 / 2 + e**3 / 6
    assert sign_at_exp(X - taylor, e) == 1


@given(st.fractions(min_value=-50, max_value=50, max_denominator=1000))
def test_sign_at_exp_matches_mpmath(eps):
    f = (X**3 - 2 * X + Fraction(1, 3)) / (X + 2)
    mpmath.mp.dps = 60
    x = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
    ref = (x**3 - 2 * x + mpmath.mpf(1) / 3) / (x + 2)
    assert sign_at_exp(f, eps) == (1 if ref > 0 else -1)


def test_enclosure_json_round_trip_is_outward():
    with workprec(128):
        b = ball(Fraction(2)).sqrt()
    enc = Enclosure.from_ball(b)
    back = Enclosure.from_json(enc.to_json(digits=12))
    assert back.lo <= enc.lo and enc.hi <= back.hi
    assert back.contains(Fraction(141421356237, 10**11))


@given(st.fractions(min_value=Fraction(-(10**30)), max_value=Fraction(10**30), max_denominator=10**40))
def test_fraction_to_float_is_directed(x):
    up, down = fraction_to_float(x, "up"), fraction_to_float(x, "down")
    assert Fraction(down) <= x <= Fraction(up)
    assert up == down or math.nextafter(down, math.inf) == up


def test_rounding_is_by_ulps_not_an_absolute_nudge():
    tiny = Fraction(1, 10**20)
    up = fraction_to_float(tiny, "up")
    assert Fraction(up) >= tiny and up < 1.0000001e-20  # Tumult-style +1e-15 would give 1e-15


def test_ball_to_float_bounds_the_whole_ball():
    with workprec(64):
        b = arb(Fraction(1, 3).numerator) / 3
    enc = Enclosure.from_ball(b)
    assert Fraction(ball_to_float(b, "up")) >= enc.hi
    assert Fraction(ball_to_float(b, "down")) <= enc.lo


def test_enclosure_safe_floats_and_display():
    with workprec(64):
        b = ball(Fraction(1, 3))
    enc = Enclosure.from_ball(b)
    assert Fraction(enc.float_up()) >= enc.hi and Fraction(enc.float_down()) <= enc.lo
    assert Enclosure.exact(Fraction(3, 8)).short() == "0.375"
    assert Enclosure.exact(Fraction(1, 3)).short(5) == "≈0.33333"
    assert enc.short(6) == "[0.333333, 0.333334]"  # outward rounding never claims 6 exact digits


def test_an_exact_value_too_long_to_print_is_recorded_by_its_outward_decimals():
    # k = 1000 compositions at delta = 1e-16 give an exact rational with a ~17,000-digit denominator; Python refuses
    # str() beyond 4300 digits, which made `dpcert eval ... --json` an internal error
    from fractions import Fraction

    from dpcert.arith.ball import Enclosure

    x = 1 - (1 - Fraction(1, 10**16)) ** 1000
    record = Enclosure(x, x).to_json()
    assert "exact" not in record
    back = Enclosure.from_json(record)
    assert back.lo <= x <= back.hi and back.hi - back.lo < Fraction(1, 10**30)
    small = Enclosure(Fraction(1, 3), Fraction(1, 3)).to_json()
    assert small["exact"] == "1/3"
