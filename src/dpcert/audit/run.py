"""Run the cases through the peers and place each answer against dpcert's certified enclosure.

For each (peer, function, case) the peer's float answer is compared with the rigorous enclosure [lo, hi] of the
same quantity at the inputs the peer was actually given (the case's inputs as doubles, or what the adapter says):

============ ==========================================================================================
``inside``   lo <= value <= hi (a bracket: it holds [lo, hi])
``unsafe``   value < lo for a value or an upper bound: the peer reports less privacy loss (smaller δ, ε, or
             a smaller σ) than the truth, proved (a bracket: its upper end is below lo)
``loose``    an upper bound above hi: valid, and this much larger than it needs to be
``wrong``    a value claimed exact above hi, or a lower end of a bracket above hi
``error``    the peer raised (its one-line message is the note)
``skipped``  the peer is not installed (the note says how to install it)
============ ==========================================================================================

Every quantity audited here is on the conservative side when larger (δ, ε, RDP ε, the noise σ), so below the
enclosure is the unsafe direction for all of them. The relative distance is (lo − v)/|lo| below, (v − hi)/|hi|
above; an ``unsafe`` or ``wrong`` row at a distance of at most :data:`FLOAT_NOISE` is float round-off rather than a
defect of method: it keeps its verdict, and the headline (:meth:`AuditReport.headline`) counts it as ``round-off``,
apart from the findings beyond it. A calibrator whose stated accuracy is on another quantity (``Call.accuracy_on``)
gets a note saying whether its answer is within that accuracy, decided on the certified enclosure of that quantity.

A bracket quantity (a PLD: DP-SGD's ε, δ and σ) is enclosed to :data:`BRACKET_REL_TOL` or within
:data:`BRACKET_SECONDS`, whichever comes first, and its rows say how wide the bracket is. A peer is never accused
by a bracket's width: unsafe means below its certified lower end, loose above its certified upper end. Where the
lower end bounds only a dominating pair, not the mechanism (a ledger certified by RDP or through a pair that is not
tight, :mod:`dpcert.audit.ledgers`), the enclosure used is [0, hi], and the row says so.
"""

from __future__ import annotations

import math
import signal
import threading
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dpcert.audit import CALL_SECONDS
from dpcert.audit.cases import CASES, Case
from dpcert.audit.ledgers import UPPER_ONLY_NOTE
from dpcert.errors import InvalidParameter

__all__ = ["Row", "Monotonicity", "AuditReport", "classify", "run_audit", "FLOAT_NOISE", "REL_TOL"]

#: Relative width of dpcert's enclosures: far below a double's resolution, so every float is placed exactly.
REL_TOL = 1e-20
#: A relative distance at most this is float round-off (still reported, counted apart).
FLOAT_NOISE = 1e-9
#: A bracket quantity (a PLD enclosure, which narrows with its grid rather than its precision) is enclosed to this
#: relative width or within this many seconds, whichever comes first; the row says how wide it is.
BRACKET_REL_TOL = 1e-2
BRACKET_SECONDS = 10.0
_SMALLEST_DOUBLE = Fraction(2) ** -1074
# the default time limit of one peer call, CALL_SECONDS, is in dpcert.audit (autodp's calibrator never returns at
# ε = 0)


class _CallTimeout(BaseException):
    """Raised by SIGALRM inside a peer call that overran its time (a BaseException, so that a peer's own
    ``except Exception`` does not swallow it)."""


@dataclass
class Row:
    """One (peer, function, case) result."""

    peer: str
    version: str | None
    function: str
    quantity: str
    inputs: dict[str, str]
    pattern: str
    claim: str
    verdict: str
    value: float | None = None
    bracket: tuple[float, float, float] | None = None
    enclosure: Any = None
    distance: float | None = None
    direction: str | None = None
    peer_seconds: float | None = None
    dpcert_seconds: float | None = None
    note: str = ""
    series: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "peer": self.peer,
            "version": self.version,
            "function": self.function,
            "quantity": self.quantity,
            "inputs": self.inputs,
            "pattern": self.pattern,
            "claim": self.claim,
            "verdict": self.verdict,
            "value": self.value,
            "bracket": list(self.bracket) if self.bracket is not None else None,
            "enclosure": self.enclosure.to_json(20) if self.enclosure is not None else None,
            "relative_distance": self.distance,
            "direction": self.direction,
            "peer_seconds": self.peer_seconds,
            "dpcert_seconds": self.dpcert_seconds,
            "note": self.note,
        }


