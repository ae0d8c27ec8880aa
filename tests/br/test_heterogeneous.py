"""Lemma 3.1 (heterogeneous ε_i): the certified bracket against Theorem 3 and a brute force at fixed t."""

from fractions import Fraction

import pytest

from dpcert.br.heterogeneous import delta_at_t, heterogeneous_bracket
from dpcert.br.nonadaptive import nonadaptive_delta, nonadaptive_optimum
from dpcert.errors import InvalidParameter


def test_equal_eps_reaches_theorem_3():
    b = heterogeneous_bracket("1,1,1,1", "1")
    na = nonadaptive_delta(4, 1, 1)
    assert b.lo <= na.hi <= b.hi and float(na.lo - b.lo) < 1e-9


def test_sum_at_the_theorem_3_maximiser_is_its_value():
    opt = nonadaptive_optimum(3, "1/2", "1/5")
    value = delta_at_t((Fraction(1, 2),) * 3, Fraction(1, 5), opt.t * 3 if len(opt.t) == 1 else (opt.t[0],) * 3)
    assert opt.enclosure.contains(Fraction(value.mid().str(40, radius=False)))


def test_bracket_orders_and_mixed_eps():
    b = heterogeneous_bracket(["0.5", "1"], "0.2")
    assert 0 < b.lo <= b.hi
    # more private first mechanism: at most the homogeneous optimum at eps = 1, at least the one at eps = 1/2 with k = 1
    assert b.hi <= nonadaptive_delta(2, 1, "0.2").hi and b.lo >= nonadaptive_delta(1, 1, "0.2").lo


def test_bad_input():
    with pytest.raises(InvalidParameter):
        heterogeneous_bracket(",".join(["1"] * 13), 0)
    with pytest.raises(InvalidParameter):
        heterogeneous_bracket("1,0", 0)
