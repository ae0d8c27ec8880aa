"""The Laplace mechanism on the PLD engine, against independent values: the one-step closed form, a two-step
hockey-stick divergence by mpmath quadrature of the densities (not of the engine's survival formulas), and
dp-accounting's pessimistic and optimistic PLDs at many steps."""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest

from dpcert.errors import InvalidParameter
from dpcert.laplace import pld as lap
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld import combine, compose, compose_directions, delta_enclosure, delta_of, discretise


def _quad_delta1(r: mpmath.mpf, e: mpmath.mpf) -> mpmath.mpf:
    """One step: ∫ (p − e^e q)₊ with p = Lap(0, 1), q = Lap(r, 1), any real e (quadrature split at the kinks)."""
    f = lambda x: max(mpmath.exp(-abs(x)) / 2 - mpmath.exp(e) * mpmath.exp(-abs(x - r)) / 2, 0)  # noqa: E731
    pts = [-mpmath.inf, 0, r, mpmath.inf]
    xc = (r - e) / 2  # where p = e^e q inside [0, r]
    if 0 < xc < r:
        pts = [-mpmath.inf, 0, xc, r, mpmath.inf]
    return mpmath.quad(f, pts)


def _delta1(r: mpmath.mpf, e: mpmath.mpf) -> mpmath.mpf:
    """One step in closed form for any real e: 0 above r, 1 − e^{(e − r)/2} on [−r, r], 1 − e^e below −r (where
    p >= e^e q everywhere); checked against :func:`_quad_delta1` below."""
    if e >= r:
        return mpmath.mpf(0)
    if e >= -r:
        return 1 - mpmath.exp((e - r) / 2)
    return 1 - mpmath.exp(e)


def _quad_delta2(r1: mpmath.mpf, r2: mpmath.mpf, e: mpmath.mpf) -> mpmath.mpf:
    """Two steps (r1 then r2): (y1 y2 − e^e)₊ = y1 (y2 − e^{e − L1})₊, so δ = ∫ p1(x) δ₂(e − L1(x)) dx with
    L1(x) = |x − r1| − |x| from the densities; split where e − L1 crosses ±r2."""
    loss = lambda x: abs(x - r1) - abs(x)  # noqa: E731
    f = lambda x: mpmath.exp(-abs(x)) / 2 * _delta1(r2, e - loss(x))  # noqa: E731
    pts = {mpmath.mpf(0), r1}
    for s in (e - r2, e + r2):  # L1(x) = r1 − 2x = s
        x = (r1 - s) / 2
        if 0 < x < r1:
            pts.add(x)
    return mpmath.quad(f, [-mpmath.inf, *sorted(pts), mpmath.inf])


def test_the_one_step_closed_form_is_the_quadrature() -> None:
    mpmath.mp.dps = 20
    for r, e in [(1, "0.5"), (1, "-0.5"), (1, "-2"), (2, "3"), ("0.5", "-0.25")]:
        r, e = mpmath.mpf(r), mpmath.mpf(e)
        assert abs(_delta1(r, e) - _quad_delta1(r, e)) <= mpmath.mpf(10) ** -15


@pytest.mark.parametrize(
    ("r", "eps"), [(F(1), F(0)), (F(1), F(1, 2)), (F(1), F(1)), (F(1, 2), F(1, 10)), (F(3), F(2)), (F(3), F(5))]
)
def test_one_step_is_the_closed_form(r: F, eps: F) -> None:
    exact = 1 - math.exp((eps - r) / 2) if eps <= r else 0.0
    enc = delta_of(compose(discretise(LaplaceLoss(F(1), r), 256, 1e-22), 1, 1e-24), eps)
    assert float(enc.lo) <= exact * (1 + 1e-12) + 1e-300
    assert exact * (1 - 1e-12) <= float(enc.hi)
    assert float(enc.hi) - float(enc.lo) <= 1e-4 * max(exact, 1e-12)


def test_scale_and_sensitivity_enter_only_as_their_ratio() -> None:
    a = delta_of(compose(discretise(LaplaceLoss(F(2), F(3)), 128, 1e-22), 3, 1e-24), F(1, 2))
    b = delta_of(compose(discretise(LaplaceLoss(F(4), F(6)), 128, 1e-22), 3, 1e-24), F(1, 2))
    assert (a.lo, a.hi) == (b.lo, b.hi)


