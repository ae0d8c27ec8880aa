"""E(DaRRM_γ): independent reference values, brute force over outcomes, Lemma B.11 ordering."""

from fractions import Fraction
from itertools import product

import pytest

from dpcert.darrm import QUANTITIES
from dpcert.darrm.gamma import gamma_dsub, gamma_sub
from dpcert.darrm.utility import error, error_iid, mismatch, poisson_binomial
from dpcert.errors import InvalidParameter


@pytest.mark.parametrize(
    "gamma, m, want",
    [
        ("sub", 1, "0.21567"),
        ("sub", 3, "0.12192"),
        ("sub", 5, "0.06919"),
        ("dsub", 3, "0.06919"),
        ("dsub", 5, "0.01460"),
    ],
)
def test_notes_section_10_errors_at_p_075(gamma, m, want):
    q = QUANTITIES["darrm.error"]
    enc = q.enclose(gamma=gamma, K=11, m=m, mu="0.75")
    assert abs(enc.lo - Fraction(want)) < Fraction(1, 100000)
    assert abs(q.evaluate_float(gamma=gamma, K=11, m=m, mu="0.75") - float(enc.lo)) < 1e-14


def test_error_equals_brute_force_over_outcomes():
    ps = [Fraction(1, 2), Fraction(3, 5), Fraction(9, 10), Fraction(1, 5), Fraction(2, 3)]
    g = gamma_sub(5, 2)
    out1 = Fraction(0)
    maj1 = Fraction(0)
    wrong = Fraction(0)
    for s in product((0, 1), repeat=5):
        w = Fraction(1)
        for si, p in zip(s, ps, strict=True):
            w *= p if si else 1 - p
        L = sum(s)
        gl = g.table[L]
        out1 += w * (gl * (L >= 3) + (1 - gl) / 2)
        maj1 += w * (L >= 3)
        wrong += w * (1 - gl) / 2
    assert error(g, ps) == abs(out1 - maj1)
    assert mismatch(g, ps) == wrong
    assert sum(poisson_binomial(ps)) == 1


def test_lemma_b11_larger_gamma_smaller_error_iid():
    for p in (Fraction(1, 10), Fraction(1, 2), Fraction(3, 4), Fraction(99, 100)):
        for m in (1, 2, 3, 4, 5):
            assert error_iid(gamma_dsub(11, m), p) <= error_iid(gamma_sub(11, m), p)
    with pytest.raises(InvalidParameter):
        error(gamma_sub(5, 1), [Fraction(1, 2)] * 4)


def test_surrogate_is_error_minus_a_gamma_free_term():
    """Eq. 199: for μ >= 1/2, E(DaRRM_γ) = A − B with A independent of γ and −B the surrogate (Eq. 201)."""
    from dpcert.darrm.gamma import gamma_one
    from dpcert.darrm.utility import PRIOR_MEANS, surrogate

    for mu in PRIOR_MEANS.values():
        A = error_iid(gamma_one(11), mu) - surrogate(gamma_one(11), mu)
        # gamma = 1 has error 0, so A = -surrogate(1) = (1/2) sum_{l>H} (Bin(l) - Bin(K-l))
        assert error_iid(gamma_one(11), mu) == 0
        for m in (1, 3, 5):
            for g in (gamma_sub(11, m), gamma_dsub(11, m)):
                assert error_iid(g, mu) == A + surrogate(g, mu)
