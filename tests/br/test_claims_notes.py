"""The claims on the lemmas of [DDR20] (Lemma 4.1, Cor. 3.1, Lemma 4.4, Prop. 1, Lemmas 5.7, 5.4, 6.2, 6.4): verdicts,
and the facts behind them from independent sources."""

from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.br import claims
from dpcert.core.claim import Verdict


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    dps = mp.mp.dps
    yield
    mp.mp.dps = dps


def _by_id(cid):
    return next(c for c in claims.CLAIMS if c.id == cid)


@pytest.mark.parametrize(
    ("cid", "verdict"),
    [
        ("br.lemma4_1.tradeoff_as_printed", Verdict.REFUTED),
        ("br.lemma4_1.tradeoff_swapped", Verdict.CERTIFIED),
        ("br.cor3_1.maxkl_at_most_eps_sq_over_8", Verdict.CERTIFIED),
        ("br.prop1.monotone_equality_as_printed", Verdict.REFUTED),
        ("br.prop1.monotone_at_most", Verdict.CERTIFIED),
        ("br.prop1.shift_invariance", Verdict.CERTIFIED),
        ("br.prop1.range_at_most_twice_sensitivity", Verdict.CERTIFIED),
        ("br.example1.sensitivities", Verdict.CERTIFIED),
        ("br.lemma5_4.averaging_interior", Verdict.CERTIFIED),
        ("br.lemma5_4.strict_as_printed", Verdict.REFUTED),
        ("br.lemma6_2.interior_maximisers", Verdict.CERTIFIED),
        ("br.lemma6_4.k2_gap_inside", Verdict.CERTIFIED),
    ],
)
def test_verdicts(cid, verdict):
    assert _by_id(cid).check(max_prec=512).verdict is verdict


def _tradeoff_numeric(p0, p1, alpha):
    """T(P, Q)(α) for two-point P, Q by brute force over randomized tests φ = (φ_0, φ_1) on a grid (mpmath)."""
    best = mp.mpf(1)
    n = 400
    for i in range(n + 1):
        f0 = mp.mpf(i) / n
        # the test's type I error P[φ] <= α fixes the largest admissible φ_1 for this φ_0
        if p0[0] * f0 > alpha:
            break
        f1 = min(mp.mpf(1), (alpha - p0[0] * f0) / p0[1])
        best = min(best, 1 - (p1[0] * f0 + p1[1] * f1))
    return best


def test_tradeoff_of_definition_2_4_pair_numerically():
    # ε = 1, t = 0.3: T(RR_t(0), RR_t(1)) = max{1 − e^{ε−t} α, e^{−t}(1 − α)}, which is not l_{t,ε}
    mp.mp.dps = 30
    e, t = mp.mpf(1), mp.mpf("0.3")
    q = mp.expm1(t - e) / mp.expm1(-e)
    p = mp.exp(-t) * q
    for alpha in (mp.mpf("0.05"), mp.mpf("0.2"), mp.mpf("0.6")):
        tv = _tradeoff_numeric((q, 1 - q), (p, 1 - p), alpha)
        assert abs(tv - max(1 - mp.exp(e - t) * alpha, mp.exp(-t) * (1 - alpha))) < 1e-2
        swapped = _tradeoff_numeric((p, 1 - p), (q, 1 - q), alpha)
        assert abs(swapped - max(1 - mp.exp(t) * alpha, mp.exp(t - e) * (1 - alpha))) < 1e-2
    alpha = 1 - q  # the vertex of T(RR_t(0), RR_t(1)): there l_{t,ε} is visibly larger
    assert max(1 - mp.exp(t) * alpha, mp.exp(t - e) * (1 - alpha)) - p > 0.05


