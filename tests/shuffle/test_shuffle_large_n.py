"""The shared-window exact pair and the moment expansion of U_red (large n), against independent computations:
the term-by-term sums (log-concave sums, a different code path), mpmath closed forms, independent values, brute
force over all histograms, and the default/reduction upper bounds."""

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.arith.ball import ball
from dpcert.arith.context import BallContext
from dpcert.shuffle import QUANTITIES, pair, reduction

PAIR = QUANTITIES["shuffle.rdp.pair"]
RED = QUANTITIES["shuffle.rdp.reduction"]
UPPER = QUANTITIES["shuffle.rdp.upper"]


@settings(max_examples=20)
@given(
    st.integers(1, 3000),
    st.integers(1, 4000).map(lambda k: Fraction(k, 1000)),
    st.integers(11, 600).map(lambda k: Fraction(k, 10)),
    st.sampled_from(["forward", "reverse"]),
)
def test_window_pair_matches_term_by_term_sum(n, eps0, lam, order):
    # the window path (shared masses, tilted geometric tails) against log_concave_sum's head/tail path
    with BallContext(96) as ctx:
        new = pair.pair_ball(ctx, n, eps0, lam, order)
        old = pair.pair_excess_ball(n, eps0, lam, order, 96).log1p() / ball(lam - 1)
    assert new.overlaps(old)
    assert new.rad() <= abs(new.mid()) * 2.0**-60


def test_pair_at_a_million_matches_notes():
    # independent mpmath: (10^6, 0.5, 2): forward 2.55251898e-7, reverse 2.55252028e-7
    fwd = PAIR.enclose(n=10**6, eps0="0.5", lam=2, order="forward")
    rev = PAIR.enclose(n=10**6, eps0="0.5", lam=2, order="reverse")
    assert abs(float(fwd.lo) - 2.55251898e-7) < 5e-16 and abs(float(rev.lo) - 2.55252028e-7) < 5e-16
    # Theorem 3 (central moments, a different formula) equals the forward order
    thm3 = QUANTITIES["shuffle.rdp.thm3"].enclose(n=10**6, eps0="0.5", lam=2)
    assert thm3.lo <= fwd.hi and fwd.lo <= thm3.hi


@settings(max_examples=15)
@given(
    st.integers(1, 400),
    st.integers(1, 3000).map(lambda k: Fraction(k, 1000)),
    st.integers(2, 40),
)
def test_moment_expansion_matches_direct_double_sum(n, eps0, lam):
    direct = reduction._direct_excess(n, eps0, Fraction(lam), 80)
    moments = reduction._moment_excess(n, eps0, lam, 80)
    # where the expansion keeps its bits (the quantity falls back to the direct sum otherwise) the two agree
    if moments.rel_accuracy_bits() >= 40:
        assert moments.overlaps(direct)


@pytest.mark.parametrize("eps0", ["0.1", "0.5", "1", "3"])
def test_reduction_lambda2_closed_form_at_a_million(eps0):
    """U_red(n, ε0, 2) = log(1 + (e^{ε0}−1)²(1 − (1−e^{−ε0})^n)/n) (docs/derivations/shuffle.md#u_red), n = 10^6, via
    the moments."""
    n = 10**6
    with mpmath.workdps(40):
        e = mpmath.mpf(Fraction(eps0).numerator) / Fraction(eps0).denominator
        ref = mpmath.log1p(mpmath.expm1(e) ** 2 * (1 - (1 - mpmath.exp(-e)) ** n) / n)
        r = Fraction(mpmath.nstr(ref, 35))
    enc = RED.enclose(n=n, eps0=eps0, lam=2, rel_tol=1e-25)
    assert abs(enc.lo - r) <= r * Fraction(1, 10**24)


#: independent mpmath values (U_red evaluated without blocking)
NOTES_LARGE = [
    (10**6, "0.5", 32, 6.73337e-6),
    (10**6, "0.5", 256, 5.38636e-5),
    (10**6, "0.1", 100, 5.53046e-7),
    (10**6, "3", 100, 1.7793e-2),
    (10**6, "5", 100, 5.55937e-1),
    (10**4, "1", 100, 1.448449e-2),
]


