"""Theorem 4.1's setting: K identical mechanisms, all with the same (p, p') in the feasible polygon F.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

Then α = Bin(K, p), α' = Bin(K, p') and the margin is g(p, p') = s·(φ(p) − e^{mε} φ(p')) − (e^{mε} − 1 + 2δ),
with φ(β) = Σ_l w(l) Bin(K, β)(l), w(l) = −γ(l) for l <= H and +γ(l) above, s = γ's scale.

**Certified maximisation (boundary reduction, proved here).** Hypotheses, both checked exactly:
(H1) s(e^ε) >= 0 and (H2) w(l + 1) >= w(l) for l = 0..K−1. By φ'(β) = K Σ_l (w(l+1) − w(l)) Bin(K−1, β)(l),
(H2) makes φ non-decreasing on [0, 1] (the paper's Lemma B.2 for symmetric monotone γ). For fixed p',
the section {p : (p, p') ∈ F} is an interval: the lower constraints p' <= e^ε p + Δ and 1 − p <= e^ε(1 − p') + Δ hold
at p = p' and only get looser as p grows, so its right end is u(p') = min(1, e^ε p' + Δ, 1 − (1 − p' − Δ)/e^ε)
(>= p'). Under (H1)–(H2) g(·, p') is non-decreasing, so max_F g = max_{p'} g(u(p'), p'). With T = (1 − Δ)/(e^ε + 1)
the graph of u consists of three segments:

* edge A, p' = t, p = e^ε t + Δ, t ∈ [0, T];
* edge B, p = 1 − q, p' = 1 − Δ − e^ε q, q ∈ [0, T];
* edge C, p = 1, p' ∈ [1 − Δ, 1], where g is non-increasing in p', so its max is B's end q = 0.

(Lemma B.1's boundaries (b) and (c), with Δ; no monotonicity of γ beyond (H2) and no δ = Δ = 0 needed.) On each
edge the margin h(t) is a polynomial of t whose coefficients are balls (x = e^ε is transcendental). Its maximum
on [0, T⁺] (T⁺ >= T the upper end of T's ball, a superset of the edge) is found by interval branch-and-bound: on a
box, the least of the mean-value form h(mid) + h'(box)·[−r, r] and the monotone bound (φ non-decreasing) bounds h
from above; φ and φ' are evaluated in Bernstein form, whose terms have no cancellation. The constraint is often
tight at t = 0 (g(0, 0) = 0 when γ(0)s = 1 and δ = 0, docs/derivations/darrm.md#identical-mechanisms): there the exact
Taylor coefficients of h at
0 (rational functions of x when m is an integer) are found; if h(0) = 0 exactly and the first non-zero coefficient
c_k has certified sign < 0, then h(t) = t^k q(t) with q < 0 on [0, r₀] (interval Horner of q), and branch-and-bound
covers [r₀, T⁺] only. Verdicts: CERTIFIED when every box has upper bound <= 0, REFUTED with a rational point
certified inside F whose margin is certified > 0, UNDECIDED when the box budget runs out (the bracket is reported).

When (H1)–(H2) fail (a non-monotone user table, say), the i.i.d. mode falls back to the multiset certificate (the
i.i.d. configurations are a subset of F^K) and to a search for a certified i.i.d. counterexample point.

References:
    DaRRM (Jiang–Zhang–Joshi), Theorem 4.1, Lemmas B.1–B.3, B.5, B.10 [JZJ24];
    docs/derivations/darrm.md#identical-mechanisms.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

from flint import arb, arb_poly, fmpq, fmpq_poly

from dpcert.arith.ball import Enclosure, ball, fraction_of, poly_at, sign_at_exp, workprec
from dpcert.arith.exact import RationalFunction, X
from dpcert.core.claim import Verdict
from dpcert.darrm.privacy import PrivacyResult, Problem, certify, narrow_margin, row_margin
from dpcert.errors import PrecisionExhausted

__all__ = ["IidResult", "EdgeMax", "certify_iid", "iid_margin", "in_region", "iid_hypotheses", "maximise_iid"]

#: Boxes examined per edge before the branch-and-bound gives up (UNDECIDED).
BOX_BUDGET = 20000
#: Working precision of the branch-and-bound (bits).
BNB_PREC = 320
#: Below this magnitude the branch-and-bound's relative gap becomes absolute (rel_gap times this).
_GAP_FLOOR = Fraction(1, 10**6)


def iid_margin(pr: Problem, p: Fraction, pp: Fraction, prec: int = 256) -> arb:
    """A ball enclosing f(p, p') − (e^{mε} − 1 + 2δ) for K identical mechanisms with rational (p, p')."""
    K, H = pr.K, (pr.K - 1) // 2
    with workprec(prec):
        X_ = (ball(pr.m) * ball(pr.eps)).exp()
        s = _scale_ball(pr)

        def phi(q: Fraction) -> arb:
            acc = arb(0)
            for l, g in enumerate(pr.gamma.table):
                if g:
                    acc += (-1 if l <= H else 1) * ball(g * comb(K, l) * q**l * (1 - q) ** (K - l))
            return acc

        return s * (phi(p) - X_ * phi(pp)) - (X_ - 1 + 2 * ball(pr.delta))


def _scale_ball(pr: Problem) -> arb:
    sc = pr.gamma.scale
    if isinstance(sc, RationalFunction):
        x = ball(pr.eps).exp()
        return poly_at(sc.num, x) / poly_at(sc.den, x)
    return ball(sc)


def in_region(pr: Problem, p: Fraction, pp: Fraction) -> bool:
    """(p, p') certainly inside F (all four DP constraints and the box)."""
    if not (0 <= p <= 1 and 0 <= pp <= 1):
        return False
    with workprec(128):
        x, D = ball(pr.eps).exp(), ball(pr.Delta)
        P, PP = ball(p), ball(pp)
        return bool(
            (P <= x * PP + D) and (PP <= x * P + D) and (1 - P <= x * (1 - PP) + D) and (1 - PP <= x * (1 - P) + D)
        )


# --------------------------------------------------------------------------------------- φ and its derivative


def _weights(pr: Problem) -> tuple[Fraction, ...]:
    H = (pr.K - 1) // 2
    return tuple(-g if l <= H else g for l, g in enumerate(pr.gamma.table))


def iid_hypotheses(pr: Problem) -> tuple[bool, str]:
    """(H1) scale >= 0 at e^ε and (H2) w(l+1) >= w(l): φ non-decreasing, the boundary reduction applies."""
    w = _weights(pr)
    bad = [l for l in range(pr.K) if w[l + 1] < w[l]]
    if bad:
        return False, f"phi is not certified non-decreasing: w({bad[0] + 1}) < w({bad[0]})"
    sc = pr.gamma.scale
    if isinstance(sc, RationalFunction):
        try:
            if sign_at_exp(sc, pr.eps, max_prec=pr.max_prec) < 0:
                return False, "the scale of gamma is negative at e^eps"
        except PrecisionExhausted:
            return False, "the sign of gamma's scale is undecided"
    elif sc < 0:
        return False, "the scale of gamma is negative"
    return True, "phi non-decreasing (w(l+1) >= w(l)) and scale >= 0"


def _bernstein(c: tuple[arb, ...], beta: arb) -> arb:
    """Σ_l c_l C(n, l) β^l (1 − β)^{n−l}, n = len(c) − 1, with c_l already multiplied by C(n, l)."""
    n = len(c) - 1
    one_minus = 1 - beta
    q = [arb(1)]
    for _ in range(n):
        q.append(q[-1] * one_minus)
    acc, bp = arb(0), arb(1)
    for l in range(n + 1):
        if l:
            bp = bp * beta
        if c[l] != 0:
            acc += c[l] * bp * q[n - l]
    return acc


@lru_cache(maxsize=64)
def _phi_poly(table: tuple[Fraction, ...]) -> fmpq_poly:
    """φ(β) as an exact polynomial in β (scale excluded)."""
    K, H = len(table) - 1, (len(table) - 2) // 2
    b = fmpq_poly([0, 1])
    acc = fmpq_poly()
    for l, g in enumerate(table):
        if g:
            sg = -g if l <= H else g
            acc += fmpq(sg.numerator, sg.denominator) * comb(K, l) * b**l * (1 - b) ** (K - l)
    return acc


# ------------------------------------------------------------------------------------------- one edge


@dataclass
class EdgeMax:
    """The certified maximum of the margin along one edge of F (t ∈ [0, T]).

    Attributes:
        edge: "A" or "B".
        verdict: CERTIFIED (max <= 0), REFUTED (a certified point with margin > 0), UNDECIDED.
        enclosure: encloses the maximum of the margin along the edge (its lower end a margin attained on the edge,
            its upper end a bound over the whole edge); an end is ``None`` when unknown.
        argmax: the t-interval of the box holding the best value found.
        boxes: boxes examined by the branch-and-bound.
        tangent: what was proved at t = 0.
        point: REFUTED only: a rational point (p, p') certified inside F whose margin is certified > 0.
        point_margin: the margin at ``point`` (a value at that point, not the maximum).
    """

    edge: str
    verdict: Verdict
    enclosure: Enclosure
    argmax: tuple[Fraction, Fraction]
    boxes: int
    tangent: str = ""
    point: tuple[Fraction, Fraction] | None = None
    point_margin: Enclosure | None = None


class _Edge:
    """h(t) = s·φ(p0 + p1 t) − s·X·φ(q0 + q1 t) − c on t ∈ [0, T⁺] (balls at the working precision)."""

    def __init__(self, pr: Problem, name: str) -> None:
        self.pr, self.name = pr, name
        x, D = ball(pr.eps).exp(), ball(pr.Delta)
        self.x = x
        if name == "A":  # p' = t, p = e^eps t + Delta
            self.p0, self.p1, self.q0, self.q1 = D, x, arb(0), arb(1)
        else:  # p = 1 - q, p' = 1 - Delta - e^eps q
            self.p0, self.p1, self.q0, self.q1 = arb(1), arb(-1), 1 - D, -x
        self.s = _scale_ball(pr)
        self.X = (ball(pr.m) * ball(pr.eps)).exp()
        self.c = self.X - 1 + 2 * ball(pr.delta)
        K = pr.K
        w = _weights(pr)
        self.w = tuple(ball(w[l] * comb(K, l)) for l in range(K + 1))
        self.d = tuple(ball(K * (w[l + 1] - w[l]) * comb(K - 1, l)) for l in range(K))
        self.T = (1 - D) / (x + 1)

    def h(self, t: arb) -> arb:
        P, Q = self.p0 + self.p1 * t, self.q0 + self.q1 * t
        return self.s * (_bernstein(self.w, P) - self.X * _bernstein(self.w, Q)) - self.c

    def dh(self, t: arb) -> arb:
        P, Q = self.p0 + self.p1 * t, self.q0 + self.q1 * t
        return self.s * (self.p1 * _bernstein(self.d, P) - self.X * self.q1 * _bernstein(self.d, Q))

    def upper(self, a: Fraction, b: Fraction) -> tuple[arb, arb]:
        """(an upper bound of h on [a, b], h at the midpoint)."""
        mid, r = (a + b) / 2, (b - a) / 2
        box = ball(mid) + arb(0, ball(r))
        hm = self.h(ball(mid))
        mv = hm + self.dh(box) * arb(0, ball(r))
        A, B = ball(a), ball(b)
        # φ non-decreasing: φ(p(t)) <= φ at the larger end of p, φ(p'(t)) >= φ at the smaller end
        pa, pb = _bernstein(self.w, self.p0 + self.p1 * A), _bernstein(self.w, self.p0 + self.p1 * B)
        qa, qb = _bernstein(self.w, self.q0 + self.q1 * A), _bernstein(self.w, self.q0 + self.q1 * B)
        pmax = pb if self.name == "A" else pa
        qmin = qa if self.name == "A" else qb
        mono = self.s * (pmax - self.X * qmin) - self.c
        up = min(mv.upper(), mono.upper())
        return up, hm

    def point(self, t: Fraction) -> tuple[Fraction, Fraction] | None:
        """A rational point of F next to the edge at parameter t (rounded inwards), or None."""
        pr = self.pr
        nudge = Fraction(1, 2**100)  # inwards by far more than the 128-bit membership test can resolve
        with workprec(BNB_PREC):
            if self.name == "A":
                p = fraction_of((self.x * ball(t) + ball(pr.Delta)).lower()) - nudge * (t + pr.Delta)
                cand = (max(_round(p, -1), Fraction(0)), t)
            else:
                pp = fraction_of((1 - ball(pr.Delta) - self.x * ball(t)).upper()) + nudge * t
                cand = (1 - t, min(_round(pp, 1), Fraction(1)))
        return cand if in_region(pr, *cand) else None

    def exact_coefficients(self, kmax: int) -> list[RationalFunction] | None:
        """The exact Taylor coefficients c_0..c_kmax of h at t = 0 as rational functions of x (integer m only)."""
        pr = self.pr
        if not pr.integer_m:
            return None
        phi = _phi_poly(pr.gamma.table)
        D = fmpq(pr.Delta.numerator, pr.Delta.denominator)
        if self.name == "A":
            P = phi(fmpq_poly([D, 1])).coeffs()  # φ(Δ + v), then v = x t
            Q = phi(fmpq_poly([0, 1])).coeffs()
            pk, qk = 1, 0
        else:
            P = phi(fmpq_poly([1, -1])).coeffs()  # φ(1 − q)
            Q = phi(fmpq_poly([1 - D, -1])).coeffs()  # φ(1 − Δ − v), v = x q
            pk, qk = 0, 1
        s = pr.gamma.scale
        Xm = X ** int(pr.m)
        out = []
        for k in range(kmax + 1):
            a = Fraction(int(P[k].p), int(P[k].q)) if k < len(P) else Fraction(0)
            b = Fraction(int(Q[k].p), int(Q[k].q)) if k < len(Q) else Fraction(0)
            ck = s * (a * X ** (k * pk) - Xm * b * X ** (k * qk))
            if k == 0:
                ck = ck - (Xm - 1 + 2 * pr.delta)
            out.append(ck if isinstance(ck, RationalFunction) else RationalFunction(fmpq_poly([0])) + ck)
        return out


def _round(v: Fraction, direction: int) -> Fraction:
    """v rounded to a multiple of 2^-120, down (direction < 0) or up: short counterexample points."""
    n = v * 2**120
    k = n.numerator // n.denominator if direction < 0 else -((-n.numerator) // n.denominator)
    return Fraction(k, 2**120)


def _tangent_start(e: _Edge) -> tuple[str, Fraction, Verdict | None]:
    """Handle t = 0: returns (note, r0, verdict-or-None). r0 > 0 when [0, r0] is proved <= 0 exactly."""
    pr = e.pr
    with workprec(BNB_PREC):
        h0 = e.h(arb(0))
    if h0 < 0:
        return "", Fraction(0), None
    if h0 > 0:
        return "margin > 0 at the edge's end t = 0", Fraction(0), Verdict.REFUTED
    coeffs = e.exact_coefficients(pr.K)
    if coeffs is None:
        return "t = 0 undecided (non-integer m: no exact expansion)", Fraction(0), Verdict.UNDECIDED
    ks = [k for k, c in enumerate(coeffs) if not c.is_zero()]
    if not ks:
        return "h vanishes identically on the edge", Fraction(0), Verdict.CERTIFIED
    k = ks[0]
    sg = sign_at_exp(coeffs[k], pr.eps, max_prec=pr.max_prec)
    if k == 0:
        return "", Fraction(0), (Verdict.REFUTED if sg > 0 else None)
    if sg > 0:
        return f"h(0) = 0 and c_{k} > 0: margin > 0 just inside the edge", Fraction(0), Verdict.REFUTED
    with workprec(BNB_PREC):
        x = ball(pr.eps).exp()
        q = arb_poly([poly_at(c.num, x) / poly_at(c.den, x) for c in coeffs[k:]])
        r0 = Fraction(1, 2)
        for _ in range(200):
            if q(ball(r0 / 2) + arb(0, ball(r0 / 2))) < 0:
                return f"h(0) = 0 exactly; h = t^{k}·q(t) with q < 0 on [0, {r0}]", r0, None
            r0 /= 2
    return "t = 0 tangency undecided", Fraction(0), Verdict.UNDECIDED


def _branch_and_bound(
    e: _Edge, r0: Fraction, T_hi: Fraction, *, budget: int, rel_gap: Fraction, stop_when_decided: bool
) -> tuple[Fraction | None, tuple[Fraction, Fraction] | None, Fraction, int]:
    """Enclose max h on [r0, T⁺] (and the exact 0 at t = 0 when r0 > 0): (lower, its box, upper, boxes).

    The lower end is h at a point of the edge (a box's midpoint, or T's lower end when the midpoint lies beyond
    it), so a margin attained in F; the upper end bounds h on every box left. It stops when the sign of the maximum
    is decided and the gap is below ``rel_gap`` (or the budget is spent); ``stop_when_decided`` also stops soon
    after a positive value is found (a verdict only, not the maximum).
    """
    zero = Fraction(0)
    best_lo, best_t = (zero, (zero, zero)) if r0 > 0 else (None, None)
    best_hi_val = zero if r0 > 0 else None
    heap: list[tuple[Fraction, Fraction, Fraction]] = []
    boxes = 0
    with workprec(BNB_PREC):
        T_lo = fraction_of(e.T.lower())

    def push(a: Fraction, b: Fraction) -> None:
        nonlocal best_lo, best_t, boxes
        boxes += 1
        with workprec(BNB_PREC):
            up, hm = e.upper(a, b)
            if (a + b) / 2 > T_lo:  # the midpoint may lie beyond the edge's end: take a value on the edge
                hm = e.h(ball(T_lo))
        lo = fraction_of(hm.lower())
        if best_lo is None or lo > best_lo:
            best_lo, best_t = lo, (a, b)
        heapq.heappush(heap, (-fraction_of(up), a, b))

    push(r0, T_hi)
    while heap:
        U = -heap[0][0]
        if best_hi_val is not None and best_hi_val > U:
            U = best_hi_val
        L = best_lo
        # the sign decided and the gap closed: relative to the maximum, absolute only below 10^-6
        if (U <= 0 or L > 0) and U - L <= rel_gap * max(abs(L), _GAP_FLOOR):
            break
        if boxes >= budget:
            break
        if stop_when_decided and L > 0 and boxes > 200:
            break
        negU, a, b = heapq.heappop(heap)
        if -negU < L:  # cannot hold the maximum
            continue
        m = (a + b) / 2
        push(a, m)
        push(m, b)
    U = max([-h[0] for h in heap[:1]] + ([best_hi_val] if best_hi_val is not None else []) + [best_lo])
    return best_lo, best_t, U, boxes


def _refuting_point(pr: Problem, e: _Edge, ts: list[Fraction]) -> tuple[tuple[Fraction, Fraction], Enclosure] | None:
    """The first rational point of F next to the edge at one of ``ts`` whose margin is certified > 0."""
    for t in ts:
        pt = e.point(t)
        if pt is not None:
            b = iid_margin(pr, *pt, prec=BNB_PREC)
            if b > 0:
                return pt, Enclosure.from_ball(b)
    return None


def maximise_edge(
    pr: Problem, name: str, *, budget: int = BOX_BUDGET, rel_gap: Fraction = Fraction(1, 10**9)
) -> EdgeMax:
    """Certified max of the margin along edge ``name`` ("A" or "B") of F, under (H1)–(H2).

    The enclosure is of the maximum in every verdict; a REFUTED edge also gives a rational counterexample point
    and the margin there (a value at that point, below the maximum).
    """
    with workprec(BNB_PREC):
        e = _Edge(pr, name)
        T_hi = fraction_of(e.T.upper())
    note, r0, v0 = _tangent_start(e)
    zero = Fraction(0)
    if v0 == Verdict.REFUTED:
        # find a rational point inside F with a certified positive margin, walking towards t = 0
        t, ts = min(T_hi, Fraction(1, 4)), []
        for _ in range(400):
            ts.append(t)
            t /= 2
        found = _refuting_point(pr, e, [*ts, zero])
        if found is None:
            return EdgeMax(
                name, Verdict.UNDECIDED, Enclosure(zero, None), (zero, zero), 0, note + "; no rational point"
            )
        lo, arg, U, boxes = _branch_and_bound(e, zero, T_hi, budget=budget, rel_gap=rel_gap, stop_when_decided=False)
        enc = Enclosure(max(found[1].lo, lo if lo is not None else found[1].lo), max(U, found[1].hi))
        return EdgeMax(name, Verdict.REFUTED, enc, arg or (zero, zero), boxes, note, *found)
    if v0 == Verdict.UNDECIDED:
        return EdgeMax(name, Verdict.UNDECIDED, Enclosure(None, None), (zero, zero), 0, note)
    if v0 == Verdict.CERTIFIED:
        return EdgeMax(name, Verdict.CERTIFIED, Enclosure.exact(0), (zero, T_hi), 0, note)
    with workprec(BNB_PREC):
        hT = e.h(e.T)
    if not hT < 0:
        # the inner corner (shared by A and B) may be tight; no box containing it can be certified <= 0
        note += "; margin at the inner corner ((e^eps + Delta)/(e^eps + 1), (1 - Delta)/(e^eps + 1)) not < 0"
        if not hT > 0:
            return EdgeMax(name, Verdict.UNDECIDED, Enclosure.from_ball(hT), (T_hi, T_hi), 0, note)
    lo, arg, U, boxes = _branch_and_bound(e, r0, T_hi, budget=budget, rel_gap=rel_gap, stop_when_decided=False)
    enc = Enclosure(lo, U)
    arg = arg if arg is not None else (zero, zero)
    if U <= 0:
        return EdgeMax(name, Verdict.CERTIFIED, enc, arg, boxes, note)
    if lo is not None and lo > 0:
        found = _refuting_point(pr, e, [(arg[0] + arg[1]) / 2, arg[0], arg[1]])
        if found is not None:
            return EdgeMax(name, Verdict.REFUTED, enc, arg, boxes, note, *found)
    return EdgeMax(name, Verdict.UNDECIDED, enc, arg, boxes, note + f"; box budget {budget} exhausted")


def maximise_iid(pr: Problem, *, budget: int = BOX_BUDGET) -> tuple[Verdict, Enclosure, list[EdgeMax]]:
    """The certified max over F of the i.i.d. margin, by the boundary reduction (needs (H1)–(H2)).

    Returns:
        (verdict, enclosure of the maximum over F (the largest of the edges' maxima), the edges).
    """
    edges = [maximise_edge(pr, n, budget=budget) for n in ("A", "B")]
    if any(r.verdict == Verdict.REFUTED for r in edges):
        v = Verdict.REFUTED
    elif all(r.verdict == Verdict.CERTIFIED for r in edges):
        v = Verdict.CERTIFIED
    else:
        v = Verdict.UNDECIDED
    los = [r.enclosure.lo for r in edges if r.enclosure.lo is not None]
    his = [r.enclosure.hi for r in edges]
    hi = None if any(h is None for h in his) else max(his)
    return v, Enclosure(max(los) if los else None, hi), edges


@dataclass
class IidResult:
    """The i.i.d. verdict, its method, and every number labelled for what it is.

    Attributes:
        verdict: CERTIFIED (the largest i.i.d. margin is <= 0), REFUTED, UNDECIDED.
        method: how the verdict was reached.
        finite: the multiset certificate, when the fallback ran (its maximum is over all, not only identical,
            mechanisms: an upper bound of the i.i.d. maximum).
        point: a rational point (p, p') certified inside F: the counterexample when REFUTED by a point, else the
            best i.i.d. point evaluated by the fallback (``None`` when there is none).
        point_margin: the margin at ``point`` (a value at that point).
        corner: REFUTED with all K mechanisms at one corner of F: that corner (its (p, p') depends on e^ε, so it
            is named, not written as a rational point); ``point_margin`` is then the margin there.
        margin: an enclosure of the largest i.i.d. margin over F: the maximum itself when ``margin_is_max``
            (boundary reduction), else a bracket (lower end: a margin attained at an i.i.d. configuration; upper
            end: the all-multiset maximum); ``None`` when nothing is known.
        margin_is_max: whether ``margin`` is the branch-and-bound's enclosure of the maximum (to its gap).
        edges: per-edge maxima of the boundary reduction (``None`` when its hypotheses fail).
    """

    verdict: Verdict
    method: str
    finite: PrivacyResult | None = None
    point: tuple[Fraction, Fraction] | None = None
    margin: Enclosure | None = None
    edges: list[EdgeMax] | None = None
    point_margin: Enclosure | None = None
    corner: str | None = None
    margin_is_max: bool = False


def _candidates(pr: Problem) -> list[tuple[Fraction, Fraction]]:
    with workprec(64):
        xl = fraction_of(ball(pr.eps).exp().lower()) if pr.eps > 0 else Fraction(1)
    pts = []
    for j in (3, 6, 9):
        r = xl * (1 - Fraction(1, 10**j))
        for k in range(1, 40):
            q = Fraction(1, 2**k)
            pts += [(r * q, q), (1 - q, 1 - r * q)]
    n = 40
    pts += [(Fraction(i, n), Fraction(j, n)) for i in range(n + 1) for j in range(n + 1)]
    return pts


def _fallback(pr: Problem, workers: int, why: str, run: Any = None) -> IidResult:
    """The multiset certificate (an upper bound of the i.i.d. maximum) and i.i.d. configurations (lower bounds):
    all K mechanisms at one corner of F, then rational points of F."""
    from dpcert.darrm.corners import corner_label

    fin = certify(pr, workers=workers, run=run)
    hi = fin.margin.hi
    # all K mechanisms at corner j: an i.i.d. configuration whose margin is an exact multiset's
    best_corner: tuple[Enclosure, int] | None = None
    for j in range(pr.n_corners):
        rm = row_margin(pr, tuple(pr.K if i == j else 0 for i in range(pr.n_corners)))
        enc = Enclosure.exact(0) if rm.is_zero() else narrow_margin(rm)
        if best_corner is None or enc.lo > best_corner[0].lo:
            best_corner = (enc, j)
    assert best_corner is not None
    cenc, cj = best_corner
    corner = f"all K mechanisms at (p, p') = {corner_label(pr.Delta, cj)}, x = e^eps"
    best: tuple[tuple[Fraction, Fraction], Enclosure] | None = None
    if fin.verdict != Verdict.CERTIFIED and not cenc.lo > 0:
        for p, pp in _candidates(pr):
            if not in_region(pr, p, pp):
                continue
            enc = Enclosure.from_ball(iid_margin(pr, p, pp))
            if best is None or enc.lo > best[1].lo:
                best = ((p, pp), enc)
    lo = max(cenc.lo, best[1].lo) if best is not None else cenc.lo
    bracket = Enclosure(lo, hi)
    if fin.verdict == Verdict.CERTIFIED:
        return IidResult(
            Verdict.CERTIFIED, f"{why}; implied by the certificate over all corner multisets", fin, margin=bracket
        )
    if cenc.lo > 0:
        return IidResult(Verdict.REFUTED, f"{why}; {corner}", fin, None, bracket, point_margin=cenc, corner=corner)
    if best is not None and best[1].lo > 0:
        return IidResult(
            Verdict.REFUTED, f"{why}; certified i.i.d. point inside F", fin, best[0], bracket, point_margin=best[1]
        )
    return IidResult(
        Verdict.UNDECIDED, f"{why}; multiset check failed and no i.i.d. counterexample found", fin, margin=bracket
    )


def certify_iid(pr: Problem, *, workers: int = 1, budget: int = BOX_BUDGET, run: Any = None) -> IidResult:
    """Decide max over F of the margin of K identical mechanisms <= 0 (Theorem 4.1's setting).

    Args:
        pr: the privacy question.
        workers: processes for the multiset fallback.
        run: how the multiset fallback runs (:class:`~dpcert.core.parallel.RunOptions`; overrides ``workers``).
        budget: boxes per edge for the branch-and-bound.

    Returns:
        CERTIFIED (max <= 0, enclosure and argmax per edge), REFUTED (a certified rational point of F with margin
        > 0), UNDECIDED (budget exhausted: the bracket is in ``margin``).

    References:
        DaRRM, Theorem 4.1 and Lemmas B.1–B.2; this module's docstring for the proof of the reduction.
    """
    ok, why = iid_hypotheses(pr)
    if not ok:
        return _fallback(pr, workers, why, run)
    v, enc, edges = maximise_iid(pr, budget=budget)
    method = "boundary reduction (" + why + ") + certified 1-D branch-and-bound on edges A and B"
    if v == Verdict.REFUTED:
        r = next(e for e in edges if e.verdict == Verdict.REFUTED)
        return IidResult(
            v,
            method + f": counterexample on edge {r.edge}",
            None,
            r.point,
            enc,
            edges,
            point_margin=r.point_margin,
            margin_is_max=enc.lo is not None and enc.hi is not None,
        )
    if v == Verdict.CERTIFIED:
        return IidResult(v, method, None, None, enc, edges, margin_is_max=True)
    fb = _fallback(pr, workers, method + " undecided", run)
    fb.edges = edges
    if fb.verdict != Verdict.UNDECIDED:
        return fb
    # both brackets enclose the maximum: keep their intersection
    lo = max((x for x in (enc.lo, fb.margin.lo if fb.margin else None) if x is not None), default=None)
    his = [x for x in (enc.hi, fb.margin.hi if fb.margin else None) if x is not None]
    fb.margin = Enclosure(lo, min(his) if his else None)
    fb.method = method + " undecided (budget); " + fb.method
    return fb
