"""Exact arithmetic: parameters parsed to rationals, and rational functions in x = e^ε.

Parameters are exact. The string ``"0.1"`` is 1/10; a Python ``float`` is its exact binary value
(``0.1`` is 3602879701896397/36028797018963968) and the record of the input says which was given, so a
certificate can tell a reader whether it is about the decimal a paper printed or the double a program used.

Expressions such as (x − 1)/(x + 1) with x = e^ε are kept as :class:`RationalFunction` objects (pairs of
``flint.fmpq_poly``): they add, multiply and divide exactly, and their sign at x = e^ε is decided by
:func:`dpcert.arith.ball.sign_at_exp`, which never calls an exact zero "undecided".
"""

from __future__ import annotations

import decimal
import math
import numbers
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Union

from flint import fmpq, fmpq_poly, fmpz

from dpcert.errors import InvalidParameter

__all__ = [
    "Exact",
    "MAX_DIGITS",
    "RationalLike",
    "parse_rational",
    "parse_int",
    "to_fraction",
    "as_fraction",
    "fraction_to_decimal",
    "RationalFunction",
    "X",
]

Source = Literal["str", "int", "fraction", "decimal", "float"]

#: The most decimal digits an exact parameter may have (numerator and denominator each, or a decimal exponent):
#: every parameter is parsed in time proportional to its size, and "1e-10000000" is refused at once instead of
#: building a ten-million-digit integer.
MAX_DIGITS = 4000
_MAX_BITS = int(MAX_DIGITS * 3.3219280948873626) + 1
#: A decimal: sign, integer digits, fraction digits, exponent (ASCII digits only: ``\\d`` would admit "١٢").
_DECIMAL = re.compile(r"([+-]?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?")
#: A fraction p/q of ASCII integers.
_FRACTION = re.compile(r"([+-]?)([0-9]+)/([0-9]+)")
_TOO_BIG = f"at most {MAX_DIGITS} digits in its numerator, denominator and decimal exponent"


def _check_size(name: str, value: Any, frac: Fraction) -> Fraction:
    if frac.numerator.bit_length() > _MAX_BITS or frac.denominator.bit_length() > _MAX_BITS:
        raise InvalidParameter(name, _short(value), "a number with " + _TOO_BIG)
    return frac


def _short(value: Any) -> Any:
    """The value for an error message, cut to a readable length (a 5000-digit integer has no useful repr)."""
    if isinstance(value, int) and value.bit_length() > _MAX_BITS:
        return f"<integer of about {int(value.bit_length() * 0.30103)} digits>"
    text = value if isinstance(value, str) else None
    if text is not None and len(text) > 60:
        return text[:40] + f"… ({len(text)} characters)"
    return value


def _parse_text(text: str, value: Any, name: str) -> Fraction:
    """A decimal or fraction string of ASCII digits, its size checked before any big integer is built.

    Every digit string is cut to its significant digits and measured before ``int()`` sees it, so no input
    reaches Python's limit on integer-string conversion (4300 digits), and the value is built exactly from the
    digits (never through ``float``).
    """
    allowed = "a finite decimal or fraction string such as '0.1', '1e-6' or '1/3' (ASCII digits)"
    too_big = "a number with " + _TOO_BIG
    if len(text) > 2 * MAX_DIGITS + 10:
        raise InvalidParameter(name, _short(value), too_big)
    m = _FRACTION.fullmatch(text)
    if m:
        sign, p, q = m.group(1), m.group(2).lstrip("0") or "0", m.group(3).lstrip("0") or "0"
        if len(p) > MAX_DIGITS or len(q) > MAX_DIGITS:
            raise InvalidParameter(name, _short(value), too_big)
        if q == "0":
            raise InvalidParameter(name, _short(value), allowed + " with a non-zero denominator")
        frac = Fraction(int(p), int(q))
        return _check_size(name, value, -frac if sign == "-" else frac)
    m = _DECIMAL.fullmatch(text)
    if not m:
        raise InvalidParameter(name, _short(value), allowed)
    sign, whole, part, only_part, exponent = m.groups()
    part = (part or "") if only_part is None else only_part
    exp = 0
    if exponent is not None:
        exp_digits = exponent.lstrip("+-").lstrip("0")
        if len(exp_digits) > len(str(MAX_DIGITS)) or int(exp_digits or "0") > MAX_DIGITS:
            raise InvalidParameter(name, _short(value), too_big)
        exp = -int(exp_digits or "0") if exponent.startswith("-") else int(exp_digits or "0")
    digits = ((whole or "") + part).lstrip("0")
    significant = digits.rstrip("0")
    if not significant:
        return Fraction(0)
    if len(significant) > MAX_DIGITS:
        raise InvalidParameter(name, _short(value), too_big)
    scale = exp - len(part) + (len(digits) - len(significant))
    frac = Fraction(int(significant)) * (Fraction(10) ** scale)
    return _check_size(name, value, -frac if sign == "-" else frac)


