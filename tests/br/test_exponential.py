"""Sensitivity, range and the counting-query mechanism (Dong–Durfee–Rogers §2.1, Definition 4.2, Lemma 4.4)."""

import math

import pytest

from dpcert.br.exponential import counting_query_loss_check, is_monotone, score_range, sensitivity


def test_example1_by_hand():
    # u = x + y, u' = 11x + y on X = Y = {0, 1} (the paper's Example 1): Δu = 1, Δu' = 11, both ranges 0
    u = [[0, 1], [1, 2]]
    u2 = [[0, 1], [11, 12]]
    assert (sensitivity(u, [(0, 1)]), sensitivity(u2, [(0, 1)])) == (1, 11)
    assert score_range(u, [(0, 1)]) == score_range(u2, [(0, 1)]) == 0
    assert is_monotone(u, [(0, 1)])


def test_range_by_hand():
    # differences u(0, y) − u(1, y) = (3, −1, 0): range 3 − (−1) = 4 = 2 Δu with Δu = 3, not monotone
    u = [[3, 0, 5], [0, 1, 5]]
    assert score_range(u, [(0, 1)]) == 4 and sensitivity(u, [(0, 1)]) == 3 and not is_monotone(u, [(0, 1)])


@pytest.mark.parametrize(
    ("table", "row"),
    [([[0, 1, 1], [1, 0, 1]], (1, 0, 1)), ([[1, 1]], (0, 1)), ([], (1, 1, 0, 0)), ([[0, 0, 1]], (0, 0, 0))],
)
def test_counting_query_against_float_probabilities(table, row):
    # independent: the mechanism's probabilities in float at several ε, log-ratios computed directly
    res = counting_query_loss_check(table, row)
    for eps in (0.3, 1.0, 2.5):
        d = len(row)
        u = [sum(r[j] for r in table) for j in range(d)]
        up = [u[j] + row[j] for j in range(d)]
        z, zp = sum(math.exp(eps * v) for v in u), sum(math.exp(eps * v) for v in up)
        logs = {round(eps * u[j] - math.log(z) - eps * up[j] + math.log(zp), 12) for j in range(d)}
        assert len(logs) == res.values
        assert 0 <= max(logs) <= eps + 1e-12 and min(logs) >= -eps - 1e-12
        if len(logs) == 2:
            assert max(logs) - min(logs) == pytest.approx(eps, abs=1e-12)
    assert res.gap_is_eps and res.t_in_range
