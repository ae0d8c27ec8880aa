"""Claims, comparisons, verdicts and their evidence.

A claim states something checkable about a quantity and returns one of three verdicts:

* **CERTIFIED** — proved, by exact rational arithmetic or rigorous ball arithmetic;
* **REFUTED** — a proved counterexample: the enclosure lies entirely on the wrong side;
* **UNDECIDED** — the stated maximum precision ran out before the question was decided.

(**ERROR** marks a check that raised; it is never a claim's expected verdict.)

Every result carries its evidence: the enclosure of the decisive quantity as outward-rounded decimal strings, the
method and precision, the worst case or counterexample, counts by path and the time taken.

An erratum is a claim whose *expected* verdict is REFUTED: ``ok`` is true when the verdict is the expected one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from typing import Any

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure
from dpcert.arith.exact import fraction_to_decimal, parse_rational
from dpcert.core.params import inputs_to_json
from dpcert.core.quantity import Quantity
from dpcert.errors import DpcertError, InvalidParameter, PrecisionExhausted

__all__ = [
    "Verdict",
    "Comparison",
    "AtMost",
    "AtLeast",
    "Rounds",
    "Evidence",
    "ClaimResult",
    "Claim",
    "QuantityClaim",
    "FunctionClaim",
    "check_function",
    "resolve_check",
    "comparison_from_json",
]


class Verdict(str, Enum):
    CERTIFIED = "CERTIFIED"
    REFUTED = "REFUTED"
    UNDECIDED = "UNDECIDED"
    ERROR = "ERROR"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str, name: str = "expect") -> Verdict:
        try:
            v = cls(str(text).upper())
        except ValueError:
            raise InvalidParameter(name, text, "CERTIFIED or REFUTED") from None
        if v not in (cls.CERTIFIED, cls.REFUTED):
            raise InvalidParameter(name, text, "CERTIFIED or REFUTED")
        return v


# --------------------------------------------------------------------------------------------- comparisons


class Comparison:
    """What a quantity's enclosure is compared with. ``decide`` returns True (holds), False (fails), None."""

    kind: str = ""

    def decide(self, enc: Enclosure) -> bool | None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def to_json(self) -> dict[str, str]:
        raise NotImplementedError


@dataclass(frozen=True)
class AtMost(Comparison):
    """The quantity is ≤ ``bound`` (an upper bound claimed by someone)."""

    bound: Fraction
    given: str = ""
    kind = "at_most"

    @classmethod
    def of(cls, bound: Any) -> AtMost:
        e = parse_rational(bound, "bound")
        return cls(e.value, e.given)

    def decide(self, enc: Enclosure) -> bool | None:
        if enc.hi is not None and enc.hi <= self.bound:
            return True
        if enc.lo is not None and enc.lo > self.bound:
            return False
        return None

    def describe(self) -> str:
        return f"<= {self.given or self.bound}"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.given or str(self.bound)}


@dataclass(frozen=True)
class AtLeast(Comparison):
    """The quantity is ≥ ``bound``."""

    bound: Fraction
    given: str = ""
    kind = "at_least"

    @classmethod
    def of(cls, bound: Any) -> AtLeast:
        e = parse_rational(bound, "bound")
        return cls(e.value, e.given)

    def decide(self, enc: Enclosure) -> bool | None:
        if enc.lo is not None and enc.lo >= self.bound:
            return True
        if enc.hi is not None and enc.hi < self.bound:
            return False
        return None

    def describe(self) -> str:
        return f">= {self.given or self.bound}"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.given or str(self.bound)}


@dataclass(frozen=True)
class Rounds(Comparison):
    """The quantity, rounded to the printed number of decimals, gives the printed string.

    ``Rounds("5.352")`` holds iff the value lies in [5.3515, 5.3525]; it is CERTIFIED when the enclosure lies
    strictly inside, REFUTED when it lies strictly outside. A value exactly on a rounding boundary is left
    UNDECIDED (round-half conventions differ).
    """

    printed: str
    kind = "rounds_to"

    def __post_init__(self) -> None:
        text = self.printed.strip()
        body = text.lstrip("+-")
        if not body or "e" in body.lower() or "/" in body or body.count(".") > 1 or not body.replace(".", "").isdigit():
            raise InvalidParameter("printed", self.printed, "a plain decimal such as '5.352'")

    @property
    def interval(self) -> tuple[Fraction, Fraction]:
        text = self.printed.strip()
        decimals = len(text.split(".")[1]) if "." in text else 0
        half = Fraction(1, 2 * 10**decimals)
        v = Fraction(text)
        return v - half, v + half

    def decide(self, enc: Enclosure) -> bool | None:
        lo, hi = self.interval
        if enc.lo is not None and enc.hi is not None and lo < enc.lo and enc.hi < hi:
            return True
        if (enc.hi is not None and enc.hi < lo) or (enc.lo is not None and enc.lo > hi):
            return False
        return None

    def describe(self) -> str:
        return f"rounds to {self.printed}"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.printed}


