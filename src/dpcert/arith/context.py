"""Arithmetic contexts: one scalar formula, several arithmetics.

A scalar formula is written once as ``f(ctx, ...)`` against the small vocabulary below (``ctx.num``,
``ctx.exp``, ``ctx.log``, ``ctx.log1p``, ``ctx.expm1``, ``ctx.sqrt``, ``ctx.min``, ``ctx.max``) and evaluated in
float64 (:data:`FLOAT`, fast evidence), in rigorous ball arithmetic (:class:`BallContext`, a proof) or in exact
rational arithmetic (:class:`ExactContext`, which signals :class:`NotExact` as soon as the formula needs a value
that is not rational). Exact inputs enter through ``ctx.num``, which turns a rational into the context's number
type. ``ctx.is_exact`` says which kind of arithmetic a context is (sympy's ``Domain.is_exact``).

This is mpmath's ``ctx`` idea with the precision held by the context object instead of a global.
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import EXACT_ATTEMPT, MAX_PREC, NotExact, ball, workprec
from dpcert.arith.exact import Exact

__all__ = ["FloatContext", "BallContext", "ExactContext", "NotExact", "exact_value", "FLOAT"]


class FloatContext:
    """float64 arithmetic: fast, and only evidence (``rigorous = False``)."""

    name = "float64"
    rigorous = False
    is_exact = False

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
    is_exact = False

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


# ------------------------------------------------------------------------------------------------ exact


#: Largest numerator or denominator (bits) an exact attempt builds before it gives up (the squares of two inputs of
#: 4,000 digits, the parser's limit, fit).
EXACT_MAX_BITS = 1 << 16
#: Work an exact attempt may spend, in units of about a microsecond of Fraction arithmetic (cost model of
#: :func:`_cost`): about 50 ms, a small fraction of a ball evaluation that needs one, so a formula doing heavy
#: rational work before its first irrational step costs little when it falls back to balls.
EXACT_WORK = 50_000


class _Budget:
    __slots__ = ("max_bits", "work")

    def __init__(self, max_bits: int, work: int) -> None:
        self.max_bits = max_bits
        self.work = work


_BUDGET: ContextVar[_Budget | None] = ContextVar("dpcert_exact_budget", default=None)


def _cost(bits: int) -> int:
    # Fraction arithmetic costs about 1.5 us plus a gcd quadratic in the size: ~8 us per (1024 bits)^2
    return 2 + (8 * bits * bits >> 20)


class _Rational(Fraction):
    """A Fraction whose arithmetic stays inside the active exact attempt's budget (else :class:`NotExact`)."""

    __slots__ = ()


def _guard(r: Any) -> Any:
    if not isinstance(r, Fraction):
        return r  # NotImplemented, or a float/complex from mixing with floats (then the result is not exact)
    b = _BUDGET.get()
    if b is not None:
        bits = max(r.numerator.bit_length(), r.denominator.bit_length())
        b.work -= _cost(bits)
        if bits > b.max_bits or b.work < 0:
            raise NotExact(f"an exact value of {bits} bits, or the exact attempt's work budget, exceeded")
    return r if type(r) is _Rational else _Rational(r)


def _binary(name: str) -> Any:
    base = getattr(Fraction, name)

    def op(self: Fraction, other: Any) -> Any:
        return _guard(base(self, other))

    op.__name__ = name
    return op


def _unary(name: str) -> Any:
    base = getattr(Fraction, name)

    def op(self: Fraction) -> Any:
        return _guard(base(self))

    op.__name__ = name
    return op


for _name in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__mod__",
    "__rmod__",
):
    setattr(_Rational, _name, _binary(_name))
for _name in ("__neg__", "__pos__", "__abs__"):
    setattr(_Rational, _name, _unary(_name))


def _integral(x: Any) -> int | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, Fraction) and x.denominator == 1:
        return x.numerator
    return None


def _pow(self: Fraction, other: Any) -> Any:
    n = _integral(other)
    if n is None:
        if isinstance(other, float):
            return Fraction.__pow__(self, other)  # a float: the result is not exact (and is refused at the end)
        raise NotExact("a rational power with a non-integer exponent")
    b = _BUDGET.get()
    bits = max(self.numerator.bit_length(), self.denominator.bit_length())
    if b is not None and bits * abs(n) > b.max_bits:
        raise NotExact(f"a power of about {bits * abs(n)} bits")
    return _guard(Fraction.__pow__(self, n))


def _rpow(self: Fraction, other: Any) -> Any:
    n = _integral(self)
    if n is None or not isinstance(other, (int, Fraction)):
        if isinstance(other, float):
            return Fraction.__rpow__(self, other)
        raise NotExact("a power with a non-integer exponent")
    return _pow(_Rational(other), n)


