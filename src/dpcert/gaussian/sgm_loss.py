"""The Gaussian and the Poisson-subsampled Gaussian as mechanisms of the PLD engine (:mod:`dpcert.pld`).

DP-SGD with Poisson rate q and noise multiplier σ (sensitivity 1, add/remove neighbours) has two directions,
*remove*: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²), and *add*: the same two swapped
(docs/derivations/gaussian.md#sgm-directions: that remove dominates is not proved, so both are computed). At q = 1
remove is the Gaussian mechanism's pair N(1,σ²) against N(0,σ²).

**The loss and its survival masses.** Remove: Y = dP/dQ(x) = 1 − q + q·e^{(2x−1)/(2σ²)} is increasing in x, so L >= l
iff x >= x_l with x_l = σ²·log((e^l − (1 − q))/q) + 1/2 when e^l > 1 − q (and everywhere otherwise): Q(L >= l) =
Φ̄(x_l/σ), P(L >= l) = (1 − q)Φ̄(x_l/σ) + qΦ̄((x_l − 1)/σ). Add: Y = 1/(1 − q + q·e^{(2x−1)/(2σ²)}) is decreasing in x,
L >= l iff x <= x_{−l} (when e^{−l} > 1 − q, else never): P(L >= l) = Φ(x/σ), Q(L >= l) = (1 − q)Φ(x/σ) + qΦ((x −
1)/σ). Each Φ is taken as erfc/2 in Arb's balls; the sign of e^{±l} − (1 − q) is decided in balls (an undecided
grid point is an error, never a guess). Neither direction has an infinite loss.

**Float bounds at float speed** (:meth:`SubsampledGaussianLoss.survival_bounds`). The grid survivals are the values
at l = i/n of two analytic functions, and :func:`dpcert.arith.taylor.grid_bounds` turns a Taylor model per block of
grid points into proved float64 bounds (its docstring holds the float part of the proof). What this module owes it,
for one direction with u = l (remove) or u = −l (add):

* *Analyticity on a box* B of complex l. Put t(l) = e^u − (1 − q) and x(l) = σ² log(t/q) + 1/2 with the principal
  logarithm (at q = 1: x = σ²u + 1/2, an entire function; no logarithm is taken). The enclosure of t over B is
  computed in complex balls, and the box is used only when its real part is certainly > 0. Then t(B) lies in the
  open right half-plane, where the principal log is analytic, so x is analytic on a neighbourhood of B (B is
  compact and Re t is continuous) and equals the real x of the formulas above on the real axis; erfc is entire, so
  both survivals, written with erfc of x, are analytic there and real on the real axis. Their enclosures on B are
  the same formulas in complex balls.
* *Taylor series at c.* The series of the *simple* survival (remove: Q(L >= l) = erfc(x/(σ√2))/2; add:
  P(L >= l) = erfc(−x/(σ√2))/2) is composed in Arb's power-series arithmetic (exp, log, erfc of series; the
  constant term of t as expm1(±c) + q, so that 1 − q never cancels against e^u). The *mixture* (remove: P(L >= l);
  add: Q(L >= l)) follows from it: its derivative in l is e^u times the simple one's. Proof (remove; add is the
  same with u = −l): with φ the standard normal density, d/dl erfc(y/(σ√2))/2 = −φ(y/σ) y′/σ, so
  P′ = −[(1 − q)φ(x/σ) + qφ((x − 1)/σ)] x′/σ = Q′·(1 − q + q e^{(2x−1)/(2σ²)}), and by the definition of x,
  q e^{(2x−1)/(2σ²)} = t = e^l − (1 − q): the factor is e^l (the likelihood ratio at the threshold, as it must
  be). Both sides are analytic, so the identity holds between power series at c: mixture(c + hτ) =
  mixture(c) + ∫_0^τ e^{u} (d/ds) simple ds, with mixture(c) = (1 − q)·simple(c) + q·(the other erfc at x(c))/2 in
  balls. One erfc series per block instead of two.
* *Per-point balls* where a block cannot prove its accuracy (next to the edge e^u = 1 − q, where the radius of
  convergence shrinks to 0, and past it, where the survivals are exactly 0 or 1): :func:`_survivals_at`, the
  reference path of :meth:`SubsampledGaussianLoss.survivals`.

The bounds are finally clipped to [0, 1] (the values are probabilities).

References:
    docs/derivations/gaussian.md#sgm-directions; the Gaussian mechanism's loss: Balle and Wang, ICML 2018.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from flint import acb, arb, arb_series, ctx

from dpcert.arith.ball import ball
from dpcert.arith.taylor import GridBoundsStats, grid_bounds
from dpcert.pld.loss import PrivacyLoss
from dpcert.pld.loss import solve_switch as _solve

__all__ = ["SubsampledGaussianLoss", "DIRECTIONS", "directions"]

#: DP-SGD's two neighbouring directions.
DIRECTIONS = ("remove", "add")


def _log_phibar(t: float) -> float:
    from scipy import special

    return float(special.log_ndtr(-t))


def _x_array(direction: str, qf: float, s: float, lv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x where the loss is lv, for an array of lv (remove: L >= lv iff x >= it; add: L >= lv iff x <= it), and
    where such an x exists (float64; tightness and evidence only).

    With u = lv (remove) or −lv (add), t = e^u − (1 − q) is taken as expm1(u) + q where u >= −log 2 (1 − q never
    cancels against e^u at a tiny q) and as e^u − (1 − q) below it (there expm1(u) is near −1 and would lose a tiny
    e^u: at q = 1 t = e^u exactly; for q < 1/2 t < 0 either way, and for q >= 1/2, 1 − q is exact); past u = 700,
    log t as u + log(1 − (1 − q)e^{−u}) (e^u would overflow past 709). x exists where t > 0."""
    u = lv if direction == "remove" else -lv
    big = u > 700
    uc = np.minimum(u, 700.0)
    t = np.where(u < -math.log(2), np.exp(uc) - (1 - qf), np.expm1(uc) + qf)
    far = u + np.log1p(-(1 - qf) * np.exp(-np.maximum(u, 700.0)))
    logt = np.where(big, far, np.log(np.maximum(t, 1e-320)))
    return s * s * (logt - math.log(qf)) + 0.5, big | (t > 0)


