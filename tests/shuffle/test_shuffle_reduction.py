"""U_red (derived here): the λ = 2 closed form, independent values, brute force over random ε0-LDP mechanisms, and
the sandwich pair <= U_red <= min(Thm 1, Thm 2, RR_1)."""

import itertools
import math
import random
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.shuffle import QUANTITIES, conversion, pair, reduction

RED = QUANTITIES["shuffle.rdp.reduction"]
PAIR = QUANTITIES["shuffle.rdp.pair"]
UPPER = QUANTITIES["shuffle.rdp.upper"]


@pytest.mark.parametrize("n,eps0", [(1, "1"), (10, "0.1"), (57, "0.5"), (300, "2")])
def test_lambda2_closed_form(n, eps0):
    """U_red(n, ε0, 2) = log(1 + (e^{ε0}−1)²(1 − (1−e^{−ε0})^n)/n) (E[1/(m+1)] for m ∼ Bin(n−1, q))."""
    with mpmath.workdps(50):
        e = mpmath.mpf(Fraction(eps0).numerator) / Fraction(eps0).denominator
        ref = mpmath.log1p(mpmath.expm1(e) ** 2 * (1 - (1 - mpmath.exp(-e)) ** n) / n)
        ref_s = mpmath.nstr(ref, 40)
    enc = RED.enclose(n=n, eps0=eps0, lam=2, rel_tol=1e-30)
    r = Fraction(ref_s)
    assert abs(enc.lo - r) <= r * Fraction(1, 10**35)


#: independent mpmath values (exact, unblocked U_red)
NOTES = [
    (10, "0.1", "2", "0.001105480932"),
    (100, "1", "1.5", "0.02203371249"),
    (30, "3", "3.5", "2.542700824"),
    (200, "2", "7.3", "0.4636991745"),
    (1000, "3", "100", "2.50921885527"),
]


@pytest.mark.parametrize("n,eps0,lam,ref", NOTES)
def test_notes_values(n, eps0, lam, ref):
    enc = RED.enclose(n=n, eps0=eps0, lam=lam)
    digits = len(ref.split(".")[1])
    assert abs(enc.lo - Fraction(ref)) <= Fraction(1, 10**digits)


def test_pins_eps_at_n1000_eps3_lam100():
    # independent mpmath: pair (reverse) <= eps(100) <= U_red, within 2e-7
    lo = PAIR.enclose(n=1000, eps0=3, lam=100, order="max")
    hi = RED.enclose(n=1000, eps0=3, lam=100)
    assert lo.hi <= hi.lo and hi.hi - lo.lo < Fraction(2, 10**7)


def _shuffled(mech, data):
    """Law of the histogram of the clients' outputs (exact enumeration)."""
    b = len(mech[0])
    law = {(0,) * b: 1.0}
    for d in data:
        nxt = {}
        for h, pr in law.items():
            for j in range(b):
                h2 = h[:j] + (h[j] + 1,) + h[j + 1 :]
                nxt[h2] = nxt.get(h2, 0.0) + pr * mech[d][j]
        law = nxt
    return law


def _renyi(p, q, lam):
    return math.log(sum(p[h] ** lam * q[h] ** (1 - lam) for h in p)) / (lam - 1)


def _random_ldp(rng, k, b, eps0):
    """A random ε0-LDP mechanism: rows b_j e^{ε0 u_ij}/Z_i with |u| <= 1/4 (ratios within e^{ε0}), or 2RR-like."""
    base = [rng.random() + 0.05 for _ in range(b)]
    rows = []
    for _ in range(k):
        w = [bj * math.exp(eps0 * rng.uniform(-0.25, 0.25)) for bj in base]
        z = sum(w)
        rows.append([x / z for x in w])
    return rows


def test_brute_force_random_ldp_mechanisms():
    """Every ordered neighbour pair of random ε0-LDP mechanisms (n <= 6, K, B <= 3) stays below U_red."""
    rng = random.Random(14)
    worst = 0.0
    for trial in range(60):
        eps0 = rng.choice([0.5, 1.0, 2.0])
        n = rng.randint(1, 6)
        k, b = rng.randint(2, 3), rng.randint(2, 3)
        lam = rng.choice([1.5, 2.0, 3.0, 5.0, 10.0])
        mech = (
            _random_ldp(rng, k, b, eps0)
            if trial % 3
            else [
                [math.exp(eps0) / (math.exp(eps0) + 1), 1 / (math.exp(eps0) + 1)],
                [1 / (math.exp(eps0) + 1), math.exp(eps0) / (math.exp(eps0) + 1)],
            ]
        )
        kk = len(mech)
        u = reduction.reduction_float(n, eps0, lam)
        for rest in itertools.product(range(kk), repeat=n - 1):
            for a, bb in itertools.permutations(range(kk), 2):
                d = _renyi(_shuffled(mech, (*rest, a)), _shuffled(mech, (*rest, bb)), lam)
                assert d <= u * (1 + 1e-9), (trial, n, eps0, lam, rest, a, bb, d, u)
                worst = max(worst, d / u)
    assert worst > 0.99  # the 2RR trials attain U_red's special case closely (n small: (1-p)^n dominates)


@settings(max_examples=15)
@given(
    st.integers(1, 150),
    st.integers(1, 3000).map(lambda k: Fraction(k, 1000)),
    st.integers(11, 300).map(lambda k: Fraction(k, 10)),
)
def test_sandwich_pair_reduction_upper(n, eps0, lam):
    inputs = {"n": n, "eps0": eps0, "lam": lam}
    red = RED.enclose(inputs)
    assert PAIR.enclose({**inputs, "order": "max"}).lo <= red.hi
    assert red.lo <= UPPER.enclose({**inputs, "bound": "default"}).hi
    # bound=reduction is the minimum of both: U_red itself here
    with_red = UPPER.enclose({**inputs, "bound": "reduction"})
    assert with_red.lo <= red.hi and red.lo <= with_red.hi
    f = reduction.reduction_float(n, float(eps0), float(lam))
    assert float(red.lo) * (1 - 1e-9) <= f <= float(red.hi) * (1 + 1e-9)
    # the same chain in float64: pair <= U_red <= min(Thm 1 via eq. (8), Thm 2, RR_1)
    e, lf = float(eps0), float(lam)
    assert pair.pair_float(n, e, lf) <= f * (1 + 1e-9)
    assert f <= float(conversion.upper_float(n, e, lf)) * (1 + 1e-9)
