"""The two RDP -> (eps, delta)-DP conversions are written once (dpcert.composition.rdp) and every package that
converts uses that text; checked against mpmath written directly from the statements."""

from fractions import Fraction

import mpmath

from dpcert.arith.ball import ball
from dpcert.arith.context import FLOAT, BallContext
from dpcert.composition import rdp
from dpcert.gaussian import conversion as gaussian_conversion
from dpcert.gaussian import dpsgd_rdp
from dpcert.shuffle import conversion as shuffle_conversion


def test_one_text_for_each_conversion():
    assert shuffle_conversion.lemma1_eps is rdp.cks_eps_raw
    assert shuffle_conversion.lemma1_delta is rdp.cks_delta_raw
    assert gaussian_conversion.cks_eps_raw is rdp.cks_eps_raw and gaussian_conversion.cks_eps is rdp.cks_eps
    assert gaussian_conversion.mironov_eps is rdp.mironov_eps is rdp.rdp_to_dp_eps
    assert dpsgd_rdp.cks_eps_raw is rdp.cks_eps_raw and dpsgd_rdp.mironov_eps is rdp.mironov_eps


def _cks(a, r, d):  # Canonne-Kamath-Steinke Prop. 12, as printed
    return r + mpmath.log(1 - 1 / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)


def test_the_conversions_in_balls_and_floats_against_mpmath():
    with mpmath.workdps(50):
        for a, r, d in [(Fraction(3, 2), Fraction(1, 10), Fraction(1, 10**5)), (64, 2, Fraction(1, 10**300))]:
            am, rm, dm = (mpmath.mpf(x.numerator) / x.denominator for x in map(Fraction, (a, r, d)))
            want_cks = _cks(am, rm, dm)
            want_mironov = rm - mpmath.log(dm) / (am - 1)
            assert want_cks < want_mironov
            with BallContext(200) as ctx:
                cks = rdp.cks_eps_raw(ctx, a, r, d)
                mir = rdp.mironov_eps(ctx, ball(Fraction(a)), r, d)  # a value already in the context, too
                back = rdp.cks_delta_raw(ctx, a, r, cks)
            for got, want in ((cks, want_cks), (mir, want_mironov)):
                assert abs(mpmath.mpf(got.mid().str(45, radius=False)) - want) <= mpmath.mpf(10) ** -40 * abs(want)
                assert got.rad() < 1e-40
            back_m = mpmath.mpf(back.mid().str(45, radius=False))
            assert abs(back_m / dm - 1) < mpmath.mpf(10) ** -30  # the delta form inverts the eps form
            assert abs(rdp.cks_eps_raw(FLOAT, a, r, d) - float(want_cks)) < 1e-12 * float(want_cks)
