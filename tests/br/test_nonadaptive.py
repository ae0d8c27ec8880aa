"""Theorem 3 of Dong–Durfee–Rogers: certified δ_OPT against brute force, printed values, identities and floats."""

import itertools
from fractions import Fraction

import pytest
from flint import arb
from harness import assert_float_in_ball
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpcert.arith.ball import ball, workprec
from dpcert.br import rr
from dpcert.br.nonadaptive import (
    DELTA,
    EPS,
    _step_signs,
    candidate_value,
    candidates,
    nonadaptive_delta,
    nonadaptive_delta_float,
    nonadaptive_eps,
    nonadaptive_eps_float,
    nonadaptive_optimum,
)
from dpcert.composition.kov import kov_delta
from dpcert.errors import InvalidParameter


def _brute(k: int, e: Fraction, g: Fraction, ts: list[Fraction]) -> arb:
    """Σ over all 2^k outcome sequences of max(Q(y) − e^g P(y), 0) for per-round t's, at 200 bits.

    Q(y)/P(y) = e^{L(y)}, L(y) = Σ_i (t_i − ε y_i) exact, so which outcomes count is decided exactly.
    """
    with workprec(200):
        eb = ball(e)
        qs = [rr.q_rr(_Ctx, eb, ball(t)) for t in ts]
        ps = [rr.p_rr(_Ctx, eb, ball(t)) for t in ts]
        total = arb(0)
        for y in itertools.product((0, 1), repeat=k):
            loss = sum(ts) - e * sum(y)
            if loss <= g:
                continue
            qv, pv = arb(1), arb(1)
            for i, yi in enumerate(y):
                qv *= qs[i] if yi == 0 else 1 - qs[i]
                pv *= ps[i] if yi == 0 else 1 - ps[i]
            total += qv - ball(g).exp() * pv
        return total


class _Ctx:
    """The ball vocabulary of dpcert.arith.context, usable inside the 200-bit workprec above."""

    @staticmethod
    def expm1(x):
        return x.expm1()

    @staticmethod
    def exp(x):
        return x.exp()


@pytest.mark.parametrize(
    ("k", "eps", "eps_g"),
    [
        (1, "1", "0"),
        (2, "1", "0"),
        (3, "1", "1/2"),
        (4, "1/2", "-1/3"),
        (5, "2", "3"),
        (7, "1/10", "1/4"),
        (8, "1", "-2"),
    ],
)
def test_certified_value_is_the_brute_force_at_its_maximiser_and_dominates_other_t(k, eps, eps_g):
    e, g = Fraction(eps), Fraction(eps_g)
    opt = nonadaptive_optimum(k, e, g)
    for t in opt.t:
        b = _brute(k, e, g, [t] * k)
        assert opt.enclosure.overlaps(Enclosure_of(b))
    # any other t-vector (homogeneous grid, heterogeneous random ones) gives at most δ_OPT (Lemma 3.1)
    grid = [e * j / 17 for j in range(1, 17)]
    vectors = [[t] * k for t in grid] + [[grid[(3 * i + j) % 16] for i in range(k)] for j in range(5)]
    for ts in vectors:
        assert _brute(k, e, g, ts).upper() <= ball(opt.enclosure.hi) + ball(Fraction(1, 10**40))


def Enclosure_of(b):  # noqa: N802
    from dpcert.arith.ball import Enclosure

    return Enclosure.from_ball(b)


def test_brute_force_k12():
    k, e, g = 12, Fraction(1, 2), Fraction(1)
    opt = nonadaptive_optimum(k, e, g)
    assert opt.enclosure.overlaps(Enclosure_of(_brute(k, e, g, [opt.t[0]] * k)))


@pytest.mark.parametrize(
    ("k", "eps", "eps_g", "printed"),
    [
        (1, "1", "0", "0.24491866240370912928"),
        (10, "1", "0", "0.57798704753962073883"),
        (10, "0.1", "0.5", "3.9978134052590243383e-5"),
        (9, "1", "0.5", "0.442931"),
    ],
)
def test_printed_values(k, eps, eps_g, printed):
    enc = nonadaptive_delta(k, eps, eps_g, rel_tol=1e-25)
    assert enc.contains(Fraction(printed)) or abs(float(enc.lo) / float(Fraction(printed)) - 1) < 10 ** -(
        len(printed.split("e")[0].replace("0.", "").lstrip("0")) - 1
    )


