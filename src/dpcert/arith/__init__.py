"""The arithmetic layer: exact rationals and rational functions in x = e^ε, rigorous balls, float64 helpers.

Everything else in dpcert is built on these modules; they import nothing from the rest of the package.
"""

from dpcert.arith.ball import (
    MAX_PREC,
    START_PREC,
    Enclosure,
    ball,
    ball_to_float,
    le,
    lt,
    refine,
    sign,
    sign_at_exp,
    workprec,
)
from dpcert.arith.context import FLOAT, BallContext, FloatContext
from dpcert.arith.exact import Exact, RationalFunction, X, parse_int, parse_rational, to_fraction
from dpcert.arith.rounding import fraction_to_float

__all__ = [
    "MAX_PREC",
    "START_PREC",
    "Enclosure",
    "ball",
    "le",
    "lt",
    "refine",
    "sign",
    "sign_at_exp",
    "workprec",
    "FLOAT",
    "BallContext",
    "FloatContext",
    "Exact",
    "RationalFunction",
    "X",
    "parse_int",
    "parse_rational",
    "to_fraction",
    "ball_to_float",
    "fraction_to_float",
]
