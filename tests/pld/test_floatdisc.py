"""The float path of one step's discretisation (:mod:`dpcert.pld.floatdisc`): each end's property re-proved in balls on
the floats it returns, its measures against the arb path's, its enclosures against closed forms, and its refusals.

Independent sources: the arb discretisation (:func:`dpcert.pld.discretise`, 128-bit balls, no float), the exact
survival balls of the mechanisms (potentials and cell quantities recomputed in Arb), exact rational arithmetic (the
rounding helpers), and the Gaussian mechanism's closed form δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (q = 1).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from flint import arb

from dpcert.accounting.losses import DiscreteLaplaceLoss, randomized_response
from dpcert.arith.ball import ball, fraction_of, workprec
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld import compose_directions, delta_enclosure, delta_of, discretise
from dpcert.pld import floatdisc as fd
from dpcert.pld.discretise import _lowerings, working_precision
from dpcert.pld.loss import PrivacyLoss, _outward


@pytest.fixture(autouse=True)
def _every_grid_in_floats(monkeypatch: pytest.MonkeyPatch) -> None:
    # these grids are small (the arb path's, below FLOAT_CELLS): run the float path on them all the same
    monkeypatch.setattr(fd, "FLOAT_CELLS", 0)


LOSSES = [
    ("gaussian", SubsampledGaussianLoss("remove", F(1), F(1)), 256, 1e-20),
    ("sgm remove q=0.01 s=1", SubsampledGaussianLoss("remove", F(1, 100), F(1)), 1024, 1e-20),
    ("sgm add q=0.01 s=1", SubsampledGaussianLoss("add", F(1, 100), F(1)), 1024, 1e-20),
    ("sgm remove q=0.2 s=3", SubsampledGaussianLoss("remove", F(1, 5), F(3)), 512, 1e-20),
    ("sgm add q=0.2 s=3", SubsampledGaussianLoss("add", F(1, 5), F(3)), 512, 1e-20),
    ("sgm remove q=1e-3 s=1/2 (pile)", SubsampledGaussianLoss("remove", F(1, 1000), F(1, 2)), 1024, 1e-20),
    ("laplace", LaplaceLoss(F(1), F(1)), 256, 1e-20),
    ("discrete laplace", DiscreteLaplaceLoss(F(1, 2), 2), 64, 1e-20),
    ("randomized response", randomized_response(F(1, 2), 4), 64, 1e-20),
]
IDS = [c[0] for c in LOSSES]


def _coeffs(meas) -> np.ndarray:
    return np.array([float(c.mid()) for c in meas.poly.coeffs()])


def _padded(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    size = max(len(a), len(b))
    return np.pad(a, (0, size - len(a))), np.pad(b, (0, size - len(b)))


def _float_potentials(w: np.ndarray, off: int, n: int, size: int) -> np.ndarray:
    """u_Z(g_i) at the grid points in floats (a comparison, not a bound)."""
    w = np.pad(w, (0, size - len(w)))
    g = np.exp((off + np.arange(size)) / n)
    return np.array([np.sum(w[i + 1 :] * (g[i + 1 :] - g[i])) for i in range(size)])


@pytest.mark.parametrize(("name", "loss", "n", "tail"), LOSSES, ids=IDS)
def test_the_float_measures_agree_with_the_arb_path(name: str, loss: PrivacyLoss, n: int, tail: float) -> None:
    before = dict(fd.STATS)
    got = fd.discretise_float(loss, n, tail, groups=True)
    assert fd.STATS["float"] == before["float"] + 1  # decided in floats, not handed back
    ref = discretise(loss, n, tail, groups=True)
    whiches = ["upper", "lower_groups"]
    # the arb path's minorant may not be decided in balls (an empty cell's c and d straddle 0 there, where the float
    # path knows c, d >= 0): its lower end is then the groups', and the float minorant is checked on its own
    # (test_each_end_holds_in_balls_on_the_floats_returned)
    if not np.array_equal(_coeffs(ref.lower), _coeffs(ref.lower_groups)):
        whiches.append("lower")
    # the float survivals know each mass to 2^-52 of the survival (not of the cell): an atom, a second difference
    # divided by 1/n, to an absolute n·2^-40 or so; a potential to 1e-10 of itself
    atol = n * 2.0**-40
    for which in whiches:
        a, b = getattr(ref, which), getattr(got, which)
        assert b.values is not None and a.off == b.off
        x, y = _padded(_coeffs(a), b.values)
        assert abs(y.sum() - x.sum()) <= 1e-10 * x.sum()
        px, py = _float_potentials(x, a.off, n, len(x)), _float_potentials(y, a.off, n, len(x))
        slack = 1e-10 * px + atol
        if which == "upper":  # never below the arb one's potential (beyond float noise), and close to it
            assert np.all(py >= px - slack) and np.all(py <= px + 1e-8 * px + atol)
        else:  # never above it, and close
            assert np.all(py >= px - 1e-8 * px - atol) and np.all(py <= px + slack), np.max(np.abs(px - py))
        if loss.lattice is None and which != "lower_groups":  # no atoms of L: the same construction, atom by atom
            assert np.all(np.abs(x - y) <= 1e-8 * x + atol), (which, np.max(np.abs(x - y)))
    assert got.tail.overlaps(ref.tail)
    # the float upper measure's mean is at least the arb one's (it is the larger measure), and close to it
    assert got.mean_upper.upper() >= ref.mean_upper.lower()
    assert abs(float(got.mean_upper.mid()) - float(ref.mean_upper.mid())) <= 1e-10 * float(ref.mean_upper.mid())
    assert got.infinite == ref.infinite


def _exact(loss: PrivacyLoss, n: int, tail: float):
    """The grid, its g_i and the survival balls, at the arb path's precision."""
    i_lo, i_hi = loss.grid_range(n, tail)
    sq, sp = loss.survivals(n, i_lo, i_hi)
    g = [ball(F(i, n)).exp() for i in range(i_lo, i_hi + 1)]
    return i_lo, i_hi, g, sq, sp


