"""Certify that DaRRM_γ is (mε, δ)-DP for every choice of K (ε, Δ)-DP mechanisms.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

By Lemma 3.4, DaRRM_γ (γ symmetric) is (mε, δ)-DP iff f(p, p'; γ) <= e^{mε} − 1 + 2δ for all feasible pairs, and
by Lemma 5.1 it suffices to check the multisets of K corners 𝒫 (:mod:`dpcert.darrm.corners`). The *margin* of a
multiset is f − (e^{mε} − 1 + 2δ); γ is private iff the largest margin is <= 0.

Every multiset is decided by a filter:

1. the float64 kernel (:mod:`dpcert.darrm.kernel`) computes all margins of a chunk, each with its own proved
   error bound E (relative to the size of its terms, so that it stays small at large e^{mε});
   a row with margin̂ < −E is certified <= 0, a row with margin̂ > E is certified > 0 (a counterexample);
2. the few rows with |margin̂| <= E take the exact path: the margin as an exact function of x = e^ε (Δ, δ and γ
   exact; the PoissonBinomial pmfs are polynomials in x over (x + 1)^K), whose sign at e^ε is decided by
   :func:`~dpcert.arith.ball.sign_at_exp`. An identically zero margin is an exact equality — a tight constraint,
   certified, never undecided (docs/derivations/darrm.md#identical-mechanisms). For a non-integer m the margin is (A(x)
   − e^{mε} B(x))/(x+1)^K with
   polynomials A, B; it vanishes at x = e^ε only if A = B = 0 identically (e^ε is transcendental and x^m is not
   a rational function of x for non-integer rational m), so refining the ball always decides otherwise.

**The maximum.** Each row ends with a rigorous interval (margin̂ ± E, sharpened by the exact sign); a chunk's
largest margin lies between the largest lower end and the largest upper end, and when that is wider than 10^-9
relatively the rows that may hold it are narrowed by balls. The reported maximum is that enclosure (its lower
end a margin attained, its upper end a bound on every multiset's) and the worst multiset is the row with the
largest lower end: the maximiser, up to the enclosure's width.

Chunks are the values a = number of corners from the first half of the corners (meet in the middle; a level of
more than 2^24 multisets split by rows, :func:`dpcert.darrm.kernel.level_chunks`), run by
:func:`dpcert.core.parallel.map_chunks`; the merged :class:`~dpcert.core.summary.Summary` is the same on any
executor and number of workers. A chunk that cannot be run (its worker died on every attempt) leaves its
multisets undecided: the verdict is then UNDECIDED (or REFUTED by a counterexample found elsewhere) and the
maximum has no upper end.

References:
    DaRRM (Jiang–Zhang–Joshi [JZJ24]), Lemma 3.4 (Eq. 1), Lemma 5.1, App. C.3.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from math import comb, gcd
from typing import Any

import numpy as np
from flint import arb, fmpq, fmpq_poly, fmpz_poly

from dpcert.arith.ball import MAX_PREC, Enclosure, ball, poly_at, refine, sign, sign_at_exp, workprec
from dpcert.arith.exact import Exact, RationalFunction, X, to_fraction
from dpcert.core.claim import Verdict
from dpcert.core.parallel import RunOptions, Summary, map_chunks
from dpcert.darrm.corners import corner_label, corners, n_multisets
from dpcert.darrm.gamma import Gamma, check_k
from dpcert.darrm.kernel import (
    FloatSetting,
    block_margins_bounds,
    block_products,
    level_chunks,
    margins_bounds,
    next_down,
    next_up,
)
from dpcert.errors import InvalidParameter, PrecisionExhausted

__all__ = ["Problem", "problem", "PrivacyResult", "certify", "row_margin", "plain_loop_max", "MAX_REFUTED_PER_CHUNK"]

#: Counterexamples kept per chunk (the count of violating rows is exact).
MAX_REFUTED_PER_CHUNK = 3


@dataclass(frozen=True)
class Problem:
    """One privacy question: γ, K, m, ε, Δ, δ (all exact)."""

    gamma: Gamma
    K: int
    m: Fraction
    eps: Fraction
    Delta: Fraction
    delta: Fraction
    max_prec: int = MAX_PREC

    @property
    def n_corners(self) -> int:
        return 4 if self.Delta == 0 else 8

    @property
    def n_rows(self) -> int:
        return n_multisets(self.K, self.n_corners)

    @property
    def integer_m(self) -> bool:
        return self.m.denominator == 1


def problem(gamma: Gamma, K: Any, m: Any, eps: Any, Delta: Any, delta: Any, *, max_prec: int = MAX_PREC) -> Problem:
    """Validate a privacy question (Problem 1.1).

    Raises:
        InvalidParameter: K not odd, m outside [1, K], ε < 0, Δ or δ outside [0, 1), Δ > δ, γ of the wrong length.
    """
    K = check_k(K)
    m, eps, Delta, delta = to_fraction(m), to_fraction(eps), to_fraction(Delta), to_fraction(delta)
    if not 1 <= m <= K:
        raise InvalidParameter("m", m, f"a real with 1 <= m <= K = {K}")
    if eps < 0:
        raise InvalidParameter("eps", eps, "a real >= 0")
    for name, v in (("Delta", Delta), ("delta", delta)):
        if not 0 <= v < 1:
            raise InvalidParameter(name, v, "a real in [0, 1)")
    if Delta > delta:
        raise InvalidParameter("Delta", Delta, f"Delta <= delta = {delta} (Problem 1.1: 1 > delta >= Delta >= 0)")
    if gamma.K != K:
        raise InvalidParameter("gamma", gamma.name, f"a table of K + 1 = {K + 1} values (it has {gamma.K + 1})")
    if not gamma.eps_free and not m.denominator == 1:
        raise InvalidParameter("m", m, "an integer for an eps-dependent gamma")
    return Problem(gamma, K, m, eps, Delta, delta, max_prec)


# --------------------------------------------------------------------------------------------- exact path


@lru_cache(maxsize=4096)
def _bin_polys(c0: Fraction, c1: Fraction, n: int, den: int) -> tuple[tuple[int, fmpz_poly], ...]:
    """The non-zero [t^k] (Q + P t)^n = C(n,k) P^k Q^(n−k) times den^n, as (k, integer poly), where
    P = c0 + c1 x, Q = (1 − c0) + (1 − c1) x and ``den`` clears the denominators of c0, c1."""
    P = fmpz_poly([int(c0 * den), int(c1 * den)])
    Q = fmpz_poly([den, den]) - P
    if P.is_zero():
        return ((0, Q**n),)
    if Q.is_zero():
        return ((n, P**n),)
    return tuple((k, comb(n, k) * P**k * Q ** (n - k)) for k in range(n + 1))


def _conv(a: dict[int, fmpz_poly], b: tuple[tuple[int, fmpz_poly], ...]) -> dict[int, fmpz_poly]:
    out: dict[int, fmpz_poly] = {}
    for i, u in a.items():
        for j, v in b:
            if i + j in out:
                out[i + j] += u * v
            else:
                out[i + j] = u * v
    return out


@lru_cache(maxsize=64)
def _int_weights(gamma: Gamma) -> tuple[tuple[int, ...], int]:
    """The signed weights w(l) = ±γ(l) as integers over one common denominator D: (D·w, D)."""
    table = gamma.table
    H = (len(table) - 2) // 2
    D = 1
    for g in table:
        D = D * g.denominator // gcd(D, g.denominator)
    return tuple((-1 if l <= H else 1) * int(g * D) for l, g in enumerate(table)), D


def _phi_numerators(pr: Problem, counts: tuple[int, ...]) -> tuple[fmpq_poly, fmpq_poly]:
    """(x+1)^K φ(α) and (x+1)^K φ(α') as exact polynomials in x (γ's table only, scale not applied).

    Computed in integer polynomials (denominators of Δ and γ cleared) and divided once at the end.
    """
    cs = corners(pr.Delta)
    w, D = _int_weights(pr.gamma)
    dd = pr.Delta.denominator
    out = []
    for side in (0, 1):
        G: dict[int, fmpz_poly] = {0: fmpz_poly([1])}
        for j, n in enumerate(counts):
            if n:
                c0, c1 = cs[j][side]
                G = _conv(G, _bin_polys(c0, c1, n, dd))
        acc = fmpz_poly()
        for l, g in G.items():
            if w[l]:
                acc += w[l] * g
        out.append(fmpq_poly(acc) / (D * dd**pr.K))
    return out[0], out[1]


@dataclass(frozen=True)
class RowMargin:
    """The exact margin of one multiset: ``scale·(N1 − y N2)/(x+1)^K − (y − 1 + 2δ)`` with y = e^{mε}."""

    pr: Problem
    counts: tuple[int, ...]
    N1: fmpq_poly
    N2: fmpq_poly

    def rational_function(self) -> RationalFunction:
        """The margin as a rational function of x (integer m only)."""
        pr = self.pr
        if not pr.integer_m:
            raise InvalidParameter("m", pr.m, "an integer (the margin is a rational function of e^eps only then)")
        xm = X ** int(pr.m)
        den = fmpq_poly([1, 1]) ** pr.K
        core = RationalFunction(self.N1 - xm.num * self.N2, den)
        return pr.gamma.scale * core - (xm - 1 + 2 * pr.delta)

    def _ab(self) -> tuple[fmpq_poly, fmpq_poly]:
        pr = self.pr
        s = Fraction(pr.gamma.scale)
        den = fmpq_poly([1, 1]) ** pr.K
        sq, dq = fmpq(s.numerator, s.denominator), fmpq((1 - 2 * pr.delta).numerator, (1 - 2 * pr.delta).denominator)
        return sq * self.N1 + dq * den, sq * self.N2 + den

    @cached_property
    def _numerator(self) -> fmpq_poly:
        pr = self.pr
        s = Fraction(pr.gamma.scale)
        xm = fmpq_poly([0] * int(pr.m) + [1])
        sq = fmpq(s.numerator, s.denominator)
        return sq * (self.N1 - xm * self.N2) - _rhs_poly(pr.K, int(pr.m), pr.delta)

    def numerator(self) -> fmpq_poly:
        """(x+1)^K · margin as a polynomial in x (integer m, γ not depending on ε)."""
        return self._numerator

    def is_zero(self) -> bool:
        """True when the margin is identically zero in x (a tight constraint, exact equality)."""
        if self.pr.integer_m and self.pr.gamma.eps_free:
            return self.numerator().is_zero()
        if self.pr.integer_m:
            return self.rational_function().is_zero()
        A, B = self._ab()
        return A.is_zero() and B.is_zero()

    def ball(self, prec: int) -> arb:
        """A ball enclosing the margin at x = e^ε, computed at ``prec`` bits."""
        pr = self.pr
        with workprec(prec):
            x = ball(pr.eps).exp()
            y = (ball(pr.m) * ball(pr.eps)).exp()
            sc = pr.gamma.scale
            if isinstance(sc, RationalFunction):
                s = poly_at(sc.num, x) / poly_at(sc.den, x)
            else:
                s = ball(sc)
            return s * (poly_at(self.N1, x) - y * poly_at(self.N2, x)) / (x + 1) ** pr.K - (y - 1 + 2 * ball(pr.delta))

    def sign(self) -> int:
        """The exact sign of the margin at x = e^ε (0 only for an exact equality).

        Raises:
            PrecisionExhausted: if ``max_prec`` bits do not decide.
        """
        pr = self.pr
        if pr.eps == 0:
            s = (
                Fraction(pr.gamma.scale(Fraction(1)))
                if isinstance(pr.gamma.scale, RationalFunction)
                else pr.gamma.scale
            )
            n1, n2 = self.N1(fmpq(1)), self.N2(fmpq(1))
            v = s * (Fraction(int(n1.p), int(n1.q)) - Fraction(int(n2.p), int(n2.q))) / 2**pr.K - 2 * pr.delta
            return (v > 0) - (v < 0)
        if pr.integer_m and pr.gamma.eps_free:
            # (x+1)^K > 0, so the margin has the sign of its numerator
            return sign_at_exp(self.numerator(), pr.eps, max_prec=pr.max_prec)
        if pr.integer_m:
            return sign_at_exp(self.rational_function(), pr.eps, max_prec=pr.max_prec)
        if self.is_zero():
            return 0

        def step(prec: int) -> int | None:
            sg = sign(self.ball(prec))
            return None if sg in (None, 0) else sg

        result, _ = refine(step, what=f"sign of the margin at {self.counts}", max_prec=pr.max_prec)
        return result


@lru_cache(maxsize=16)
def _rhs_poly(K: int, m: int, delta: Fraction) -> fmpq_poly:
    """(x^m − 1 + 2δ)(x + 1)^K."""
    c = 2 * delta - 1
    return (fmpq_poly([0] * m + [1]) + fmpq(c.numerator, c.denominator)) * fmpq_poly([1, 1]) ** K


def row_margin(pr: Problem, counts: tuple[int, ...]) -> RowMargin:
    """The exact margin of the multiset with corner counts ``counts``."""
    if len(counts) != pr.n_corners or sum(counts) != pr.K or min(counts) < 0:
        raise InvalidParameter("counts", counts, f"{pr.n_corners} non-negative counts summing to K = {pr.K}")
    N1, N2 = _phi_numerators(pr, tuple(int(c) for c in counts))
    return RowMargin(pr, tuple(int(c) for c in counts), N1, N2)


# --------------------------------------------------------------------------------------------- chunks


@lru_cache(maxsize=8)
def _float_setting(pr: Problem) -> FloatSetting:
    g = pr.gamma
    if isinstance(g.scale, RationalFunction):
        with workprec(160):
            x = ball(pr.eps).exp()
            s = poly_at(g.scale.num, x) / poly_at(g.scale.den, x)
            vals: tuple = tuple(s * ball(v) for v in g.table)
    else:
        vals = tuple(g.scale * v for v in g.table)
    return FloatSetting(vals, pr.K, pr.m, pr.eps, pr.Delta, pr.delta)


#: Entries of a chunk's margin matrix processed at a time (six float64 blocks of this size fit in a core's L2 cache).
BLOCK_ELEMENTS = 1 << 15
#: Rows per chunk whose margin is narrowed by balls to enclose the chunk's maximum tightly.
MAX_NARROWED_PER_CHUNK = 32
#: Relative width of a chunk's maximum below which no ball is computed.
CHUNK_REL_WIDTH = 1e-9


def _down(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) <= q else float(np.nextafter(f, -np.inf))


def _up(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) >= q else float(np.nextafter(f, np.inf))


def narrow_margin(rm: RowMargin, *, rel: float = 2.0**-60, start: int = 128) -> Enclosure:
    """The margin of one multiset as an enclosure of relative width <= ``rel`` (exact 0 for a tight multiset), or
    as narrow as ``max_prec`` bits make it (still rigorous)."""
    if rm.is_zero():
        return Enclosure.exact(0)
    prec = start
    while True:
        b = rm.ball(prec)
        mid, rad = abs(b.mid()), b.rad()
        if (rad <= rel * mid and mid > 0) or prec * 2 > rm.pr.max_prec:
            return Enclosure.from_ball(b)
        prec *= 2


def _chunk(task: tuple) -> Summary:
    """Decide every multiset with ``a`` corners in the first group (``(pr, a)``; ``(pr, a, r0, r1)``: those whose
    group-A composition is one of rows r0..r1 of level a), and enclose their largest margin (pure: same task, same
    summary).

    Each row gets a rigorous interval: the float margin ± its proved bound, sharpened by the exact path (sign
    <= 0: at most 0; sign > 0: at least 0; identically zero: exactly 0). The chunk's maximum lies in
    [max lo, max hi]; when that is wider than :data:`CHUNK_REL_WIDTH` relatively, the rows that may hold it are
    narrowed by balls, highest upper end first. The summary's worst case is ``{"counts", "lo", "hi"}``: the row
    with the largest lower end and the chunk's maximum enclosure; its score is ``hi``.
    """
    pr, a, *rows = task
    fs = _float_setting(pr)
    vA, vB, A, B = block_products(fs, a, *rows)
    nB = len(vB)
    # row blocks of about BLOCK_ELEMENTS entries: the elementwise passes below run in the core's cache, A and B
    # are read from memory once (two workers then do not wait on each other for memory bandwidth)
    step = max(1, BLOCK_ELEMENTS // nB)
    n_pos = n_float = 0
    pos_at: list[np.ndarray] = []
    open_at: list[np.ndarray] = []
    margin_at: dict[int, float] = {}  # the float margins of the rows listed (the only ones needed after)
    scratch = np.empty((step, nB))
    best_w, best_lo, best_hi = -1, -np.inf, -np.inf  # argmax (first) and max of lo, max of hi, block by block
    for r0 in range(0, len(vA), step):
        Ab, Bb = A[r0 : r0 + step], B[r0 : r0 + step]
        Mb = scratch[: len(Ab)]
        margins_bounds(fs, Ab, Bb, Mb)  # E in Ab
        neg = Mb < -Ab
        pos = Mb > Ab
        # lo, hi = M ∓ E rounded outwards (lo in B's rows, hi in E's: neither is needed after)
        lo = next_down(np.subtract(Mb, Ab, out=Bb))
        hi = next_up(np.add(Mb, Ab, out=Ab))
        np.minimum(hi, 0.0, out=hi, where=neg)
        k = int(np.count_nonzero(pos))
        if k:
            np.maximum(lo, 0.0, out=lo, where=pos)
            if sum(len(p) for p in pos_at) < MAX_REFUTED_PER_CHUNK:
                at = np.flatnonzero(pos)[:MAX_REFUTED_PER_CHUNK]
                pos_at.append(at + r0 * nB)
                margin_at.update(zip((at + r0 * nB).tolist(), Mb.ravel()[at].tolist(), strict=True))
        decided = int(np.count_nonzero(neg)) + k
        if decided < Mb.size:
            at = np.flatnonzero(~(neg | pos))
            open_at.append(at + r0 * nB)
            margin_at.update(zip((at + r0 * nB).tolist(), Mb.ravel()[at].tolist(), strict=True))
        n_pos += k
        n_float += decided
        j = int(lo.argmax())
        if lo.flat[j] > best_lo:
            best_w, best_lo = r0 * nB + j, float(lo.flat[j])
        best_hi = max(best_hi, float(hi.max()))
    lo, hi = B.ravel(), A.ravel()
    s = Summary()
    s.add("float", n_float)

    def vec(i: int) -> tuple[int, ...]:
        return tuple(int(v) for v in vA[i // nB]) + tuple(int(v) for v in vB[i % nB])

    violating = n_pos
    for i in np.concatenate(pos_at)[:MAX_REFUTED_PER_CHUNK] if pos_at else ():
        s.refuted.append({"counts": vec(int(i)), "path": "float", "margin_float": margin_at[int(i)]})
    for i in np.concatenate(open_at) if open_at else ():
        i = int(i)
        rm = row_margin(pr, vec(i))
        try:
            sg = 0 if rm.is_zero() else rm.sign()
        except PrecisionExhausted:
            s.add("undecided")
            s.undecided.append({"counts": vec(i)})
            continue
        if sg == 0:
            s.add("exact_zero")
            lo[i] = hi[i] = 0.0
        elif sg < 0:
            s.add("exact")
            hi[i] = min(hi[i], 0.0)
        else:
            s.add("exact")
            violating += 1
            lo[i] = max(lo[i], 0.0)
            if len(s.refuted) < MAX_REFUTED_PER_CHUNK:
                s.refuted.append({"counts": vec(i), "path": "exact", "margin_float": margin_at[i]})
    if violating:
        s.add("violating", violating)
    changed = bool(open_at)  # lo, hi changed since the blocks' maxima (else: no pass over the whole chunk)
    L, H = (float(lo.max()), float(hi.max())) if changed else (best_lo, best_hi)
    if H - L > CHUNK_REL_WIDTH * max(abs(L), abs(H)):
        changed = True
        cand = np.flatnonzero(hi >= L)
        if len(cand) > MAX_NARROWED_PER_CHUNK:
            cand = cand[np.argpartition(-hi[cand], MAX_NARROWED_PER_CHUNK - 1)[:MAX_NARROWED_PER_CHUNK]]
        for i in cand[np.argsort(-hi[cand], kind="stable")]:
            L, H = float(lo.max()), float(hi.max())
            if H - L <= CHUNK_REL_WIDTH * max(abs(L), abs(H)) or hi[i] < L:
                break
            enc = narrow_margin(row_margin(pr, vec(int(i))))
            lo[i] = max(lo[i], _down(enc.lo))
            hi[i] = min(hi[i], _up(enc.hi))
    w, top = (int(np.argmax(lo)), float(hi.max())) if changed else (best_w, best_hi)
    s.consider(top, {"counts": vec(w), "lo": float(lo[w]), "hi": top})
    return s


# --------------------------------------------------------------------------------------------- result


@dataclass
class PrivacyResult:
    """The certified answer for one :class:`Problem`.

    Attributes:
        verdict: CERTIFIED (every margin <= 0), REFUTED (a certified positive margin) or UNDECIDED.
        worst: the count vector of a multiset whose margin is the largest, up to the width of ``margin`` (the
            multiset with the largest certified lower end; a counterexample if REFUTED).
        margin: rigorous enclosure of the largest margin over 𝒫, the maximum itself (exact 0 when a constraint
            is tight); its lower end is a margin attained, its upper end bounds every multiset's.
        worst_margin: rigorous enclosure of the worst multiset's own margin (a value at that multiset).
        counts: rows decided by path: ``float`` (filter), ``exact`` (sign at e^ε), ``exact_zero`` (identically
            zero: tight), ``undecided``; ``violating`` counts rows with a certified positive margin.
        rows: |𝒫|.
        bound: the float kernel's proved error bound at its largest (each row has its own, usually far smaller).
        refuted: some counterexample multisets (at most a few per chunk).
        undecided: the undecided multisets.
        seconds: wall time.
        failed: the chunks that could not be run (their workers died): their multisets are undecided.
    """

    problem: Problem
    verdict: Verdict
    worst: tuple[int, ...]
    margin: Enclosure
    worst_margin: Enclosure
    counts: dict[str, int]
    rows: int
    bound: float
    refuted: list[Any] = field(default_factory=list)
    undecided: list[Any] = field(default_factory=list)
    seconds: float = 0.0
    failed: list[Any] = field(default_factory=list)

    @property
    def max_is_exact_zero(self) -> bool:
        return self.margin.is_exact and self.margin.lo == 0

    def worst_corners(self) -> list[str]:
        """The worst multiset in words: ``"3 x (0,0)"`` per corner used."""
        return [f"{n} x {corner_label(self.problem.Delta, j)}" for j, n in enumerate(self.worst) if n]

    def to_json(self) -> dict[str, Any]:
        pr = self.problem
        return {
            "verdict": self.verdict.value,
            "gamma": pr.gamma.name,
            "K": pr.K,
            "m": str(pr.m),
            "eps": str(pr.eps),
            "Delta": str(pr.Delta),
            "delta": str(pr.delta),
            "rows": self.rows,
            "worst_multiset": {"counts": list(self.worst), "corners": self.worst_corners()},
            "max_margin": self.margin.to_json(),
            "worst_margin": self.worst_margin.to_json(),
            "counts": dict(self.counts),
            "float_error_bound": self.bound,
            "counterexamples": self.refuted[:10],
            "undecided": self.undecided[:10],
            **({"failed_chunks": self.failed} if self.failed else {}),
            "seconds": round(self.seconds, 4),
        }


def _tasks(pr: Problem) -> list[tuple]:
    """The chunks (:func:`~dpcert.darrm.kernel.level_chunks`): ``(pr, a)``, or ``(pr, a, r0, r1)`` for part of a
    large level."""
    return [(pr, *c) for c in level_chunks(_float_setting(pr))]


def _describe(task: tuple) -> dict[str, int]:
    """What a chunk covers: the multisets with ``a`` corners from the first group (rows r0..r1 of them)."""
    pr, a, *rows = task
    h = pr.n_corners // 2
    n_a = comb(a + h - 1, h - 1)
    r0, r1 = rows or (0, n_a)
    out = {"first_group_corners": a, "multisets": (r1 - r0) * comb(pr.K - a + h - 1, h - 1)}
    return out | ({"rows": [r0, r1]} if rows else {})


#: Below this many multisets a run with no worker count given stays in this process (starting workers costs more).
SERIAL_BELOW = 200_000


def certify(
    pr: Problem,
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    run: RunOptions | None = None,
) -> PrivacyResult:
    """Decide whether DaRRM_γ is (mε, δ)-DP for all K (ε, Δ)-DP mechanisms (every multiset of 𝒫).

    Args:
        pr: the question (:func:`problem`).
        workers: processes for :func:`~dpcert.core.parallel.map_chunks` when ``run`` is not given (results
            identical for any number).
        progress: called with (chunks done, chunks total) as chunks finish.
        run: executor, workers, checkpoint (:class:`~dpcert.core.parallel.RunOptions`); a run that names no
            worker count stays in this process below :data:`SERIAL_BELOW` multisets.

    Returns:
        A :class:`PrivacyResult`.

    References:
        DaRRM Lemma 3.4 and Lemma 5.1.
    """
    t0 = time.perf_counter()
    tasks = _tasks(pr)
    if run is None:
        run = RunOptions(workers=workers)
    elif run.workers is None and run.executor == "processes" and pr.n_rows < SERIAL_BELOW:
        run = RunOptions("serial", 1, checkpoint=run.checkpoint, checkpoint_key=run.checkpoint_key)
    fs = _float_setting(pr)
    # whole level tables built once, here, when workers are about to be forked from this process (local processes,
    # the LocalCluster dpcert starts): they inherit them (each would build its own), built in as many threads as
    # workers (their cores are idle until then). Not for the workers of an existing Dask cluster, which build and
    # keep their own (measured at K = 41, Δ > 0: 1.56 -> 1.31 s a warm run), nor serially (built when first used).
    if not fs.streamed and run.forks_workers(len(tasks)):
        fs.levels(threads=run.n_workers)
    total = map_chunks(_chunk, tasks, run=run, progress=progress, describe=_describe)
    case = total.worst_case
    counts = dict(total.counts)
    if counts.get("violating"):
        verdict = Verdict.REFUTED
    elif counts.get("undecided") or total.failed:
        verdict = Verdict.UNDECIDED
    else:
        verdict = Verdict.CERTIFIED
    if case is None:  # every chunk failed: nothing is known
        return PrivacyResult(
            pr, verdict, (), Enclosure(None, None), Enclosure(None, None), counts, pr.n_rows, fs.bound,
            failed=list(total.failed), seconds=time.perf_counter() - t0,
        )  # fmt: skip
    worst = tuple(case["counts"])
    wenc = narrow_margin(row_margin(pr, worst))
    # the largest margin: at least the worst multiset's, at most the largest upper end of any multiset (none
    # when a chunk failed: its multisets are unknown)
    lo = max(Fraction(case["lo"]), wenc.lo)
    hi: Fraction | None = None if total.failed else Fraction(case["hi"])
    if verdict == Verdict.CERTIFIED:
        hi = min(hi, Fraction(0))
    menc = Enclosure.exact(0) if lo == hi == 0 else Enclosure(lo, hi)
    return PrivacyResult(
        pr,
        verdict,
        worst,
        menc,
        wenc,
        counts,
        pr.n_rows,
        fs.bound,
        list(total.refuted),
        list(total.undecided),
        time.perf_counter() - t0,
        list(total.failed),
    )


# --------------------------------------------------------------------------------------------- plain loop


def plain_loop_max(pr: Problem) -> tuple[float, tuple[int, ...]]:
    """The largest margin by a plain per-multiset float64 loop (np.convolve per multiset): evidence only.

    An independent float computation (no shared code with the kernel): the baseline of the benchmark and the
    float evaluator of ``darrm.privacy.margin``.
    """
    import itertools
    import math

    K, H = pr.K, (pr.K - 1) // 2
    x = math.exp(float(pr.eps))
    Xf = math.exp(float(pr.m) * float(pr.eps))
    sc = pr.gamma.scale
    s = float(sc(Fraction(x))) if isinstance(sc, RationalFunction) else float(sc)
    # v = 1 + w >= 0 and Σα = 1: margin = Σ v α − X Σ v α' − 2δ, without the cancelling terms of size e^{mε}
    v = np.array([1.0 + (-1.0 if l <= H else 1.0) * s * float(g) for l, g in enumerate(pr.gamma.table)])
    d2 = 2 * float(pr.delta)
    cs = corners(pr.Delta)
    pts = [tuple((float(c0) + float(c1) * x) / (x + 1) for (c0, c1) in corner) for corner in cs]

    def pmf(probs: list[float]) -> np.ndarray:
        out = np.array([1.0])
        for p in probs:
            out = np.convolve(out, [1 - p, p])
        return out

    best, arg = -math.inf, ()
    for combo in itertools.combinations_with_replacement(range(len(cs)), K):
        a1 = pmf([pts[j][0] for j in combo])
        a2 = pmf([pts[j][1] for j in combo])
        val = float(v @ a1 - Xf * (v @ a2) - d2)
        if val > best:
            best, arg = val, tuple(combo.count(j) for j in range(len(cs)))
    return best, arg


# --------------------------------------------------------------------------------------------- quantity


@lru_cache(maxsize=32)
def certify_cached(pr: Problem) -> PrivacyResult:
    """:func:`certify` on one worker, remembered (the quantity's ball evaluator re-asks at rising precision)."""
    return certify(pr)


#: Most multisets the quantity's evaluator narrows at each precision (beyond: the certified enclosure as it is).
MAX_CONTENDERS = 4096


@lru_cache(maxsize=32)
def _contenders(pr: Problem, threshold: float) -> tuple[tuple[int, ...], ...] | None:
    fs = _float_setting(pr)
    out = []
    for chunk in level_chunks(fs):
        vA, vB, M, E = block_margins_bounds(fs, *chunk)
        for i, j in zip(*np.nonzero(np.nextafter(M + E, np.inf) >= threshold), strict=True):
            out.append(tuple(int(v) for v in vA[i]) + tuple(int(v) for v in vB[j]))
            if len(out) > MAX_CONTENDERS:
                return None
    return tuple(out)


def contenders(res: PrivacyResult) -> tuple[tuple[int, ...], ...] | None:
    """The multisets that may hold the largest margin: those whose float margin plus its proved bound reaches the
    certified lower end of the maximum (``None`` if there are more than :data:`MAX_CONTENDERS`).

    Every other multiset's margin is below a margin attained, so the largest margin is the largest of the
    contenders' exact margins.
    """
    assert res.margin.lo is not None
    return _contenders(res.problem, _down(res.margin.lo))


def _margin_ball(ctx: Any, gamma: str, K: int, m: Exact, eps: Exact, Delta: Exact, delta: Exact) -> Any:
    """darrm.privacy.margin: the largest margin over 𝒫 (<= 0 means private), exactly 0 when tight."""
    from dpcert.darrm.gamma import named_gamma

    mv, ev, Dv, dv = to_fraction(m), to_fraction(eps), to_fraction(Delta), to_fraction(delta)
    g = named_gamma(gamma, check_k(K), mv, ev, Dv, dv)
    pr = problem(g, K, mv, ev, Dv, dv)
    res = certify_cached(pr)
    if res.max_is_exact_zero:
        return Fraction(0)
    if not getattr(ctx, "rigorous", True):
        return float(res.margin.mid())
    rows = contenders(res)
    if rows is None:
        lo, hi = res.margin.lo, res.margin.hi
        return ball((lo + hi) / 2) + arb(0, float((hi - lo) / 2) * (1 + 2.0**-40) + 2.0**-1070)
    balls = [row_margin(pr, c).ball(ctx.prec) for c in rows]
    lo = max(Enclosure.from_ball(b).lo for b in balls)
    hi = max(Enclosure.from_ball(b).hi for b in balls)
    half = (hi - lo) / 2
    return ball((lo + hi) / 2) + arb(0, float(half) * (1 + 2.0**-40) + 2.0**-1070)


def _margin_float(gamma: str, K: int, m: Exact, eps: Exact, Delta: Exact, delta: Exact) -> float:
    from dpcert.darrm.gamma import named_gamma

    mv, ev, Dv, dv = to_fraction(m), to_fraction(eps), to_fraction(Delta), to_fraction(delta)
    pr = problem(named_gamma(gamma, check_k(K), mv, ev, Dv, dv), K, mv, ev, Dv, dv)
    return plain_loop_max(pr)[0]
