"""sgm.rdp (integer orders) and sgm.delta (one step, both directions) against mpmath, quadrature and the peers."""

import doctest
import importlib
from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.errors import InvalidParameter
from dpcert.gaussian.sgm import SGM_DELTA, SGM_RDP


def to_mp(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def mp_rdp_sum(q, sigma, alpha):
    """log(A_α)/(α − 1) from the binomial sum, in mpmath with enough digits that A_α − 1 keeps 50 of its own."""
    with mp.workdps(120):
        q, s = to_mp(q), to_mp(sigma)
        a = mp.fsum(
            mp.binomial(alpha, j) * (1 - q) ** (alpha - j) * q**j * mp.exp((j * j - j) / (2 * s * s))
            for j in range(alpha + 1)
        )
        return mp.log(a) / (alpha - 1)


def mp_rdp_quad(q, sigma, alpha):
    """The defining expectation A_α = E_{z∼N(0,σ²)}[((1−q) + q e^{(2z−1)/(2σ²)})^α] by quadrature (MTZ Sec. 3.3)."""
    with mp.workdps(30):
        q, s = to_mp(q), to_mp(sigma)
        f = lambda z: mp.npdf(z, 0, s) * ((1 - q) + q * mp.exp((2 * z - 1) / (2 * s * s))) ** alpha  # noqa: E731
        a = mp.quad(f, [-mp.inf, -5 * s, 0, 1, alpha, 3 * alpha * s * s + 10 * s, mp.inf])
        return mp.log(a) / (alpha - 1)


def inside(enc, x, rel):
    x = Fraction(mp.nstr(x, 60))
    return enc.lo - abs(x) * rel <= x <= enc.hi + abs(x) * rel


@pytest.mark.parametrize(
    "q,sigma,alpha",
    [
        ("0.01", "1", 2),
        ("0.01", "1", 32),
        ("0.01", "1", 256),
        ("256/60000", "1.1", 12),
        ("0.2", "3", 50),
        ("0.5", "0.5", 100),
        ("1e-6", "10", 7),
    ],
)
def test_rdp_matches_the_binomial_sum_in_mpmath_at_50_digits(q, sigma, alpha):
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-50, abs_tol=0)
    assert enc.rel_width() <= 1e-50
    assert inside(enc, mp_rdp_sum(q, sigma, alpha), Fraction(1, 10**48))


@pytest.mark.parametrize("q,sigma,alpha", [("0.001", "50", 1200), ("0.3", "0.7", 1000), ("0.5", "4", 700)])
def test_large_orders_summed_over_a_window_with_bounded_rest_match_mpmath(q, sigma, alpha):
    # above alpha = 512 only a window of terms is summed; the rest enters as a proved radius (Chernoff bounds)
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-40, abs_tol=0)
    assert enc.rel_width() <= 1e-40
    assert inside(enc, mp_rdp_sum(q, sigma, alpha), Fraction(1, 10**45))


def test_rdp_matches_quadrature_of_the_defining_expectation():
    for q, sigma, alpha in (("0.1", "1", 3), ("0.05", "2", 8)):
        enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha)
        assert inside(enc, mp_rdp_quad(q, sigma, alpha), Fraction(1, 10**20))


@pytest.mark.parametrize(
    "q,sigma,alpha", [("0.1", "1", "1.5"), ("0.01", "1", "2.5"), ("0.2", "3", "10.5"), ("0.5", "1", "20.5")]
)
def test_real_orders_match_mpmath_quadrature(q, sigma, alpha):
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-20)
    assert enc.rel_width() <= 1e-20
    assert inside(enc, mp_rdp_quad(q, sigma, to_mp(alpha)), Fraction(1, 10**20))


def test_real_orders_are_stable_as_alpha_tends_to_one():
    # RDP(α) → KL(P‖Q) as α → 1; KL by mpmath quadrature of E_P[log(P/Q)] (an independent formula)
    with mp.workdps(40):
        q, s = mp.mpf("0.01"), mp.mpf(1)
        ratio = lambda z: (1 - q) + q * mp.exp((2 * z - 1) / (2 * s * s))  # noqa: E731
        kl = mp.quad(lambda z: mp.npdf(z, 0, s) * ratio(z) * mp.log(ratio(z)), [-mp.inf, -5, 0, 1, 10, mp.inf])
    enc = SGM_RDP.enclose(q="0.01", sigma="1", alpha="1.000000001", rel_tol=1e-15)
    assert enc.rel_width() <= 1e-15
    assert abs(float(enc.mid()) / float(kl) - 1) < 1e-8  # the slope in α is about 1e-4 relative per unit
    # and continuity at an integer: the quadrature just above 3 meets the finite sum at 3
    at3 = SGM_RDP.enclose(q="0.01", sigma="1", alpha=3)
    near = SGM_RDP.enclose(q="0.01", sigma="1", alpha="3.000000001")
    assert at3.hi < near.lo and (near.lo - at3.hi) / at3.hi < Fraction(1, 10**6)
    # α = 1 + 1e-400 (the domain's extreme): RDP is the KL to ~1e-400; this took ~8 s with guard bits log2(1/(α−1))
    very_near = SGM_RDP.enclose(q="0.01", sigma="1", alpha=1 + Fraction(1, 10**400), rel_tol=1e-15, max_prec=512)
    assert very_near.rel_width() <= 1e-15 and inside(very_near, kl, Fraction(1, 10**30))


