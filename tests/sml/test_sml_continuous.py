"""Continuous SML (Proposition L.8 [WLF24]): rigorous quadrature of the envelope against the closed form
(docs/derivations/sml.md#continuous-parameters)."""

from fractions import Fraction as F

import mpmath
import pytest
from flint import ctx

from dpcert.errors import InvalidParameter
from dpcert.sml.continuous import gaussian_location_closed_form, gaussian_location_sml_exp


@pytest.mark.parametrize(("a", "b", "sigma"), [(0, 1, 1), (F(-1, 2), 3, F(1, 3)), (2, F(21, 10), 5)])
def test_quadrature_encloses_the_closed_form(a, b, sigma):
    old = ctx.prec
    ctx.prec = 96
    try:
        quad = gaussian_location_sml_exp(a, b, sigma)
        closed = gaussian_location_closed_form(a, b, sigma)
    finally:
        ctx.prec = old
    assert quad.overlaps(closed)
    assert quad.rad() < 1e-20
    # independently, mpmath's quadrature of the same envelope (sup over g of the Gaussian density)
    mpmath.mp.dps = 30
    fa, fb, fs = (mpmath.mpf(F(x).numerator) / F(x).denominator for x in (a, b, sigma))

    def envelope(x):
        g = min(max(x, fa), fb)  # the sup over g in [a, b] is at the projection of x
        return mpmath.npdf(x, g, fs)

    ref = mpmath.quad(envelope, [-mpmath.inf, fa, fb, mpmath.inf])
    assert abs(float(quad.mid()) - float(ref)) < 1e-12


def test_bad_inputs():
    with pytest.raises(InvalidParameter):
        gaussian_location_sml_exp(1, 1, 1)
    with pytest.raises(InvalidParameter):
        gaussian_location_sml_exp(0, 1, 0)
