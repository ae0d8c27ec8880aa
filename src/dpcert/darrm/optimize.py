"""γ_opt: the optimal DaRRM noise function by LP, shipped as exact rationals with a privacy certificate and a

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.
certified optimality gap.

**The LP** (DaRRM §5, Eqs. 2–3, App. C.1). With H = (K−1)/2 and the symmetric form γ(l) = γ(K−l), the free
variables are g_j = γ(j) = γ(K−j), j = 0..H. Under a product prior of mean μ the expected error is exactly that
of K i.i.d. mechanisms with p = μ (docs/derivations/darrm.md#error-under-a-product-prior): with β = Bin(K, μ),

    E(γ) = Σ_j c_j (1 − g_j),      c_j = |β(K−j) − β(j)| / 2 >= 0,

linear in g (every term of Definition 2.4's sum has the same sign, so the absolute value is exact, not dropped).
The privacy condition of Lemma 3.4 over the multisets 𝒫 of Lemma 5.1 is one linear row per multiset n:

    Σ_j a_j(n) g_j <= b,   a_j(n) = (α_{K−j} − X α'_{K−j}) − (α_j − X α'_j),   b = X − 1 + 2δ,  X = e^{mε},

α, α' the PoissonBinomial pmfs of n's corners (the row's margin of :mod:`dpcert.darrm.privacy` is Σ a_j g_j − b).
γ_opt maximises c·g over these rows and the box 0 <= g <= 1.

**Constraint generation.** 𝒫 is never materialised: the LP is solved (HiGHS through ``scipy.optimize.linprog``)
on a working set of rows; the float kernel (:func:`dpcert.darrm.kernel.block_margins_bounds`, chunked through
:func:`dpcert.core.parallel.map_chunks`) finds the most violated rows over all of 𝒫; they are added; repeat until
no row is violated by more than a tolerance. The last pass also gives, from the kernel's proved per-row error
bounds, a proved upper bound ``hi`` on the largest margin of the (rational) LP solution.

**The vertex in balls.** Each LP solution is polished: the variables within 1e-9 of a bound are fixed there and
the others solved from as many independent tight rows, in ball arithmetic at 256 bits; when that vertex violates a
working row (HiGHS's tolerance left the wrong active set), up to three correction LPs (iterative refinement: the
same LP in λ(g − g_k), with λ the inverse of the violation) find the right one. Rows of the polished point whose
float margin is within its proved error of 0 are evaluated in balls; those certainly violated (below the float
kernel's resolution) are added too.

**Certified feasibility.** The vertex g (exact rationals) is shrunk and rounded down to multiples of 2^-k:
with hi a proved bound on its largest margin (the float pass's bounds, the near-tight rows in balls) and
t >= (hi + 2^-k (1 + X)) / (b + hi), every row of (1 − t) g rounded down has margin <= 0 (every row's linear part
is at most b + hi; Σ_j |a_j(n)| <= 1 + X bounds the rounding). The shipped γ is then proved private by the exact
all-multiset certifier (:func:`dpcert.darrm.privacy.certify`); the verdict reported is that certifier's. A
baseline (γ_Sub, γ_DSub, γ ≡ 1) whose exact error lies between the certified lower bound and the shrunk γ's error
is certified too and shipped instead when private (at m = 1 γ_Sub is optimal, Lemma 3.2: it is shipped exactly).

**Certified optimality (weak duality).** For any y >= 0 on rows of 𝒫 and any feasible g (0 <= g <= 1):
c·g = (c − Aᵀy)·g + y·(A g) <= y·b + Σ_j max(0, (c − Aᵀy)_j). With y the dual values of the final LP read as
exact rationals (HiGHS's, those solved in balls on their support, and those of the polished vertex's basis: the
smallest bound wins) and the rows' coefficients (irrational: they involve e^ε) enclosed in ball arithmetic at 256
bits, the upper end U of that bound is certified, so OPT >= E0 − U (E0 = Σ c_j) over all of 𝒫: the lower bound.
The gap shipped error − lower bound encloses the distance to the optimum from above.

The setting where only γ ≡ 0 is private would need b = 0, i.e. ε = 0 and δ = 0, hence Δ = 0, where every row
is 0 (p = p' for every mechanism) and every γ is private; it cannot occur in the paper's domain. The result
still says ``status = "only_zero"`` if the certified lower bound equals E(0) with every c_j > 0.

References:
    DaRRM (Jiang–Zhang–Joshi [JZJ24]): §5 (Eqs. 2–3), Lemma 3.4, Lemma 5.1, App. C.1 (Eqs. 199–202), Lemma 3.2.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from dpcert.core.claim import Verdict
from dpcert.core.parallel import Summary, map_chunks
from dpcert.darrm.corners import corners
from dpcert.darrm.gamma import Gamma, check_k, gamma_dsub, gamma_one, gamma_sub
from dpcert.errors import InvalidParameter

__all__ = ["OptimizeResult", "optimize", "lower_bound", "objective", "PRIOR_DEFAULT", "write_table"]

#: The prior mean of the paper's [0.5, 1]^K surrogate (Eq. 202); its T_P prior (Eq. 204) is 17/20.
PRIOR_DEFAULT = Fraction(3, 4)
#: Most violated rows kept per chunk and added per round.
KEEP_PER_CHUNK = 6
#: Largest number of constraint-generation rounds (each is one float pass over 𝒫).
MAX_ROUNDS = 60
#: Correction LPs (iterative refinement) tried when the polished vertex violates a working row.
REFINE_ROUNDS = 3
#: Ball precision (bits) of the dual bound, the polished vertex and the near-tight margins.
DUAL_PREC = 256
#: Near-tight rows (float upper end > 0) narrowed by balls per chunk; beyond, the chunk keeps its float bound.
MAX_NEAR_PER_CHUNK = 64


# --------------------------------------------------------------------------------------------- objective


def objective(K: int, mu: Fraction) -> tuple[tuple[Fraction, ...], Fraction]:
    """(c_0..c_H, E0): E(γ) = E0 − Σ c_j g_j exactly for a product prior of mean μ (K i.i.d. p = μ).

    References:
        DaRRM App. C.1 (Eq. 201 with E_T[α_l] = Bin(K, μ)(l)) [JZJ24];
        docs/derivations/darrm.md#error-under-a-product-prior.
    """
    H = (K - 1) // 2
    beta = [comb(K, l) * mu**l * (1 - mu) ** (K - l) for l in range(K + 1)]
    c = tuple(abs(beta[K - j] - beta[j]) / 2 for j in range(H + 1))
    return c, sum(c, Fraction(0))


def _error(c: tuple[Fraction, ...], g: tuple[Fraction, ...]) -> Fraction:
    return sum((cj * (1 - gj) for cj, gj in zip(c, g, strict=True)), Fraction(0))


def _full(g: tuple[Fraction, ...], K: int) -> tuple[Fraction, ...]:
    """γ(0..K) from g_0..g_H (symmetric)."""
    return tuple(g[min(l, K - l)] for l in range(K + 1))


# --------------------------------------------------------------------------------------------- float rows


@dataclass(frozen=True)
class _Setting:
    K: int
    m: Fraction
    eps: Fraction
    Delta: Fraction
    delta: Fraction


@lru_cache(maxsize=4)
def _base(st: _Setting) -> Any:
    """A float kernel setting with its group pmfs built once per process (γ is swapped in per pass)."""
    from dpcert.darrm.kernel import FloatSetting

    fs = FloatSetting(tuple(Fraction(1) for _ in range(st.K + 1)), st.K, st.m, st.eps, st.Delta, st.delta)
    if not fs.streamed:
        fs.levels()
    return fs


def _with_gamma(st: _Setting, table: tuple[Fraction, ...]) -> Any:
    """The kernel setting of an exact γ table in [0, 1] (ρ = 0, so the proved bounds are those of the base)."""
    base = _base(st)
    fs = copy.copy(base)
    H = (st.K - 1) // 2
    fs.w = np.array([(-1.0 if l <= H else 1.0) * float(v) for l, v in enumerate(table)])
    fs.v = np.array([float(1 - v) if l <= H else float(1 + v) for l, v in enumerate(table)])
    return fs


def _pmf(coords: list[tuple[float, float]], counts: tuple[int, ...]) -> np.ndarray:
    out = np.array([1.0])
    for (p, q), n in zip(coords, counts, strict=True):
        for _ in range(n):
            out = np.convolve(out, [q, p])
    return out


def _float_rows(st: _Setting, rows: list[tuple[int, ...]]) -> np.ndarray:
    """The LP rows a(n) / (1 + X) as floats (scaled so that rows stay of order 1 at large e^{mε})."""
    fs = _base(st)
    K, H = st.K, (st.K - 1) // 2
    out = np.empty((len(rows), H + 1))
    for i, n in enumerate(rows):
        a1 = _pmf([fs.coords[j][0] for j in range(fs.c)], n)
        a2 = _pmf([fs.coords[j][1] for j in range(fs.c)], n)
        d = a1 - fs.X * a2
        out[i] = (d[K - np.arange(H + 1)] - d[: H + 1]) / (1 + fs.X)
    return out


# --------------------------------------------------------------------------------------------- separation


def _separate(task: tuple) -> Summary:
    """One chunk (a corners in group A) of a float pass.

    ``refuted`` holds up to ``keep`` rows with float margin > ``tol`` as (margin, counts), by decreasing margin;
    ``undecided`` the rows whose proved upper end margin̂ + E is positive (the near-tight rows, at most
    :data:`MAX_NEAR_PER_CHUNK`, else none); ``worst_score`` the largest upper end of the other rows (a proved
    bound on their margins); ``counts["violated"]`` the number of rows with float margin > ``tol``.
    """
    from dpcert.darrm.kernel import block_margins_bounds

    st, table, a, keep, tol, *rows = task
    fs = _with_gamma(st, table)
    vA, vB, M, E = block_margins_bounds(fs, a, *rows)
    s = Summary()
    flat = M.ravel()
    up = np.nextafter(flat + E.ravel(), np.inf)
    nB = len(vB)

    def counts(i: int) -> tuple[int, ...]:
        return tuple(int(v) for v in vA[i // nB]) + tuple(int(v) for v in vB[i % nB])

    near = np.flatnonzero(up > 0)
    if 0 < len(near) <= MAX_NEAR_PER_CHUNK:
        s.undecided.extend(counts(int(i)) for i in near)
        up[near] = -np.inf
    s.consider(float(up.max()), None)
    viol = np.flatnonzero(flat > tol)
    s.add("violated", int(len(viol)))
    if len(viol):
        if len(viol) > keep:
            viol = viol[np.argpartition(-flat[viol], keep - 1)[:keep]]
        viol = viol[np.lexsort((viol, -flat[viol]))]
        s.refuted.extend((float(flat[i]), counts(int(i))) for i in viol)
    return s


def _pass(
    st: _Setting, table: tuple[Fraction, ...], keep: int, tol: float, workers: int, run: Any = None
) -> tuple[Summary, list[tuple[float, tuple[int, ...]]]]:
    from dpcert.darrm.kernel import level_chunks

    tasks = [(st, table, a, keep, tol, *rows) for a, *rows in level_chunks(_base(st))]
    total = map_chunks(_separate, tasks, workers=workers, run=run)
    found = sorted(total.refuted, key=lambda r: (-r[0], r[1]))
    return total, found


def _max_margin_upper(
    st: _Setting, g: tuple[Fraction, ...], total: Summary
) -> tuple[Fraction, list[tuple[Fraction, tuple[int, ...]]]]:
    """A proved upper bound on the largest margin of γ = g over 𝒫: the pass's bound on the rows it decided by
    float, and the near-tight rows' margins in balls (:data:`DUAL_PREC` bits); and the near-tight rows whose
    margin is certainly above 2^-160 (1 + X), violated below the float kernel's resolution, as (margin, counts)."""
    from dpcert.arith.ball import ball, fraction_of, workprec

    hi = Fraction(total.worst_score) if total.worst_score != -np.inf else None
    violated = []
    if total.undecided:
        near = list(total.undecided)
        A, bb = _arb_rows(st, near)
        with workprec(DUAL_PREC):
            gb = [ball(v) for v in g]
            unscale = 1 + (ball(st.m) * ball(st.eps)).exp()  # the rows are a(n)/(1 + X), the margin a(n)·g − b
            for row, counts in zip(A, near, strict=True):
                scaled = sum((aj * gj for aj, gj in zip(row, gb, strict=True)), ball(0)) - bb
                mg = scaled * unscale
                u = fraction_of(mg.mid()) + fraction_of(mg.rad())
                hi = u if hi is None else max(hi, u)
                lo_scaled = fraction_of(scaled.mid()) - fraction_of(scaled.rad())
                if lo_scaled > Fraction(1, 2**160):
                    violated.append((lo_scaled, counts))
    violated.sort(key=lambda r: (-r[0], r[1]))
    return (hi if hi is not None else Fraction(-1)), violated


