"""Vectorised float64 margins over blocks of corner multisets, with a proved rounding-error bound.

Write w(l) = s(l) γ(l) with s(l) = −1 for l <= H and +1 for l >= H + 1 (H = (K−1)/2). For a count vector n over
the corners, α = ⊛_j Bin(n_j, p_j) and α' = ⊛_j Bin(n_j, p'_j) (PoissonBinomial pmfs), and

    margin(n) = φ(α) − e^{mε} φ(α') − (e^{mε} − 1 + 2δ),      φ(α) = Σ_l w(l) α_l         (Lemma 3.4, Eq. 1).

**Meet in the middle.** Split the corners into two groups A and B of g <= 4 corners. A count vector is a pair
(n_A, n_B) with |n_A| = a and |n_B| = K − a; its pmf is P_A ⊛ P_B, so φ = P_A^T W_a P_B with the Hankel matrix
W_a[i, j] = w(i + j). For one a, all C(a+g−1, g−1) · C(K−a+g−1, g−1) margins are one matrix product
``P_A @ (W_a @ P_B^T)``: every multiset with a corners in group A is a *chunk* of the enumeration, and the group
pmfs are built once per chunk by row-wise convolution (shared prefixes), never per multiset.

**Error bound (proof).** Standard model, unit roundoff u = 2^−53, γ_k = k u / (1 − k u) (Higham, *Accuracy and
Stability of Numerical Algorithms*, §3.1, Lemma 3.3: (1+θ_j)(1+θ_k) = 1+θ_{j+k}; a sum of n terms in any
order, with or without fused multiply-add, is the exact sum of the terms times factors 1+θ_{n−1}). Every quantity
below is a sum of products of non-negative numbers except the final dot products with w, so each carries a
componentwise relative error θ_k whose *depth* k we count:

* corner coordinates p̂, q̂ = 1 − p (computed exactly in ball arithmetic, then rounded once): depth <= 3;
* Bin(n, p̂)(k) = C(n,k) · p̂^k · q̂^{n−k} with the powers by repeated multiplication: depth <= 3k + (k − 1) +
  3(n−k) + (n−k−1) + 1 + 2 <= 4n + 3;
* the group pmf (g−1 row convolutions, each entry a sum of at most a + 1 products): depth
  <= Σ_j (4 n_j + 3) + (g−1)(a + 2) <= 4a + 3g + (g−1)(a + 2);
* φ = P_A^T (W P_B) (two dot products of lengths K−a+1 and a+1; w(l) = ±γ̂(l) with γ̂ = fl(γ), depth 1): the
  computed φ̂ satisfies |φ̂ − φ| <= γ_N Σ_{i,j} P_A[i] |w(i+j)| P_B[j] = γ_N Σ_l |w(l)| α_l <= γ_N, because
  |w| <= 1 and Σ α_l = 1, with N = 4K + 6g + (g−1)(K + 4) + (K + 2) + 1 <= 8K + 40 for g <= 4;
* X̂ = fl(e^{mε}) and b̂ = fl(e^{mε} − 1 + 2δ) (from balls, depth 3 each), one product and two subtractions.

Hence |margin̂ − margin| <= γ_{N+10} (1 + X + b) (+ 2^−700 (1 + X) for gradual underflow: each underflowing
operation errs by at most 2^−1075 absolutely and is amplified by at most C(K, ·) <= 2^K times a count of at most
2^40 operations, far below 2^−700 for K <= 201). :func:`error_bound` returns twice that, and the certifier
decides a row by float only when |margin̂| exceeds it. Overflow cannot occur: all pmf values are <= 1 and
e^{mε} is capped.

References:
    DaRRM (Jiang–Zhang–Joshi), Lemma 3.4 (Eq. 1) and Lemma 5.1; Higham (2002), Ch. 3.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np
from flint import arb

from dpcert.arith.ball import ball, workprec
from dpcert.darrm.corners import composition_array, corners
from dpcert.errors import InvalidParameter

__all__ = ["FloatSetting", "error_bound", "block_margins", "groups", "MAX_K", "MAX_M_EPS"]

#: Largest K the float kernel's underflow argument covers.
MAX_K = 201
#: Largest m·ε (e^{mε} must stay far from overflow).
MAX_M_EPS = 700
U = 2.0**-53


def groups(c: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The meet-in-the-middle split of c corners (4 -> {0,1}|{2,3}, 8 -> {0..3}|{4..7})."""
    h = c // 2
    return tuple(range(h)), tuple(range(h, c))


def _to_double(a: arb) -> float:
    return float(a.mid())


