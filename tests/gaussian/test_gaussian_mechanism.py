"""gaussian.delta / gaussian.eps / gaussian.sigma against mpmath at 50 digits, independent mpmath values and the
peers."""

from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.errors import InvalidParameter
from dpcert.gaussian.mechanism import (
    GAUSSIAN_DELTA,
    GAUSSIAN_EPS,
    GAUSSIAN_SIGMA,
    gaussian_delta,
    gaussian_eps,
    gaussian_sigma,
)


def to_mp(x):
    if isinstance(x, mp.mpf):
        return x
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def mp_delta(eps, sigma, sensitivity=1, k=1, dps=50):
    """Balle–Wang's δ_μ(ε) in mpmath, with guard digits for the cancellation (independent of dpcert's arb code)."""
    with mp.workdps(dps + 60):
        e, s, d = (to_mp(x) for x in (eps, sigma, sensitivity))
        mu = mp.sqrt(k) * d / s
        return mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu)


def mp_delta_integral(eps, sigma):
    """δ_μ(ε) = ∫_0^∞ e^{-t} Φ̄((ε + t − μ²/2)/μ) dt by mpmath quadrature: a second, positive formula."""
    with mp.workdps(30):
        e, mu = mp.mpf(eps), 1 / mp.mpf(sigma)
        return mp.quad(lambda t: mp.exp(-t) * mp.ncdf(-(e + t - mu**2 / 2) / mu), [0, 1, 10, mp.inf])


def inside(enc, x, rel=Fraction(1, 10**45)):
    x = Fraction(mp.nstr(x, 60)) if not isinstance(x, Fraction) else x
    slack = abs(x) * rel
    return enc.lo - slack <= x <= enc.hi + slack


@pytest.mark.parametrize(
    "eps,sigma,sens,k",
    [
        ("1", "1", "1", 1),
        ("0", "1", "1", 1),
        ("-3", "1", "1", 1),  # any real eps: 1 − e^eps < delta < 1
        ("0.5", "100", "1", 1),  # tiny mu: the terms cancel to 3 digits
        ("3", "0.7", "2", 5),  # sensitivity and k-fold composition
        ("40", "1", "1", 1),  # delta = 3.9e-343, far below the doubles
        ("20", "0.3", "1", 1),
    ],
)
def test_delta_matches_mpmath_at_50_digits(eps, sigma, sens, k):
    enc = GAUSSIAN_DELTA.enclose(eps=eps, sigma=sigma, sensitivity=sens, k=k, rel_tol=1e-50, abs_tol=0)
    assert enc.rel_width() <= 1e-50
    assert inside(enc, mp_delta(eps, sigma, sens, k))


def test_delta_matches_an_independent_quadrature():
    for eps, sigma in (("0.3", "2"), ("2", "0.8")):
        enc = gaussian_delta(eps, sigma)
        ref = Fraction(mp.nstr(mp_delta_integral(eps, sigma), 30))  # a 30-digit quadrature
        assert abs(enc.mid() - ref) <= ref * Fraction(1, 10**20)


def test_relative_accuracy_is_kept_far_below_1e_300():
    # the independent mpmath value at sigma = 1, eps = 40 (dp_accounting and autodp underflow to 0 there)
    enc = GAUSSIAN_DELTA.enclose(eps="40", sigma="1", rel_tol=1e-15, abs_tol=0)
    assert enc.rel_width() <= 1e-15
    assert enc.decimal(11) == ("3.9089708239e-343", "3.908970824e-343")
    assert GAUSSIAN_DELTA.evaluate_float(eps="40", sigma="1") == 0.0  # the float twin underflows; the ball does not


def test_defaults_sensitivity_one_and_k_one_are_recorded_like_given_inputs():
    parsed = GAUSSIAN_DELTA.parse({"eps": "1", "sigma": "2"})
    assert parsed["k"] == 1 and parsed["sensitivity"].value == 1 and parsed["sensitivity"].given == "1"
    assert "(default 1)" in GAUSSIAN_DELTA.params[2].allowed()


def test_k_fold_composition_is_one_gaussian_with_sigma_over_sqrt_k():
    # k = 9 mechanisms with sigma = 3 compose to exactly sigma = 1 (Dong–Roth–Su): the enclosures coincide
    a = gaussian_delta("1.5", "3", k=9)
    b = gaussian_delta("1.5", "1")
    assert a.overlaps(b) and inside(a, mp_delta("1.5", "1"))


def mp_eps(delta, sigma, start):
    """The root of log δ_μ(ε) = log δ by mpmath's secant method at 50 digits (the start only seeds it)."""
    with mp.workdps(50):
        return mp.findroot(lambda e: mp.log(mp_delta(e, sigma)) - mp.log(to_mp(delta)), mp.mpf(start))


@pytest.mark.parametrize("delta,sigma", [("1e-5", "1"), ("1e-300", "1"), ("0.01", "0.5"), ("1e-10", "3")])
def test_eps_bracket_contains_the_mpmath_root_and_its_upper_end_is_safe(delta, sigma):
    enc = gaussian_eps(delta, sigma, rel_tol=Fraction(1, 10**30))
    assert inside(enc, mp_eps(delta, sigma, float(enc.mid()) * 1.01), rel=Fraction(1, 10**28))
    d = Fraction(delta)
    assert gaussian_delta(enc.hi, sigma, rel_tol=1e-40).hi <= d < gaussian_delta(enc.lo, sigma, rel_tol=1e-40).lo


