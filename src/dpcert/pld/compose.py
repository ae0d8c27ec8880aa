"""Composition of discretised privacy losses, with windows whose every dropped tail is accounted.

**Powers and products.** A grid measure is a polynomial in z (the index is the grid exponent j of y = e^{j/n}), so
the law of a product of independent steps is the product of polynomials; k-fold powers are taken by binary
powering. The products are ``flint.arb_poly`` products (Arb: every coefficient a ball containing the exact one).

**Windows.** After every product the index range is cut to a window chosen in floats (tightness only):

* lower bound: mass below the window is dropped (a smaller measure lowers E f) and mass above it is moved down to
  the window top (g increasing: lowers it), so the result stays <=_icx the exact composition;
* upper bound: mass below is moved up to the window bottom (raises it) and mass above is dropped, its y-mass
  e = Σ w_j e^{j/n} (in balls) carried as an additive error.

**The carried error.** Write X ≼ X′ + e_X when E_{X∗ν} f_c <= E_{X′∗ν} f_c + e_X·mean(ν) for every c >= 0 and every
measure ν >= 0 (f_c(y) = (y − c)₊). Dropping mass above the window is such a relation, with e_X its y-mass, because
(yz − c)₊ <= yz. It composes: if X ≼ X′ + e_X and Y ≼ Y′ + e_Y then

    E_{X∗Y∗ν} f <= E_{X′∗Y∗ν} f + e_X·mean(Y)·mean(ν) <= E_{X′∗Y′∗ν} f + (e_X·mean(Y) + e_Y·mean(X′))·mean(ν),

so X∗Y ≼ X′∗Y′ + e_X·mean(Y) + e_Y·mean(X′). mean(X′) is evaluated from X′ in balls. mean(Y) is the exact
measure's: inside a power (:func:`compose`) Y is s steps restricted to L < L_max, whose mean is at most m₁^s with
m₁ the mean of one step's upper discretisation (the icx order raises means); the tails L >= L_max are added once at
the end, k·P_ac(L >= L_max), which is itself a relation of this form (the tail part's y-mass is at most
Σ_i P_ac(L_i >= L_max)·Π_{j≠i} E_Q Y_j <= k·P_ac(L >= L_max), as E_Q Y <= 1). Between two finished compositions
(:func:`combine`) Y is the full law of its steps, so mean(Y) = Π E_Q Y_j <= 1.

**Infinite loss.** The part of P singular to Q composes on its own: P^k's part singular to Q^k has mass
1 − (1 − p)^k (a product with any singular factor is singular), and the absolutely continuous part's density is
the product of the steps' densities, which is what the measures above compose.

References:
    Composition of PLDs by convolution: S. Meiser, E. Mohammadi, "Tight on budget?", CCS 2018; A. Koskela, J.
    Jälkö, A. Honkela, AISTATS 2020. The windowing bookkeeping is this module's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb, arb_poly

from dpcert.arith.ball import ball, workprec
from dpcert.pld.discretise import Measure, StepMeasures, mean, working_precision

__all__ = ["Composed", "compose", "combine"]


@dataclass(frozen=True)
class Composed:
    """A composition in one direction: lower and upper atoms and the upper bound's additive error.

    Attributes:
        n: the resolution. steps: the number of steps composed.
        lower, upper: the composed lower and upper measures.
        error: a ball added to the upper sum (windowing and the k·P(L >= L_max) tails).
        infinite: a ball containing the mass of an infinite composed loss, 1 − Π (1 − p_i).
        alt: another composition of the same steps (arb or float path) whose lower end is valid too, or None; the
            evaluation (:func:`dpcert.pld.accountant.delta_of`) takes the larger lower end.
    """

    n: int
    steps: int
    lower: Measure
    upper: Measure
    error: arb
    infinite: arb = field(default_factory=lambda: arb(0))
    alt: object = None


def _fl(a: arb) -> float:
    return float(a.mid())


#: Past this exponent a float e^x is formed in the log domain (math.exp overflows at about 709.78).
_EXP_SAFE = 700.0


def _y_mass(w: float, x: float) -> float:
    """w·e^x in floats (w >= 0), +inf rather than an OverflowError when it is beyond float range."""
    if w == 0.0:
        return 0.0
    if x <= _EXP_SAFE:
        return w * math.exp(x)
    lg = math.log(w) + x
    return math.exp(lg) if lg <= _EXP_SAFE else math.inf


def _window(meas: Measure, n: int, tau: float) -> tuple[int, int]:
    """Index range [a, b] (relative to meas.off) outside which the y-mass is <= tau on each side (floats; only
    the tightness depends on it, and a mass too large for a float counts as above ``tau``)."""
    coeffs = meas.poly.coeffs()
    w = [abs(_fl(x)) for x in coeffs]
    ln = len(w)
    acc = 0.0
    b = ln - 1
    while b > 0:
        ym = _y_mass(w[b], (meas.off + b) / n)
        if acc + ym > tau:
            break
        acc += ym
        b -= 1
    acc = 0.0
    a = 0
    while a < b:
        # mass below a, valued at the window bottom (upper: moved there; lower: dropped, y <= that)
        if _y_mass(acc + w[a], (meas.off + a + 1) / n) > tau:
            break
        acc += w[a]
        a += 1
    return a, b


def _truncate(meas: Measure, n: int, tau: float, upper: bool) -> tuple[Measure, arb]:
    """Window a product: (windowed measure, the y-mass dropped above the window for the upper bound)."""
    a, b = _window(meas, n, tau)
    coeffs = meas.poly.coeffs()
    if a == 0 and b == len(coeffs) - 1:
        return meas, arb(0)
    kept = list(coeffs[a : b + 1])
    err = arb(0)
    if upper:
        if a > 0:
            kept[0] = kept[0] + sum(coeffs[:a], arb(0))
        if b < len(coeffs) - 1:
            above = Measure(meas.off + b + 1, arb_poly(list(coeffs[b + 1 :])))
            err = mean(above, n)
    elif b < len(coeffs) - 1:
        kept[-1] = kept[-1] + sum(coeffs[b + 1 :], arb(0))
    return Measure(meas.off + a, arb_poly(kept)), err


def _mul(x: Measure, y: Measure) -> Measure:
    return Measure(x.off + y.off, x.poly * y.poly)


def _infinite(p: Fraction, k: int) -> arb:
    return arb(0) if p == 0 else 1 - (1 - ball(p)) ** k


def compose(step: StepMeasures, steps: int, tau: float, progress: Callable[[str], None] | None = None) -> Composed:
    """The k-fold composition of one direction's step measures, by binary powering with windows (rigorous).

    Args:
        step: one step's measures. steps: k >= 1. tau: the y-mass each window may drop on each side (float).
    """
    n = step.n
    with workprec(working_precision(n)):
        m1 = step.mean_upper
        # (lower, upper, error, s): Z^s ≼ upper + error and lower <=_icx Y^s
        cur = (step.lower, step.upper, arb(0), 1)
        res: tuple[Measure, Measure, arb, int] | None = None
        k = steps
        rounds = k.bit_length()
        r = 0
        while k:
            if k & 1:
                res = cur if res is None else _product(res, cur, m1, n, tau)
            k >>= 1
            r += 1
            if k:
                cur = _product(cur, cur, m1, n, tau)
            if progress is not None:
                progress(f"round {r}/{rounds}, window {cur[1].length} atoms")
        if res is None:
            raise ValueError(f"steps must be >= 1, not {steps}")
        lower, upper, err, _ = res
        tail = steps * step.tail
        return Composed(n, steps, lower, upper, err + tail, _infinite(step.infinite, steps))


def _product(x: tuple, y: tuple, m1: arb, n: int, tau: float) -> tuple[Measure, Measure, arb, int]:
    lo_x, up_x, e_x, s_x = x
    lo_y, up_y, e_y, s_y = y
    lower, _ = _truncate(_mul(lo_x, lo_y), n, tau, upper=False)
    upper, e_t = _truncate(_mul(up_x, up_y), n, tau, upper=True)
    err = e_t
    if e_x != 0:
        err += e_x * m1**s_y
    if e_y != 0:
        err += e_y * mean(up_x, n)
    return lower, upper, err, s_x + s_y


def combine(x: Composed, y: Composed, tau: float) -> Composed:
    """The composition of two different compositions at one resolution (e.g. two mechanisms, or two σ).

    The error bookkeeping of the module docstring: e = e_window + e_x·mean(Y) + e_y·mean(X′), mean(Y) <= 1.
    """
    if not (isinstance(x, Composed) and isinstance(y, Composed)):
        raise TypeError("combine takes arb-path compositions (compose, or compose_directions(method='arb'))")
    if x.n != y.n:
        raise ValueError(f"compositions at resolutions {x.n} and {y.n} cannot be combined (one grid is needed)")
    n = x.n
    with workprec(working_precision(n)):
        lower, _ = _truncate(_mul(x.lower, y.lower), n, tau, upper=False)
        upper, err = _truncate(_mul(x.upper, y.upper), n, tau, upper=True)
        if x.error != 0:
            err += x.error  # times mean(Y) <= 1
        if y.error != 0:
            err += y.error * mean(x.upper, n)
        infinite = 1 - (1 - x.infinite) * (1 - y.infinite)
        return Composed(n, x.steps + y.steps, lower, upper, err, infinite)