def _ascii_decimal(text: str, name: str) -> str:
    """``text`` if it is a decimal of ASCII digits (what ``Decimal()`` and ``float()`` accept beyond: refused)."""
    if not isinstance(text, str) or len(text) > 2 * MAX_DIGITS + 10 or not _DECIMAL.fullmatch(text):
        raise InvalidParameter(name, _short(text), "a decimal number written with ASCII digits")
    return text


RationalLike = Union[str, int, Fraction, decimal.Decimal, float, "Exact"]


@dataclass(frozen=True)
class Exact:
    """An exact rational parameter together with how it was given.

    Attributes:
        value: the exact value.
        given: the input as the caller wrote it (``"0.1"``, ``"20"``, or ``repr`` of a float).
        source: the Python type it came from; ``"float"`` means ``value`` is a binary double's exact value.
    """

    value: Fraction
    given: str
    source: Source

    def __float__(self) -> float:
        return float(self.value)

    def to_json(self) -> dict[str, str]:
        return {"given": self.given, "type": self.source, "exact": str(self.value)}

    @classmethod
    def from_json(cls, record: Any, name: str = "value") -> Exact:
        """Rebuild from ``{given, type, exact}``, re-parsing ``given`` as its ``type`` says and requiring that it
        gives exactly ``exact`` (a record whose statements disagree is refused, never trusted).

        Raises:
            InvalidParameter: for a malformed record or a ``given`` that does not parse to ``exact``.
        """
        if not isinstance(record, dict) or set(record) != {"given", "type", "exact"}:
            raise InvalidParameter(name, record, "an exact-number record {given, type, exact}")
        given, source, exact = record["given"], record["type"], record["exact"]
        if not all(isinstance(v, str) for v in (given, source, exact)):
            raise InvalidParameter(name, record, "an exact-number record whose fields are strings")
        readers = {
            "str": lambda g: g,
            "int": lambda g: parse_int(g, name),
            "fraction": lambda g: Fraction(_parse_text(g, g, name)),
            "decimal": lambda g: decimal.Decimal(_ascii_decimal(g, name)),
            "float": lambda g: float(_ascii_decimal(g, name)),
        }
        if source not in readers:
            raise InvalidParameter(f"{name}.type", source, f"one of {sorted(readers)}")
        try:
            parsed = parse_rational(readers[source](given), name)
            stated = _parse_text(exact, exact, name)
        except (ValueError, ArithmeticError) as exc:
            raise InvalidParameter(name, record, f"a record whose given and exact parse ({exc})") from None
        if parsed.value != stated:
            raise InvalidParameter(
                name, record, f"a record whose given value {given!r} (as {source}) equals its exact value {exact}"
            )
        return cls(parsed.value, given, source)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.given


