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

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from typing import Any

import flint

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure
from dpcert.arith.exact import MAX_DIGITS, Exact, fraction_to_decimal, parse_rational
from dpcert.core.params import inputs_to_json
from dpcert.core.quantity import Quantity
from dpcert.errors import DpcertError, InvalidParameter, PrecisionExhausted, RunOptionError, WorkerDied

__all__ = [
    "Verdict",
    "Comparison",
    "AtMost",
    "AtLeast",
    "Rounds",
    "Truncates",
    "Within",
    "Evidence",
    "ClaimResult",
    "Claim",
    "QuantityClaim",
    "FunctionClaim",
    "check_function",
    "input_validator",
    "EXECUTION_SETTINGS",
    "resolve_check",
    "comparison_from_json",
    "check_claim_id",
    "CLAIM_ID",
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
        """An expected verdict: CERTIFIED, REFUTED (an erratum) or UNDECIDED (an open question, see :class:`Claim`)."""
        allowed = "CERTIFIED, REFUTED or UNDECIDED"
        try:
            v = cls(str(text).upper())
        except ValueError:
            raise InvalidParameter(name, text, allowed) from None
        if v is cls.ERROR:
            raise InvalidParameter(name, text, allowed + " (ERROR is never expected)")
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


class _Bound(Comparison):
    """A comparison with an exact bound, recorded as inputs are: ``{given, type, exact}``."""

    value: Exact

    @classmethod
    def of(cls, bound: Any) -> Any:
        return cls(parse_rational(bound, "bound"))  # type: ignore[call-arg]

    @property
    def bound(self) -> Fraction:
        return self.value.value

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value.to_json()}


@dataclass(frozen=True)
class AtMost(_Bound):
    """The quantity is ≤ ``bound`` (an upper bound claimed by someone); the bound is exact as given."""

    value: Exact
    kind = "at_most"

    def decide(self, enc: Enclosure) -> bool | None:
        if enc.hi is not None and enc.hi <= self.bound:
            return True
        if enc.lo is not None and enc.lo > self.bound:
            return False
        return None

    def describe(self) -> str:
        return f"<= {self.value.given}"


@dataclass(frozen=True)
class AtLeast(_Bound):
    """The quantity is ≥ ``bound``; the bound is exact as given."""

    value: Exact
    kind = "at_least"

    def decide(self, enc: Enclosure) -> bool | None:
        if enc.lo is not None and enc.lo >= self.bound:
            return True
        if enc.hi is not None and enc.hi < self.bound:
            return False
        return None

    def describe(self) -> str:
        return f">= {self.value.given}"


_PRINTED = re.compile(r"([+-]?)([0-9]+)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")  # ASCII digits only


def _printed(text: str, name: str = "printed") -> tuple[Fraction, int, bool]:
    """A printed number: its value, the decimal exponent of its last printed digit, and whether it is negative.

    Plain (``"5.352"``, ``"0.030"``) and scientific notation (``"5.352e0"``, ``"1.2E-6"``) are accepted; the last
    printed digit counts even when it is a trailing zero.
    """
    m = _PRINTED.fullmatch(text.strip()) if isinstance(text, str) else None
    if m is None or (m.group(4) is not None and abs(int(m.group(4))) > MAX_DIGITS) or len(text) > MAX_DIGITS:
        raise InvalidParameter(name, text, "a printed decimal such as '5.352', '0.030', '5.352e0' or '1.2E-6'")
    sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", int(m.group(4) or 0)
    value = Fraction(int(whole + frac), 10 ** len(frac)) * Fraction(10) ** exp
    return (-value if sign == "-" else value), exp - len(frac), sign == "-"


