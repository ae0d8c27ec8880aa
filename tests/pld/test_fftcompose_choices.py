"""The float path's parameter choices (:mod:`dpcert.pld.fftcompose`): the searches find what exhaustive grids find,
and the bounds they feed stay proved.

The choices only decide tightness; each test compares a search against an independent, exhaustive computation: the
grids the module used before its searches (written out here: 41 Chernoff parameters over 1e-4…1e16 and 16 around the
best, 200 Rényi orders, 60 bisections of the tilted mean), the exact tilted mean (mpmath), and the exact tail of a
small composition (the measure's polynomial raised to the k-th power in Arb).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from flint import arb

from dpcert.arith.ball import ball, workprec
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld import discretise
from dpcert.pld.fftcompose import (
    _THETA_MAX,
    _chernoff,
    _finite,
    _log_mgf,
    _log_mgf_float,
    _logw,
    _min_chernoff,
    _next_up,
    _outside_small,
    _theta_cap,
    rdp_theta,
    rdp_theta_mixed,
    saddle_theta,
)

LOSSES = [
    ("sgm remove", SubsampledGaussianLoss("remove", F(1, 100), F(1)), 256),
    ("sgm add", SubsampledGaussianLoss("add", F(1, 10), F(1)), 128),
    ("gaussian", SubsampledGaussianLoss("remove", F(1), F(2)), 64),
    ("laplace", LaplaceLoss(F(2), F(1)), 64),
]
IDS = [c[0] for c in LOSSES]


def _grid_log_mgf(logw: np.ndarray, off: int, n: int, taus: np.ndarray) -> np.ndarray:
    """log Σ_j w_j e^{τj/n} for every τ of ``taus`` (the reference: one row of exponentials per τ)."""
    idx = (np.arange(len(logw)) + off) / n
    finite = np.isfinite(logw)
    e = logw[finite][None, :] + taus[:, None] * idx[finite][None, :]
    top = np.max(e, axis=1)
    return top + np.log(np.sum(np.exp(e - top[:, None]), axis=1))


def _grid_best_s(value) -> float:
    """The grid search the Chernoff parameter was chosen by before: 41 points, then 16 around the best."""
    grid = np.geomspace(1e-4, 1e16, 41)
    vals = value(grid)
    i = int(np.argmin(vals))
    fine = np.geomspace(grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)], 16)
    fv = value(fine)
    return float(fine[int(np.argmin(fv))]) if float(np.min(fv)) < float(vals[i]) else float(grid[i])


def _edges(meas, k: int) -> list[tuple[float, int, bool]]:
    """(τ0, edge, above) triples inside the k-fold support: a tilt near the bulk and one in the tail, each side."""
    bottom, top = k * meas.off, k * (meas.off + meas.length - 1)
    span = top - bottom
    return [
        (1.0, bottom + int(0.8 * span), True),
        (1.0, bottom + int(0.55 * span), True),
        (3.0, bottom + int(0.9 * span), True),
        (1.0, bottom + int(0.3 * span), False),
        (0.5, bottom + int(0.1 * span), False),
    ]


@pytest.mark.parametrize(("name", "loss", "n"), LOSSES, ids=IDS)
def test_the_chernoff_search_finds_the_grids_minimiser(name, loss, n) -> None:
    st = discretise(loss, n, 1e-20)
    meas = st.upper
    logw = _logw(meas)
    for k in (1, 7, 50):
        for tau0, edge, above in _edges(meas, k):
            sign = 1 if above else -1
            c = edge / n

            def value(ss: np.ndarray, tau0=tau0, sign=sign, c=c, k=k) -> np.ndarray:
                return k * _grid_log_mgf(logw, meas.off, n, tau0 + sign * ss) - sign * ss * c

            s_grid = _grid_best_s(value)
            s_new, f_new = _min_chernoff([(*_finite(logw, meas.off, n), k)], tau0, sign, c)
            f_grid = float(value(np.array([s_grid]))[0])
            f_at_new = float(value(np.array([s_new]))[0])
            # the search's value is its own φ, and no worse than the grid's (the grid's point is within one fine
            # step of the minimiser, so its φ can be above the minimum, never below it)
            assert f_new == pytest.approx(f_at_new, rel=1e-9, abs=1e-9)
            assert f_at_new <= f_grid + 1e-9 * abs(f_grid) + 1e-9
            # and the same minimiser: the grid's fine step is 10^(1/15) ≈ 1.17 in s; where φ is flat to 1e-6
            # either point serves
            flat = abs(float(value(np.array([s_grid * 1.5]))[0]) - f_grid) < 1e-6 * max(1.0, abs(f_grid))
            assert flat or abs(math.log(s_new / s_grid)) <= math.log(1.2), (k, tau0, edge, above, s_new, s_grid)


def test_a_left_end_and_a_flat_exponent_are_found_as_the_grid_finds_them() -> None:
    # two atoms at losses 0 and 1: above edge 0 the best s is the smallest (φ' >= 0 from the start); at edge = the
    # top the exponent falls towards log w_top as s grows, and the search follows it until floats cannot tell
    lw, ix = np.log(np.array([0.5, 0.5])), np.array([0.0, 1.0])
    s, f = _min_chernoff([(lw, ix, 1)], 0.0, 1, -1.0)
    assert s == 1e-4
    s, f = _min_chernoff([(lw, ix, 1)], 0.0, 1, 1.0)
    assert s > 20 and f == pytest.approx(math.log(0.5), abs=1e-9)


@pytest.mark.parametrize(("name", "loss", "n"), LOSSES, ids=IDS)
def test_the_outside_test_decides_as_the_grid_does(name, loss, n) -> None:
    st = discretise(loss, n, 1e-20)
    logw = _logw(st.upper)
    logx = logw - float(np.log(np.sum(np.exp(logw[np.isfinite(logw)]))))  # a probability law, indices from 0
    terms = [(logx, 9, 0.0)]
    x = np.exp(logx)
    jj = np.arange(len(x))
    mean = 9 * float(np.sum(x * jj))
    sd = math.sqrt(9 * float(np.sum(x * (jj - mean / 9) ** 2)))
    grid = np.geomspace(1e-4, 1e16, 41)
    decided = set()
    for width in (1.0, 3.0, 6.0, 10.0, 20.0):
        lo, hi = int(mean - width * sd), int(mean + width * sd)
        best_above = float(np.min(9 * _grid_log_mgf(logx, 0, n, grid) - grid * hi / n))
        best_below = float(np.min(9 * _grid_log_mgf(logx, 0, n, -grid) + grid * lo / n)) if lo > 0 else -math.inf
        for tol in (-30.0, -10.0, -2.0):
            by_grid = best_above <= tol and best_below <= tol
            near = min(abs(best_above - tol), abs(best_below - tol)) < 0.05  # the grid's own error in φ
            got = _outside_small(terms, n, lo, hi, tol)
            if not near:
                assert got == by_grid, (lo, hi, tol, best_above, best_below)
            decided.add(got)
    assert decided == {True, False}  # both answers occur: the test can tell them apart


def _grid_rdp(parts, delta: F) -> float:
    """The Rényi order chosen by evaluating all 200 grid points (the reference)."""
    ld = math.log(delta.numerator) - math.log(delta.denominator)
    cap = min(min(_theta_cap(step.upper, step.n) for step, _ in parts), _THETA_MAX)
    grid = np.geomspace(1.0001, max(cap, 1.001), 200)
    terms = [(_logw(step.upper), step.upper.off, step.n, k) for step, k in parts]
    vals = np.array(
        [(sum(k * _log_mgf_float(lw, off, n, float(th)) for lw, off, n, k in terms) - ld) / (th - 1) for th in grid]
    )
    best = float(np.min(vals))
    return float(grid[int(np.argmax(vals <= best + 1e-3 * abs(best)))])


@pytest.mark.parametrize(("name", "loss", "n"), LOSSES, ids=IDS)
@pytest.mark.parametrize("k", [1, 30, 1000])
@pytest.mark.parametrize("delta", [F(1, 10**5), F(1, 10**40)])
def test_the_renyi_order_is_the_grids_choice(name, loss, n, k, delta) -> None:
    st = discretise(loss, n, 1e-20)
    assert rdp_theta(st, k, delta) == _grid_rdp([(st, k)], delta)


def test_a_mixed_renyi_order_is_the_grids_choice() -> None:
    a = discretise(SubsampledGaussianLoss("remove", F(1, 100), F(1)), 128, 1e-20)
    b = discretise(LaplaceLoss(F(2), F(1)), 128, 1e-20)
    parts = [(a, 500), (b, 3)]
    assert rdp_theta_mixed(parts, F(1, 10**6)) == _grid_rdp(parts, F(1, 10**6))


def test_the_tilt_cap_stops_at_its_limit_only_when_the_limit_fits() -> None:
    # a range reaching P-mass 1e-300: the top atom is below e^-600, so the tilt has a cap of its own
    st = discretise(SubsampledGaussianLoss("remove", F(1), F(2)), 16, 1e-300)
    full = _theta_cap(st.upper, 16)
    assert 1 < full < 1e12
    assert _theta_cap(st.upper, 16, full / 2) == full / 2
    assert _theta_cap(st.upper, 16, full * 2) == full


@pytest.mark.parametrize(("name", "loss", "n"), LOSSES, ids=IDS)
def test_the_saddle_tilt_puts_the_tilted_mean_at_eps(name, loss, n) -> None:
    st = discretise(loss, n, 1e-20)
    meas = st.upper
    w = [float(c.mid()) for c in meas.poly.coeffs()]
    for k in (3, 100):
        eps = F(1, 2) * k * F(meas.off + meas.length - 1, n)  # halfway to the top: inside the tilts' reach
        theta = saddle_theta(st, k, eps)
        with mpmath.workdps(40):
            th = mpmath.mpf(theta)
            e = [mpmath.mpf(wj) * mpmath.exp(th * (j + meas.off) / n) for j, wj in enumerate(w)]
            mean = k * mpmath.fsum(ej * (j + meas.off) / n for j, ej in enumerate(e)) / mpmath.fsum(e)
        if theta < _THETA_MAX:
            assert float(mean) == pytest.approx(float(eps), rel=1e-9)


def test_the_chernoff_bound_still_bounds_the_exact_tail_and_is_no_looser_than_the_grids() -> None:
    loss = SubsampledGaussianLoss("remove", F(1, 5), F(1))
    n, k = 16, 6
    st = discretise(loss, n, 1e-12)
    meas = st.upper
    with workprec(200):
        exact = meas.poly**k  # the k-fold composition of the exact measure, coefficient by coefficient (balls)
        coeffs = exact.coeffs()
        base = k * meas.off
        logw = _logw(meas)
        terms = [(meas, logw, k)]
        checked = 0
        for tau0, edge, above in _edges(meas, k):
            idx = range(edge - base, len(coeffs)) if above else range(0, edge - base)
            tail = sum((coeffs[j] * ball(F(tau0) * (j + base) / n).exp() for j in idx), arb(0))
            log_bound, s = _chernoff(terms, n, tau0, edge, above)
            assert log_bound.lower() >= tail.log().upper()  # proved: the bound is above the exact tail
            # and no looser than the bound at the grid's parameter
            sign = -1.0 if above else 1.0

            def value(ss: np.ndarray, tau0=tau0, sign=sign, edge=edge) -> np.ndarray:
                return k * _grid_log_mgf(logw, meas.off, n, tau0 - sign * ss) + sign * ss * edge / n

            s_old = F(_grid_best_s(value)).limit_denominator(1 << 20)
            tau = F(tau0) + (s_old if above else -s_old)
            old = k * _log_mgf(meas, n, tau) + ball((-1 if above else 1) * s_old * edge / n)
            assert log_bound.upper() <= old.upper() + 1e-9 * abs(float(old.mid())) + 1e-9
            checked += 1
        assert checked == 5


def test_next_up_is_nextafter_bit_for_bit() -> None:
    rng = np.random.default_rng(7)
    x = np.concatenate(
        [
            np.array([0.0, -0.0, 5e-324, 1e-310, 2.2250738585072014e-308, 1.0, 1.7976931348623157e308, np.inf]),
            rng.random(1000) * 10.0 ** rng.integers(-300, 300, 1000),
        ]
    )
    with np.errstate(over="ignore"):
        want = np.nextafter(x, np.inf)
    got = _next_up(x.copy())
    assert np.array_equal(got.view(np.int64), want.view(np.int64))
    assert np.isnan(_next_up(np.array([np.nan]))[0])
