"""sgm.rdp at real orders (certified quadrature): agreement with mpmath at random (q, σ, α), and its cost."""

from fractions import Fraction

import mpmath as mp
import pytest
from flint import acb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcert.arith.ball import workprec
from dpcert.gaussian import sgm
from dpcert.gaussian.sgm import SGM_RDP


def to_mp(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def mp_rdp_real(q, sigma, alpha):
    """log1p(A_α − 1)/(α − 1), A_α − 1 = E_{z∼N(0,σ²)}[(1+qu)^α − 1 − αqu], u = e^{(2z−1)/(2σ²)} − 1, by mpmath
    tanh-sinh quadrature at 60 digits (the subtraction loses about log10(1/q²) of them), breakpoints at the
    integrand's features (z = 1/2 where u = 0, the peak near z = α)."""
    with mp.workdps(60):
        qm, s, a = to_mp(q), to_mp(sigma), to_mp(alpha)

        def g(z):
            u = mp.expm1((2 * z - 1) / (2 * s * s))
            return mp.npdf(z, 0, s) * ((1 + qm * u) ** a - 1 - a * qm * u)

        points = sorted({-10 * s, -3 * s, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), a - 3 * s, a, a + 3 * s, a + 10 * s})
        a1 = mp.quad(g, [-mp.inf, *points, mp.inf])
        return mp.log1p(a1) / (a - 1)


def inside(enc, x, rel):
    x = Fraction(mp.nstr(x, 50))
    return enc.lo - abs(x) * rel <= x <= enc.hi + abs(x) * rel


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    q=st.one_of(
        st.integers(1, 999).map(lambda k: Fraction(k, 1000)), st.integers(2, 6).map(lambda e: Fraction(1, 10**e))
    ),
    sigma=st.integers(5, 60).map(lambda k: Fraction(k, 10)),
    alpha=st.one_of(
        st.integers(1, 999).map(lambda k: 1 + Fraction(k, 1000)),  # near 1
        st.integers(2, 3000).map(lambda k: 1 + Fraction(2 * k + 1, 200)),  # up to about 31, never an integer
    ),
)
def test_real_orders_match_mpmath_at_random_points(q, sigma, alpha):
    if (alpha * alpha - alpha) / (2 * sigma * sigma) > 60:  # keep mpmath's quadrature quick; not a cap of sgm.rdp
        alpha = 1 + (alpha - 1) / 8
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-20)
    assert enc.lo > 0 and enc.rel_width() <= 1e-20
    assert inside(enc, mp_rdp_real(q, sigma, alpha), Fraction(1, 10**22))


def test_quadrature_needs_few_integrand_evaluations(monkeypatch):
    # It took about 6,000 evaluations at (0.01, 1, 2.5) and 64 bits (60-200 ms): the far tail was resolved to an
    # absolute 2^-2prec, boxes around z = 1/2 met the direct form's 1/x² and were bisected to |x| <= 2^-16, and
    # u²·(…)/x² on boxes at large z was overestimated some 100-fold. Now a few hundred.
    calls = [0]
    integral = acb.integral

    def counting(f, a, b, **kw):
        def g(z, analytic):
            calls[0] += 1
            return f(z, analytic)

        return integral(g, a, b, **kw)

    monkeypatch.setattr(acb, "integral", counting)
    for q, sigma, alpha in (
        (Fraction(1, 100), 1, Fraction(5, 2)),
        (Fraction(256, 60000), Fraction(11, 10), Fraction(15, 2)),
    ):
        calls[0] = 0
        with workprec(64):
            sgm._rdp_real(q, Fraction(sigma), Fraction(alpha), 64)
        assert calls[0] < 1200, (q, sigma, alpha, calls[0])
    # large orders: about 10,800 and 41,000 before (the right end at 243; the far tail resolved to 2^-2prec; the
    # Gaussian and b^α bounded apart on boxes), about 500 and 250 now
    for q, sigma, alpha in ((Fraction(1, 100), 2, Fraction(241, 2)), (Fraction(1, 2), 8, Fraction(1999, 2))):
        calls[0] = 0
        with workprec(64):
            sgm._rdp_real(q, Fraction(sigma), alpha, 64)
        assert calls[0] < 1500, (q, sigma, alpha, calls[0])


@pytest.mark.parametrize(
    "q,sigma,alpha", [("0.01", "2", "120.5"), ("0.001", "8", "300.5"), ("0.9", "3", "40.5"), ("0.5", "8", "999.5")]
)
def test_large_orders_match_mpmath(q, sigma, alpha):
    # for α >= 2 the right end comes from the tail bound that keeps q^α ((qκ)^α e^{(α²−α)/(2σ²)} Φ̄((L₂ − α)/σ)):
    # at (0.01, 2, 120.5) L₂ is about 140 instead of 243; and where b >= 2 the integrand is the centred exponent
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-20)
    assert enc.rel_width() <= 1e-20
    assert inside(enc, mp_rdp_real(q, sigma, alpha), Fraction(1, 10**22))