def _potentials(w: np.ndarray, g: list[arb]) -> list[arb]:
    """u_Z(g_i) = Σ_{j>i} w_j (g_j − g_i) in balls, from the top down."""
    size = len(g)
    w = list(w) + [0.0] * (size - len(w))
    out = [arb(0)] * size
    above = arb(0)
    for i in range(size - 2, -1, -1):
        above += ball(F(w[i + 1]))
        out[i] = out[i + 1] + above * (g[i + 1] - g[i])
    return out


ENDS = [LOSSES[i] for i in (1, 2, 5, 6, 8)]


@pytest.mark.parametrize(("name", "loss", "n", "tail"), ENDS, ids=[c[0] for c in ENDS])
def test_each_end_holds_in_balls_on_the_floats_returned(name: str, loss: PrivacyLoss, n: int, tail: float) -> None:
    # the properties of the module docstring, re-checked in Arb from the exact survival balls (not from the float
    # path's own bounds), and the lower ends also against u_Y itself inside every cell
    st = fd.discretise_float(loss, n, tail, groups=True)
    with workprec(working_precision(n)):
        i_lo, i_hi, g, sq, sp = _exact(loss, n, tail)
        top = i_hi - i_lo
        # upper: V_i >= U''_i and the mass >= Q(L < L_max)
        v = _potentials(st.upper.values, g)
        for i in range(top):
            need = (sp[i] - sp[top]) - g[i] * (sq[i] - sq[top])
            assert v[i] >= need, (i, v[i], need)
        assert sum((ball(F(float(x))) for x in st.upper.values), arb(0)) >= 1 - sq[top]
        u = [sp[i] - g[i] * sq[i] for i in range(top + 1)]
        # u_Y at three points inside each cell, from the mechanism's survivals at those losses
        inner = [F(4 * (i_lo + i) + k, 4 * n) for i in range(top) for k in (1, 2, 3)]
        isq, isp = loss.survivals_at(inner)
        for meas in (st.lower, st.lower_groups):
            w = meas.values
            assert np.all(w >= 0)
            phi = _potentials(w, g)
            mass = sum((ball(F(float(x))) for x in w), arb(0))
            assert phi[0] <= u[0] and mass <= sq[0]
            for i in range(top):
                h = g[i + 1] - g[i]
                for k in (1, 2, 3):
                    t = ball(inner[3 * i + k - 1]).exp()
                    phi_t = phi[i] + (phi[i + 1] - phi[i]) * (t - g[i]) / h
                    assert phi_t <= isp[3 * i + k - 1] - t * isq[3 * i + k - 1], (i, k)
                if meas is st.lower:  # the minorant: the proof's own conditions
                    m, mu = sq[i] - sq[i + 1], sp[i] - sp[i + 1]
                    c, d = mu - g[i] * m, g[i + 1] * m - mu
                    la, lb = u[i] - phi[i], u[i + 1] - phi[i + 1]
                    # ℓ >= 0 is known where φ = 0 (u_Y >= 0), even where its ball straddles 0; 0 is then a lower
                    # bound of ℓ in the lemma
                    ka, kb = la >= 0 or phi[i] == 0, lb >= 0 or phi[i + 1] == 0
                    la, lb = (x if x >= 0 else arb(0) for x in (la, lb))
                    lemma = ka and kb and la * d + lb * c >= c * d
                    tangent_a = phi[i] <= u[i] and phi[i + 1] <= u[i] - sq[i] * h
                    tangent_b = phi[i] <= u[i + 1] + sq[i + 1] * h and phi[i + 1] <= u[i + 1]
                    assert lemma or tangent_a or tangent_b or (phi[i] == 0 and phi[i + 1] == 0), i
                else:
                    assert all(p <= x or p == 0 for p, x in ((phi[i], u[i]), (phi[i + 1], u[i + 1])))