@dataclass
class Monotonicity:
    """A peer function's values along a monotone series: ``ok`` or the first pair out of order."""

    peer: str
    function: str
    series: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {
            "peer": self.peer,
            "function": self.function,
            "series": self.series,
            "ok": self.ok,
            "detail": self.detail,
        }


@dataclass
class AuditReport:
    rows: list[Row] = field(default_factory=list)
    monotonicity: list[Monotonicity] = field(default_factory=list)
    seconds: float = 0.0
    #: the selected peers that could be imported, and how to install each one that could not
    installed: list[str] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)

    def nothing_audited(self) -> str:
        """``""`` when at least one selected peer was installed; else one line saying that none is and how to
        install them (``dpcert audit`` then exits 2: the audit could not run)."""
        if self.installed or not self.missing:
            return ""
        hints: dict[str, list[str]] = {}
        for name, install in self.missing.items():
            hints.setdefault(install, []).append(name)
        how = "; ".join(f"{', '.join(names)}: {install}" for install, names in hints.items())
        return f"no peer is installed, so nothing was audited ({how})"

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out

    def headline(self) -> dict[str, int]:
        """Counts by verdict in report order, ``unsafe`` and ``wrong`` only beyond float round-off; the rows within
        :data:`FLOAT_NOISE` of the enclosure are counted as ``round-off``."""
        out = {v: 0 for v in ("inside", "unsafe", "loose", "wrong", "round-off", "error", "skipped")}
        for r in self.rows:
            noise = r.verdict in ("unsafe", "wrong") and r.distance is not None and r.distance <= FLOAT_NOISE
            key = "round-off" if noise else r.verdict
            out[key] = out.get(key, 0) + 1
        return {k: n for k, n in out.items() if n}

    def material(self, verdict: str) -> list[Row]:
        """Rows with ``verdict`` whose distance exceeds float noise."""
        return [r for r in self.rows if r.verdict == verdict and (r.distance or 0) > FLOAT_NOISE]

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": [r.to_json() for r in self.rows],
            "monotonicity": [m.to_json() for m in self.monotonicity],
            "counts": self.counts(),
            "headline": self.headline(),
            "float_noise": FLOAT_NOISE,
            "seconds": self.seconds,
        }


def _distance(v: Fraction, end: Fraction) -> float:
    d = abs(v - end) / abs(end) if end != 0 else abs(v - end)
    return float(d) if d < Fraction(10) ** 300 else float("inf")  # a truth of 1e-4000 against a double


