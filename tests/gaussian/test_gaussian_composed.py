"""gaussian.composed.delta / gaussian.composed.eps: heterogeneous Gaussians composed into one, against gaussian.delta
with k identical mechanisms, mpmath at 50 digits, and dp_accounting's PLD composition (a numerical composition that
never uses the closed form)."""

from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.errors import InvalidParameter
from dpcert.gaussian.composed import (
    COMPOSED_MAX_ITEMS,
    GAUSSIAN_COMPOSED_DELTA,
    GAUSSIAN_COMPOSED_EPS,
    gaussian_composed_delta,
    gaussian_composed_eps,
)
from dpcert.gaussian.mechanism import GAUSSIAN_DELTA, GAUSSIAN_EPS


def to_mp(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def mp_delta_mu(eps, mu2, dps=50):
    """Balle–Wang's δ_μ(ε) in mpmath with guard digits (independent of dpcert's arb code)."""
    with mp.workdps(dps + 60):
        e, mu = to_mp(eps), mp.sqrt(to_mp(mu2))
        return mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu)


def inside(enc, x, rel=Fraction(1, 10**45)):
    x = Fraction(mp.nstr(x, 60))
    slack = abs(x) * rel
    return enc.lo - slack <= x <= enc.hi + slack


@pytest.mark.parametrize("eps,sigma,k", [("1", "1", 3), ("0.3", "2.5", 7), ("5", "0.8", 2), ("-1", "3", 4)])
def test_k_identical_equal_gaussian_delta_with_k(eps, sigma, k):
    het = GAUSSIAN_COMPOSED_DELTA.enclose(eps=eps, sigmas=[sigma] * k, rel_tol=1e-30)
    hom = GAUSSIAN_DELTA.enclose(eps=eps, sigma=sigma, k=k, rel_tol=1e-30)
    assert het.lo <= hom.hi and hom.lo <= het.hi
    assert het.rel_width() <= 1e-30
    e_het = GAUSSIAN_COMPOSED_EPS.enclose(delta="1e-6", sigmas=[sigma] * k, rel_tol=1e-20)
    e_hom = GAUSSIAN_EPS.enclose(delta="1e-6", sigma=sigma, k=k, rel_tol=1e-20)
    assert e_het.lo <= e_hom.hi and e_hom.lo <= e_het.hi


@pytest.mark.parametrize(
    "eps,sigmas,sens",
    [
        ("1", ["1", "2", "3"], ["1"]),
        ("0.5", ["0.7", "5", "12.5", "1.1"], ["1", "2", "0.5", "3"]),
        ("30", ["1", "0.9"], ["1"]),  # delta ~ 1e-130, far below the doubles' relative reach in closed form
        ("2", ["100", "200", "300"], ["1"]),  # tiny mu: the two terms cancel
    ],
)
def test_heterogeneous_delta_matches_mpmath_at_50_digits(eps, sigmas, sens):
    d = [Fraction(x) for x in sens] * (len(sigmas) if len(sens) == 1 else 1)
    mu2 = sum((di / Fraction(s)) ** 2 for di, s in zip(d, sigmas, strict=True))
    enc = GAUSSIAN_COMPOSED_DELTA.enclose(eps=eps, sigmas=sigmas, sensitivities=sens, rel_tol=1e-50)
    assert enc.rel_width() <= 1e-50
    assert inside(enc, mp_delta_mu(eps, mu2))


def test_heterogeneous_eps_upper_end_is_proved_safe_and_lower_end_is_not():
    sigmas, sens = ["0.8", "1.5", "3"], ["1", "2", "1"]
    mu2 = sum((Fraction(d) / Fraction(s)) ** 2 for d, s in zip(sens, sigmas, strict=True))
    enc = gaussian_composed_eps("1e-8", sigmas, sens, rel_tol=1e-25)
    assert 0 < enc.lo < enc.hi and enc.rel_width() <= 1e-25
    with mp.workdps(80):
        assert mp_delta_mu(enc.hi, mu2) <= mp.mpf("1e-8") < mp_delta_mu(enc.lo, mu2)


def test_eps_is_exactly_zero_when_delta_of_zero_is_below_target():
    # mu = 1/10: delta(0) = erf(mu/(2 sqrt 2)) = 0.0399 <= 0.05
    enc = gaussian_composed_eps("0.05", ["20", "20", "20", "20"])
    assert enc.is_exact and enc.lo == 0
    with mp.workdps(30):
        assert mp.erf(mp.mpf("0.1") / (2 * mp.sqrt(2))) <= mp.mpf("0.05")


@pytest.mark.peers
def test_composition_agrees_with_dp_accountings_pld_composition():
    """The closed form against a numerical composition of the three mechanisms' PLDs (float evidence, 1e-3)."""
    pld = pytest.importorskip("dp_accounting.pld")
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    sigmas, sens = [1.0, 2.0, 1.5], [1.0, 2.0, 0.5]
    acc = pld.PLDAccountant(value_discretization_interval=1e-4)
    for s, d in zip(sigmas, sens, strict=True):
        acc.compose(dp_event.GaussianDpEvent(s / d))
    peer = acc.get_delta(1.0)
    enc = gaussian_composed_delta("1", ["1", "2", "1.5"], ["1", "2", "0.5"])
    assert abs(peer - float(enc.hi)) <= 1e-3 * float(enc.hi)


def test_sensitivities_must_be_one_or_one_per_sigma():
    with pytest.raises(InvalidParameter, match="sensitivities.*one per sigma"):
        gaussian_composed_delta("1", ["1", "2", "3"], ["1", "2"])


def test_too_many_sigmas_are_refused_before_any_item_is_parsed():
    bad = ",".join(["not-a-number"] * (COMPOSED_MAX_ITEMS + 1))
    with pytest.raises(InvalidParameter, match=f"<{COMPOSED_MAX_ITEMS + 1} values>"):
        gaussian_composed_delta("1", bad)
    gaussian_composed_delta("1", ",".join(["10"] * COMPOSED_MAX_ITEMS))  # the limit itself is accepted


@pytest.mark.parametrize("sigmas", [["1", "0"], ["-1"], []])
def test_non_positive_or_missing_sigmas_are_refused(sigmas):
    with pytest.raises(InvalidParameter, match="sigmas"):
        gaussian_composed_delta("1", sigmas)
