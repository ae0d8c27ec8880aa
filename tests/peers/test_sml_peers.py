"""Statistic maximal leakage against the qif library (multiplicative Bayes capacity / leakage, exact rationals).

qif's ``mult_capacity(C)`` is Σ_y max_x C[x, y] (the multiplicative Bayes capacity, Alvim et al.), which is
exp ℒ_MEL, the worst-case min-entropy leakage; Proposition IV.1's sum for a selection σ is the multiplicative
capacity of the sub-channel made of the selected rows. qif computes both in exact rationals (its ``rat`` type is
``fractions.Fraction``), so every comparison here is an equality.
"""

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.sml.mechanism import FiniteMechanism, leakage_exp_at_prior, mel_exp, sml
from dpcert.sml.tabular import qm_mechanism, rr_mechanism

pytestmark = pytest.mark.peers

qif = pytest.importorskip("qif")


def channel(rows):
    return np.array([[F(v) for v in r] for r in rows], dtype=object)


@st.composite
def mechanisms(draw):
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    rows = []
    for _ in range(n):
        w = draw(st.lists(st.integers(0, 4), min_size=m, max_size=m))
        w[0] += 1 if sum(w) == 0 else 0
        rows.append([F(x, sum(w)) for x in w])
    return rows, draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))


@settings(max_examples=100)
@given(mechanisms())
def test_mel_is_qif_multiplicative_capacity(case):
    rows, secrets = case
    mech = FiniteMechanism.from_rows(rows, secrets)
    assert qif.measure.bayes_vuln.mult_capacity(channel(rows)) == mel_exp(mech)


@settings(max_examples=100)
@given(mechanisms())
def test_sml_is_the_largest_capacity_of_a_selected_subchannel(case):
    rows, secrets = case
    mech = FiniteMechanism.from_rows(rows, secrets)
    cap = qif.measure.bayes_vuln.mult_capacity
    best = max(cap(channel([rows[i] for i in sel])) for sel in itertools.product(*mech.groups))
    assert sml(mech).exp_value == best


@settings(max_examples=60)
@given(mechanisms(), st.data())
def test_prior_leakage_with_identity_secret_is_qif_multiplicative_leakage(case, data):
    """With 𝔤 = identity (every θ its own secret) the MAP gain at a prior is qif's multiplicative leakage."""
    rows, _ = case
    n = len(rows)
    w = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    w[0] += 1 if sum(w) == 0 else 0
    prior = [F(x, sum(w)) for x in w]
    mech = FiniteMechanism.from_rows(rows, list(range(n)))
    pi = np.array(prior, dtype=object)
    assert qif.measure.bayes_vuln.mult_leakage(pi, channel(rows)) == leakage_exp_at_prior(mech, prior)


@pytest.mark.parametrize("build", [lambda: rr_mechanism(3, 3, F(5, 2)), lambda: qm_mechanism(4, 3, 3)])
def test_tabular_kernels_against_qif(build):
    hists, mech = build()
    rows = [list(r) for r in mech.rows]
    cap = qif.measure.bayes_vuln.mult_capacity
    assert cap(channel(rows)) == mel_exp(mech)
    best = max(cap(channel([rows[i] for i in sel])) for sel in itertools.product(*mech.groups))
    assert sml(mech).exp_value == best