def comparison_from_json(data: Mapping[str, Any]) -> Comparison:
    """Rebuild a comparison from its JSON record."""
    kind, value = data.get("kind"), data.get("value")
    if kind == "at_most":
        return AtMost.of(str(value))
    if kind == "at_least":
        return AtLeast.of(str(value))
    if kind == "rounds_to":
        return Rounds(str(value))
    raise InvalidParameter("comparison.kind", kind, "one of at_most, at_least, rounds_to")


# --------------------------------------------------------------------------------------------- results


@dataclass
class Evidence:
    """What a verdict rests on.

    Attributes:
        enclosure: rigorous enclosure of the decisive quantity (None when not a single number).
        method: how it was decided (``"arb ball arithmetic"``, ``"exact rational arithmetic"``, …).
        precision: bits of the last (deciding) ball evaluation, 0 for exact arithmetic.
        detail: one or two sentences a reader needs (the comparison, the counterexample).
        worst_case: for searches, the worst input found.
        counts: for enumerations, how many cases each path decided.
        extra: further machine-readable facts.
    """

    enclosure: Enclosure | None = None
    method: str = ""
    precision: int = 0
    detail: str = ""
    worst_case: Any = None
    counts: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "enclosure": None if self.enclosure is None else self.enclosure.to_json(),
            "method": self.method,
            "precision_bits": self.precision,
            "detail": self.detail,
        }
        if self.worst_case is not None:
            out["worst_case"] = self.worst_case
        if self.counts:
            out["counts"] = dict(self.counts)
        if self.extra:
            out["extra"] = self.extra
        return out


@dataclass
class ClaimResult:
    """The outcome of checking one claim."""

    claim: Claim
    verdict: Verdict
    evidence: Evidence
    seconds: float
    expected: Verdict
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.verdict == self.expected

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.claim.id,
            "reference": self.claim.reference,
            "statement": self.claim.statement,
            **self.claim.spec_json(),
            "verdict": self.verdict.value,
            "expected": self.expected.value,
            "ok": self.ok,
            "evidence": self.evidence.to_json(),
            "seconds": round(self.seconds, 6),
            **({"error": self.error} if self.error else {}),
        }


# --------------------------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Claim:
    """Common fields of all claims.

    Attributes:
        id: ``<paper>.<theorem>.<name>`` (``"darrm.table2.mnist.q20.eps"``).
        reference: the paper and the theorem, table or equation.
        statement: what is claimed, in words.
        expected: CERTIFIED, or REFUTED for an erratum.
        erratum: for errata, what is wrong and what is right.
        slow: excluded from the default ``dpcert verify`` (run with ``--full``).
    """

    id: str
    reference: str
    statement: str
    expected: Verdict = Verdict.CERTIFIED
    erratum: str = ""
    slow: bool = False

    def spec_json(self) -> dict[str, Any]:
        return {}

    def _run(self, max_prec: int) -> tuple[Verdict, Evidence]:
        raise NotImplementedError

    def check(self, *, max_prec: int = MAX_PREC, expected: Verdict | None = None) -> ClaimResult:
        """Check the claim. Never raises for a failed check: errors become an ERROR verdict."""
        t0 = time.perf_counter()
        exp = expected or self.expected
        try:
            verdict, evidence = self._run(max_prec)
            err = None
        except PrecisionExhausted as exc:
            verdict, evidence, err = (
                Verdict.UNDECIDED,
                Evidence(method="arb ball arithmetic", precision=exc.max_prec, detail=str(exc)),
                None,
            )
        except DpcertError as exc:
            verdict, evidence, err = Verdict.ERROR, Evidence(detail=str(exc)), f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a bug in a check must not abort a whole verify run
            verdict, evidence, err = Verdict.ERROR, Evidence(detail=str(exc)), f"{type(exc).__name__}: {exc}"
        return ClaimResult(self, verdict, evidence, time.perf_counter() - t0, exp, err)


