"""Test a float implementation against certified values: ``assert_within_certified`` and pytest parametrisation
over the bundled golden vectors.

>>> from dpcert.testing import assert_within_certified
>>> enc = assert_within_certified(3 * 0.1, "composition.simple.eps", k=3, eps="0.1")   # 0.30000000000000004
>>> enc
Enclosure[0.3, 0.3]

What passes, for a certified value v in the enclosure [lo, hi] (lo <= v <= hi, proved) and a tolerance
``allowed = max(rel_tol * max(|lo|, |hi|), abs_tol)`` (relative to the certified value, so a wildly wrong value
cannot widen its own tolerance):

* ``bound=None`` (an estimate of v): ``lo - allowed <= value <= hi + allowed``.
* ``bound="upper"`` (the value claims v <= value, e.g. an accountant's ε or δ): the value must be **safe**,
  v <= value, with no tolerance at all on that side (a bound below the truth by one ulp is a bound that does not
  hold); and it may exceed v by at most ``allowed`` (``value <= hi + allowed``), else it is *too loose*. A value
  below ``lo`` is proved unsafe. A value in [lo, hi) is decided by recomputing v at rising precision (the
  quantity and inputs are known, also for a vector): safe, unsafe, or — only if it cannot be decided within the
  maximum precision — a failure, never a pass.
* ``bound="lower"``: the mirror image: v >= value with no tolerance, and ``value >= lo - allowed``.

A vector's [lo, hi] is used only once it is verified: a vector read from a file only when the whole file re-certifies
as ``dpcert vectors check`` re-certifies it (checked once per file content in a process), a vector or record that
names no file only when its claim "quantity(inputs) lies in [lo, hi]" is proved. Otherwise the assertion fails,
whatever the value, naming the data unverified and why.

A failure raises ``AssertionError`` whose message shows the quantity and inputs, the certified enclosure, the
value (and its exact binary value when that differs from its repr), the distance (absolute and relative) and the
direction: *above* / *below* the enclosure for an estimate, **UNSAFE** (on the wrong side of a bound) or *too
loose* for a bound.

:func:`vectors` gives ``pytest.param`` objects with the vector ids, to parametrise a test over the bundled
vectors; the pytest plugin :mod:`dpcert.pytest_plugin` (registered as the ``dpcert`` entry point) parametrises
any test taking a ``dpcert_vector`` argument, selected with ``@pytest.mark.dpcert_vectors(topic=...)``.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from numbers import Integral, Rational, Real
from pathlib import Path
from typing import Any

from dpcert.errors import InvalidParameter, PrecisionExhausted

__all__ = ["assert_within_certified", "vectors", "DEFAULT_REL_TOL"]

#: the default relative tolerance: the accuracy dpcert asks of its own float evaluators
DEFAULT_REL_TOL = 1e-12
#: relative width of the enclosure computed for a quantity given by name (far below any float tolerance)
_ENCLOSURE_REL_TOL = 1e-20


def _real(x: Any, name: str) -> float | Fraction | int:
    """``x`` as an int, a Fraction or a float (a numpy float32 or float64 becomes the float it exactly is)."""
    if isinstance(x, bool) or not isinstance(x, Real):
        raise InvalidParameter(name, repr(x)[:40], "a real number (int, float, Fraction, numpy scalar)")
    if isinstance(x, Integral):
        return int(x)  # a numpy integer too (its arithmetic would overflow)
    if isinstance(x, Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    return float(x)


def _exact(x: Any, name: str) -> Fraction:
    x = _real(x, name)
    if isinstance(x, float) and not math.isfinite(x):
        raise InvalidParameter(name, x, "a finite number")
    return Fraction(x)


def _show(x: Fraction, digits: int = 3) -> str:
    from dpcert.arith.exact import fraction_to_decimal

    return fraction_to_decimal(x, digits, "nearest")


def _target(quantity_or_vector: Any, inputs: Mapping[str, Any]) -> tuple[Any, dict[str, Any], Any, str]:
    """``(quantity, inputs, enclosure, what)`` for a quantity name, a Quantity, a Vector or a vector record."""
    from dpcert.arith.ball import Enclosure
    from dpcert.core.quantity import Quantity
    from dpcert.engine import registry
    from dpcert.vectors.export import enclose
    from dpcert.vectors.format import Vector, loads

    target = quantity_or_vector
    if isinstance(target, Mapping) and "quantity" in target and "lo" in target:
        doc = {"format": "dpcert-vectors", "version": 1, "dpcert": "0", "digits": 1, "vectors": [dict(target)]}
        target = dataclasses.replace(loads(doc, "vector")[0], source="")  # a record names no file
    if isinstance(target, Vector):
        if inputs:
            raise InvalidParameter("inputs", ", ".join(inputs), "none with a vector (it holds its own inputs)")
        problem = _unverified(target)
        if problem:
            raise AssertionError(
                f"vector {target.id}: not judged: {problem} (unverified data: its interval "
                f"[{target.lo}, {target.hi}] is not a certified enclosure)"
            )
        q = registry.quantity(target.quantity)
        lo, hi = target.interval
        what = f"vector {target.id}: {target.quantity}({', '.join(f'{k}={v}' for k, v in target.inputs.items())})"
        return q, dict(target.inputs), Enclosure(lo, hi), what
    if isinstance(target, str):
        q = registry.quantity(target)
    elif isinstance(target, Quantity):
        q = target
    else:
        raise InvalidParameter(
            "quantity_or_vector", repr(target)[:40], "a quantity name, a Quantity, a Vector or a vector record"
        )
    given = dict(inputs)
    enc = enclose(q, given, _ENCLOSURE_REL_TOL)
    return q, given, enc, f"{q.name}({', '.join(f'{k}={v}' for k, v in given.items())})"


#: vectors verified in this process: (file, its SHA-256) -> the file's vectors by id, each with why it failed ("" when
#: it re-certified); a vector that names no file is verified on its own, keyed by its record
_VERIFIED_FILES: dict[tuple[str, str], dict[str, tuple[Any, str]]] = {}
_VERIFIED_RECORDS: dict[str, str] = {}


def _vector_problem(claim: Any) -> str:
    """Why a vector's claim does not re-certify as ``dpcert vectors check`` re-certifies it ("" when it does)."""
    from dpcert.arith.ball import MAX_PREC
    from dpcert.core.claim import Verdict

    result = claim.check(max_prec=MAX_PREC)
    if result.verdict is Verdict.CERTIFIED:
        return ""
    return result.error or result.evidence.detail or result.verdict.value


