"""Leaving exact arithmetic in the safe direction.

A privacy bound converted to float is rounded so that the float is still a bound: an upper bound (ε, δ) is
rounded up, a lower bound down. Rounding is by ulps of the result (``math.nextafter``), never by an absolute
nudge: 1e-20 rounds up to the next double above 1e-20, not to 1e-15.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Literal

__all__ = ["fraction_to_float", "Direction"]

Direction = Literal["up", "down", "nearest"]

_MAX_DOUBLE = Fraction(sys.float_info.max)
_OVERFLOW_NEAREST = _MAX_DOUBLE + (_MAX_DOUBLE - Fraction(math.nextafter(sys.float_info.max, 0.0))) / 2


def fraction_to_float(x: Fraction | int, direction: Direction) -> float:
    """The double nearest ``x`` in the given direction: ``"up"`` gives the least double ≥ x.

    >>> fraction_to_float(Fraction(1, 10), "up") >= Fraction(1, 10)
    True
    >>> fraction_to_float(Fraction(1, 10), "down") <= Fraction(1, 10)
    True
    """
    x = Fraction(x)
    if abs(x) > _MAX_DOUBLE:
        # beyond the largest double: "up" of a huge positive and "down" of a huge negative are infinite (the
        # only bounds there are); the other directions are the largest finite double of that sign
        sign = 1.0 if x > 0 else -1.0
        if direction == "nearest":  # round-to-nearest overflows from max + half an ulp on (IEEE 754)
            return sign * (sys.float_info.max if abs(x) < _OVERFLOW_NEAREST else math.inf)
        toward_inf = (direction == "up") == (x > 0)
        return sign * (math.inf if toward_inf else sys.float_info.max)
    f = float(x)  # correctly rounded to nearest
    if direction == "nearest" or math.isinf(f):
        return f
    exact_f = Fraction(f)
    if direction == "up" and exact_f < x:
        return math.nextafter(f, math.inf)
    if direction == "down" and exact_f > x:
        return math.nextafter(f, -math.inf)
    return f
