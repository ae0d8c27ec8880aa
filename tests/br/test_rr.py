"""Generalized randomized response (Definition 2.4): stable formulas vs the defining ones, identities, maxkl."""

from fractions import Fraction

import pytest

from dpcert.arith.ball import ball, workprec
from dpcert.arith.context import FLOAT, BallContext
from dpcert.br import rr


def test_identities_hold_exactly():
    assert all(rr.rr_identities().values())


@pytest.mark.parametrize(("eps", "t"), [("1", "1/3"), ("1/100", "1/1000"), ("5", "49/10"), ("1/10", "0")])
def test_stable_forms_match_definition(eps, t):
    e, tt = Fraction(eps), Fraction(t)
    with BallContext(200) as ctx:
        eb, tb = ctx.num(e), ctx.num(tt)
        den = 1 - (-eb).exp()
        q_def = (1 - (tb - eb).exp()) / den
        p_def = ((-tb).exp() - (-eb).exp()) / den
        assert rr.q_rr(ctx, eb, tb).overlaps(q_def) and rr.p_rr(ctx, eb, tb).overlaps(p_def)
        assert rr.one_minus_q(ctx, eb, tb).overlaps(1 - q_def) and rr.one_minus_p(ctx, eb, tb).overlaps(1 - p_def)
        q_f = rr.q_rr(FLOAT, float(e), float(tt))
        assert abs(q_f - float(q_def.mid())) <= 1e-14 * abs(float(q_def.mid())) + 1e-300


def test_maxkl_printed_and_argmax():
    # independent mpmath: maxkl(1) = 0.12330156148224447 at t = ln(e − 1) = 0.5413248546
    assert rr.maxkl(FLOAT, 1.0) == pytest.approx(0.12330156148224447, rel=1e-15)
    assert rr.maxkl_argmax(FLOAT, 1.0) == pytest.approx(0.5413248546, abs=1e-10)
    with workprec(128):
        e = ball(1)
        t = rr.maxkl_argmax(BallContext(128), e)
        assert rr.kl_rr(BallContext(128), e, t).overlaps(rr.maxkl(BallContext(128), e))


def test_kl_is_the_divergence():
    with BallContext(200) as ctx:
        e, t = ctx.num(Fraction(7, 10)), ctx.num(Fraction(1, 5))
        q, p = rr.q_rr(ctx, e, t), rr.p_rr(ctx, e, t)
        kl = q * (q / p).log() + (1 - q) * ((1 - q) / (1 - p)).log()
        assert rr.kl_rr(ctx, e, t).overlaps(kl)
