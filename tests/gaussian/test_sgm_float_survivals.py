"""The one float implementation of the Poisson-subsampled Gaussian's survival masses
(:func:`dpcert.gaussian.sgm_loss.log_survivals`), which chooses the grid ranges and feeds the calibration's evidence,
against mpmath at 50 digits (the survival formulas evaluated independently), including the regimes a single
float form of t = e^u − (1 − q) gets wrong: a tiny q next to loss 0 (expm1 needed) and q = 1 far out in the add
direction (e^u needed; expm1(u) + 1 rounds to 0 there and the range would stop near loss 37)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from dpcert.gaussian.sgm_estimate import survivals
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss, _log_surv, _x_of, log_survivals


def _mp_logs(direction: str, q: float, s: float, lv: float) -> tuple[mp.mpf, mp.mpf]:
    """(log Q(L >= lv), log P(L >= lv)) in mpmath."""
    with mp.workdps(50):
        q, s, lv = mp.mpf(q), mp.mpf(s), mp.mpf(lv)
        u = lv if direction == "remove" else -lv
        t = mp.exp(u) - (1 - q)
        if t <= 0:
            full = mp.mpf(0) if direction == "remove" else mp.ninf
            return full, full
        x = s * s * mp.log(t / q) + mp.mpf(1) / 2
        if direction == "remove":
            a, b = mp.ncdf(-x / s), mp.ncdf(-(x - 1) / s)
            return mp.log(a), mp.log((1 - q) * a + q * b)
        a, b = mp.ncdf(x / s), mp.ncdf((x - 1) / s)
        return mp.log((1 - q) * a + q * b), mp.log(a)


LVS = [-3.0, -0.2, -1e-3, -1e-10, 1e-10, 1e-3, 0.5, 3.0, 40.0, 800.0]


@pytest.mark.parametrize("q", [1e-9, 256 / 60000, 0.5, 1.0])
@pytest.mark.parametrize("s", [0.5, 1.1, 5.0])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_sgm_float_log_survivals_match_mpmath(q: float, s: float, direction: str) -> None:
    lq, lp = log_survivals(direction, q, s, np.array(LVS))
    for i, lv in enumerate(LVS):
        if direction == "add" and q == 1 and lv > 745:  # e^{-lv} underflows: no x in floats (range: far enough)
            continue
        for got, want in zip((lq[i], lp[i]), _mp_logs(direction, q, s, lv), strict=True):
            if want == mp.ninf:
                assert got == -math.inf, (lv, got)
            elif float(want) < -700:  # far out: log-space agreement (the value itself underflows)
                assert abs(got - float(want)) <= 1e-9 * abs(float(want)), (lv, got, want)
            else:
                assert abs(got - float(want)) <= 1e-9 * max(1.0, abs(float(want))), (lv, got, want)


def test_sgm_scalar_forms_and_the_calibrations_evidence_are_the_same_floats() -> None:
    lv = np.arange(-4000, 4001) / 1000
    for direction in ("remove", "add"):
        lq, lp = log_survivals(direction, 0.01, 1.1, lv)
        for i in (0, 3999, 4000, 4001, 8000):
            assert _log_surv(direction, "Q", 0.01, 1.1, lv[i]) == lq[i]
            assert _log_surv(direction, "P", 0.01, 1.1, lv[i]) == lp[i]
        sq, sp = survivals(SubsampledGaussianLoss(direction, 1 / 100, 11 / 10), 1000, -4000, 4000)
        assert np.array_equal(sq, np.exp(lq)) and np.array_equal(sp, np.exp(lp))
    assert _x_of("add", 0.5, 1.0, 1.0) is None  # e^{-1} < 1 - q: no x, the add loss never reaches 1
    assert _x_of("remove", 1.0, 2.0, -800.0) is None  # e^u underflows to 0 = t: no x in floats


def test_sgm_q1_add_range_reaches_the_far_tail() -> None:
    """At q = 1 the add loss is Gaussian: P(L >= l) = Φ̄((lσ² − 1/2)/σ). Its grid range must reach the loss where
    that falls to the tail asked: l = (zσ + 1/2)/σ² with Φ̄(z) = tail, about 47 at σ = 1/4 and tail 1e-22 (where
    expm1(u) + 1 alone would have stopped near 37)."""
    s, tail, n = 0.25, 1e-22, 64
    i_lo, i_hi = SubsampledGaussianLoss("add", Fraction(1), Fraction(1, 4)).grid_range(n, tail)
    with mp.workdps(30):
        z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(tail) - 1)  # Φ̄(z) = tail
        l_true = float((z * s + mp.mpf(1) / 2) / (s * s))
    assert l_true > 45 and l_true - 1 / n <= i_hi / n <= l_true + 2 / n