def test_top_band_closed_form():
    # (k−1)ε <= ε_g <= kε: δ = (1 − e^{−(kε−ε_g)/(k+1)})^{k+1}/(1 − e^{−ε})^k (the closed form on the top band, where
    # only the i = 0 term of Theorem 3 [DDR20] survives)
    for k, e, g in [(3, Fraction(1), Fraction(5, 2)), (6, Fraction(1, 3), Fraction(17, 10))]:
        with workprec(200):
            closed = (-(-(k * ball(e) - ball(g)) / (k + 1)).expm1()) ** (k + 1) / (-(-ball(e)).expm1()) ** k
        assert nonadaptive_delta(k, e, g, rel_tol=1e-30).overlaps(Enclosure_of(closed))


def test_boundaries_are_exact():
    assert nonadaptive_delta(5, "0.3", "1.5").is_exact and nonadaptive_delta(5, "0.3", "1.5").lo == 0
    enc = nonadaptive_delta(5, "0.3", "-1.5", rel_tol=1e-30)
    with workprec(200):
        assert enc.overlaps(Enclosure_of(-ball(Fraction(-3, 2)).expm1()))


@pytest.mark.parametrize(("k", "eps", "eps_g"), [(3, "1", "0.7"), (6, "0.4", "1.1"), (20, "0.1", "0.3")])
def test_symmetry(k, eps, eps_g):
    # δ(ε_g) = 1 − e^{ε_g} + e^{ε_g} δ(−ε_g) (docs/derivations/br.md#nonadaptive-facts, fact (d))
    a = nonadaptive_delta(k, eps, eps_g, rel_tol=1e-30)
    b = nonadaptive_delta(k, eps, "-" + eps_g, rel_tol=1e-30)
    with workprec(200):
        g = ball(Fraction(eps_g))
        rhs = -g.expm1() + g.exp() * ball(b.lo).union(ball(b.hi))
    assert a.overlaps(Enclosure_of(rhs))


def test_ties_at_zero_are_exact_and_reported():
    opt = nonadaptive_optimum(10, 1, 0)
    assert opt.exact_tie and opt.maximisers == (4, 5) and opt.t == (Fraction(5, 11), Fraction(6, 11))
    assert nonadaptive_optimum(10, 1, 3).maximisers == (3,)


def test_half_dp_sandwich():
    # DP_opt(k, ε/2) <= BR_opt <= DP_opt(k, ε) , with the foundation's KOV optimum
    k, e, g = 10, Fraction(1), Fraction(3)
    br = nonadaptive_delta(k, e, g)
    assert kov_delta(k, e / 2, g).hi < br.lo and br.hi < kov_delta(k, e, g).lo


def test_monotone_in_k():
    values = [nonadaptive_delta_float(k, 1, "0.5") for k in range(1, 12)]
    printed = [0.0774047, 0.152452, 0.206468, 0.259932, 0.302296, 0.344126, 0.379021, 0.413377, 0.442931, 0.471964]
    assert values == sorted(values)
    assert [round(v, 6) for v in values[:10]] == pytest.approx(printed, abs=1.5e-6)


@pytest.mark.parametrize(
    "inputs",
    [
        {"k": 7, "eps": "0.3", "eps_g": "0.2"},
        {"k": 300, "eps": "0.05", "eps_g": "1"},
        {"k": 2000, "eps": "0.1", "eps_g": "9"},
        {"k": 40, "eps": "2", "eps_g": "-7"},
    ],
)
def test_float_in_ball(inputs):
    assert_float_in_ball(DELTA, inputs)