def parse_rational(value: Any, name: str = "value") -> Exact:
    """Parse a real parameter exactly.

    Args:
        value: a decimal or fraction string (``"0.1"``, ``"1e-6"``, ``"1/3"``), an ``int``, a ``Fraction``,
            a ``decimal.Decimal``, a ``flint.fmpq``, or a finite ``float`` (taken at its exact binary value).
        name: the parameter's name, used in error messages.

    Returns:
        The exact value with a record of how it was given.

    Raises:
        InvalidParameter: for booleans, non-finite values, unparsable strings and unsupported types.

    >>> parse_rational("0.1", "eps").value
    Fraction(1, 10)
    >>> parse_rational(0.5, "eps").source
    'float'
    """
    if isinstance(value, Exact):
        return value
    if isinstance(value, bool):
        raise InvalidParameter(name, value, "a real number (a bool is not accepted)")
    if isinstance(value, str):
        text = value.strip()
        return Exact(_parse_text(text, value, name), text, "str")
    if isinstance(value, (int, fmpz)) or (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        frac = _check_size(name, value, Fraction(int(value)))
        return Exact(frac, str(frac.numerator), "int")
    if isinstance(value, (Fraction, fmpq)):
        frac = _check_size(name, value, Fraction(int(value.numerator), int(value.denominator)))
        return Exact(frac, str(frac), "fraction")
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise InvalidParameter(name, value, "a finite number")
        if abs(value.adjusted()) > MAX_DIGITS or len(value.as_tuple().digits) > MAX_DIGITS:
            raise InvalidParameter(name, _short(str(value)), "a number with " + _TOO_BIG)
        return Exact(Fraction(value), str(value), "decimal")
    if isinstance(value, numbers.Real) and hasattr(value, "as_integer_ratio"):
        # float, numpy float16/32/64 and longdouble: the exact binary value of the number itself (a longdouble
        # is not rounded to a double first)
        try:
            num, den = value.as_integer_ratio()
        except (OverflowError, ValueError):
            raise InvalidParameter(name, value, "a finite number") from None
        frac = Fraction(int(num), int(den))
        if isinstance(value, float):  # a binary64 double (np.float64 included): recorded as Python writes it
            return Exact(frac, repr(float(value)), "float")
        return Exact(frac, str(frac), "fraction")  # float32, longdouble: their exact value, written exactly
    raise InvalidParameter(name, value, "a number or a decimal/fraction string")


def parse_int(value: Any, name: str) -> int:
    """Parse an integer parameter; floats are refused even when integral (``3.0``).

    Raises:
        InvalidParameter: for floats, booleans, non-integral strings and other types.
    """
    if isinstance(value, bool):
        raise InvalidParameter(name, value, "an integer (a bool is not accepted)")
    if isinstance(value, (numbers.Integral, fmpz)):
        out = int(value)
        if out.bit_length() > _MAX_BITS:
            raise InvalidParameter(name, _short(out), f"an integer of at most {MAX_DIGITS} digits")
        return out
    if isinstance(value, str):
        text = value.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise InvalidParameter(name, _short(value), "an integer written with ASCII digits only")
        if len(text) > MAX_DIGITS:
            raise InvalidParameter(name, _short(value), f"an integer of at most {MAX_DIGITS} digits")
        return int(text)
    if isinstance(value, Exact) and value.value.denominator == 1 and value.source != "float":
        return int(value.value)
    if isinstance(value, (float, numbers.Real)):
        raise InvalidParameter(name, value, "an integer, not a float")
    raise InvalidParameter(name, value, "an integer")


def to_fraction(value: Any, name: str = "value") -> Fraction:
    """The exact rational value of ``value`` (see :func:`parse_rational`)."""
    return parse_rational(value, name).value


def as_fraction(value: Exact | Fraction | int) -> Fraction:
    """The exact rational of an already-parsed parameter (an :class:`Exact`) or of a rational already exact.

    Nothing is parsed or checked: this is the one unwrapping of a parsed input that formulas use (a raw input
    goes through :func:`to_fraction` instead).
    """
    return value.value if isinstance(value, Exact) else Fraction(value)


def fraction_to_decimal(value: Fraction, digits: int, rounding: Literal["down", "up", "nearest"]) -> str:
    """Write a rational as a decimal string with ``digits`` significant digits, rounded as asked.

    ``"down"`` rounds towards −∞ and ``"up"`` towards +∞, so that the string is a rigorous lower or upper bound.
    Exact values that fit in ``digits`` digits are written exactly.
    """
    if value == 0:
        return "0"
    sign = -1 if value < 0 else 1
    mag = abs(value)
    # exponent e with 10^e <= mag < 10^(e+1), from the bit lengths (no decimal string of a huge integer)
    e = (mag.numerator.bit_length() - mag.denominator.bit_length()) * 30103 // 100000
    while Fraction(10) ** e > mag:
        e -= 1
    while Fraction(10) ** (e + 1) <= mag:
        e += 1
    scale = Fraction(10) ** (digits - 1 - e)
    scaled = value * scale
    if rounding == "down":
        n = math.floor(scaled)
    elif rounding == "up":
        n = math.ceil(scaled)
    else:
        n = round(scaled)
    exp10 = -(digits - 1 - e)
    text = str(abs(n))
    neg = "-" if (n < 0 or (n == 0 and sign < 0)) else ""
    if n == 0:
        return "0"
    # place the decimal point
    if exp10 >= 0:
        body = text + "0" * exp10 if exp10 <= 20 else f"{text[0]}.{text[1:]}e+{exp10 + len(text) - 1}"
    else:
        point = len(text) + exp10
        if point > 0:
            body = text[:point] + "." + text[point:]
        elif point > -3:
            body = "0." + "0" * (-point) + text
        else:
            mant = text[0] + ("." + text[1:] if len(text) > 1 else "")
            body = f"{mant}e{point - 1}"
    if "." in body and "e" not in body:
        body = body.rstrip("0").rstrip(".")
    elif "." in body:
        m, ex = body.split("e")
        body = m.rstrip("0").rstrip(".") + "e" + ex
    return neg + body


def _poly(obj: Any) -> fmpq_poly:
    if isinstance(obj, fmpq_poly):
        return obj
    if isinstance(obj, (int, Fraction)):
        frac = Fraction(obj)
        return fmpq_poly([fmpq(frac.numerator, frac.denominator)])
    raise TypeError(f"cannot make a polynomial in x from {type(obj).__name__}")


class RationalFunction:
    """An exact rational function num(x)/den(x) in x = e^ε with rational coefficients.

    Built from :data:`X` and rationals with the usual operators; the denominator is kept non-zero and the pair is
    kept in lowest terms with a monic denominator, so two equal functions compare equal.

    >>> f = (X - 1) / (X + 1)
    >>> f(Fraction(3))
    Fraction(1, 2)
    >>> (f - f).is_zero()
    True
    """

    __slots__ = ("num", "den")

    def __init__(self, num: Any, den: Any = 1) -> None:
        n, d = _poly(num), _poly(den)
        if d.is_zero():
            raise ZeroDivisionError("rational function with zero denominator")
        g = n.gcd(d) if not n.is_zero() else d
        if g.degree() > 0:
            n, d = n // g, d // g
        lead = d.coeffs()[-1]
        if lead != 1:
            n, d = n / lead, d / lead
        if n.is_zero():
            d = fmpq_poly([1])
        self.num, self.den = n, d

    @staticmethod
    def _lift(other: Any) -> RationalFunction:
        if isinstance(other, RationalFunction):
            return other
        if isinstance(other, (int, Fraction)):
            return RationalFunction(other)
        if isinstance(other, Exact):
            return RationalFunction(other.value)
        return NotImplemented  # type: ignore[return-value]

    def __add__(self, other: Any) -> RationalFunction:
        o = self._lift(other)
        if o is NotImplemented:
            return NotImplemented
        return RationalFunction(self.num * o.den + o.num * self.den, self.den * o.den)

    __radd__ = __add__

    def __neg__(self) -> RationalFunction:
        return RationalFunction(-self.num, self.den)

    def __sub__(self, other: Any) -> RationalFunction:
        o = self._lift(other)
        if o is NotImplemented:
            return NotImplemented
        return self + (-o)

    def __rsub__(self, other: Any) -> RationalFunction:
        return (-self) + other

    def __mul__(self, other: Any) -> RationalFunction:
        o = self._lift(other)
        if o is NotImplemented:
            return NotImplemented
        return RationalFunction(self.num * o.num, self.den * o.den)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> RationalFunction:
        o = self._lift(other)
        if o is NotImplemented:
            return NotImplemented
        if o.num.is_zero():
            raise ZeroDivisionError("division by the zero rational function")
        return RationalFunction(self.num * o.den, self.den * o.num)

    def __rtruediv__(self, other: Any) -> RationalFunction:
        return self._lift(other) / self

    def __pow__(self, n: int) -> RationalFunction:
        if not isinstance(n, int):
            return NotImplemented
        if n >= 0:
            return RationalFunction(self.num**n, self.den**n)
        return RationalFunction(self.den ** (-n), self.num ** (-n))

    def __eq__(self, other: object) -> bool:
        o = self._lift(other)
        if o is NotImplemented:
            return NotImplemented
        return self.num == o.num and self.den == o.den

    def __hash__(self) -> int:
        return hash((str(self.num), str(self.den)))

    def is_zero(self) -> bool:
        """True when the function is identically zero (an exact equality, not a numerical one)."""
        return self.num.is_zero()

    def __call__(self, x: Fraction) -> Fraction:
        """Evaluate exactly at a rational point."""
        xq = fmpq(x.numerator, x.denominator)
        d = self.den(xq)
        if d == 0:
            raise ZeroDivisionError(f"denominator vanishes at x = {x}")
        v = self.num(xq) / d
        return Fraction(int(v.p), int(v.q))

    def __repr__(self) -> str:
        return f"RationalFunction(({self.num.str('x')}) / ({self.den.str('x')}))"


#: The variable x = e^ε as a rational function.
X = RationalFunction(fmpq_poly([0, 1]))
