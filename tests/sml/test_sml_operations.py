"""Composition (Theorem IV.2) and post-processing (Theorem IV.3) on random instances, against brute force."""

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import FiniteMechanism, sml
from dpcert.sml.operations import compose, composition_bound, post_process


def rows_strategy(n, m):
    row = st.lists(st.integers(0, 3), min_size=m, max_size=m).map(lambda w: w if sum(w) else [1] + w[1:])
    return st.lists(row, min_size=n, max_size=n).map(lambda rs: [[F(x, sum(r)) for x in r] for r in rs])


@settings(max_examples=120)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.data())
def test_adaptive_composition_bound(n, m1, m2, data):
    secrets = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    first = FiniteMechanism.from_rows(data.draw(rows_strategy(n, m1)), secrets)
    second = {o: FiniteMechanism.from_rows(data.draw(rows_strategy(n, m2)), secrets) for o in first.outputs}
    joint = compose(first, second)
    # Lemma D.2 directly: max over selections of the sum over output pairs of the max over secrets of the product
    groups = first.groups
    lemma = max(
        sum(
            max(first.rows[i][a] * second[first.outputs[a]].rows[i][b] for i in sel)
            for a in range(m1)
            for b in range(m2)
        )
        for sel in itertools.product(*groups)
    )
    assert sml(joint).exp_value == lemma
    assert lemma <= composition_bound(first, second)


@settings(max_examples=60)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.data())
def test_non_adaptive_composition_is_at_most_the_product(n, m1, m2, data):
    secrets = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    first = FiniteMechanism.from_rows(data.draw(rows_strategy(n, m1)), secrets)
    other = FiniteMechanism.from_rows(data.draw(rows_strategy(n, m2)), secrets)
    joint = compose(first, dict.fromkeys(first.outputs, other))
    assert sml(joint).exp_value <= sml(first).exp_value * sml(other).exp_value


def test_appendix_d_prefix_sum_quantity_is_not_the_standalone_sml():
    """(docs/derivations/sml.md#composition-per-prefix) for a non-adaptive second mechanism, Appendix D's quantity is
    |Θ'₁| · exp Π₂, not exp Π₂."""
    first = FiniteMechanism.from_rows([[F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)]], [0, 1])
    other = FiniteMechanism.from_rows([[1, 0], [0, 1]], [0, 1])
    second = dict.fromkeys(first.outputs, other)
    # max_σ Σ_{prefix, θ'₂} max_g P₂(θ'₂ | σ(g), prefix): the prefix sum multiplies by |Θ'₁|
    appendix = max(
        sum(max(second[o].rows[i][b] for i in sel) for o in first.outputs for b in range(2))
        for sel in itertools.product(*first.groups)
    )
    assert appendix == 2 * sml(other).exp_value == 4
    assert sml(compose(first, second)).exp_value == 2  # the composition itself leaks only exp Π₂ = 2


@settings(max_examples=150)
@given(st.integers(1, 5), st.integers(1, 4), st.integers(1, 4), st.data())
def test_post_processing_never_increases_sml(n, m, k, data):
    secrets = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    mech = FiniteMechanism.from_rows(data.draw(rows_strategy(n, m)), secrets)
    kernel = data.draw(rows_strategy(m, k))
    after = post_process(mech, kernel)
    for i in range(n):  # the product, written out
        for c in range(k):
            assert after.rows[i][c] == sum(mech.rows[i][j] * kernel[j][c] for j in range(m))
    assert sml(after).exp_value <= sml(mech).exp_value


def test_bad_compositions():
    first = FiniteMechanism.from_rows([[1, 0], [0, 1]], [0, 1])
    with pytest.raises(InvalidParameter):
        compose(first, {"0": first})
    with pytest.raises(InvalidParameter):
        compose(first, {"0": first, "1": FiniteMechanism.from_rows([[1, 0], [0, 1]], [0, 0])})
    with pytest.raises(InvalidParameter):
        post_process(first, [[1]])
