"""The i.i.d. mode (Theorem 4.1's setting): certified maximisation over the feasible polygon F."""

from fractions import Fraction
from math import comb

from dpcert.arith.ball import ball, fraction_of, workprec
from dpcert.core.claim import Verdict
from dpcert.darrm.gamma import Gamma, gamma_dsub, gamma_max, gamma_one, gamma_sub
from dpcert.darrm.iid import certify_iid, iid_hypotheses, iid_margin, in_region
from dpcert.darrm.privacy import certify, problem

Z = Fraction(0)


def _phi_exact(table, p):
    """φ(p) = Σ ±γ(l) Bin(K, p)(l) in exact Fractions (independent of the module's Bernstein balls)."""
    K = len(table) - 1
    H = (K - 1) // 2
    return sum((-1 if l <= H else 1) * g * comb(K, l) * p**l * (1 - p) ** (K - l) for l, g in enumerate(table))


def _grid_max(pr, n):
    """The largest margin over the rational grid points of F (φ exact, e^{mε} and membership by balls)."""
    best = None
    with workprec(128):
        X = (ball(pr.m) * ball(pr.eps)).exp()
        c = X - 1 + 2 * ball(pr.delta)
        s = ball(pr.gamma.scale)
        for i in range(n + 1):
            for j in range(n + 1):
                p, pp = Fraction(i, n), Fraction(j, n)
                if not in_region(pr, p, pp):
                    continue
                v = s * (ball(_phi_exact(pr.gamma.table, p)) - X * ball(_phi_exact(pr.gamma.table, pp))) - c
                if best is None or v.mid() > best.mid():
                    best = v
    return best


def test_iid_max_against_a_dense_exact_grid_k5_k7():
    # half of gamma_Sub: not tight at (0, 0), the maximum sits elsewhere
    for K, m, eps in ((5, 2, Fraction(1, 2)), (7, 3, Fraction(3, 10)), (7, 1, Fraction(1))):
        g = gamma_sub(K, m).scaled(Fraction(1, 2))
        pr = problem(g, K, Fraction(m), eps, Z, Z)
        r = certify_iid(pr)
        assert r.edges and r.verdict == Verdict.CERTIFIED
        gm = _grid_max(pr, 120)
        lo, hi = r.margin.lo, r.margin.hi
        # every grid point of F is below the certified upper bound (compared exactly: the grid's maximum may be the
        # maximum itself, as here at K = 7, m = 1), and the grid comes close to it
        assert fraction_of(gm.lower()) <= hi
        assert hi - Fraction(gm.mid().str(30, radius=False)) < Fraction(1, 100)
        assert hi - lo < Fraction(1, 10**5)


def test_iid_max_at_most_the_multiset_max():
    for g, K, m in ((gamma_sub(9, 2).scaled(Fraction(3, 4)), 9, 2), (gamma_one(11), 11, 5), (gamma_sub(7, 3), 7, 3)):
        pr = problem(g, K, Fraction(m), Fraction(1, 5), Z, Z)
        r, fin = certify_iid(pr), certify(pr)
        assert r.margin.lo <= fin.margin.hi


def test_theorem_4_1_k101_certified_directly_with_exact_zero_max():
    for g, m in ((gamma_dsub(101, 10), 10), (gamma_max(101, 60), 60)):
        r = certify_iid(problem(g, 101, Fraction(m), Fraction(1, 10), Z, Z))
        assert r.verdict == Verdict.CERTIFIED and r.edges is not None and r.finite is None
        assert r.margin.is_exact and r.margin.lo == 0
        assert r.edges[0].tangent.startswith("h(0) = 0 exactly")


def test_gamma_one_below_half_refuted_by_a_rational_point_of_f():
    # docs/derivations/darrm.md#identical-mechanisms: gamma = 1 is m eps-DP iff m >= (K + 1)/2; at K = 101, m = 50 the
    # i.i.d. point is certified
    pr = problem(gamma_one(101), 101, Fraction(50), Fraction(1, 10), Z, Z)
    r = certify_iid(pr)
    assert r.verdict == Verdict.REFUTED and in_region(pr, *r.point) and iid_margin(pr, *r.point) > 0


def test_approximate_dp_gamma_sub_k11_iid_agrees_with_multiset():
    D = Fraction(1, 10**5)
    for m in (1, 3):
        pr = problem(gamma_sub(11, m), 11, Fraction(m), Fraction(1, 10), D, 1 - (1 - D) ** m)
        assert certify_iid(pr).verdict == certify(pr).verdict == Verdict.CERTIFIED


def test_non_monotone_table_falls_back_to_the_multiset_certificate():
    # gamma(0) = 0 < gamma(1): w = -gamma is not non-decreasing, the boundary reduction does not apply
    table = (Z, Fraction(1, 2), Fraction(1, 2), Z)
    g = Gamma("bump", table)
    pr = problem(g, 3, Fraction(2), Fraction(1, 10), Z, Z)
    ok, why = iid_hypotheses(pr)
    assert not ok and "w(1) < w(0)" in why
    r = certify_iid(pr)
    assert r.edges is None and r.finite is not None and r.verdict == r.finite.verdict