class FloatSetting:
    """Everything the float kernel needs for one (γ, K, m, ε, Δ, δ), computed once.

    Attributes:
        K, c: number of mechanisms and of corners.
        w: the signed γ weights (float64, length K + 1).
        tables_p, tables_pp: per corner, the (K+1) x (K+1) array of Bin(n, p_j)(k) (resp. p'_j) padded with zeros.
        X, b: e^{mε} and e^{mε} − 1 + 2δ as doubles.
        bound: the proved bound on |margin̂ − margin| (see module docstring).
    """

    def __init__(
        self,
        gamma_values: tuple[Fraction, ...] | tuple[arb, ...],
        K: int,
        m: Fraction,
        eps: Fraction,
        Delta: Fraction,
        delta: Fraction,
    ) -> None:
        if K > MAX_K:
            raise InvalidParameter("K", K, f"an odd integer <= {MAX_K} (float kernel's error analysis)")
        if m * eps > MAX_M_EPS:
            raise InvalidParameter("m*eps", m * eps, f"at most {MAX_M_EPS}")
        self.K = K
        H = (K - 1) // 2
        cs = corners(Delta)
        self.c = len(cs)
        with workprec(160):
            x = ball(eps).exp()
            Xb = (ball(m) * ball(eps)).exp()
            bb = Xb - 1 + 2 * ball(delta)
            self.X = _to_double(Xb)
            self.b = _to_double(bb)
            g = [gv if isinstance(gv, arb) else ball(gv) for gv in gamma_values]
            self.w = np.array([(-1.0 if l <= H else 1.0) * _to_double(g[l]) for l in range(K + 1)])
            coords = []
            for pc, ppc in cs:
                pair = []
                for c0, c1 in (pc, ppc):
                    num = ball(c0) + ball(c1) * x
                    p = num / (x + 1)
                    q = (ball(1 - c0) + ball(1 - c1) * x) / (x + 1)
                    pair.append((_to_double(p), _to_double(q)))
                coords.append(pair)
        combs = np.array([[float(comb(n, k)) for k in range(K + 1)] for n in range(K + 1)])
        self.tables_p = [_bin_table(combs, coords[j][0], K) for j in range(self.c)]
        self.tables_pp = [_bin_table(combs, coords[j][1], K) for j in range(self.c)]
        self.groups = groups(self.c)
        self.bound = error_bound(K, self.X, self.b)


def _bin_table(combs: np.ndarray, pq: tuple[float, float], K: int) -> np.ndarray:
    """T[n, k] = C(n,k) p^k q^(n−k) (zero for k > n), powers by repeated multiplication."""
    p, q = pq
    pw = np.ones(K + 1)
    qw = np.ones(K + 1)
    for k in range(1, K + 1):
        pw[k] = pw[k - 1] * p
        qw[k] = qw[k - 1] * q
    T = np.zeros((K + 1, K + 1))
    for n in range(K + 1):
        k = np.arange(n + 1)
        T[n, : n + 1] = combs[n, : n + 1] * (pw[k] * qw[n - k])
    return T


def error_bound(K: int, X: float, b: float) -> float:
    """Twice the proved bound γ_{N+10}(1 + X + b) + 2^−700(1 + X), N = 8K + 40, rounded up generously."""
    n = 8 * K + 56
    gam = n * U / (1 - n * U)
    Xu, bu = X * (1 + 8 * U), abs(b) * (1 + 8 * U)
    return 2.0 * gam * (1.0 + Xu + bu) * (1 + 1e-9) + 2.0**-700 * (1 + Xu)


def _conv_rows(Uarr: np.ndarray, V: np.ndarray, L: int) -> np.ndarray:
    """Row-wise convolution of two (n, L) pmf arrays truncated to length L (sequential sums)."""
    out = np.zeros_like(Uarr)
    for i in range(L):
        ui = Uarr[:, i : i + 1]
        if not ui.any():
            continue
        out[:, i:] += ui * V[:, : L - i]
    return out


def group_pmfs(tables: list[np.ndarray], members: tuple[int, ...], vecs: np.ndarray, L: int) -> np.ndarray:
    """The pmfs (n, L) of the group's PoissonBinomial for each row of ``vecs`` (counts of ``members``)."""
    P = tables[members[0]][vecs[:, 0], :L]
    for col in range(1, len(members)):
        P = _conv_rows(P, tables[members[col]][vecs[:, col], :L], L)
    return P


@lru_cache(maxsize=4)
def _hankel_index(a: int, K: int) -> np.ndarray:
    return np.arange(a + 1)[:, None] + np.arange(K - a + 1)[None, :]


def block_margins(fs: FloatSetting, a: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float margins of every multiset with a corners in group A.

    Returns:
        (vecA, vecB, M): the count vectors of the two groups and the (len(vecA), len(vecB)) margin matrix;
        row i, column j is the multiset (vecA[i], vecB[j]).
    """
    K = fs.K
    ga, gb = fs.groups
    vA = composition_array(a, len(ga))
    vB = composition_array(K - a, len(gb))
    W = fs.w[_hankel_index(a, K)]
    PA = group_pmfs(fs.tables_p, ga, vA, a + 1)
    PB = group_pmfs(fs.tables_p, gb, vB, K - a + 1)
    phi = PA @ (W @ PB.T)
    PA = group_pmfs(fs.tables_pp, ga, vA, a + 1)
    PB = group_pmfs(fs.tables_pp, gb, vB, K - a + 1)
    phi2 = PA @ (W @ PB.T)
    M = phi - fs.X * phi2
    M -= fs.b
    return vA, vB, M
