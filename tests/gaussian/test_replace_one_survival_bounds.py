"""The float survival bounds of the replace-one pairs (:meth:`MirrorLoss.survival_bounds`,
:meth:`SymmetrisedLoss.survival_bounds`).

The mirror pair's bounds come from Taylor models of x_l = σ²(l/2 + asinh(κ sinh(l/2))); the reference is the
quadratic's root evaluated in 200-bit balls (:meth:`MirrorLoss.survivals`) and, at some points, mpmath solving the
quadratic at 50 digits: two evaluations independent of the asinh form. Each case checks, at every grid point of a
range running past both ends of the loss's own grid range (both signs of l, l = 0, the deep tails): the bounds
contain the 200-bit balls, are probabilities, and their relative width is below 1e-13 wherever the value is a
normal double. A deliberately wrong model shows that the containment check catches an error of 1e-11 relative.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from flint import acb, arb
from sgm_cases import random_grid_cases

from dpcert.arith.ball import ball, workprec
from dpcert.arith.taylor import GridBoundsStats, grid_bounds
from dpcert.gaussian.sampling import MirrorLoss, SymmetrisedLoss, _MirrorFamily
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.pld.loss import PrivacyLoss

_TINY = 2.0**-1022  # the least normal double

CASES = [
    # (q, sigma, n, tail): the range is the loss's own grid_range(n, tail), widened by a few points
    (F(256, 60000), F(11, 10), 512, 1e-30),  # the MNIST setting
    (F(256, 60000), F(11, 10), 4096, 1e-12),  # the MNIST setting, the engine's resolution range
    (F(1, 10**6), F(1, 2), 64, 1e-30),  # tiny q, small sigma: κ ~ 7e6, the branch points close to l = 0
    (F(1), F(1, 2), 64, 1e-30),  # q = 1: two Gaussians, x = σ²l/2
    (F(1), F(10), 1024, 1e-30),
    (F(1, 100), F(10), 1024, 1e-12),  # large sigma
    (F(1, 100), F(1, 2), 64, 1e-25),
    (F(1, 5), F(3), 512, 1e-20),
    (F(9, 10), F(1), 256, 1e-20),  # κ < 1
    (F(1, 100), F(1, 5), 64, 1e-20),  # small sigma: κ ~ 5e23
]
CASES += random_grid_cases(20261128)


def _check_against(bounds: tuple, balls: tuple, label: object) -> None:
    """Containment of the 200-bit balls, probabilities, ordered, relative width <= 1e-13 where normal."""
    sq_lo, sq_hi, sp_lo, sp_hi = bounds
    for lo, hi, ref in ((sq_lo, sq_hi, balls[0]), (sp_lo, sp_hi, balls[1])):
        assert lo.dtype == hi.dtype == np.float64 and lo.size == hi.size == len(ref)
        assert np.all((lo >= 0) & (hi <= 1) & (lo <= hi))
        for k, (a, b, x) in enumerate(zip(lo, hi, ref, strict=True)):
            # the whole 200-bit ball, except where it pokes past the clipping at 0 or 1 (its midpoint then)
            y = x if 0 < a and b < 1 else x.mid()
            assert arb(a) <= y <= arb(b), (label, k, a, x, b)
        mids = np.array([float(x.mid()) for x in ref])
        normal = mids >= _TINY
        assert np.all(hi[normal] - lo[normal] <= 1e-13 * mids[normal]), label


def _check_mirror(loss: MirrorLoss, n: int, i_lo: int, i_hi: int) -> GridBoundsStats:
    stats = GridBoundsStats()
    bounds = loss.survival_bounds(n, i_lo, i_hi, stats=stats)
    with workprec(200):
        balls = loss.survivals(n, i_lo, i_hi)
    _check_against(bounds, balls, (loss.q, loss.sigma, n))
    assert stats.block_points + stats.point_evaluations == i_hi - i_lo + 1
    return stats


@pytest.mark.parametrize(("q", "sigma", "n", "tail"), CASES)
def test_mirror_bounds_contain_the_200_bit_balls(q: F, sigma: F, n: int, tail: float) -> None:
    loss = MirrorLoss(q, sigma)
    i_lo, i_hi = loss.grid_range(n, tail)
    assert i_lo < 0 < i_hi
    stats = _check_mirror(loss, n, i_lo - 3, i_hi + 3)
    if i_hi - i_lo >= 256:  # a short range may lie within ~2/κ of l = 0, where the disks must be tiny
        assert stats.block_points > (i_hi - i_lo) // 2  # the Taylor path decided most points, not the fallback


def test_mirror_deep_tails_down_to_underflow() -> None:
    """q = 1, σ = 1/2: Q(L >= l) = Φ̄(l/4 + 2) and P(L >= l) = Φ̄(l/4 − 2) fall through the subnormals to below
    2^−1074 (and, mirrored, the survivals at l < 0 run up to 1)."""
    loss = MirrorLoss(F(1), F(1, 2))
    n = 8
    span = (-172 * n, 172 * n)
    _check_mirror(loss, n, *span)
    sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, *span)
    assert sq_hi[-1] <= 5e-324 and sp_hi[-1] <= 5e-324 and sq_lo[-1] == sp_lo[-1] == 0.0
    assert np.any((sq_lo > 0) & (sq_hi < _TINY))  # subnormal bounds on the way down
    assert sq_hi[0] == sp_hi[0] == 1.0 and sq_lo[0] > 1 - 1e-15


def test_mirror_matches_mpmath_at_some_points() -> None:
    """The quadratic's root and the two Φ̄ mixtures at 50 digits in mpmath."""
    for q, sigma, n in ((F(256, 60000), F(11, 10), 512), (F(1, 20), F(7, 10), 128)):
        loss = MirrorLoss(q, sigma)
        i_lo, i_hi = loss.grid_range(n, 1e-20)
        sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, i_lo, i_hi)
        with mpmath.workdps(50):
            mq, ms = mpmath.mpf(q.numerator) / q.denominator, mpmath.mpf(sigma.numerator) / sigma.denominator
            a = mpmath.exp(-1 / (2 * ms**2))
            for i in range(i_lo, i_hi + 1, max(1, (i_hi - i_lo) // 25)):
                el = mpmath.exp(mpmath.mpf(i) / n)
                b = (1 - mq) * (1 - el)
                z = (-b + mpmath.sqrt(b * b + 4 * mq * mq * a * a * el)) / (2 * mq * a)
                x = ms**2 * mpmath.log(z)

                def phibar(t: mpmath.mpf) -> mpmath.mpf:
                    return mpmath.erfc(t / mpmath.sqrt(2)) / 2

                vq = (1 - mq) * phibar(x / ms) + mq * phibar((x + 1) / ms)
                vp = (1 - mq) * phibar(x / ms) + mq * phibar((x - 1) / ms)
                k = i - i_lo
                assert sq_lo[k] <= vq <= sq_hi[k] and sp_lo[k] <= vp <= sp_hi[k], (q, i)


def test_mirror_agrees_with_the_default_bounds() -> None:
    """The override and :class:`PrivacyLoss`'s default (the balls rounded outwards) bound the same values: their
    intervals intersect at every point, and the override is at most a few ulps wider."""
    loss = MirrorLoss(F(3, 100), F(8, 10))
    i_lo, i_hi = loss.grid_range(256, 1e-15)
    fast = loss.survival_bounds(256, i_lo, i_hi)
    slow = PrivacyLoss.survival_bounds(loss, 256, i_lo, i_hi)
    for (flo, fhi), (slo, shi) in (((fast[0], fast[1]), (slow[0], slow[1])), ((fast[2], fast[3]), (slow[2], slow[3]))):
        assert np.all(np.maximum(flo, slo) <= np.minimum(fhi, shi))
        assert np.all(fhi - flo <= 1e-13 * fhi + 4 * (shi - slo) + 1e-300)


def test_the_disk_keeps_to_the_principal_branch() -> None:
    """A box around l = 0 wider than the branch points' distance ~2/κ is refused; a small one and one far out are
    answered, and there the asinh form agrees with the quadratic's root (the reference) at a real point."""
    q, sigma = F(1, 100), F(1)
    fam = _MirrorFamily(q, sigma)
    with workprec(128):
        kappa = float(fam._consts()[4])  # (1 − q)e^{1/2}/q ≈ 163
        wide = 4 / kappa
        assert fam.disk(acb(arb(0, wide), arb(0, wide))) is None
        small = 0.5 / kappa
        assert fam.disk(acb(arb(0, small), arb(0, small))) is not None
        for c in (F(-3), F(5, 2), F(40)):
            at = fam.disk(acb(ball(c)))
            assert at is not None
            n = c.denominator
            ref = MirrorLoss(q, sigma).survivals(n, c.numerator, c.numerator)
            for v, r in zip(at, ref, strict=True):
                assert abs(v.imag) < 1e-30 and v.real.overlaps(r[0]) and r[0].rad() < 1e-25 * abs(r[0].mid())
        # the two forms of x/σ² agree at real points right of 0; the far form refuses a box reaching l <= 0 and
        # answers for a wide box far out, where the near form's balls wrap
        k = fam._consts()[4]
        for c in (F(1, 10), F(5, 2), F(40)):
            near, far = fam._near(acb(ball(c)), k), fam._far(acb(ball(c)), k)
            assert near is not None and far is not None and near.overlaps(far) and abs(near - far).upper() < 1e-30
        assert fam._far(acb(arb(0.2, 0.25), arb(0, 0.25)), k) is None
        box = acb(arb(1.5, 0.5), arb(0, 0.5))
        assert fam._far(box, k) is not None and fam._near(box, k) is None


class _Perturbed(_MirrorFamily):
    """A wrong model: Q's Taylor series and its enclosure on every box moved by 1e-11 relative."""

    def series(self, c: arb, h: arb, length: int) -> list | None:
        out = super().series(c, h, length)
        if out is None:
            return None
        return [out[0] * (1 + arb(1e-11)), out[1]]

    def disk(self, z: acb) -> list | None:
        out = super().disk(z)
        return None if out is None else [out[0] * (1 + arb(1e-11)), out[1]]


def test_the_containment_check_catches_a_wrong_model() -> None:
    """The check of the tests above fails for a model 1e-11 off: the bounds are narrower than that error."""
    q, sigma, n = F(256, 60000), F(11, 10), 512
    loss = MirrorLoss(q, sigma)
    i_lo, i_hi = loss.grid_range(n, 1e-12)
    (lo, hi), _ = grid_bounds(_Perturbed(q, sigma), n, i_lo, i_hi)
    with workprec(200):
        ref, _ = loss.survivals(n, i_lo, i_hi)
    escaped = sum(not (arb(a) <= x <= arb(b)) for a, b, x in zip(lo, hi, ref, strict=True))
    assert escaped > (i_hi - i_lo) // 2
    with pytest.raises(AssertionError):
        _check_against(
            (np.clip(lo, 0, 1), np.clip(hi, 0, 1), *loss.survival_bounds(n, i_lo, i_hi)[2:]),
            (ref, ref),
            "perturbed",
        )


SYM_CASES = [
    (F(256, 60000), F(11, 20), 512, 1e-30),  # the MNIST setting's fixed-size pair (σ/2)
    (F(1, 5), F(1, 2), 256, 1e-20),
    (F(1), F(2), 256, 1e-20),
    (F(1, 100), F(5), 1024, 1e-12),
]


@pytest.mark.parametrize(("q", "sigma", "n", "tail"), SYM_CASES)
def test_symmetrised_bounds_contain_the_200_bit_balls(q: F, sigma: F, n: int, tail: float) -> None:
    loss = SymmetrisedLoss(SubsampledGaussianLoss("remove", q, sigma))
    i_lo, i_hi = loss.grid_range(n, tail)
    assert i_lo < 0 < i_hi
    for span in ((i_lo - 3, i_hi + 3), (5, i_hi), (i_lo, -7), (-40, 60)):
        bounds = loss.survival_bounds(n, *span)
        with workprec(200):
            balls = loss.survivals(n, *span)
        _check_against(bounds, balls, (q, sigma, n, span))
        slow = PrivacyLoss.survival_bounds(loss, n, *span)
        for lo, hi, slo, shi in ((bounds[0], bounds[1], slow[0], slow[1]), (bounds[2], bounds[3], slow[2], slow[3])):
            assert np.all(np.maximum(lo, slo) <= np.minimum(hi, shi))


class _FixedBounds(PrivacyLoss):
    """A base whose bounds are given arrays (index j at position j − j_lo), to test the subtraction's rounding."""

    def __init__(self, q_lo: np.ndarray, q_hi: np.ndarray, p_lo: np.ndarray, p_hi: np.ndarray) -> None:
        self.arrays = (q_lo, q_hi, p_lo, p_hi)

    def survival_bounds(self, n: int, i_lo: int, i_hi: int) -> tuple:
        return tuple(a[i_lo : i_hi + 1] for a in self.arrays)

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple:
        raise AssertionError("the symmetrised pair must read its base's survival_bounds, never its balls")

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        return 0, len(self.arrays[0]) - 1


def test_symmetrised_subtraction_is_rounded_outwards() -> None:
    """For l <= 0 the bounds enclose 1 − [the base's bounds] exactly (checked in rationals) at random doubles where
    fl(1 − x) is not exact; without the outward step about half of them would not."""
    rng = np.random.default_rng(7)
    size = 2000
    x = np.sort(rng.random(size) * 0.5)  # below 1/2 the subtraction 1 − x is mostly inexact
    lo_b, hi_b = x, np.nextafter(x, 1.0)
    loss = SymmetrisedLoss(_FixedBounds(lo_b, hi_b, lo_b, hi_b))
    sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(1, -(size - 1), 0)  # i = −j, j = size − 1 … 0
    inexact = 0
    for k in range(size):
        j = size - 1 - k
        lo_exact, hi_exact = 1 - F(hi_b[j]), 1 - F(lo_b[j])
        assert F(sq_lo[k]) <= lo_exact and hi_exact <= F(sq_hi[k])
        assert F(sp_lo[k]) <= lo_exact and hi_exact <= F(sp_hi[k])
        inexact += F(float(1 - hi_b[j])) > lo_exact
    assert inexact > size // 4  # the rounding to nearest does overshoot: the outward step is needed
