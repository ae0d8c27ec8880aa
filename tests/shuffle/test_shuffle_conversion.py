"""RDP -> DP: Lemma 1's two forms are inverses (C1), Lemma 1 beats Mironov's conversion, RR_1 and the upper bound."""

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcert.arith.context import FLOAT, BallContext
from dpcert.composition.rdp import rdp_to_dp_eps
from dpcert.shuffle import QUANTITIES, conversion

UPPER = QUANTITIES["shuffle.rdp.upper"]


@given(st.floats(1.001, 1000), st.floats(1e-8, 10), st.floats(1e-12, 0.5))
def test_lemma1_forms_are_inverse_and_beat_mironov(lam, rdp, delta):
    eps = conversion.lemma1_eps(FLOAT, lam, rdp, delta)
    back = conversion.lemma1_delta(FLOAT, lam, rdp, eps)
    assert back == pytest.approx(delta, rel=1e-7)
    # Mironov Prop. 3 (the foundation's conversion) is never tighter than Lemma 1
    assert eps <= rdp_to_dp_eps(FLOAT, Fraction(lam), Fraction(rdp), Fraction(delta)) + 1e-12


def test_lemma1_inverse_in_balls():
    with BallContext(200) as ctx:
        lam, rdp, delta = ctx.num(Fraction(37, 3)), ctx.num(Fraction(1, 7)), ctx.num(Fraction(1, 10**6))
        back = conversion.lemma1_delta(ctx, lam, rdp, conversion.lemma1_eps(ctx, lam, rdp, delta))
        assert abs(back - delta) < ctx.num(Fraction(1, 10**50))


def test_rr1_closed_form_and_steinke_value():
    # independent mpmath: RR_1(100) at eps0 = 3 is 2.99950921867 (< eps0)
    enc = QUANTITIES["shuffle.rdp.upper"].enclose(n=1, eps0=3, lam=100, bound="default")
    with mpmath.workdps(30):
        rr1 = mpmath.log((mpmath.exp(300) + mpmath.exp(-297)) / (mpmath.e**3 + 1)) / 99
    assert abs(float(rr1) - 2.99950921867) < 1e-10
    # at n = 1 Theorem 1's Chernoff term is e^{eps0 lam}: RR_1 is the minimum
    assert enc.contains(Fraction(mpmath.nstr(rr1, 25))) or abs(enc.lo - Fraction(mpmath.nstr(rr1, 25))) < Fraction(
        1, 10**20
    )
    assert float(conversion.rr1_float(1, 3.0, 100.0)) == pytest.approx(float(rr1), rel=1e-14)
    assert float(conversion.rr1_float(1, 1e-4, 2.0)) == pytest.approx(
        math.log((math.exp(2e-4) + math.exp(-1e-4)) / (math.exp(1e-4) + 1)), rel=1e-8
    )


def test_upper_is_the_min_and_dp_uses_it():
    # (10, 3, 2): Thm 1 = 5.99 > RR_1 < eps0
    enc = UPPER.enclose(n=10, eps0=3, lam=2, bound="default")
    assert enc.hi < 3
    # a worse lambda gives a larger eps: the chosen one is no worse than lambda = 2 (any lambda is valid)
    dp = QUANTITIES["shuffle.dp.eps"].enclose(n=10**4, eps0="0.5", T=10, delta="0.000001")
    with BallContext(128) as ctx:
        at2 = conversion.lemma1_eps(
            ctx,
            ctx.num(2),
            10 * conversion.upper_ball(ctx, 10**4, Fraction(1, 2), Fraction(2)),
            ctx.num(Fraction(1, 10**6)),
        )
    assert dp.hi < Fraction(str(at2.mid().str(30, radius=False)))


def test_dp_delta_is_consistent_with_dp_eps():
    n, e0, t, delta = 10**5, "1", 100, "0.00001"
    eps = QUANTITIES["shuffle.dp.eps"].enclose(n=n, eps0=e0, T=t, delta=delta)
    d = QUANTITIES["shuffle.dp.delta"].enclose(n=n, eps0=e0, T=t, eps=str(eps.hi))
    assert d.hi <= Fraction(delta) * (1 + Fraction(1, 10**6))
