"""Rigorous ball arithmetic (python-flint ``arb``) with rising precision and three-valued comparisons.

A comparison of two balls is ``True`` only when it is certainly true, ``False`` only when certainly false, and
``None`` when the balls overlap. :func:`refine` re-runs a computation at doubling precision until it is decided and
gives up, raising :class:`~dpcert.errors.PrecisionExhausted`, at a stated maximum (:data:`MAX_PREC` by default).
Balls are always built from exact rationals (``arb(fmpq(1, 10))``), never from float literals.

References:
    F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval arithmetic", IEEE TC 66(8), 2017.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from flint import arb, arb_poly, ctx, fmpq, fmpq_poly

from dpcert.arith.exact import Exact, RationalFunction, fraction_to_decimal
from dpcert.arith.rounding import Direction, fraction_to_float
from dpcert.errors import PrecisionExhausted

__all__ = [
    "ball_to_float",
    "START_PREC",
    "MAX_PREC",
    "ball",
    "workprec",
    "refine",
    "lt",
    "le",
    "sign",
    "sign_at_exp",
    "at_exp",
    "poly_at",
    "Enclosure",
    "fraction_of",
    "NotExact",
]

#: Precision (bits) of the first attempt.
START_PREC = 64
#: Default maximum precision (bits); past it a question is UNDECIDED.
MAX_PREC = 8192

T = TypeVar("T")


class NotExact(BaseException):
    """Internal signal: an exact attempt (:class:`~dpcert.arith.context.ExactContext`) met an operation whose result
    is not rational (e^x for rational x != 0, a log, an irrational square root), a ball, or its size guard.

    It derives from ``BaseException`` on purpose: a formula's own ``except Exception`` fallback must not swallow it
    and carry on. :meth:`~dpcert.core.quantity.Quantity.decide` catches it and falls back to balls; it never
    reaches a user.
    """


#: True while an exact attempt runs; ball arithmetic then signals :class:`NotExact` instead of computing.
EXACT_ATTEMPT: ContextVar[bool] = ContextVar("dpcert_exact_attempt", default=False)


def workprec(prec: int):
    """Context manager running flint ball operations at ``prec`` bits (restores the previous precision).

    Raises:
        NotExact: inside an exact attempt (a formula that sets a precision computes in balls).
    """
    if EXACT_ATTEMPT.get():
        raise NotExact("the formula sets a ball precision")
    return ctx.workprec(prec)


def ball(x: Any) -> arb:
    """A ball enclosing the exact rational ``x`` at the current working precision.

    Accepts ``Fraction``, ``int``, :class:`~dpcert.arith.exact.Exact` and ``fmpq``; refuses ``float`` so that a
    decimal literal can never slip in as its binary double.

    Raises:
        NotExact: inside an exact attempt (the formula leaves exact arithmetic).
    """
    if EXACT_ATTEMPT.get():
        raise NotExact("the formula builds a ball")
    if isinstance(x, arb):
        return x
    if isinstance(x, Exact):
        x = x.value
    if isinstance(x, bool):
        raise TypeError("ball() refuses bool")
    if isinstance(x, int):
        return arb(x)
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    if isinstance(x, fmpq):
        return arb(x)
    raise TypeError(f"ball() takes exact rationals, not {type(x).__name__}")


def refine(
    step: Callable[[int], T | None],
    *,
    what: str,
    start_prec: int = START_PREC,
    max_prec: int = MAX_PREC,
) -> tuple[T, int]:
    """Run ``step(prec)`` at doubling precision until it returns something other than ``None``.

    ``step`` is called inside :func:`workprec` for each precision.

    Returns:
        ``(result, prec)``: the first decided result and the precision that decided it.

    Raises:
        PrecisionExhausted: when ``step`` still returns ``None`` at ``max_prec``.
    """
    prec = start_prec
    while True:
        with workprec(prec):
            result = step(prec)
        if result is not None:
            return result, prec
        if prec >= max_prec:
            raise PrecisionExhausted(what, max_prec)
        prec = min(2 * prec, max_prec)


def lt(a: arb, b: arb) -> bool | None:
    """Three-valued ``a < b``: ``True``/``False`` when certain, ``None`` when the balls overlap."""
    if a < b:
        return True
    if a >= b:
        return False
    return None


def le(a: arb, b: arb) -> bool | None:
    """Three-valued ``a <= b``."""
    if a <= b:
        return True
    if a > b:
        return False
    return None


def sign(a: arb) -> int | None:
    """Sign of a ball: +1, −1, 0 for the exact zero ball, ``None`` when the ball straddles 0."""
    if a > 0:
        return 1
    if a < 0:
        return -1
    if a.is_zero():
        return 0
    return None


def poly_at(p: Any, x: arb) -> arb:
    """A ball of the polynomial ``p`` (``fmpq_poly`` or ``fmpz_poly``) at the ball ``x``."""
    return arb_poly([arb(c) for c in p.coeffs()])(x) if not p.is_zero() else arb(0)


def at_exp(f: RationalFunction, eps: Fraction | Exact) -> arb:
    """A ball of the rational function f at x = e^ε, at the current working precision (see :func:`workprec`).

    Raises:
        ZeroDivisionError: if the denominator's ball contains 0 (a pole, or too little precision).
    """
    e = eps.value if isinstance(eps, Exact) else Fraction(eps)
    x = ball(e).exp()
    den = poly_at(f.den, x)
    if sign(den) in (None, 0):
        raise ZeroDivisionError(f"denominator of {f!r} not separated from 0 at x = e^{e}")
    return poly_at(f.num, x) / den


def sign_at_exp(
    f: RationalFunction | fmpq_poly,
    eps: Fraction | Exact,
    *,
    max_prec: int = MAX_PREC,
) -> int:
    """The sign of an exact rational function of x at x = e^ε, for rational ε.

    An identically zero function gives 0: an exact equality, never "undecided". Otherwise the function cannot
    vanish at e^ε for rational ε ≠ 0 (e^ε is transcendental, Lindemann 1882), so the ball is refined until its
    sign is certain; for ε = 0 the value at x = 1 is computed exactly.

    Raises:
        PrecisionExhausted: if ``max_prec`` bits do not suffice (a pole or extreme cancellation).
        ZeroDivisionError: if the denominator vanishes identically or at x = 1 when ε = 0.

    >>> from dpcert.arith.exact import X
    >>> sign_at_exp((X - 1) / (X + 1), Fraction(1, 10))
    1
    >>> sign_at_exp(X * X - X * X, Fraction(1, 10))
    0
    """
    rf = f if isinstance(f, RationalFunction) else RationalFunction(f)
    e = eps.value if isinstance(eps, Exact) else Fraction(eps)
    if rf.is_zero():
        return 0
    if e == 0:
        v = rf(Fraction(1))
        return (v > 0) - (v < 0)

    def step(prec: int) -> int | None:
        x = ball(e).exp()
        s_num, s_den = sign(poly_at(rf.num, x)), sign(poly_at(rf.den, x))
        if s_num is None or s_den is None or s_den == 0:
            return None
        return s_num * s_den

    result, _ = refine(step, what=f"sign of {rf!r} at x = e^{e}", max_prec=max_prec)
    return result


def fraction_of(a: arb) -> Fraction:
    """The exact rational value of an exact ball (a midpoint, a radius, ``arb.lower()``): no rounding.

    Raises:
        ValueError: if the ball is not exact or not finite.
    """
    if not a.is_exact() or not a.is_finite():
        raise ValueError(f"fraction_of needs an exact finite ball, got {a}")
    m, e = a.man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2**e) if e >= 0 else Fraction(m, 2 ** (-e))


#: Bounds on an enclosure end read from text (a certificate): significant digits and decimal exponent. Checked
#: before any big integer is built, so "1e-999999999" is refused at once instead of computing 10^999999999.
_END_DIGITS = 10_000
_END_EXPONENT = 100_000
_END = re.compile(r"([+-]?)([0-9]+)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?|([+-]?[0-9]+)/([0-9]+)")


def _enclosure_end(text: str) -> Fraction:
    """An enclosure end as written by :meth:`Enclosure.to_json` (a decimal or a fraction, ASCII digits), parsed
    with its size bounded before any work.

    Raises:
        ValueError: for anything else, or more than 10,000 digits, or a decimal exponent beyond ±100,000.
    """
    m = _END.fullmatch(text) if len(text) <= 2 * _END_DIGITS + 10 else None
    if m is None:
        raise ValueError(f"an enclosure end must be a decimal or fraction string, got {text[:40]!r}")
    if m.group(5) is not None:
        if len(m.group(5)) > _END_DIGITS or len(m.group(6)) > _END_DIGITS:
            raise ValueError(f"an enclosure end of at most {_END_DIGITS} digits, got {text[:40]!r}…")
        num, den = int(m.group(5)), int(m.group(6))
        if den == 0:
            raise ValueError(f"an enclosure end with a zero denominator: {text[:40]!r}")
        return Fraction(num, den)
    sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    if len(whole) + len(frac) > _END_DIGITS:
        raise ValueError(f"an enclosure end of at most {_END_DIGITS} digits, got {text[:40]!r}…")
    e = (0 if exp is None else int(exp) if len(exp) <= 12 else 10 * _END_EXPONENT) - len(frac)
    if abs(e) > _END_EXPONENT:
        raise ValueError(f"an enclosure end with a decimal exponent within ±{_END_EXPONENT}, got {text[:40]!r}")
    value = Fraction(int(whole + frac)) * Fraction(10) ** e
    return -value if sign == "-" else value


#: The largest numerator or denominator, in bits, whose exact value an enclosure record writes out. Python refuses to
#: print an integer of more than 4300 digits (a guard against quadratic-time conversion) and a record that long helps
#: nobody; a larger exact value is recorded by its outward-rounded ``lo``/``hi`` only, still a rigorous enclosure.
EXACT_RECORD_BITS = 14000


def _printable(x: Fraction) -> bool:
    return max(abs(x.numerator).bit_length(), x.denominator.bit_length()) <= EXACT_RECORD_BITS


@dataclass(frozen=True)
class Enclosure:
    """A rigorous enclosure [lo, hi] of a real number, with exact rational endpoints.

    ``lo is None`` means −∞ and ``hi is None`` means +∞. An exact value has ``lo == hi``.
    """

    lo: Fraction | None
    hi: Fraction | None

    def __repr__(self) -> str:
        lo, hi = self.decimal(20)
        return f"Enclosure[{lo}, {hi}]"

    @classmethod
    def from_ball(cls, a: arb) -> Enclosure:
        if a.is_nan() or not a.is_finite():
            return cls(None, None)
        # mid and rad are exact binary numbers; combine them in exact rationals (a.lower() would round
        # at the ambient precision).
        mid, rad = fraction_of(a.mid()), fraction_of(a.rad())
        return cls(mid - rad, mid + rad)

    def ball(self) -> arb | Fraction:
        """What a quantity's ball evaluator returns for this enclosure: the exact value when ``lo == hi``, else a
        ball containing [lo, hi] at the current working precision.

        Raises:
            ValueError: for an unbounded enclosure.
        """
        if self.lo is None or self.hi is None:
            raise ValueError("an unbounded enclosure has no ball")
        if self.lo == self.hi:
            return self.lo
        return ball(self.lo).union(ball(self.hi))

    @classmethod
    def exact(cls, x: Fraction | int) -> Enclosure:
        x = Fraction(x)
        return cls(x, x)

    @property
    def is_exact(self) -> bool:
        return self.lo is not None and self.lo == self.hi

    def mid(self) -> Fraction | None:
        """The exact midpoint (None when unbounded): a value for display and plotting, not a bound."""
        if self.lo is None or self.hi is None:
            return None
        return (self.lo + self.hi) / 2

    def __float__(self) -> float:
        """Refused: an enclosure is an interval, and which of its points a float should be decides safety.

        Raises:
            TypeError: always; use :meth:`float_up` (a safe upper bound), :meth:`float_down` (a safe lower bound)
                or ``float(enc.mid())`` (the midpoint, which is no bound).
        """
        raise TypeError(
            "an Enclosure has no implicit float: use float_up() (a safe upper bound, e.g. for eps or delta), "
            "float_down() (a safe lower bound) or float(mid()) (the midpoint, no bound)"
        )

    @property
    def width(self) -> Fraction | None:
        if self.lo is None or self.hi is None:
            return None
        return self.hi - self.lo

    def contains(self, x: Fraction | float) -> bool:
        x = Fraction(x)
        return (self.lo is None or self.lo <= x) and (self.hi is None or x <= self.hi)

    def overlaps(self, other: Enclosure) -> bool:
        below = self.hi is not None and other.lo is not None and self.hi < other.lo
        above = self.lo is not None and other.hi is not None and other.hi < self.lo
        return not (below or above)

    def rel_width(self) -> float:
        """Width relative to the magnitude (inf when unbounded, 0 when exact)."""
        if self.lo is None or self.hi is None:
            return float("inf")
        if self.lo == self.hi:
            return 0.0
        mag = max(abs(self.lo), abs(self.hi))
        return float((self.hi - self.lo) / mag)

    def decimal(self, digits: int = 20) -> tuple[str, str]:
        """Outward-rounded decimal strings (lo rounded down, hi rounded up): still a rigorous enclosure."""
        lo = "-inf" if self.lo is None else fraction_to_decimal(self.lo, digits, "down")
        hi = "inf" if self.hi is None else fraction_to_decimal(self.hi, digits, "up")
        return lo, hi

    def to_json(self, digits: int = 20) -> dict[str, str]:
        """Outward-rounded ``lo``/``hi`` strings; an exact value also records ``exact``, its exact rational."""
        lo, hi = self.decimal(digits)
        out = {"lo": lo, "hi": hi}
        if self.is_exact and _printable(self.lo):
            out["exact"] = str(self.lo)
        return out

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Enclosure:
        """Rebuild from :meth:`to_json`; an ``exact`` entry must lie in [lo, hi] and is then the enclosure.

        Raises:
            ValueError: for a malformed record (missing or non-numeric ends, lo > hi, exact outside).
        """
        if not isinstance(data, dict) or not {"lo", "hi"} <= set(data) or not set(data) <= {"lo", "hi", "exact"}:
            raise ValueError(f"an enclosure record needs lo and hi (and optionally exact), got {data!r}")

        def end(text: object, infinite: str) -> Fraction | None:
            if not isinstance(text, str):
                raise ValueError(f"an enclosure end must be a string, got {str(text)[:40]!r}")
            return None if text == infinite else _enclosure_end(text)

        lo, hi = end(data["lo"], "-inf"), end(data["hi"], "inf")
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"an enclosure with lo > hi: {data!r}")
        if "exact" in data:
            x = end(data["exact"], "")
            if x is None or not cls(lo, hi).contains(x):
                raise ValueError(f"an exact value outside its enclosure: {data!r}")
            return cls(x, x)
        return cls(lo, hi)

    def short(self, digits: int = 12) -> str:
        """A compact display: the exact value when it fits in ``digits`` digits, ``≈v`` for an exact value that
        does not, otherwise the outward-rounded ``[lo, hi]``."""
        if self.is_exact:
            assert self.lo is not None
            near = fraction_to_decimal(self.lo, digits, "nearest")
            return near if Fraction(near) == self.lo else "≈" + near
        lo, hi = self.decimal(digits)
        if lo == hi:
            return lo
        return f"[{lo}, {hi}]"

    def float_up(self) -> float:
        """The least double ≥ every point of the enclosure (for a safe upper bound such as ε or δ)."""
        return ball_to_float(self, "up")

    def float_down(self) -> float:
        """The greatest double ≤ every point of the enclosure."""
        return ball_to_float(self, "down")


def ball_to_float(a: arb | Enclosure, direction: Direction) -> float:
    """A double bounding a ball: ``"up"`` gives a double ≥ every point of the ball, ``"down"`` ≤ every point."""
    enc = a if isinstance(a, Enclosure) else Enclosure.from_ball(a)
    if direction == "up":
        return math.inf if enc.hi is None else fraction_to_float(enc.hi, "up")
    if direction == "down":
        return -math.inf if enc.lo is None else fraction_to_float(enc.lo, "down")
    if enc.lo is None or enc.hi is None:
        return math.nan
    return fraction_to_float((enc.lo + enc.hi) / 2, "nearest")
