"""Valid inputs far below float64's range (ε or δ = 1e-400, 1e-3999) give certified values, not crashes: the ball
path takes its float hints (best candidate, Chernoff λ, MGF λ) at a float-safe scale."""

from __future__ import annotations

from fractions import Fraction

import mpmath

from dpcert.br import bounds
from dpcert.engine import registry

Q = registry.quantities()


def test_nonadaptive_eps_is_zero_when_k_eps_is_far_below_delta():
    # δ_OPT(k, ε, 0) <= TV <= 1 − e^{−kε} < kε = 1e-3997 < δ: ε_g = 0 already meets δ, the least ε_g is 0
    enc = Q["br.nonadaptive.eps"].enclose(k=100, eps="1e-3999", delta="1e-6")
    assert enc.lo == enc.hi == 0
    d0 = Q["br.nonadaptive.delta"].enclose(k=100, eps="1e-3999", eps_g=0, rel_tol=1e-6, abs_tol=0)
    assert 0 < d0.lo and d0.hi <= Fraction(100, 10**3999)


def test_nonadaptive_eps_at_tiny_eps_scales_like_eps():
    # as ε → 0, ε_g(ε, δ = cε) / ε tends to a limit: the float path at ε = 1e-10 (a different scale and arithmetic)
    # agrees to O(ε)
    enc = Q["br.nonadaptive.eps"].enclose(k=100, eps="1e-300", delta="1e-300", rel_tol=1e-7, abs_tol=0)
    limit = Q["br.nonadaptive.eps"].evaluate_float(k=100, eps="1e-10", delta="1e-10") / 1e-10
    assert abs(float(enc.mid() * 10**300) / limit - 1) < 1e-6


def _mgf_mp(k: int, eps: str, delta: str, lam: Fraction) -> mpmath.mpf:
    """(k h_ε(λ) + ln(1/δ))/λ with h_ε(λ) = sup_t λ(ε − t) + ln(1 + p_t(e^{−λε} − 1)) maximised numerically over t
    (golden section on the concave objective; no closed-form maximiser), p_t = (e^{−t} − e^{−ε})/(1 − e^{−ε})."""
    with mpmath.workdps(80):
        e, lm = (
            mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator,
            mpmath.mpf(lam.numerator) / lam.denominator,
        )

        def g(t):
            p = mpmath.exp(-e) * mpmath.expm1(e - t) / -mpmath.expm1(-e)  # no cancellation at t, ε ~ 1e-3999
            return lm * (e - t) + mpmath.log1p(p * mpmath.expm1(-lm * e))

        a, b = mpmath.mpf(0), e
        r = (mpmath.sqrt(5) - 1) / 2
        for _ in range(200):
            c, d = b - r * (b - a), a + r * (b - a)
            if g(c) < g(d):
                a = c
            else:
                b = d
        h = max(g(a), g(mpmath.mpf(0)), g(e))
        dd = Fraction(delta)
        return (k * h + mpmath.log(dd.denominator) - mpmath.log(dd.numerator)) / lm


def test_mgf_at_tiny_eps_and_delta_matches_a_numerical_maximisation():
    for k, eps, delta in [
        (150, "1e-3999", "0.5"),
        (150, "1e-400", "0.5"),
        (150, "1.5", "1e-3999"),
        (10**6, "1e-3999", "1e-3999"),
    ]:
        p = Q["br.mgf.eps"].parse({"k": k, "eps": eps, "delta": delta})
        enc = Q["br.mgf.eps"].enclose(k=k, eps=eps, delta=delta, rel_tol=1e-25, abs_tol=0)
        ref = min(
            _mgf_mp(k, eps, delta, bounds._lam(k, p["eps"], p["delta"])),
            k * mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator,
        )
        assert abs(mpmath.mpf(enc.mid().numerator) / enc.mid().denominator / ref - 1) < 1e-20, (k, eps, delta)


def test_mgf_at_tiny_eps_is_the_small_eps_limit():
    # MGF(ε)/ε converges as ε → 0 (O(ε)): 1e-3999 continues the sequence at 1e-3, 1e-4, 1e-5
    tiny = Q["br.mgf.eps"].enclose(k=150, eps="1e-3999", delta="0.5", abs_tol=0).mid() * 10**3999
    small = Q["br.mgf.eps"].enclose(k=150, eps="1e-5", delta="0.5").mid() * 10**5
    assert abs(float(tiny / small) - 1) < 1e-4


def test_query_count_at_a_delta_below_float64():
    # at δ = 1e-400 every curve is capped at kε (the sqrt(ln 1/δ) terms exceed it), so each allows
    # floor(budget/ε) = 10 queries; the DR19 search used to take log(0.0)
    from dpcert.br.queries import query_count

    for curve in ("dr19", "mgf", "br"):
        assert query_count(curve, "0.1", "1", "1e-400", 4096) == (10, 10), curve


def test_step_signs_decide_at_a_tiny_eps():
    # the step signs' lobe integrals cancel about log2(1/ε) bits; the guard bits now cover it, so a step far from
    # the top is signed at the working precision (before: undecided at every precision up to 8192 bits, and
    # br.nonadaptive.eps k=1000 eps=1e-3999 delta=1e-4000 was UNDECIDED); the signs agree with the summed values
    from dpcert.arith.ball import workprec
    from dpcert.br import nonadaptive as na

    k, e, g = 1000, Fraction(1, 10**3999), Fraction(3, 10**3998)
    best = na._best_hint(k, e, g)
    with workprec(64 + na._guard_bits(k, e)):
        signs = na._step_signs(k, e, g, {100: 1, best + 100: -1})
        v = [na.candidate_value(k, e, g, ell, 64) for ell in (100, 101, best + 100, best + 101)]
    assert signs == {100: 1, best + 100: -1}
    assert v[0] < v[1] and v[2] > v[3]
