"""The kernel's level-table indexing (vectorised) against brute force: the composition order of
:func:`~dpcert.darrm.corners.compositions` and each composition's parent found by a dictionary lookup."""

from __future__ import annotations

import numpy as np

from dpcert.darrm.corners import composition_array, compositions
from dpcert.darrm.kernel import _parents, group_levels


def test_composition_array_is_the_generator_in_order() -> None:
    for parts in (1, 2, 3, 4, 5):
        for total in range(0, 16):
            assert composition_array(total, parts).tolist() == [list(c) for c in compositions(total, parts)]


def test_parents_match_a_dictionary_lookup() -> None:
    for parts in (1, 2, 3, 4):
        for total in range(1, 16):
            prev = {c: i for i, c in enumerate(compositions(total - 1, parts))}
            idx, js = _parents(total, parts)
            for r, v in enumerate(compositions(total, parts)):
                j = max(k for k in range(parts) if v[k] > 0)
                u = list(v)
                u[j] -= 1
                assert (int(idx[r]), int(js[r])) == (prev[tuple(u)], j)


def test_group_levels_are_poisson_binomial_pmfs() -> None:
    # level s, row v: the convolution of Bin(v_j, p_j) over the corners, computed here by plain convolution
    from math import comb

    coords = [(0.3, 0.7), (0.55, 0.45), (0.1, 0.9)]
    lv = group_levels(coords, 6)
    for s in range(7):
        for r, v in enumerate(compositions(s, 3)):
            pmf = np.ones(1)
            for (p, q), n in zip(coords, v, strict=True):
                pmf = np.convolve(pmf, [comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)])
            assert np.allclose(lv[s][r], pmf, rtol=1e-12, atol=1e-15)


def test_group_levels_bitwise_equal_to_the_plain_bernoulli_steps() -> None:
    # the rounding analysis of the kernel counts P·q + shift(P)·p per level: the tables must be those exact doubles
    coords = [(0.3, 0.7), (0.55, 0.45), (0.1, 0.9), (0.8, 0.2)]
    lv = group_levels(coords, 9)
    ref = {(0, 0, 0, 0): np.ones(1)}
    for s in range(1, 10):
        for v in compositions(s, 4):
            j = max(k for k in range(4) if v[k] > 0)
            u = list(v)
            u[j] -= 1
            par = ref[tuple(u)]
            out = np.zeros(s + 1)
            out[:s] = par * coords[j][1]
            out[1:] += par * coords[j][0]
            ref[v] = out
        assert np.array_equal(lv[s], np.array([ref[v] for v in compositions(s, 4)]))


def test_next_down_up_equal_numpy_nextafter() -> None:
    from dpcert.darrm.kernel import next_down, next_up

    tiny, big = np.finfo(float).smallest_subnormal, np.finfo(float).max
    normal = np.finfo(float).smallest_normal
    edge = [0.0, -0.0, tiny, -tiny, 2 * tiny, big, -big, normal, -normal, 1.0, -1.0, 0.1, -1e300]
    rng = np.random.default_rng(7)
    drawn = rng.standard_normal(20_000) * 10.0 ** rng.integers(-320, 300, 20_000)
    for x in (np.array(edge), drawn):
        for fn, toward in ((next_down, -np.inf), (next_up, np.inf)):
            with np.errstate(over="ignore"):
                want = np.nextafter(x, toward)
            assert np.array_equal(fn(x.copy()).view(np.int64), want.view(np.int64))


def test_levels_in_threads_are_the_same_doubles() -> None:
    from fractions import Fraction

    from dpcert.darrm.kernel import FloatSetting

    def tables(threads: int) -> list[np.ndarray]:
        fs = FloatSetting((Fraction(0),) * 5 + (Fraction(1, 3),) * 4, 8, Fraction(3), Fraction(1, 10),
                          Fraction(1, 1000), Fraction(1, 100))  # fmt: skip
        return [t for side in fs.levels(threads=threads) for grp in side for t in grp]

    one, two = tables(1), tables(2)
    assert len(one) == len(two) == 4 * 9
    assert all(np.array_equal(x, y) for x, y in zip(one, two, strict=True))