class _Printed(Comparison):
    """A number as people print it; subclasses give the interval of values that print so."""

    printed: str

    def bounds(self) -> tuple[Fraction, Fraction, bool, bool]:
        """(lo, hi, lo_closed, hi_closed): the values that print as ``printed``."""
        raise NotImplementedError

    @property
    def interval(self) -> tuple[Fraction, Fraction]:
        """The ends (lo, hi) of the values that print as ``printed``."""
        return self.bounds()[:2]

    #: whether a negative value that comes to zero units is printed "-0" (truncation: (-1, 0] is not [0, 1))
    _signed_zero = False

    def _unit_exponent(self, x: Fraction) -> int:
        """The decimal exponent of the last digit ``x`` is printed to (as ``printed`` is)."""
        return _printed(self.printed)[1]

    def _to_unit(self, q: Fraction) -> int:
        """``q`` (a value in units of the last digit) as a whole number of units, the way ``printed`` was made."""
        raise NotImplementedError

    def printed_as(self, x: Fraction) -> str:
        """``x`` written the way ``printed`` is: rounded (or truncated) at the same last digit, in the same
        notation (``Rounds("9.900").printed_as(Fraction("9.9009067"))`` is ``"9.901"``; with ``figures``, at that
        many significant figures of ``x``)."""
        last = self._unit_exponent(x)
        n = self._to_unit(x / Fraction(10) ** last)
        m = _PRINTED.fullmatch(self.printed.strip())
        assert m is not None  # checked when the comparison was made
        exp = m.group(4)
        shift = 0 if exp is None else int(exp)  # scientific notation keeps the printed exponent
        digits = shift - last  # digits after the point of the mantissa
        sign, mag = ("-" if n < 0 or (x < 0 and self._signed_zero) else ""), abs(n)
        if digits <= 0:
            body = str(mag * 10 ** (-digits))
        else:
            text = str(mag).rjust(digits + 1, "0")
            body = f"{text[:-digits]}.{text[-digits:]}"
        if exp is not None:
            body += self.printed.strip()[m.start(4) - 1] + exp  # the printed 'e' or 'E' and exponent
        return sign + body

    def at_printed_precision(self, enc: Enclosure) -> str | None:
        """The enclosed value at the printed precision: one string when both ends of ``enc`` print alike,
        ``"a to b"`` when they do not, ``None`` for an unbounded enclosure (what a REFUTED printed number
        should have been, e.g. ``"9.901"`` rather than ``"9.900906703…"``)."""
        if enc.lo is None or enc.hi is None:
            return None
        lo, hi = self.printed_as(enc.lo), self.printed_as(enc.hi)
        return lo if lo == hi else f"{lo} to {hi}"

    def decide(self, enc: Enclosure) -> bool | None:
        lo, hi, lo_closed, hi_closed = self.bounds()
        inside_lo = enc.lo is not None and (lo < enc.lo or (lo_closed and lo == enc.lo))
        inside_hi = enc.hi is not None and (enc.hi < hi or (hi_closed and enc.hi == hi))
        if inside_lo and inside_hi:
            return True
        below = enc.hi is not None and (enc.hi < lo or (not lo_closed and enc.hi == lo))
        above = enc.lo is not None and (enc.lo > hi or (not hi_closed and enc.lo == hi))
        return False if below or above else None


@dataclass(frozen=True)
class Rounds(_Printed):
    """The quantity, rounded at the last printed digit (or to ``figures`` significant figures), is ``printed``.

    ``Rounds("5.352")`` holds iff the value lies in [5.3515, 5.3525]; it is CERTIFIED when the enclosure lies
    strictly inside, REFUTED when it lies strictly outside. A value exactly on a rounding boundary is left
    UNDECIDED (round-half conventions differ). Scientific notation is read as printed: ``"1.2E-6"`` is
    1.2e-6 ± 0.05e-6. With ``figures`` (``Rounds("1200", figures=2)``) the last significant digit is the
    ``figures``-th one, so trailing zeros of an integer need not count; just below a power of ten the rounding
    unit is ten times smaller (``Rounds("1.00", figures=3)`` is [0.9995, 1.005]).
    """

    printed: str
    figures: int | None = None
    kind = "rounds_to"

    def __post_init__(self) -> None:
        value, last, _ = _printed(self.printed)
        if self.figures is not None:
            if isinstance(self.figures, bool) or not isinstance(self.figures, int) or self.figures < 1:
                raise InvalidParameter("figures", self.figures, "a number of significant figures >= 1")
            if value != 0 and self.figures > 1 + _exponent10(abs(value)) - last:
                raise InvalidParameter(
                    "figures", self.figures, f"at most the {1 + _exponent10(abs(value)) - last} figures printed"
                )
            if value != 0 and _round_sig(value, self.figures) != value:
                raise InvalidParameter("printed", self.printed, f"a number with {self.figures} significant figures")

    def bounds(self) -> tuple[Fraction, Fraction, bool, bool]:
        value, last, _ = _printed(self.printed)
        if self.figures is not None and value != 0:
            last = _exponent10(abs(value)) - self.figures + 1
        half = Fraction(10) ** last / 2
        below = above = half
        if self.figures is not None and value != 0 and abs(value) == Fraction(10) ** _exponent10(abs(value)):
            # 10^e: values just under it have one more digit after the point at the same number of figures
            if value > 0:
                below = half / 10
            else:
                above = half / 10
        return value - below, value + above, True, True

    def decide(self, enc: Enclosure) -> bool | None:
        lo, hi = self.interval
        # the ends are where round-half conventions differ: never certify on them
        if enc.lo is not None and enc.hi is not None and lo < enc.lo and enc.hi < hi:
            return True
        if (enc.hi is not None and enc.hi < lo) or (enc.lo is not None and enc.lo > hi):
            return False
        return None

    def _unit_exponent(self, x: Fraction) -> int:
        if self.figures is not None and x != 0:
            return _exponent10(abs(x)) - self.figures + 1
        return _printed(self.printed)[1]

    def _to_unit(self, q: Fraction) -> int:
        return round(q)  # to nearest (a tie to even: a value on a tie is never CERTIFIED or REFUTED anyway)

    def describe(self) -> str:
        figs = f" ({self.figures} significant figures)" if self.figures is not None else ""
        return f"rounds to {self.printed}{figs}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "value": self.printed}
        if self.figures is not None:
            out["figures"] = self.figures
        return out


