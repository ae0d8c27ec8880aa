"""RR and QM over histograms: closed forms (Theorem V.4, corrected) against brute force on every small instance."""

import math
from fractions import Fraction as F

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import sml, sml_inf_exp
from dpcert.sml.tabular import (
    ADULT_D,
    ADULT_TAU,
    compositions,
    distortion_brute_force,
    figure5_points,
    num_histograms,
    qm_beats_rr,
    qm_beats_rr_rule,
    qm_distortion,
    qm_distortion_printed,
    qm_mechanism,
    qm_sml_exp,
    qm_valid,
    rr_distortion,
    rr_distortion_at_sml_exp,
    rr_E_for_sml_exp,
    rr_mechanism,
    rr_sml_exp,
    rr_sml_inf_exp,
)

SMALL = [(tau, d) for tau in range(1, 5) for d in range(2, 5) if math.comb(tau + d - 1, d - 1) <= 35]


def valid_intervals(tau):
    return [i for i in range(1, tau + 2) if qm_valid(tau + 1, i)]


def test_compositions_count_is_the_binomial():
    for tau, d in SMALL:
        hs = list(compositions(tau, d))
        assert len(hs) == len(set(hs)) == num_histograms(tau, d)
        assert all(sum(h) == tau and min(h) >= 0 for h in hs)


