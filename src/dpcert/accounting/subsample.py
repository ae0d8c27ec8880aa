"""Subsampled mechanisms as losses of the PLD engine: Poisson subsampling of any direction, and disjoint mixtures.

Notation. H_α(X‖Y) = sup_S X(S) − α·Y(S) for α >= 0 (so δ(ε) = H_{e^ε}); a pair (P, Q) *dominates* a set of
pairs (X, Y) when H_α(X‖Y) <= H_α(P‖Q) for every α >= 0 and every pair of the set. Domination for every α >= 0
(not only α >= 1) is what lets products of dominating pairs bound adaptive compositions, which is how the engine
uses them (:mod:`dpcert.pld.discretise`). Two facts carry every proof below:

* **Joint convexity.** H_α is a supremum of linear functionals of (X, Y), so H_α(Σ λ_s X_s ‖ Σ λ_s Y_s) <=
  Σ λ_s H_α(X_s ‖ Y_s) for weights λ_s >= 0 summing to 1.
* **Disjoint union.** For the pair ⊕_s λ_s(P_s, Q_s) (component s drawn with probability λ_s, its label part of the
  output) the supremum splits over the labels: H_α = Σ_s λ_s H_α(P_s‖Q_s).

**Poisson subsampling, add/remove (any inner mechanism).** Each record enters the sample independently with
probability q; the inner mechanism M runs on the sample. Remove: D = D′ ∪ {x}; with S the sample of D′ (the same
law for D and D′), M∘S(D) = E_S[(1 − q)A_S + qB_S] and M∘S(D′) = E_S[A_S], with A_S = M(S), B_S = M(S ∪ {x}), so
(B_S, A_S) is a *remove* pair of M. Let (P, Q) dominate M's remove pairs. By joint convexity it suffices to bound
H_α((1 − q)A + qB ‖ A) = sup_S qB(S) − (α − 1 + q)A(S):

* for α < 1 − q the coefficient of A is negative and the supremum is q + (1 − q − α) = 1 − α (S = everything), the
  same value as for ((1 − q)Q + qP, Q);
* for α >= 1 − q it is q·H_{α′}(B‖A) with α′ = (α − 1 + q)/q >= 0, at most q·H_{α′}(P‖Q) = H_α((1 − q)Q + qP ‖ Q).

So the *first form* ((1 − q)Q + qP, Q) dominates the remove direction. Add: the pair is (A, (1 − q)A + qB) with
(A, B) = (M(S), M(S ∪ {x})) an *add* pair of M, dominated by (P, Q); H_α(A ‖ (1 − q)A + qB) = sup_S (1 − α(1 −
q))A(S) − αqB(S) is 0 when α(1 − q) >= 1 (both coefficients <= 0) for both pairs, and otherwise (1 − α(1 −
q))·H_{α″}(A‖B) with α″ = αq/(1 − α(1 − q)), at most the same expression in (P, Q). So the *second form* (P, (1 −
q)P + qQ) dominates the add direction. (A mechanism whose add pair is the mirror image of its remove pair, through
a bijection of the output space, may use its remove pair (P, Q) in both forms: the bijection carries the mixtures
along.)

**The transformed losses.** Write P = P_ac + P_s (P_ac ≪ Q, P_s ⟂ Q), Y = dP_ac/dQ = e^L, p_s = P_s(Ω).

* First form: d((1 − q)Q + qP)_ac/dQ = 1 − q + qY, so L₁ = log(1 − q + q·e^L) (L = −∞ maps to log(1 − q)) and the
  infinite mass is q·p_s. L₁ is increasing in L: for e^l > 1 − q, L₁ >= l iff L >= T(l) = log((e^l − (1 − q))/q),
  so Q(L₁ >= l) = Q(L >= T) and P₁,ac(L₁ >= l) = (1 − q)Q(L >= T) + q·P_ac(L >= T); for e^l <= 1 − q all of Q
  and all of P₁,ac (mass 1 − q·p_s) is counted.
* Second form: P ≪ (1 − q)P + qQ, with density 1/(1 − q + q·e^{−L}) (1/(1 − q) on P_s), so L₂ = −log(1 − q +
  q·e^{−L}) <= −log(1 − q), with no infinite mass. For e^{−l} > 1 − q, L₂ >= l iff L >= T₂(l) = −T(−l), so
  P(L₂ >= l) = P_ac(L >= T₂) + p_s and Q₂(L₂ >= l) = (1 − q)P(L₂ >= l) + q·Q(L >= T₂); for e^{−l} <= 1 − q nothing
  (l is rational and −log(1 − q) is not, for rational q in (0, 1), so a grid point never hits the atom).

The thresholds T(i/n) are not grid points of the inner loss, so the inner loss must answer at arbitrary
thresholds (:meth:`~dpcert.pld.loss.PrivacyLoss.survivals_at`); at l = 0 both transforms give T = 0 exactly (an
atom of the inner loss at 0 stays exact). An undecided comparison of e^{±l} with 1 − q at a ball threshold gives
the union of both cases (the survivals are monotone in l).

**Disjoint mixtures** (:class:`DisjointMixture`): the pair ⊕_s λ_s(P_s, Q_s), plus optionally a branch of mass e
on which P and Q are mutually singular (δ = 1 there for every α, which dominates any pair). Its survival masses are
the λ-weighted sums of the components', its infinite mass Σ λ_s p_{s,s} + e.

References:
    The subsampling lemmas (dominating pairs): Y. Zhu, J. Dong, Y.-X. Wang, "Optimal accounting of differential
    privacy via characteristic function", AISTATS 2022; privacy profiles of subsampled mechanisms: B. Balle,
    G. Barthe, M. Gaboardi, NeurIPS 2018. The proofs above are this module's own.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from dpcert.arith.ball import ball, workprec
from dpcert.pld.loss import PrivacyLoss, has_survivals_at

__all__ = ["PoissonLoss", "DisjointMixture", "NoLoss", "decide"]


def decide(pred, what: str) -> bool:
    """A ball predicate (returning True, False or None when undecided) raised in precision until it decides.

    Raises:
        ArithmeticError: if 8192 more bits than the working precision do not decide it.
    """
    prec = ctx.prec
    for extra in (0, 64, 512, 2048, 8192):
        with workprec(prec + extra):
            r = pred()
        if r is not None:
            return r
    raise ArithmeticError(f"{what} undecided at {prec + 8192} bits")


class NoLoss(PrivacyLoss):
    """The pair (P, P): L = 0 surely (a step that reveals nothing)."""

    name = "none"

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        return self.survivals_at([Fraction(i, n) for i in range(i_lo, i_hi + 1)])

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        out = []
        for t in ts:
            if isinstance(t, arb):
                v = arb(1) if t <= 0 else arb(0) if t > 0 else arb(0).union(arb(1))
            else:
                v = arb(1) if t <= 0 else arb(0)
            out.append(v)
        return out, list(out)

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        return -1, 1

    def loss_variance(self) -> float:
        return 1e-300


def _threshold(lv: Fraction | arb, q: Fraction, sign: int) -> Fraction | arb | None | str:
    """T = sign·log((e^{sign·l} − (1 − q))/q): ``None`` when e^{sign·l} <= 1 − q surely, ``"both"`` when that is
    undecided at a ball threshold, T = 0 exactly at l = 0."""
    if not isinstance(lv, arb) and lv == 0:
        return Fraction(0)
    one_q, bq = ball(1 - q), ball(q)

    def t_of() -> arb:
        u = sign * (lv if isinstance(lv, arb) else ball(lv))
        t = u.exp() - one_q
        if not (t > 0 or t <= 0):  # 1 − q rounds (tiny q): keep q's digits
            t = u.expm1() + bq
        return t

    if isinstance(lv, arb):
        t = t_of()
        if t <= 0:
            return None
        if not t > 0:
            return "both"
    else:
        positive = decide(lambda: True if t_of() > 0 else False if t_of() <= 0 else None, "e^l against 1 - q")
        if not positive:
            return None
        t = t_of()
    return sign * (t / bq).log()


class PoissonLoss(PrivacyLoss):
    """One direction of a Poisson-subsampled mechanism: ``form`` "first" is ((1 − q)Q + qP, Q) (remove), "second"
    is (P, (1 − q)P + qQ) (add), for an inner direction (P, Q) and a rate q in (0, 1) (module docstring)."""

    def __init__(self, inner: PrivacyLoss, q: Fraction, form: str, name: str) -> None:
        if form not in ("first", "second"):
            raise ValueError(f"form must be 'first' or 'second', not {form!r}")
        if not has_survivals_at(inner):
            raise ValueError(f"{type(inner).__name__} gives no survival masses at arbitrary thresholds")
        if not 0 < q < 1:
            raise ValueError(f"q must be in (0, 1), not {q}")
        self.inner, self.q, self.form, self.name = inner, Fraction(q), form, name

    def infinite_mass(self) -> Fraction:
        return self.q * self.inner.infinite_mass() if self.form == "first" else Fraction(0)

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        if not hasattr(self.inner, "survivals_exp"):
            return self.survivals_at([Fraction(i, n) for i in range(i_lo, i_hi + 1)])
        return self._grid_by_exp(n, i_lo, i_hi)

    def _grid_by_exp(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        """The grid survivals through the inner loss's ``survivals_exp`` (thresholds given as y = e^T): T's
        exponential is a rational function of e^{±l}, e^T = (e^l − (1 − q))/q (first form) and e^{T₂} = q/(e^{−l} −
        (1 − q)) (second), with e^{±l} − (1 − q) = expm1(±l) + q (no cancellation for a small q), so no logarithm
        and no exact comparison is needed per point: the sign of expm1(±l) + q decides the case wherever the ball
        does, and the few points it does not decide (and l = 0, kept exact) go through :meth:`survivals_at`."""
        q = self.q
        bq, one_q = ball(q), ball(1 - q)
        ps = ball(self.inner.infinite_mass())
        sign = 1 if self.form == "first" else -1
        full = (arb(1), 1 - bq * ps) if self.form == "first" else (arb(0), arb(0))
        size = i_hi - i_lo + 1
        sq: list[arb] = [full[0]] * size
        sp: list[arb] = [full[1]] * size
        step = ball(Fraction(sign, n))
        where: list[int] = []
        ys: list[arb] = []
        slow: list[int] = []
        for k in range(size):
            i = i_lo + k
            if i == 0:
                slow.append(k)
                continue
            t = (step * i).expm1() + bq
            if t > 0:
                where.append(k)
                ys.append(t / bq if sign == 1 else bq / t)
            elif not t < 0:  # undecided at this precision: the exact path decides
                slow.append(k)
        if ys:
            inner_q, inner_p = self.inner.survivals_exp(ys)
            for k, qi, pi in zip(where, inner_q, inner_p, strict=True):
                sq[k], sp[k] = self._combine(qi, pi, bq, one_q, ps)
        if slow:
            a, b = self.survivals_at([Fraction(i_lo + k, n) for k in slow])
            for k, x, y in zip(slow, a, b, strict=True):
                sq[k], sp[k] = x, y
        return sq, sp

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        q = self.q
        bq, one_q = ball(q), ball(1 - q)
        ps = ball(self.inner.infinite_mass())
        sign = 1 if self.form == "first" else -1
        if self.form == "first":
            full = (arb(1), 1 - bq * ps)  # every point counted (Q, P_ac)
        else:
            full = (arb(0), arb(0))  # nothing
        sq: list[arb] = []
        sp: list[arb] = []
        for lv in ts:
            th = _threshold(lv, q, sign)
            if th is None:
                a, b = full
            elif isinstance(th, str):  # a ball threshold across the switch: both cases, and the far end
                end = arb(lv.upper()) if self.form == "first" else arb(lv.lower())
                ea, eb = self._mapped(_threshold(end, q, sign), bq, one_q, ps)
                a, b = full[0].union(ea), full[1].union(eb)
            else:
                a, b = self._mapped(th, bq, one_q, ps)
            sq.append(a)
            sp.append(b)
        return sq, sp

    def _mapped(self, th, bq: arb, one_q: arb, ps: arb) -> tuple[arb, arb]:
        if th is None:  # the far end of a ball threshold is past the switch as well
            return (arb(1), 1 - bq * ps) if self.form == "first" else (arb(0), arb(0))
        (qi,), (pi,) = self.inner.survivals_at([th])
        return self._combine(qi, pi, bq, one_q, ps)

    def _combine(self, qi: arb, pi: arb, bq: arb, one_q: arb, ps: arb) -> tuple[arb, arb]:
        """The outer survivals from the inner ones at the mapped threshold (module docstring)."""
        if self.form == "first":
            return qi, one_q * qi + bq * pi
        p2 = pi + ps
        return one_q * p2 + bq * qi, p2

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        lo_in, hi_in = self.inner.grid_range(n, tail)
        qf = float(self.q)
        l1q = math.log1p(-qf)
        if self.form == "first":  # L₁ = log(1 − q + q e^L) >= log(1 − q)
            top = _log_mix(qf, hi_in / n)
            return math.floor(n * l1q) - 1, math.ceil(n * top) + 1
        bottom = -_log_mix(qf, -lo_in / n)  # L₂ = −log(1 − q + q e^{−L}) <= −log(1 − q)
        return math.floor(n * bottom) - 1, math.ceil(-n * l1q) + 1

    def loss_variance(self) -> float:
        return max(float(self.q) ** 2 * self.inner.loss_variance(), 1e-300)


def _log_mix(q: float, lv: float) -> float:
    """log(1 − q + q·e^lv) in floats, without overflow."""
    a, b = math.log1p(-q), math.log(q) + lv
    m = max(a, b)
    return m + math.log1p(math.exp(-abs(a - b)))


class DisjointMixture(PrivacyLoss):
    """The pair ⊕_s λ_s(P_s, Q_s) plus a branch of mass ``singular`` where P and Q are mutually singular.

    The weights and ``singular`` are exact and sum to 1 (checked).
    """

    def __init__(self, parts: list[tuple[Fraction, PrivacyLoss]], name: str, singular: Fraction = Fraction(0)):
        parts = [(Fraction(w), loss) for w, loss in parts if w != 0]
        if any(w < 0 for w, _ in parts) or singular < 0 or sum(w for w, _ in parts) + singular != 1:
            raise ValueError("mixture weights must be >= 0 and sum to 1")
        self.parts, self.name, self.singular = parts, name, Fraction(singular)
        lats = [loss.lattice for _, loss in parts if not isinstance(loss, NoLoss)]
        self.lattice = _gcd(lats) if lats and all(x is not None for x in lats) else None

    def infinite_mass(self) -> Fraction:
        return sum((w * loss.infinite_mass() for w, loss in self.parts), self.singular)

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        return self._sum([(w, loss.survivals(n, i_lo, i_hi)) for w, loss in self.parts], i_hi - i_lo + 1)

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        return self._sum([(w, loss.survivals_at(ts)) for w, loss in self.parts], len(ts))

    @staticmethod
    def _sum(parts: list, size: int) -> tuple[list[arb], list[arb]]:
        sq = [arb(0)] * size
        sp = [arb(0)] * size
        for w, (a, b) in parts:
            bw = ball(w)
            sq = [x + bw * y for x, y in zip(sq, a, strict=True)]
            sp = [x + bw * y for x, y in zip(sp, b, strict=True)]
        return sq, sp

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        ranges = [loss.grid_range(n, min(1.0, tail / float(w))) for w, loss in self.parts]
        return min(r[0] for r in ranges), max(r[1] for r in ranges)

    def loss_variance(self) -> float:
        return max(sum(float(w) * loss.loss_variance() for w, loss in self.parts), 1e-300)


def _gcd(xs: list[Fraction]) -> Fraction:
    """The largest rational of which every x is an integer multiple."""
    num, den = 0, 1
    for x in xs:
        x = Fraction(x)
        num = math.gcd(num * x.denominator, x.numerator * den)
        den = den * x.denominator
        g = Fraction(num, den)
        num, den = g.numerator, g.denominator
    return Fraction(num, den)