_Rational.__pow__ = _pow  # type: ignore[method-assign,assignment]
_Rational.__rpow__ = _rpow  # type: ignore[method-assign,assignment]


def _rational(x: Any) -> _Rational:
    """``x`` as a guarded rational; anything that is not a rational (a ball, a float) signals NotExact."""
    if isinstance(x, Exact):
        x = x.value
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        raise NotExact(f"a {type(x).__name__} in an exact formula")
    return x if type(x) is _Rational else _Rational(x)


class ExactContext:
    """Exact rational arithmetic (``is_exact = True``): the same formula on Fractions, or :class:`NotExact`.

    Every operation whose result is rational is done exactly: e^0 = 1, log 1 = 0, log1p 0 = expm1 0 = 0, the square
    root of a rational whose numerator and denominator are perfect squares. Any other exp/log (irrational for a
    rational argument, Lindemann–Weierstrass), Euler's e, a ball (:func:`~dpcert.arith.ball.ball`,
    :func:`~dpcert.arith.ball.workprec`), or anything the vocabulary lacks (``ctx.prec``: the formula needs balls)
    raises :class:`NotExact` at once. A size guard bounds the attempt: a numerator or denominator over ``max_bits``
    bits, or more than ``work`` units of arithmetic (:data:`EXACT_WORK`, about 50 ms), also raise NotExact. Python
    control flow on values (``if x > y``) is exact here.

    Use as a context manager::

        with ExactContext() as ctx:
            y = formula(ctx, ...)  # a Fraction, or NotExact
    """

    name = "exact"
    rigorous = True
    is_exact = True

    def __init__(self, max_bits: int = EXACT_MAX_BITS, work: int = EXACT_WORK) -> None:
        self.max_bits = max_bits
        self.work = work
        self._tokens: list[Any] = []

    def __enter__(self) -> ExactContext:
        self._tokens.append((EXACT_ATTEMPT.set(True), _BUDGET.set(_Budget(self.max_bits, self.work))))
        return self

    def __exit__(self, *exc: Any) -> None:
        attempt, budget = self._tokens.pop()
        _BUDGET.reset(budget)
        EXACT_ATTEMPT.reset(attempt)

    def __getattr__(self, name: str) -> Any:
        # ``ctx.prec``, ``ctx.max_prec``, ``ctx.workprec``…: the formula needs ball arithmetic
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotExact(f"the formula needs ctx.{name}")

    @staticmethod
    def num(x: Fraction | int | Exact) -> Fraction:
        return _rational(x)

    exact = num

    @staticmethod
    def exp(x: Any) -> Fraction:
        if _rational(x) == 0:
            return _Rational(1)
        raise NotExact("exp of a rational other than 0")

    @staticmethod
    def expm1(x: Any) -> Fraction:
        if _rational(x) == 0:
            return _Rational(0)
        raise NotExact("expm1 of a rational other than 0")

    @staticmethod
    def log(x: Any) -> Fraction:
        if _rational(x) == 1:
            return _Rational(0)
        raise NotExact("log of a rational other than 1")

    @staticmethod
    def log1p(x: Any) -> Fraction:
        if _rational(x) == 0:
            return _Rational(0)
        raise NotExact("log1p of a rational other than 0")

    @staticmethod
    def sqrt(x: Any) -> Fraction:
        q = _rational(x)
        if q >= 0:
            rn, rd = math.isqrt(q.numerator), math.isqrt(q.denominator)
            if rn * rn == q.numerator and rd * rd == q.denominator:
                return _Rational(rn, rd)
        raise NotExact("the square root of a rational that is not a square")

    @staticmethod
    def min(*xs: Any) -> Fraction:
        return min(_rational(x) for x in xs)

    @staticmethod
    def max(*xs: Any) -> Fraction:
        return max(_rational(x) for x in xs)

    @staticmethod
    def e() -> Fraction:
        raise NotExact("Euler's number")


def exact_value(formula: Any, *args: Any, **kwargs: Any) -> Fraction | None:
    """``formula(ctx, *args, **kwargs)`` in an :class:`ExactContext`: its exact rational value, or ``None`` when the
    formula needs an irrational operation, balls, or more than the exact attempt's budget.

    Any other exception of the attempt also gives ``None``: the ball evaluation that follows is the authority and
    raises it again if it is real (an invalid input, a division by zero).

    >>> exact_value(lambda ctx, x: ctx.sqrt(x) / 3, Fraction(4, 9))
    Fraction(2, 9)
    >>> exact_value(lambda ctx, x: ctx.exp(x), Fraction(1)) is None
    True
    """
    try:
        with ExactContext() as ctx:
            value = formula(ctx, *args, **kwargs)
    except NotExact:
        return None
    except Exception:  # noqa: BLE001 -- see the docstring: the ball path re-raises what is real
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return None
    return Fraction(value)  # a plain Fraction (copied, no gcd)
