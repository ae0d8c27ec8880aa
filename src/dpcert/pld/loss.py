"""The mechanism seam: what a mechanism tells the PLD engine about one neighbouring direction.

A *direction* is a dominating pair (P, Q) of distributions on one output space. Write P = P_ac + P_s with P_ac ≪ Q
and P_s ⟂ Q; the privacy loss is L = log dP_ac/dQ (Q-almost everywhere), Y = e^L, and the loss is +∞ on P_s. The
hockey-stick divergence the engine encloses is

    δ(ε) = sup_S P(S) − e^ε Q(S) = P_s(Ω) + E_Q[(Y − e^ε)₊].

A mechanism knows its laws; the engine knows none. So a mechanism supplies, per direction, only:

* :meth:`PrivacyLoss.survivals`: certified balls of Q(L >= i/n) and P_ac(L >= i/n) at the grid points i/n, i = i_lo
  … i_hi (inclusive): the cell masses m = Q(cell), μ = P_ac(cell) = E_Q[Y·1_cell] are their differences. An atom
  of L at a finite value (Laplace has two) needs nothing special: it is a jump of both survival functions, and a
  survival function "L >= l" includes the atom at l;
* :meth:`PrivacyLoss.grid_range`: a float choice of (i_lo, i_hi) leaving out at most about ``tail`` of P_ac-mass on
  each side (tightness only: the engine proves whatever range it is given);
* :meth:`PrivacyLoss.infinite_mass`: P_s(Ω), the atom at L = +∞ (0 by default), exact;
* :meth:`PrivacyLoss.loss_variance`: a float guess of Var_Q(Y), for the starting resolution only;
* optionally :meth:`PrivacyLoss.survivals_at`: the same survival balls at arbitrary thresholds (an exact
  ``Fraction`` or an Arb ball), which a transformed loss (Poisson subsampling's log(1 − q + q·e^L)) needs because
  the grid points of the outer loss are not grid points of the inner one; and :attr:`PrivacyLoss.lattice`, a
  rational of which every finite atom of L is an integer multiple (a driver may pick resolutions that put the
  atoms on grid points).

Everything else (the two discretisations with their proofs, composition, windows, δ(ε), ε(δ), calibration) is in
:mod:`dpcert.pld.discretise`, :mod:`dpcert.pld.compose` and :mod:`dpcert.pld.accountant`, written once.

References:
    The seam mirrors dp_accounting's ``MonotonePrivacyLoss`` (one abstract class, one subclass per mechanism), with
    certified tail masses in place of float ones.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from flint import arb

__all__ = ["PrivacyLoss", "has_survivals_at", "solve_switch"]


class PrivacyLoss(ABC):
    """One neighbouring direction (P, Q) of a mechanism, seen through its privacy loss L = log dP_ac/dQ."""

    #: a short name for progress messages (``"remove"``, ``"add"``)
    name: str = "direction"

    @abstractmethod
    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        """Balls of Q(L >= i/n) and of P_ac(L >= i/n) for i = i_lo … i_hi, at the current working precision.

        Every ball must contain the exact value; both lists are non-increasing in i (in exact arithmetic).
        """

    @abstractmethod
    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        """A float choice of the grid index range [i_lo, i_hi]: P_ac(L >= i_hi/n) and P_ac(L < i_lo/n) each about
        ``tail`` or less (tightness only; a wrong choice costs width, never validity)."""

    def infinite_mass(self) -> Fraction:
        """P_s(Ω): the probability of an infinite privacy loss (exact); 0 unless overridden."""
        return Fraction(0)

    def loss_variance(self) -> float:
        """A float guess of Var_Q(Y) of one step (the starting resolution only); 1 unless overridden."""
        return 1.0

    #: a rational whose integer multiples hold every finite atom of L (``None``: no atoms, or none known on a
    #: rational lattice); tightness only
    lattice: Fraction | None = None

    def survival_bounds(self, n: int, i_lo: int, i_hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Float bounds of the survival masses of :meth:`survivals`: arrays ``(sq_lo, sq_hi, sp_lo, sp_hi)`` of
        float64, one entry per i = i_lo … i_hi, with sq_lo <= Q(L >= i/n) <= sq_hi and sp_lo <= P_ac(L >= i/n) <=
        sp_hi exactly (not up to round-off), all in [0, 1].

        The float path of the discretisation reads these. This default rounds :meth:`survivals`' balls outwards;
        a mechanism may override it with a faster evaluation that keeps the same guarantee.
        """
        sq, sp = self.survivals(n, i_lo, i_hi)
        return (*_outward(sq), *_outward(sp))

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        """Balls of Q(L >= t) and P_ac(L >= t) for each threshold t (optional; at the current working precision).

        A ``Fraction`` threshold is exact. An ``arb`` threshold stands for every real in its ball: the balls
        returned then contain Q(L >= t), Q(L > t), P_ac(L >= t) and P_ac(L > t) for every such t (an atom of L
        inside the threshold's ball widens them by its mass; more precision separates them).

        Raises:
            NotImplementedError: if the mechanism does not provide it (:func:`has_survivals_at` tells).
        """
        raise NotImplementedError(f"{type(self).__name__} gives survival masses at grid points only")


def _outward(balls: list[arb]) -> tuple[np.ndarray, np.ndarray]:
    """Float64 arrays (lo, hi) with lo <= every real in each ball <= hi, clipped to [0, 1] (probabilities).

    From the midpoint's and the radius's floats: the midpoint's float is within 2^-52 relative (2^-1074 absolute)
    of it and the radius's within 2^-52 relative, so mid ∓ (2^-50·|mid| + 2·rad + 2^-1073), each end then moved one
    ulp outwards (the subtraction and addition are correctly rounded), covers the ball. A ball that is not finite
    gives NaN or ±inf, which the float path refuses.
    """
    mid = np.array([float(b.mid()) for b in balls], dtype=np.float64)
    rad = np.array([float(b.rad()) for b in balls], dtype=np.float64)
    slack = np.abs(mid) * 2.0**-50 + 2.0 * rad + 2.0**-1073
    lo = np.nextafter(mid - slack, -np.inf)
    hi = np.nextafter(mid + slack, np.inf)
    bad = ~(np.isfinite(mid) & np.isfinite(rad))
    lo[bad], hi[bad] = np.nan, np.nan
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def has_survivals_at(loss: PrivacyLoss) -> bool:
    """Whether ``loss`` implements :meth:`PrivacyLoss.survivals_at`."""
    return type(loss).survivals_at is not PrivacyLoss.survivals_at


def solve_switch(f: Callable[[float], bool], lo: float, hi: float) -> float:
    """The switching point of a monotone condition f (false at lo, true at hi), by float bisection (tightness only).

    >>> round(solve_switch(lambda x: x * x >= 2, 0, 2), 6)
    1.414214
    """
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-9:
            break
    return hi


def log_add(a: float, b: float) -> float:
    """log(e^a + e^b) in floats, without overflow."""
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    m = max(a, b)
    return m + math.log1p(math.exp(-abs(a - b)))
