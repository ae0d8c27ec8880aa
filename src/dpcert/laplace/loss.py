"""The Laplace mechanism as a mechanism of the PLD engine (:mod:`dpcert.pld`).

**The pair.** Adding Laplace noise of scale b to a query of sensitivity Δ (|f(D) − f(D′)| <= Δ) gives, at the worst
neighbours, P = Lap(0, b) against Q = Lap(Δ, b). With r = Δ/b and t = x/b, the privacy loss is L = |t − r| − |t|:
L = r for t <= 0 (an atom of L), L = r − 2t on [0, r], L = −r for t >= r (an atom). Its survival masses are,
for −r < l <= r (then L >= l iff t <= (r − l)/2, a point of [0, r)):

    Q(L >= l) = ½ e^{−(r + l)/2},   P(L >= l) = 1 − ½ e^{−(r − l)/2},

and Q(L >= l) = P(L >= l) = 1 for l <= −r, 0 for l > r. (Check: at l = r the atoms P(t <= 0) = ½ and Q(t <= 0) =
½e^{−r} have ratio e^r.) There is no infinite loss. Which case a grid point l = i/n falls in is decided exactly
(r and l are rationals); the exponentials are Arb balls.

**One direction suffices.** The reflection x ↦ Δ − x maps Lap(0, b) onto Lap(Δ, b) and back, so (Q, P) is the image
of (P, Q) under a bijection: the two directions have one privacy loss distribution, and δ of the other neighbouring
direction is the same number. Only the ratio r = Δ/b matters (x ↦ x/b is a bijection).

**One step in closed form.** For 0 <= ε <= r, δ(ε) = P(L > ε) − e^ε Q(L > ε) = 1 − ½e^{−(r−ε)/2} − ½e^{ε−(r+ε)/2}
= 1 − e^{(ε − r)/2}, and δ(ε) = 0 for ε >= r (tests use it as an independent value).

References:
    The Laplace mechanism: C. Dwork, F. McSherry, K. Nissim, A. Smith, TCC 2006. Its privacy loss distribution
    (atoms at ±Δ/b): dp_accounting's ``LaplacePrivacyLoss``; S. Meiser, E. Mohammadi, CCS 2018.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from dpcert.arith.ball import ball, fraction_of
from dpcert.pld.loss import PrivacyLoss

__all__ = ["LaplaceLoss"]


class LaplaceLoss(PrivacyLoss):
    """The privacy loss of Laplace noise of scale b on a query of sensitivity Δ (only r = Δ/b matters).

    >>> loss = LaplaceLoss(Fraction(1), Fraction(1))
    >>> loss.grid_range(4, 1e-9)
    (-5, 5)
    """

    name = "laplace"

    def __init__(self, scale: Fraction, sensitivity: Fraction) -> None:
        self.scale = Fraction(scale)
        self.sensitivity = Fraction(sensitivity)
        self.r = self.sensitivity / self.scale
        self.lattice = self.r  # the atoms at ±r

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        return self.survivals_at([Fraction(i, n) for i in range(i_lo, i_hi + 1)])

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        """At a ball threshold [a, b] (both ends exact dyadics): the union of the survivals at a (``>=``) and
        just above b (``>``), which holds every value in between (non-increasing functions)."""
        sq, sp = [], []
        for t in ts:
            if isinstance(t, arb):
                a, b = fraction_of(t.lower()), fraction_of(t.upper())
                q0, p0 = self._at(a, strict=False)
                q1, p1 = self._at(b, strict=True)
                sq.append(q0.union(q1))
                sp.append(p0.union(p1))
            else:
                qv, pv = self._at(Fraction(t), strict=False)
                sq.append(qv)
                sp.append(pv)
        return sq, sp

    def _at(self, lv: Fraction, strict: bool) -> tuple[arb, arb]:
        """(Q(L >= lv), P(L >= lv)), or with ``strict`` (Q(L > lv), P(L > lv)), for an exact threshold."""
        r = self.r
        if lv < -r or (lv == -r and not strict):
            return arb(1), arb(1)
        if lv > r or (lv == r and strict):
            return arb(0), arb(0)
        half_r, h = ball(r) / 2, ball(lv) / 2
        return (-half_r - h).exp() / 2, 1 - (h - half_r).exp() / 2

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        """The whole support [−r, r] and one cell beyond each end (no tail is left out)."""
        return math.floor(-self.r * n) - 1, math.ceil(self.r * n) + 1

    def loss_variance(self) -> float:
        """Var_Q(Y) = E_P[Y] − 1 = ½e^r + ½e^{−2r} + e^r(1 − e^{−3r})/6 − 1 (the two atoms and the slope; float,
        a guess for the starting resolution)."""
        r = min(float(self.r), 700.0)
        return max(0.5 * math.exp(r) + 0.5 * math.exp(-2 * r) + math.exp(r) * -math.expm1(-3 * r) / 6 - 1, 1e-300)
