"""The privacy condition for every ε > 0 at once, and the largest safe rescaling of a failing γ.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

For a γ that does not depend on ε and an integer m, the margin of a multiset is M(x)/(x+1)^K with a polynomial
M in x = e^ε (:meth:`~dpcert.darrm.privacy.RowMargin.numerator`), so "DaRRM_γ is (mε, δ)-DP for every ε > 0" is
the finite set of polynomial inequalities M(x) <= 0 on (1, ∞). Each is decided exactly:

1. M ≡ 0: tight for every ε (exact equality);
2. Descartes: with t = x − 1, if every coefficient of M(1 + t) is <= 0 then M < 0 on t > 0 (and if every
   coefficient is >= 0, one positive, then M > 0 for every ε);
3. otherwise exact real-root isolation: M is factored over Q (flint), the real roots of each irreducible factor
   are isolated in certified balls (``fmpz_poly.complex_roots``; an irreducible factor has simple roots, real ones
   returned with zero imaginary part), and M is evaluated exactly at a rational point of each interval between
   consecutive roots in (1, ∞): M <= 0 on (1, ∞) iff all those values are <= 0.

A violated inequality gives a counterexample: a rational ε with e^ε in an interval where M > 0, re-checked with
:func:`~dpcert.arith.ball.sign_at_exp`.

The rescaling: for fixed ε the margin of c·γ is c·F − b, affine in c, so the largest safe c is min over rows with
F > 0 of b/F. It is estimated by the float kernel and *certified* by running the certifier on c_lo·γ (CERTIFIED)
and on c_hi·γ (REFUTED), with rationals c_lo < c_hi a relative 1e-9 apart.

References:
    DaRRM (Jiang–Zhang–Joshi), Lemma 3.4, Lemma 5.1 [JZJ24];
    docs/derivations/darrm.md#rescaling-a-failing-noise-function.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement
from typing import Any

from flint import fmpq, fmpq_poly, fmpz_poly

from dpcert.arith.ball import fraction_of, sign_at_exp, workprec
from dpcert.arith.exact import fraction_to_decimal
from dpcert.core.claim import Verdict
from dpcert.core.parallel import RunOptions, Summary, map_chunks
from dpcert.darrm.privacy import Problem, certify, row_margin
from dpcert.errors import InvalidParameter

__all__ = ["AllEpsResult", "certify_all_eps", "poly_nonpositive_on", "safe_rescaling", "Rescaling"]


def _fq(v: Any) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _value(P: fmpq_poly, x: Fraction) -> Fraction:
    return _fq(P(fmpq(x.numerator, x.denominator)))


def _real_roots_above_one(P: fmpq_poly) -> list[tuple[Fraction, Fraction]]:
    """Disjoint rational intervals (lo, hi), sorted, each holding exactly one distinct real root of P in (1, ∞);
    a root exactly at a rational r > 1 is returned as (r, r)."""
    out: list[tuple[Fraction, Fraction]] = []
    _, factors = P.factor()
    for f, _mult in factors:
        if f.degree() == 1:
            c = f.coeffs()
            r = _fq(-c[0] / c[1])
            if r > 1:
                out.append((r, r))
            continue
        den = 1
        for c in f.coeffs():
            den = den * int(c.q) // math.gcd(den, int(c.q))
        zf = fmpz_poly([int((c * den).p) for c in f.coeffs()])
        for root, _m in zf.complex_roots():
            if root.imag != 0:
                continue
            re = root.real
            mq, rq = fraction_of(re.mid()), fraction_of(re.rad())
            lo, hi = mq - rq, mq + rq
            if hi <= 1:
                continue
            if lo <= 1:
                # an irreducible factor of degree > 1 has no rational root, so the root is not 1; its ball is
                # too wide to say which side: give up (never happens at flint's default precision in practice)
                raise InvalidParameter("polynomial", str(f), "real roots separated from 1 (root isolation too coarse)")
            out.append((lo, hi))
    out.sort()
    for (_a, b), (c, _d) in zip(out, out[1:], strict=False):
        if b >= c:
            raise InvalidParameter("polynomial", str(P), "separated root balls (isolation too coarse)")
    return out


def poly_nonpositive_on(P: fmpq_poly) -> tuple[bool, Fraction | None, str]:
    """Decide P(x) <= 0 for every x > 1, exactly.

    Returns:
        (holds, witness, method): ``witness`` is a rational x > 1 with P(x) > 0 when it fails.
    """
    if P.is_zero():
        return True, None, "identically zero"
    shifted = P(fmpq_poly([1, 1]))  # P(1 + t)
    cs = [_fq(c) for c in shifted.coeffs()]
    if all(c <= 0 for c in cs):
        return True, None, "Descartes"
    if all(c >= 0 for c in cs):
        return False, Fraction(2), "Descartes"
    roots = _real_roots_above_one(P)
    points: list[Fraction] = []
    prev = Fraction(1)
    for lo, hi in roots:
        points.append((prev + lo) / 2 if lo > prev else prev + (lo - prev) / 2)
        prev = hi
    points.append(prev + 1 if prev > 1 else Fraction(2))
    for x in points:
        if x > 1 and _value(P, x) > 0:
            return False, x, "real-root isolation"
    return True, None, "real-root isolation"


@dataclass
class AllEpsResult:
    """For-every-ε verdict: counts by method, the counterexample if any."""

    problem: Problem
    verdict: Verdict
    counts: dict[str, int]
    rows: int
    counterexample: dict[str, Any] | None = None
    tight: tuple[int, ...] | None = None
    seconds: float = 0.0
    methods: dict[str, int] = field(default_factory=dict)


def _eps_in(x: Fraction) -> Fraction:
    """A short rational ε with e^ε close to x (the caller re-checks the sign at it)."""
    return Fraction(math.log(float(x))).limit_denominator(10**6)


def _all_eps_chunk(task: tuple[Problem, int]) -> Summary:
    """The multisets with ``n0`` mechanisms at the first corner, in the order of the serial loop; the first
    counterexample is ``refuted[0]``, the first tight multiset the ``worst_case`` (score 0: ties keep the first)."""
    pr, n0 = task
    s = Summary()
    c = pr.n_corners
    for rest in combinations_with_replacement(range(1, c), pr.K - n0):
        combo = (0,) * n0 + rest
        vec = tuple(combo.count(j) for j in range(c))
        M = row_margin(pr, vec).numerator()
        ok, x, method = poly_nonpositive_on(M)
        s.add(method)
        if ok and M.is_zero() and s.worst_case is None:
            s.consider(0, vec)
        if not ok and not s.refuted:
            s.refuted.append(_counterexample(pr, vec, x, M))
    return s


def certify_all_eps(pr: Problem, *, run: RunOptions | None = None) -> AllEpsResult:
    """Decide whether DaRRM_γ is (mε, δ)-DP for every ε > 0 (Δ, δ fixed), over every multiset of 𝒫.

    ``run``: how the chunks (one per count at the first corner) run; serial by default, results identical.

    Raises:
        InvalidParameter: γ depends on ε, or m is not an integer.
    """
    if not pr.gamma.eps_free:
        raise InvalidParameter("gamma", pr.gamma.name, "a gamma that does not depend on eps (not const)")
    if not pr.integer_m:
        raise InvalidParameter("m", pr.m, "an integer (the margin is then a polynomial in e^eps)")
    t0 = time.perf_counter()
    # the serial loop's order (combinations_with_replacement): most mechanisms at the first corner first
    total = map_chunks(_all_eps_chunk, [(pr, n0) for n0 in range(pr.K, -1, -1)], run=run or RunOptions("serial"))
    counts = dict(total.counts)
    tight = total.worst_case
    cex = total.refuted[0] if total.refuted else None
    verdict = Verdict.REFUTED if cex else Verdict.CERTIFIED
    if cex is not None and cex.get("eps") is None:
        verdict = Verdict.UNDECIDED
    if total.failed:  # multisets nobody decided: a counterexample elsewhere still refutes
        verdict = Verdict.REFUTED if verdict == Verdict.REFUTED else Verdict.UNDECIDED
    return AllEpsResult(pr, verdict, counts, pr.n_rows, cex, tight, time.perf_counter() - t0)


def _counterexample(pr: Problem, vec: tuple[int, ...], x: Fraction, M: fmpq_poly) -> dict[str, Any]:
    for cand in (_eps_in(x), Fraction(1, 10), Fraction(1), Fraction(1, 100)):
        if cand > 0 and sign_at_exp(M, cand) > 0:
            with workprec(128):
                b = row_margin(Problem(pr.gamma, pr.K, pr.m, cand, pr.Delta, pr.delta), vec).ball(128)
            return {"counts": list(vec), "eps": str(cand), "x_witness": str(x), "margin": str(b)}
    return {"counts": list(vec), "eps": None, "x_witness": str(x)}


@dataclass
class Rescaling:
    """Certified bracket of the largest safe c: c_lo·γ is private, c_hi·γ is not (or c_lo = cap when γ/max γ)."""

    c_lo: Fraction
    c_hi: Fraction | None
    lo_verdict: Verdict
    hi_verdict: Verdict | None


def safe_rescaling(pr: Problem, rel: Fraction = Fraction(1, 10**9)) -> Rescaling:
    """The largest c with c·γ (mε, δ)-DP, certified to a relative bracket ``rel``.

    References:
        docs/derivations/darrm.md#rescaling-a-failing-noise-function (f is linear and homogeneous in γ, b > 0).
    """
    import numpy as np

    from dpcert.darrm.kernel import block_margins
    from dpcert.darrm.privacy import _float_setting

    fs = _float_setting(pr)
    best = math.inf
    for a in range(pr.K + 1):
        _, _, M = block_margins(fs, a)
        F = M + fs.b
        pos = F > 0
        if pos.any():
            best = min(best, float(np.min(fs.b / F[pos])))
    gmax = max(pr.gamma.table)
    cap = Fraction(1) / gmax if gmax > 0 else Fraction(1)
    if not math.isfinite(best) or Fraction(best) >= cap:
        r = certify(Problem(pr.gamma.scaled(cap), pr.K, pr.m, pr.eps, pr.Delta, pr.delta, pr.max_prec))
        return Rescaling(cap, None, r.verdict, None)
    est = Fraction(best)
    lo = Fraction(fraction_to_decimal(est * (1 - rel), 15, "down"))
    hi = Fraction(fraction_to_decimal(est * (1 + rel), 15, "up"))
    rlo = certify(Problem(pr.gamma.scaled(lo), pr.K, pr.m, pr.eps, pr.Delta, pr.delta, pr.max_prec))
    rhi = certify(Problem(pr.gamma.scaled(min(hi, cap)), pr.K, pr.m, pr.eps, pr.Delta, pr.delta, pr.max_prec))
    return Rescaling(lo, min(hi, cap), rlo.verdict, rhi.verdict)