def _gaussian_delta(mu2: F, eps: F) -> mpmath.mpf:
    mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


@pytest.mark.parametrize(("sigma", "steps", "eps"), [(F(1), 10, F(1)), (F(2), 100, F(2)), (F(1, 2), 3, F(20))])
def test_the_gaussian_enclosure_holds_the_closed_form_and_is_no_wider(
    sigma: F, steps: int, eps: F, monkeypatch
) -> None:
    import dpcert.pld.accountant as acc

    loss = [SubsampledGaussianLoss("remove", F(1), sigma)]
    [fc] = compose_directions(loss, steps, 256, 1e-30, method="fft", eps=eps)
    enc = delta_of(fc, eps)
    with monkeypatch.context() as mp:
        mp.setattr(acc, "discretise_float", discretise)  # the same composition from the arb discretisation
        [ref] = compose_directions(loss, steps, 256, 1e-30, method="fft", eps=eps)
    old = delta_of(ref, eps)
    with mpmath.workdps(40):
        truth = _gaussian_delta(F(steps) / sigma**2, eps)
    assert _mp(enc.lo) <= truth <= _mp(enc.hi)
    assert enc.width <= old.width * (1 + F(1, 10**4))  # no wider, beyond the floats' 1e-12-level allowances


@pytest.mark.parametrize(
    ("losses", "steps", "n", "eps"),
    [
        ([LaplaceLoss(F(1), F(1))], 10, 256, F(3)),  # atoms: the groups' lower end is kept beside the minorant
        ([SubsampledGaussianLoss(d, F(1, 100), F(1, 2)) for d in ("remove", "add")], 100, 1024, F(6)),
    ],
)
def test_the_float_discretisation_narrows_nothing_away(losses, steps: int, n: int, eps: F, monkeypatch) -> None:
    # against the same float composition of the arb discretisation: each end moves by the float survivals' noise
    # at most (measured with the minorant alone: Laplace at 10 steps 11 times wider)
    import dpcert.pld.accountant as acc

    got = delta_enclosure(compose_directions(losses, steps, n, 1e-24, method="fft", eps=eps), eps)
    with monkeypatch.context() as mp:
        mp.setattr(acc, "discretise_float", discretise)
        old = delta_enclosure(compose_directions(losses, steps, n, 1e-24, method="fft", eps=eps), eps)
    assert got.lo >= old.lo * (1 - F(1, 10**9)) and got.hi <= old.hi * (1 + F(1, 10**9))


