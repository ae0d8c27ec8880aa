"""E(DaRRM_γ) summed in integers over one denominator equals the Fraction-per-term formula it replaced."""

import random
from fractions import Fraction
from math import comb

from dpcert.darrm import utility


def _pmf_by_fractions(ps):
    out = [Fraction(1)]
    for p in ps:
        new = [Fraction(0)] * (len(out) + 1)
        for i, a in enumerate(out):
            new[i] += a * (1 - p)
            new[i + 1] += a * p
        out = new
    return out


def _err_by_fractions(alpha, g):
    K = len(g) - 1
    H = (K - 1) // 2
    return abs(sum(alpha[l] * (1 - g[l]) / 2 * (1 if l <= H else -1) for l in range(K + 1)))


def test_integer_sums_equal_fraction_sums():
    rng = random.Random(18)
    checked = 0
    for K in (1, 3, 5, 11, 21):
        for m in range(1, K + 1, 2):
            for name in ("sub", "dsub", "max", "one"):
                try:
                    gamma = utility._gamma(name, K, Fraction(m))
                except ValueError:  # dsub needs m <= (K - 1)/2
                    continue
                g = utility._table(gamma)
                mu = Fraction(rng.randint(0, 1000), rng.choice([1000, 7, 999]))
                mu = min(mu, Fraction(1))
                alpha = [comb(K, l) * mu**l * (1 - mu) ** (K - l) for l in range(K + 1)]
                assert utility.error_iid(gamma, mu) == _err_by_fractions(alpha, g)
                ps = [Fraction(rng.randint(0, 37), 37) for _ in range(K)]
                assert utility.poisson_binomial(ps) == _pmf_by_fractions(ps)
                assert utility.error(gamma, ps) == _err_by_fractions(_pmf_by_fractions(ps), g)
                checked += 1
    assert checked > 30
