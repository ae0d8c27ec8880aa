"""dpcert — certify the numbers of differential privacy.

Exact rationals, polynomials in x = e^ε and rigorous ball arithmetic (python-flint/Arb) recompute DP
parameters, theorems and published tables, and say for each claim CERTIFIED, REFUTED (with the counterexample)
or UNDECIDED. Fast float64 implementations sit beside the rigorous ones and are cross-checked against them.

Quick tour::

    >>> import dpcert
    >>> enc = dpcert.enclose("composition.general.eps", k=20, eps="0.2676", delta_prime="0.0001")
    >>> enc.contains(dpcert.parse_rational("5.352", "x").value)
    True
    >>> report = dpcert.verify(selectors=["darrm.table4.mnist.*"], progress=None)
    >>> [(r.claim.id.split(".")[-1], r.verdict.value) for r in report.results]  # doctest: +NORMALIZE_WHITESPACE
    [('sigma_min', 'CERTIFIED'), ('lambda', 'REFUTED'), ('sigma_at_printed_lambda', 'REFUTED'),
     ('lambda_is_lambda_min_plus_3', 'CERTIFIED')]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dpcert._version import __version__

# The public names are imported on first use (PEP 562), so that `import dpcert` and `dpcert --help` do not pay
# for numpy/scipy/flint until something needs them.
_LAZY: dict[str, str] = {
    "Enclosure": "dpcert.arith",
    "RationalFunction": "dpcert.arith",
    "X": "dpcert.arith",
    "fraction_to_float": "dpcert.arith",
    "parse_rational": "dpcert.arith",
    "sign_at_exp": "dpcert.arith",
    "Accountant": "dpcert.accounting.accountant",
    "AccountingResult": "dpcert.accounting.accountant",
    "kov_delta": "dpcert.composition.optimal",
    "kov_eps": "dpcert.composition.optimal",
    "mv_delta": "dpcert.composition.optimal",
    "AtLeast": "dpcert.core",
    "AtMost": "dpcert.core",
    "Claim": "dpcert.core",
    "ClaimResult": "dpcert.core",
    "Evidence": "dpcert.core",
    "FunctionClaim": "dpcert.core",
    "Quantity": "dpcert.core",
    "QuantityClaim": "dpcert.core",
    "Rounds": "dpcert.core",
    "Truncates": "dpcert.core",
    "Verdict": "dpcert.core",
    "check_function": "dpcert.core",
    "load_certificate": "dpcert.engine.certificate",
    "make_certificate": "dpcert.engine.certificate",
    "recheck": "dpcert.certificates",
    "write_certificate": "dpcert.engine.certificate",
    "claims": "dpcert.engine.registry",
    "quantities": "dpcert.engine.registry",
    "quantity": "dpcert.engine.registry",
    "select": "dpcert.engine.registry",
    "VerifyReport": "dpcert.engine.verify",
    "verify": "dpcert.engine.verify",
    "CertificateError": "dpcert.errors",
    "DpcertError": "dpcert.errors",
    "InvalidParameter": "dpcert.errors",
    "ManifestError": "dpcert.errors",
    "PrecisionExhausted": "dpcert.errors",
    "BudgetExhausted": "dpcert.errors",
    "UnknownClaim": "dpcert.errors",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from dpcert import events
    from dpcert.accounting.accountant import Accountant, AccountingResult
    from dpcert.arith import Enclosure, RationalFunction, X, fraction_to_float, parse_rational, sign_at_exp
    from dpcert.certificates import recheck
    from dpcert.composition.optimal import kov_delta, kov_eps, mv_delta
    from dpcert.core import (
        AtLeast,
        AtMost,
        Claim,
        ClaimResult,
        Evidence,
        FunctionClaim,
        Quantity,
        QuantityClaim,
        Rounds,
        Truncates,
        Verdict,
        check_function,
    )
    from dpcert.engine.certificate import load_certificate, make_certificate, write_certificate
    from dpcert.engine.registry import claims, quantities, quantity, select
    from dpcert.engine.verify import VerifyReport, verify
    from dpcert.errors import (
        BudgetExhausted,
        CertificateError,
        DpcertError,
        InvalidParameter,
        ManifestError,
        PrecisionExhausted,
        UnknownClaim,
    )


def __getattr__(name: str) -> Any:
    if name == "events":  # the module of the event classes (dpcert.events.GaussianDpEvent), imported on first use
        value = importlib.import_module("dpcert.events")
        globals()[name] = value
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dpcert' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "__version__",
    # arithmetic
    "Enclosure",
    "RationalFunction",
    "X",
    "fraction_to_float",
    "parse_rational",
    "sign_at_exp",
    # quantities and claims
    "Quantity",
    "quantity",
    "quantities",
    "enclose",
    "Claim",
    "QuantityClaim",
    "ClaimResult",
    "Evidence",
    "Verdict",
    "AtMost",
    "AtLeast",
    "Rounds",
    "Truncates",
    "FunctionClaim",
    "check_function",
    "claims",
    "select",
    "verify",
    "VerifyReport",
    # certificates
    "make_certificate",
    "write_certificate",
    "load_certificate",
    "recheck",
    # accounting
    "Accountant",
    "AccountingResult",
    "events",
    # composition
    "kov_delta",
    "kov_eps",
    "mv_delta",
    # errors
    "DpcertError",
    "InvalidParameter",
    "UnknownClaim",
    "ManifestError",
    "CertificateError",
    "PrecisionExhausted",
    "BudgetExhausted",
]


def enclose(name: str, /, rel_tol: float | None = None, seconds: float | None = None, **inputs: Any) -> Enclosure:
    """Certified enclosure of the named quantity at exact inputs (strings such as ``"0.1"`` mean decimals).

    ``rel_tol`` is the relative width asked for: by default 1e-15, reached by raising the precision. A *bracket*
    quantity (a grid or lattice construction, such as ``dpsgd.eps``) narrows with its grid, which costs time, not
    with the precision: by default it is asked for 1e-2 (as ``dpcert dpsgd eps``) within ``seconds`` = 10 (as
    ``dpcert eval``).

    Raises:
        InvalidParameter: unknown quantity, missing/unknown/out-of-domain input, ``seconds`` for a quantity that is
            not a bracket.
        PrecisionExhausted: if the requested accuracy is not reached at the maximum precision.
        BudgetExhausted: (a PrecisionExhausted) if a bracket quantity does not reach the width within ``seconds``;
            it names the grid resolution reached and carries the narrowest certified bracket.
    """
    from dpcert.core.quantity import BRACKET_REL_TOL, BRACKET_SECONDS
    from dpcert.engine.registry import quantity
    from dpcert.errors import InvalidParameter

    q = quantity(name)
    if q.bracket and q.within is not None:
        return q.enclose_bracket(
            inputs,
            rel_tol=BRACKET_REL_TOL if rel_tol is None else rel_tol,
            seconds=BRACKET_SECONDS if seconds is None else seconds,
        )
    if seconds is not None:
        raise InvalidParameter("seconds", seconds, f"no time budget: {name} is not a bracket quantity")
    return q.enclose(inputs, rel_tol=1e-15 if rel_tol is None else rel_tol)
