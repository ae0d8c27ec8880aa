"""An enclosure never turns into a float implicitly: the user names the end (or the midpoint) they want."""

from fractions import Fraction

import pytest

import dpcert
from dpcert.arith.ball import Enclosure


def test_no_implicit_float_and_the_error_names_the_choices():
    enc = dpcert.kov_eps(k=1000, eps="0.1", delta="1e-6")
    with pytest.raises(TypeError) as info:
        float(enc)  # before: the midpoint 19.344671447993044, at which delta exceeds 1e-6
    for choice in ("float_up()", "float_down()", "mid()"):
        assert choice in str(info.value)
    # the safe end is the upper one: delta(eps_g) at float_up() is within 1e-6 (an independent certified evaluation)
    up = enc.float_up()
    assert Fraction(up) >= enc.hi and dpcert.kov_delta(k=1000, eps="0.1", eps_g=up).hi <= Fraction(1, 10**6)
    assert enc.float_down() <= enc.lo


def test_mid_is_the_exact_midpoint():
    assert Enclosure(Fraction(1, 3), Fraction(1, 2)).mid() == Fraction(5, 12)
    assert Enclosure(None, Fraction(1)).mid() is None
