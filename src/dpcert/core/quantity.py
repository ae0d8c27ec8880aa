"""Named quantities: typed exact inputs in, a rigorous enclosure (and a float value) out.

A :class:`Quantity` is the unit everything else is built from: a claim compares a quantity's enclosure with
something, a table row names a quantity, a regression vector stores a quantity's enclosure. Each quantity has

* ``ball(ctx, **inputs)``: the rigorous evaluation, called inside a :class:`~dpcert.arith.context.BallContext`
  at some precision; returns an ``arb`` ball or an exact ``Fraction``;
* optionally ``float(**inputs)``: the fast float64 evaluation (evidence only);
* typed parameters (:class:`~dpcert.core.params.Param`) that parse inputs exactly and reject bad ones.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, refine
from dpcert.arith.context import BallContext
from dpcert.core.params import Param, Value, validate
from dpcert.errors import InvalidParameter

__all__ = ["Quantity", "enclosure_of"]


def enclosure_of(value: arb | Fraction | int) -> Enclosure:
    """The enclosure of a ball or of an exact rational."""
    if isinstance(value, arb):
        return Enclosure.from_ball(value)
    return Enclosure.exact(Fraction(value))


@dataclass(frozen=True)
class Quantity:
    """A named real-valued quantity with exact inputs.

    Attributes:
        name: dotted name, ``<area>.<construction>.<what>`` (``"composition.kov.delta"``).
        params: the typed parameters, in order.
        ball: rigorous evaluator ``ball(ctx, **parsed_inputs) -> arb | Fraction``.
        float: fast float64 evaluator ``float(**parsed_inputs) -> float``, or ``None``.
        reference: where the formula comes from (paper, theorem, equation).
        summary: one line saying what it computes.
        float_rtol: relative tolerance the float evaluator is tested to (cross-check harness).
        exact: the value is rational and ``ball`` returns it as an exact ``Fraction`` for every input; such a
            quantity needs no float twin (a float of the exact value would be no cross-check at all).
        bracket: the enclosure is a certified two-sided bracket whose width shrinks with effort (a lattice, a
            search) rather than like 2^-prec; ``ball`` maps the precision to that effort. Such a quantity decides
            claims as every other one, but cannot reach arbitrary relative widths, so it has no float twin to
            cross-check at 1e-12 (its ends are tested against independent bounds instead).
    """

    name: str
    params: tuple[Param, ...]
    ball: Callable[..., Any]
    reference: str
    summary: str
    float: Callable[..., float] | None = None
    float_rtol: float = 1e-12
    tags: tuple[str, ...] = field(default=())
    exact: bool = False
    bracket: bool = False

    def parse(self, inputs: Mapping[str, Any]) -> dict[str, Value]:
        """Validate and parse raw inputs (strings, ints, Fractions, floats)."""
        return validate(self.params, inputs, where=f" of {self.name}")

    def ball_at(self, prec: int, parsed: Mapping[str, Value]) -> arb | Fraction:
        """One rigorous evaluation at ``prec`` bits (inputs already parsed)."""
        with BallContext(prec) as ctx:
            return self.ball(ctx, **parsed)

    def decide(
        self,
        parsed: Mapping[str, Value],
        decider: Callable[[Enclosure], Any | None],
        *,
        start_prec: int = START_PREC,
        max_prec: int = MAX_PREC,
    ) -> tuple[Any, Enclosure, int]:
        """Refine the enclosure until ``decider(enclosure)`` is not ``None``.

        Returns:
            ``(decision, enclosure, prec)``.

        Raises:
            PrecisionExhausted: if ``max_prec`` does not decide.
        """
        last: dict[str, Enclosure] = {}

        def step(prec: int) -> Any | None:
            with BallContext(prec, max_prec) as ctx:
                enc = enclosure_of(self.ball(ctx, **parsed))
            last["enc"] = enc
            return decider(enc)

        decision, prec = refine(step, what=f"{self.name}({_fmt(parsed)})", start_prec=start_prec, max_prec=max_prec)
        return decision, last["enc"], prec

    def enclose(
        self,
        inputs: Mapping[str, Any] | None = None,
        *,
        rel_tol: float = 1e-15,
        abs_tol: float | Fraction = Fraction(1, 10**300),
        max_prec: int = MAX_PREC,
        **kw: Any,
    ) -> Enclosure:
        """A rigorous enclosure whose relative width is at most ``rel_tol``, or whose width is at most ``abs_tol``
        (a value computed in balls that is zero, or nearly, never narrows relatively), or exact.

        >>> from dpcert.composition import QUANTITIES
        >>> enc = QUANTITIES["composition.simple.eps"].enclose(k=3, eps="0.0892")
        >>> enc.lo
        Fraction(669, 2500)
        """
        parsed = self.parse({**(inputs or {}), **kw})

        atol = Fraction(abs_tol)

        def narrow(enc: Enclosure) -> bool | None:
            if enc.width is not None and (enc.width <= atol or enc.rel_width() <= rel_tol):
                return True
            return None

        _, enc, _ = self.decide(parsed, narrow, max_prec=max_prec)
        return enc

    def evaluate_float(self, inputs: Mapping[str, Any] | None = None, **kw: Any) -> float:
        """The float64 value (evidence, not a certificate)."""
        if self.float is None:
            raise InvalidParameter("arithmetic", "float64", f"one that {self.name} supports (it is ball-only)")
        return self.float(**self.parse({**(inputs or {}), **kw}))

    def float_evidence(self, inputs: Mapping[str, Any] | None = None, **kw: Any) -> tuple[float | None, str | None]:
        """The float64 value as evidence next to a certified result, or why there is none: ``(value, None)`` or
        ``(None, reason)``.

        The float twin is evidence only, so it must never discard a certified result: a float evaluator that
        raises (an overflow, a division by an underflowed zero, a domain error) or returns a non-finite number at
        inputs the ball path handles is reported as unavailable rather than raised. Bad inputs are still refused.

        Raises:
            InvalidParameter: for inputs the quantity does not accept (the same refusal as :meth:`parse`).
        """
        parsed = self.parse({**(inputs or {}), **kw})
        if self.float is None:
            return None, f"{self.name} has no float64 evaluator (ball only)"
        with warnings.catch_warnings(record=True) as caught:  # numpy's overflow/invalid warnings: judged below
            warnings.simplefilter("always")
            try:
                value = float(self.float(**parsed))
            except Exception as exc:  # noqa: BLE001 - any failure of the evidence path makes it unavailable
                return None, f"{type(exc).__name__}: {' '.join(str(exc).split())[:80]}"
        if not math.isfinite(value):
            why = "; ".join(dict.fromkeys(str(w.message) for w in caught))[:80]
            return None, f"float64 gives {value}" + (f" ({why})" if why else "")
        return value, None


def _fmt(parsed: Mapping[str, Value]) -> str:
    return ", ".join(f"{k}={v}" for k, v in parsed.items())
