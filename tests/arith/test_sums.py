"""Certified sums of positive log-concave terms: exact rational sums, mpmath at high precision, closed forms.

The point of the machinery is that it stops early; each test checks that the true sum is still inside the
enclosure (the tail and head bounds are valid), and that the explicit part is short.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from flint import arb
from hypothesis import example, given
from hypothesis import strategies as st

from dpcert.arith.ball import Enclosure, ball, workprec
from dpcert.arith.sums import Weight, find_peak, log_concave_sum, log_concave_sum_float


def binomial(k, p):
    """term, ratio and exact mass of Bin(k, p) with rational p, as ball callables."""

    def term(i):
        return arb(math.comb(k, i)) * ball(p) ** i * ball(1 - p) ** (k - i)

    def ratio(i):
        return ball(p) * (k - i) / (ball(1 - p) * (i + 1))

    def exact(i):
        return math.comb(k, i) * p**i * (1 - p) ** (k - i)

    return term, ratio, exact


def enclosure(b):
    return Enclosure.from_ball(b)


@given(st.integers(1, 200), st.integers(1, 99), st.integers(0, 200), st.integers(0, 200))
@example(200, 50, 0, 200)  # the whole range: the sum is exactly 1
@example(200, 1, 150, 200)  # far in the tail
@example(60, 99, 0, 3)  # before the peak only (head bound unused: start reached)
def test_binomial_sum_contains_the_exact_rational_sum(k, pc, a, b):
    p = Fraction(pc, 100)
    a, b = sorted((min(a, k), min(b, k)))
    term, ratio, exact = binomial(k, p)
    with workprec(100):
        s = log_concave_sum(term, ratio, a, b, prec=80)
    truth = sum(exact(i) for i in range(a, b + 1))
    enc = enclosure(s.values[0])
    assert enc.contains(truth)
    assert enc.width <= truth * Fraction(1, 2**70)
    assert a <= s.first <= s.last <= b


@given(st.integers(1, 150), st.integers(1, 99), st.integers(0, 150))
def test_weighted_sum_contains_the_exact_rational_sum(k, pc, a):
    # weights w_i = 1 − 2^-(i+1) in (0, 1): given at an index and stepped by w_{i+1} = 1/2 + w_i/2
    p, a = Fraction(pc, 100), min(a, k)
    term, ratio, exact = binomial(k, p)
    w = Weight(lambda i: ball(1 - Fraction(1, 2 ** (i + 1))), lambda i, wi: ball(Fraction(1, 2)) + wi / 2)
    with workprec(100):
        s = log_concave_sum(term, ratio, a, k, prec=80, weights=[w], plain=True)
    truth = sum(exact(i) * (1 - Fraction(1, 2 ** (i + 1))) for i in range(a, k + 1))
    assert enclosure(s.values[0]).contains(truth)
    assert enclosure(s.plain).contains(sum(exact(i) for i in range(a, k + 1)))


def mp_binomial_tail(k, p, a):
    """P(X >= a), X ~ Bin(k, p), summing every term at 40 digits (no truncation at all)."""
    with mp.workdps(40):
        q = mp.mpf(p.numerator) / p.denominator
        t = mp.exp(mp.loggamma(k + 1) - mp.loggamma(a + 1) - mp.loggamma(k - a + 1)) * q**a * (1 - q) ** (k - a)
        r = q / (1 - q)
        total = mp.mpf(0)
        for i in range(a, k + 1):
            total += t
            t *= r * (k - i) / (i + 1)
        return total


@pytest.mark.parametrize(
    "k, p, a", [(10**5, "0.3", 30500), (10**5, "0.5", 0), (10**6, "0.01", 9000), (10**6, "0.7", 10)]
)
def test_long_binomial_tail_against_independent_sums(k, p, a):
    p = Fraction(p)

    def term(i):
        log_c = arb(k + 1).lgamma() - arb(i + 1).lgamma() - arb(k - i + 1).lgamma()
        return (log_c + i * ball(p).log() + (k - i) * ball(1 - p).log()).exp()

    def ratio(i):
        return ball(p) * (k - i) / (ball(1 - p) * (i + 1))

    with workprec(140):
        s = log_concave_sum(term, ratio, a, k, prec=100)
    enc = enclosure(s.values[0])
    if k <= 10**5:
        # every one of the k − a + 1 terms at 40 digits: the enclosure holds it, so the tail bound was valid
        with mp.workdps(40):
            truth = mp_binomial_tail(k, p, a)
            lo, hi = (mp.mpf(x.numerator) / x.denominator for x in (enc.lo, enc.hi))
            assert lo - mp.mpf("1e-36") * truth <= truth <= hi + mp.mpf("1e-36") * truth
            assert hi - lo <= mp.mpf("1e-28") * truth
    else:
        # boost's binomial survival function (scipy), relative error ~1e-14
        from scipy import stats

        truth = stats.binom.sf(a - 1, k, float(p))
        assert math.isclose(float(enc.mid()), truth, rel_tol=1e-11) and enc.rel_width() < 1e-28
    # the explicit part is a few dozen standard deviations at most, not the range
    assert s.terms < 60 * math.sqrt(k * p * (1 - p)) + 200


def test_geometric_series_tail_bound_is_valid():
    # Σ_{i=0}^{n} 2^-i = 2 − 2^-n: the omitted part ~2^-60 is inside the radius, for a range of 10^12 terms
    with workprec(80):
        s = log_concave_sum(lambda i: ball(Fraction(1, 2**i)), lambda i: ball(Fraction(1, 2)), 0, 10**12, prec=64)
    enc = enclosure(s.values[0])
    assert enc.contains(2) and s.terms < 100
    assert enc.width < Fraction(1, 2**60)
    # with a short range the sum is exact up to rounding: 2 − 2^-10 inside, 2 outside
    with workprec(80):
        s = log_concave_sum(lambda i: ball(Fraction(1, 2**i)), lambda i: ball(Fraction(1, 2)), 0, 10, prec=64)
    assert enclosure(s.values[0]).contains(2 - Fraction(1, 2**10)) and not enclosure(s.values[0]).contains(2)


def test_poisson_series_against_exp():
    # Σ_{i>=0} λ^i/i! = e^λ: an infinite log-concave series (ratio λ/(i+1)), cut by the tail bound
    lam = Fraction(37, 2)
    with workprec(120):
        s = log_concave_sum(
            lambda i: ball(lam) ** i / arb(i).fac() if i else arb(1), lambda i: ball(lam) / (i + 1), 0, 10**9, prec=100
        )
    with mp.workdps(50):
        truth = mp.exp(mp.mpf(37) / 2)
        enc = enclosure(s.values[0])
        lo, hi = (mp.mpf(x.numerator) / x.denominator for x in (enc.lo, enc.hi))
        assert lo <= truth <= hi and hi - lo <= mp.mpf("1e-28") * truth


def test_stop_above_gives_a_certified_lower_bound():
    term, ratio, exact = binomial(1000, Fraction(1, 2))
    with workprec(100):
        s = log_concave_sum(term, ratio, 0, 1000, prec=80, stop_above=Fraction(1, 10))
    assert s.exceeded and s.values[0] > ball(Fraction(1, 10))
    # a partial sum: below the whole sum (1), and only a few terms were needed
    assert s.values[0] < 1 and s.terms < 100
    with workprec(100):
        s = log_concave_sum(term, ratio, 0, 1000, prec=80, stop_above=Fraction(2))
    assert not s.exceeded and enclosure(s.values[0]).contains(1)


def test_find_peak_is_the_binomial_mode():
    for k, p in [(10, Fraction(1, 3)), (1001, Fraction(1, 2)), (50, Fraction(99, 100))]:
        _, ratio, exact = binomial(k, p)
        with workprec(64):
            m = find_peak(ratio, 0, k)
        assert exact(m) == max(exact(i) for i in range(k + 1))


def test_bad_range():
    with pytest.raises(ValueError):
        log_concave_sum(lambda i: arb(1), lambda i: arb(1), 5, 4, prec=64)
    with pytest.raises(ValueError):
        log_concave_sum_float(lambda i: i * 1.0, lambda i: i * 1.0, 5, 4)


# ------------------------------------------------------------------------------- the float twin


def float_binomial(k, p):
    from scipy import stats

    return (lambda i: stats.binom.pmf(i, k, p)), (lambda i: p * (k - i) / ((1 - p) * (i + 1)))


@pytest.mark.parametrize(
    "k, p, a, b", [(200, 0.3, 0, 200), (200, 0.3, 80, 200), (10**6, 0.5, 0, 10**6), (10**6, 0.01, 9000, 10**6)]
)
def test_float_twin_against_exact_and_mpmath(k, p, a, b):
    env, ratio = float_binomial(k, p)
    (value,) = log_concave_sum_float(env, ratio, a, b)
    pf = Fraction(p)
    if k <= 200:
        truth = float(sum(math.comb(k, i) * pf**i * (1 - pf) ** (k - i) for i in range(a, b + 1)))
    else:
        from scipy import stats

        truth = stats.binom.sf(a - 1, k, p) if a > 0 else 1.0
    assert math.isclose(value, truth, rel_tol=1e-12)


def test_float_twin_evaluates_about_as_many_terms_as_the_ball_sum():
    k, p = 10**7, 0.5
    env, ratio = float_binomial(k, p)
    seen = []

    def counting(i):
        seen.append(len(i))
        return env(i)

    (value,) = log_concave_sum_float(counting, ratio, 0, k)
    assert math.isclose(value, 1.0, rel_tol=1e-12)
    assert sum(seen) < 40 * math.sqrt(k * p * (1 - p))  # ~ 10^5 of the 10^7 terms


def test_float_twin_with_weights_and_geometric_series():
    (two,) = log_concave_sum_float(lambda i: 0.5 ** i.astype(float), lambda i: np.full(i.shape, 0.5), 0, 10**12)
    assert two == 2.0
    env, ratio = float_binomial(300, 0.4)
    half, full = log_concave_sum_float(
        env, ratio, 0, 300, weights=[lambda i: np.full(i.shape, 0.5), lambda i: np.ones(i.shape)]
    )
    assert math.isclose(half, 0.5, rel_tol=1e-13) and math.isclose(full, 1.0, rel_tol=1e-13)


def test_docstring_examples():
    import doctest

    from dpcert.arith import sums

    failures, tried = doctest.testmod(sums)
    assert tried >= 3 and failures == 0