def test_eps_is_exactly_zero_when_delta_at_zero_is_below_the_target():
    # sigma = 10: delta(0) = erf(0.1/(2√2)) = 0.03988... <= 0.1
    assert float(mp_delta(0, 10)) < 0.1
    enc = GAUSSIAN_EPS.enclose(delta="0.1", sigma="10")
    assert enc.is_exact and enc.lo == 0


@pytest.mark.parametrize(
    "eps,delta,printed",
    # the exact sigma (independent mpmath)
    [
        ("1", "1e-15", "7.48700946799"),
        ("2", "1e-14", "3.67201453487"),
        ("1", "1e-10", "5.86777774963"),
        ("1", "1e-12", "6.55782206746"),
        ("50", "1e-6", "0.156592870392"),
    ],
)
def test_sigma_reproduces_the_notes_exact_calibration(eps, delta, printed):
    enc = gaussian_sigma(eps, delta, rel_tol=Fraction(1, 10**20))
    unit = Fraction(1, 10 ** (len(printed.split(".")[1]))) / 2
    assert Fraction(printed) - unit <= enc.lo and enc.hi <= Fraction(printed) + unit
    # the upper end is a safe calibration, the lower end is not
    assert gaussian_delta(eps, enc.hi, rel_tol=1e-30).hi <= Fraction(delta) < gaussian_delta(eps, enc.lo).lo


def test_sigma_against_mpmath_root_at_50_digits():
    with mp.workdps(50):
        s = mp.findroot(lambda x: mp_delta(1, x) - mp.mpf(10) ** -5, mp.mpf(3.7))
    enc = GAUSSIAN_SIGMA.enclose(eps="1", delta="1e-5", rel_tol=1e-40)
    assert enc.rel_width() <= 1e-40 and inside(enc, s, rel=Fraction(1, 10**40))


@pytest.mark.parametrize(
    "name,inputs",
    [
        ("gaussian.delta", {"eps": "1", "sigma": "0"}),
        ("gaussian.delta", {"eps": "1", "sigma": "1", "k": "1.5"}),
        ("gaussian.delta", {"eps": "1", "sigma": "1", "k": 0}),
        ("gaussian.delta", {"eps": "1", "sigma": "1", "sensitivity": "-1"}),
        ("gaussian.eps", {"delta": "1", "sigma": "1"}),
        ("gaussian.eps", {"delta": "0", "sigma": "1"}),
        ("gaussian.sigma", {"eps": "-1", "delta": "0.1"}),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(name, inputs):
    q = {"gaussian.delta": GAUSSIAN_DELTA, "gaussian.eps": GAUSSIAN_EPS, "gaussian.sigma": GAUSSIAN_SIGMA}[name]
    with pytest.raises(InvalidParameter):
        q.parse(inputs)


def test_numeric_defaults_in_core_params():
    # the smallest general support added to dpcert.core.params for this interface: a number's default is parsed
    # like a given input (and recorded so), must lie in the domain, and is shown in what is allowed
    from dpcert.core.params import inputs_to_json, integer, real, validate

    x = real("x", 0, lo_open=True, default="0.5")
    n = integer("n", 1, default="3")
    parsed = validate([x, n], {})
    assert parsed["x"].value == Fraction(1, 2) and parsed["n"] == 3
    assert inputs_to_json(parsed)["x"] == {"given": "0.5", "type": "str", "exact": "1/2"}
    assert validate([x, n], {"x": "2"})["x"].value == 2
    assert "(default 0.5)" in x.allowed() and "(default 3)" in n.allowed()
    with pytest.raises(ValueError):
        real("y", 0, 1, default="2")  # outside the domain: a bug of the quantity, refused at definition
    with pytest.raises(ValueError):
        integer("m", 1, default=3)  # defaults are exact strings
    with pytest.raises(InvalidParameter, match="required"):
        validate([real("z", 0)], {})


def test_delta_below_e_to_the_minus_a_million_is_a_proved_bound_not_a_hang():
    # sigma = 10^5, eps = 1/2: a = mu/2 − eps/mu = −5·10^4, so delta <= e^{-1.25·10^9}; its exact end points would
    # take gigabytes, so the enclosure is [0, 2^-1442695] (e^-10^6 > 2^-1442695 > delta), returned at once
    enc = gaussian_delta("0.5", "100000")
    assert enc.lo <= 0 < enc.hi <= Fraction(1, 2**1442694)
    assert GAUSSIAN_DELTA.evaluate_float(eps="0.5", sigma="100000") == 0.0
    # above the cut the value is enclosed digit by digit (here about e^-45000): mpmath agrees
    near = GAUSSIAN_DELTA.enclose(eps="300", sigma="1", rel_tol=1e-30, abs_tol=0)  # a^2/2 ≈ 4.5e4
    assert near.lo > 0 and inside(near, mp_delta("300", "1"), rel=Fraction(1, 10**28))
