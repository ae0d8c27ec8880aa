"""Arithmetic contexts: one scalar formula, several arithmetics.

A scalar formula is written once as ``f(ctx, ...)`` against the small vocabulary below (``ctx.num``,
``ctx.exp``, ``ctx.log``, ``ctx.log1p``, ``ctx.expm1``, ``ctx.sqrt``, ``ctx.min``, ``ctx.max``) and evaluated in
float64 (:data:`FLOAT`, fast evidence) or in rigorous ball arithmetic (:class:`BallContext`, a proof). Exact
inputs enter through ``ctx.num``, which turns a rational into the context's number type.

This is mpmath's ``ctx`` idea with the precision held by the context object instead of a global.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import MAX_PREC, ball, workprec
from dpcert.arith.exact import Exact

__all__ = ["FloatContext", "BallContext", "FLOAT"]


class FloatContext:
    """float64 arithmetic: fast, and only evidence (``rigorous = False``)."""

    name = "float64"
    rigorous = False

    @staticmethod
    def num(x: Fraction | int | Exact) -> float:
        return float(x.value if isinstance(x, Exact) else x)

    @staticmethod
    def exp(x: float) -> float:
        """e^x, +inf past the largest double (IEEE semantics, where math.exp raises)."""
        try:
            return math.exp(x)
        except OverflowError:
            return math.inf

    @staticmethod
    def expm1(x: float) -> float:
        try:
            return math.expm1(x)
        except OverflowError:
            return math.inf

    log = staticmethod(math.log)
    log1p = staticmethod(math.log1p)
    sqrt = staticmethod(math.sqrt)

    @staticmethod
    def exact(x: Fraction | int | Exact) -> float:
        """An exact rational term of a formula, as a float (the ball context keeps it exact)."""
        return float(x.value if isinstance(x, Exact) else x)

    @staticmethod
    def min(*xs: float) -> float:
        return min(xs)

    @staticmethod
    def max(*xs: float) -> float:
        return max(xs)

    @staticmethod
    def e() -> float:
        return math.e

    def __enter__(self) -> FloatContext:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


FLOAT = FloatContext()


class BallContext:
    """Rigorous ball arithmetic at ``prec`` bits (``rigorous = True``).

    Use as a context manager so that flint's working precision is this object's for the duration::

        with BallContext(128) as ctx:
            y = formula(ctx, ...)
    """

    name = "arb"
    rigorous = True

    def __init__(self, prec: int, max_prec: int = MAX_PREC) -> None:
        #: working precision in bits, and the cap any inner refinement (a certified search) must respect
        self.prec = prec
        self.max_prec = max(prec, max_prec)
        self._cm: Any = None

    def __enter__(self) -> BallContext:
        self._cm = workprec(self.prec)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._cm.__exit__(*exc)
        self._cm = None

    @staticmethod
    def num(x: Fraction | int | Exact) -> arb:
        return ball(x)

    @staticmethod
    def exact(x: Fraction | int | Exact) -> Fraction:
        """An exact rational term of a formula, kept exact: ``min``/``max`` return it exactly when it wins, so a
        quantity whose value is rational is enclosed exactly and can be certified at equality."""
        return Fraction(x.value if isinstance(x, Exact) else x)

    @staticmethod
    def exp(x: arb) -> arb:
        return ball(x).exp()

    @staticmethod
    def log(x: arb) -> arb:
        return ball(x).log()

    @staticmethod
    def log1p(x: arb) -> arb:
        return ball(x).log1p()

    @staticmethod
    def expm1(x: arb) -> arb:
        return ball(x).expm1()

    @staticmethod
    def sqrt(x: arb) -> arb:
        return ball(x).sqrt()

    @staticmethod
    def min(*xs: arb | Fraction) -> arb | Fraction:
        """The minimum; an exact argument certainly <= every other is returned exactly."""
        return _extreme(xs, lambda a, b: a <= b, arb.min)

    @staticmethod
    def max(*xs: arb | Fraction) -> arb | Fraction:
        """The maximum; an exact argument certainly >= every other is returned exactly."""
        return _extreme(xs, lambda a, b: a >= b, arb.max)

    @staticmethod
    def e() -> arb:
        return arb.const_e()


def _extreme(xs: tuple[Any, ...], beats: Any, combine: Any) -> arb | Fraction:
    exact = [x for x in xs if isinstance(x, (Fraction, int))]
    if exact:
        best = Fraction(exact[0])
        for x in exact[1:]:
            best = Fraction(x) if beats(Fraction(x), best) else best
        # arb comparisons are True only when certain
        if all(isinstance(x, (Fraction, int)) or beats(ball(best), x) for x in xs):
            return best
    out = ball(xs[0])
    for x in xs[1:]:
        out = combine(out, ball(x))
    return out