def classify(
    claim: str, value: Any, lo: Fraction, hi: Fraction, abs_tol: Fraction = Fraction(0)
) -> tuple[str, float | None, str | None]:
    """``(verdict, relative distance, "below"|"above"|None)`` of a peer's answer against the enclosure [lo, hi].

    ``value`` is a float, or (lower, estimate, upper) for a ``bracket`` claim. ``abs_tol`` is the absolute accuracy
    the peer states for this answer: a ``value`` within it, plus one ulp (a double can be no closer), of [lo, hi]
    is ``inside``, and so is an ``upper`` bound within it above hi; an upper bound below lo is ``unsafe`` whatever
    ``abs_tol``. The distance is reported even when a tolerance makes the answer inside. NaN is ``wrong``, and so
    is a negative value where the truth is exactly 0 (an ε clamped at 0: outside the quantity's domain, not less
    privacy); an infinite upper bound is ``loose`` (infinitely).

    >>> classify("upper", 0.5, Fraction(1), Fraction(1))
    ('unsafe', 0.5, 'below')
    >>> classify("value", 2.0, Fraction(1), Fraction(1))
    ('wrong', 1.0, 'above')
    >>> classify("value", 0.5, Fraction(1), Fraction(1), abs_tol=Fraction(1, 2))
    ('inside', 0.5, 'below')
    """
    if claim == "bracket":
        lower, _, upper = (float(x) for x in value)
        if upper != upper or lower != lower:
            return "wrong", None, None
        if upper < float("inf") and Fraction(upper) < lo:
            return "unsafe", _distance(Fraction(upper), lo), "below"
        if lower > float("-inf") and Fraction(lower) > hi:
            return "wrong", _distance(Fraction(lower), hi), "above"
        if upper == float("inf"):
            return "inside", float("inf"), "above"
        d = Fraction(upper)
        return "inside", (_distance(d, hi) if d > hi else 0.0), ("above" if d > hi else None)
    v = float(value)
    if v != v:
        return "wrong", None, None
    if v == float("inf"):
        return ("loose" if claim == "upper" else "wrong"), float("inf"), "above"
    if v == float("-inf"):
        return ("loose" if claim == "lower" else "unsafe"), float("inf"), "below"
    x = Fraction(v)
    if x < 0 and lo == hi == 0:  # e.g. a negative ε where the quantity is clamped at 0: out of domain, not unsafe
        return "wrong", float(-x), "below"
    if claim == "value":  # a double can be no closer than the doubles next to the truth: one ulp is allowed
        abs_tol = abs_tol + Fraction(math.ulp(v))
    if x < lo:
        d = _distance(x, lo)
        if claim == "lower":
            return "loose", d, "below"
        if claim == "value" and lo - x <= abs_tol:
            return "inside", d, "below"
        return "unsafe", d, "below"
    if x > hi:
        d = _distance(x, hi)
        if x - hi <= abs_tol and claim in ("value", "upper"):
            return "inside", d, "above"
        return ("loose" if claim == "upper" else "wrong"), d, "above"
    return "inside", 0.0, None


