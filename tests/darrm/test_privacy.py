"""The privacy certifier: float kernel inside the exact margin ± its proved bound; agreement with brute force."""

from fractions import Fraction
from itertools import combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.arith.ball import sign_at_exp
from dpcert.arith.exact import X
from dpcert.core.claim import Verdict
from dpcert.darrm.corners import corners, n_multisets
from dpcert.darrm.gamma import Gamma, gamma_dsub, gamma_one, gamma_sub
from dpcert.darrm.kernel import block_margins
from dpcert.darrm.privacy import _float_setting, certify, problem, row_margin
from dpcert.errors import InvalidParameter

EPS = [Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3, 100)]
DELTAS = [Fraction(0), Fraction(1, 1000), Fraction(1, 7)]
VALUES = [Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(9, 10), Fraction(99, 100)]


@st.composite
def small_problems(draw, kmax=5):
    K = draw(st.sampled_from([k for k in (1, 3, 5, 7, 9) if k <= kmax]))
    half = [draw(st.sampled_from(VALUES)) for _ in range((K + 1) // 2)]
    table = tuple(half + half[::-1])
    m = draw(st.integers(1, K))
    eps = draw(st.sampled_from(EPS))
    Delta = draw(st.sampled_from(DELTAS))
    delta = Delta + draw(st.sampled_from([Fraction(0), Fraction(1, 100)]))
    return problem(Gamma("random", table), K, Fraction(m), eps, Delta, delta)


def _brute_margin(pr, counts):
    """The exact margin by multiplying out Π (q + p t) over the K chosen corners in RationalFunction arithmetic."""
    cs = corners(pr.Delta)
    H = (pr.K - 1) // 2
    res = []
    for side in (0, 1):
        alpha = [X**0]
        for j, n in enumerate(counts):
            c0, c1 = cs[j][side]
            p = (c0 + c1 * X) / (X + 1)
            for _ in range(n):
                new = [X * 0 for _ in range(len(alpha) + 1)]
                for i, a in enumerate(alpha):
                    new[i] = new[i] + a * (1 - p)
                    new[i + 1] = new[i + 1] + a * p
                alpha = new
        res.append(sum(((-1 if l <= H else 1) * g * alpha[l] for l, g in enumerate(pr.gamma.table)), X * 0))
    xm = X ** int(pr.m)
    return res[0] - xm * res[1] - (xm - 1 + 2 * pr.delta)


@settings(max_examples=25)
@given(small_problems())
def test_float_kernel_inside_exact_margin_plus_minus_proved_bound(pr):
    fs = _float_setting(pr)
    checked = 0
    for a in range(pr.K + 1):
        vA, vB, M = block_margins(fs, a)
        for i in range(0, len(vA), 3):
            for j in range(0, len(vB), 5):
                counts = tuple(int(v) for v in vA[i]) + tuple(int(v) for v in vB[j])
                ball = row_margin(pr, counts).ball(200)
                assert abs(ball - M[i, j]) <= fs.bound + 2 * float(ball.rad())
                checked += 1
    assert checked > 0


@settings(max_examples=20)
@given(small_problems(kmax=9))
def test_certifier_agrees_with_brute_force_exact_enumeration(pr):
    if pr.Delta > 0 and pr.K > 3:
        pr = problem(pr.gamma if pr.K <= 3 else gamma_one(3), 3, Fraction(min(pr.m, 3)), pr.eps, pr.Delta, pr.delta)
    signs = []
    for combo in combinations_with_replacement(range(pr.n_corners), pr.K):
        counts = tuple(combo.count(j) for j in range(pr.n_corners))
        signs.append(sign_at_exp(_brute_margin(pr, counts), pr.eps))
    assert len(signs) == n_multisets(pr.K, pr.n_corners)
    r = certify(pr)
    want = Verdict.REFUTED if max(signs) > 0 else Verdict.CERTIFIED
    assert r.verdict == want
    assert r.counts.get("violating", 0) == sum(s > 0 for s in signs)
    assert r.counts.get("exact_zero", 0) == sum(s == 0 for s in signs)
    assert sum(v for k, v in r.counts.items() if k != "violating") == len(signs)


def test_tight_constraints_of_the_notes_are_exact_zeros():
    """An independent exact (sympy) computation: f − (x^m − 1) ≡ 0 for these count vectors over the Δ = 0 corners."""
    for g, m, counts in [
        (gamma_dsub(11, 3), 3, (9, 0, 2, 0)),
        (gamma_dsub(11, 4), 4, (8, 0, 2, 1)),
        (gamma_dsub(11, 5), 5, (7, 1, 2, 1)),
        (gamma_one(11), 6, (6, 1, 2, 2)),
        (gamma_sub(11, 1), 1, (0, 0, 11, 0)),
    ]:
        pr = problem(g, 11, Fraction(m), Fraction(1, 10), Fraction(0), Fraction(0))
        assert row_margin(pr, counts).is_zero()
    pr = problem(gamma_sub(11, 2), 11, Fraction(2), Fraction(1, 10), Fraction(0), Fraction(0))
    rf = row_margin(pr, (10, 0, 1, 0)).rational_function()
    assert rf == -2 * X * (X - 1) / (11 * (X + 1))


def test_figure2_sub_slack_matches_notes_and_workers_agree():
    """An independent exact (sympy) computation: γ_Sub slack at K = 11, ε = 0.1, Δ = 1e-5, δ = 1 − (1−Δ)^m: −4.909e-5 (m
    = 3)."""
    D = Fraction(1, 100000)
    pr = problem(gamma_sub(11, 3), 11, Fraction(3), Fraction(1, 10), D, 1 - (1 - D) ** 3)
    r1 = certify(pr, workers=1)
    r2 = certify(pr, workers=2)
    assert r1.verdict == Verdict.CERTIFIED and r1.counts == r2.counts and r1.worst == r2.worst
    assert r1.counts["float"] == 31824
    assert abs(float(r1.margin.mid()) + 4.909e-5) < 1e-8


def test_gamma_one_tightness_k11():
    """γ ≡ 1 is mε-DP iff m >= (K+1)/2 = 6 (m >= (K+1)/2: docs/derivations/darrm.md#identical-mechanisms)."""
    e = Fraction(1, 10)
    r5 = certify(problem(gamma_one(11), 11, Fraction(5), e, Fraction(0), Fraction(0)))
    r6 = certify(problem(gamma_one(11), 11, Fraction(6), e, Fraction(0), Fraction(0)))
    assert r5.verdict == Verdict.REFUTED and r6.verdict == Verdict.CERTIFIED
    assert r5.margin.lo > 0 and row_margin(r5.problem, r5.worst).sign() == 1
    assert r6.margin == r6.worst_margin and r6.max_is_exact_zero


def test_non_integer_m_decides_by_refinement():
    pr = problem(gamma_sub(7, 3), 7, Fraction(7, 2), Fraction(1, 10), Fraction(0), Fraction(0))
    r = certify(pr)
    assert r.verdict == Verdict.CERTIFIED
    # γ(0) = 1: the all-(0,0) multiset is tight with exact equality for every m
    assert r.max_is_exact_zero


@pytest.mark.parametrize(
    "args, name",
    [
        ((10, 1, "0.1", 0, 0), "K"),
        ((11, 0, "0.1", 0, 0), "m"),
        ((11, 12, "0.1", 0, 0), "m"),
        ((11, 1, "-0.1", 0, 0), "eps"),
        ((11, 1, "0.1", "0.1", "0.01"), "Delta"),
        ((11, 1, "0.1", 0, 1), "delta"),
    ],
)
def test_bad_inputs(args, name):
    g = gamma_one(11)
    with pytest.raises(InvalidParameter, match=name):
        problem(g, *[Fraction(a) if isinstance(a, str) else a for a in args])


def test_kernel_block_covers_every_multiset_once():
    pr = problem(gamma_sub(5, 3), 5, Fraction(3), Fraction(1, 10), Fraction(1, 1000), Fraction(1, 100))
    fs = _float_setting(pr)
    seen = set()
    for a in range(6):
        vA, vB, M = block_margins(fs, a)
        assert M.shape == (len(vA), len(vB)) and np.all(np.isfinite(M))
        seen |= {tuple(x) + tuple(y) for x in vA.tolist() for y in vB.tolist()}
    assert len(seen) == n_multisets(5, 8)


@st.composite
def margin_inputs(draw):
    K = draw(st.sampled_from([1, 3, 5, 7]))
    gamma = draw(st.sampled_from(["sub", "max", "one", "const"]))
    m = draw(st.integers(1, K))
    Delta = draw(st.sampled_from(["0", "0.001"]))
    delta = draw(st.sampled_from([Delta, "0.01"]))
    return {
        "gamma": gamma,
        "K": K,
        "m": str(m),
        "eps": draw(st.sampled_from(["0.1", "0.5", "1"])),
        "Delta": Delta,
        "delta": delta,
    }


@settings(max_examples=25)
@given(margin_inputs())
def test_margin_quantity_float_within_enclosure(inputs):
    """The plain per-multiset float loop (independent) lies within the certified enclosure up to float noise."""
    from dpcert.darrm import QUANTITIES

    q = QUANTITIES["darrm.privacy.margin"]
    enc = q.enclose(inputs, rel_tol=1e-20)
    f = q.evaluate_float(inputs)
    noise = Fraction(1, 10**12) * (1 + abs(enc.hi))
    assert enc.lo - noise <= Fraction(f) <= enc.hi + noise


def test_corners_are_vertices_and_the_authors_sixth_corner_is_not():
    """Each listed corner is feasible with two independent constraints tight identically in x; the authors' code's
    sixth corner ((1−Δ)/(1+e^{−ε}), (e^ε+Δ)/(1+e^ε)) (PEERS.md) has no two tight constraints: not a vertex."""
    D = Fraction(1, 100000)

    def tight_count(p, q):
        slack = [X * q + D - p, X * p + D - q, X * (1 - q) + D - (1 - p), X * (1 - p) + D - (1 - q), p, 1 - p, q, 1 - q]
        assert all(sign_at_exp(s, Fraction(1, 10)) >= 0 for s in slack)
        return sum(s.is_zero() for s in slack)

    for (a0, a1), (b0, b1) in corners(D):
        assert tight_count((a0 + a1 * X) / (X + 1), (b0 + b1 * X) / (X + 1)) >= 2
    authors = ((1 - D) * X / (X + 1), (X + D) / (X + 1))
    assert tight_count(*authors) < 2
    ours = corners(D)[6]
    assert ((ours[0][0] + ours[0][1] * X) / (X + 1)) == (1 - D) / (X + 1)


def test_float_kernel_bound_at_k101_on_sampled_rows():
    """The proved bound also holds where the error analysis is stretched most (K = 101, large e^{m eps})."""
    pr = problem(gamma_dsub(101, 40), 101, Fraction(40), Fraction(1, 10), Fraction(0), Fraction(0))
    fs = _float_setting(pr)
    worst = 0.0
    for a in (0, 7, 50, 94, 101):
        vA, vB, M = block_margins(fs, a)
        for i in range(0, len(vA), max(1, len(vA) // 3)):
            for j in range(0, len(vB), max(1, len(vB) // 3)):
                counts = tuple(int(v) for v in vA[i]) + tuple(int(v) for v in vB[j])
                b = row_margin(pr, counts).ball(300)
                err = float(abs(b - M[i, j]).upper())
                assert err <= fs.bound
                worst = max(worst, err)
    assert worst < fs.bound