def test_inverse():
    enc = nonadaptive_eps(100, "0.1", "1e-6")
    assert round(float(enc.lo), 5) == round(float(enc.hi), 5) == 2.24603
    assert nonadaptive_delta(100, "0.1", enc.hi).hi <= Fraction(1, 10**6) < nonadaptive_delta(100, "0.1", enc.lo).lo
    assert abs(nonadaptive_eps_float(100, "0.1", "1e-6") - 2.24603) < 1e-5
    assert_float_in_ball(EPS, {"k": 20, "eps": "1", "delta": "1e-6"}, max_rel_width=1e-6)
    assert nonadaptive_eps(3, "1", "0.9").lo == 0  # δ above δ_OPT(0): ε_g = 0


@pytest.mark.parametrize(
    ("k", "eps", "eps_g"), [(0, "1", "0"), (2.0, "1", "0"), ("x", "1", "0"), (3, "0", "0"), (3, "-1", "0")]
)
def test_bad_input(k, eps, eps_g):
    with pytest.raises(InvalidParameter):
        nonadaptive_delta(k, eps, eps_g)


@pytest.mark.parametrize("delta", ["0", "1", "-0.1"])
def test_bad_delta(delta):
    with pytest.raises(InvalidParameter):
        nonadaptive_eps(10, "1", delta)


@settings(max_examples=20, deadline=None)
@example(k=12, eps=Fraction(1, 2), ratio=Fraction(1, 6))
@example(k=11, eps=Fraction(2), ratio=Fraction(-1, 3))
@example(k=12, eps=Fraction(1), ratio=Fraction(0))
@given(
    k=st.integers(1, 12),
    eps=st.fractions(Fraction(1, 20), Fraction(3), max_denominator=40),
    ratio=st.fractions(Fraction(-1), Fraction(1), max_denominator=30),
)
def test_property_brute_force_over_all_outcome_sequences(k, eps, ratio):
    # certified δ_OPT = the 2^k-outcome sum at its maximiser, and >= the sum at any other homogeneous t
    g = ratio * k * eps
    opt = nonadaptive_optimum(k, eps, g)
    if not opt.t:  # boundary: exact values of Lemma 5.2
        assert abs(g) >= k * eps
        return
    assert opt.enclosure.overlaps(Enclosure_of(_brute(k, eps, g, [opt.t[0]] * k)))
    for j in (1, 5, 9):  # (t = ε/2 may be the maximiser itself: equal values, hence the relative slack)
        assert float(_brute(k, eps, g, [eps * j / 10] * k).upper()) <= float(opt.enclosure.hi) * (1 + 1e-12)


@pytest.mark.parametrize(
    ("k", "eps", "eps_g"),
    [(12, "1", "0"), (40, "0.1", "0.5"), (60, "2", "-30"), (150, "0.1", "3"), (300, "0.05", "-1"), (25, "7", "20")],
)
def test_step_signs_agree_with_the_difference_of_summed_candidates(k, eps, eps_g):
    # the signs of V_{ℓ+1} − V_ℓ from the Lemma 5.7 lobes (tangent/chord bounds) against the candidate sums at
    # 200 bits (an independent computation); every decided sign must match, and all but the top one are decided
    e, g = Fraction(eps), Fraction(eps_g)
    lo, hi = candidates(k, e, g)
    with workprec(120):
        ups = _step_signs(k, e, g, dict.fromkeys(range(lo, hi), 1))
        downs = _step_signs(k, e, g, dict.fromkeys(range(lo, hi), -1))
    with workprec(200):
        vals = [candidate_value(k, e, g, ell, 190) for ell in range(lo, hi + 1)]
    undecided = 0
    for ell in range(lo, hi):
        diff = vals[ell + 1 - lo] - vals[ell - lo]
        sign = ups[ell] or downs[ell]
        assert not (ups[ell] and downs[ell])
        if sign == 0:
            undecided += 1
        elif diff > 0 or diff < 0:
            assert (diff > 0) == (sign > 0), ell
    assert undecided <= 2
    # and the pruned certified optimum is the maximum of all summed candidates
    best = max(vals, key=lambda v: v.mid())
    assert nonadaptive_delta(k, e, g, rel_tol=1e-30).overlaps(Enclosure_of(best))
