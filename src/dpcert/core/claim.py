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


@dataclass(frozen=True)
class FunctionClaim(Claim):
    """A claim checked by its own function ``run(max_prec) -> (Verdict, Evidence)``.

    For statements that are not "quantity vs value": identities between two exact expressions, searches with a
    worst case, certified argmins.
    """

    run: Callable[[int], tuple[Verdict, Evidence]] | None = None
    inputs: Mapping[str, Any] = field(default_factory=dict)

    def spec_json(self) -> dict[str, Any]:
        return {"inputs": {k: str(v) for k, v in self.inputs.items()}}

    def _run(self, max_prec: int) -> tuple[Verdict, Evidence]:
        assert self.run is not None
        return self.run(max_prec)