# --------------------------------------------------------------------------------------------- LP


def _solve(c: np.ndarray, A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """max c·g s.t. A g <= b, 0 <= g <= 1 with HiGHS: (g, y >= 0 the row duals, c·g)."""
    from scipy.optimize import linprog

    n = len(c)
    kw: dict[str, Any] = {
        "bounds": [(0.0, 1.0)] * n,
        "method": "highs",
        "options": {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    }
    if len(A):
        res = linprog(-c, A_ub=A, b_ub=b, **kw)
    else:
        res = linprog(-c, **kw)
    if res.status != 0:  # pragma: no cover - the box makes the LP bounded and g = 0 feasible (b >= 0)
        raise RuntimeError(f"HiGHS did not solve the LP: {res.message}")
    y = -np.asarray(res.ineqlin.marginals) if len(A) else np.zeros(0)
    return np.clip(np.asarray(res.x), 0.0, 1.0), np.maximum(y, 0.0), float(-res.fun)


# --------------------------------------------------------------------------------------------- dual bound


def _arb_rows(st: _Setting, rows: list[tuple[int, ...]]) -> tuple[list[list[Any]], Any]:
    """The rows a(n)/(1 + X) and b/(1 + X) as balls at :data:`DUAL_PREC` bits."""
    from flint import arb_poly

    from dpcert.arith.ball import ball, workprec

    K, H = st.K, (st.K - 1) // 2
    cs = corners(st.Delta)
    with workprec(DUAL_PREC):
        x = ball(st.eps).exp()
        X = (ball(st.m) * ball(st.eps)).exp()
        sc = 1 / (1 + X)
        polys = []
        for pc, ppc in cs:
            side = []
            for c0, c1 in (pc, ppc):
                p = (ball(c0) + ball(c1) * x) / (x + 1)
                q = (ball(1 - c0) + ball(1 - c1) * x) / (x + 1)
                side.append(arb_poly([q, p]))
            polys.append(side)
        out = []
        for n in rows:
            al, alp = arb_poly([1]), arb_poly([1])
            for j, k in enumerate(n):
                if k:
                    al *= polys[j][0] ** k
                    alp *= polys[j][1] ** k
            d = [al[l] - X * alp[l] for l in range(K + 1)]
            out.append([(d[K - j] - d[j]) * sc for j in range(H + 1)])
        bb = (X - 1 + 2 * ball(st.delta)) * sc
    return out, bb


def _dual_upper(st: _Setting, c: tuple[Fraction, ...], rows: list[tuple[int, ...]], y: list[Fraction]) -> Fraction:
    """A certified upper bound on max c·g over all private symmetric γ (weak duality with multipliers y >= 0 on
    the given rows of 𝒫, the box 0 <= g <= 1 absorbing any dual infeasibility)."""
    from dpcert.arith.ball import ball, fraction_of, workprec

    used = [(r, v) for r, v in zip(rows, y, strict=True) if v > 0]
    A, bb = _arb_rows(st, [r for r, _ in used])
    with workprec(DUAL_PREC):
        total = ball(0)
        red = [ball(cj) for cj in c]
        for (_, v), arow in zip(used, A, strict=True):
            yv = ball(v)
            total += yv * bb
            for j in range(len(c)):
                red[j] -= yv * arow[j]
        U = fraction_of(total.mid()) + fraction_of(total.rad())
        for r in red:
            hi = fraction_of(r.mid()) + fraction_of(r.rad())
            if hi > 0:
                U += hi
    return U


# --------------------------------------------------------------------------------------------- polish


def _independent(M: np.ndarray, order: list[int], need: int) -> list[int] | None:
    """The first ``need`` rows of M, in ``order``, that are linearly independent (None if there are not enough)."""
    chosen: list[int] = []
    for i in order:
        if len(chosen) == need:
            break
        trial = M[[*chosen, i]]
        if np.linalg.matrix_rank(trial, tol=1e-10 * max(1.0, float(np.abs(trial).max()))) == len(chosen) + 1:
            chosen.append(i)
    return chosen if len(chosen) == need else None


def _round_frac(v: Any, bits: int) -> Fraction:
    """The midpoint of a ball rounded to a multiple of 2^-bits."""
    from dpcert.arith.ball import fraction_of

    q = fraction_of(v.mid()) * 2**bits
    return Fraction(round(q), 2**bits)


def _solve_ball(st: _Setting, rows: list[tuple[int, ...]], cols: list[int], rhs: list[Any], transpose: bool) -> Any:
    """Solve the square system A[rows, cols] z = rhs (or its transpose) in balls; None if singular."""
    from flint import arb_mat

    from dpcert.arith.ball import workprec

    A, _ = _arb_rows(st, rows)
    n = len(cols)
    with workprec(DUAL_PREC):
        entries = [[A[i][j] for j in cols] for i in range(len(rows))]
        if transpose:
            entries = [list(r) for r in zip(*entries, strict=True)]
        try:
            sol = arb_mat(entries).solve(arb_mat([[r] for r in rhs]))
        except (ZeroDivisionError, ValueError):
            return None
        return [sol[i, 0] for i in range(n)]


def _polish_primal(
    st: _Setting, rows: list[tuple[int, ...]], A: np.ndarray, g: np.ndarray, y: np.ndarray
) -> tuple[tuple[Fraction, ...], list[int], list[int]] | None:
    """The LP vertex near g in balls: variables within 1e-9 of a bound fixed there, the others solved from as many
    independent tight rows (largest duals first, then smallest slacks)."""
    from dpcert.arith.ball import ball, workprec

    n = len(g)
    fixed = {j: (0 if g[j] <= 1e-9 else 1) for j in range(n) if g[j] <= 1e-9 or g[j] >= 1 - 1e-9}
    free = [j for j in range(n) if j not in fixed]
    if not free:
        return tuple(Fraction(fixed[j]) for j in range(n)), [], []
    fs = _base(st)
    slack = fs.b / (1 + fs.X) - A @ g
    tight = [i for i in range(len(rows)) if y[i] > 0 or abs(slack[i]) <= 1e-8]
    order = sorted(tight, key=lambda i: (-y[i], abs(slack[i]), i))
    pick = _independent(A[:, free], order, len(free))
    if pick is None:
        return None
    sel = [rows[i] for i in pick]
    Ab, bb = _arb_rows(st, sel)
    with workprec(DUAL_PREC):
        rhs = [bb - sum((Ab[k][j] * fixed[j] for j in fixed), ball(0)) for k in range(len(sel))]
    sol = _solve_ball(st, sel, free, rhs, transpose=False)
    if sol is None:
        return None
    out = [Fraction(fixed.get(j, 0)) for j in range(n)]
    for j, v in zip(free, sol, strict=True):
        out[j] = _round_frac(v, DUAL_PREC - 56)
        if not -(10**-12) <= out[j] <= 1 + 10**-12:  # a variable that belongs at a bound: not this active set
            return None
        out[j] = min(max(out[j], Fraction(0)), Fraction(1))
    return tuple(out), pick, free


def _basis_dual(
    st: _Setting, c: tuple[Fraction, ...], rows: list[tuple[int, ...]], basis: tuple[list[int], list[int]] | None
) -> list[Fraction] | None:
    """Row multipliers from the polished vertex's basis: A[tight, free]ᵀ y = c_free in balls (complementary
    slackness; the variables at a bound are paid for by the box in :func:`_dual_upper`)."""
    if basis is None or not basis[0]:
        return None
    pick, free = basis
    return _multipliers_on(st, c, rows, pick, free)


def _polish_dual(
    st: _Setting, c: tuple[Fraction, ...], rows: list[tuple[int, ...]], A: np.ndarray, y: np.ndarray, cf: np.ndarray
) -> list[Fraction] | None:
    """Row multipliers solved in balls on the support of HiGHS's duals: Σ_i y_i a_ij = c_j for the columns whose
    reduced cost is (near) zero."""
    sup = [i for i in range(len(rows)) if y[i] > 0]
    if not sup:
        return None
    red = cf - A[sup].T @ y[sup]
    scale = max(1.0, float(np.abs(cf).max()))
    cols0 = sorted(range(len(cf)), key=lambda j: (abs(red[j]), j))
    cols0 = [j for j in cols0 if abs(red[j]) <= 1e-7 * scale]
    pick = _independent(A[sup].T, cols0, len(sup))
    if pick is None:
        return None
    return _multipliers_on(st, c, rows, sup, pick)


def _multipliers_on(
    st: _Setting, c: tuple[Fraction, ...], rows: list[tuple[int, ...]], support: list[int], cols: list[int]
) -> list[Fraction] | None:
    """Row multipliers y on ``support`` solving Σ_i y_i a_ij = c_j for ``cols`` in balls, rounded to nonnegative
    rationals (zero off the support); None when that system is singular in balls."""
    from dpcert.arith.ball import ball, workprec

    with workprec(DUAL_PREC):
        rhs = [ball(c[j]) for j in cols]
    sol = _solve_ball(st, [rows[i] for i in support], cols, rhs, transpose=True)
    if sol is None:
        return None
    out = [Fraction(0)] * len(rows)
    for i, v in zip(support, sol, strict=True):
        out[i] = max(_round_frac(v, DUAL_PREC - 56), Fraction(0))
    return out


def _vertex(
    st: _Setting, rows: list[tuple[int, ...]], A: np.ndarray, g: np.ndarray, y: np.ndarray, cf: np.ndarray, bf: float
) -> tuple[tuple[Fraction, ...], np.ndarray, np.ndarray, tuple[list[int], list[int]] | None]:
    """The LP's vertex as rationals: polished in balls when its active set holds (no working row violated by more
    than 1e-13), else after up to :data:`REFINE_ROUNDS` correction LPs (iterative refinement: the same LP in the
    shifted, scaled variable λ(g − g_k), whose tolerance is 1/λ times finer); the doubles as a last resort.

    Returns:
        (vertex, g, y, basis): the rational vertex, the (refined) float primal and duals, and the vertex's tight
        rows and free variables when it was polished (else None).
    """
    from scipy.optimize import linprog

    if not len(rows):  # only the box: the variables at their bounds
        snapped = tuple(Fraction(0) if v <= 1e-9 else Fraction(1) if v >= 1 - 1e-9 else Fraction(float(v)) for v in g)
        return snapped, g, y, None
    for _ in range(REFINE_ROUNDS + 1):
        pb = _polish_primal(st, rows, A, g, y)
        if pb is not None and float((A @ np.array([float(v) for v in pb[0]]) - bf).max()) <= 1e-13:
            return pb[0], g, y, (pb[1], pb[2])
        slack = bf - A @ g
        lam = min(1.0 / max(float(-slack.min()), 1e-14), 1e10)
        res = linprog(
            -cf,
            A_ub=A,
            b_ub=lam * slack,
            bounds=list(zip(-lam * g, lam * (1 - g), strict=True)),
            method="highs",
            options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
        )
        if res.status != 0:
            break
        g = np.clip(g + np.asarray(res.x) / lam, 0.0, 1.0)
        y = np.maximum(-np.asarray(res.ineqlin.marginals), 0.0)
    return tuple(Fraction(float(v)) for v in g), g, y, None


# --------------------------------------------------------------------------------------------- result


@dataclass(frozen=True)
class OptimizeResult:
    """The optimised γ with its certificates.

    Attributes:
        gamma: γ(0..K) shipped, exact rationals, symmetric.
        verdict: the exact all-multiset certifier's verdict on ``gamma`` (CERTIFIED: DaRRM_γ is (mε, δ)-DP).
        privacy: that certifier's full result (:class:`~dpcert.darrm.privacy.PrivacyResult`).
        error: E(DaRRM_γ) under the prior, exact (i.i.d. mechanisms with p = μ); for a Monte-Carlo prior, the
            estimated objective at γ (exact for those coefficients, an estimate of the error).
        lower_bound: a certified lower bound on the optimum of the LP over all of 𝒫 (weak duality, balls).
        gap: error − lower_bound, exact: the shipped γ is within ``gap`` of the optimum.
        rounds: constraint-generation rounds (float passes over 𝒫).
        rows: rows in the final working set.
        shrink: t of the feasibility shrink γ = (1 − t)·g_LP rounded down to multiples of 2^-k (0 when a baseline
            is shipped or none was needed).
        shrink_cost: what the shrink cost in error, exact.
        source: ``"lp"`` or the baseline shipped (``"sub"``, ``"dsub"``, ``"one"``).
        status: ``"optimal"`` (within ``gap``) or ``"only_zero"`` (only γ ≡ 0 is private).
        lp_value: the float LP's error on the final working set (evidence, not a bound).
        seconds: wall time.
    """

    K: int
    m: Fraction
    eps: Fraction
    Delta: Fraction
    delta: Fraction
    prior: Any  # a Fraction μ or a MonteCarloPrior
    gamma: tuple[Fraction, ...]
    verdict: Verdict
    error: Fraction
    lower_bound: Fraction
    gap: Fraction
    rounds: int
    rows: int
    shrink: Fraction
    shrink_cost: Fraction
    source: str
    status: str
    lp_value: float
    seconds: float
    privacy: Any = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The contract's keys (``verdict``, ``gamma``, ``error``, ``gap``, ``rounds``) and the rest."""
        from dpcert.arith.exact import fraction_to_decimal

        def enc(lo: Fraction, hi: Fraction) -> dict[str, str]:
            return {"lo": _text(lo), "hi": _text(hi)}

        return {
            "verdict": self.verdict.value,
            "gamma": [_text(v) for v in self.gamma],
            "error": enc(self.error, self.error),
            "gap": enc(Fraction(0), self.gap),
            "rounds": self.rounds,
            "lower_bound": _text(self.lower_bound),
            "error_decimal": fraction_to_decimal(self.error, 15, "nearest"),
            "gap_decimal_up": fraction_to_decimal(self.gap, 6, "up") if self.gap else "0",
            "status": self.status,
            "source": self.source,
            "shrink": _text(self.shrink),
            "shrink_cost": _text(self.shrink_cost),
            "rows": self.rows,
            "lp_value_float": self.lp_value,
            "K": self.K,
            "m": str(self.m),
            "eps": str(self.eps),
            "Delta": str(self.Delta),
            "delta": str(self.delta),
            "prior": str(self.prior),
            "objective": "exact" if isinstance(self.prior, Fraction) else "monte-carlo estimate (float evidence)",
            "max_margin": self.privacy.margin.to_json() if self.privacy is not None else None,
            "seconds": round(self.seconds, 4),
        }


def _text(v: Fraction) -> str:
    from flint import fmpq

    return str(fmpq(v.numerator, v.denominator))


def write_table(path: Any, gamma: tuple[Fraction, ...]) -> None:
    """Write γ as CSV ``l,gamma`` with exact fractions, atomically (:func:`~dpcert.darrm.gamma.load_table` reads it).

    ``path`` ``"-"`` is standard output; a device, FIFO, symlink or read-only directory is refused
    (:func:`~dpcert.core.files.atomic_write_text`).

    Raises:
        InvalidParameter: (naming ``--out``) for a path dpcert must not write.
        OSError: when the file cannot be written.
    """
    import sys

    from dpcert.core.files import atomic_write_text

    text = "l,gamma\n" + "".join(f"{l},{_text(v)}\n" for l, v in enumerate(gamma))
    if path == "-":
        sys.stdout.write(text)
        return
    atomic_write_text(path, text, what="--out")


# --------------------------------------------------------------------------------------------- optimize


def _check(K: Any, m: Any, eps: Any, Delta: Any, delta: Any, prior: Any) -> tuple[_Setting, Any]:
    """The inputs checked as ``darrm certify`` checks them (:func:`dpcert.darrm.privacy.problem`) and μ."""
    from dpcert.darrm.kernel import MAX_K, MAX_M_EPS
    from dpcert.darrm.privacy import problem

    K = check_k(K)
    if K > MAX_K:
        raise InvalidParameter("K", K, f"an odd integer <= {MAX_K} (the float kernel's error analysis)")
    pr = problem(gamma_one(K), K, m, eps, Delta, delta)
    if pr.m * pr.eps > MAX_M_EPS:
        raise InvalidParameter("m*eps", pr.m * pr.eps, f"at most {MAX_M_EPS}")
    from dpcert.darrm.mc_prior import MonteCarloPrior, parse_prior

    mu = parse_prior(prior)
    if isinstance(mu, MonteCarloPrior):
        mu.check_size(K)
    return _Setting(K, pr.m, pr.eps, pr.Delta, pr.delta), mu


def _baselines(st: _Setting) -> list[tuple[str, Gamma]]:
    out = [("one", gamma_one(st.K))]
    if st.m.denominator == 1:
        m = int(st.m)
        out.append(("sub", gamma_sub(st.K, m)))
        if 2 * m - 1 <= st.K - 2:
            out.append(("dsub", gamma_dsub(st.K, m)))
    return out


def optimize(
    K: Any,
    m: Any,
    eps: Any,
    Delta: Any,
    delta: Any,
    prior: Any = PRIOR_DEFAULT,
    *,
    workers: int = 1,
    progress: Callable[[dict[str, Any]], None] | None = None,
    run: Any = None,
) -> OptimizeResult:
    """γ_opt for K (ε, Δ)-DP mechanisms and the target (mε, δ), under a product prior of mean ``prior``.

    Args:
        K, m, eps, Delta, delta: as ``darrm certify`` (K odd, 1 <= m <= K, 0 <= Δ <= δ < 1, ε >= 0).
        prior: μ, the prior mean (3/4: the paper's [0.5, 1]^K surrogate; 17/20 its T_P prior), or a seeded
            Monte-Carlo estimate of the objective as the paper computes it (Algorithms 4/5, e.g.
            ``"mc:grid(0.5,1,50):seed=0:samples=10000"``; :mod:`dpcert.darrm.mc_prior`): the error, lower bound
            and gap are then certified for that estimated objective.
        workers: processes for the float passes and the final certification (results identical for any number).
        run: executor, workers and checkpoint (:class:`dpcert.core.parallel.RunOptions`); its ``workers`` wins.
        progress: called after each round with ``{"round", "violated", "max_violation", "rows", "lp_error",
            "gap_estimate"}`` (floats: evidence).

    Returns:
        An :class:`OptimizeResult`; deterministic for given inputs.

    Raises:
        InvalidParameter: inputs outside the paper's domain (as ``darrm certify``), μ outside [0, 1].
    """
    return _optimize(K, m, eps, Delta, delta, prior, workers, progress, True, run)


def lower_bound(
    K: Any, m: Any, eps: Any, Delta: Any, delta: Any, prior: Any = PRIOR_DEFAULT, *, workers: int = 1
) -> Fraction:
    """A certified lower bound on the least error (under the prior) of any private symmetric γ: the LP of
    :func:`optimize` and its weak-duality bound, without certifying a table.

    Raises:
        InvalidParameter: as :func:`optimize`.
    """
    return _optimize(K, m, eps, Delta, delta, prior, workers, None, False)


def _optimize(
    K: Any,
    m: Any,
    eps: Any,
    Delta: Any,
    delta: Any,
    prior: Any,
    workers: int,
    progress: Callable[[dict[str, Any]], None] | None,
    prove: bool,
    run_options: Any = None,
) -> Any:
    from dpcert.darrm.privacy import certify, problem

    t0 = time.perf_counter()
    st, mu = _check(K, m, eps, Delta, delta, prior)
    K = st.K
    H = (K - 1) // 2
    c, E0 = objective(K, mu) if isinstance(mu, Fraction) else mu.coefficients(K)
    cmax = max(c) if max(c) > 0 else Fraction(1)
    cf = np.array([float(cj / cmax) for cj in c])
    fs = _base(st)
    bf = fs.b / (1 + fs.X)
    tol = 1e-12 * (1 + fs.X)

    rows: list[tuple[int, ...]] = []
    A = np.zeros((0, H + 1))
    rounds = 0
    while True:
        g, y, val = _solve(cf, A, np.full(len(rows), bf))
        g_rat, g, y, basis = _vertex(st, rows, A, g, y, cf, bf)
        total, found = _pass(st, _full(g_rat, K), KEEP_PER_CHUNK, tol, workers, run_options)
        rounds += 1
        have = set(rows)
        new = [r for _, r in found if r not in have][: max(KEEP_PER_CHUNK, H + 1)]
        hi = None
        if not new or rounds >= MAX_ROUNDS:  # violated below the float kernel's resolution, seen in balls
            hi, fine = _max_margin_upper(st, g_rat, total)
            new = [r for _, r in fine if r not in have][: max(KEEP_PER_CHUNK, H + 1)]
        if progress is not None:
            v = found[0][0] if found else 0.0
            t_est = v / (fs.b + v) if fs.b > 0 else 0.0
            lp_err = float(E0) - val * float(cmax)
            err_est = float(_error(c, g_rat)) + t_est * float(sum(cj * gj for cj, gj in zip(c, g_rat, strict=True)))
            progress(
                {
                    "round": rounds,
                    "violated": total.counts.get("violated", 0),
                    "max_violation": v,
                    "rows": len(rows),
                    "lp_error": lp_err,
                    "gap_estimate": err_est - lp_err,
                }
            )
        if not new or rounds >= MAX_ROUNDS:
            break
        rows += new
        A = np.vstack([A, _float_rows(st, new)])

    assert hi is not None  # the last round computed it
    b_lo = _b_lower(st)
    one_x = _one_plus_x_upper(st)

    # certified feasibility: the vertex shrunk as the last pass proves enough (the rounding moves a margin by at
    # most 2^-k·Σ_j |a_j(n)| <= 2^-k (1 + X))
    if hi <= 0 or b_lo <= 0:
        g_ship, t = g_rat, Fraction(0)
    else:
        k = max(16, (one_x / hi).__ceil__().bit_length())  # 2^-k (1 + X) <= hi
        t = _round_up((hi + one_x / 2**k) / (b_lo + hi))
        g_ship = tuple(Fraction(((1 - t) * v * 2**k).__floor__(), 2**k) for v in g_rat)
    err_lp = _error(c, g_ship)
    shrink_cost = err_lp - _error(c, g_rat)

    # certified optimality: weak duality, with HiGHS's duals and with duals polished in balls (the better bound)
    U = _dual_upper(st, c, rows, [Fraction(float(v)) * cmax for v in y])
    for yp in (_polish_dual(st, c, rows, A, y, cf) if rows else None, _basis_dual(st, c, rows, basis)):
        if yp is not None:
            U = min(U, _dual_upper(st, c, rows, yp))
    lower = max(E0 - U, Fraction(0))
    if not prove:
        return lower

    def run(gam: Gamma) -> Any:
        pr = problem(gam, K, st.m, st.eps, st.Delta, st.delta)
        return certify(pr, workers=workers, run=run_options)

    shipped, source, err = _full(g_ship, K), "lp", err_lp
    res = None
    if t > 0 and all(v == 1 for v in g_rat):
        # γ ≡ 1 often has margins identically 0 (a ball never proves those <= 0): the exact certifier decides them
        r1 = run(gamma_one(K))
        if r1.verdict == Verdict.CERTIFIED:
            shipped, source, err, res, t, shrink_cost = (
                gamma_one(K).table,
                "one",
                Fraction(0),
                r1,
                Fraction(0),
                Fraction(0),
            )
    if res is None:
        res = run(Gamma("optimized", shipped))
    # a baseline that may be optimal (its error between the lower bound and ours) is certified and shipped if private
    for name, gam in _baselines(st):
        gb = tuple(gam.table[: H + 1])
        eb = _error(c, gb)
        if lower <= eb < err:
            rb = run(gam)
            if rb.verdict == Verdict.CERTIFIED:
                shipped, source, err, res, t, shrink_cost = gam.table, name, eb, rb, Fraction(0), Fraction(0)
    status = "only_zero" if lower == E0 and all(cj > 0 for cj in c) else "optimal"
    return OptimizeResult(
        K,
        st.m,
        st.eps,
        st.Delta,
        st.delta,
        mu,
        tuple(shipped),
        res.verdict,
        err,
        lower,
        err - lower,
        rounds,
        len(rows),
        t,
        shrink_cost,
        source,
        status,
        float(E0) - val * float(cmax),
        time.perf_counter() - t0,
        res,
    )


def _b_lower(st: _Setting) -> Fraction:
    """A rational lower bound on b = e^{mε} − 1 + 2δ."""
    from dpcert.arith.ball import ball, fraction_of, workprec

    with workprec(128):
        bb = (ball(st.m) * ball(st.eps)).exp() - 1 + 2 * ball(st.delta)
        return max(fraction_of(bb.mid()) - fraction_of(bb.rad()), Fraction(0))


def _one_plus_x_upper(st: _Setting) -> Fraction:
    """A rational upper bound on 1 + e^{mε}."""
    from dpcert.arith.ball import ball, fraction_of, workprec

    with workprec(128):
        v = 1 + (ball(st.m) * ball(st.eps)).exp()
        return fraction_of(v.mid()) + fraction_of(v.rad())


def _round_up(t: Fraction, bits: int = 64) -> Fraction:
    """t rounded up to a multiple of 2^-bits relative to its size (a short rational >= t)."""
    if t <= 0:
        return Fraction(0)
    e = t.numerator.bit_length() - t.denominator.bit_length()
    scale = Fraction(2) ** (bits - e)
    q = -((-t * scale).__floor__())
    return min(Fraction(q) / scale, Fraction(1))
