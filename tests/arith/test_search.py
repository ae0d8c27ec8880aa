"""Certified search: roots of monotone conditions and maxima over finite sets.

Every bracket is checked by exact rational arithmetic (the test functions are rational), every maximum against the
exact maximum of rational values or a closed form.
"""

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb
from hypothesis import example, given
from hypothesis import strategies as st

from dpcert.arith.ball import ball, le, lt
from dpcert.arith.search import Bracket, Probe, certified_argmax, certified_root
from dpcert.errors import PrecisionExhausted

# ------------------------------------------------------------------------------- certified_root


def rational_fn(poly, mob):
    """f(x) = Σ c_j x^j + (a x + b)/(c x + d): increasing on x >= 0 for c_j >= 0, a, b, c, d > 0, ad > bc."""
    a, b, c, d = mob

    def f(x):
        num = ball if isinstance(x, arb) else Fraction  # flint does not mix arb with Fraction
        return sum((num(cj) * x**j for j, cj in enumerate(poly)), num(0)) + (num(a) * x + num(b)) / (
            num(c) * x + num(d)
        )

    return f


def ball_decide(f, target, calls=None):
    """decide f(x) >= target in balls; an exact tie is undecidable in balls, so it is settled exactly."""

    def decide(x, prec):
        if calls is not None:
            calls.append(prec)
        out = le(ball(target), f(ball(x)))
        if out is None and prec >= 256:
            return f(x) >= target  # exact rational fallback: the condition is rational
        return out

    return decide


coeffs = st.integers(0, 20).map(lambda n: Fraction(n, 4))
positive = st.integers(1, 50).map(lambda n: Fraction(n, 7))


@given(
    st.lists(coeffs, min_size=1, max_size=4),
    st.tuples(positive, positive, positive, positive),
    st.integers(1, 10**6),
)
@example([Fraction(0), Fraction(1)], (Fraction(1), Fraction(1), Fraction(1), Fraction(2)), 500000)
def test_bracket_of_random_monotone_rational_function(poly, mob, where):
    a, b, c, d = mob
    if a * d <= b * c or all(cj == 0 for cj in poly[1:]) and a * d == b * c:
        mob = (b * c / d + 1, b, c, d)  # make ad > bc: strictly increasing
    f = rational_fn(poly, mob)
    lo, hi = Fraction(0), Fraction(10)
    # a target strictly inside the range, hit at an unknown point of (0, 10)
    target = f(lo) + (f(hi) - f(lo)) * Fraction(where, 10**6 + 1)
    tol = Fraction(1, 10**9)
    br = certified_root(ball_decide(f, target), lo, hi, tol=tol, relative=False)
    assert br.hi - br.lo <= tol and br.safe == br.hi
    # checked exactly: the condition holds at hi and fails at lo, so the root is in [lo, hi]
    assert f(br.hi) >= target
    assert f(br.lo) < target


@given(st.integers(-(10**6), 10**6), st.integers(1, 10**6))
@example(1, 2)  # a root exactly at a dyadic probe point
@example(0, 1)
def test_bracket_contains_a_known_rational_root(num, den):
    r = Fraction(num, den)

    def f(x):  # increasing, only root r
        return (x - (ball(r) if isinstance(x, arb) else r)) * (x * x + 1)

    br = certified_root(ball_decide(f, 0), -(2**21), 2**21, tol=Fraction(1, 10**12))
    assert br.lo <= r <= br.hi
    assert br.hi - br.lo <= Fraction(1, 10**12) * max(1, abs(br.lo), abs(br.hi))


def test_decreasing_condition_reports_the_lower_end_as_safe():
    # x^2 <= 2 holds below sqrt(2): the safe end is lo
    br = certified_root(lambda x, prec: x * x <= 2, 0, 2, holds_above=False, tol=Fraction(1, 2**50), relative=False)
    assert br.safe == br.lo and br.lo * br.lo <= 2 < br.hi * br.hi
    assert br.hi - br.lo <= Fraction(1, 2**50)


def test_newton_hints_and_a_float_guess_need_fewer_probes_than_bisection():
    def plain(x, prec):
        return x**3 >= 2

    def hinted(x, prec):
        return Probe(x**3 >= 2, residual=x**3 - 2, slope=3 * x * x)

    tol = Fraction(1, 10**15)
    slow = certified_root(plain, 0, 2, tol=tol)
    fast = certified_root(hinted, 0, 2, tol=tol, guess=2 ** (1 / 3))
    for br in (slow, fast):
        assert br.lo**3 < 2 <= br.hi**3 and br.hi - br.lo <= tol * 2
    assert fast.probes < slow.probes / 2


def test_a_bad_guess_is_only_a_starting_point():
    def decide(x, prec):
        return x >= Fraction(1, 3)

    def broken():
        raise ArithmeticError("the float inverse failed")

    for guess in (broken, 5.0, -1.0, lambda: None, 0.3333):
        br = certified_root(decide, 0, 1, tol=Fraction(1, 10**10), guess=guess)
        assert br.lo < Fraction(1, 3) <= br.hi


def test_ends_are_checked():
    # the condition already holds at the unsafe end: the answer is that end, exactly
    br = certified_root(lambda x, prec: x >= -1, 0, 1)
    assert (br.lo, br.hi, br.safe, br.unsafe_certified) == (0, 0, 0, False)
    with pytest.raises(ValueError, match="false at both ends"):
        certified_root(lambda x, prec: x >= 2, 0, 1)
    with pytest.raises(ValueError):
        certified_root(lambda x, prec: True, 1, 1)
    with pytest.raises(ValueError):
        certified_root(lambda x, prec: True, 0, 1, tol=0)


