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

A *bracket* quantity (``dpsgd.eps``, ``accounting.eps``, ``laplace.delta``, …: a PLD enclosure that narrows with a
grid's resolution, not with the precision) is judged on a certified bracket computed within a time budget
(``seconds``, default 10), narrowed while the value is undecided, and with ``rel_tol`` 1e-3 by default (a float PLD
accountant is about that accurate). A bracket never gives the value the benefit of its own width: an estimate passes
only when the whole bracket lies within ``allowed`` of it, an upper bound only when it is proved >= every point of
the bracket and not more than ``allowed`` above any; a value outside the bracket's ends by more than ``allowed`` (a
bound on its wrong side) fails with the bracket; a value inside the bracket's uncertainty fails as *undecided*,
saying what limited the bracket (the time budget, the largest grid that fits, or a value on the bracket's very end)
and what to do (more ``seconds``, a looser ``rel_tol`` if the implementation is no more accurate, the command that
narrows the bracket further). A vector of a bracket quantity (one with a ``width``) is used first, and the bracket
recomputed only when it does not decide.

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
import re
import time
from collections.abc import Iterable, Mapping
from fractions import Fraction
from numbers import Integral, Rational, Real
from pathlib import Path
from typing import Any

from dpcert.errors import InvalidParameter, PrecisionExhausted

__all__ = ["assert_within_certified", "vectors", "DEFAULT_REL_TOL", "BRACKET_REL_TOL", "BRACKET_SECONDS"]

#: the default relative tolerance: the accuracy dpcert asks of its own float evaluators
DEFAULT_REL_TOL = 1e-12
#: a bracket quantity's default relative tolerance: about what a float PLD accountant at a fine grid achieves, and
#: what a certified PLD bracket reaches in seconds at moderate settings
BRACKET_REL_TOL = 1e-3
#: a bracket quantity's default time budget (seconds) for computing its certified bracket
BRACKET_SECONDS = 10.0
#: the session's budget set by the pytest plugin's ``--dpcert-seconds`` (``None``: :data:`BRACKET_SECONDS`)
_SESSION_SECONDS: float | None = None
#: the first relative width a bracket is asked for: cheap, and enough to fail a clearly wrong value
_FIRST_WIDTH = 1e-2
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
    what = f"{q.name}({', '.join(f'{k}={v}' for k, v in given.items())})"
    if _is_bracket(q):
        q.parse(given)  # bad inputs refused before any work
        return q, given, None, what  # its bracket is computed within the budget (_judge_bracket)
    enc = enclose(q, given, _ENCLOSURE_REL_TOL)
    return q, given, enc, what


def _as_vector(target: Any) -> Any:
    """The vector a target stands for (a Vector, or a vector record as a dict), else None."""
    from dpcert.vectors.format import Vector

    if isinstance(target, Vector):
        return target
    if isinstance(target, Mapping) and "quantity" in target and "lo" in target:
        return dataclasses.make_dataclass("_Record", [("width", str)])(str(target.get("width", "")))
    return None


def _is_bracket(q: Any) -> bool:
    """Whether ``q`` has a time-budgeted certified bracket (:meth:`~dpcert.core.quantity.Quantity.bracket_within`)."""
    return bool(q.bracket and q.within is not None)


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
    rel_tol: float | None = None,
    abs_tol: float = 0.0,
    bound: str | None = None,
    seconds: float | None = None,
    inputs: Mapping[str, Any] | None = None,
    **kw_inputs: Any,
) -> Any:
    """Assert that a float implementation's ``value`` agrees with dpcert's certified value (see the module doc).

    Args:
        value: the implementation's output (a float is taken at its exact binary value).
        quantity_or_vector: a quantity name (``"gaussian.delta"``), a :class:`~dpcert.core.quantity.Quantity`,
            a :class:`~dpcert.vectors.Vector` or a vector record (a dict from a vectors file).
        rel_tol: the implementation's stated relative accuracy (relative to the certified value); by default
            :data:`DEFAULT_REL_TOL`, or :data:`BRACKET_REL_TOL` for a bracket quantity.
        abs_tol: its stated absolute accuracy (for values near 0).
        bound: ``None`` (an estimate), ``"upper"`` (the value claims to be >= the true value) or ``"lower"``.
        seconds: a bracket quantity only: the time budget for its certified bracket (default
            :data:`BRACKET_SECONDS`, or the pytest plugin's ``--dpcert-seconds``).
        inputs: the quantity's inputs as a mapping (for an input whose name clashes with a keyword here, e.g.
            ``bound`` of ``shuffle.rdp.upper``); ``**kw_inputs`` are merged into it.

    Returns:
        The certified :class:`~dpcert.arith.ball.Enclosure` compared with (a bracket quantity's: the narrowest
        bracket computed).

    Raises:
        AssertionError: when the value is outside the tolerance, or on the unsafe side of a bound, or (a bracket
            quantity) undecided within the budget.
        InvalidParameter: for a bad argument (unknown quantity, bad inputs, a non-finite tolerance, ``seconds``
            for a quantity that is not a bracket, ...).

    References:
        the comparisons of :mod:`dpcert.core.claim` (``AtMost``, ``AtLeast``), decided the same way.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    if bound not in (None, "upper", "lower"):
        raise InvalidParameter("bound", bound, "None, 'upper' or 'lower'")
    at = _exact(abs_tol, "abs_tol")
    if rel_tol is not None and _exact(rel_tol, "rel_tol") < 0 or at < 0:
        raise InvalidParameter("rel_tol" if at >= 0 else "abs_tol", rel_tol if at >= 0 else abs_tol, "a tolerance >= 0")
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf
    ):
        raise InvalidParameter("seconds", seconds, "a positive finite time budget in seconds")
    value = _real(value, "value")
    merged = {**(inputs or {}), **kw_inputs}
    q, given, enc, what = _target(quantity_or_vector, merged)
    # a bracket quantity's vector at a closed-form point (no width) is as narrow as any other: judged as one
    if _is_bracket(q) and (enc is None or getattr(_as_vector(quantity_or_vector), "width", "")):
        rt = _exact(BRACKET_REL_TOL if rel_tol is None else rel_tol, "rel_tol")
        session = _SESSION_SECONDS if _SESSION_SECONDS is not None else BRACKET_SECONDS
        budget = session if seconds is None else float(seconds)
        return _judge_bracket(value, q, given, enc, what, rt, at, bound, budget)
    if seconds is not None:
        raise InvalidParameter("seconds", seconds, f"no time budget: {q.name} is not a bracket quantity")
    rt = _exact(DEFAULT_REL_TOL if rel_tol is None else rel_tol, "rel_tol")
    lo, hi = enc.lo, enc.hi
    if isinstance(value, float) and math.isnan(value):
        raise AssertionError(_message(what, enc, value, None, "the value is NaN", "", rt, at, Fraction(0)))
    mag = max(abs(lo), abs(hi))
    allowed = max(rt * mag, at)
    if isinstance(value, float) and math.isinf(value):
        raise AssertionError(_message(what, enc, value, None, _infinite(value, bound), "", rt, at, allowed))
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


def _infinite(value: float, bound: str | None) -> str:
    if bound is None:
        return f"{'above' if value > 0 else 'below'} the enclosure (infinite)"
    if (bound == "upper") == (value > 0):
        return f"too loose: the claimed {bound} bound is infinite"
    return f"UNSAFE: the claimed {bound} bound is {value}"


# ------------------------------------------------------------------------------------------- bracket quantities


def _bracket_allowed(enc: Any, rt: Fraction, at: Fraction) -> Fraction:
    """``max(rt * |v|, at)`` with |v| at its least over the bracket (a wide bracket never widens the tolerance)."""
    if enc.lo is None or enc.hi is None or (enc.lo <= 0 <= enc.hi):
        return at
    return max(rt * min(abs(enc.lo), abs(enc.hi)), at)


def _bracket_verdict(enc: Any, x: Fraction, bound: str | None, a: Fraction) -> str | None:
    """``"pass"``, a failure (``"below"``, ``"above"``, ``"unsafe"``, ``"loose"``) proved for every point of the
    bracket, or ``None`` (the bracket holds points on both sides of the question)."""
    lo, hi = enc.lo, enc.hi
    below = lo is not None and x < lo  # x < every point
    above = hi is not None and x > hi
    if bound is None:
        if lo is not None and x < lo - a:
            return "below"
        if hi is not None and x > hi + a:
            return "above"
        if lo is not None and hi is not None and x - a <= lo and hi <= x + a:
            return "pass"
        return None
    upper = bound == "upper"
    if below if upper else above:
        return "unsafe"
    if upper and hi is not None and x > hi + a or not upper and lo is not None and x < lo - a:
        return "loose"
    if lo is not None and hi is not None and (hi <= x <= lo + a if upper else hi - a <= x <= lo):
        return "pass"
    return None


def _meet(a: Any, b: Any) -> Any:
    """The intersection of two certified enclosures of one value."""
    from dpcert.arith.ball import Enclosure

    if a is None:
        return b
    lo = b.lo if a.lo is None else a.lo if b.lo is None else max(a.lo, b.lo)
    hi = b.hi if a.hi is None else a.hi if b.hi is None else min(a.hi, b.hi)
    if lo is not None and hi is not None and lo > hi:  # two proofs disagree: a defect, never an answer
        raise RuntimeError(f"two certified enclosures of one value do not meet: {a.short()} and {b.short()}")
    return Enclosure(lo, hi)


@dataclasses.dataclass
class _Run:
    """How the bracket was reached: the last grid's resolution, the time spent, what limited it, the command
    that narrows it further."""

    resolution: int | None = None
    seconds: float = 0.0
    limited_by: str = ""
    hint: str = ""
    width: float | None = None


def _refine_bracket(
    q: Any, given: dict[str, Any], enc: Any, x: Fraction, bound: str | None, rt: Fraction, at: Fraction, budget: float
) -> tuple[str | None, Any, _Run]:
    """Narrow the bracket until the question is decided or the budget is spent: widths 1e-2, then 4 times
    narrower each time (each call starts afresh; their cost doubles, so the last one dominates). The bracket is
    the intersection of every certified one (a vector's included).

    What limited it: ``"width"`` (the narrowest width asked was reached and the value still lies on the
    bracket's edge: a bracket cannot decide a value equal to its quantity's), ``"grid"`` (a run stopped short of
    its width well inside its budget: a refinement stops for time only when its next run would not fit, which it
    predicts from the last run, at least a quarter of the budget; so an early stop is the largest grid that fits),
    ``"time"`` otherwise.
    """
    run = _Run()
    verdict = None if enc is None else _bracket_verdict(enc, x, bound, _bracket_allowed(enc, rt, at))
    t0 = time.perf_counter()
    width = _FIRST_WIDTH
    while verdict is None:
        left = budget - (time.perf_counter() - t0)
        if left <= 0 and enc is not None:
            run.limited_by = "time"
            break
        extra = {"rel_tol": width} if q.within_takes_width else {}
        # a bracket without a width to stop at spends what it is given: a short first call decides the clear cases
        first = run.resolution is None and not q.within_takes_width
        give = min(left, budget / 16) if first else left
        br = q.bracket_within(given, seconds=max(give, 1e-3), **extra)
        enc = _meet(enc, br.enclosure)
        # the hint with the budget to try next (the quantity formats it with this call's remaining time)
        hint = re.sub(r"--seconds \S+", f"--seconds {4 * budget:g}", br.hint)
        run.resolution, run.hint, run.width = br.resolution, hint, width if q.within_takes_width else None
        run.seconds = time.perf_counter() - t0
        verdict = _bracket_verdict(enc, x, bound, _bracket_allowed(enc, rt, at))
        if verdict is not None:
            break
        got = br.enclosure
        reached = got.is_exact or (got.width is not None and (got.width == 0 or got.rel_width() <= width))
        if first:
            continue
        if not q.within_takes_width or not reached:
            run.limited_by = "grid" if br.seconds < give / 4 else "time"
            break
        if width < 1e-15:
            run.limited_by = "width"
            break
        # 4 times narrower than what the last run reached (a first grid often overshoots the width asked)
        width = min(width, float(got.rel_width()) if got.width else width) / 4
    run.seconds = time.perf_counter() - t0
    return verdict, enc, run


def _judge_bracket(
    value: Any,
    q: Any,
    given: dict[str, Any],
    enc: Any,
    what: str,
    rt: Fraction,
    at: Fraction,
    bound: str | None,
    budget: float,
) -> Any:
    """:func:`assert_within_certified` for a bracket quantity (see the module doc)."""
    __tracebackhide__ = True
    nan = isinstance(value, float) and math.isnan(value)
    inf = isinstance(value, float) and math.isinf(value)
    x = Fraction(0) if nan or inf else _exact(value, "value")
    if nan or inf:  # judged on the first bracket, which shows what the value should be near
        _, enc, run = _refine_bracket(q, given, enc, Fraction(0), "upper" if inf else None, rt, at, 0.0)
        msg = "the value is NaN" if nan else _infinite(value, bound)
        raise AssertionError(_message(what, enc, value, None, msg, "", rt, at, _bracket_allowed(enc, rt, at)))
    verdict, enc, run = _refine_bracket(q, given, enc, x, bound, rt, at, budget)
    allowed = _bracket_allowed(enc, rt, at)
    extra = _bracket_lines(enc, run)
    if verdict == "pass":
        return enc
    kind = bound or ""
    if verdict == "below":
        raise AssertionError(
            _message(what, enc, value, enc.lo - x, "below the certified bracket", "below lo", rt, at, allowed, extra)
        )
    if verdict == "above":
        raise AssertionError(
            _message(what, enc, value, x - enc.hi, "above the certified bracket", "above hi", rt, at, allowed, extra)
        )
    if verdict == "unsafe":
        upper = bound == "upper"
        dist = enc.lo - x if upper else x - enc.hi
        msg = f"UNSAFE: the claimed {kind} bound is {'below' if upper else 'above'} the certified bracket"
        where = "at least, below lo" if upper else "at least, above hi"
        raise AssertionError(_message(what, enc, value, dist, msg, where, rt, at, allowed, extra))
    if verdict == "loose":
        upper = bound == "upper"
        dist = x - enc.hi if upper else enc.lo - x
        msg = f"too loose: the claimed {kind} bound is {'above' if upper else 'below'} the bracket by more than allowed"
        where = "at least, above hi" if upper else "at least, below lo"
        raise AssertionError(_message(what, enc, value, dist, msg, where, rt, at, allowed, extra))
    raise AssertionError(_undecided(what, enc, value, x, bound, rt, at, allowed, run, budget))


def _bracket_lines(enc: Any, run: _Run) -> list[str]:
    if run.resolution is None:
        return ["  (the recorded bracket of the vector decided it)"]
    width = "unbounded" if enc.width is None else f"{float(enc.rel_width()):.3g}"
    return [f"  bracket:   relative width {width}, grid resolution {run.resolution}, {run.seconds:.1f} s"]


def _undecided(
    what: str,
    enc: Any,
    value: Any,
    x: Fraction,
    bound: str | None,
    rt: Fraction,
    at: Fraction,
    allowed: Fraction,
    run: _Run,
    budget: float,
) -> str:
    """The message of a value the bracket cannot decide: where it lies, what limited the bracket, what to do."""
    lo, hi = enc.lo, enc.hi
    if bound is None:
        question = "whether it is within allowed of every point of the bracket"
        need = None if lo is None or hi is None else max(x - lo, hi - x)
    elif bound == "upper":
        question = "whether it is >= the certified value (safe) and not too loose"
        need = None if lo is None else x - lo
    else:
        question = "whether it is <= the certified value (safe) and not too loose"
        need = None if hi is None else hi - x
    head = f"undecided: the value lies inside the certified bracket's uncertainty (cannot prove {question})"
    lines = [_message(what, enc, value, None, head, "", rt, at, allowed, _bracket_lines(enc, run))]
    hint = f" (or from the command line: {run.hint})" if run.hint else ""
    if run.limited_by == "grid":
        lines.append(
            f"  limited by: the grid: the largest grid that fits (resolution {run.resolution}) was reached in "
            f"{run.seconds:.1f} s of the {budget:g} s budget; more time does not narrow it"
        )
    elif run.limited_by == "width":
        lines.append(
            "  limited by: the value itself: the bracket reached a relative width below 1e-15 and the value is "
            "still on its edge (it equals the certified value to that accuracy); no bracket decides that"
        )
    else:
        lines.append(
            f"  limited by: the time budget: the bracket's next, finer grid would not finish within seconds={budget:g}"
        )
        lines.append(f"  to decide: give more time, seconds={4 * budget:g}{hint}")
    mag = None if lo is None or hi is None else max(abs(lo), abs(hi))
    if need is not None and mag and bound is None and need > 0:
        lines.append(
            f"  or: if the implementation is no more accurate than that, a tolerance rel_tol >= "
            f"{_show(need / mag)} passes this bracket"
        )
    elif bound is not None:
        lines.append("  or: a bound this close to the certified value is decided only by a narrower bracket")
    return "\n".join(lines)


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
    extra: list[str] | None = None,
) -> str:
    lo, hi = enc.decimal(20)
    exact = " (exact value)" if enc.is_exact else ""
    lines = [
        f"{what}: {direction}",
        f"  certified enclosure: [{lo}, {hi}]{exact}",
        *(extra or []),
        f"  value:     {value!r}",
    ]
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
