"""Explicit adaptive strategies: their ball value against the hockey-stick divergence of the composed view, the
lattice recursion, and the adaptive bracket."""

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dpcert.br.adaptive import adaptive_bracket, lattice_run
from dpcert.br.strategy import StrategyTree
from dpcert.errors import InvalidParameter


def _hockey_stick(tree: StrategyTree, eps_g: Fraction) -> mpmath.mpf:
    """Σ_y max(Q(y) − e^{ε_g} P(y), 0) over the 2^k outcome sequences y of the composed view (Fact 1), with
    Q(y) = Pr[view = y | b = 0], P(y) = Pr[view = y | b = 1] from Definition 2.4 (q_t, p_t) — no recursion."""
    with mpmath.workdps(40):
        e = mpmath.mpf(tree.eps.numerator) / tree.eps.denominator
        total = mpmath.mpf(0)
        for ys in itertools.product((0, 1), repeat=tree.k):
            node, qy, py = 0, mpmath.mpf(1), mpmath.mpf(1)
            for y in ys:
                t = mpmath.mpf(tree.t[node].numerator) / tree.t[node].denominator
                q = (1 - mpmath.exp(t - e)) / (1 - mpmath.exp(-e))
                p = (mpmath.exp(-t) - mpmath.exp(-e)) / (1 - mpmath.exp(-e))
                qy, py = (qy * q, py * p) if y == 0 else (qy * (1 - q), py * (1 - p))
                node = 2 * node + 1 + y
            g = mpmath.mpf(eps_g.numerator) / eps_g.denominator
            total += max(qy - mpmath.exp(g) * py, 0)
        return total


def test_k2_tree_of_notes_c3_matches_the_view_and_the_closed_form():
    # docs/derivations/br.md#adaptivity-gap-at-two-rounds: t1 = ε/2, then ε/4 after outcome 0 and 3ε/4 after outcome 1;
    # A_2(0) >= 0.303365496483182259
    tree = StrategyTree.from_levels(1, ("1/2", "1/4 3/4"))
    value = tree.value(0)
    assert abs(float(value.mid()) - 0.303365496483182259) < 1e-16
    assert abs(float(value.mid()) - float(_hockey_stick(tree, Fraction(0)))) < 1e-16
    assert abs(tree.value_float(0.0) - 0.303365496483182259) < 1e-15


choice = st.integers(0, 12)


@given(
    k=st.integers(1, 4),
    data=st.data(),
    g=st.integers(-60, 60),
)
@example(k=3, data=None, g=0)
def test_tree_value_is_the_hockey_stick_of_the_view_and_at_most_the_lattice_optimum(k, data, g):
    n = 12
    ss = [0] * (2**k - 1) if data is None else data.draw(st.lists(choice, min_size=2**k - 1, max_size=2**k - 1))
    tree = StrategyTree.of(1, [Fraction(s, n) for s in ss])
    eps_g = Fraction(g, n)
    value = tree.value(eps_g)
    reference = _hockey_stick(tree, eps_g)
    # the ball value is the divergence of this adversary's view (an independent sum over 2^k outcome sequences)
    if isinstance(value, Fraction):
        assert value == 0 and reference < 1e-35
    else:
        assert abs(float(value.mid()) - float(reference)) <= 1e-15 * max(1.0, float(reference))
    # a strategy on the lattice h = ε/N is one of the restricted adversaries: at most their optimum L, and at most
    # the certified upper end U of the bracket
    run = lattice_run(k, Fraction(1), eps_g, n)
    assert float(value if isinstance(value, Fraction) else value.mid()) <= run.lo_float + 1e-14
    assert Fraction(float(value if isinstance(value, Fraction) else value.upper())) <= run.hi


@pytest.mark.parametrize(("k", "g", "n"), [(2, 0, 40), (3, 6, 24), (4, 0, 24), (4, -30, 24), (5, 24, 12)])
def test_the_lattice_strategy_is_worth_the_lattice_value(k, g, n):
    # the restricted adversary's argmax, unrolled into a tree, evaluated in balls: the float recursion's value
    run = lattice_run(k, Fraction(1), Fraction(g, n), n)
    assert run.start == g
    tree = run.strategy.tree(g)
    value = tree.value(Fraction(g, n))
    assert abs(float(value.mid()) - run.lo_float) < 1e-14
    # the Markov form over the reached states gives the same ball
    markov = run.strategy.value(g)
    assert markov.overlaps(value) and markov.rad() < 1e-15
    assert sum(len(level) for level in run.strategy.reached(g)) <= 2 ** (k + 1)


