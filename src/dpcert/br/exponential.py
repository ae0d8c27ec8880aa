"""The exponential mechanism's parameters: sensitivity, range (Proposition 1) and the counting-query mechanism.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

For a quality score u on a finite data domain with a neighbour relation and finite outputs (§2.1 of
Dong–Durfee–Rogers [DDR20])::

    Δu = max_{x∼x'} max_y |u(x, y) − u(x', y)|                      (sensitivity)
    Δ̃u = max_{x∼x'} { max_y (u(x, y) − u(x', y)) − min_y (u(x, y) − u(x', y)) }      (range)

Sampling y ∝ exp(ε u(x, y)/Δ̃u) is ε-BR (Proposition 2). The counting-query mechanism M_CQ of Definition 4.2 samples
a column j ∝ exp(ε u(x, j)), u(x, j) the column sum of a 0/1 table; Lemma 4.4 says its privacy loss takes the two
values t and t − ε with t ∈ [0, ε]. With x = e^ε its probabilities are rational functions of x, so the lemma is
checked for every ε > 0 at once by exact polynomial arithmetic (:func:`counting_query_loss_check`).

References:
    J. Dong, D. Durfee, R. Rogers, ICML 2020 (arXiv 1909.13830): Example 1, Proposition 1, Definition 4.2,
    Lemma 4.4 [DDR20].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["sensitivity", "score_range", "is_monotone", "CountingQueryCheck", "counting_query_loss_check"]

Table = Sequence[Sequence[int]]


def _differences(u: Table, pairs: Sequence[tuple[int, int]]) -> list[list[int]]:
    return [[a - b for a, b in zip(u[x], u[xp], strict=True)] for x, xp in pairs]


def sensitivity(u: Table, pairs: Sequence[tuple[int, int]]) -> int:
    """Δu = max over neighbour pairs (x, x') and outputs y of |u(x, y) − u(x', y)| (exact integers).

    Args:
        u: the score table, u[x][y].
        pairs: the neighbour pairs (x, x') (both orders are covered by the absolute value).

    Returns:
        The sensitivity.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Definition 2.3.
    """
    return max(abs(d) for row in _differences(u, pairs) for d in row)


def score_range(u: Table, pairs: Sequence[tuple[int, int]]) -> int:
    """Δ̃u = max over neighbour pairs of max_y (u(x, y) − u(x', y)) − min_y (u(x, y) − u(x', y)) (exact integers).

    The expression is symmetric in x, x', so each unordered pair is needed once.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], §2.1 (definition of the range).
    """
    return max(max(row) - min(row) for row in _differences(u, pairs))


def is_monotone(u: Table, pairs: Sequence[tuple[int, int]]) -> bool:
    """Whether for every neighbour pair the differences u(x, y) − u(x', y) all have one sign (the paper's monotone).

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], §2.1 and Proposition 1.
    """
    return all(min(row) >= 0 or max(row) <= 0 for row in _differences(u, pairs))


@dataclass(frozen=True)
class CountingQueryCheck:
    """What :func:`counting_query_loss_check` proved for one neighbour pair (x, x + row), for every ε > 0.

    Attributes:
        values: how many distinct values the ratio Pr[M(x) = j]/Pr[M(x') = j] takes over j (as functions of ε).
        gap_is_eps: with two values, whether their quotient is exactly e^ε (True when there is one value).
        t_in_range: whether the larger value e^t satisfies 1 <= e^t <= e^ε for all ε > 0 (t ∈ [0, ε]).
    """

    values: int
    gap_is_eps: bool
    t_in_range: bool


def _nonnegative_from_one(expr: object, x: object) -> bool:
    """Whether a polynomial in x is >= 0 for every x >= 1, shown by nonnegative coefficients after x = 1 + z."""
    import sympy as sp

    z = sp.Symbol("z")
    poly = sp.Poly(sp.expand(expr.subs(x, 1 + z)), z)  # type: ignore[attr-defined]
    return all(c >= 0 for c in poly.all_coeffs())


def counting_query_loss_check(table: Table, row: Sequence[int]) -> CountingQueryCheck:
    """Lemma 4.4 for one pair x, x' = x plus ``row``, for every ε > 0 at once (exact rational functions of x = e^ε).

    Pr[M(x) = j] = x^{u_j}/Z with u_j the column sums and Z = Σ_j x^{u_j}. The ratios Pr[M(x) = j]/Pr[M(x') = j]
    are formed and reduced exactly (sympy); the lemma says they take at most two values e^{t} and e^{t − ε},
    with t ∈ [0, ε]. The bounds 1 <= e^t <= x are shown for all x >= 1 from the coefficients of numerator minus
    denominator after x = 1 + z (denominators are sums of powers of x, positive).

    Args:
        table: the 0/1 data x (n rows, d columns).
        row: the added row (d entries in {0, 1}).

    Returns:
        A :class:`CountingQueryCheck`.

    References:
        Dong–Durfee–Rogers ICML 2020, Definition 4.2 and Lemma 4.4 [DDR20] (the mechanism read as exp(ε u),
        docs/derivations/br.md#readings).
    """
    import sympy as sp

    x = sp.Symbol("x", positive=True)
    d = len(row)
    u = [sum(r[j] for r in table) for j in range(d)]
    up = [u[j] + row[j] for j in range(d)]
    z = sum(x ** u[j] for j in range(d))
    zp = sum(x ** up[j] for j in range(d))
    ratios = {sp.cancel((x ** u[j] / z) / (x ** up[j] / zp)) for j in range(d)}
    values = sorted(ratios, key=lambda r: float(r.subs(x, 2)))
    gap = len(values) == 1 or (len(values) == 2 and sp.cancel(values[1] / values[0] - x) == 0)
    num, den = sp.fraction(sp.cancel(values[-1]))
    in_range = _nonnegative_from_one(num - den, x) and _nonnegative_from_one(x * den - num, x)
    return CountingQueryCheck(len(values), gap, in_range)
