"""The certified PLD enclosure of DP-SGD against independent computations.

Oracles: the exact one-step δ (closed form, ``sgm.delta``), the exact Gaussian composition at q = 1
(``gaussian.delta/eps/sigma`` with k steps), a 1-D mpmath quadrature of the two-step δ (the inner expectation in
closed form), and dp_accounting's PLD accountant where it is accurate. Small grids keep each test under ~2 s;
the accuracy targets are in benchmarks/bench_pld.py.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from dpcert.errors import InvalidParameter
from dpcert.gaussian import pld
from dpcert.gaussian.mechanism import GAUSSIAN_DELTA, GAUSSIAN_EPS, GAUSSIAN_SIGMA
from dpcert.gaussian.sgm import SGM_DELTA


def _compose(direction: str, q: F, s: F, k: int, n: int) -> pld.Composed:
    return pld.compose(pld.step_measures(direction, q, s, n, 1e-22, k), k, 1e-24)


def _both(q: F, s: F, k: int, n: int) -> list[pld.Composed]:
    return pld.both_directions(q, s, k, n, 1e-22)


@pytest.mark.parametrize("eps", [F(0), F(3, 10), F(1234, 1000), F(3)])
def test_one_step_contains_the_exact_delta(eps: F) -> None:
    q, s = F(1, 10), F(1)
    enc = pld.delta_enclosure(_both(q, s, 1, 256), eps)
    exact = SGM_DELTA.enclose(q=q, sigma=s, eps=eps, rel_tol=1e-12)
    assert enc.lo <= exact.lo and exact.hi <= enc.hi
    assert enc.rel_width() < 1e-3  # a second-order discretisation: 1/256^2 scale


def _gaussian_case(k: int, sigma: F, n: int) -> list[pld.Composed]:
    return _both(F(1), sigma, k, n)


def test_q_one_is_the_composed_gaussian() -> None:
    # q = 1: each step is N(0, σ²) vs N(1, σ²), k of them compose exactly into μ = √k/σ (Dong–Roth–Su)
    k, s = 5, F(2)
    comps = _gaussian_case(k, s, 128)
    for eps in (F(0), F(1, 2), F(2)):
        enc = pld.delta_enclosure(comps, eps)
        exact = GAUSSIAN_DELTA.enclose(eps=eps, sigma=s, k=k, rel_tol=1e-12)
        assert enc.lo <= exact.lo and exact.hi <= enc.hi, (eps, enc, exact)
        assert enc.rel_width() < 2e-3
    e = pld.eps_enclosure(comps, F(1, 10**4), 1e-3)
    g = GAUSSIAN_EPS.enclose(delta=F(1, 10**4), sigma=s, k=k, rel_tol=1e-12)
    assert e.lo <= g.lo and g.hi <= e.hi


def _delta1_remove(q: mpmath.mpf, s: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """E_Q[(Y − e^ε)₊] of one remove step for any real ε (closed form; 1 − e^ε when e^ε <= 1 − q)."""
    c = mpmath.exp(eps)
    if c <= 1 - q:
        return 1 - c
    xs = s**2 * mpmath.log((c - (1 - q)) / q) + mpmath.mpf(1) / 2
    return q * mpmath.ncdf(-(xs - 1) / s) - (c - (1 - q)) * mpmath.ncdf(-xs / s)


def test_two_steps_against_mpmath_quadrature() -> None:
    # δ_2(ε) = E_Q[Y_1 δ_1(ε − log Y_1)]: the inner expectation E_Q[(y Y − c)₊] = y δ_1(ε − log y) in closed form
    mpmath.mp.dps = 30
    q, s, eps = mpmath.mpf(1) / 10, mpmath.mpf(1), mpmath.mpf(3) / 10

    def integrand(x: mpmath.mpf) -> mpmath.mpf:
        y = (1 - q) + q * mpmath.exp((2 * x - 1) / (2 * s**2))
        return mpmath.npdf(x, 0, s) * y * _delta1_remove(q, s, eps - mpmath.log(y))

    ref = mpmath.quad(integrand, [-mpmath.inf, -5, 0, 3, 8, mpmath.inf])
    enc = pld.delta_of(_compose("remove", F(1, 10), F(1), 2, 256), F(3, 10))
    assert enc.lo <= F(str(ref)) <= enc.hi, (enc, ref)
    assert enc.rel_width() < 1e-3


def test_width_is_second_order_in_the_mesh() -> None:
    # halving Δ narrows the enclosure about 4x (a first-order rounding would give 2x)
    q, s, k, eps = F(1, 20), F(1), 20, F(1, 2)
    w1 = pld.delta_of(_compose("remove", q, s, k, 128), eps).width
    w2 = pld.delta_of(_compose("remove", q, s, k, 256), eps).width
    assert w1 is not None and w2 is not None and w1 / w2 > 3


def test_monotone_in_eps_and_steps() -> None:
    q, s = F(1, 20), F(1)
    c10, c20 = _both(q, s, 10, 128), _both(q, s, 20, 128)
    prev = None
    for eps in (F(0), F(1, 10), F(1, 2), F(1)):
        e10, e20 = pld.delta_enclosure(c10, eps), pld.delta_enclosure(c20, eps)
        assert 0 <= e10.lo <= e10.hi and e20.lo <= e20.hi
        assert e10.lo <= e20.hi  # δ grows with the steps: a proved lower end cannot pass the other upper end
        if prev is not None:
            assert e10.lo <= prev.hi  # δ falls with ε
        prev = e10


def test_add_direction_is_computed_and_below_remove_here() -> None:
    # docs/derivations/gaussian.md#sgm-directions: add was below remove in every case tried; both are enclosed and the
    # max is taken
    q, s, k, eps = F(1, 10), F(1), 10, F(1, 2)
    rem = pld.delta_of(_compose("remove", q, s, k, 128), eps)
    add = pld.delta_of(_compose("add", q, s, k, 128), eps)
    assert 0 < add.lo and add.hi < rem.lo
    both = pld.delta_enclosure(_both(q, s, k, 128), eps)
    assert (both.lo, both.hi) == (rem.lo, rem.hi)


def test_contains_dp_accounting_pld() -> None:
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    q, s, k, eps = 0.01, 1.0, 100, 0.5
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k)
    acc.compose(event)
    peer = acc.get_delta(eps)
    enc = pld.delta_enclosure(_both(F(1, 100), F(1), k, 512), F(1, 2))
    assert enc.lo <= F(peer) <= enc.hi, (enc, peer)
    # and overlaps an independent prototype's enclosure [1.2590e-4, 1.2911e-4]
    assert enc.overlaps(pld.Enclosure(F("1.2590e-4"), F("1.2911e-4")))


def test_sigma_at_q_one_is_the_gaussian_calibration() -> None:
    # q = 1: the least σ of k Gaussian steps is √k times that of one (gaussian.sigma with k = steps)
    r = pld.dpsgd_sigma("1", 4, "1", "1e-3", rel_tol=0.01)
    g = GAUSSIAN_SIGMA.enclose(eps=1, delta=F(1, 1000), k=4, rel_tol=1e-12)
    assert r.reached and r.enclosure.lo <= g.lo and g.hi <= r.enclosure.hi
    assert r.enclosure.rel_width() <= 0.01


def test_eps_zero_when_delta_of_zero_is_below_target() -> None:
    # one step at q = 105/100000, σ = 1: δ(0) = 4.02e-4 (tensorflow/privacy#166), so ε(1e-3) = 0 exactly
    comps = _both(F(105, 100000), F(1), 1, 64)
    assert pld.eps_enclosure(comps, F(1, 1000), 1e-3).is_exact


@pytest.mark.parametrize(
    ("inputs", "name"),
    [
        ({"q": "0", "sigma": "1", "steps": 10, "eps": "1"}, "q"),
        ({"q": "1.5", "sigma": "1", "steps": 10, "eps": "1"}, "q"),
        ({"q": "0.1", "sigma": "0", "steps": 10, "eps": "1"}, "sigma"),
        ({"q": "0.1", "sigma": "1", "steps": "2.5", "eps": "1"}, "steps"),
        ({"q": "0.1", "sigma": "1", "steps": 10**8, "eps": "1"}, "steps"),
        ({"q": "0.1", "sigma": "1", "steps": 10, "eps": "-1"}, "eps"),
    ],
)
def test_bad_inputs_name_the_parameter(inputs: dict, name: str) -> None:
    with pytest.raises(InvalidParameter) as err:
        pld.dpsgd_delta(**inputs)
    assert err.value.name == name


def test_eps_bad_delta() -> None:
    for d in ("0", "1", "2"):
        with pytest.raises(InvalidParameter):
            pld.dpsgd_eps("0.1", "1", 10, d)


def test_sigma_bracket_is_confirmed_at_a_finer_grid() -> None:
    # the calibration's two proofs (coarse grid) re-proved by an independent, finer discretisation
    q, k, eps, d = F(1, 10), 10, F(1), F(1, 1000)
    r = pld.dpsgd_sigma(q, k, eps, d, rel_tol=0.02)
    lo, hi = r.enclosure.lo, r.enclosure.hi
    fine = 4 * r.resolution
    assert pld.delta_enclosure(_both(q, hi, k, fine), eps).hi <= d
    assert pld.delta_enclosure(_both(q, lo, k, fine), eps).lo > d