@pytest.mark.parametrize(("r", "eps"), [(F(1), F(1, 2)), (F(1, 2), F(0)), (F(2), F(3, 2))])
def test_two_steps_against_quadrature(r: F, eps: F) -> None:
    mpmath.mp.dps = 20
    truth = _quad_delta2(
        mpmath.mpf(r.numerator) / r.denominator,
        mpmath.mpf(r.numerator) / r.denominator,
        mpmath.mpf(eps.numerator) / eps.denominator,
    )
    enc = delta_of(compose(discretise(LaplaceLoss(F(1), r), 512, 1e-22), 2, 1e-24), eps)
    assert (
        enc.lo <= F(str(truth * (1 + mpmath.mpf(10) ** -12))) and F(str(truth * (1 - mpmath.mpf(10) ** -12))) <= enc.hi
    )
    assert float(enc.hi - enc.lo) <= 1e-4 * float(truth)


def test_two_different_laplaces_combined_against_quadrature() -> None:
    # composition of different distributions: Laplace with r = 1 then r = 1/2, on one grid
    mpmath.mp.dps = 20
    truth = _quad_delta2(mpmath.mpf(1), mpmath.mpf(1) / 2, mpmath.mpf(1) / 3)
    n = 512
    a = compose(discretise(LaplaceLoss(F(1), F(1)), n, 1e-22), 1, 1e-24)
    b = compose(discretise(LaplaceLoss(F(2), F(1)), n, 1e-22), 1, 1e-24)
    enc = delta_of(combine(a, b, 1e-24), F(1, 3))
    assert float(enc.lo) <= float(truth) * (1 + 1e-12) and float(truth) * (1 - 1e-12) <= float(enc.hi)
    assert float(enc.hi - enc.lo) <= 1e-3 * float(truth)


def test_many_steps_against_dp_accounting_pessimistic_and_optimistic() -> None:
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    k, eps = 50, 2.0
    bounds = []
    for pessimistic in (True, False):
        one = pldm.from_laplace_mechanism(
            4.0, sensitivity=1.0, pessimistic_estimate=pessimistic, value_discretization_interval=1e-4
        )
        bounds.append(one.self_compose(k).get_delta_for_epsilon(eps))
    pess, opt = bounds
    assert opt <= pess
    enc = delta_enclosure(compose_directions([LaplaceLoss(F(4), F(1))], k, 1024, 1e-22), F(2))
    # both brackets hold the truth: they must overlap, and dpcert's is much narrower at this grid
    assert float(enc.lo) <= pess * (1 + 1e-9) and opt * (1 - 1e-9) <= float(enc.hi)
    assert float(enc.hi - enc.lo) <= 1e-3 * float(enc.hi)


def test_eps_is_the_closed_form_inverse_at_one_step() -> None:
    # 1 − e^{(ε − r)/2} = δ  ⇔  ε = r + 2 log(1 − δ)
    r = lap.laplace_eps("1e-3", "1", "1", 1, rel_tol=1e-6)
    exact = 1 + 2 * math.log1p(-1e-3)
    assert r.reached and float(r.enclosure.lo) <= exact <= float(r.enclosure.hi)


def test_quantities_reach_through_eval_and_enclose() -> None:
    import dpcert

    enc = dpcert.enclose("laplace.delta", eps="1/2", scale="1", sensitivity="1", k=1, rel_tol=1e-6)
    exact = 1 - math.exp(-0.25)
    assert float(enc.lo) <= exact <= float(enc.hi)


@pytest.mark.parametrize(
    ("inputs", "name"),
    [
        ({"eps": "1", "scale": "0", "sensitivity": "1", "k": 1}, "scale"),
        ({"eps": "1", "scale": "1", "sensitivity": "-1", "k": 1}, "sensitivity"),
        ({"eps": "-1", "scale": "1", "sensitivity": "1", "k": 1}, "eps"),
        ({"eps": "1", "scale": "1", "sensitivity": "1", "k": 0}, "k"),
        ({"eps": "1", "scale": "1e-9", "sensitivity": "1", "k": 1}, "scale"),  # a loss range no grid fits
    ],
)
def test_bad_inputs_name_the_parameter(inputs: dict, name: str) -> None:
    with pytest.raises(InvalidParameter) as err:
        lap.laplace_delta(**inputs)
    assert err.value.name == name