def test_real_orders_keep_relative_accuracy_at_tiny_q():
    # mpmath quadrature of the defining expectation, with (1+qu)^α − 1 − αqu formed at 150 digits (it is ~q² = 1e-60)
    q, sigma, alpha = Fraction(1, 10**30), Fraction(1), Fraction(5, 2)
    with mp.workdps(150):
        qm, a = to_mp(q), to_mp(alpha)

        def g(z):
            u = mp.expm1((2 * z - 1) / 2)
            return mp.npdf(z) * ((1 + qm * u) ** a - 1 - a * qm * u)

        a1 = mp.quad(g, [-mp.inf, -5, 0, 0.5, 1, 3, 10, mp.inf])
        want = mp.log1p(a1) / (a - 1)
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-20)
    assert enc.lo > 0 and enc.rel_width() <= 1e-20
    assert inside(enc, want, Fraction(1, 10**20))


@pytest.mark.parametrize("q", ["1e-300", "1e-3999"])
def test_real_orders_at_extremely_small_q_match_the_leading_term(q):
    # These used to end as an enclosure around 0 (q = 1e-300) or hang inside flint (q = 1e-3999). Independent value:
    # Taylor at x = qu (u = e^w − 1, w = (2z−1)/(2σ²)), (1+x)^α − 1 − αx = C(α,2)x² + R with
    # |R| <= |C(α,3)||x|³ max(1, b)^{α−3} <= |C(α,3)| q³ e^{α|w|} (α = 11/2 >= 3, b <= e^{|w|}, |u| <= e^{|w|}), and
    # E[u²] = e^{1/σ²} − 1, E[e^{c|w|}] <= e^{(c²−c)/(2σ²)} + e^{(c²+c)/(2σ²)}: so A_α − 1 = C(α,2)q²(e^{1/σ²} − 1)
    # within a relative error eta (below about 1e-290 here), and RDP = log1p(A_α − 1)/(α − 1).
    sigma, alpha = Fraction(201, 4), Fraction(11, 2)
    with mp.workdps(60):
        qm, s, a = mp.mpf(q), to_mp(sigma), to_mp(alpha)
        lead = mp.binomial(a, 2) * qm**2 * mp.expm1(1 / s**2)
        tail = abs(mp.binomial(a, 3)) * qm**3 * (mp.exp((a * a - a) / (2 * s * s)) + mp.exp((a * a + a) / (2 * s * s)))
        eta = tail / lead
        assert eta < mp.mpf("1e-200")
        want = mp.log1p(lead) / (a - 1)
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-10, max_prec=512)  # the CLI's --max-prec 512
    assert enc.lo > 0 and enc.rel_width() <= 1e-10
    assert inside(enc, want, Fraction(1, 10**50))


def test_real_order_cap_message_is_short():
    # sigma = 1e-300 used to be printed as a Fraction of about 300 digits
    with pytest.raises(InvalidParameter) as err:
        SGM_RDP.enclose(q="1/2", sigma="1e-300", alpha="11/2")
    assert len(str(err.value)) < 200 and "1e-300" in str(err.value)


def test_real_order_size_caps_are_checked_before_work():
    with pytest.raises(InvalidParameter, match="alpha"):
        SGM_RDP.enclose(q="0.3", sigma="0.5", alpha="255.5")  # (α² − α)/(2σ²) = 130,305 > 10^4
    assert SGM_RDP.enclose(q="0.3", sigma="0.5", alpha=255).lo > 0  # integers have no such cap


def test_q_one_is_the_gaussian_rdp_exactly():
    enc = SGM_RDP.enclose(q=1, sigma="2", alpha=5)
    assert enc.is_exact and enc.lo == Fraction(5, 8)


def test_rdp_is_non_decreasing_in_the_order():
    # the Rényi divergence is non-decreasing in its order (van Erven–Harremoës Thm 3), which dpsgd.rdp.eps uses
    values = [SGM_RDP.enclose(q="0.02", sigma="0.9", alpha=a) for a in range(2, 60)]
    assert all(a.hi < b.lo for a, b in zip(values[:-1], values[1:], strict=True))


@pytest.mark.parametrize(
    "inputs",
    [
        {"q": 0, "sigma": 1, "alpha": 2},
        {"q": "1.5", "sigma": 1, "alpha": 2},
        {"q": "0.1", "sigma": 0, "alpha": 2},
        {"q": "0.1", "sigma": 1, "alpha": 1},
        {"q": "0.1", "sigma": 1, "alpha": "0.5"},
    ],
)
def test_bad_input_is_refused(inputs):
    with pytest.raises(InvalidParameter):
        SGM_RDP.parse(inputs)


