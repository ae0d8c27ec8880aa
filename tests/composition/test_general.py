"""Basic, advanced (DRV) and general (KOV Thm 3.4) composition; RDP of the Gaussian and its conversion."""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.composition import QUANTITIES as Q
from dpcert.errors import InvalidParameter

mpmath.mp.dps = 50


def mp(x):
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def kov34_mpmath(k, eps, dp):
    """KOV Thm 3.4 written directly from DaRRM Thm 2.3, evaluated with mpmath at 50 digits."""
    e, d = mp(eps), mp(dp)
    drift = (mpmath.e**e - 1) * e * k / (mpmath.e**e + 1)
    return min(
        k * e,
        drift + e * mpmath.sqrt(2 * k * mpmath.log(mpmath.e + mpmath.sqrt(k * e**2) / d)),
        drift + e * mpmath.sqrt(2 * k * mpmath.log(1 / d)),
    )


def assert_matches_50_digits(quantity, inputs, ref):
    """The 45-digit enclosure contains the 50-digit mpmath reference (a miss in any of 45 digits fails)."""
    enc = quantity.enclose(inputs, rel_tol=1e-45)
    slack = Fraction(1, 10**47) * abs(Fraction(str(ref)))  # mpmath's own rounding at 50 digits
    assert enc.lo - slack <= Fraction(str(ref)) <= enc.hi + slack, (enc, ref)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 500),
    st.fractions(Fraction(1, 1000), 3, max_denominator=10**4),
    st.fractions(Fraction(1, 10**9), 1, max_denominator=10**9),
)
def test_general_eps_matches_independent_mpmath(k, eps, dp):
    assert_matches_50_digits(
        Q["composition.general.eps"], {"k": k, "eps": eps, "delta_prime": dp}, kov34_mpmath(k, eps, dp)
    )


def test_general_eps_is_exactly_k_eps_when_that_term_wins():
    # DaRRM Table 2's 5.352 is 20 x 0.2676 exactly: an exact value, certified at equality, not a ball around it
    enc = Q["composition.general.eps"].enclose(k=20, eps="0.2676", delta_prime="0.0001")
    assert enc.is_exact and enc.lo == Fraction("5.352")


def test_general_delta_float_is_an_independent_log_space_evaluation():
    # 1 - (1-d)^k (1-d') for tiny d: the direct float form cancels to 0; the log-space twin keeps every digit
    q = Q["composition.general.delta"]
    exact = q.enclose(k=3, delta="1e-18", delta_prime="1e-18").lo
    assert abs(Fraction(q.evaluate_float(k=3, delta="1e-18", delta_prime="1e-18")) / exact - 1) < Fraction(1, 10**15)
    assert 1 - (1 - 1e-18) ** 3 * (1 - 1e-18) == 0.0  # what float() of the naive formula would have said


def test_general_delta_exact():
    enc = Q["composition.general.delta"].enclose(k=20, delta="0.0003", delta_prime="0.0001")
    assert enc.is_exact
    assert enc.lo == 1 - Fraction(9997, 10000) ** 20 * Fraction(9999, 10000)


def test_general_eps_limit_delta_prime_to_zero_is_simple_composition():
    # the log(1/delta') term diverges, so the min is k*eps (DaRRM §6.1 uses this limit)
    enc = Q["composition.general.eps"].enclose(k=11, eps="0.1", delta_prime="1e-300")
    assert enc.contains(Fraction(11, 10))


def test_simple_composition_is_exact():
    assert Q["composition.simple.eps"].enclose(k=3, eps="0.0892").lo == Fraction(2676, 10000)
    assert Q["composition.simple.delta"].enclose(k=7, delta="0.0001").lo == Fraction(7, 10000)


def test_drv_advanced_composition_matches_notes_value():
    # independent computation: classic DRV10 at eps = 0.1, k = 100, delta' = 1e-6 gives 6.30823
    enc = Q["composition.drv.eps"].enclose(k=100, eps="0.1", delta_prime="1e-6")
    assert Fraction("6.308225") < enc.lo and enc.hi < Fraction("6.308235")
    ref = mpmath.sqrt(2 * 100 * mpmath.log(10**6)) * mp("0.1") + 100 * mp("0.1") * (mpmath.e ** mp("0.1") - 1)
    assert_matches_50_digits(Q["composition.drv.eps"], {"k": 100, "eps": "0.1", "delta_prime": "1e-6"}, ref)


def test_rdp_conversion_and_gaussian():
    assert Q["rdp.gnmax.eps"].enclose(lam=2, sigma=4).lo == Fraction(1, 8)
    assert Q["rdp.gaussian.eps"].enclose(lam=2, sigma=4, sensitivity=1).lo == Fraction(1, 16)
    ref = mp("0.5") + mpmath.log(10**5) / 10
    assert_matches_50_digits(Q["rdp.to_dp.eps"], {"lam": 11, "eps_rdp": "0.5", "delta": "1e-5"}, ref)


@pytest.mark.parametrize(
    "name,inputs,param",
    [
        ("composition.general.eps", {"k": 0, "eps": "0.1", "delta_prime": "0.1"}, "k"),
        ("composition.general.eps", {"k": 2.0, "eps": "0.1", "delta_prime": "0.1"}, "k"),
        ("composition.general.eps", {"k": 2, "eps": "-0.1", "delta_prime": "0.1"}, "eps"),
        ("composition.general.eps", {"k": 2, "eps": "0.1", "delta_prime": "0"}, "delta_prime"),
        ("composition.general.delta", {"k": 2, "delta": "1", "delta_prime": "0.1"}, "delta"),
        ("composition.general.delta", {"k": 2, "delta": "-0.1", "delta_prime": "0.1"}, "delta"),
        ("composition.simple.eps", {"k": 2}, "eps"),
        ("composition.simple.eps", {"k": 2, "eps": "0.1", "bogus": 1}, "bogus"),
        ("rdp.to_dp.eps", {"lam": 1, "eps_rdp": "0.1", "delta": "0.1"}, "lam"),
    ],
)
def test_bad_input_names_the_parameter(name, inputs, param):
    with pytest.raises(InvalidParameter) as info:
        Q[name].enclose(inputs)
    assert info.value.name == param
