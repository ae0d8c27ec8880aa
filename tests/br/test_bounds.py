"""Upper bounds of Dong–Durfee–Rogers §3.4/§7: closed forms vs their λ-optimisations, the U-ordering, printed values."""

import math
from fractions import Fraction

import pytest
from harness import assert_float_in_ball
from scipy.optimize import minimize_scalar

from dpcert.arith.context import FLOAT, BallContext
from dpcert.br import QUANTITIES, rr
from dpcert.br.bounds import mgf_eps_at, mgf_h
from dpcert.br.nonadaptive import nonadaptive_eps
from dpcert.composition.kov import kov_eps

NAMES = ["br.optkl.eps", "br.mgf.eps", "br.dr19.eps", "br.zcdp.eps", "br.drv10.eps"]


def _sup_h(eps: float, lam: float) -> float:
    """h_ε(λ) by a dense grid plus bounded Brent on t (independent of the closed-form maximiser)."""

    def neg(t: float) -> float:
        inner = rr.one_minus_p(FLOAT, eps, t) + rr.p_rr(FLOAT, eps, t) * math.exp(-lam * eps)
        return math.inf if inner <= 0 else -(lam * (eps - t) + math.log(inner))

    grid = [eps * j / 400 for j in range(401)]
    t0 = min(grid, key=neg)
    res = minimize_scalar(
        neg, bounds=(max(0.0, t0 - eps / 400), min(eps, t0 + eps / 400)), method="bounded", options={"xatol": 1e-13}
    )
    return -min(res.fun, neg(t0))


@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 3.0])
@pytest.mark.parametrize("lam", [0.01, 0.5, 1.0, 5.0, 50.0, 500.0])
def test_h_closed_form_is_the_sup(eps, lam):
    assert mgf_h(FLOAT, eps, lam) == pytest.approx(_sup_h(eps, lam), rel=1e-9, abs=1e-15)


def test_h_printed_and_u_ordering():
    # Independently computed ordering at ε = 1: General MGF <= KL-improved DR19 <= zCDP <= DR19 <= improved DRV10
    table = {0.1: 0.013543, 0.25: 0.038371, 0.5: 0.091556, 1: 0.240229, 2: 0.686752, 5: 2.774221}
    mk = rr.maxkl(FLOAT, 1.0)
    for lam, printed in table.items():
        h = mgf_h(FLOAT, 1.0, lam)
        assert round(h, 6) == printed
        us = [h, lam**2 / 8 + lam * mk, (lam**2 + lam) / 8, (lam**2 / 4 + lam) / 2, (lam**2 + lam) / 2]
        assert us == sorted(us)


def test_h_ball_encloses_float():
    with BallContext(128) as ctx:
        for e, lam in [(Fraction(1), Fraction(1)), (Fraction(1, 100), Fraction(300)), (Fraction(3), Fraction(1, 50))]:
            b = mgf_h(ctx, ctx.num(e), ctx.num(lam))
            assert abs(float(b.mid()) - mgf_h(FLOAT, float(e), float(lam))) <= 1e-13 * abs(float(b.mid())) + 1e-300


@pytest.mark.parametrize(("k", "eps"), [(10, 1.0), (100, 0.1), (1000, 0.01)])
def test_closed_forms_are_the_lambda_optima(k, eps):
    # D1/D2: inf_λ (k U(λ) + ln(1/δ))/λ for the quadratic U's equals the closed form (before the cap)
    d = 1e-6
    mk = rr.maxkl(FLOAT, eps)
    for u, closed in [
        (lambda lam: lam**2 * eps**2 / 8 + lam * mk, k * mk + math.sqrt(k * eps**2 * math.log(1 / d) / 2)),
        (lambda lam: eps**2 * (lam**2 / 4 + lam) / 2, k * eps**2 / 2 + math.sqrt(k * eps**2 * math.log(1 / d) / 2)),
        (lambda lam: eps**2 * (lam**2 + lam) / 2, k * eps**2 / 2 + math.sqrt(2 * k * eps**2 * math.log(1 / d))),
    ]:
        res = minimize_scalar(
            lambda x, u=u: (k * u(math.exp(x)) + math.log(1 / d)) / math.exp(x),
            bounds=(-15, 10),
            method="bounded",
            options={"xatol": 1e-12},
        )
        assert res.fun == pytest.approx(closed, rel=1e-9)


@pytest.mark.parametrize(("k", "eps"), [(10, "1"), (100, "0.1"), (200, "1"), (1000, "0.1")])
def test_ordering_of_the_curves(k, eps):
    # ε/2-DP <= BR OptComp <= MGF <= OptKL <= zCDP <= DR19 <= DRV10, and BR OptComp <= ε-DP
    # (docs/derivations/darrm.md#error-under-a-product-prior)
    inputs = {"k": k, "eps": eps, "delta": "1e-6"}
    order = ["br.mgf.eps", "br.optkl.eps", "br.zcdp.eps", "br.dr19.eps", "br.drv10.eps"]
    encs = [QUANTITIES[n].enclose(inputs, rel_tol=1e-12) for n in order]
    br = nonadaptive_eps(k, eps, "1e-6", rel_tol=Fraction(1, 10**9))
    half = kov_eps(k, str(Fraction(eps) / 2), "1e-6")
    chain = [half, br, *encs]
    for a, b in zip(chain, chain[1:], strict=False):
        assert a.hi <= b.lo
    assert br.hi <= kov_eps(k, eps, "1e-6").lo


def test_any_lambda_is_valid_and_the_search_is_near_optimal():
    k, eps, d = 100, 0.1, 1e-6
    best = QUANTITIES["br.mgf.eps"].evaluate_float(k=k, eps="0.1", delta="1e-6")
    for lam in [0.5, 2.0, 10.0, 50.0]:
        assert mgf_eps_at(FLOAT, k, eps, d, lam) >= best - 1e-9
    assert round(best, 5) == 2.72863


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("inputs", [{"k": 1, "eps": "2", "delta": "0.3"}, {"k": 5000, "eps": "0.01", "delta": "1e-9"}])
def test_float_in_ball(name, inputs):
    assert_float_in_ball(QUANTITIES[name], inputs)