class _Bad(PrivacyLoss):
    """A loss whose float survival bounds are broken in a chosen way (its balls are right)."""

    def __init__(self, inner: PrivacyLoss, how: str) -> None:
        self.inner, self.how, self.name = inner, how, "bad"

    def survivals(self, n: int, i_lo: int, i_hi: int):
        return self.inner.survivals(n, i_lo, i_hi)

    def grid_range(self, n: int, tail: float):
        return self.inner.grid_range(n, tail)

    def survival_bounds(self, n: int, i_lo: int, i_hi: int):
        sq_lo, sq_hi, sp_lo, sp_hi = (x.copy() for x in self.inner.survival_bounds(n, i_lo, i_hi))
        k = len(sq_lo) // 2
        if self.how == "crossed":
            sq_lo[k], sq_hi[k] = sq_hi[k] * 1.001, sq_lo[k]
        elif self.how == "increasing":
            sq_lo[k + 1] = sq_hi[k] * 1.01
            sq_hi[k + 1] = sq_hi[k] * 1.02
        elif self.how == "nan":
            sp_hi[k] = math.nan
        elif self.how == "short":
            sq_lo = sq_lo[:-1]
        elif self.how == "mean outside the cell":  # P-mass of a cell above g_{i+1} times its Q-mass
            sp_lo[k] = sp_hi[k] = min(1.0, sp_hi[k - 1] + 0.0)
        return sq_lo, sq_hi, sp_lo, sp_hi


@pytest.mark.parametrize("how", ["crossed", "increasing", "nan", "short", "mean outside the cell"])
def test_broken_survival_bounds_are_handed_to_the_arb_path(how: str) -> None:
    inner = SubsampledGaussianLoss("remove", F(1, 100), F(1))
    before = dict(fd.STATS)
    st = fd.discretise_float(_Bad(inner, how), 256, 1e-20)
    assert fd.STATS["arb"] == before["arb"] + 1 and fd.STATS["float"] == before["float"]
    ref = discretise(inner, 256, 1e-20)
    assert st.upper.values is None  # the arb path's measures, exactly
    assert np.array_equal(_coeffs(st.upper), _coeffs(ref.upper))


def test_a_small_grid_is_the_arb_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fd, "FLOAT_CELLS", 4096)
    loss = LaplaceLoss(F(1), F(1))
    before = dict(fd.STATS)
    st = fd.discretise_float(loss, 256, 1e-20)
    assert fd.STATS["small"] == before["small"] + 1 and st.upper.values is None
    assert np.array_equal(_coeffs(st.lower), _coeffs(discretise(loss, 256, 1e-20).lower))


def test_ball_bounds_contain_their_balls() -> None:
    with workprec(200):
        balls = [ball(F(1, 3)), ball(F(-7, 11)), ball(F(1, 10**310)), ball(F(3, 2**1074)), ball(0), ball(F(1, 7)).exp()]
        balls.append(ball(F(1, 3)).union(ball(F(1, 3) + F(1, 10**20))))  # a wide one
        lo, hi = fd.ball_bounds(balls)
        for b, a, z in zip(balls, lo, hi, strict=True):
            assert F(float(a)) <= fraction_of(b.lower()) and fraction_of(b.upper()) <= F(float(z))
            assert float(z) - float(a) <= 4 * abs(float(b.mid())) * 2.0**-50 + 4 * float(b.rad()) + 2.0**-1070
        lo2, hi2 = _outward(balls[:1] + balls[2:])  # probabilities: clipped to [0, 1]
    assert np.all(lo2 >= 0) and np.all(hi2 <= 1) and np.all(lo2 <= hi2)
    nan_lo, nan_hi = _outward([arb("nan")])
    assert math.isnan(nan_lo[0]) or math.isnan(nan_hi[0])


