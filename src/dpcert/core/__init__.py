"""Quantities, parameters and claims: the vocabulary the paper packages use to state what they certify."""

from dpcert.core.claim import (
    AtLeast,
    AtMost,
    Claim,
    ClaimResult,
    Comparison,
    Evidence,
    FunctionClaim,
    QuantityClaim,
    Rounds,
    Truncates,
    Verdict,
    check_function,
)
from dpcert.core.params import Param, integer, probability, real, reals
from dpcert.core.quantity import Quantity

__all__ = [
    "AtLeast",
    "AtMost",
    "Claim",
    "ClaimResult",
    "Comparison",
    "Evidence",
    "FunctionClaim",
    "QuantityClaim",
    "Rounds",
    "Truncates",
    "Verdict",
    "check_function",
    "Param",
    "integer",
    "probability",
    "real",
    "reals",
    "Quantity",
]
