"""Theorem 4(i) gap certificates from explicit strategy trees."""

from fractions import Fraction

import pytest

from dpcert.br import CLAIMS
from dpcert.br.adaptive_claims import ADAPTIVE_CLAIMS, TREES, check_strategy_gap
from dpcert.br.strategy import StrategyTree
from dpcert.core.claim import Verdict
from dpcert.errors import InvalidParameter

# Theorem 3 [DDR20] at ε = 1 (independent mpmath): the nonadaptive optima the trees must beat
_NA = {(4, "0"): 0.395001448260, (4, "1"): 0.145253767435, (5, "0"): 0.441188614825, (5, "1"): 0.184097926255}


def test_every_gap_claim_is_certified_and_registered():
    ids = {c.id for c in CLAIMS}
    assert len(ADAPTIVE_CLAIMS) == 6
    for claim in ADAPTIVE_CLAIMS:
        assert claim.id in ids
        result = claim.check()
        assert result.verdict is Verdict.CERTIFIED, result.evidence.detail
        k, g = claim.inputs["k"], claim.inputs["eps_g"]
        if (k, g) in _NA:
            assert float(result.evidence.enclosure.lo) > _NA[(k, g)] + 1e-3


def test_tree_values_lie_inside_the_lattice_brackets_of_the_notes():
    # lattice brackets at N = 2000/1000/500: a strategy's value is at most the adaptive optimum's upper end
    upper = {(4, "0"): 0.405491515334, (4, "1"): 0.147752841457, (5, "0"): 0.445184512748, (5, "1"): 0.191004872292}
    for key, hi in upper.items():
        value = StrategyTree.from_levels(1, TREES[key]).value(key[1])
        assert _NA[key] < float(value.mid()) < hi


def test_a_tree_that_does_not_beat_the_optimum_is_undecided():
    # the nonadaptive optimum at k = 2, ε_g = 0 is t = 1/3 everywhere : as a tree it ties, no gap
    verdict, evidence = check_strategy_gap(256, 2, "1", "0", ("1/3", "1/3 1/3"))
    assert verdict is Verdict.UNDECIDED and abs(float(evidence.enclosure.mid()) - 0.28831726236863416714) < 1e-15
    verdict, _ = check_strategy_gap(256, 2, "1", "0", ("0", "0 0"))
    assert verdict is Verdict.UNDECIDED


def test_wrong_depth_is_rejected():
    with pytest.raises(InvalidParameter):
        check_strategy_gap(256, 3, "1", "0", ("1/2", "1/4 3/4"))


def test_k2_closed_form_strategy_is_certified_through_the_tree():
    # docs/derivations/br.md#adaptivity-gap-at-two-rounds at ε = 1/2: A_2(0) = 0.155079763724255 > NA_2(0) =
    # 0.147127377260852
    verdict, evidence = check_strategy_gap(256, 2, "1/2", "0", ("1/4", "1/8 3/8"))
    assert verdict is Verdict.CERTIFIED
    assert abs(float(evidence.enclosure.mid()) - 0.155079763724255) < 1e-14
    assert evidence.enclosure.lo > Fraction("0.147127377260853")
