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


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 500),
    st.fractions(Fraction(1, 1000), 3, max_denominator=10**4),
    st.fractions(Fraction(1, 10**9), 1, max_denominator=10**9),
)
def test_general_eps_matches_independent_mpmath(k, eps, dp):
    enc = Q["composition.general.eps"].enclose(k=k, eps=eps, delta_prime=dp, rel_tol=1e-30)
    ref = kov34_mpmath(k, eps, dp)
    assert enc.lo - Fraction(1, 10**40) <= Fraction(str(ref)) <= enc.hi + Fraction(1, 10**40)


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
    # br_composition notes §6.1: classic DRV10 at eps = 0.1, k = 100, delta' = 1e-6 gives 6.30823
    enc = Q["composition.drv.eps"].enclose(k=100, eps="0.1", delta_prime="1e-6")
    assert Fraction("6.308225") < enc.lo and enc.hi < Fraction("6.308235")
    ref = mpmath.sqrt(2 * 100 * mpmath.log(10**6)) * mp("0.1") + 100 * mp("0.1") * (mpmath.e ** mp("0.1") - 1)
    assert enc.contains(Fraction(str(ref))) or abs(float(enc.lo) - float(ref)) < 1e-30


def test_rdp_conversion_and_gaussian():
    assert Q["rdp.gnmax.eps"].enclose(lam=2, sigma=4).lo == Fraction(1, 8)
    assert Q["rdp.gaussian.eps"].enclose(lam=2, sigma=4, sensitivity=1).lo == Fraction(1, 16)
    enc = Q["rdp.to_dp.eps"].enclose(lam=11, eps_rdp="0.5", delta="1e-5")
    ref = mp("0.5") + mpmath.log(10**5) / 10
    assert abs(Fraction(str(ref)) - enc.lo) < Fraction(1, 10**14)


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
