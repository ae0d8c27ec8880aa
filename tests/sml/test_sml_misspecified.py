"""Misspecified support (docs/derivations/sml.md#misspecified-support): the model's sizes, and the errata's exact
counterexamples."""

import math
from fractions import Fraction as F

import pytest

from dpcert.errors import InvalidParameter
from dpcert.sml import misspecified as mis
from dpcert.sml.mechanism import sml
from dpcert.sml.tabular import distortion_brute_force, qm_mechanism, rr_mechanism, rr_sml_exp


@pytest.mark.parametrize(("tau", "d_star", "d0", "d1"), [(2, 3, 1, 1), (3, 4, 2, 1), (2, 4, 2, 0), (3, 3, 3, 1)])
def test_rr_output_space_size_is_the_binomial_of_the_notes(tau, d_star, d0, d1):
    """N_θ = C(τ + d̂* + β(θ) − 1, d̂* + β(θ) − 1), β(θ) = missed categories in θ's support."""
    spec = mis.Support(tau, d_star, d0, d1)
    ins, outs, mech = mis.mechanism(spec, "rr", big_e=F(2))
    for i, th in enumerate(ins):
        beta = sum(1 for c in range(d0, d_star) if th[c] > 0)
        size = sum(1 for p in mech.rows[i] if p)
        assert size == math.comb(tau + spec.d_hat + beta - 1, spec.d_hat + beta - 1)


def test_correct_support_reduces_to_theorem_v4():
    """d̂₀ = d*, d̂₁ = 0: the misspecified kernels are the §V kernels."""
    spec = mis.Support(3, 3, 3, 0)
    _, _, rr = mis.mechanism(spec, "rr", big_e=F(7, 3))
    assert rr.rows == rr_mechanism(3, 3, F(7, 3))[1].rows
    assert sml(rr).exp_value == rr_sml_exp(3, 3, F(7, 3))
    _, _, qm = mis.mechanism(spec, "qm", interval=4)
    assert qm.rows == qm_mechanism(3, 3, 4)[1].rows


def test_h5_qm_counterexample_of_the_notes():
    spec = mis.Support(3, 3, 1, 1)
    _, _, mech = mis.mechanism(spec, "qm", interval=2)
    assert sml(mech).exp_value == F(8, 3)
    assert mis.qm_lower_h5(spec, 2) == F(20, 7)


def test_hd_qm_counterexample_of_the_notes():
    spec = mis.Support(1, 2, 1, 1)
    ins, outs, mech = mis.mechanism(spec, "qm", interval=1)
    assert distortion_brute_force(ins, mech, 1, outs) == F(1, 2)
    assert mis.qm_distortion_bounds_hd(spec, 1) == (0, F(1, 4))


def test_qm_robust_in_bits_is_tight_somewhere():
    """The 1-robust bound in bits is attained or nearly: the largest exp SML / exp SML* on the grid exceeds 1."""
    worst = F(0)
    for d1 in (0, 1):
        spec = mis.Support(3, 3, 1, d1)
        if spec.d_hat < 2:
            continue
        _, _, mech = mis.mechanism(spec, "qm", interval=4)
        worst = max(worst, sml(mech).exp_value / mis.qm_sml_star_exp(spec, 4))
    assert 1 < worst <= 2**spec.n_miss


@pytest.mark.parametrize(
    ("args", "name"), [((0, 2, 1, 0), "tau"), ((2, 1, 1, 0), "d_star"), ((2, 3, 4, 0), "d0"), ((2, 3, 1, -1), "d1")]
)
def test_bad_settings(args, name):
    with pytest.raises(InvalidParameter) as err:
        mis.Support(*args)
    assert err.value.name == name


def test_qm_undefined_when_only_the_secret_category_is_estimated():
    with pytest.raises(InvalidParameter) as err:
        mis.mechanism(mis.Support(2, 2, 1, 0), "qm", interval=3)
    assert err.value.name == "d1"
