"""Float64 helpers of the shuffle package that neither overflow nor underflow on the declared domains.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

The shuffle quantities take ε0 up to 1000 and δ, ε down to any positive rational (1e-3999 is valid): e^{ε0},
sinh(ε0) and float(δ) then leave the float64 range, although the logarithms the planning and the float twins need
are modest numbers. These helpers compute those logarithms directly.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dpcert.arith.exact import to_fraction

__all__ = ["log_pos", "log_2sinh_half", "log_expm1"]


def log_pos(x: Any) -> float:
    """log x for a positive exact rational (or a float, or anything :func:`to_fraction` reads), without
    underflow: log(numerator) − log(denominator) on Python integers (``math.log`` accepts integers of any size).

    >>> round(log_pos("1e-3999"), 6)
    -9208.037787
    """
    if isinstance(x, float):
        if x > 0 and math.isfinite(x) and x >= 2.2250738585072014e-308:
            return math.log(x)
        x = Fraction(x) if math.isfinite(x) else x
    f = to_fraction(x)
    if f <= 0:
        raise ValueError(f"log_pos needs a positive number, got {f}")
    return math.log(f.numerator) - math.log(f.denominator)


def log_expm1(x: float) -> float:
    """log(e^x − 1) for x > 0, without overflow (−inf at 0)."""
    if x <= 0:
        return -math.inf
    if x > 30:
        return x + math.log1p(-math.exp(-x))
    return math.log(math.expm1(x))


def log_2sinh_half(e: Any) -> float:
    """log(2 sinh(ε0/2)) = log(e^{ε0/2} − e^{−ε0/2}) for an exact ε0 > 0, at any size (−inf at 0).

    (e^{ε0} − 1)²/e^{ε0} = (2 sinh(ε0/2))², so twice this is the log of the 2RR χ² divergence.
    """
    f = to_fraction(e)
    if f <= 0:
        return -math.inf
    if f < Fraction(1, 10**6):
        # 2 sinh(x/2) = x (1 + x²/24 + …): the correction is below 1e-13 here
        return log_pos(f) + math.log1p(float(f) ** 2 / 24)
    x = float(f)
    return x / 2 + math.log1p(-math.exp(-x)) if x > 30 else math.log(2 * math.sinh(x / 2))