@pytest.mark.parametrize("n,eps0,lam,ref", NOTES_LARGE)
def test_reduction_large_n_notes_values(n, eps0, lam, ref):
    enc = RED.enclose(n=n, eps0=eps0, lam=lam)
    assert float(enc.lo) == pytest.approx(ref, rel=1e-5)
    # and inside the sandwich: exact pair <= U_red <= min(Thm 1, Thm 2, RR_1)
    assert PAIR.enclose(n=n, eps0=eps0, lam=lam, order="max").hi <= enc.lo
    assert enc.hi <= UPPER.enclose(n=n, eps0=eps0, lam=lam, bound="default").lo


def test_reduction_refuses_real_order_above_ten_thousand():
    from dpcert.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="lam"):
        RED.enclose(n=10**5, eps0=1, lam="2.5")


def test_upper_bound_reduction_choice():
    # n <= 10^4: the minimum with U_red, which is smaller than min(Thm 1, Thm 2, RR_1) here
    red = RED.enclose(n=200, eps0=1, lam=10)
    dflt = UPPER.enclose(n=200, eps0=1, lam=10, bound="default")
    both = UPPER.enclose(n=200, eps0=1, lam=10, bound="reduction")
    assert red.hi < dflt.lo and both.lo <= red.hi and red.lo <= both.hi
    # n > 10^4, real lam: eq. (8)'s chord of U_red between 2 and 3, at least U_red's own lam = 2 value... and a
    # valid bound: above the exact pair, below the default
    chord = UPPER.enclose(n=10**5, eps0=1, lam="2.5", bound="reduction")
    assert PAIR.enclose(n=10**5, eps0=1, lam="2.5", order="max").hi <= chord.lo
    assert chord.hi < UPPER.enclose(n=10**5, eps0=1, lam="2.5", bound="default").lo
    r2, r3 = (float(RED.enclose(n=10**5, eps0=1, lam=k).lo) for k in (2, 3))
    assert float(chord.lo) == pytest.approx((0.5 * 1 * r2 + 0.5 * 2 * r3) / 1.5, rel=1e-12)


def _shuffled_rr(n, j, last, p):
    """Law of #ones: j clients hold 1, n-1-j hold 0, the last holds ``last`` (brute force over all output words)."""
    law = [0.0] * (n + 1)
    bits = [1] * j + [0] * (n - 1 - j) + [last]
    for word in range(2**n):
        pr, ones = 1.0, 0
        for i, b in enumerate(bits):
            y = (word >> i) & 1
            ones += y
            pr *= (1 - p) if y == b else p
        law[ones] += pr
    return law


@pytest.mark.parametrize("n,j,eps0,lam", [(4, 0, "1", 3), (5, 2, "0.5", 5), (6, 5, "3", 2), (7, 3, "2", "2.5")])
def test_rr_neighbour_against_brute_force(n, j, eps0, lam):
    p = 1 / (math.exp(float(Fraction(eps0))) + 1)
    d, d1 = _shuffled_rr(n, j, 0, p), _shuffled_rr(n, j, 1, p)
    lf = float(Fraction(str(lam)))
    for order, (a, b) in (("forward", (d1, d)), ("reverse", (d, d1))):
        ref = math.log(sum(x**lf * y ** (1 - lf) for x, y in zip(a, b, strict=True))) / (lf - 1)
        got = pair.rr_neighbour_ball(n, j, Fraction(eps0), Fraction(str(lam)), order, 64)
        assert float(got.mid()) == pytest.approx(ref, rel=1e-12)


def test_ldp_sample_machinery_reproduces_rr_exactly():
    # C6's exact machinery: 2RR itself, enumerated over histograms, gives exactly the binomial formula's value
    # for the reverse order of D = 0^n, D' = 0^(n-1)1 (and its float twin agrees with the pair quantity)
    from flint import fmpq

    from dpcert.shuffle.claims import _hellinger, _shuffled_law

    r = fmpq(3)
    p = 1 / (r + 1)
    mech = ((1 - p, p), (p, 1 - p))  # input 0 reports 0 w.p. R/(R+1)
    for n, lam in ((2, 3), (4, 5)):
        h = _hellinger(_shuffled_law(mech, (0,) * n), _shuffled_law(mech, (0,) * (n - 1) + (1,)), lam)
        rr = sum(
            (
                fmpq(math.comb(n, k)) * p**k * (1 - p) ** (n - k) / ((k * r + (n - k) / r) / n) ** (lam - 1)
                for k in range(n + 1)
            ),
            fmpq(0),
        )
        assert h == rr
        eps0 = math.log(3)
        assert math.log(float(h)) / (lam - 1) == pytest.approx(pair.pair_float(n, eps0, lam, "reverse"), rel=1e-12)