@pytest.mark.parametrize(("tau", "d"), SMALL)
def test_qm_closed_forms_match_brute_force_on_all_small_instances(tau, d):
    for interval in valid_intervals(tau):
        hs, mech = qm_mechanism(tau, d, interval)
        assert sml(mech).exp_value == qm_sml_exp(tau, d, interval) == -(-(tau + 1) // interval)
        exact = distortion_brute_force(hs, mech, tau)
        assert exact == qm_distortion(tau, d, interval)
        # the printed Theorem V.4 form agrees exactly when d = 2 or floor(I/2) = tau, and is wrong otherwise
        agrees = qm_distortion_printed(tau, d, interval) == exact
        assert agrees == (d == 2 or interval // 2 == tau)


@pytest.mark.parametrize(("tau", "d"), SMALL)
@pytest.mark.parametrize("e", [F(1), F(2), F(7, 3), F(10)])
def test_rr_closed_forms_match_brute_force(tau, d, e):
    hs, mech = rr_mechanism(tau, d, e)
    assert sml(mech).exp_value == rr_sml_exp(tau, d, e)
    assert distortion_brute_force(hs, mech, tau) == rr_distortion(tau, d, e)
    if tau <= 2:  # enumeration of the min-sum selection (Appendix K)
        assert sml_inf_exp(mech) == rr_sml_inf_exp(tau, d, e)


def test_rr_with_another_secret_function():
    """Theorem V.4 RR privacy holds for any secret with s attained values: secret = a_2 instead of a_1."""
    hs, mech = rr_mechanism(3, 3, F(5, 2))
    from dpcert.sml.mechanism import FiniteMechanism

    other = FiniteMechanism.from_rows(mech.rows, [h[1] for h in hs], inputs=mech.inputs, outputs=mech.outputs)
    n, s, e = len(hs), 4, F(5, 2)
    assert sml(other).exp_value == (n + s * (e - 1)) / (n + e - 1)


def test_notes_c3_c4_c5_values():
    assert rr_sml_exp(4, 3, 2) == F(5, 4) and rr_distortion(4, 3, 2) == F(5, 8)
    assert rr_sml_inf_exp(4, 3, 2) == F(16, 15)
    assert [qm_sml_exp(4, 3, i) for i in (1, 3, 5)] == [5, 2, 1]
    assert (qm_distortion(4, 3, 3), qm_distortion_printed(4, 3, 3)) == (F(5, 8), F(7, 16))
    assert (qm_distortion(1, 3, 1), qm_distortion_printed(1, 3, 1)) == (F(1, 2), F(1, 4))
    assert (qm_distortion(3, 4, 2), qm_distortion_printed(3, 4, 2)) == (F(7, 9), F(5, 9))


@pytest.mark.parametrize("interval", [2, 4])
def test_qm_validity_rule_rejects_with_the_parameter_named(interval):
    with pytest.raises(InvalidParameter) as err:
        qm_sml_exp(4, 3, interval)
    assert err.value.name == "I" and "validity rule" in str(err.value)


@pytest.mark.parametrize(
    ("tau", "d", "interval", "name"), [(0, 3, 1, "tau"), (4, 1, 1, "d"), (4, 3, 0, "I"), (4, 3, 6, "I")]
)
def test_qm_out_of_range(tau, d, interval, name):
    with pytest.raises(InvalidParameter) as err:
        qm_distortion(tau, d, interval)
    assert err.value.name == name


@settings(max_examples=200)
@given(st.integers(1, 3000), st.integers(1, 3001))
def test_validity_rule_is_every_median_at_most_s(tau, interval):
    s = tau + 1
    interval = min(interval, s)
    medians = [(2 * k + 1) * interval // 2 + 1 for k in range(-(-s // interval))]
    assert qm_valid(s, interval) == all(r <= s for r in medians)


@settings(max_examples=300)
@given(st.integers(1, 2000), st.integers(2, 300), st.integers(1, 2001))
def test_comparison_rule_equals_exact_comparison(tau, d, interval):
    interval = min(interval, tau + 1)
    if not qm_valid(tau + 1, interval) or interval == 1:
        return
    assert qm_beats_rr(tau, d, interval) == qm_beats_rr_rule(tau, d, interval)


def test_comparison_rule_algebra_symbolically():
    d, t, h, s, b = sympy.symbols("d tau h s B", positive=True)
    qm = 1 - (t - h) / (t * (d - 1))
    rr = (d - 1) * (s - b) / (d * (s - 1))
    lhs = sympy.expand((rr - qm) * d * (d - 1))
    rule = 1 - d * h / t - (d - 1) ** 2 * (b - 1) / (s - 1)
    assert sympy.simplify(lhs - rule) == 0


def test_rr_inverse_gives_the_target_level():
    for b in (1, 2, F(7, 2), 6):
        e = rr_E_for_sml_exp(6, 3, b)
        assert rr_sml_exp(6, 3, e) == b
        assert rr_distortion(6, 3, e) == rr_distortion_at_sml_exp(6, 3, b)


def test_figure5_at_adult_every_point_rr_beats_exact_qm_but_not_printed_qm():
    pts = figure5_points(ADULT_TAU, ADULT_D)
    assert len(pts) == 18_851  # all valid I except I = 1 (exp SML = s is out of RR's reach)
    assert all(p.rr <= p.qm_exact for p in pts)
    assert all(p.rr >= p.qm_printed for p in pts)
    first = {p.interval: p for p in pts}
    assert first[48843].qm_printed == F(67139, 89520) and first[48843].qm_exact == F(44759, 44760)
    assert first[48843].rr == F(22380, 22381)
    i3 = first[3]
    assert i3.rr == F(364368780, 546566401) and i3.qm_exact == F(1093035119, 1093083960)


def test_d2_statement_holds():
    for tau in (10, 100, 1000):
        for interval in range(2, tau + 2):
            if qm_valid(tau + 1, interval) and -(-(tau + 1) // interval) < tau + 1:
                assert qm_beats_rr(tau, 2, interval)


def test_notes_counts_at_tau_1e5():
    """At tau = 1e5, QM loses to RR for 4 of 38,620 valid I (d = 3), 16,671 (d = 4), all (d = 100)."""
    tau = 10**5
    valid = [i for i in range(2, tau + 2) if qm_valid(tau + 1, i)]
    assert len(valid) == 38_620
    losses = {d: sum(1 for i in valid if not qm_beats_rr_rule(tau, d, i)) for d in (3, 4, 100)}
    assert losses == {3: 4, 4: 16_671, 100: 38_620}
    # the four d = 3 losses, by exact comparison of the two distortions
    assert [i for i in valid if not qm_beats_rr(tau, 3, i)] == [i for i in valid if not qm_beats_rr_rule(tau, 3, i)]