@dataclass(frozen=True)
class QuantityClaim(Claim):
    """A claim that a quantity, at exact inputs, satisfies a comparison."""

    quantity: Quantity | None = None
    inputs: Mapping[str, Any] = field(default_factory=dict)
    comparison: Comparison | None = None

    def spec_json(self) -> dict[str, Any]:
        assert self.quantity is not None and self.comparison is not None
        return {
            "quantity": self.quantity.name,
            "inputs": inputs_to_json(self.quantity.parse(self.inputs)),
            "comparison": self.comparison.to_json(),
        }

    def with_inputs(self, inputs: Mapping[str, Any]) -> QuantityClaim:
        return replace(self, inputs={**self.inputs, **inputs})

    def _run(self, max_prec: int) -> tuple[Verdict, Evidence]:
        assert self.quantity is not None and self.comparison is not None
        parsed = self.quantity.parse(self.inputs)
        holds, enc, prec = self.quantity.decide(
            parsed, self.comparison.decide, start_prec=START_PREC, max_prec=max_prec
        )
        verdict = Verdict.CERTIFIED if holds else Verdict.REFUTED
        lo, hi = enc.decimal(20)
        shown = lo if lo == hi else f"[{lo}, {hi}]"
        detail = f"{self.quantity.name} = {shown} {'satisfies' if holds else 'violates'} '{self.comparison.describe()}'"
        if isinstance(self.comparison, Rounds) and not holds:
            detail += f" (it rounds to {fraction_to_decimal(enc.lo or Fraction(0), 10, 'nearest')}…)"
        method = "exact rational arithmetic" if enc.is_exact and prec == START_PREC else "arb ball arithmetic"
        return verdict, Evidence(enclosure=enc, method=method, precision=0 if enc.is_exact else prec, detail=detail)


#: Attribute set by :func:`check_function` on the functions a :class:`FunctionClaim` may name.
_CHECK_MARK = "__dpcert_check__"


def check_function(fn: Callable[..., tuple[Verdict, Evidence]]) -> Callable[..., tuple[Verdict, Evidence]]:
    """Mark a module-level function as a claim check ``fn(max_prec, **inputs) -> (Verdict, Evidence)``.

    Re-checking a certificate resolves only marked functions inside the ``dpcert`` package
    (:func:`resolve_check`), so an untrusted certificate can never call anything else.
    """
    if "<locals>" in fn.__qualname__ or "<lambda>" in fn.__qualname__:
        raise TypeError(f"a claim check must be a module-level function, not {fn.__qualname__}")
    setattr(fn, _CHECK_MARK, True)
    return fn


def _json_input(name: str, value: Any) -> Any:
    """A FunctionClaim input as JSON: ints, bools and strings as they are, sequences as lists; nothing inexact."""
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, (tuple, list)):
        return [_json_input(name, v) for v in value]
    raise InvalidParameter(
        name,
        value,
        "an int, a string (decimals as strings, e.g. '0.1') or a list of them, so that the claim's "
        "certificate records it exactly",
    )


def _from_json_input(value: Any) -> Any:
    return tuple(_from_json_input(v) for v in value) if isinstance(value, list) else value


def resolve_check(ref: str) -> Callable[..., tuple[Verdict, Evidence]]:
    """The check function a certificate names (``"dpcert.module:function"``), if it is a marked dpcert check.

    Raises:
        InvalidParameter: for anything else (a malformed name, a module outside dpcert, an unmarked function).
    """
    import importlib

    allowed = "'dpcert.<module>:<function>' naming a claim check of the dpcert package"
    if not isinstance(ref, str) or ref.count(":") != 1 or not ref.startswith("dpcert."):
        raise InvalidParameter("function", ref, allowed)
    module, name = ref.split(":")
    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        raise InvalidParameter("function", ref, allowed) from None
    if not getattr(fn, _CHECK_MARK, False):
        raise InvalidParameter("function", ref, allowed)
    return fn


@dataclass(frozen=True)
class FunctionClaim(Claim):
    """A claim checked by a named function ``fn(max_prec, **inputs) -> (Verdict, Evidence)``.

    For statements that are not "quantity vs value": identities between two exact expressions, searches with a
    worst case, certified argmins. ``fn`` is a module-level function marked with :func:`check_function` and
    ``inputs`` are ints, strings or (nested) tuples of them, so the certificate records the function's name and
    the exact inputs and can be re-checked without the registry.
    """

    fn: Callable[..., tuple[Verdict, Evidence]] | None = None
    inputs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.fn is None or not getattr(self.fn, _CHECK_MARK, False):
            raise TypeError(f"FunctionClaim {self.id}: fn must be a function marked with @check_function")
        for k, v in self.inputs.items():
            _json_input(k, v)

    @property
    def function_name(self) -> str:
        assert self.fn is not None
        return f"{self.fn.__module__}:{self.fn.__qualname__}"

    def spec_json(self) -> dict[str, Any]:
        return {"function": self.function_name, "inputs": {k: _json_input(k, v) for k, v in self.inputs.items()}}

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], **fields: Any) -> FunctionClaim:
        """Rebuild from a certificate's ``function`` and ``inputs`` (see :func:`resolve_check`)."""
        inputs = spec.get("inputs", {})
        if not isinstance(inputs, dict):
            raise InvalidParameter("inputs", inputs, "a JSON object of the check's inputs")
        return cls(
            fn=resolve_check(spec.get("function")), inputs={k: _from_json_input(v) for k, v in inputs.items()}, **fields
        )

    def _run(self, max_prec: int) -> tuple[Verdict, Evidence]:
        assert self.fn is not None
        return self.fn(max_prec, **self.inputs)