def test_the_notes_k4_tree_value():
    # independent computation: the lattice optimal tree for k = 4, ε_g = 0 at N = 250 has value 0.404668083192
    run = lattice_run(4, Fraction(1), Fraction(0), 250)
    value = run.strategy.tree(0).value(0)
    assert round(float(value.mid()), 12) == 0.404668083192
    # its first choice is t = ε/2 and the tree is mirror-symmetric (t <-> ε − t on mirrored branches)
    t = run.strategy.tree(0).t
    assert t[0] == Fraction(1, 2) and t[1] + t[2] == 1 and t[3] + t[6] == 1


def test_exact_regions_hold_for_every_strategy():
    # Lemma 6.7: δ = 0 at ε_g >= kε and 1 − e^{ε_g} at ε_g <= −kε, whatever the adversary plays
    tree = StrategyTree.from_levels("0.5", ("0.1", "0.2 0.45", "0 0.5 0.3 0.25"))
    assert tree.value("1.5") == 0
    v = tree.value("-1.5")
    assert abs(float(v.mid()) - (1 - math.exp(-1.5))) < 1e-15 and v.rad() < 1e-30
    run = lattice_run(3, Fraction(1, 2), Fraction(-2), 10)
    assert run.start == -40
    m = run.strategy.value(-40)
    assert abs(float(m.mid()) + math.expm1(-2.0)) < 1e-15


def test_the_bracket_lower_end_is_the_strategy_ball():
    br = adaptive_bracket(3, 1, "0.515", n=100)
    # ε_g = 0.515 is off the lattice h = 1/100: the strategy of the cell above (0.52) is played at ε_g itself,
    # worth at least its lattice value there (a smaller budget only raises every leaf)
    assert br.strategy is not None and br.lo == max(br.strategy.lo, br.nonadaptive.lo)
    assert br.strategy.lo > br.nonadaptive.hi  # a gap at k = 3 near ε_g = 0.5
    assert float(br.strategy.lo) >= br.lo_float - 1e-12 and br.lo < br.hi


def test_bad_trees():
    with pytest.raises(InvalidParameter):
        StrategyTree.of(1, ["1/2", "1/4"])  # not 2^k − 1 choices
    with pytest.raises(InvalidParameter):
        StrategyTree.of(1, ["3/2"])  # t outside [0, ε]
    with pytest.raises(InvalidParameter):
        StrategyTree.of(0, ["0"])  # ε must be positive
    with pytest.raises(InvalidParameter):
        StrategyTree.from_levels(1, ("1/2", "1/4"))  # round 2 needs 2 choices


def test_a_coarser_adversary_keeps_the_upper_end_and_loses_only_second_order():
    fine = adaptive_bracket(4, 1, 0, n=400, n_lower=400)
    coarse = adaptive_bracket(4, 1, 0, n=400, n_lower=100)
    assert fine.hi == coarse.hi
    # independent computation: 0.404668083192 is the restricted optimum for N = 250..2000 to 12 digits
    assert 0 <= fine.lo - coarse.lo < 1e-4 < (fine.hi - fine.lo) / 10 and float(coarse.lo) > 0.40465
    with pytest.raises(InvalidParameter):
        adaptive_bracket(4, 1, 0, n=400, n_lower=0)


def test_the_bracket_within_a_budget_contains_the_k2_optimum():
    from dpcert.br.adaptive import adaptive_bracket_within

    br = adaptive_bracket_within(2, 1, 0, 0.5, start=50)
    # A_2(0) = 0.303365496483182259 (an independent nested optimisation): inside, and N at least the start
    assert br.lo <= Fraction("0.303365496483182259") <= br.hi and br.n >= 50
    with pytest.raises(InvalidParameter):
        adaptive_bracket_within(2, 1, 0, 0)