def mp_delta_quad(q, sigma, eps):
    """max over both directions of ∫ (P − e^ε Q)₊ by quadrature, the positive part located numerically."""
    with mp.workdps(40):
        q, s, e = to_mp(q), to_mp(sigma), to_mp(eps)
        p = lambda x: (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s)  # noqa: E731
        g = lambda x: mp.npdf(x, 0, s)  # noqa: E731
        # the ratio p/g is increasing: each hockey stick is one half-line, its end a root of the ratio
        rem_end = mp.findroot(lambda x: mp.log(p(x) / g(x)) - e, 2)
        rem = mp.quad(lambda x: p(x) - mp.exp(e) * g(x), [rem_end, rem_end + 10 * s, mp.inf])
        add = mp.mpf(0)
        if mp.exp(e) * (1 - q) < 1:
            add_end = mp.findroot(lambda x: mp.log(g(x) / p(x)) - e, -1)
            add = mp.quad(lambda x: g(x) - mp.exp(e) * p(x), [-mp.inf, add_end - 10 * s, add_end])
        return max(rem, add)


@pytest.mark.parametrize(
    "q,sigma,eps", [("0.01", "1", "0.001"), ("0.3", "2", "0.2"), ("0.2", "1", "0.5"), ("105/100000", "1", "0")]
)
def test_one_step_delta_matches_quadrature(q, sigma, eps):
    enc = SGM_DELTA.enclose(q=q, sigma=sigma, eps=eps)
    assert inside(enc, mp_delta_quad(q, sigma, eps), Fraction(1, 10**25))


def test_tfp166_one_step_total_variation():
    # an independent value: delta(0) = 4.02071168675e-4 for q = 105/100000, sigma = 1; and q(2Φ(1/2) − 1) exactly
    enc = SGM_DELTA.enclose(q="105/100000", sigma="1", eps="0")
    assert enc.decimal(12)[0].startswith("4.02071168675")
    with mp.workdps(40):
        assert inside(enc, mp.mpf(105) / 100000 * (2 * mp.ncdf(mp.mpf(1) / 2) - 1), Fraction(1, 10**35))


def test_q_one_is_the_gaussian_mechanism():
    from dpcert.gaussian.mechanism import gaussian_delta

    assert SGM_DELTA.enclose(q=1, sigma="1.5", eps="0.7").overlaps(gaussian_delta("0.7", "1.5"))


@pytest.mark.parametrize("module", ["dpcert.gaussian.mechanism", "dpcert.gaussian.dpsgd_rdp"])
def test_docstring_examples(module):
    failures, tried = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_one_step_delta_below_e_to_the_minus_a_million_is_a_proved_bound_not_a_hang():
    # q = 0.01, sigma = 100, eps = 50: x* = 10^4 log((e^50 − 0.99)/0.01) + 1/2 ≈ 5.5e5, so delta_rem <=
    # e^{-((x*−1)/σ)²/2} ≈ e^{-1.5e7}; the add direction is 0 (e^eps (1 − q) >= 1)
    enc = SGM_DELTA.enclose(
        q="0.01", sigma="100", eps="50", abs_tol=Fraction(1, 2**1442694)
    )  # an absolute bound, asked for
    assert enc.lo <= 0 < enc.hi <= Fraction(1, 2**1442694)
    # above the cut the value is enclosed digit by digit (about 5.7e-13150 here): positive and narrow
    near = SGM_DELTA.enclose(q="0.01", sigma="10", eps="20", rel_tol=1e-15, abs_tol=0)
    assert near.lo > 0 and near.rel_width() <= 1e-15 and near.hi < Fraction(1, 10**13000)


@pytest.mark.parametrize("q,sigma,alpha", [("0.01", "1", 4), ("0.2", "2", 8), ("0.5", "0.8", 3)])
def test_remove_direction_dominates_add_at_sample_points(q, sigma, alpha):
    # sgm.rdp is D_α(P‖Q) (remove); MTZ show it dominates the add direction D_α(Q‖P) (the theorem number is quoted
    # from memory elsewhere). Evidence here, not a proof: B_α = E_P[(Q/P)^α] by mpmath quadrature is below A_α.
    with mp.workdps(30):
        qq, s = to_mp(q), to_mp(sigma)
        p = lambda z: (1 - qq) * mp.npdf(z, 0, s) + qq * mp.npdf(z, 1, s)  # noqa: E731
        b = mp.quad(lambda z: mp.npdf(z, 0, s) ** alpha * p(z) ** (1 - alpha), [-mp.inf, -10 * s, 0, 1, 10 * s, mp.inf])
        add = mp.log(b) / (alpha - 1)
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha)
    assert Fraction(mp.nstr(add, 30)) < enc.lo
