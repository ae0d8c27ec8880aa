"""The adaptive lattice bracket: its ends against an explicit strategy and a nested optimisation of the recursion."""

import math
from fractions import Fraction

import pytest
from scipy.optimize import minimize_scalar

from dpcert.arith.ball import workprec
from dpcert.br.adaptive import adaptive_bracket
from dpcert.br.claims import check_adaptive_gap, k2_strategy_value
from dpcert.br.nonadaptive import nonadaptive_delta_float
from dpcert.core.claim import Verdict
from dpcert.errors import InvalidParameter


def _a2_nested(eps: float, eg: float) -> float:
    """A_2(ε_g) = sup_t q_t A_1(ε_g − t) + (1 − q_t) A_1(ε_g + ε − t), A_1 = Theorem 3 at k = 1 (= adaptive)."""

    def obj(t: float) -> float:
        q = math.expm1(t - eps) / math.expm1(-eps)
        return -(q * nonadaptive_delta_float(1, eps, eg - t) + (1 - q) * nonadaptive_delta_float(1, eps, eg + eps - t))

    grid = [eps * j / 200 for j in range(201)]
    t0 = min(grid, key=obj)
    res = minimize_scalar(
        obj, bounds=(max(0, t0 - eps / 200), min(eps, t0 + eps / 200)), method="bounded", options={"xatol": 1e-12}
    )
    return -min(res.fun, obj(t0))


@pytest.mark.parametrize("eg", [-0.75, -0.25, 0.0, 0.25, 0.49])
def test_k2_bracket_contains_the_nested_optimum(eg):
    br = adaptive_bracket(2, 1, Fraction(eg), n=400)
    value = _a2_nested(1.0, eg)
    assert float(br.lo) - 1e-12 <= value <= float(br.hi) + 1e-12
    assert float(br.hi - br.lo) < 3e-3


def test_lower_end_dominates_the_explicit_strategy():
    # N divisible by 4 puts the strategy t1 = ε/2, t2 ∈ {ε/4, 3ε/4} on the lattice: L >= its value
    with workprec(128):
        closed, tree = k2_strategy_value(Fraction(1))
    br = adaptive_bracket(2, 1, 0, n=100)
    # the float recursion's rounding is paid for by a relative (1 + 2^-53)^(2k+2) shrink of L
    assert float(br.lo) >= float(tree.lower().mid()) * (1 - 1e-14)
    assert closed.overlaps(tree) and abs(float(tree.mid()) - 0.303365496483182259) < 1e-15


@pytest.mark.parametrize(("k", "eg", "lower"), [(3, "0.5", 0.2115658444), (4, "0", 0.4046680831), (4, "1", 0.1472983)])
def test_brackets_match_the_notes_and_narrow(k, eg, lower):
    coarse, fine = adaptive_bracket(k, 1, eg, n=100), adaptive_bracket(k, 1, eg, n=200)
    # the independent values are at N = 2000-250; the lower end converges fast (second order)
    assert float(fine.lo) >= lower - 1e-5 and float(fine.lo) > float(fine.nonadaptive.hi)
    assert fine.hi - fine.lo < coarse.hi - coarse.lo
    assert fine.lo <= coarse.hi and coarse.lo <= fine.hi


def test_band_is_exact_and_symmetry():
    # Lemma 6.10: |ε_g| >= (k − 1)ε gives the nonadaptive value exactly
    br = adaptive_bracket(3, 1, "2.5", n=50)
    assert br.n == 0 and br.lo == br.nonadaptive.lo
    # δ(ε_g) = 1 − e^{ε_g} + e^{ε_g} δ(−ε_g) (docs/derivations/br.md#nonadaptive-facts, fact (d)): the brackets must be
    # consistent with it
    g = 0.3
    a, b = adaptive_bracket(3, 1, Fraction(g), n=300), adaptive_bracket(3, 1, Fraction(-g), n=300)
    lo_m = 1 - math.exp(g) + math.exp(g) * float(b.lo)
    hi_m = 1 - math.exp(g) + math.exp(g) * float(b.hi)
    assert lo_m <= float(a.hi) + 1e-12 and float(a.lo) <= hi_m + 1e-12


def test_k3_literal_reading_stays_undecided():
    verdict, evidence = check_adaptive_gap(8192, 3, "1", "0", 400)
    assert verdict is Verdict.UNDECIDED and "no strict gap" in evidence.detail


def test_bad_input():
    with pytest.raises(InvalidParameter):
        adaptive_bracket(2, 1, 0, n=0)
    with pytest.raises(InvalidParameter):
        adaptive_bracket(2, 0, 0)


def test_the_adaptive_delta_quantity_is_the_bracket_and_decides_claims():
    from dpcert.core.claim import AtLeast, AtMost, QuantityClaim, Verdict
    from dpcert.engine.registry import quantity

    q = quantity("br.adaptive.delta")
    # k = 2, eps = 1, eps_g = 0: A_2(0) = 0.303365496483… (an independent nested optimisation), above the nonadaptive
    # optimum
    enc = q.enclose(k=2, eps="1", eps_g="0", rel_tol=1e-2)
    assert enc.lo <= Fraction("0.303365496483182259") <= enc.hi and enc.rel_width() <= 1e-2
    inputs = {"k": 2, "eps": "1", "eps_g": "0"}
    holds = QuantityClaim("t.br.a2", "test: A_2(0)", "s", quantity=q, inputs=inputs, comparison=AtLeast.of("0.3"))
    fails = QuantityClaim("t.br.a2b", "test: A_2(0)", "s", quantity=q, inputs=inputs, comparison=AtMost.of("0.3"))
    assert holds.check().verdict is Verdict.CERTIFIED
    assert fails.check().verdict is Verdict.REFUTED
    # where |eps_g| >= (k - 1) eps the bracket is the nonadaptive optimum (Lemma 6.10)
    band = q.enclose(k=3, eps="1", eps_g="2.5", rel_tol=1e-12)
    assert band.overlaps(quantity("br.nonadaptive.delta").enclose(k=3, eps="1", eps_g="2.5"))