def _one_line(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Truth:
    """dpcert's enclosures, computed once per distinct exact input."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, tuple[tuple[str, Any], ...]], tuple[Any, float]] = {}

    def enclose(self, quantity: str, inputs: Iterable[dict[str, Any]]) -> tuple[Any, float]:
        from dpcert.arith.ball import Enclosure
        from dpcert.engine.registry import quantity as get

        q = get(quantity)
        encs, seconds = [], 0.0
        for inp in inputs:
            key = (quantity, tuple(sorted((k, Fraction(v) if isinstance(v, float) else v) for k, v in inp.items())))
            if key not in self._cache:
                t = time.perf_counter()
                if q.bracket:
                    # the narrowest certified bracket in the budget: a peer's answer inside it is inside, and
                    # one outside it is outside by a proved margin, however wide the bracket
                    enc = q.bracket_within(inp, seconds=BRACKET_SECONDS, rel_tol=BRACKET_REL_TOL).enclosure
                else:
                    enc = q.enclose(inp, rel_tol=REL_TOL)
                self._cache[key] = (enc, time.perf_counter() - t)
            enc, s = self._cache[key]
            encs.append(enc)
            seconds += s
        lo, hi = min(e.lo for e in encs), max(e.hi for e in encs)
        if self.upper_only(quantity, inputs):
            lo = min(lo, Fraction(0))  # the lower end bounds a dominating pair or nothing, not the mechanism
        return Enclosure(lo, hi), seconds

    @staticmethod
    def upper_only(quantity: str, inputs: Iterable[dict[str, Any]]) -> bool:
        """Whether dpcert's lower end fails to bound the mechanism's value at some of ``inputs``
        (:func:`dpcert.audit.ledgers.lower_end_proved`): then the enclosure used is [0, hi]."""
        from dpcert.audit.ledgers import lower_end_proved

        return not all(lower_end_proved(quantity, dict(inp)) for inp in inputs)


def _run_call(call: Any, seconds: float | None) -> tuple[Any, float, str]:
    # the time limit is a SIGALRM timer, so it only exists in the main thread of a Unix process; it interrupts
    # Python code at once and C code when it returns
    alarm = bool(seconds) and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if alarm:

        def on_alarm(signum: int, frame: Any) -> None:
            raise _CallTimeout

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = time.perf_counter()
            value = call.run()
            elapsed = time.perf_counter() - t
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    note = ""
    if caught:
        note = "warned: " + " ".join(str(caught[0].message).split())[:120]
    return value, elapsed, note


def run_audit(
    peers: Sequence[str] | None = None,
    cases: Sequence[Case] = CASES,
    *,
    progress: Any = None,
    adapters: Sequence[Any] | None = None,
    call_seconds: float | None = CALL_SECONDS,
) -> AuditReport:
    """Run every case through every selected peer.

    Args:
        peers: names of peers to run (default: all of them).
        cases: the cases (default: :data:`dpcert.audit.cases.CASES`).
        progress: a text stream for one line per peer, or ``None``.
        adapters: the :class:`~dpcert.audit.peers.Peer` adapters to choose from (default:
            :data:`dpcert.audit.peers.PEERS`); another project can audit its own accountant by passing its own.
        call_seconds: the time one peer call may take before it is stopped and reported as an error (``None``:
            no limit; the limit needs the main thread of a Unix process).

    Raises:
        InvalidParameter: an unknown peer name.
    """
    from dpcert.audit.peers import PEERS

    pool = list(PEERS if adapters is None else adapters)
    names = [p.name for p in pool]
    for name in peers or []:
        if name not in names:
            raise InvalidParameter("--peer", name, f"one of {', '.join(names)}")
    chosen = [p for p in pool if not peers or p.name in peers]
    start = time.perf_counter()
    report = AuditReport()
    truth = _Truth()
    for peer in chosen:
        version, why = peer.status()
        if version is None:
            report.missing[peer.name] = peer.install or f"pip install {peer.dist}"
            report.rows.append(Row(peer.name, None, "-", "-", {}, "-", "-", "skipped", note=why))
            if progress is not None:
                progress.write(f"dpcert audit: {peer.name}: skipped ({why})\n")
            continue
        report.installed.append(peer.name)
        if progress is not None:
            progress.write(f"dpcert audit: {peer.name} {version} ...\n")
        for case in cases:
            report.rows.extend(_rows_of(peer, version, case, truth, call_seconds))
    report.monotonicity = _monotonicity(report.rows, cases)
    report.seconds = time.perf_counter() - start
    return report


def _rows_of(peer: Any, version: str, case: Case, truth: _Truth, call_seconds: float | None) -> list[Row]:
    from dpcert.audit.peers._common import doubles

    base = {
        "peer": peer.name,
        "version": version,
        "quantity": case.quantity,
        "inputs": dict(case.inputs),
        "pattern": case.pattern,
        "series": case.series.name if case.series else None,
    }
    try:
        calls = peer.calls(case)
    except Exception as exc:  # the adapter could not even form its calls (an API the installed version lacks)
        return [Row(function="-", claim="-", verdict="error", note=_one_line(exc), **base)]
    rows = []
    for call in calls:
        row = Row(function=call.function, claim=call.claim, verdict="error", **base)
        if call.skip:
            row.verdict, row.note = "skipped", call.skip
            rows.append(row)
            continue
        given = call.truth or (doubles(case),)
        try:
            enc, row.dpcert_seconds = truth.enclose(case.quantity, given)
        except Exception as exc:  # dpcert itself failed: say so, never blame the peer
            row.note = "dpcert: " + _one_line(exc)
            rows.append(row)
            continue
        row.enclosure = enc
        try:
            value, row.peer_seconds, row.note = _run_call(call, call_seconds)
        except _CallTimeout:
            row.note = f"no answer within {call_seconds:g} s (stopped)"
            rows.append(row)
            continue
        except Exception as exc:
            row.note = _one_line(exc)
            rows.append(row)
            continue
        if call.claim == "bracket":
            row.bracket = tuple(float(x) for x in value)  # type: ignore[assignment]
            row.value = row.bracket[2]
        else:
            row.value = float(value)
        tol = (
            Fraction(call.abs_tol) + Fraction(call.rel_tol) * abs(Fraction(row.value))
            if row.value == row.value and abs(row.value) != float("inf")
            else Fraction(0)
        )
        row.verdict, row.distance, row.direction = classify(call.claim, value, enc.lo, enc.hi, tol)
        if row.verdict == "inside" and row.direction is not None and call.claim != "bracket":
            within = (
                f"within the stated tolerance {call.abs_tol:g} + {call.rel_tol:.3g}·|v|"
                if call.abs_tol or call.rel_tol
                else "within one ulp"
            )
            row.note = f"{row.note}; {within}" if row.note else within
        if row.value == 0.0 and enc.lo > 0 and enc.hi < _SMALLEST_DOUBLE:
            underflow = "the truth is below the smallest double: 0 is its float underflow"
            row.note = f"{row.note}; {underflow}" if row.note else underflow
        if call.accuracy_on is not None and row.verdict in ("unsafe", "wrong") and row.value == row.value:
            within = _within_stated(call.accuracy_on, row.value, case, truth)
            row.note = f"{row.note}; {within}" if row.note else within
        if truth.upper_only(case.quantity, given):
            row.note = f"{row.note}; {UPPER_ONLY_NOTE}" if row.note else UPPER_ONLY_NOTE
        elif enc.width is not None and enc.width > 0 and enc.rel_width() > REL_TOL:
            wide = f"certified bracket {enc.rel_width():.2g} wide (relative)"
            row.note = f"{row.note}; {wide}" if row.note else wide
        if call.note:
            row.note = f"{call.note}; {row.note}" if row.note else call.note
        rows.append(row)
    return rows


def _within_stated(accuracy_on: tuple[str, str, str, float], value: float, case: Case, truth: _Truth) -> str:
    """Whether a calibrator's answer meets the accuracy it states on another quantity, decided on that quantity's
    certified enclosure at the answer (the exact double) and the case's other inputs."""
    from dpcert.audit.peers._common import doubles

    quantity, param, target, tol = accuracy_on
    given = doubles(case)
    inputs = {k: v for k, v in given.items() if k != target}
    inputs[param] = value
    goal = Fraction(given[target])
    try:
        enc, _ = truth.enclose(quantity, (inputs,))
    except Exception as exc:  # dpcert could not decide it: say so, claim nothing
        return f"its stated tolerance {tol:g} on {target} not checked (dpcert: {_one_line(exc)})"
    off_lo, off_hi = abs(enc.lo - goal), abs(enc.hi - goal)
    shown = f"{target}({param}) = {float(enc.lo):.6g} for {target} = {float(goal):g}"  # (lo = hi to 1e-20)
    if max(off_lo, off_hi) <= Fraction(tol):
        return f"within its stated tolerance {tol:g} on {target}: {shown}"
    if enc.lo - goal > Fraction(tol) or goal - enc.hi > Fraction(tol):
        return f"beyond its stated tolerance {tol:g} on {target}: {shown}"
    return f"at the edge of its stated tolerance {tol:g} on {target}: {shown}"


def _monotonicity(rows: list[Row], cases: Sequence[Case]) -> list[Monotonicity]:
    series_of = {c.series.name: c.series for c in cases if c.series}
    groups: dict[tuple[str, str, str], list[Row]] = {}
    for r in rows:
        if r.series and r.value is not None:
            groups.setdefault((r.peer, r.function, r.series), []).append(r)
    out = []
    for (peer, function, name), rs in groups.items():
        s = series_of.get(name)
        if s is None or len(rs) < 2:
            continue
        rs.sort(key=lambda r: Fraction(r.inputs[s.param]))
        # the truth moves strictly along every series here (its enclosures are disjoint and ordered), so the peer
        # must move strictly too: a constant answer (a count that is not applied, a tolerance that ignores δ) is
        # flagged, not only a reversal
        bad = None
        for a, b in zip(rs, rs[1:], strict=False):
            truth_moves = b.enclosure.lo > a.enclosure.hi if s.sign > 0 else a.enclosure.lo > b.enclosure.hi
            if truth_moves and not (b.value - a.value) * s.sign > 0:  # type: ignore[operator]
                bad = (a, b)
                break
        if bad is None:
            vals = ", ".join(f"{r.value:.6g}" for r in rs)
            out.append(Monotonicity(peer, function, name, True, f"{len(rs)} points: {vals}"))
        else:
            a, b = bad
            how = "the same value" if a.value == b.value else "values out of order"
            out.append(
                Monotonicity(
                    peer,
                    function,
                    name,
                    False,
                    f"{how}: {s.param}={a.inputs[s.param]} gives {a.value!r}, {s.param}={b.inputs[s.param]} "
                    f"gives {b.value!r}, while the certified values move strictly",
                )
            )
    return out