def _unverified(v: Any) -> str:
    """Why the vector ``v`` cannot be trusted ("" when it is verified).

    A vector read from a file is judged only when the file re-certifies as ``dpcert vectors check`` re-certifies
    it: its certificate intact, with the recorded hash and this vector's claim, and a re-run giving the recorded
    [lo, hi]. The file is checked once per content (SHA-256) in a process; the vector must be the one the checked
    file holds. A vector or record that names no file is re-run on its own: its claim ``quantity(inputs) lies in
    [lo, hi]`` must be proved (a wider interval than an export's is then still a certified enclosure).
    """
    import hashlib
    import json

    from dpcert.core import files
    from dpcert.errors import DpcertError
    from dpcert.vectors.check import entries

    if not v.source:
        key = json.dumps(v.to_json(), sort_keys=True)
        if key not in _VERIFIED_RECORDS:
            from dpcert.vectors.export import vector_claim

            try:  # its claim "quantity(inputs) lies in [lo, hi]" must be proved (CERTIFIED)
                _VERIFIED_RECORDS[key] = _vector_problem(vector_claim(v.quantity, v.inputs, v.lo, v.hi, v.id, v.why))
            except DpcertError as exc:
                _VERIFIED_RECORDS[key] = " ".join(str(exc).split())
        problem = _VERIFIED_RECORDS[key]
        return (
            f"the vector did not re-certify (its interval is not proved to hold the value): {problem}"
            if problem
            else ""
        )
    path = Path(v.source)
    try:  # bounded, and never a FIFO or a device put where the file was
        text = files.read_text(path, what="vectors")
    except DpcertError as exc:
        return f"the vectors file {path} cannot be read again to verify it ({' '.join(str(exc).split())})"
    key = (str(path.resolve()), hashlib.sha256(text.encode("utf-8")).hexdigest())
    if key not in _VERIFIED_FILES:
        try:
            checked = {e.claim.vector.id: (e.claim.vector, _vector_problem(e.claim)) for e in entries(path)}
        except DpcertError as exc:
            checked = {"": (None, " ".join(str(exc).split()))}
        _VERIFIED_FILES[key] = checked
    checked = _VERIFIED_FILES[key]
    failed = [why for _, why in checked.values() if why]  # each names its vector
    if failed:
        more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
        return (
            f"the vectors file {path} did not verify (as `dpcert vectors check` checks it): "
            + "; ".join(w[:300] for w in failed[:3])
            + more
        )
    if checked.get(v.id, (None, ""))[0] != v:
        return f"the vector is not the one the vectors file {path} now holds"
    return ""


