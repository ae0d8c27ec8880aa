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


def test_order_below_lambda_min_is_refused_not_undecided():
    from dpcert.errors import InvalidParameter

    with pytest.raises(InvalidParameter) as info:
        Q["darrm.gnmax.sigma"].enclose(eps_target="0.2676", delta="0.0003", lam="20")
    assert info.value.name == "alpha" and "lambda_min" in str(info.value)


def test_budget_with_an_empty_grid_is_refused():
    from dpcert.errors import InvalidParameter

    # lambda_min = log(1/0.0003)/1e-6 + 1 is about 8.1e6 > 500: no grid point exists
    with pytest.raises(InvalidParameter) as info:
        Q["darrm.gnmax.sigma_min"].enclose(eps_target="0.000001", delta="0.0003")
    assert info.value.name == "eps_target"


def test_undecided_argmin_is_unbounded_not_a_fake_ball(monkeypatch):
    from dpcert.arith.context import BallContext
    from dpcert.arith.exact import parse_rational
    from dpcert.core.claim import AtMost
    from dpcert.darrm import gnmax

    monkeypatch.setattr(gnmax, "grid_argmin", lambda ctx, eps_target, delta: None)  # precision never suffices
    with BallContext(64) as ctx:
        b = gnmax._argmin_or_nan(ctx, parse_rational("0.2676"), parse_rational("0.0003"), "sigma")
    assert b.is_nan()
    # and such a ball can certify nothing, however generous the bound
    from dpcert.arith.ball import Enclosure

    assert AtMost.of("1e300").decide(Enclosure.from_ball(b)) is None
