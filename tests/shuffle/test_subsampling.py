"""Zhu–Wang's Poisson-subsampling bound over the shuffle bounds: autodp, exact subsampled RR, edge cases."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpcert.arith.ball import ball
from dpcert.arith.context import BallContext
from dpcert.arith.exact import parse_rational
from dpcert.shuffle import bounds, subsampling
from dpcert.shuffle.figure_claims import FIGURE_QUANTITIES


def _thm1(n: int, e0: float):
    return lambda a: float(bounds.thm1_float(n, e0, np.array([float(max(a, 2))]))[0])


@pytest.mark.parametrize(
    ("n", "eps0", "lam", "gamma"),
    [(1000, 3.0, 10, 0.001), (10**4, 1.0, 32, 0.01), (100, 0.5, 5, 0.5), (1000, 3.0, 51, 0.001)],
)
def test_matches_autodp_general_upperbound(n, eps0, lam, gamma):
    rdp_acct = pytest.importorskip("autodp.rdp_acct")
    ref = rdp_acct.general_upperbound(_thm1(n, eps0), lam, gamma) / (lam - 1)  # autodp returns the CGF
    assert subsampling.poisson_thm1_float(n, eps0, lam, gamma) == pytest.approx(ref, rel=1e-10)
    with BallContext(128) as ctx:
        val = subsampling.poisson_thm1_ball(ctx, n, parse_rational(str(eps0)), lam, parse_rational(str(gamma)))
    assert float(val.mid()) == pytest.approx(ref, rel=1e-10)


def test_autodp_is_looser_past_its_k_cap():
    # for alpha > 51 autodp replaces eps(l), l > 50, by eps(alpha): never below the exact formula
    rdp_acct = pytest.importorskip("autodp.rdp_acct")
    ref = rdp_acct.general_upperbound(_thm1(1000, 1.0), 80, 0.01) / 79
    assert subsampling.poisson_thm1_float(1000, 1.0, 80, 0.01) <= ref * (1 + 1e-12)


def _rr_rdp(e0: mpmath.mpf, a: int) -> mpmath.mpf:
    p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
    return mpmath.log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)


@pytest.mark.parametrize(
    ("eps0", "gamma", "alpha"), [("1", "0.1", 2), ("1", "0.1", 5), ("2", "0.3", 8), ("0.5", "0.9", 4)]
)
def test_bounds_the_exact_subsampled_randomized_response(eps0, gamma, alpha):
    # base pair: RR_eps0 on one bit, P = (p, 1-p), Q = (1-p, p); Poisson subsampling of the differing record gives
    # the pair ((1-g)P + gQ, P) and its reverse (add/remove); both orders must lie below the bound
    mpmath.mp.dps = 40
    e0, g = mpmath.mpf(eps0), mpmath.mpf(gamma)
    p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
    P, Q = [p, 1 - p], [1 - p, p]
    M = [(1 - g) * P[i] + g * Q[i] for i in range(2)]

    def renyi(x, y):
        return mpmath.log(sum(x[i] ** alpha * y[i] ** (1 - alpha) for i in range(2))) / (alpha - 1)

    exact = max(renyi(M, P), renyi(P, M))
    with BallContext(128):
        val = subsampling.zw19_ball(
            alpha, Fraction(gamma), lambda ell: ball(Fraction(str(_rr_rdp(e0, ell)))) + ball(Fraction(1, 10**30))
        )
    assert float(val.mid()) >= float(exact)
    assert float(val.mid()) < float(_rr_rdp(e0, alpha)) + math.log(3) / (alpha - 1)


def test_edge_cases_gamma_zero_and_one():
    with BallContext(128) as ctx:
        assert subsampling.poisson_thm1_ball(ctx, 100, parse_rational("1"), 5, parse_rational("0")) == 0
        # gamma = 1: only the l = alpha term survives, 3 e^{(alpha-1) eps(alpha)}
        one = subsampling.poisson_thm1_ball(ctx, 100, parse_rational("1"), 5, parse_rational("1"))
        t1 = bounds.thm1_ball(ctx, 100, parse_rational("1"), 5)
    assert abs(float(one.mid()) - (float(t1.mid()) + math.log(3) / 4)) < 1e-14
    assert subsampling.poisson_thm1_float(100, 1.0, 5, 1.0) == pytest.approx(
        float(t1.mid()) + math.log(3) / 4, rel=1e-13
    )


def test_quantity_float_inside_ball():
    q = FIGURE_QUANTITIES["shuffle.rdp.poisson"]
    inputs = {"n": 3000, "eps0": "2", "lam": 40, "gamma": "0.01"}
    enc = q.enclose(**inputs)
    assert q.float(**q.parse(inputs)) == pytest.approx(float(enc.mid()), rel=1e-12)


@pytest.mark.parametrize(
    ("n", "T", "printed"), [(1000, 10**3, 0.414), (1000, 10**4, 1.016), (1000, 10**5, 2.74), (10**4, 10**5, 0.694)]
)
def test_fig5_route_matches_the_notes_reconstruction(n, T, printed):
    # independent reproduction of Fig. 5: Thm 1 + ZW19 at n_s = gamma n, lambda <= 64, eps0 = 3, gamma = 1e-3, delta =
    # 1e-8
    lam, val = subsampling.poisson_dp_eps(
        n, parse_rational("3"), parse_rational("0.001"), T, parse_rational("1e-8"), 64
    )
    assert 2 <= lam <= 64
    assert float(val.mid()) == pytest.approx(printed, abs=0.0015)