def _decide(q: Any, inputs: dict[str, Any], x: Fraction, upper: bool) -> tuple[bool | None, Any]:
    """Whether ``v <= x`` (``upper``) or ``v >= x`` holds for the quantity's exact value v, by rising precision,
    and the enclosure that decided it (``(None, None)`` when undecided)."""
    from dpcert.arith.ball import MAX_PREC
    from dpcert.core.claim import AtLeast, AtMost
    from dpcert.vectors.export import BRACKET_MAX_PREC

    cmp = AtMost.of(x) if upper else AtLeast.of(x)
    try:
        holds, enc, _ = q.decide(q.parse(inputs), cmp.decide, max_prec=BRACKET_MAX_PREC if q.bracket else MAX_PREC)
    except PrecisionExhausted:
        return None, None
    return bool(holds), enc


def assert_within_certified(
    value: float | int | Fraction,
    quantity_or_vector: Any,
    *,
    rel_tol: float = DEFAULT_REL_TOL,
    abs_tol: float = 0.0,
    bound: str | None = None,
    inputs: Mapping[str, Any] | None = None,
    **kw_inputs: Any,
) -> Any:
    """Assert that a float implementation's ``value`` agrees with dpcert's certified value (see the module doc).

    Args:
        value: the implementation's output (a float is taken at its exact binary value).
        quantity_or_vector: a quantity name (``"gaussian.delta"``), a :class:`~dpcert.core.quantity.Quantity`,
            a :class:`~dpcert.vectors.Vector` or a vector record (a dict from a vectors file).
        rel_tol: the implementation's stated relative accuracy (relative to the certified value).
        abs_tol: its stated absolute accuracy (for values near 0).
        bound: ``None`` (an estimate), ``"upper"`` (the value claims to be >= the true value) or ``"lower"``.
        inputs: the quantity's inputs as a mapping (for an input whose name clashes with a keyword here, e.g.
            ``bound`` of ``shuffle.rdp.upper``); ``**kw_inputs`` are merged into it.

    Returns:
        The certified :class:`~dpcert.arith.ball.Enclosure` compared with.

    Raises:
        AssertionError: when the value is outside the tolerance, or on the unsafe side of a bound.
        InvalidParameter: for a bad argument (unknown quantity, bad inputs, a non-finite tolerance, ...).

    References:
        the comparisons of :mod:`dpcert.core.claim` (``AtMost``, ``AtLeast``), decided the same way.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    if bound not in (None, "upper", "lower"):
        raise InvalidParameter("bound", bound, "None, 'upper' or 'lower'")
    rt, at = _exact(rel_tol, "rel_tol"), _exact(abs_tol, "abs_tol")
    if rt < 0 or at < 0:
        raise InvalidParameter("rel_tol" if rt < 0 else "abs_tol", rel_tol if rt < 0 else abs_tol, "a tolerance >= 0")
    value = _real(value, "value")
    merged = {**(inputs or {}), **kw_inputs}
    q, given, enc, what = _target(quantity_or_vector, merged)
    lo, hi = enc.lo, enc.hi
    if isinstance(value, float) and math.isnan(value):
        raise AssertionError(_message(what, enc, value, None, "the value is NaN", "", rt, at, Fraction(0)))
    mag = max(abs(lo), abs(hi))
    allowed = max(rt * mag, at)
    if isinstance(value, float) and math.isinf(value):
        if bound is None:
            msg = f"{'above' if value > 0 else 'below'} the enclosure (infinite)"
        elif (bound == "upper") == (value > 0):
            msg = f"too loose: the claimed {bound} bound is infinite"
        else:
            msg = f"UNSAFE: the claimed {bound} bound is {value}"
        raise AssertionError(_message(what, enc, value, None, msg, "", rt, at, allowed))
    x = _exact(value, "value")
    if bound is None:
        if x < lo - allowed:
            raise AssertionError(_message(what, enc, value, lo - x, "below the enclosure", "below lo", rt, at, allowed))
        if x > hi + allowed:
            raise AssertionError(_message(what, enc, value, x - hi, "above the enclosure", "above hi", rt, at, allowed))
        return enc
    upper = bound == "upper"
    unsafe = x < lo if upper else x > hi  # proved by the enclosure alone
    near = enc
    if not unsafe and (x < hi if upper else x > lo):  # inside the enclosure: decide v <= x (v >= x) exactly
        holds, near = _decide(q, given, x, upper)
        if holds is None:
            msg = "undecided: the value equals the certified value to beyond the maximum precision"
            raise AssertionError(_message(what, enc, value, None, msg, "", rt, at, allowed))
        unsafe = not holds
    kind = "upper" if upper else "lower"
    if unsafe:
        side = "below" if upper else "above"
        dist = near.lo - x if upper else x - near.hi  # > 0: the enclosure that proved it lies beyond x
        msg = f"UNSAFE: the claimed {kind} bound is {side} the certified value"
        where = "at least, below lo" if upper else "at least, above hi"
        raise AssertionError(_message(what, enc, value, dist, msg, where, rt, at, allowed))
    if x > hi + allowed if upper else x < lo - allowed:
        dist = x - hi if upper else lo - x
        side = "above" if upper else "below"
        msg = f"too loose: the claimed {kind} bound is {side} the enclosure by more than allowed"
        where = "at least, above hi" if upper else "at least, below lo"
        raise AssertionError(_message(what, enc, value, dist, msg, where, rt, at, allowed))
    return enc


def _message(
    what: str,
    enc: Any,
    value: Any,
    dist: Fraction | None,
    direction: str,
    where: str,
    rt: Fraction,
    at: Fraction,
    allowed: Fraction,
) -> str:
    lo, hi = enc.decimal(20)
    exact = " (exact value)" if enc.is_exact else ""
    lines = [f"{what}: {direction}", f"  certified enclosure: [{lo}, {hi}]{exact}", f"  value:     {value!r}"]
    if isinstance(value, float) and math.isfinite(value) and Fraction(value) != Fraction(repr(value)):
        lines.append(f"    (exactly {_show(Fraction(value), 25)}… as a double)")
    if dist is not None:
        mag = max(abs(enc.lo), abs(enc.hi))
        rel = f" (relative {_show(dist / mag)})" if mag else ""
        lines.append(f"  distance:  {_show(dist) if dist else '0'} ({where}){rel}")
    lines.append(f"  allowed:   {_show(allowed) if allowed else '0'} (rel_tol={float(rt):g}, abs_tol={float(at):g})")
    return "\n".join(lines)


def vectors(
    topic: str | Iterable[str] | None = None,
    quantity: str | None = None,
    *,
    path: str | Path | None = None,
) -> list:
    """``pytest.param(vector, id=vector.id)`` for each bundled vector (or those of ``path``) of a topic/quantity.

    Args:
        topic: a topic (``"composition"``) or several; all when ``None``.
        quantity: a quantity name or glob (``"composition.kov.*"``); all when ``None``.
        path: a vectors file; the bundled vectors by default.

    Raises:
        InvalidParameter: when nothing matches (a typo must not turn into zero silent tests).

    >>> import pytest
    >>> @pytest.mark.parametrize("vector", vectors(topic="rdp"))
    ... def test_my_rdp(vector): ...
    """
    import pytest

    from dpcert.vectors.format import load

    topics = None if topic is None else {topic} if isinstance(topic, str) else set(topic)
    chosen = [
        v
        for v in load(path)
        if (topics is None or v.topic in topics) and (quantity is None or fnmatch.fnmatchcase(v.quantity, quantity))
    ]
    if not chosen:
        raise InvalidParameter("topic/quantity", f"{topic}/{quantity}", "a selection holding at least one vector")
    return [pytest.param(v, id=v.id) for v in chosen]
