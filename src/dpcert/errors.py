"""The exceptions dpcert raises.

One root, :class:`DpcertError`; everything a caller should catch derives from it. Input errors are
:class:`InvalidParameter`, a :class:`ValueError`, whose message names the parameter, the value received and what
is allowed. dpcert never clamps bad input silently and never "returns 0" for it.
"""

from __future__ import annotations

import pickle
from typing import Any

__all__ = [
    "DpcertError",
    "InvalidParameter",
    "MissingInput",
    "UnknownClaim",
    "ManifestError",
    "RunOptionError",
    "SchedulerLost",
    "CertificateError",
    "PrecisionExhausted",
    "BudgetExhausted",
    "WorkerDied",
]


class DpcertError(Exception):
    """Root of every exception raised by dpcert on purpose.

    Every dpcert exception crosses a process boundary intact (a worker's UNDECIDED must stay UNDECIDED, not
    become a broken pool): it pickles as its class, its message and its attributes, an attribute that cannot be
    pickled (a user's odd input value) travelling as its ``repr``.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        state = {}
        for key, value in self.__dict__.items():
            try:
                pickle.dumps(value)
            except Exception:  # noqa: BLE001 - anything unpicklable travels as text
                value = repr(value)
            state[key] = value
        return (_restore, (type(self), str(self), state))


def _restore(cls: type[DpcertError], message: str, state: dict[str, Any]) -> DpcertError:
    obj = cls.__new__(cls)
    Exception.__init__(obj, message)
    obj.__dict__.update(state)
    return obj


#: The most characters of a bad input an error message quotes (a 10 MB value is cut, not echoed).
MAX_QUOTED = 80


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails (or exceeds an int-string limit) is still shown
        return f"<{type(value).__name__}>"


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    text = str(text)
    if len(text) <= limit:
        return text
    tail = f"… ({len(text)} characters)"
    return text[: max(limit - len(tail), 20)] + tail


class InvalidParameter(DpcertError, ValueError):
    """A parameter is outside its domain, of the wrong type, or malformed.

    Args:
        name: the parameter's name as the caller knows it (``"eps"``, ``"k"``, ``"delta"``).
        value: the value received (shown with ``repr``, cut to :data:`MAX_QUOTED` characters in the message;
            the attribute keeps it whole).
        allowed: what would have been accepted, in words (``"an integer >= 1"``).
    """

    def __init__(self, name: str, value: Any, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"invalid {_clip(name, 80)}={_clip(_repr(value), MAX_QUOTED)}: expected {allowed}")


class MissingInput(InvalidParameter):
    """A required input is not given: ``missing input delta=… (a real number > 0 and < 1, required of dpsgd.eps)``.

    Its ``value`` is ``None``; the message does not say ``delta=None``, which reads as if ``None`` had been given.
    """

    def __init__(self, name: str, allowed: str) -> None:
        super().__init__(name, None, allowed)
        Exception.__init__(self, f"missing input {_clip(name, 80)}=… ({allowed})")


class UnknownClaim(InvalidParameter):
    """A claim id or glob selects no registered claim."""

    def __init__(self, selector: str, known_prefixes: list[str] | None = None) -> None:
        hint = "a registered claim id or glob (see `dpcert list`)"
        if known_prefixes:
            hint += "; known prefixes: " + ", ".join(sorted(known_prefixes))
        super().__init__("claim", selector, hint)


class RunOptionError(InvalidParameter):
    """An option of *how* a computation runs is unusable (``--scheduler`` unreachable or of another dpcert version,
    ``--executor dask`` without Dask, a ``--checkpoint`` of other inputs or damaged): a fault of the run, not an
    outcome of what it computes, so a claim's check passes it on instead of recording an ERROR verdict."""


class SchedulerLost(RunOptionError):
    """The Dask scheduler of a run went away, or was left without workers, while chunks were running: the run is
    incomplete (no verdict). A fault of the run, passed on by a claim's check like every :class:`RunOptionError`;
    its message is one line naming the scheduler's address and what happened."""

    def __init__(self, address: str, what: str) -> None:
        super().__init__("--scheduler", address, what)
        Exception.__init__(self, f"the Dask scheduler at {address} {what}")


class ManifestError(InvalidParameter):
    """A manifest (TOML) or table file is malformed."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        DpcertError.__init__(self, f"malformed manifest {path}: {problem}")
        self.name, self.value, self.allowed = "manifest", path, problem


class CertificateError(DpcertError):
    """A certificate file is unreadable, tampered with (hash mismatch) or of an unknown format version."""


class PrecisionExhausted(DpcertError):
    """Ball arithmetic reached its stated maximum precision before a question was decided.

    Claim checks turn this into an UNDECIDED verdict; public functions that must return a certified value
    raise it rather than return something unproved. ``enclosure``, when known, is the last certified enclosure
    (a valid bracket that did not decide the question).
    """

    def __init__(self, what: str, max_prec: int, enclosure: Any = None) -> None:
        self.what = what
        self.max_prec = max_prec
        self.enclosure = enclosure
        super().__init__(f"undecided at the maximum precision of {max_prec} bits: {what}")


class BudgetExhausted(PrecisionExhausted):
    """A bracket quantity (a grid or lattice construction) did not reach the width asked for within its time budget.

    The limit is the grid, not the precision: a bracket narrows with the resolution, which costs time. A
    :class:`PrecisionExhausted` (callers catching that still catch this); ``enclosure`` is the narrowest certified
    bracket found, ``resolution`` the grid it was found on and ``seconds`` the time spent.
    """

    def __init__(self, what: str, enclosure: Any = None, resolution: int = 0, seconds: float = 0.0) -> None:
        self.what = what
        self.max_prec = 0
        self.enclosure = enclosure
        self.resolution = resolution
        self.seconds = seconds
        DpcertError.__init__(self, f"not reached within the time budget (the grid limited it): {what}")


class WorkerDied(DpcertError):
    """A worker process died before its chunk finished (killed by a signal, out of memory): the run is incomplete.

    Attributes:
        signal: the number of the signal that killed it, or ``None`` when unknown.
    """

    def __init__(self, signum: int | None) -> None:
        self.signal = signum
        how = f"signal {signum}" if signum is not None else "cause unknown"
        try:
            import signal

            if signum is not None:
                how = f"signal {signum}, {signal.Signals(signum).name}"
        except ValueError:
            pass
        super().__init__(f"a worker process died ({how}); the run is incomplete (no verdict)")