def test_maxkl_margin_numerically():
    # ε²/8 − maxkl(ε) ≈ ε⁴/576 near 0 (series expansion) and stays positive on a grid (mpmath, 50 digits)
    mp.mp.dps = 50
    for x in ("0.001", "0.1", "1", "5", "30", "200"):
        e = mp.mpf(x)
        y = e / (1 - mp.exp(-e))
        gap = e**2 / 8 - (y - 1 - mp.log(y))
        assert gap > 0
    e = mp.mpf("0.01")
    y = e / (1 - mp.exp(-e))
    assert (e**2 / 8 - (y - 1 - mp.log(y))) / e**4 == pytest.approx(1 / 576, rel=1e-3)
    assert claims.check_maxkl_below_zcdp(256, split="1", top="8")[0] is Verdict.UNDECIDED


def test_lemma5_7_numerically_beyond_the_certified_k():
    # the derivative formula at k = 9 by numerical differentiation (mpmath), independent of the sympy check
    mp.mp.dps = 40
    k, e, g = 9, mp.mpf("0.7"), mp.mpf("0.4")
    a = 1 / (1 - mp.exp(-e))

    def p(t):
        return (mp.exp(-t) - mp.exp(-e)) * a

    for ell in (0, 4, 8):

        def f(t, ell=ell):
            return sum(
                mp.binomial(k, i) * p(t) ** (k - i) * (1 - p(t)) ** i * (mp.exp(k * t - i * e) - mp.exp(g))
                for i in range(ell + 1)
            )

        t = mp.mpf("0.33")
        rhs = (k - ell) * mp.binomial(k, ell) * p(t) ** (k - 1 - ell) * (1 - p(t)) ** ell * a
        rhs *= mp.exp(g - t) - mp.exp(k * t - (ell + 1) * e)
        assert abs(mp.diff(f, t) - rhs) < mp.mpf(10) ** -25


def test_averaging_counterexample_and_a_strict_case_by_mpmath():
    # k = 3, ε = 1, t = (1/4, 3/4, 1), ε_g = 1: RR_3 is constant and every outcome has loss <= 1: δ = 0 both sides
    case, before, after = claims._averaging_case(3, Fraction(1), Fraction(1), [Fraction(1, 4), Fraction(3, 4), 1])
    assert case == "fail" and before == 0 and after == 0
    # a strict case against a direct mpmath 2^k sum
    mp.mp.dps = 40
    ts = [Fraction(1, 5), Fraction(7, 10), Fraction(1, 2)]
    case, before, after = claims._averaging_case(3, Fraction(1), Fraction(1, 3), ts)

    def brute(tv):
        total = mp.mpf(0)
        for s in range(8):
            qv = pv = mp.mpf(1)
            for i, t in enumerate(tv):
                t = mp.mpf(t.numerator) / t.denominator
                q = mp.expm1(t - 1) / mp.expm1(-1)
                p = mp.exp(-t) * q
                qv *= (1 - q) if s >> i & 1 else q
                pv *= (1 - p) if s >> i & 1 else p
            total += max(qv - mp.exp(mp.mpf(1) / 3) * pv, 0)
        return total

    assert case == "strict"
    assert abs(float(before.mid()) - float(brute(ts))) < 1e-15
    assert abs(float(after.mid()) - float(brute([Fraction(9, 20)] * 2 + ts[2:]))) < 1e-15


def test_k2_gap_lower_bound_below_the_notes_adaptive_value():
    # the explicit strategy is a lower bound of A_2(0) = 0.303365496483182259 (an independent nested optimisation) and
    # above NA_2(0)
    from dpcert.arith.ball import workprec

    with workprec(160):
        low = claims._k2_adaptive_lower(Fraction(1), Fraction(0), Fraction(1, 3))
    assert 0.288317262368634167 < float(low.mid()) < 0.303365496483182259


def test_no_gap_outside_stays_undecided():
    res = _by_id("br.lemma6_4.k2_no_gap_outside").check(max_prec=512)
    assert res.verdict is Verdict.UNDECIDED and "Lemma 6.10" in res.evidence.detail


def test_bad_check_inputs():
    from dpcert.errors import InvalidParameter

    with pytest.raises(InvalidParameter):
        claims.check_tradeoff(64, pair="00", points=("2:3",))
    with pytest.raises(InvalidParameter):
        claims.check_range_properties(64, prop="other", seed=1, count=1)
