"""For every ε at once: exact root isolation; i.i.d. mode; the safe rescaling."""

from fractions import Fraction

from flint import fmpq_poly

from dpcert.core.claim import Verdict
from dpcert.darrm.all_eps import certify_all_eps, poly_nonpositive_on, safe_rescaling
from dpcert.darrm.gamma import gamma_max, gamma_one
from dpcert.darrm.iid import certify_iid, iid_margin, in_region
from dpcert.darrm.privacy import certify, problem

Z = Fraction(0)


def test_poly_sign_on_one_to_infinity():
    x = fmpq_poly([0, 1])
    assert poly_nonpositive_on(-(x - 1) * (x + 2))[0]
    # -(x-2)^2 (x - 1/2) <= 0 on (1, inf): touches 0 at 2 (even root), mixed-sign shifted coefficients
    ok, w, method = poly_nonpositive_on(-((x - 2) ** 2) * (x * 2 - 1))
    assert ok and method == "real-root isolation"
    # (x-3)(x-5)(-1): positive between 3 and 5
    ok, w, method = poly_nonpositive_on(-(x - 3) * (x - 5))
    assert not ok and 3 < w < 5
    # irreducible quadratic with roots 1 +- sqrt(2)... x^2 - 2x - 1: root 2.414 > 1, positive beyond
    ok, w, _ = poly_nonpositive_on(x**2 - 2 * x - 1)
    assert not ok and w > Fraction(2414, 1000)
    ok, _, _ = poly_nonpositive_on(-((x**2 - 2 * x - 1) ** 2))
    assert ok


def test_theorem_4_1_for_every_eps_k11_and_gamma_one_refuted():
    for m in (1, 3, 5, 6):
        r = certify_all_eps(problem(gamma_max(11, m), 11, Fraction(m), Fraction(1), Z, Z))
        assert r.verdict == Verdict.CERTIFIED and r.tight is not None
    r = certify_all_eps(problem(gamma_one(11), 11, Fraction(5), Fraction(1), Z, Z))
    assert r.verdict == Verdict.REFUTED
    eps = Fraction(r.counterexample["eps"])
    fin = certify(problem(gamma_one(11), 11, Fraction(5), eps, Z, Z))
    assert fin.verdict == Verdict.REFUTED


def test_iid_gamma_one_tightness_point_is_feasible_and_positive():
    pr = problem(gamma_one(11), 11, Fraction(5), Fraction(1, 10), Z, Z)
    r = certify_iid(pr)
    assert r.verdict == Verdict.REFUTED and r.point is not None
    p, pp = r.point
    assert in_region(pr, p, pp) and iid_margin(pr, p, pp) > 0
    assert certify_iid(problem(gamma_one(11), 11, Fraction(6), Fraction(1, 10), Z, Z)).verdict == Verdict.CERTIFIED


def test_safe_rescaling_brackets_the_threshold():
    pr = problem(gamma_one(11), 11, Fraction(5), Fraction(1, 10), Z, Z)
    r = safe_rescaling(pr)
    assert r.lo_verdict == Verdict.CERTIFIED and r.hi_verdict == Verdict.REFUTED
    assert r.c_lo < r.c_hi < 1 and (r.c_hi - r.c_lo) / r.c_hi < Fraction(1, 10**8)
