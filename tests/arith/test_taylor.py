"""Taylor-model grid bounds (:mod:`dpcert.arith.taylor`) on two functions with closed forms.

f1(l) = 1/(1 + l²) (poles at ±i: the disk check must refuse boxes that reach them) and f2(l) = e^{−3l} (large
relative variation per block). The reference values are mpmath's at 50 digits, independent of Arb.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import acb, arb, arb_series

from dpcert.arith import taylor
from dpcert.arith.ball import ball
from dpcert.arith.taylor import GridBoundsStats, grid_bounds


class _Family:
    count = 2

    def series(self, c: arb, h: arb, length: int) -> list[arb_series]:
        s = arb_series([c, h])
        return [1 / (1 + s * s), (s * -3).exp()]

    def disk(self, z: acb) -> list[acb] | None:
        d = 1 + z * z
        if d.real.contains(0) and d.imag.contains(0):
            return None  # the box may hold a pole
        return [1 / d, (z * -3).exp()]

    def points(self, n: int, indices: Sequence[int]) -> list[list[arb]]:
        ls = [ball(Fraction(i, n)) for i in indices]
        return [[1 / (1 + x * x) for x in ls], [(x * -3).exp() for x in ls]]


def _truth(n: int, i_lo: int, i_hi: int) -> list[list[mpmath.mpf]]:
    with mpmath.workdps(50):
        ls = [mpmath.mpf(i) / n for i in range(i_lo, i_hi + 1)]
        return [[1 / (1 + x * x) for x in ls], [mpmath.exp(-3 * x) for x in ls]]


def _escapes(bounds, truth) -> int:
    """How many (function, point) pairs the bounds miss (compared exactly, as mpf holds every double)."""
    out = 0
    for (lo, hi), vals in zip(bounds, truth, strict=True):
        out += sum(1 for a, b, t in zip(lo, hi, vals, strict=True) if not (mpmath.mpf(a) <= t <= mpmath.mpf(b)))
    return out


N, I_LO, I_HI = 64, -400, 400


def test_bounds_contain_mpmath_and_are_relatively_tight() -> None:
    stats = GridBoundsStats()
    bounds = grid_bounds(_Family(), N, I_LO, I_HI, stats=stats)
    truth = _truth(N, I_LO, I_HI)
    assert _escapes(bounds, truth) == 0
    for (lo, hi), vals in zip(bounds, truth, strict=True):
        t = np.array([float(v) for v in vals])
        assert np.all((hi - lo) <= 1e-13 * t)
    assert stats.block_points + stats.point_evaluations == I_HI - I_LO + 1
    assert stats.block_points > 0.95 * (I_HI - I_LO + 1)  # the fast path decides nearly everything


def test_the_horner_error_bound_is_used_and_sufficient() -> None:
    """The float Horner value is off the truth by more than zero at some points (the rounding term is needed) and
    by less than the proved half-width everywhere."""
    bounds = grid_bounds(_Family(), N, I_LO, I_HI)
    truth = _truth(N, I_LO, I_HI)
    worst_ratio, any_off = 0.0, False
    for (lo, hi), vals in zip(bounds, truth, strict=True):
        for a, b, t in zip(lo, hi, vals, strict=True):
            mid, half = (mpmath.mpf(a) + mpmath.mpf(b)) / 2, (mpmath.mpf(b) - mpmath.mpf(a)) / 2
            off = abs(mid - t)
            any_off |= off > 0
            worst_ratio = max(worst_ratio, float(off / half))
    assert any_off
    assert worst_ratio <= 1.0


def test_without_the_cauchy_tail_points_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    """A low degree (large rem_target) with the remainder bound dropped misses the truth: the tail term is what
    makes the bounds hold, and this test can fail."""
    kw = {"rem_target": 1e-4, "rel_tol": 1.0}
    truth = _truth(N, I_LO, I_HI)
    assert _escapes(grid_bounds(_Family(), N, I_LO, I_HI, **kw), truth) == 0
    monkeypatch.setattr(taylor, "_cauchy_tail", lambda rho, degree: arb(0))
    assert _escapes(grid_bounds(_Family(), N, I_LO, I_HI, **kw), truth) > 0


def test_a_box_reaching_a_pole_is_refused_and_split() -> None:
    """Near l = 0 the poles ±i are at distance 1: blocks with a disk radius past 1 are refused (and split)."""
    stats = GridBoundsStats()
    centres = []
    bounds = grid_bounds(
        _Family(), N, I_LO, I_HI, half_width=32, stats=stats, on_block=lambda jc, m: centres.append((jc, m))
    )
    assert _escapes(bounds, _truth(N, I_LO, I_HI)) == 0
    assert stats.rejected_blocks > 0
    near = [m for jc, m in centres if abs(jc) <= 2 * m]
    assert near and max(near) * 4 / N < 1  # every accepted block at l ≈ 0 has R = 4h below the pole distance


def test_empty_and_single_point_ranges() -> None:
    (lo, hi), _ = grid_bounds(_Family(), N, 3, 2)
    assert lo.size == hi.size == 0
    (lo, hi), (lo2, hi2) = grid_bounds(_Family(), N, 5, 5)
    x = 5 / N
    assert lo[0] <= 1 / (1 + x * x) <= hi[0] and lo2.size == 1


def test_scale_out_below_the_normal_range() -> None:
    """Step 5: one product, two products (into the subnormals) and the deep path stay outward, for either sign."""
    x = np.array([1.0, 1.5, 1.0, -1.0, -1.5, 0.75, 3.0, -3.0])
    e = np.array([-3, -1030, -1073, -1100, -3000, -2044, -3000, 0])
    slo, shi = taylor._scale_out(x.copy(), x.copy(), e)
    for a, b, xx, ee in zip(slo, shi, x, e, strict=True):
        exact = mpmath.ldexp(mpmath.mpf(xx), int(ee))
        assert mpmath.mpf(a) <= exact <= mpmath.mpf(b)
        assert b - a <= 4 * max(abs(float(exact)) * 2.0**-52, 5e-324)  # a few ulps (or subnormal steps) wide


def test_a_series_ending_in_exact_zeros_is_kept() -> None:
    """At c = 0 the odd coefficients of 1/(1 + l²) are exactly 0 and flint leaves trailing zeros out of a series'
    coefficient list; the block is still modelled (not sent to per-point balls)."""
    stats = GridBoundsStats()
    bounds = grid_bounds(_Family(), N, -4, 3, half_width=4, stats=stats)
    assert stats.point_evaluations == 0 and stats.blocks == 1
    assert _escapes(bounds, _truth(N, -4, 3)) == 0