@dataclass(frozen=True)
class Truncates(_Printed):
    """The quantity, truncated (towards zero) after the last printed digit, is ``printed``.

    ``Truncates("5.352")`` holds iff the value lies in [5.352, 5.353); ``Truncates("-0.12")`` iff in (−0.13, −0.12].
    """

    printed: str
    kind = "truncates_to"

    def __post_init__(self) -> None:
        _printed(self.printed)

    def bounds(self) -> tuple[Fraction, Fraction, bool, bool]:
        value, last, negative = _printed(self.printed)
        unit = Fraction(10) ** last
        return (value - unit, value, False, True) if negative else (value, value + unit, True, False)

    _signed_zero = True  # Truncates("-0") is (-1, 0], Truncates("0") is [0, 1)

    def _to_unit(self, q: Fraction) -> int:
        return int(q)  # towards zero

    def describe(self) -> str:
        return f"truncates to {self.printed}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.printed}


@dataclass(frozen=True)
class Within(Comparison):
    """The quantity lies in the closed interval [``lo``, ``hi``], two decimal strings (a golden vector's enclosure).

    ``Within("0.33333", "0.33334")`` holds iff 0.33333 <= value <= 0.33334: CERTIFIED when the enclosure lies in
    it, REFUTED when it lies entirely outside. The ends are exact as written (``"0.1"`` is 1/10).
    """

    lo: str
    hi: str
    kind = "within"

    def __post_init__(self) -> None:
        lo, _, _ = _printed(self.lo, "lo")
        hi, _, _ = _printed(self.hi, "hi")
        if lo > hi:
            raise InvalidParameter("lo", self.lo, f"a lower end <= the upper end {self.hi}")

    @property
    def interval(self) -> tuple[Fraction, Fraction]:
        """The exact ends (lo, hi)."""
        return _printed(self.lo, "lo")[0], _printed(self.hi, "hi")[0]

    def decide(self, enc: Enclosure) -> bool | None:
        lo, hi = self.interval
        if enc.lo is not None and enc.hi is not None and lo <= enc.lo and enc.hi <= hi:
            return True
        if (enc.hi is not None and enc.hi < lo) or (enc.lo is not None and enc.lo > hi):
            return False
        return None

    def describe(self) -> str:
        return f"lies in [{self.lo}, {self.hi}]"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": {"lo": self.lo, "hi": self.hi}}


def _exponent10(x: Fraction) -> int:
    """The e with 10^e <= x < 10^(e+1), for x > 0 (exact)."""
    e = (x.numerator.bit_length() - x.denominator.bit_length()) * 30103 // 100000
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    return e


def _round_sig(x: Fraction, figures: int) -> Fraction:
    unit = Fraction(10) ** (_exponent10(abs(x)) - figures + 1)
    return round(x / unit) * unit