def test_max_prec_reaches_every_probe():
    calls = []

    def never(x, prec):
        calls.append(prec)
        return None

    with pytest.raises(PrecisionExhausted):
        certified_root(never, 0, 1, max_prec=200)
    assert max(calls) == 200 and calls[0] == 64
    # an undecidable tie (e^x at a point where it equals nothing rational: never; here a ball-only tie)
    prec_seen = []
    f = lambda x: ball(x) * ball(x)  # noqa: E731
    br = certified_root(ball_decide(f, 2, prec_seen), 0, 2, tol=Fraction(1, 2**40), max_prec=128)
    assert max(prec_seen) <= 128 and br.lo**2 < 2 <= br.hi**2


def test_bracket_enclosure():
    br = Bracket(Fraction(1), Fraction(2), Fraction(2), True, 64, 3)
    assert br.enclosure.lo == 1 and br.enclosure.hi == 2


# ------------------------------------------------------------------------------- certified_argmax


def assert_contains(enc, v):
    """The enclosure holds the value v() computed at 40 digits (up to mpmath's rounding) and is narrow."""
    with mp.workdps(40):
        v = v()
        lo = mp.mpf(enc.lo.numerator) / enc.lo.denominator
        hi = mp.mpf(enc.hi.numerator) / enc.hi.denominator
        assert lo - mp.mpf("1e-35") <= v <= hi + mp.mpf("1e-35") and hi - lo < mp.mpf("1e-15")


@given(st.lists(st.integers(-5, 5), min_size=1, max_size=12))
def test_argmax_of_exact_values_ties_exactly(values):
    best = certified_argmax(list(range(len(values))), lambda j, prec: Fraction(values[j]))
    m = max(values)
    assert best.indices == tuple(j for j, v in enumerate(values) if v == m)
    assert best.enclosure.is_exact and best.enclosure.lo == m
    assert best.exact_tie == (values.count(m) > 1)
    assert best.precision == 0


def test_argmax_separates_irrational_values():
    # log 2 + log 3 = 1.7918 < log 7 − 1/10 = 1.8459, and log 5 = 1.6094
    cands = ["log6", "log5", "log7-0.1"]

    def value(c, prec):
        if c == "log7-0.1":
            return arb(7).log() - ball(Fraction(1, 10))
        return arb(2).log() + arb(3).log() if c == "log6" else arb(5).log()

    best = certified_argmax(cands, value)
    assert best.maximisers == ("log7-0.1",) and not best.exact_tie
    with mp.workdps(40):
        v = mp.log(7) - mp.mpf(1) / 10
        lo, hi = (
            mp.mpf(best.enclosure.lo.numerator) / best.enclosure.lo.denominator,
            mp.mpf(best.enclosure.hi.numerator) / best.enclosure.hi.denominator,
        )
        assert lo - mp.mpf("1e-35") <= v <= hi + mp.mpf("1e-35") and hi - lo < mp.mpf("1e-15")


def test_argmax_ties_proved_by_the_equal_callback():
    # log 2 + log 3 and log 6 are the same number computed two ways: balls can never decide it, the callback can
    cands = ["log2+log3", "log6", "log5"]

    def value(c, prec):
        return {"log2+log3": arb(2).log() + arb(3).log(), "log6": arb(6).log(), "log5": arb(5).log()}[c]

    with pytest.raises(PrecisionExhausted):
        certified_argmax(cands, value, max_prec=256)
    best = certified_argmax(cands, value, equal=lambda a, b: {a, b} == {"log2+log3", "log6"})
    assert best.maximisers == ("log2+log3", "log6") and best.exact_tie
    assert_contains(best.enclosure, lambda: mp.log(6))


def test_argmax_mixes_exact_and_ball_values():
    # sqrt(2) < 3/2 exactly; 3/2 appears twice (exact tie); the ball candidate is eliminated
    cands = [("ball", 2), ("exact", Fraction(3, 2)), ("exact", Fraction(3, 2)), ("exact", Fraction(1))]

    def value(c, prec):
        return ball(c[1]).sqrt() if c[0] == "ball" else c[1]

    best = certified_argmax(cands, value)
    assert best.indices == (1, 2) and best.enclosure.is_exact and best.enclosure.lo == Fraction(3, 2)
    assert best.precision == 64


def test_argmax_of_nothing_is_an_error():
    with pytest.raises(ValueError):
        certified_argmax([], lambda c, prec: Fraction(0))


def test_argmax_sqrt_squared_against_exact_two_needs_a_proof():
    # sqrt(2)^2 = 2 exactly, but its ball can never exclude 2: undecided without an equality proof
    cands = ["sqrt2^2", "two"]

    def value(c, prec):
        return ball(2).sqrt() ** 2 if c == "sqrt2^2" else Fraction(2)

    with pytest.raises(PrecisionExhausted):
        certified_argmax(cands, value, max_prec=128)
    best = certified_argmax(cands, value, equal=lambda a, b: True)
    assert best.exact_tie and best.enclosure.is_exact and best.enclosure.lo == 2
    assert lt(ball(1), ball(2)) is True  # the helpers used above behave as documented


def test_docstring_examples():
    import doctest

    from dpcert.arith import search

    failures, tried = doctest.testmod(search)
    assert tried >= 4 and failures == 0
