"""The corners of one (ε, Δ)-DP binary mechanism's feasible region and the multisets of corners 𝒫.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

A mechanism's pair (p, p') = (Pr[M(D) = 1], Pr[M(D') = 1]) ranges over the polygon F
(docs/derivations/darrm.md#feasible-region)

    p <= x p' + Δ,   p' <= x p + Δ,   1 − p <= x(1 − p') + Δ,   1 − p' <= x(1 − p) + Δ,   0 <= p, p' <= 1

with x = e^ε. Every corner coordinate is (c0 + c1 x)/(x + 1) with rational c0, c1, so a corner is stored as two
such pairs. F has 8 corners when Δ > 0 and 4 when Δ = 0 (Lemma 5.1; the paper's "δ > 0" means Δ > 0,
docs/derivations/darrm.md#feasible-region).
The corners are derived here from the constraints (each is the meet of two tight constraints; tests check that
they are vertices), not copied from the authors' code, which lists ((1−Δ)/(1+e^{−ε}), …) for the sixth corner
(PEERS.md).

Because f is affine in each pair (p_i, p'_i) and invariant under permuting the pairs jointly, the maximum of f
over F^K is attained on a multiset of K corners (Lemma 5.1, with one joint permutation;
docs/derivations/darrm.md#corner-reduction): the set 𝒫 of
count vectors n = (n_0..n_{c−1}), Σ n_j = K, of size C(K + c − 1, c − 1).

References:
    DaRRM (Jiang–Zhang–Joshi [JZJ24]), Lemma 5.1 and App. C.3.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from math import comb

__all__ = ["Corner", "corners", "n_multisets", "compositions", "corner_label"]

#: A coordinate (c0 + c1 x)/(x + 1) as (c0, c1); a corner as (p, p').
Coord = tuple[Fraction, Fraction]
Corner = tuple[Coord, Coord]


def corners(Delta: Fraction) -> tuple[Corner, ...]:
    """The corners of F, in order around the polygon (4 for Δ = 0, 8 for Δ > 0).

    For Δ > 0: (0,0), (Δ,0), ((x+Δ)/(x+1), (1−Δ)/(x+1)), (1,1−Δ), (1,1), (1−Δ,1), ((1−Δ)/(x+1), (x+Δ)/(x+1)),
    (0,Δ). For Δ = 0: (0,0), (1,1), (x/(x+1), 1/(x+1)), (1/(x+1), x/(x+1)).

    References:
        Lemma 5.1 [JZJ24]; docs/derivations/darrm.md#feasible-region.
    """
    D = Fraction(Delta)
    z, o = Fraction(0), Fraction(1)
    zero: Coord = (z, z)
    one: Coord = (o, o)
    if D == 0:
        return (
            (zero, zero),
            (one, one),
            ((z, o), (o, z)),
            ((o, z), (z, o)),
        )
    return (
        (zero, zero),
        ((D, D), zero),
        ((D, o), (1 - D, z)),
        (one, (1 - D, 1 - D)),
        (one, one),
        ((1 - D, 1 - D), one),
        ((1 - D, z), (D, o)),
        (zero, (D, D)),
    )


def corner_label(Delta: Fraction, j: int) -> str:
    """A readable name of corner j (``"(x/(x+1), 1/(x+1))"`` style)."""
    D = Fraction(Delta)
    names0 = ["(0,0)", "(1,1)", "(x/(x+1), 1/(x+1))", "(1/(x+1), x/(x+1))"]
    names = [
        "(0,0)",
        f"({D},0)",
        f"((x+{D})/(x+1), (1-{D})/(x+1))",
        f"(1,1-{D})",
        "(1,1)",
        f"(1-{D},1)",
        f"((1-{D})/(x+1), (x+{D})/(x+1))",
        f"(0,{D})",
    ]
    return (names0 if D == 0 else names)[j]


def n_multisets(K: int, c: int) -> int:
    """|𝒫| = C(K + c − 1, c − 1): C(K+3, 3) for 4 corners, C(K+7, 7) for 8."""
    return comb(K + c - 1, c - 1)


def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """All (n_0..n_{parts−1}) >= 0 with sum ``total``, in reverse-lexicographic order of n_0 first."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


@lru_cache(maxsize=512)
def composition_array(total: int, parts: int):
    """:func:`compositions` as an int64 numpy array (rows in the same order), built block by block from the
    cached arrays of one part fewer (no Python loop per row: the DaRRM kernel's level tables at K = 41 need 149,000
    rows)."""
    import numpy as np

    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    blocks = []
    for first in range(total, -1, -1):
        rest = composition_array(total - first, parts - 1)
        block = np.empty((len(rest), parts), dtype=np.int64)
        block[:, 0] = first
        block[:, 1:] = rest
        blocks.append(block)
    return np.concatenate(blocks)
