"""Vectorised float64 margins over blocks of corner multisets, with a proved rounding-error bound.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

Write w(l) = s(l) γ(l) with s(l) = −1 for l <= H and +1 for l >= H + 1 (H = (K−1)/2). For a count vector n over
the corners, α = ⊛_j Bin(n_j, p_j) and α' = ⊛_j Bin(n_j, p'_j) (PoissonBinomial pmfs), and

    margin(n) = φ(α) − e^{mε} φ(α') − (e^{mε} − 1 + 2δ),      φ(α) = Σ_l w(l) α_l         (Lemma 3.4, Eq. 1).

**Meet in the middle.** Split the corners into two groups A and B of g <= 4 corners. A count vector is a pair
(n_A, n_B) with |n_A| = a and |n_B| = K − a; its pmf is P_A ⊛ P_B, so φ = P_A^T W_a P_B with the Hankel matrix
W_a[i, j] = w(i + j). For one a, all C(a+g−1, g−1) · C(K−a+g−1, g−1) margins are one matrix product
``P_A @ (W_a @ P_B^T)``: every multiset with a corners in group A is a *chunk* of the enumeration, and the group
pmfs of every composition are built once per process, level by level (shared prefixes: each from its parent
with one corner fewer), never per multiset.

**A cancellation-free form.** Σ_l α_l = 1, so with v(l) = 1 + w(l) ∈ [0, 2] (|w| <= 1: γ and its scale lie in
[0, 1]) the margin is

    margin(n) = A − e^{mε} B − 2δ,      A = Σ_l v(l) α_l >= 0,   B = Σ_l v(l) α'_l >= 0,

where the large terms e^{mε} and e^{mε} φ(α') of the first form, which cancel when e^{mε} is large (ε = 40 gives
e^{mε} ≈ 2·10^17 and margins of order 1), do not appear. Every quantity of A and B is a sum of products of
non-negative numbers, so it carries a componentwise relative error.

**Error bound (proof).** Standard model, unit roundoff u = 2^−53, γ_k = k u / (1 − k u) (Higham, *Accuracy and
Stability of Numerical Algorithms*, §3.1, Lemma 3.3: (1+θ_j)(1+θ_k) = 1+θ_{j+k}; a sum of n terms in any
order, with or without fused multiply-add, is the exact sum of the terms times factors 1+θ_{n−1}). We count the
*depth* k of each relative error θ_k:

* corner coordinates p̂, q̂ = 1 − p (computed in ball arithmetic, then rounded once): depth <= 3;
* the group pmf of a composition of a is built from its parent (one corner fewer) by one Bernoulli step
  P·q̂_j + shift(P)·p̂_j: each step adds depth 3 (p̂ or q̂) + 1 (product) + 1 (sum), so depth <= 5a;
* v̂(l) is the double nearest the midpoint of a ball of v(l) (intersected with [0, 2]) of radius r(l):
  |v̂ − v| <= u v + (1 + u) r, a relative part of depth 1 and an absolute part ρ = (1 + u) max r (0 when γ is
  exact; 2^−150 or so when its scale depends on e^ε);
* Â = P_A^T (V P_B) (V[i, j] = v̂(i + j), dot products of lengths K−a+1 and a+1): depth 5K + 1 + K + 2, so
  |Â − A| <= γ_{6K+3} A + ρ, and likewise B̂;
* X̂ = fl(e^{mε}) and d̂ = fl(2δ) (from balls, depth 3 each), then one product and two subtractions.

Hence |margin̂ − margin| <= γ_{6K+11} (A + X B + 2δ) + ρ (1 + X), and A <= Â (1 + 2γ_{6K+3}) + ρ, X B <=
X̂ B̂ (1 + 2γ_{6K+11}) + X ρ. :func:`row_bounds` returns, per row,

    E = 2 γ_{8K+56} (Â + X̂ B̂ + d̂)(1 + 10^−9) + 2 (1 + X̂)(ρ + 2^−700)(1 + 10^−9),

more than that (the factor 2 covers the conversions from A, B to Â, B̂ and the rounding of E itself). The
2^−700 (1 + X) covers gradual underflow: each underflowing operation errs by at most 2^−1075 absolutely and is
amplified by at most C(K, ·) <= 2^K times a count of at most 2^40 operations and by |v| <= 2, far below 2^−700
for K <= 201. The bound is relative to the size of the terms, not to e^{mε}: where A and e^{mε} B are of order 1,
E is of order 10^−13 even at ε = 40. :attr:`FloatSetting.bound` is E at its largest (Â, B̂ <= 2(1 + 10^−9)),
valid for every row. The certifier decides a row by float only when |margin̂| exceeds its E. Overflow cannot
occur: all pmf values are <= 1 and e^{mε} is capped.

References:
    DaRRM (Jiang–Zhang–Joshi [JZJ24]), Lemma 3.4 (Eq. 1) and Lemma 5.1; Higham (2002), Ch. 3.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np
from flint import arb

from dpcert.arith.ball import ball, fraction_of, workprec
from dpcert.darrm.corners import composition_array, corners
from dpcert.errors import InvalidParameter

__all__ = ["FloatSetting", "block_margins", "block_margins_bounds", "groups", "level_chunks", "MAX_K", "MAX_M_EPS"]

#: Largest K the float kernel's underflow argument covers.
MAX_K = 201
#: Largest m·ε (e^{mε} must stay far from overflow).
MAX_M_EPS = 700
#: The four whole level tables are kept in a process (built once, inherited by forked workers) up to this many bytes
#: (K <= 51 with Δ > 0: 0.46 GB at K = 51); beyond, each process builds the levels its chunks need
#: (:meth:`FloatSetting.level`): at K = 101, Δ > 0 the whole tables would be 12.5 GB.
WHOLE_LEVELS_BYTES = 1 << 29
#: Level tables a streaming process keeps (a chunk needs four; with mirrored groups a pair of chunks a, K − a needs
#: eight: A's levels a and K − a and their mirrors, for p and p').
KEPT_LEVELS = 8
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
        v: v̂(l) = 1 + w(l) as doubles, in [0, 2] (the cancellation-free form of the module docstring).
        rho: the absolute part of |v̂ − v| (0 for an exact γ).
        coords: per corner, ((p̂, q̂), (p̂', q̂')) as doubles.
        X, b, d2: e^{mε}, e^{mε} − 1 + 2δ and 2δ as doubles.
        bound: a proved bound on |margin̂ − margin| valid for every row (the largest per-row bound).
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
            self.d2 = _to_double(2 * ball(delta))
            g = [gv if isinstance(gv, arb) else ball(gv) for gv in gamma_values]
            self.w = np.array([(-1.0 if l <= H else 1.0) * _to_double(g[l]) for l in range(K + 1)])
            v, rho = [], 0.0
            for l, gv in enumerate(gamma_values):
                if isinstance(gv, arb):
                    # γ(l) lies in [0, 1] (a table in [0, 1]; a scale p_const < 1 decided at e^eps): intersect
                    lo_g = max(fraction_of(gv.lower()), Fraction(0))
                    hi_g = min(fraction_of(gv.upper()), Fraction(1))
                else:
                    lo_g = hi_g = Fraction(gv)
                    if not 0 <= lo_g <= 1:
                        raise InvalidParameter(f"gamma[{l}]", lo_g, "a value in [0, 1] (the float kernel's analysis)")
                lo_v, hi_v = (1 - hi_g, 1 - lo_g) if l <= H else (1 + lo_g, 1 + hi_g)
                v.append(float((lo_v + hi_v) / 2))
                rho = max(rho, float((hi_v - lo_v) / 2) * (1 + 1e-9))
            self.v = np.array(v)
            self.rho = rho * (1 + U) if rho else 0.0
            coords = []
            for pc, ppc in cs:
                pair = []
                for c0, c1 in (pc, ppc):
                    num = ball(c0) + ball(c1) * x
                    p = num / (x + 1)
                    q = (ball(1 - c0) + ball(1 - c1) * x) / (x + 1)
                    pair.append((_to_double(p), _to_double(q)))
                coords.append(pair)
        self.coords = coords
        self.groups = groups(self.c)
        n = 8 * K + 56
        self._rel = 2.0 * (n * U / (1 - n * U)) * (1 + 1e-9)
        self._abs = 2.0 * (1.0 + self.X * (1 + 8 * U)) * (self.rho + 2.0**-700) * (1 + 1e-9)
        top = 2.0 * (1 + 1e-9)
        self.bound = (self._rel * (top + self.X * (1 + 8 * U) * top + self.d2 * (1 + 8 * U)) + self._abs) * (1 + 1e-9)
        self._levels: tuple | None = None
        sizes = [sum(comb(s + len(grp) - 1, len(grp) - 1) * (s + 1) for s in range(K + 1)) for grp in self.groups]
        #: bytes of the four whole level tables (both groups, p and p')
        self.level_bytes = 2 * 8 * sum(sizes)
        #: True when the tables are too large to keep whole: each process builds the levels its chunks need
        self.streamed = self.level_bytes > WHOLE_LEVELS_BYTES
        # group B's corners are group A's complements, coordinate doubles swapped (Δ > 0: corner j + 4 = 1 − corner
        # j): then B's level-s pmfs are A's reversed, the same doubles (each entry is the same two products summed)
        ga, gb = self.groups
        self.mirrored = len(ga) == len(gb) and all(
            self.coords[j][side] == self.coords[k][side][::-1] for j, k in zip(ga, gb, strict=True) for side in (0, 1)
        )
        # one process may run chunks in several threads (a Dask worker's default): the tables are built under a lock
        self._lock = threading.RLock()
        self._running: dict[tuple[int, int], tuple[int, np.ndarray]] = {}
        self._kept: OrderedDict[tuple[int, int, int], np.ndarray] = OrderedDict()

    def row_bounds(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """The proved per-row bound E on |margin̂ − margin| from the computed Â, B̂ (module docstring)."""
        return (self._rel * (A + self.X * B + self.d2) + self._abs) * (1 + 1e-9)

    def levels(self, threads: int = 1) -> tuple:
        """((levels of group A, of group B) for p, (…) for p'), built once per process.

        ``threads`` > 1 builds the four tables in that many threads (numpy's array operations run outside the GIL;
        the tables are the same doubles): for a parent about to fork that many workers, whose cores are idle
        meanwhile."""
        with self._lock:
            return self._levels_locked(threads)

    def _levels_locked(self, threads: int) -> tuple:
        if self._levels is None:
            jobs = [[self.coords[j][side] for j in grp] for side in (0, 1) for grp in self.groups]
            if threads > 1:
                from concurrent.futures import ThreadPoolExecutor

                for total in range(1, self.K + 1):  # the shared index arrays, once, before the threads
                    for grp in self.groups:
                        _parents(total, len(grp))
                with ThreadPoolExecutor(min(threads, len(jobs))) as ex:
                    tables = list(ex.map(lambda c: group_levels(c, self.K), jobs))
            else:
                tables = [group_levels(c, self.K) for c in jobs]
            self._levels = ((tables[0], tables[1]), (tables[2], tables[3]))
        return self._levels

    def level(self, side: int, grp: int, s: int) -> np.ndarray:
        """The level-s pmf table of group ``grp`` (0: A, 1: B) for p (``side`` 0) or p' (1): the same doubles
        however obtained.

        Whole tables (:meth:`levels`) when they fit in :data:`WHOLE_LEVELS_BYTES`; otherwise (:attr:`streamed`)
        built here as chunks ask: one running table per (side, group) advanced level by level (chunks asking for
        ascending levels, as :func:`level_chunks` orders them, build each level once per process), a level below
        the running one built afresh (a high one, above K/2, restarts the running table: the next pass of a warm
        worker climbs again from there), the last few kept; with :attr:`mirrored` corners group B's tables
        are group A's reversed. Memory: a few tables of one level (at K = 101, Δ > 0: 149 MB each), not the
        O(K⁵) whole tables (12.5 GB)."""
        if not self.streamed:
            return self.levels()[side][grp][s]
        with self._lock:
            return self._level_locked(side, grp, s)

    def _level_locked(self, side: int, grp: int, s: int) -> np.ndarray:
        key = (side, grp, s)
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        if grp == 1 and self.mirrored:
            table = np.ascontiguousarray(self.level(side, 0, s)[:, ::-1])
        else:
            coords = [self.coords[j][side] for j in self.groups[grp]]
            t, cur = self._running.get((side, grp), (0, np.ones((1, 1))))
            # below the running table, built afresh: a low level (the partner of a high one) is cheap; a high one,
            # above K/2, starts a new pass (another run or γ_opt round), so it becomes the running table
            table = _advance(cur, t, s, coords) if s >= t else _advance(np.ones((1, 1)), 0, s, coords)
            if s >= t or 2 * s > self.K:
                self._running[(side, grp)] = (s, table)
        self._kept[key] = table
        while len(self._kept) > KEPT_LEVELS:
            self._kept.popitem(last=False)
        return table


@lru_cache(maxsize=1024)
def _parents(total: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """For each composition v of ``total`` (rows of composition_array): the index of v − e_j among the
    compositions of total − 1 and j, the last part with v_j > 0."""
    rows = composition_array(total, parts)
    js = parts - 1 - np.argmax(rows[:, ::-1] > 0, axis=1)
    par = rows.copy()
    par[np.arange(len(rows)), js] -= 1
    # a composition's key in base total + 1: the rows' order (first part descending, then the rest likewise) is
    # the keys' descending order, so a parent's index is found by binary search
    base = (total + 1) ** np.arange(parts - 1, -1, -1, dtype=np.int64)
    keys = -(composition_array(total - 1, parts) @ base)
    idx = np.searchsorted(keys, -(par @ base))
    return idx.astype(np.int64), js.astype(np.int64)


def group_levels(coords: list[tuple[float, float]], K: int) -> list[np.ndarray]:
    """Level s (s = 0..K): the PoissonBinomial pmfs (n_s, s + 1) of every composition of s over the group's
    corners, each row obtained from its parent (one corner fewer) by one Bernoulli step
    P_v = P_{v−e_j} · q_j + shift(P_{v−e_j}) · p_j (rounding depth 5 per level; see the module docstring)."""
    levels = [np.ones((1, 1))]
    for s in range(1, K + 1):
        levels.append(_advance(levels[-1], s - 1, s, coords))
    return levels


def _advance(table: np.ndarray, t: int, s: int, coords: list[tuple[float, float]]) -> np.ndarray:
    """The level-s table from the level-t one (t <= s), one Bernoulli step per level (:func:`group_levels`)."""
    g = len(coords)
    pv = np.array([c[0] for c in coords])
    qv = np.array([c[1] for c in coords])
    for lev in range(t + 1, s + 1):
        idx, js = _parents(lev, g)
        par = table[idx]
        out = np.empty((len(idx), lev + 1))
        np.multiply(par, qv[js][:, None], out=out[:, :lev])
        out[:, lev] = 0.0
        np.multiply(par, pv[js][:, None], out=par)  # the same two roundings per entry as P·q + shift(P)·p
        out[:, 1:] += par
        table = out
    return table


_INT64_MIN = np.int64(np.iinfo(np.int64).min)


def next_down(x: np.ndarray) -> np.ndarray:
    """``np.nextafter(x, -inf)`` in place for a float64 array of finite values, bit for bit, by integer steps on the
    bit patterns (a positive double's successor toward −∞ has the pattern one less, a negative one's one more; +0
    goes to the negative smallest subnormal): 3-4 times faster than libm's ``nextafter`` per element."""
    b = x.view(np.int64)
    t = b >> 63  # 0 for x >= +0, -1 for x <= -0
    t <<= 1
    t += 1  # +1 / -1
    zero = b == 0
    b -= t
    if zero.any():
        b[zero] = _INT64_MIN + 1
    return x


def next_up(x: np.ndarray) -> np.ndarray:
    """``np.nextafter(x, +inf)`` in place for a float64 array of finite values, bit for bit (see :func:`next_down`;
    −0 goes to the smallest subnormal)."""
    b = x.view(np.int64)
    t = b >> 63
    t <<= 1
    t += 1
    mzero = b == _INT64_MIN
    b += t
    if mzero.any():
        b[mzero] = 1
    return x


@lru_cache(maxsize=4)
def _hankel_index(a: int, K: int) -> np.ndarray:
    return np.arange(a + 1)[:, None] + np.arange(K - a + 1)[None, :]


def block_margins_bounds(
    fs: FloatSetting, a: int, r0: int = 0, r1: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Float margins of every multiset with a corners in group A (rows r0..r1 of them), and their proved per-row
    error bounds.

    Returns:
        (vecA, vecB, M, E): the count vectors of the two groups, the (len(vecA), len(vecB)) margin matrix (row i,
        column j is the multiset (vecA[i], vecB[j])) and the matrix of bounds on |M − margin| (a scratch buffer,
        overwritten by this thread's next call).
    """
    vA, vB, A, B = block_products(fs, a, r0, r1)
    M = np.empty_like(A)
    margins_bounds(fs, A, B, M)
    return vA, vB, M, A


#: A chunk's multisets at most (its Â and B̂ take 8 bytes per multiset each): a level with more is split by rows of
#: group A's compositions. K <= 51 never splits (12 M multisets at most per level).
CHUNK_MULTISETS = 1 << 24


def level_chunks(fs: FloatSetting) -> list[tuple[int, ...]]:
    """The chunks of 𝒫: ``(a,)`` per level a of group A, a level of more than :data:`CHUNK_MULTISETS` multisets split
    into ``(a, r0, r1)`` (rows r0..r1 of group A's compositions; see :func:`block_products`). With streamed level
    tables (:attr:`FloatSetting.streamed`) the levels come in the order of max(a, K − a), so that a process handed
    chunks in order asks for ascending levels and builds each once."""
    K = fs.K
    ga, gb = (len(g) for g in fs.groups)
    order = sorted(range(K + 1), key=lambda a: (max(a, K - a), a)) if fs.streamed else range(K + 1)
    out: list[tuple[int, ...]] = []
    for a in order:
        n_a, n_b = comb(a + ga - 1, ga - 1), comb(K - a + gb - 1, gb - 1)
        step = max(1, CHUNK_MULTISETS // n_b)
        if n_a <= step:
            out.append((a,))
        else:
            out.extend((a, r0, min(n_a, r0 + step)) for r0 in range(0, n_a, step))
    return out


def block_products(
    fs: FloatSetting, a: int, r0: int = 0, r1: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(vecA, vecB, Â, B̂) of every multiset with a corners in group A (module docstring): the two matrix products;
    rows ``r0:r1`` of group A's compositions only (a chunk of one level, :func:`dpcert.darrm.privacy` splits the
    largest levels so that Â and B̂ stay within its chunk size). Â and B̂ are this thread's scratch buffers
    (:func:`_scratch`), overwritten by its next call."""
    K = fs.K
    ga, gb = fs.groups
    vA = composition_array(a, len(ga))[r0:r1]
    vB = composition_array(K - a, len(gb))
    V = fs.v[_hankel_index(a, K)]
    LA, LA2 = fs.level(0, 0, a)[r0:r1], fs.level(1, 0, a)[r0:r1]
    shape = (len(LA), len(vB))
    A = np.matmul(LA, V @ fs.level(0, 1, K - a).T, out=_scratch(0, shape))
    B = np.matmul(LA2, V @ fs.level(1, 1, K - a).T, out=_scratch(1, shape))
    return vA, vB, A, B


_SCRATCH = threading.local()


def _scratch(i: int, shape: tuple[int, int]) -> np.ndarray:
    """Buffer ``i`` of this thread, as a C-contiguous array of ``shape``, grown as needed and reused by the next
    chunk (valid until this thread's next call): a fresh 128 MB matrix per chunk cost a fifth of the CPU time in
    page faults at K = 101. The product written into it is the same BLAS call, the same doubles."""
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    n = shape[0] * shape[1]
    buf = bufs.get(i)
    if buf is None or buf.size < n:
        buf = bufs[i] = np.empty(max(n, 1))
    return buf[:n].reshape(shape)


def margins_bounds(fs: FloatSetting, A: np.ndarray, B: np.ndarray, M: np.ndarray) -> None:
    """From Â, B̂ (any block of rows of :func:`block_products`): the margins ``Â − X̂·B̂ − d̂`` into ``M``, their bounds
    (:meth:`FloatSetting.row_bounds`, the same operations in the same order) into ``A``, and X̂·B̂ into ``B`` —
    in place: no temporary (a chunk at K = 41, Δ > 0 has 3.6 M rows, 29 MB per matrix)."""
    XB = np.multiply(B, fs.X, out=B)
    np.subtract(A, XB, out=M)
    M -= fs.d2
    E = np.add(A, XB, out=A)
    E += fs.d2
    E *= fs._rel
    E += fs._abs
    E *= 1 + 1e-9


def block_margins(fs: FloatSetting, a: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float margins of every multiset with a corners in group A (:func:`block_margins_bounds` without bounds).

    Returns:
        (vecA, vecB, M): the count vectors of the two groups and the (len(vecA), len(vecB)) margin matrix;
        row i, column j is the multiset (vecA[i], vecB[j]).
    """
    vA, vB, M, _ = block_margins_bounds(fs, a)
    return vA, vB, M
