"""Named quantities: typed exact inputs in, a rigorous enclosure (and a float value) out.

A :class:`Quantity` is the unit everything else is built from: a claim compares a quantity's enclosure with
something, a table row names a quantity, a regression vector stores a quantity's enclosure. Each quantity has

* ``ball(ctx, **inputs)``: the rigorous evaluation, called inside a :class:`~dpcert.arith.context.BallContext`
  at some precision; returns an ``arb`` ball or an exact ``Fraction``. The same formula is first tried in an
  :class:`~dpcert.arith.context.ExactContext`: where the value is rational it is computed exactly (and a claim at
  equality can be certified), and the formula signals as soon as it needs an irrational step, which sends the
  evaluation to balls. No quantity says by hand that it is exact;
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
from dpcert.arith.context import BallContext, exact_value
from dpcert.core.params import Param, Value, validate
from dpcert.core.vocabulary import aliases_for
from dpcert.errors import BudgetExhausted, InvalidParameter, PrecisionExhausted

__all__ = ["Quantity", "Bracket", "enclosure_of", "BRACKET_REL_TOL", "BRACKET_SECONDS"]

#: A bracket quantity's default relative width and time budget (:meth:`Quantity.enclose_bracket`, ``dpcert.enclose``).
BRACKET_REL_TOL = 1e-2
BRACKET_SECONDS = 10.0


def enclosure_of(value: arb | Fraction | int) -> Enclosure:
    """The enclosure of a ball or of an exact rational."""
    if isinstance(value, arb):
        return Enclosure.from_ball(value)
    return Enclosure.exact(Fraction(value))


@dataclass(frozen=True)
class Bracket:
    """The narrowest certified bracket of a bracket quantity found within a time budget.

    Attributes:
        enclosure: the certified bracket lo <= value <= hi.
        resolution: the effort it was made at (a lattice's N); 0 when the value was found in closed form.
        seconds: the time it took.
        hint: the command that narrows it further (with a larger budget).
    """

    enclosure: Enclosure
    resolution: int
    seconds: float
    hint: str


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
        exact: declares that the value is rational for every input, so the quantity needs no float twin (a float
            of the exact value would be no cross-check at all; the cross-check harness verifies the declaration).
            Evaluation never reads it: every quantity is tried in exact arithmetic first (:meth:`exact_value`).
        bracket: the enclosure is a certified two-sided bracket whose width shrinks with effort (a lattice, a
            search) rather than like 2^-prec; ``ball`` maps the precision to that effort. Such a quantity decides
            claims as every other one, but cannot reach arbitrary relative widths, so it has no float twin to
            cross-check at 1e-12 (its ends are tested against independent bounds instead).
        within: bracket quantities only: ``within(seconds, **parsed) -> (Enclosure, resolution)``, the narrowest
            certified bracket in about ``seconds`` (:meth:`bracket_within`).
        within_takes_width: ``within`` also takes ``rel_tol=`` (a relative width at which it may stop early).
        narrow_hint: bracket quantities only: the command that narrows the bracket further, a format string with
            ``{inputs}`` (the ``name=value`` inputs) and ``{seconds}``.
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
    within: Callable[..., tuple[Enclosure, int]] | None = None
    narrow_hint: str = ""
    within_takes_width: bool = False

    def parse(self, inputs: Mapping[str, Any]) -> dict[str, Value]:
        """Validate and parse raw inputs (strings, ints, Fractions, floats)."""
        return validate(self.params, inputs, where=f" of {self.name}", aliases=self.aliases)

    @property
    def aliases(self) -> dict[str, str]:
        """The other names this quantity accepts for its inputs, each mapped to its parameter's own name
        (:mod:`dpcert.core.vocabulary`)."""
        return aliases_for(self.name, [p.name for p in self.params])

    def ball_at(self, prec: int, parsed: Mapping[str, Value]) -> arb | Fraction:
        """One rigorous evaluation at ``prec`` bits (inputs already parsed)."""
        with BallContext(prec) as ctx:
            return self.ball(ctx, **parsed)

    def exact_value(self, parsed: Mapping[str, Value]) -> Fraction | None:
        """The value in exact rational arithmetic (the ``ball`` formula run in an
        :class:`~dpcert.arith.context.ExactContext`), or ``None`` when it needs an irrational operation or balls.

        The attempt is bounded (:data:`~dpcert.arith.context.EXACT_WORK`), so trying it first costs little.
        """
        return exact_value(self.ball, **parsed)

    def decide(
        self,
        parsed: Mapping[str, Value],
        decider: Callable[[Enclosure], Any | None],
        *,
        start_prec: int = START_PREC,
        max_prec: int = MAX_PREC,
    ) -> tuple[Any, Enclosure, int]:
        """Decide on the exact value when it is rational, else refine the ball enclosure until
        ``decider(enclosure)`` is not ``None``.

        Returns:
            ``(decision, enclosure, prec)``; ``prec`` is 0 for a value computed in exact arithmetic.

        Raises:
            PrecisionExhausted: if ``max_prec`` does not decide (at once for an exact value the decider cannot
                decide, such as a value on a rounding boundary: more precision cannot change an exact value).
        """
        what = f"{self.name}({_fmt(parsed)})"
        exact = self.exact_value(parsed)
        if exact is not None:
            enc = Enclosure.exact(exact)
            decision = decider(enc)
            if decision is None:
                raise PrecisionExhausted(what + f" = {exact} exactly, which the question cannot decide", max_prec)
            return decision, enc, 0
        last: dict[str, Enclosure] = {}

        def step(prec: int) -> Any | None:
            with BallContext(prec, max_prec) as ctx:
                enc = enclosure_of(self.ball(ctx, **parsed))
            last["enc"] = enc
            return decider(enc)

        try:
            decision, prec = refine(step, what=what, start_prec=start_prec, max_prec=max_prec)
        except PrecisionExhausted as exc:
            enc = last.get("enc")
            if enc is None or exc.enclosure is not None:
                raise
            raise PrecisionExhausted(f"{what}; the last certified enclosure is {enc.short()}", max_prec, enc) from None
        return decision, last["enc"], prec

    def enclose(
        self,
        inputs: Mapping[str, Any] | None = None,
        *,
        rel_tol: float = 1e-15,
        abs_tol: float | Fraction = 0,
        max_prec: int = MAX_PREC,
        **kw: Any,
    ) -> Enclosure:
        """A rigorous enclosure whose relative width is at most ``rel_tol``, or exact.

        A value is narrowed relatively unless it is proved to be exactly 0 (an exact zero, from exact arithmetic
        or an exact zero ball): a tiny value such as 10^-3999 keeps its relative accuracy. A ball that keeps
        containing 0 without being 0 has no correct digit, so it is refined until ``max_prec`` and then reported
        as undecided with its last enclosure. ``abs_tol`` (default 0: none) accepts any enclosure at most that
        wide, for a caller who wants an absolute accuracy and says so.

        Raises:
            PrecisionExhausted: if ``max_prec`` bits do not reach the accuracy; its ``enclosure`` is the last one.

        >>> from dpcert.composition import QUANTITIES
        >>> enc = QUANTITIES["composition.simple.eps"].enclose(k=3, eps="0.0892")
        >>> enc.lo
        Fraction(669, 2500)
        """
        parsed = self.parse({**(inputs or {}), **kw})

        atol = Fraction(abs_tol)

        def narrow(enc: Enclosure) -> bool | None:
            if enc.is_exact:
                return True
            if enc.width is not None and (enc.width <= atol or enc.rel_width() <= rel_tol):
                return True
            return None

        _, enc, _ = self.decide(parsed, narrow, max_prec=max_prec)
        return enc

    def bracket_within(self, inputs: Mapping[str, Any] | None = None, *, seconds: float = 10.0, **kw: Any) -> Bracket:
        """The narrowest certified bracket of a bracket quantity within about ``seconds`` (a time budget, not an
        accuracy: a bracket narrows with effort, like 1/N for a lattice, not like 2^-prec).

        Raises:
            InvalidParameter: for a quantity that is not a bracket, or a budget that is not a positive finite time.
        """
        import time

        if not self.bracket or self.within is None:
            raise InvalidParameter("quantity", self.name, "a bracket quantity (one with a time-budgeted bracket)")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf:
            raise InvalidParameter("seconds", seconds, "a positive finite time budget in seconds")
        extra = {"rel_tol": kw.pop("rel_tol")} if self.within_takes_width and "rel_tol" in kw else {}
        given = {**(inputs or {}), **kw}
        parsed = self.parse(given)
        t0 = time.perf_counter()
        enc, resolution = self.within(seconds, **parsed, **extra)
        took = time.perf_counter() - t0
        shown = " ".join(f"{k}={given[k]}" for k in (p.name for p in self.params) if k in given)
        hint = self.narrow_hint.format(inputs=shown, seconds=f"{4 * seconds:g}") if self.narrow_hint else ""
        return Bracket(enc, resolution, took, hint)

    def enclose_bracket(
        self,
        inputs: Mapping[str, Any] | None = None,
        *,
        rel_tol: float = BRACKET_REL_TOL,
        seconds: float = BRACKET_SECONDS,
        **kw: Any,
    ) -> Enclosure:
        """A bracket quantity's certified enclosure at most ``rel_tol`` wide (relative), within about ``seconds``.

        A bracket narrows with its grid's resolution, which costs time, not with the precision: the width and the
        time budget are what limit it (as ``dpcert eval`` does), and a bracket not narrow enough in time is
        reported as such, with the narrowest one found.

        Raises:
            InvalidParameter: for a quantity that is not a bracket, a bad budget or a bad width.
            BudgetExhausted: if the width is not reached within the budget (its ``enclosure`` is the narrowest
                bracket found, ``resolution`` its grid).
        """
        if isinstance(rel_tol, bool) or not isinstance(rel_tol, (int, float)) or not 0 < rel_tol < math.inf:
            raise InvalidParameter("rel_tol", rel_tol, "a positive finite relative width")
        extra = {"rel_tol": rel_tol} if self.within_takes_width else {}
        br = self.bracket_within(inputs, seconds=seconds, **kw, **extra)
        enc = br.enclosure
        if enc.is_exact or (enc.width is not None and (enc.width == 0 or enc.rel_width() <= rel_tol)):
            return enc
        width = "unbounded" if enc.width is None else f"{enc.rel_width():.3g}"
        hint = f"; narrow it with a larger seconds= (or: {br.hint})" if br.hint else "; give a larger seconds="
        raise BudgetExhausted(
            f"{self.name}: the certified bracket {enc.short()} has relative width {width} > rel_tol = {rel_tol:g} "
            f"after {br.seconds:.1f} s (grid resolution {br.resolution}){hint}",
            enc,
            br.resolution,
            br.seconds,
        )

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
