"""γ tables: Lemma 3.1 against brute-force subsampling, Theorem 4.1's γ, Lemma A.1, tables from files."""

from fractions import Fraction
from itertools import combinations, product

import pytest

from dpcert.arith.exact import X
from dpcert.darrm.gamma import (
    gamma_const,
    gamma_dsub,
    gamma_max,
    gamma_sub,
    h_sub,
    load_table,
    p_const,
    symmetric_form,
    validate_table,
)
from dpcert.errors import InvalidParameter


def _brute_h(K: int, m: int, l: int) -> Fraction:
    """Pr[majority of m drawn without replacement = 1 | the first l of K votes are 1], fair coin on ties."""
    votes = [1] * l + [0] * (K - l)
    subsets = list(combinations(range(K), m))
    total = Fraction(0)
    for sub in subsets:
        ones = sum(votes[i] for i in sub)
        total += 1 if 2 * ones > m else (Fraction(1, 2) if 2 * ones == m else 0)
    return total / len(subsets)


@pytest.mark.parametrize("K", [1, 3, 5, 7])
def test_lemma_3_1_h_sub_equals_brute_force_subsampling(K):
    for m in range(1, K + 1):
        h = h_sub(K, m)
        for l in range(K + 1):
            assert h[l] == _brute_h(K, m, l)
        g = gamma_sub(K, m).table
        assert all(g[l] == abs(2 * h[l] - 1) for l in range(K + 1))


def test_lemma_3_1_output_law_equals_subsampling_for_independent_mechanisms():
    """DaRRM_γSub and SubMaj output 1 with the same probability for arbitrary (non-identical) p_i."""
    K, ps = 5, [Fraction(1, 3), Fraction(3, 4), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)]
    for m in range(1, K + 1):
        g = gamma_sub(K, m).table
        darrm = Fraction(0)
        sub = Fraction(0)
        for s in product((0, 1), repeat=K):
            w = Fraction(1)
            for si, p in zip(s, ps, strict=True):
                w *= p if si else 1 - p
            L = sum(s)
            maj = 1 if 2 * L > K else 0
            darrm += w * (g[L] * maj + (1 - g[L]) / 2)
            sub += w * _subsample_prob(s, m)
        assert darrm == sub


def _subsample_prob(s, m):
    subsets = list(combinations(range(len(s)), m))
    tot = Fraction(0)
    for sub in subsets:
        ones = sum(s[i] for i in sub)
        tot += 1 if 2 * ones > m else (Fraction(1, 2) if 2 * ones == m else 0)
    return tot / len(subsets)


def test_gamma_sub_properties_and_even_m_equals_odd_m_minus_one():
    for K in (5, 11, 13):
        for m in range(1, K + 1):
            g = gamma_sub(K, m).table
            H = (K - 1) // 2
            assert all(0 <= v <= 1 and v == g[K - l] for l, v in enumerate(g))
            assert all(g[l] >= g[l + 1] for l in range(H))
            assert g[H] > 0
            if m % 2 == 0:
                assert g == gamma_sub(K, m - 1).table


def test_gamma_dsub_is_sub_of_2m_minus_1_and_dominates_sub():
    for K in (5, 11, 21):
        for m in range(1, (K - 1) // 2 + 1):
            d, s = gamma_dsub(K, m).table, gamma_sub(K, m).table
            assert d == gamma_sub(K, 2 * m - 1).table
            assert all(a >= b for a, b in zip(d, s, strict=True))
            assert gamma_max(K, m).table == d
        for m in range((K + 1) // 2, K + 1):
            assert set(gamma_max(K, m).table) == {1}
    with pytest.raises(InvalidParameter, match="gamma=max"):
        gamma_dsub(11, 6)


def test_p_const_values_of_the_notes_and_m_equals_k_gives_one():
    # an independent float computation: pure DP, K = 11, eps = 0.1: p_const(m=1) = 0.09981, m = 3: 0.29746
    import math

    for m, want in ((1, 0.09981), (3, 0.29746), (5, 0.48933)):
        f = p_const(Fraction(m), Fraction(11), Fraction(0), Fraction(0))
        assert abs(float(f(Fraction(math.exp(0.1)))) - want) < 5e-6
    assert p_const(Fraction(11), Fraction(11), Fraction(0), Fraction(0)) == X**0
    g = gamma_const(11, Fraction(11), Fraction(0), eps=Fraction(1, 10))
    assert set(g.table) == {1} and g.eps_free
    with pytest.raises(InvalidParameter, match="tau"):
        p_const(Fraction(5), Fraction(3), Fraction(0), Fraction(0))


def test_symmetric_form_family():
    h = h_sub(7, 3)
    assert symmetric_form(h).table == gamma_sub(7, 3).table
    bad = list(h)
    bad[0] = Fraction(1, 2)
    with pytest.raises(InvalidParameter, match=r"h\[0\]"):
        symmetric_form(bad)


def test_user_tables(tmp_path):
    csv = tmp_path / "g.csv"
    csv.write_text("l,gamma\n0,1\n1,0.5\n2,1/2\n3,1\n")
    g = load_table(csv, 3)
    assert g.table == (1, Fraction(1, 2), Fraction(1, 2), 1)
    js = tmp_path / "g.json"
    js.write_text('[1, 0.25, "1/4", 1]')
    assert load_table(js).table == (1, Fraction(1, 4), Fraction(1, 4), 1)
    (tmp_path / "asym.csv").write_text("l,gamma\n0,1\n1,0.5\n2,0.4\n3,1\n")
    with pytest.raises(InvalidParameter, match="row l=1"):
        load_table(tmp_path / "asym.csv")
    (tmp_path / "big.json").write_text("[1.5, 1]")
    with pytest.raises(InvalidParameter, match="row l=0"):
        load_table(tmp_path / "big.json")
    with pytest.raises(InvalidParameter, match="length"):
        load_table(js, 5)
    (tmp_path / "hdr.csv").write_text("x,y\n0,1\n")
    with pytest.raises(InvalidParameter, match="header"):
        load_table(tmp_path / "hdr.csv")
    with pytest.raises(InvalidParameter, match="row l=2"):
        validate_table(["1", "1", "abc", "1"])
    with pytest.raises(InvalidParameter):
        load_table(tmp_path / "missing.csv")


def test_a_pickled_gamma_hashes_like_an_equal_one_made_where_it_is_loaded(tmp_path):
    """A Gamma sent to another process (a Dask worker) must hash there as that process's equal Gammas do: string
    hashes differ between processes, and the caches keyed on Gammas (the DaRRM float setting) missed on every run
    on a long-lived worker when the sender's remembered hash travelled with it."""
    import os
    import subprocess
    import sys

    blob = tmp_path / "g.pickle"
    make = (
        "import pickle, sys; from dpcert.darrm.gamma import gamma_sub; "
        "g = gamma_sub(7, 3); hash(g); open(sys.argv[1], 'wb').write(pickle.dumps(g))"
    )
    load = (
        "import pickle, sys; from dpcert.darrm.gamma import gamma_sub; "
        "g = pickle.loads(open(sys.argv[1], 'rb').read()); mine = gamma_sub(7, 3); "
        "print(g == mine, hash(g) == hash(mine), {mine: 1}.get(g))"
    )
    for code, seed in ((make, "1"), (load, "2")):  # two processes whose string hashes differ
        p = subprocess.run(
            [sys.executable, "-c", code, str(blob)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
    assert p.stdout.split() == ["True", "True", "1"]
