"""Optimal composition of ε_1-, …, ε_k-DP mechanisms (Murtagh–Vadhan Thm 1.5), brute force over subsets.

Each test checks a value from an independent source: float code, mpmath over all 2^k subsets, or the homogeneous
formula.
"""

import doctest
import itertools
from fractions import Fraction

import mpmath as mp
import pytest
from harness import assert_float_in_ball, inputs_strategy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcert.arith.ball import Enclosure
from dpcert.composition import QUANTITIES, mv
from dpcert.composition.kov import kov_delta
from dpcert.composition.mv import MV_MAX_K, mv_delta, mv_delta_float
from dpcert.errors import InvalidParameter

MV_DELTA = QUANTITIES["composition.mv.delta"]

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _mpf(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def _frac(v):
    man, exp = v.man_exp
    return Fraction(man) * Fraction(2) ** exp


def mp_subset_delta(eps_list, eps_g):
    """MV Thm 1.5 by enumerating all 2^k subsets, 60 digits."""
    with mp.workdps(60):
        e = [_mpf(x) for x in eps_list]
        eg = mp.exp(_mpf(eps_g))
        s = 0
        for bits in itertools.product((0, 1), repeat=len(e)):
            inside = mp.fsum(x for x, b in zip(e, bits, strict=True) if b)
            outside = mp.fsum(x for x, b in zip(e, bits, strict=True) if not b)
            s += max(mp.exp(inside) - eg * mp.exp(outside), 0)
        z = 1
        for x in e:
            z *= 1 + mp.exp(x)
        return s / z


def assert_in(enc: Enclosure, v, rel=Fraction(1, 10**45)):
    """The 60-digit value v lies in the enclosure, up to mpmath's own rounding.

    The absolute 1e-58 covers the naive formula at an exact tie e^{iε} = e^{ε_g + (k−i)ε}, where 60-digit
    rounding leaves ~1e-60 of a normalised term (≤ 1) instead of 0.
    """
    fv = _frac(v)
    slack = rel * abs(fv) + Fraction(1, 10**58)
    assert enc.lo - slack <= fv <= enc.hi + slack, (enc.decimal(25), mp.nstr(v, 30))


@SETTINGS
@given(inputs_strategy(MV_DELTA, {"eps_list": (0, 3)}))
def test_mv_delta_float_in_ball(inputs):
    assert_float_in_ball(MV_DELTA, inputs)


@pytest.mark.parametrize(
    "eps_list, eps_g",
    [
        (["0.1"], "0"),
        (["0.1", "0.2", "0.3"], "0.1"),
        (["1", "1/3", "0", "2.5"], "1"),
        (["0.5"] * 6, "1"),
        (["0.05", "0.5", "1.5", "0.25", "0.75", "1", "2", "0.01"], "0.3"),
    ],
)
def test_mv_delta_against_brute_force_subset_sum(eps_list, eps_g):
    assert_in(mv_delta(eps_list, eps_g, rel_tol=1e-40), mp_subset_delta(eps_list, eps_g))


@SETTINGS
@given(st.lists(st.integers(0, 30000), min_size=1, max_size=7), st.integers(0, 10**4))
def test_mv_delta_against_brute_force_random(nums, frac):
    eps_list = [Fraction(n, 10**4) for n in nums]
    eps_g = sum(eps_list) * Fraction(frac, 10**4)
    enc = mv_delta(eps_list, eps_g, rel_tol=1e-40)
    assert_in(enc, mp_subset_delta(eps_list, eps_g))


@SETTINGS
@given(st.integers(1, 12), st.integers(1, 30000), st.integers(0, 10**4))
def test_mv_with_equal_eps_equals_homogeneous(k, eps_num, frac):
    eps = Fraction(eps_num, 10**4)
    eps_g = k * eps * Fraction(frac, 10**4)
    het, hom = mv_delta([eps] * k, eps_g, rel_tol=1e-30), kov_delta(k, eps, eps_g, rel_tol=1e-30)
    assert het.overlaps(hom) and het.is_exact == hom.is_exact


def test_eps_zero_reveals_nothing():
    assert mv_delta(["0", "0"], "0") == Enclosure.exact(0)


BAD_INPUTS = [
    (mv_delta, (["0.1", "-0.1"], 0)),
    (mv_delta, ([], 0)),
    (mv_delta, (["0.1"], "-1")),
    (mv_delta, (["0.1"] * (MV_MAX_K + 1), 0)),
    (mv_delta_float, ([0.1] * (MV_MAX_K + 1), 0.0)),
    (mv_delta_float, ([-0.1], 0.0)),
]


@pytest.mark.parametrize("func, args", BAD_INPUTS, ids=[f"{f.__name__}{a!r}"[:60] for f, a in BAD_INPUTS])
def test_bad_input_raises(func, args):
    with pytest.raises(InvalidParameter):
        func(*args)


def test_too_many_mechanisms_message_says_why():
    with pytest.raises(InvalidParameter, match="brute force over 2\\^k"):
        mv_delta(["0.1"] * 21, 0)


def test_docstring_examples():
    failures, tried = doctest.testmod(mv, optionflags=doctest.ELLIPSIS)
    assert tried >= 1 and failures == 0
