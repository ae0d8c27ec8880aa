"""GNMax calibration (DaRRM App. D.2.1, Table 4) against an independent mpmath grid search and closed form."""

from fractions import Fraction

import mpmath
import pytest

from dpcert.darrm import QUANTITIES as Q

mpmath.mp.dps = 40


def mpmath_grid(eps_t: str, delta: str):
    a, d = mpmath.mpf(eps_t), mpmath.mpf(delta)
    c = mpmath.log(1 / d)
    lmin = c / a + 1
    best = None
    j = 1
    while lmin + mpmath.mpf(j) / 2 <= 500:
        lam = lmin + mpmath.mpf(j) / 2
        s2 = lam / (a - c / (lam - 1))
        if best is None or s2 < best[1]:
            best = (lam, s2, j)
        j += 1
    return lmin, best


@pytest.mark.parametrize("eps_t,delta,sigma_printed", [("0.2676", "0.0003", "21.46"), ("0.2556", "0.0003", "22.46")])
def test_grid_argmin_matches_mpmath_brute_force(eps_t, delta, sigma_printed):
    lmin, (lam, s2, j) = mpmath_grid(eps_t, delta)
    enc_lam = Q["darrm.gnmax.lambda_argmin"].enclose(eps_target=eps_t, delta=delta, rel_tol=1e-20)
    enc_sig = Q["darrm.gnmax.sigma_min"].enclose(eps_target=eps_t, delta=delta, rel_tol=1e-20)
    assert abs(Fraction(str(lam)) - enc_lam.lo) < Fraction(1, 10**15)
    assert abs(Fraction(str(mpmath.sqrt(s2))) - enc_sig.lo) < Fraction(1, 10**15)
    # the printed sigma_min (the paper's number) is the rounded grid minimum
    assert round(float(enc_sig.lo), 2) == float(sigma_printed)
    # the continuous optimum u* = (c + sqrt(c^2 + a c))/a, lambda* = 1 + u*, lies within one grid step
    a, c = mpmath.mpf(eps_t), mpmath.log(1 / mpmath.mpf(delta))
    lam_star = 1 + (c + mpmath.sqrt(c * c + a * c)) / a
    assert abs(float(enc_lam.lo) - float(lam_star)) <= 0.5


def test_printed_lambda_is_lambda_min_plus_three():
    for eps_t, printed in (("0.2676", 34.31), ("0.2556", 35.74)):
        lmin, _ = mpmath_grid(eps_t, "0.0003")
        assert round(float(lmin) + 3, 2) == printed
        enc = Q["darrm.gnmax.grid_lambda"].enclose(eps_target=eps_t, delta="0.0003", j=6)
        assert round(float(enc.lo), 2) == printed


def test_float_argmin_agrees():
    lam = Q["darrm.gnmax.lambda_argmin"].evaluate_float(eps_target="0.2676", delta="0.0003")
    assert abs(lam - 62.3128852141557) < 1e-9