def comparison_from_json(data: Mapping[str, Any]) -> Comparison:
    """Rebuild a comparison from its JSON record (a bound's ``given`` must parse to its ``exact``).

    Raises:
        InvalidParameter: for an unknown kind or a malformed or inconsistent value.
    """
    if not isinstance(data, Mapping):
        raise InvalidParameter("comparison", data, "a JSON object with kind and value")
    kind, value = data.get("kind"), data.get("value")
    if kind in ("at_most", "at_least"):
        exact = Exact.from_json(value, "comparison.value")
        return AtMost(exact) if kind == "at_most" else AtLeast(exact)
    if kind in ("rounds_to", "truncates_to"):
        if not isinstance(value, str):
            raise InvalidParameter("comparison.value", value, "the printed number as a string")
        if kind == "truncates_to":
            return Truncates(value)
        return Rounds(value, data.get("figures"))
    if kind == "within":
        if (
            not isinstance(value, Mapping)
            or set(value) != {"lo", "hi"}
            or not all(isinstance(v, str) for v in value.values())
        ):
            raise InvalidParameter("comparison.value", value, "an object {lo, hi} of two decimal strings")
        return Within(value["lo"], value["hi"])
    raise InvalidParameter("comparison.kind", kind, "one of at_most, at_least, rounds_to, truncates_to, within")


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
    #: the maximum ball precision the check was allowed (a certificate records it; UNDECIDED means "undecided
    #: within max_prec bits", and the re-check runs with the same allowance)
    max_prec: int = MAX_PREC

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

#: ``<paper>.<theorem>.<name>``: dot-separated segments of letters, digits, ``_`` and ``-`` (at least two segments,
#: at most 200 characters). An id is also a certificate's file name, so it can hold no path separator, no ``..``
#: and cannot be absolute.
CLAIM_ID = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+")


def check_claim_id(claim_id: Any) -> str:
    """Return ``claim_id`` if it follows the id grammar :data:`CLAIM_ID`.

    Raises:
        InvalidParameter: otherwise (the message shows the grammar).
    """
    if not isinstance(claim_id, str) or len(claim_id) > 200 or not CLAIM_ID.fullmatch(claim_id):
        raise InvalidParameter(
            "id", claim_id, "a claim id <paper>.<theorem>.<name>: dot-separated segments of letters, digits, _ or -"
        )
    return claim_id


@dataclass(frozen=True)
class Claim:
    """Common fields of all claims.

    Attributes:
        id: ``<paper>.<theorem>.<name>`` (``"darrm.table2.mnist.q20.eps"``).
        reference: the paper and the theorem, table or equation.
        statement: what is claimed, in words.
        expected: CERTIFIED; REFUTED for an erratum; UNDECIDED for an open question, a statement that only a
            bracket reaches (its evidence holds the bracket): ``dpcert verify`` accepts it while it stays undecided
            and reports it the day it is decided either way.
        erratum: for errata, what is wrong and what is right.
        slow: excluded from the default ``dpcert verify`` (run with ``--full``).
    """

    id: str
    reference: str
    statement: str
    expected: Verdict = Verdict.CERTIFIED
    erratum: str = ""
    slow: bool = False

    def __post_init__(self) -> None:
        check_claim_id(self.id)
        # ERROR marks a check that failed; expecting it would make a crash "as expected"
        object.__setattr__(self, "expected", Verdict.parse(self.expected, "expected"))

    def spec_json(self) -> dict[str, Any]:
        return {}

    def _run(self, max_prec: int) -> tuple[Verdict, Evidence]:
        raise NotImplementedError

    def check(self, *, max_prec: int = MAX_PREC, expected: Verdict | None = None) -> ClaimResult:
        """Check the claim. Never raises for a failed check: errors become an ERROR verdict.

        Raises:
            InvalidParameter: for ``expected`` ERROR (a failed check is never as expected).
        """
        t0 = time.perf_counter()
        exp = self.expected if expected is None else Verdict.parse(expected, "expected")
        # Arb caches constants and quadrature nodes at the highest precision a process has used, and a ball computed
        # later from such a cache can have another radius: start every check from empty caches, so that its evidence
        # depends only on the claim (a certificate re-checks in any process, whatever ran before it).
        flint.ctx.cleanup()
        try:
            verdict, evidence = self._run(max_prec)
            err = None
        except PrecisionExhausted as exc:
            verdict, evidence, err = (
                Verdict.UNDECIDED,
                Evidence(method="arb ball arithmetic", precision=exc.max_prec, detail=str(exc)),
                None,
            )
        except (WorkerDied, RunOptionError):  # a fault of the run (a killed worker, an unusable option), not
            raise  # an outcome of this claim
        except DpcertError as exc:
            verdict, evidence, err = Verdict.ERROR, Evidence(detail=str(exc)), f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a bug in a check must not abort a whole verify run
            verdict, evidence, err = Verdict.ERROR, Evidence(detail=str(exc)), f"{type(exc).__name__}: {exc}"
        return ClaimResult(self, verdict, evidence, time.perf_counter() - t0, exp, err, max_prec)