def log_survivals(direction: str, qf: float, s: float, lv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log Q(L >= lv) and log P(L >= lv) of one direction for an array of lv, in float64 through ``log_ndtr``: the
    formulas of the module docstring, vectorised (the range choice of :meth:`SubsampledGaussianLoss.grid_range`
    and the calibration's evidence, :mod:`dpcert.gaussian.sgm_estimate`; never a bound)."""
    from scipy import special

    x, valid = _x_array(direction, qf, s, lv)
    if direction == "remove":  # the simple one Q = Φ̄(x/σ), the mixture P = (1 − q)Φ̄(x/σ) + qΦ̄((x − 1)/σ)
        simple, other = special.log_ndtr(-x / s), special.log_ndtr(-(x - 1) / s)
    else:  # the simple one P = Φ(x/σ), the mixture Q = (1 − q)Φ(x/σ) + qΦ((x − 1)/σ)
        simple, other = special.log_ndtr(x / s), special.log_ndtr((x - 1) / s)
    mixture = np.logaddexp((math.log1p(-qf) if qf < 1 else -math.inf) + simple, math.log(qf) + other)
    beyond = 0.0 if direction == "remove" else -math.inf  # no x: L >= lv surely (remove) or never (add)
    lq, lp = (simple, mixture) if direction == "remove" else (mixture, simple)
    return np.where(valid, lq, beyond), np.where(valid, lp, beyond)


def _x_of(direction: str, qf: float, s: float, lv: float) -> float | None:
    """:func:`_x_array` at one lv, None if no x."""
    x, valid = _x_array(direction, qf, s, np.array([lv], dtype=float))
    return float(x[0]) if valid[0] else None


def _log_surv(direction: str, which: str, qf: float, s: float, lv: float) -> float:
    """log P(L >= lv) (which = 'P') or log Q(L >= lv) (which = 'Q'): :func:`log_survivals` at one lv."""
    lq, lp = log_survivals(direction, qf, s, np.array([lv], dtype=float))
    return float((lp if which == "P" else lq)[0])


#: The loss range searched first, then (if the switch lies beyond it: a small σ) up to :data:`_FAR`.
_NEAR, _FAR = 200.0, 1e6


def _solve_far(f: Callable[[float], bool], lo: float) -> float:
    """:func:`_solve` on [lo, _NEAR], or on [_NEAR, _FAR] when f is still false at _NEAR (the larger search only
    where the first cannot answer, so that every range found before stays the same)."""
    if f(_NEAR):
        return _solve(f, lo, _NEAR)
    return _solve(f, _NEAR, _FAR)


def _range(direction: str, qf: float, s: float, n: int, tail: float) -> tuple[int, int]:
    """The grid index range [i_lo, i_hi] of one step: tails beyond it carry P-mass <= tail (float estimate)."""
    if direction == "remove":
        i_hi = math.ceil(n * _solve_far(lambda lv: _log_surv("remove", "P", qf, s, lv) <= math.log(tail), -1)) + 1
        if qf < 1:
            i_lo = math.floor(n * math.log1p(-qf)) - 1
        else:  # L = (2x − 1)/(2σ²): P(L < l) is Φ((l σ² − 1/2)/σ)
            i_lo = math.floor(n * -_solve_far(lambda m: _log_phibar((m * s * s + 0.5) / s) <= math.log(tail), 0)) - 1
    else:
        if qf < 1:
            i_hi = math.ceil(n * -math.log1p(-qf)) + 1
        else:
            i_hi = math.ceil(n * _solve_far(lambda lv: _log_surv("add", "P", qf, s, lv) <= math.log(tail), -1)) + 1

        def below_small(m: float) -> bool:  # P(L < −m) e^{...} small; P(L < l) = 1 − P(L >= l) = Φ̄(x′/σ)
            x = _x_of("add", qf, s, -m)
            return x is not None and _log_phibar(x / s) <= math.log(tail)

        i_lo = math.floor(n * -_solve_far(below_small, 0)) - 1
    return i_lo, i_hi


def _survivals(direction: str, q: Fraction, sigma: Fraction, n: int, i_lo: int, i_hi: int) -> tuple[list, list]:
    """Balls of Q(L >= i/n) and P(L >= i/n) for i = i_lo..i_hi (the current working precision)."""
    step = ball(Fraction(1, n))
    return _survivals_at(direction, q, sigma, [i * step for i in range(i_lo, i_hi + 1)])


def _survivals_at(direction: str, q: Fraction, sigma: Fraction, ts: list) -> tuple[list, list]:
    """Balls of Q(L >= t) and P(L >= t) for thresholds t (balls; an undecided threshold: its ends' union, as
    both survival functions are continuous and non-increasing)."""
    sg, bq, one_q = ball(sigma), ball(q), ball(1 - q)
    s2 = arb(2).sqrt()
    sq, sp = [], []
    sign = 1 if direction == "remove" else -1
    for lv in ts:
        try:
            a, b = _pair_at(direction, sign, sg, bq, one_q, s2, lv)
        except ArithmeticError:
            if lv.rad() == 0:
                raise
            a0, b0 = _pair_at(direction, sign, sg, bq, one_q, s2, arb(lv.lower()))
            a1, b1 = _pair_at(direction, sign, sg, bq, one_q, s2, arb(lv.upper()))
            a, b = a0.union(a1), b0.union(b1)
        sq.append(a)
        sp.append(b)
    return sq, sp


def _pair_at(direction: str, sign: int, sg: arb, bq: arb, one_q: arb, s2: arb, lv: arb) -> tuple[arb, arb]:
    """(Q(L >= lv), P(L >= lv)) for one threshold ball."""
    t = (sign * lv).exp() - one_q
    if t <= 0:
        # remove: e^l <= 1 − q < Y everywhere, so L >= l surely; add: L < −log(1 − q) <= l surely
        full = arb(1) if direction == "remove" else arb(0)
        return full, full
    if not t > 0:  # tiny q: 1 − q rounds at this precision; e^l − (1 − q) = (e^l − 1) + q keeps q's digits
        t = (sign * lv).expm1() + bq
    if not t > 0:
        raise ArithmeticError(f"threshold {lv} undecided against the loss bound at the working precision")
    x = sg * sg * (t / bq).log() + arb(1) / 2
    if direction == "remove":
        a = (x / (sg * s2)).erfc() / 2  # Φ̄(x/σ)
        b = ((x - 1) / (sg * s2)).erfc() / 2
        return a, one_q * a + bq * b
    a = (-x / (sg * s2)).erfc() / 2  # Φ(x/σ)
    b = (-(x - 1) / (sg * s2)).erfc() / 2
    return one_q * a + bq * b, a


class _SurvivalFamily:
    """The two survival functions l ↦ (Q(L >= l), P(L >= l)) of one direction, as an analytic family for
    :func:`dpcert.arith.taylor.grid_bounds` (the proof of analyticity: the module's docstring)."""

    count = 2

    def __init__(self, direction: str, q: Fraction, sigma: Fraction) -> None:
        self.direction, self.q, self.sigma = direction, q, sigma
        self.sign = 1 if direction == "remove" else -1
        self._cache: tuple[int, tuple[arb, arb, arb, arb]] | None = None

    def _consts(self) -> tuple[arb, arb, arb, arb]:
        """σ, q, 1 − q and σ√2 as balls at the working precision (computed once per precision)."""
        prec = ctx.prec
        if self._cache is None or self._cache[0] != prec:
            sg = ball(self.sigma)
            self._cache = (prec, (sg, ball(self.q), ball(1 - self.q), sg * arb(2).sqrt()))
        return self._cache[1]

    def _combine(self, x: acb, one_q: acb, bq: acb, ss: acb) -> list[acb]:
        """(Q, P) survivals from x on a complex box, the formulas of the module's docstring."""
        if self.direction == "remove":
            a = (x / ss).erfc() / 2  # Φ̄(x/σ)
            b = ((x - 1) / ss).erfc() / 2
            return [a, a * one_q + b * bq]
        a = (-x / ss).erfc() / 2  # Φ(x/σ)
        b = ((1 - x) / ss).erfc() / 2
        return [a * one_q + b * bq, a]

    def series(self, c: arb, h: arb, length: int) -> list[arb_series] | None:
        sg, bq, one_q, ss = self._consts()
        u = arb_series([self.sign * c, self.sign * h])  # u = ±l, l = c + hτ
        eu = u.exp()
        half = arb(1) / 2
        if self.q == 1:
            x = u * (sg * sg) + half
            x0 = self.sign * c * (sg * sg) + half
        else:
            t0 = (self.sign * c).expm1() + bq  # e^u − (1 − q) at τ = 0 without cancelling 1 − q against e^u
            if not t0 > 0:
                return None
            t = arb_series([t0, *list(eu.coeffs())[1:]])
            x = (t / bq).log() * (sg * sg) + half
            x0 = (t0 / bq).log() * (sg * sg) + half  # x at τ = 0, as a point
        if self.direction == "remove":  # simple: Q(L >= l) = Φ̄(x/σ); mixture: P(L >= l)
            simple = (x / ss).erfc() / 2
            a0, b0 = (x0 / ss).erfc() / 2, ((x0 - 1) / ss).erfc() / 2
        else:  # simple: P(L >= l) = Φ(x/σ); mixture: Q(L >= l)
            simple = (-x / ss).erfc() / 2
            a0, b0 = (-x0 / ss).erfc() / 2, ((1 - x0) / ss).erfc() / 2
        # the mixture's derivative in l is e^{±l} times the simple one's (the module docstring): integrate
        mixture = (eu * simple.derivative()).integral() + (a0 * one_q + b0 * bq)
        return [simple, mixture] if self.direction == "remove" else [mixture, simple]

    def disk(self, z: acb) -> list[acb] | None:
        sg, bq, one_q, ss = self._consts()
        u = self.sign * z
        if self.q == 1:
            x = u * (sg * sg) + arb(1) / 2
        else:
            t = u.expm1() + bq  # e^u − (1 − q), without cancelling 1 − q against e^u (tiny q)
            if not t.real > 0:  # Re t > 0 on the box: the principal log is analytic there (module docstring)
                return None
            x = (t / bq).log() * (sg * sg) + arb(1) / 2
        return self._combine(x, acb(one_q), acb(bq), acb(ss))

    def points(self, n: int, indices: Sequence[int]) -> list[list[arb]]:
        step = ball(Fraction(1, n))
        return list(_survivals_at(self.direction, self.q, self.sigma, [i * step for i in indices]))


class SubsampledGaussianLoss(PrivacyLoss):
    """One direction of the Poisson-subsampled Gaussian (rate q in (0, 1], noise multiplier σ, sensitivity 1).

    >>> loss = SubsampledGaussianLoss("remove", Fraction(1, 100), Fraction(1))
    >>> loss.name, loss.infinite_mass()
    ('remove', Fraction(0, 1))
    """

    def __init__(self, direction: str, q: Fraction, sigma: Fraction) -> None:
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
        self.name = direction
        self.q = Fraction(q)
        self.sigma = Fraction(sigma)

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        return _survivals(self.name, self.q, self.sigma, n, i_lo, i_hi)

    def survival_bounds(
        self, n: int, i_lo: int, i_hi: int, *, stats: GridBoundsStats | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Float64 bounds of Q(L >= i/n) and P(L >= i/n) by Taylor models in blocks (the module's docstring and
        :mod:`dpcert.arith.taylor`), per-point balls where a block cannot prove its accuracy."""
        (sq_lo, sq_hi), (sp_lo, sp_hi) = grid_bounds(
            _SurvivalFamily(self.name, self.q, self.sigma), n, i_lo, i_hi, stats=stats
        )
        return tuple(np.clip(a, 0.0, 1.0) for a in (sq_lo, sq_hi, sp_lo, sp_hi))  # type: ignore[return-value]

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        return _survivals_at(self.name, self.q, self.sigma, [t if isinstance(t, arb) else ball(t) for t in ts])

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        return _range(self.name, float(self.q), float(self.sigma), n, tail)

    def loss_variance(self) -> float:
        """Var_Q(Y) of the remove direction, q²(e^{1/σ²} − 1) (the exponent capped at 700: a guess only)."""
        s = float(self.sigma)
        return float(self.q) ** 2 * math.expm1(min(1 / (s * s), 700))


def directions(q: Fraction, sigma: Fraction) -> list[SubsampledGaussianLoss]:
    """Both directions (remove, then add)."""
    return [SubsampledGaussianLoss(d, q, sigma) for d in DIRECTIONS]
