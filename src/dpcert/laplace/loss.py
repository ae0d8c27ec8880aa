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

    def survivals_exp(self, ys: list[arb]) -> tuple[list[arb], list[arb]]:
        """Balls of Q(L >= log y) and P(L >= log y) for every y in each ball y > 0 (a threshold given by its
        exponential, as Poisson subsampling's transformed thresholds come): for e^{−r} < y <= e^r

            Q(L >= log y) = ½ e^{−r/2} y^{−1/2},   P(L >= log y) = 1 − ½ e^{−r/2} y^{1/2}

        (the module docstring's forms with e^{l/2} = √y), 1 for y <= e^{−r} and 0 for y > e^r. A ball across
        e^{±r} gets the union of the formula on the ball and the constant beyond (both functions are monotone, so
        the formula on the whole ball holds every value on the formula's side). A ball not certainly positive is
        refused (``ValueError``): the caller decides the sign first."""
        er = ball(self.r).exp()
        e_lo, e_hi = 1 / er, er
        c = (-ball(self.r) / 2).exp() / 2
        sq: list[arb] = []
        sp: list[arb] = []
        for y in ys:
            if not y > 0:
                raise ValueError("survivals_exp needs thresholds e^l > 0")
            if y <= e_lo:
                sq.append(arb(1))
                sp.append(arb(1))
                continue
            if y > e_hi:
                sq.append(arb(0))
                sp.append(arb(0))
                continue
            root = y.sqrt()
            a, b = c / root, 1 - c * root
            if not y > e_lo:  # across e^{−r}: or everything
                a, b = a.union(arb(1)), b.union(arb(1))
            if not y < e_hi:  # across e^r (or on it, undecided): or nothing
                a, b = a.union(arb(0)), b.union(arb(0))
            sq.append(a)
            sp.append(b)
        return sq, sp

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        """The whole support [−r, r] and one cell beyond each end (no tail is left out)."""
        return math.floor(-self.r * n) - 1, math.ceil(self.r * n) + 1

    def loss_variance(self) -> float:
        """Var_Q(Y) = E_P[Y] − 1 = ½e^r + ½e^{−2r} + e^r(1 − e^{−3r})/6 − 1 (the two atoms and the slope; float,
        a guess for the starting resolution)."""
        r = min(float(self.r), 700.0)
        return max(0.5 * math.exp(r) + 0.5 * math.exp(-2 * r) + math.exp(r) * -math.expm1(-3 * r) / 6 - 1, 1e-300)