@dataclass(frozen=True)
class QuantityClaim(Claim):
    """A claim that a quantity, at exact inputs, satisfies a comparison."""

    quantity: Quantity | None = None
    inputs: Mapping[str, Any] = field(default_factory=dict)
    comparison: Comparison | None = None

    def spec_json(self) -> dict[str, Any]:
        assert self.quantity is not None and self.comparison is not None
        # each input recorded under the name it was given by (a vocabulary alias such as a certificate's legacy
        # ``lam`` stays ``lam``), so that a record keeps stating exactly what was claimed; defaults by their name
        given_as = {self.quantity.aliases.get(k, k): k for k in self.inputs}
        parsed = self.quantity.parse(self.inputs)
        return {
            "quantity": self.quantity.name,
            "inputs": inputs_to_json({given_as.get(k, k): v for k, v in parsed.items()}),
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
        # prec 0: the exact attempt decided (Quantity.decide); an exact value from the first ball step is exact too
        method = "exact rational arithmetic" if enc.is_exact and prec in (0, START_PREC) else "arb ball arithmetic"
        return verdict, Evidence(enclosure=enc, method=method, precision=0 if enc.is_exact else prec, detail=detail)


#: Attribute set by :func:`check_function` on the functions a :class:`FunctionClaim` may name.
_CHECK_MARK = "__dpcert_check__"
#: Attribute holding a check function's input validator (see :func:`check_function`).
_VALIDATE_MARK = "__dpcert_validate__"

#: Keyword arguments of check functions that say how to run, not what is claimed (the number of processes). They
#: are never recorded in a certificate, so a certificate cannot choose them (see ``FunctionClaim.settings``).
EXECUTION_SETTINGS = frozenset({"workers", "run"})


def check_function(
    fn: Callable[..., tuple[Verdict, Evidence]] | None = None,
    *,
    validate: Callable[..., None] | None = None,
) -> Any:
    """Mark a module-level function as a claim check ``fn(max_prec, **inputs) -> (Verdict, Evidence)``.

    Re-checking a certificate resolves only marked functions inside the ``dpcert`` package
    (:func:`resolve_check`), so an untrusted certificate can never call anything else.

    Args:
        fn: the check (``@check_function``), or None to decorate with options (``@check_function(validate=v)``).
        validate: ``validate(**inputs)`` raises :class:`~dpcert.errors.InvalidParameter` for inputs the check
            must not run on, with the bounds its command line applies. A certificate of a claim that is not
            registered is re-checked with inputs read from the file only when its function has a validator.
    """

    def mark(f: Callable[..., tuple[Verdict, Evidence]]) -> Callable[..., tuple[Verdict, Evidence]]:
        if "<locals>" in f.__qualname__ or "<lambda>" in f.__qualname__:
            raise TypeError(f"a claim check must be a module-level function, not {f.__qualname__}")
        setattr(f, _CHECK_MARK, True)
        if validate is not None:
            setattr(f, _VALIDATE_MARK, validate)
        return f

    return mark if fn is None else mark(fn)


def input_validator(fn: Callable[..., Any]) -> Callable[..., None] | None:
    """The validator a check function was marked with (:func:`check_function`), or None."""
    return getattr(fn, _VALIDATE_MARK, None)


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
    #: how to run (``{"workers": 4}``): passed to ``fn`` but never recorded, so a certificate cannot set them
    settings: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.fn is None or not getattr(self.fn, _CHECK_MARK, False):
            raise TypeError(f"FunctionClaim {self.id}: fn must be a function marked with @check_function")
        for k, v in self.inputs.items():
            if k in EXECUTION_SETTINGS:
                raise InvalidParameter(
                    f"inputs.{k}", v, "no execution setting among a claim's inputs (give it in settings)"
                )
            _json_input(k, v)
        for k in self.settings:
            if k not in EXECUTION_SETTINGS:
                raise InvalidParameter("settings", k, f"one of the execution settings {sorted(EXECUTION_SETTINGS)}")

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
        return self.fn(max_prec, **self.inputs, **self.settings)
