"""Theorem 4.1's setting: K identical mechanisms, all with the same (p, p') in the feasible polygon F.

Then α = Bin(K, p), α' = Bin(K, p') and f(p, p') = φ(p) − e^{mε} φ(p') with φ(β) = Σ_l w(l) Bin(K, β)(l). The
i.i.d. configurations are a subset of F^K, so a certificate over all corner multisets (Lemma 5.1) proves the
i.i.d. statement; this is how the i.i.d. mode certifies. When the multiset check fails, the i.i.d. mode looks for
an i.i.d. counterexample: rational points (p, p') certified inside F (ball comparisons), on the two edges where the
paper's boundary analysis puts the maximum (p = r p' and 1 − p' = r(1 − p) with rational r just below e^ε; notes §6,
Lemma B.1) and on a grid, at which the margin is certified positive by ball arithmetic. If neither settles it the
verdict is UNDECIDED (a branch-and-bound over F is not implemented).

References:
    DaRRM (Jiang–Zhang–Joshi), Theorem 4.1, Lemmas B.1–B.3, B.5, B.10; notes §6 and N8.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from flint import arb

from dpcert.arith.ball import Enclosure, ball, poly_at, workprec
from dpcert.arith.exact import RationalFunction
from dpcert.core.claim import Verdict
from dpcert.darrm.privacy import PrivacyResult, Problem, certify, row_margin

__all__ = ["IidResult", "certify_iid", "iid_margin"]


def iid_margin(pr: Problem, p: Fraction, pp: Fraction, prec: int = 256) -> arb:
    """A ball enclosing f(p, p') − (e^{mε} − 1 + 2δ) for K identical mechanisms with rational (p, p')."""
    K, H = pr.K, (pr.K - 1) // 2
    with workprec(prec):
        x = ball(pr.eps).exp()
        X = (ball(pr.m) * ball(pr.eps)).exp()
        sc = pr.gamma.scale
        if isinstance(sc, RationalFunction):
            s = poly_at(sc.num, x) / poly_at(sc.den, x)
        else:
            s = ball(sc)

        def phi(q: Fraction) -> arb:
            acc = arb(0)
            for l, g in enumerate(pr.gamma.table):
                if g:
                    acc += (-1 if l <= H else 1) * ball(g * comb(K, l) * q**l * (1 - q) ** (K - l))
            return acc

        return s * (phi(p) - X * phi(pp)) - (X - 1 + 2 * ball(pr.delta))


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


@dataclass
class IidResult:
    """The i.i.d. verdict: from the multiset certificate, or an i.i.d. counterexample point."""

    verdict: Verdict
    method: str
    finite: PrivacyResult
    point: tuple[Fraction, Fraction] | None = None
    margin: Enclosure | None = None


def _candidates(pr: Problem) -> list[tuple[Fraction, Fraction]]:
    with workprec(64):
        xl = Fraction(str(ball(pr.eps).exp().lower().str(12, radius=False))) if pr.eps > 0 else Fraction(1)
    pts = []
    for j in (3, 6, 9):
        r = xl * (1 - Fraction(1, 10**j))
        for k in range(1, 40):
            q = Fraction(1, 2**k)
            pts += [(r * q, q), (1 - q, 1 - r * q)]
    n = 40
    pts += [(Fraction(i, n), Fraction(j, n)) for i in range(n + 1) for j in range(n + 1)]
    return pts


def certify_iid(pr: Problem, *, workers: int = 1) -> IidResult:
    """Decide max over F of f(p, p'; γ) <= e^{mε} − 1 + 2δ for K identical mechanisms.

    Returns:
        CERTIFIED when every corner multiset is certified (implication), REFUTED with a certified i.i.d. point,
        else UNDECIDED.
    """
    fin = certify(pr, workers=workers)
    if fin.verdict == Verdict.CERTIFIED:
        return IidResult(Verdict.CERTIFIED, "implied by the certificate over all corner multisets", fin)
    for j in range(pr.n_corners):
        rm = row_margin(pr, tuple(pr.K if i == j else 0 for i in range(pr.n_corners)))
        if not rm.is_zero() and rm.sign() > 0:
            return IidResult(
                Verdict.REFUTED, f"all K mechanisms at corner {j}", fin, None, Enclosure.from_ball(rm.ball(128))
            )
    best = None
    for p, pp in _candidates(pr):
        if not in_region(pr, p, pp):
            continue
        b = iid_margin(pr, p, pp)
        if b > 0:
            enc = Enclosure.from_ball(b)
            if best is None or enc.lo > best[1].lo:
                best = ((p, pp), enc)
    if best is not None:
        return IidResult(Verdict.REFUTED, "certified i.i.d. point inside F", fin, best[0], best[1])
    return IidResult(Verdict.UNDECIDED, "multiset check failed and no i.i.d. counterexample found", fin)
