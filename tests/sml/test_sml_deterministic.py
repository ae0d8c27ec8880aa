"""Deterministic mechanisms: matching = brute force = −(Algorithm 1 min cost) (Prop. IV.2 corrected, C8)."""

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.errors import InvalidParameter
from dpcert.sml.deterministic import algorithm1_min_cost, matching_sml_exp
from dpcert.sml.mechanism import FiniteMechanism, sml, sml_deterministic


def brute(outputs, secrets):
    groups = {}
    for i, g in enumerate(secrets):
        groups.setdefault(g, []).append(i)
    return max(len({outputs[i] for i in sel}) for sel in itertools.product(*groups.values()))


@st.composite
def deterministic(draw):
    n = draw(st.integers(1, 7))
    m = draw(st.integers(1, 5))
    outs = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    secs = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return outs, secs, m


@settings(max_examples=200)
@given(deterministic())
def test_matching_equals_brute_force_and_algorithm1(case):
    outs, secs, m = case
    rows = [[1 if j == o else 0 for j in range(m)] for o in outs]
    mech = FiniteMechanism.from_rows(rows, secs)
    want = brute(outs, secs)
    res = sml(mech)
    assert res.method == "matching"
    assert res.exp_value == want
    index = {lab: i for i, lab in enumerate(mech.inputs)}
    assert len({outs[index[t]] for t in res.selection.values()}) == want
    # Proposition IV.2 as corrected: exp Π = −C (the printed "negative log cost" would be −log C)
    assert algorithm1_min_cost(mech) == pytest.approx(-want, abs=1e-9)


def test_fig1_shaped_examples():
    """Worked example (docs/derivations/sml.md#deterministic-mechanisms): 2 and 1."""
    secs = ["g1", "g1", "g2"]
    a = FiniteMechanism.from_rows([[1, 0], [0, 1], [0, 1]], secs)
    b = FiniteMechanism.from_rows([[0, 1], [0, 1], [0, 1]], secs)
    assert sml(a).exp_value == 2 and sml(b).exp_value == 1


@settings(max_examples=60)
@given(st.integers(2, 4), st.integers(2, 3), st.data())
def test_algorithm1_on_randomized_mechanisms_is_only_a_lower_bound(n, m, data):
    rows = []
    for _ in range(n):
        w = data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m))
        w[0] += 1 if sum(w) == 0 else 0
        rows.append([F(x, sum(w)) for x in w])
    secs = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    mech = FiniteMechanism.from_rows(rows, secs)
    assert -algorithm1_min_cost(mech) <= float(sml(mech).exp_value) + 1e-9


def test_large_random_instance_selection_attains_matching():
    rng = np.random.default_rng(5)
    n, s, m = 20_000, 3_000, 2_000
    sec = rng.integers(0, s, n)
    sec[:s] = np.arange(s)
    out = rng.integers(0, m, n)
    size, sel = matching_sml_exp(sec, out, s, m)
    assert (sec[sel] == np.arange(s)).all()
    assert len(set(out[sel].tolist())) == size  # the selection hits exactly `size` distinct outputs
    assert size <= min(s, m)


def test_bad_inputs():
    with pytest.raises(InvalidParameter):
        matching_sml_exp([0, 2], [0, 0], 3, 1)  # secret 1 never attained
    with pytest.raises(InvalidParameter):
        matching_sml_exp([0, 1], [0, 5], 2, 3)
    with pytest.raises(InvalidParameter):
        sml_deterministic(FiniteMechanism.from_rows([[F(1, 2), F(1, 2)]], [0]))