def test_the_grid_bounds_contain_the_exponentials() -> None:
    n, i_lo, i_hi = 1000, -3000, 4000
    glo, ghi, elo, ehi = fd._grid(n, i_lo, i_hi)
    with workprec(200):
        for i in range(i_lo, i_hi + 1, 37):
            e = ball(F(i, n)).exp()
            assert ball(F(float(glo[i - i_lo]))) < e < ball(F(float(ghi[i - i_lo])))
        em1 = ball(F(1, n)).exp() - 1
        assert ball(F(elo)) < em1 < ball(F(ehi))
    assert np.all(ghi / glo - 1 < 1e-14)  # and tight: a few ulps


def test_the_potential_bounds_hold_against_exact_sums() -> None:
    rng = np.random.default_rng(7)
    w = rng.random(600) ** 6 * 1e-3
    w[::7] = 0.0
    w[-40:] = 0.0  # no atom above: exactly 0 there
    h = rng.random(599) * 1e-2 + 1e-4
    lo = fd._potential(w, h, upper=False)
    hi = fd._potential(w, h, upper=True)
    exact = [F(0)] * 600
    above = F(0)
    for i in range(598, -1, -1):
        above += F(float(w[i + 1]))
        exact[i] = exact[i + 1] + above * F(float(h[i]))
    for i in range(600):
        assert F(float(lo[i])) <= exact[i] <= F(float(hi[i]))
    assert np.all(lo[-40:] == 0) and np.all(hi[-40:] == 0)
    assert np.all(hi[:-41] / lo[:-41] - 1 < 1e-12)  # and tight
    m_lo, m_hi = fd._mass(w)
    assert F(m_lo) <= sum(F(float(x)) for x in w) <= F(m_hi)


def test_the_array_lowerings_are_the_arb_paths_choice() -> None:
    # the same algorithm as dpcert.pld.discretise._lowerings, on the inputs the float path gives it
    loss, n, tail = SubsampledGaussianLoss("remove", F(1, 1000), F(1, 2)), 1024, 1e-20
    i_lo, i_hi = loss.grid_range(n, tail)
    with workprec(working_precision(n)):
        sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, i_lo, i_hi)
    sq, sp = (sq_lo + sq_hi) / 2, (sp_lo + sp_hi) / 2
    g = np.exp(np.arange(i_lo, i_hi + 1) / n)  # floats: only the choice is compared
    m = np.maximum(sq[:-1] - sq[1:], 0)
    mu = np.maximum(sp[:-1] - sp[1:], 0)
    c, d = np.maximum(mu - g[:-1] * m, 0), np.maximum(g[1:] * m - mu, 0)
    h, u = np.diff(g), np.maximum(sp - g * sq, 0)
    got = fd._lowerings_np(m, c, d, h, u)
    ref = np.array(_lowerings(m.tolist(), c.tolist(), d.tolist(), h.tolist(), u.tolist()))
    assert np.allclose(got, ref, rtol=1e-9, atol=0)


def test_the_hull_is_the_lower_convex_hull() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = np.cumsum(rng.random(300) + 0.01)
        y = (x - x.mean()) ** 2 + rng.normal(0, 30, 300) * (rng.random(300) < 0.3)
        got = fd._hull(x, y).tolist()
        hull: list[int] = []  # Andrew's monotone chain, in exact rationals
        for i in range(len(x)):
            while len(hull) >= 2:
                a, b = hull[-2], hull[-1]
                xa, xb, xi = F(float(x[a])), F(float(x[b])), F(float(x[i]))
                ya, yb, yi = F(float(y[a])), F(float(y[b])), F(float(y[i]))
                if (yb - ya) * (xi - xb) < (yi - yb) * (xb - xa):
                    break
                hull.pop()
            hull.append(i)
        assert got == hull
