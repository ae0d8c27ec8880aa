"""FMT20 baseline: the authors' printed numbers, a brute-force hockey-stick of the clone pair, and KOV15 checks."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from dpcert.arith.ball import Enclosure
from dpcert.arith.context import BallContext
from dpcert.arith.exact import parse_rational
from dpcert.composition import kov
from dpcert.errors import InvalidParameter
from dpcert.shuffle import fmt20


def test_closed_form_matches_the_readme_of_the_authors_code():
    # apple/ml-shuffling-amplification README: n = 10^5, eps0 = 4, delta = 1e-6 -> 0.5378040242374512
    assert fmt20.closed_form_float(100000, 4, 1e-6) == pytest.approx(0.5378040242374512, rel=1e-14)
    with BallContext(128) as ctx:
        val = fmt20.closed_form_ball(ctx, 100000, parse_rational("4"), parse_rational("1e-6"))
    assert abs(float(val.mid()) - 0.5378040242374512) < 1e-16 and float(val.rad()) < 1e-30


def test_closed_form_against_mpmath_at_a_decimal_point():
    # an independent 50-digit evaluation of the same closed form with eps0 = 1/10 exactly
    mpmath.mp.dps = 50
    e0, d, n = mpmath.mpf(1) / 10, mpmath.mpf(10) ** -6, 10**4
    a = 8 * mpmath.sqrt(mpmath.exp(e0) * mpmath.log(4 / d) / n)
    c = 8 * mpmath.exp(e0) / n
    e = mpmath.log(1 + a + c)
    ref = mpmath.log(1 + (1 - mpmath.exp(-e0)) / (1 + mpmath.exp(-e0 - e)) * (a + c))
    with BallContext(128) as ctx:
        val = fmt20.closed_form_ball(ctx, n, parse_rational("0.1"), parse_rational("1e-6"))
    assert abs(float(val.mid()) - float(ref)) < 1e-16
    assert float(val.rad()) < 1e-30


def test_closed_form_outside_its_regime_is_eps0_exactly():
    # 16 e^3 log(4e6) > 1000: the code returns eps0
    with BallContext(64) as ctx:
        assert fmt20.closed_form_ball(ctx, 1000, parse_rational("3"), parse_rational("1e-6")) == 3
    assert fmt20.closed_form_float(1000, 3.0, 1e-6) == 3.0
    assert not fmt20.closed_form_applies(1000, Fraction(3), Fraction(1, 10**6))
    assert fmt20.closed_form_applies(10**6, Fraction(3), Fraction(1, 10**6))


def test_clone_eps_inside_the_readme_bracket():
    # README: "(eps, 1e-06)-DP ... for eps between 0.1675385583317841 and 0.172790550755978" (their numerical
    # lower and upper bounds on the same clone pair); the exact hockey-stick lies between them
    eps = fmt20.clone_eps_float(100000, 4, 1e-6)
    assert 0.1675385583317841 <= eps <= 0.172790550755978


def _brute_clone_delta(n: int, eps0: float, eps: float) -> float:
    """Hockey-stick of the clone pair by enumerating every output (c, a), both orders, in mpmath."""
    mpmath.mp.dps = 40
    e0, x = mpmath.mpf(eps0), mpmath.exp(mpmath.mpf(eps))
    alpha, q = mpmath.exp(e0) / (mpmath.exp(e0) + 1), mpmath.exp(-e0)
    out = []
    for sign in (0, 1):
        total = mpmath.mpf(0)
        for c in range(n):
            w = mpmath.binomial(n - 1, c) * q**c * (1 - q) ** (n - 1 - c)

            def b(a: int, c: int = c) -> mpmath.mpf:
                return mpmath.binomial(c, a) / mpmath.mpf(2) ** c if 0 <= a <= c else mpmath.mpf(0)

            for a in range(c + 2):
                p = alpha * b(a) + (1 - alpha) * b(a - 1)
                qq = (1 - alpha) * b(a) + alpha * b(a - 1)
                if sign:
                    p, qq = qq, p
                total += w * max(p - x * qq, 0)
        out.append(total)
    assert abs(out[0] - out[1]) < mpmath.mpf(10) ** -30  # both orders agree (A -> C+1-A swaps P and Q)
    return float(out[0])


@pytest.mark.parametrize(("n", "eps0", "eps"), [(1, 1.0, 0.2), (5, 1.0, 0.3), (12, 0.5, 0.05), (30, 2.0, 0.9)])
def test_clone_delta_equals_brute_force(n, eps0, eps):
    assert fmt20.clone_delta_float(n, eps0, eps) == pytest.approx(_brute_clone_delta(n, eps0, eps), rel=1e-10)


def test_clone_is_below_the_closed_form():
    # the closed form bounds the clone pair's epsilon (FMT20); at the independent reproduction's Fig. 3 points
    for n, e0 in [(10**4, 0.1), (10**4, 1.0), (10**5, 3.0)]:
        assert fmt20.clone_eps_float(n, e0, 1e-6) < fmt20.closed_form_float(n, e0, 1e-6)
    # independent reproduction of Fig. 3 (exact clone hockey-stick, delta = 1e-6)
    assert fmt20.clone_eps_float(10**4, 0.1, 1e-6) == pytest.approx(0.002871, rel=2e-4)
    assert fmt20.clone_eps_float(10**4, 3.0, 1e-6) == pytest.approx(0.3207, rel=2e-4)


def test_clone_bad_input():
    with pytest.raises(InvalidParameter):
        fmt20.clone_delta_float(0, 1.0, 0.1)
    with pytest.raises(InvalidParameter):
        fmt20.clone_delta_float(10, 0.0, 0.1)
    with pytest.raises(InvalidParameter):
        fmt20.clone_eps_float(10, 1.0, 1.0)
    with pytest.raises(InvalidParameter):
        fmt20.kov_split(10, Fraction(1), 2, Fraction(1, 10**6), "nope")


def test_kov_total_is_kov_eps_at_the_remaining_delta():
    # T rounds of (eps, ds): the remaining delta (d - T ds)/(1 - T ds) goes to the certified KOV15 inverse
    T, eps, ds, d = 50, 0.05, 1e-9, 1e-6
    rest = (d - T * ds) / (1 - T * ds)
    assert 1 - (1 - ds) ** T * (1 - rest) <= d * (1 + 1e-12)
    assert fmt20.kov_total_eps_float(T, eps, ds, d) == pytest.approx(kov.kov_eps_float(T, eps, rest), rel=1e-12)
    assert math.isinf(fmt20.kov_total_eps_float(10, eps, 2e-7, d))


def test_closed_kov_ball_encloses_the_float_route():
    with BallContext(128) as ctx:
        val = fmt20.closed_kov_eps_ball(ctx, 10**5, parse_rational("1"), 100, parse_rational("1e-6"))
    enc = Enclosure.from_ball(val)
    flt = fmt20.closed_kov_eps_float(10**5, "1", 100, "1e-6")
    assert enc.lo <= Fraction(flt) * (1 + Fraction(1, 10**9)) and Fraction(flt) * (1 - Fraction(1, 10**9)) <= enc.hi
    # composition never beats one round, and T rounds cost at most T times one round (basic composition)
    one = fmt20.closed_form_float(10**5, 1.0, 1e-8)
    assert one < flt < 100 * one


def test_a_split_leaving_no_delta_is_never_used():
    # T * delta_step >= delta leaves KOV15 nothing: infinite, not a remainder computed through 1 - T*delta_step <= 0
    assert math.isinf(fmt20.kov_total_eps_float(4, 0.1, 0.25002, 0.2778))
    assert math.isinf(fmt20.kov_total_eps_float(4, 0.1, 0.25, 0.25 * 4))
    # and the split search then picks a split that does leave some
    val, ds = fmt20.kov_split(1, Fraction(0), 4, Fraction(1389, 5000), "closed")
    assert 4 * ds < Fraction(1389, 5000) and val == 0.0


@pytest.mark.parametrize(("n", "eps0", "eps"), [(5, "1", "3/10"), (12, "1/2", "1/20"), (30, "2", "9/10")])
def test_certified_clone_delta_equals_brute_force(n, eps0, eps):
    val = fmt20.clone_delta_ball(n, Fraction(eps0), Fraction(eps))
    ref = _brute_clone_delta(n, float(Fraction(eps0)), float(Fraction(eps)))
    assert abs(float(val.mid()) - ref) <= 1e-14 * ref
    assert float(val.rad()) < 1e-30


def test_certified_clone_delta_at_the_float_epsilon():
    # the float inverse at n = 10^4, eps0 = 0.1 lands on delta = 1e-6: the certified delta there is 1e-6 to 1e-9
    e = fmt20.clone_eps_float(10**4, 0.1, 1e-6)
    val = fmt20.clone_delta_ball(10**4, Fraction(1, 10), Fraction(e))
    assert float(val.mid()) == pytest.approx(1e-6, rel=1e-9)
    with pytest.raises(InvalidParameter):
        fmt20.clone_delta_ball(10, Fraction(1), Fraction(1))
