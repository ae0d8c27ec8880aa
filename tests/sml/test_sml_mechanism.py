"""Exact SML of finite mechanisms: branch and bound against an independent brute force, bounds, sandwich, C1."""

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import (
    FiniteMechanism,
    leakage_exp_at_prior,
    log_enclosure,
    mel_exp,
    ml_exp,
    selection_value,
    sml,
    sml_bounds,
    sml_enumerate,
)


def brute_exp_sml(rows, secrets):
    """Proposition IV.1 written directly in Fractions (independent of the package's integer scaling)."""
    groups = {}
    for i, g in enumerate(secrets):
        groups.setdefault(g, []).append(i)
    best = F(0)
    for sel in itertools.product(*groups.values()):
        best = max(best, sum(max(rows[i][j] for i in sel) for j in range(len(rows[0]))))
    return best


@st.composite
def mechanisms(draw, max_rows=6, max_cols=4, max_secrets=3):
    n = draw(st.integers(1, max_rows))
    m = draw(st.integers(1, max_cols))
    rows = []
    for _ in range(n):
        w = draw(st.lists(st.integers(0, 4), min_size=m, max_size=m))
        if sum(w) == 0:
            w[draw(st.integers(0, m - 1))] = 1
        rows.append([F(x, sum(w)) for x in w])
    secrets = draw(st.lists(st.integers(0, max_secrets - 1), min_size=n, max_size=n))
    return rows, secrets


@settings(max_examples=300)
@given(mechanisms())
@example(([[F(1), F(0)], [F(0), F(1)], [F(0), F(1)]], [0, 0, 1]))  # Fig. 1 shape: exp SML = 2
def test_branch_and_bound_equals_brute_force(case):
    rows, secrets = case
    mech = FiniteMechanism.from_rows(rows, secrets)
    want = brute_exp_sml(rows, secrets)
    got = sml(mech)
    assert got.exp_value == want
    assert sml_enumerate(mech).exp_value == want
    # the reported selection attains the value
    index = {lab: i for i, lab in enumerate(mech.inputs)}
    sel = [index[got.selection[g]] for g in mech.secret_values]
    assert all(mech.secrets[i] == g for i, g in zip(sel, mech.secret_values, strict=True))
    assert selection_value(mech, sel) == want


@settings(max_examples=100)
@given(mechanisms(max_rows=9, max_cols=5, max_secrets=4))
def test_bigger_random_instances_branch_and_bound_equals_enumeration(case):
    mech = FiniteMechanism.from_rows(*case)
    assert sml(mech).exp_value == sml_enumerate(mech).exp_value


@settings(max_examples=200)
@given(mechanisms())
def test_range_and_sandwich(case):
    """(docs/derivations/sml.md#elementary-bounds) and Property IV.1: 1 <= exp SML <= min(s,|Θ'|); MEL/max|Θ_g| <= exp
    SML <= MEL."""
    rows, secrets = case
    mech = FiniteMechanism.from_rows(rows, secrets)
    v = brute_exp_sml(rows, secrets)
    s = len(set(secrets))
    assert 1 <= v <= min(s, len(rows[0]))
    mel = sum(max(r[j] for r in rows) for j in range(len(rows[0])))
    assert mel_exp(mech) == mel
    biggest = max(secrets.count(g) for g in set(secrets))
    assert mel / biggest <= v <= mel
    b = sml_bounds(mech)
    assert b["lower"] <= v <= b["upper"]
    # sup over priors of ML is MEL: the full-support prior attains it
    assert ml_exp(mech, [F(1, len(rows))] * len(rows)) == mel


@settings(max_examples=150)
@given(mechanisms(), st.data())
def test_prior_leakage_at_most_sml_with_equality_at_uniform_selection(case, data):
    """C1: exp L(P_Θ) <= exp SML for every prior; equality at the uniform prior on a maximising selection."""
    rows, secrets = case
    mech = FiniteMechanism.from_rows(rows, secrets)
    w = data.draw(st.lists(st.integers(0, 5), min_size=len(rows), max_size=len(rows)))
    if sum(w) == 0:
        w[0] = 1
    prior = [F(x, sum(w)) for x in w]
    res = sml(mech)
    assert leakage_exp_at_prior(mech, prior) <= res.exp_value
    chosen = set(res.selection.values())
    uni = [F(1, len(chosen)) if lab in chosen else F(0) for lab in mech.inputs]
    assert leakage_exp_at_prior(mech, uni) == res.exp_value


def test_identity_mechanism_with_one_secret_has_zero_sml_but_full_mel():
    """Property IV.1 remark : sup ML = log min(|Θ'|, |Θ|) while SML = 0."""
    mech = FiniteMechanism.from_rows([[1, 0, 0], [0, 1, 0], [0, 0, 1]], ["g"] * 3)
    assert sml(mech).exp_value == 1
    assert mel_exp(mech) == 3


def test_node_limit_never_guesses():
    rows = [[F(1, 3)] * 3, [F(1, 2), F(1, 2), 0], [0, F(1, 2), F(1, 2)], [F(1, 2), 0, F(1, 2)]]
    mech = FiniteMechanism.from_rows(rows, [0, 0, 1, 1])
    with pytest.raises(InvalidParameter, match="node_limit"):
        sml(mech, node_limit=0)


def test_log_enclosures_in_nats_and_bits():
    mpmath.mp.dps = 50
    enc = log_enclosure(F(5, 4))
    ref = F(mpmath.nstr(mpmath.log(mpmath.mpf(5) / 4), 45))
    assert enc.lo - F(1, 10**40) <= ref <= enc.hi + F(1, 10**40)
    assert enc.rel_width() <= 1e-30
    assert log_enclosure(F(8), "bits").lo == 3 and log_enclosure(F(8), "bits").hi == 3
    assert log_enclosure(1).hi == 0
    bits = log_enclosure(F(48843), "bits")
    assert abs(bits.lo - F("15.57586419478470952")) < F(1, 10**17)  # log2 48843 independently computed
    with pytest.raises(InvalidParameter):
        log_enclosure(F(1, 2))


@pytest.mark.parametrize(
    ("rows", "secrets", "name"),
    [
        ([[F(1, 2), F(1, 3)]], [0], "row[0] (0)"),
        ([[1, 0], [F(-1, 2), F(3, 2)]], [0, 1], "row[1] (1)[0]"),
        ([[1, 0], [1]], [0, 1], "row[1] (1)"),
        ([[1, 0]], [0, 1], "secrets"),
    ],
)
def test_bad_matrices_name_the_row(rows, secrets, name):
    with pytest.raises(InvalidParameter) as err:
        FiniteMechanism.from_rows(rows, secrets)
    assert err.value.name == name


def test_decimal_strings_are_exact():
    mech = FiniteMechanism.from_rows([["0.1", "0.9"], ["0.7", "0.3"]], ["a", "b"])
    assert sml(mech).exp_value == F(16, 10)
