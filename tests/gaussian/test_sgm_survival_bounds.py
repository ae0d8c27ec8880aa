"""The float survival bounds of the (subsampled) Gaussian (:meth:`SubsampledGaussianLoss.survival_bounds`).

Each case checks, at every grid point of a range that runs past the edge e^{±l} = 1 − q and into the tails: the
bounds contain the survivals computed in balls at 200 bits (the reference path, whose balls are far narrower than
the bounds), they are probabilities, and their relative width is below 1e-13 wherever the value is a normal double.
A few points are also checked against mpmath's erfc (an independent evaluation of the closed forms).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from flint import arb
from sgm_cases import random_grid_cases

from dpcert.arith.ball import workprec
from dpcert.arith.taylor import GridBoundsStats
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.pld.loss import PrivacyLoss

_TINY = 2.0**-1022  # the least normal double

CASES = [
    # (q, sigma, n, tail): the range is the loss's own grid_range(n, tail), widened by a few points
    (F(256, 60000), F(11, 10), 512, 1e-30),  # the MNIST setting
    (F(1, 10**6), F(1, 2), 64, 1e-30),  # tiny q, small sigma
    (F(1), F(1, 2), 64, 1e-30),  # the plain Gaussian
    (F(1), F(10), 4096, 1e-30),  # the plain Gaussian, large sigma
    (F(1, 100), F(10), 1024, 1e-12),  # large sigma, subsampled
    (F(1, 100), F(1, 2), 64, 1e-25),
    (F(1, 5), F(3), 512, 1e-20),
]
CASES += random_grid_cases(20261127)


def _check(loss: SubsampledGaussianLoss, n: int, i_lo: int, i_hi: int) -> GridBoundsStats:
    stats = GridBoundsStats()
    sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, i_lo, i_hi, stats=stats)
    with workprec(200):
        sq, sp = loss.survivals(n, i_lo, i_hi)
    for lo, hi, balls in ((sq_lo, sq_hi, sq), (sp_lo, sp_hi, sp)):
        assert lo.dtype == hi.dtype == np.float64 and lo.size == hi.size == i_hi - i_lo + 1
        assert np.all((lo >= 0) & (hi <= 1) & (lo <= hi))
        for i, (a, b, x) in enumerate(zip(lo, hi, balls, strict=True)):
            # the whole 200-bit ball, except where it pokes past the clipping at 0 or 1 (its midpoint then)
            y = x if 0 < a and b < 1 else x.mid()
            assert arb(a) <= y <= arb(b), (loss.name, i_lo + i, a, x, b)
        mids = np.array([float(x.mid()) for x in balls])
        normal = mids >= _TINY
        assert np.all(hi[normal] - lo[normal] <= 1e-13 * mids[normal])
    assert stats.block_points + stats.point_evaluations == i_hi - i_lo + 1
    return stats


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize(("q", "sigma", "n", "tail"), CASES)
def test_bounds_contain_the_200_bit_balls(direction: str, q: F, sigma: F, n: int, tail: float) -> None:
    loss = SubsampledGaussianLoss(direction, q, sigma)
    i_lo, i_hi = loss.grid_range(n, tail)
    _check(loss, n, i_lo - 3, i_hi + 3)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_deep_tails_down_to_underflow(direction: str) -> None:
    """q = 1, σ = 1/2: the survival in the far tail falls through the subnormals to below 2^−1074."""
    loss = SubsampledGaussianLoss(direction, F(1), F(1, 2))
    n = 8
    # remove: Q(L >= l) = Φ̄(l/2 + 1) < 1e-320 once l/2 + 1 > 38.3; add: P(L >= l) = Φ(1 − l/2), Q(L >= l) =
    # Φ(−l/2 − 1), as small at the same l
    span = (0, 80 * n)
    _check(loss, n, *span)
    sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, *span)
    far = sq_hi if direction == "remove" else sp_hi
    assert far[-1] <= 5e-324 and sq_lo[-1] == sp_lo[-1] == 0.0
    assert np.any((sq_lo > 0) & (sq_hi < _TINY))  # subnormal bounds on the way down


def test_matches_mpmath_at_some_points() -> None:
    q, sigma, n = F(1, 100), F(1), 128
    mq, ms = mpmath.mpf(1) / 100, mpmath.mpf(1)
    for direction in ("remove", "add"):
        loss = SubsampledGaussianLoss(direction, q, sigma)
        i_lo, i_hi = loss.grid_range(n, 1e-20)
        sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, i_lo, i_hi)
        with mpmath.workdps(50):
            for i in range(i_lo, i_hi + 1, max(1, (i_hi - i_lo) // 15)):
                u = mpmath.mpf(i) / n * (1 if direction == "remove" else -1)
                t = mpmath.exp(u) - (1 - mq)
                if t <= 0:
                    continue
                x = ms**2 * mpmath.log(t / mq) + mpmath.mpf(1) / 2
                if direction == "remove":
                    a, b = mpmath.erfc(x / (ms * mpmath.sqrt(2))) / 2, mpmath.erfc((x - 1) / (ms * mpmath.sqrt(2))) / 2
                    vq, vp = a, (1 - mq) * a + mq * b
                else:
                    a, b = mpmath.erfc(-x / (ms * mpmath.sqrt(2))) / 2, mpmath.erfc((1 - x) / (ms * mpmath.sqrt(2))) / 2
                    vq, vp = (1 - mq) * a + mq * b, a
                k = i - i_lo
                assert sq_lo[k] <= vq <= sq_hi[k] and sp_lo[k] <= vp <= sp_hi[k], (direction, i)


def test_consistent_with_the_balls_rounded_outwards() -> None:
    """The override and the default of :class:`PrivacyLoss` (the balls of ``survivals`` rounded out) bound the
    same values: their intervals intersect at every point, and the override is at most a few ulps wider."""
    for direction in ("remove", "add"):
        loss = SubsampledGaussianLoss(direction, F(3, 100), F(8, 10))
        i_lo, i_hi = loss.grid_range(256, 1e-15)
        fast = loss.survival_bounds(256, i_lo, i_hi)
        with workprec(128):
            slow = PrivacyLoss.survival_bounds(loss, 256, i_lo, i_hi)
        for (flo, fhi), (slo, shi) in ((fast[:2], slow[:2]), (fast[2:], slow[2:])):
            assert np.all(np.maximum(flo, slo) <= np.minimum(fhi, shi))


def test_mnist_grid_is_decided_by_blocks() -> None:
    """At the MNIST setting's grid (n = 4096, the ranges dpsgd_eps uses) per-point balls are needed only next to
    the edge: a few dozen points out of ~14,000."""
    q, sigma = F(256, 60000), F(11, 10)
    for direction, span in (("remove", (-19, 7288)), ("add", (-6594, 19))):
        stats = GridBoundsStats()
        loss = SubsampledGaussianLoss(direction, q, sigma)
        sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(4096, *span, stats=stats)
        assert stats.point_evaluations <= 40
        assert stats.block_points >= span[1] - span[0] + 1 - 40
        # spot check against the reference at a handful of points
        for i in range(span[0], span[1] + 1, 997):
            with workprec(200):
                (bq,), (bp,) = loss.survivals(4096, i, i)
            k = i - span[0]
            assert arb(sq_lo[k]) <= bq <= arb(sq_hi[k]) and arb(sp_lo[k]) <= bp <= arb(sp_hi[k])
