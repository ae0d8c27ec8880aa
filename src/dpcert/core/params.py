"""Typed, exact parameters with domains, and their validation.

A :class:`Param` knows its name, whether it is an integer or a real, and its domain. Parsing is exact
(:func:`dpcert.arith.exact.parse_rational`), and a value outside the domain raises
:class:`~dpcert.errors.InvalidParameter` naming the parameter, the value and what is allowed; nothing is clamped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import islice
from typing import Any, Literal

from dpcert.arith.exact import Exact, parse_int, parse_rational
from dpcert.core.vocabulary import resolve_aliases
from dpcert.errors import InvalidParameter, MissingInput

__all__ = [
    "Param",
    "Value",
    "validate",
    "inputs_to_json",
    "real",
    "integer",
    "probability",
    "reals",
    "choice",
    "REAL_MAX_ABS",
    "INT_MAX_ABS",
    "REALS_MAX_ITEMS",
]

Value = int | Exact | tuple[Exact, ...] | str | tuple[str, ...]


@dataclass(frozen=True)
class Param:
    """One parameter of a quantity.

    Attributes:
        name: the keyword name.
        kind: ``"int"``, ``"real"``, ``"reals"`` (a list of reals) or ``"choice"`` (one of ``choices``, a string).
        lo, hi: bounds of the domain (``None`` for unbounded).
        lo_open, hi_open: whether the bound itself is excluded.
        odd: integers only; require an odd value.
        doc: a short description for error messages and ``dpcert quantities``.
        max_abs: the largest magnitude accepted (``None``: no limit). Every parameter has one by default
            (:data:`REAL_MAX_ABS`, :data:`INT_MAX_ABS`) so that no input makes a computation run out of memory or
            time: e^ε at ε = 10^11 has an exponent of 10^11 bits. A quantity that can take more says so.
        choices: ``"choice"`` only; the names accepted.
        files: ``"choice"`` only; if not empty, a table is accepted too, given as the path of a file or as the
            table itself, and this describes what the file holds (e.g. ``"a γ table (CSV 'l,gamma' or a JSON list)"``).
        table: ``"choice"`` with ``files`` only; ``table(value)`` reads a path (through :mod:`dpcert.core.files`) or
            checks a table given as a list of exact value strings, and returns the table as a tuple of exact value
            strings. That tuple is the parsed value, recorded in certificates in place of the path, so that a
            certificate holds the table itself and re-checking it reads no file.
        default: the value taken when the input is not given (``None``: required): a choice name, or a number as
            an exact string (``"1"``). It is parsed like a given value and recorded in certificates and JSON output
            like one, so a claim relying on it still states the number.
        max_items: ``"reals"`` only; the most values the list may hold, counted on the raw input (the commas of a
            string, the length of a sequence) before any item is parsed.
    """

    name: str
    kind: Literal["int", "real", "reals", "choice"]
    lo: Fraction | None = None
    hi: Fraction | None = None
    lo_open: bool = False
    hi_open: bool = False
    odd: bool = False
    doc: str = ""
    max_abs: Fraction | None = None
    choices: tuple[str, ...] = ()
    files: str = ""
    default: str | None = None
    table: Callable[[Any], tuple[str, ...]] | None = None
    max_items: int = 0

    def allowed(self) -> str:
        if self.kind != "choice" and self.default is not None:
            return replace(self, default=None).allowed() + f" (default {self.default})"
        if self.kind == "choice":
            names = "one of " + ", ".join(self.choices)
            names = f"{names} or {self.files} (its path, or the table as a list of values)" if self.files else names
            return names + (f" (default {self.default})" if self.default is not None else "")
        what = "an odd integer" if self.odd else ("an integer" if self.kind == "int" else "a real number")
        if self.kind == "reals":
            what = f"a non-empty list of {f'at most {self.max_items} ' if self.max_items else ''}real numbers, each"
        parts = []
        if self.lo is not None:
            parts.append(f"{'>' if self.lo_open else '>='} {self.lo}")
        if self.hi is not None:
            parts.append(f"{'<' if self.hi_open else '<='} {self.hi}")
        if self.max_abs is not None and (self.lo is None or self.lo < -self.max_abs):
            parts.append(f">= -{self.max_abs}")
        if self.max_abs is not None and (self.hi is None or self.hi > self.max_abs):
            parts.append(f"<= {self.max_abs}")
        if parts:
            what += " " + " and ".join(parts)
        if self.kind == "real":
            what += " (give decimals as strings, e.g. '0.1', to mean them exactly)"
        return what

    def exact(self, value: Any) -> Any:
        """:meth:`parse`, with a real given as its exact ``Fraction`` (an already-parsed value passes through)."""
        v = self.parse(value)
        return v.value if isinstance(v, Exact) else v

    def parse(self, value: Any, *, files: bool = True) -> Value:
        """Parse and range-check one value (a list of reals: each element; a choice: the name or a table).

        ``files=False`` refuses a table given as a path (a certificate records tables, never paths: re-checking it
        reads no file).
        """
        if self.kind == "choice":
            if isinstance(value, str) and value in self.choices:
                return value
            if self.table is not None and isinstance(value, (list, tuple)) and value:
                return self.table(value)  # a recorded table (a certificate's) is checked as a file's is
            if self.table is not None and isinstance(value, str) and value:
                if not files:
                    what = f"one of {', '.join(self.choices)} or a table recorded as its values, not a path"
                    raise InvalidParameter(self.name, value, what)
                return self.table(value)  # a path is read here, once
            raise InvalidParameter(self.name, value, self.allowed())
        if self.kind == "reals":
            if isinstance(value, (bytes, bytearray)) or not hasattr(value, "__iter__"):
                raise InvalidParameter(self.name, value, "a list of real numbers or a comma-separated string")
            shown = ""
            if isinstance(value, str):
                count = value.count(",") + 1
            elif hasattr(value, "__len__"):
                count = len(value)
            else:  # an iterator: taken up to one past the cap, never further
                value = list(islice(value, self.max_items + 1 if self.max_items else None))
                count, shown = len(value), f"<more than {self.max_items} values>"
            if self.max_items and count > self.max_items:
                raise InvalidParameter(self.name, shown or f"<{count} values>", self.allowed())
            items = value.split(",") if isinstance(value, str) else value
            one = replace(self, kind="real")
            parsed = tuple(one.parse(x) for x in items)
            if not parsed:
                raise InvalidParameter(self.name, value, "a non-empty list of real numbers")
            return parsed  # type: ignore[return-value]
        if self.kind == "int":
            v: Any = parse_int(value, self.name)
            x = Fraction(v)
        else:
            v = parse_rational(value, self.name)
            x = v.value
        bad = (
            (self.max_abs is not None and abs(x) > self.max_abs)
            or (self.lo is not None and (x < self.lo or (self.lo_open and x == self.lo)))
            or (self.hi is not None and (x > self.hi or (self.hi_open and x == self.hi)))
            or (self.odd and int(x) % 2 == 0)
        )
        if bad:
            raise InvalidParameter(self.name, value, self.allowed())
        return v


def _bound(bound: Any) -> Fraction | None:
    return None if bound is None else Fraction(bound)


#: Default largest magnitude of a real parameter (e^ε at ε = 10^5 already has a 144,000-bit exponent).
REAL_MAX_ABS = 10**5
#: Default largest magnitude of an integer parameter.
INT_MAX_ABS = 10**12
#: Default most values of a list parameter.
REALS_MAX_ITEMS = 1000


def real(
    name: str,
    lo: Any = None,
    hi: Any = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    doc: str = "",
    max_abs: Any = REAL_MAX_ABS,
    default: str | None = None,
) -> Param:
    """A real parameter on [lo, hi] (bounds given exactly, e.g. ``0`` or ``"1"``), |value| <= ``max_abs``; with a
    ``default`` (an exact string inside the domain) the input may be left out."""
    p = Param(name, "real", _bound(lo), _bound(hi), lo_open, hi_open, False, doc, _bound(max_abs), default=default)
    return _checked_default(p)


def integer(
    name: str,
    lo: int | None = None,
    hi: int | None = None,
    *,
    odd: bool = False,
    doc: str = "",
    max_abs: int | None = INT_MAX_ABS,
    default: str | None = None,
) -> Param:
    """An integer parameter on [lo, hi], |value| <= ``max_abs``; with a ``default`` (an exact string inside the
    domain) the input may be left out."""
    p = Param(name, "int", _bound(lo), _bound(hi), False, False, odd, doc, _bound(max_abs), default=default)
    return _checked_default(p)


def _checked_default(p: Param) -> Param:
    if p.default is not None:
        if not isinstance(p.default, str):
            raise ValueError(f"the default of parameter {p.name!r} must be an exact string, got {p.default!r}")
        replace(p, default=None).parse(p.default)  # a default outside the domain is a bug of the quantity
    return p


def reals(
    name: str,
    lo: Any = None,
    hi: Any = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    doc: str = "",
    max_abs: Any = REAL_MAX_ABS,
    max_items: int = REALS_MAX_ITEMS,
) -> Param:
    """A non-empty list of at most ``max_items`` reals, each on [lo, hi] with |value| <= ``max_abs`` (a list, or a
    comma-separated string; the count is checked before any item is parsed)."""
    if isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 1:
        raise ValueError(f"max_items of list parameter {name!r} must be a positive integer, got {max_items!r}")
    return Param(
        name, "reals", _bound(lo), _bound(hi), lo_open, hi_open, False, doc, _bound(max_abs), max_items=max_items
    )


def choice(
    name: str,
    choices: Sequence[str],
    *,
    files: str = "",
    table: Callable[[Any], tuple[str, ...]] | None = None,
    default: str | None = None,
    doc: str = "",
) -> Param:
    """A string parameter taking one of ``choices`` (or, with ``files`` and ``table``, a table: a file or its values).

    A name parses to the string itself; a table (the path of a file, or the list of its values) parses to the tuple
    of its exact value strings returned by ``table``, never to the path: certificates and JSON output record the
    table itself, so that re-checking reads no file and a file changed or moved afterwards changes nothing. With a
    ``default`` (one of ``choices``) the input may be left out (numbers may have defaults too, see :func:`real`;
    either is recorded in certificates as if given, so a claim still states it).
    """
    if not choices or any(not isinstance(c, str) or not c for c in choices):
        raise ValueError(f"choice parameter {name!r} needs non-empty string choices, got {choices!r}")
    if default is not None and default not in choices:
        raise ValueError(f"default {default!r} of choice parameter {name!r} is not one of {choices!r}")
    if bool(files) != (table is not None):
        raise ValueError(f"choice parameter {name!r}: files (what a table holds) and table (its reader) go together")
    return Param(
        name, "choice", doc=doc, max_abs=None, choices=tuple(choices), files=files, default=default, table=table
    )


def probability(name: str, *, zero: bool = True, one: bool = False, doc: str = "") -> Param:
    """A probability-like parameter: [0, 1) by default; ``zero=False`` excludes 0, ``one=True`` admits 1."""
    return real(name, 0, 1, lo_open=not zero, hi_open=not one, doc=doc)


def validate(
    params: Sequence[Param],
    inputs: Mapping[str, Any],
    *,
    where: str = "",
    files: bool = True,
    aliases: Mapping[str, str] | None = None,
) -> dict[str, Value]:
    """Parse ``inputs`` against ``params``: every parameter without a default required, no unknown names.

    ``files=False`` (a certificate's inputs) refuses a table given as a file path: it must be recorded as its values.
    ``aliases`` (alias -> parameter name, :func:`dpcert.core.vocabulary.aliases_for`) are resolved first; the result
    is keyed by the parameters' own names.

    Raises:
        InvalidParameter: for a missing, unknown or out-of-domain parameter, or a parameter given twice (by its name
            and an alias).
    """
    given_as: dict[str, str] = {}  # parameter -> the alias it was given by: a bad value is named as it was typed
    if aliases:
        given_as = {aliases[k]: k for k in inputs if k in aliases}
        inputs = resolve_aliases(inputs, aliases)
    names = [p.name for p in params]
    for key in inputs:
        if key not in names:
            raise InvalidParameter(key, inputs[key], f"one of the parameters {names}{where}")
    out: dict[str, Value] = {}
    for p in params:
        if p.name not in inputs:
            if p.default is None:
                raise MissingInput(p.name, f"{p.allowed()}; required{where}")
            out[p.name] = p.parse(p.default)
        else:
            as_given = replace(p, name=given_as[p.name]) if p.name in given_as else p
            out[p.name] = as_given.parse(inputs[p.name], files=files)
    return out


def inputs_to_json(values: Mapping[str, Value]) -> dict[str, Any]:
    """JSON record of parsed inputs: integers as ints, reals as {given, type, exact}, a choice's table as the list of
    its exact value strings."""

    def one(v: Value) -> Any:
        if isinstance(v, tuple):
            return [one(x) for x in v]
        return v.to_json() if isinstance(v, Exact) else v

    return {k: one(v) for k, v in values.items()}
