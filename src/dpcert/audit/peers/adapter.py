"""The interface of a peer adapter: :class:`Peer` (one accountant) and :class:`Call` (one of its functions
applied to one case). Every adapter module imports it; :mod:`dpcert.audit.peers` collects the adapters."""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Peer", "BRENTQ_RTOL", "not_run"]

#: scipy's ``brentq``/``root_scalar`` default relative tolerance (4 machine epsilons), part of every root finder's
#: stated accuracy ``xtol + rtol·|x|``.
BRENTQ_RTOL = 4 * 2.220446049250313e-16


@dataclass(frozen=True)
class Call:
    """One function of a peer applied to one case.

    Attributes:
        function: what is called, short enough for a table (``PLDAccountant.compose(RR, count=k).get_epsilon``).
        claim: ``upper`` (the peer documents an upper bound), ``value`` (the value itself), ``bracket`` (``run``
            returns (lower, estimate, upper)) or ``lower``.
        run: computes the peer's answer (a float, or the bracket).
        truth: exact inputs of the quantity whose enclosures' hull holds the true value of what the peer was
            actually given (each must be justified where it is made, by monotonicity); ``None`` means the case's
            inputs as the doubles the peer receives.
        note: a remark shown in the report.
        skip: when non-empty, the call is not run and its row says why (its cost at these inputs).
        abs_tol, rel_tol: the accuracy the peer's method states for a ``value`` (a root finder's ``xtol`` and
            ``rtol``): a value within abs_tol + rel_tol·|value| of the enclosure is ``inside``; an upper bound
            above the enclosure by that much is ``inside`` too, but below it is ``unsafe`` whatever the tolerance.
        accuracy_on: the accuracy a calibrator states on *another* quantity, ``(quantity, param, target, abs_tol)``:
            its answer x is meant to satisfy |quantity(inputs, param=x) − inputs[target]| <= abs_tol (autodp's
            ``ana_gaussian_calibrator`` stops its search when δ(σ) is within ``tol=1e-12`` of the target δ). It
            changes no verdict; a row outside the enclosure says whether the answer is within it, proved.
    """

    function: str
    claim: str
    run: Callable[[], Any]
    truth: tuple[Mapping[str, Any], ...] | None = None
    note: str = ""
    skip: str = ""
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    accuracy_on: tuple[str, str, str, float] | None = None


def not_run(function: str, claim: str, why: str) -> Call:
    """A call listed but not run (a row ``skipped`` with ``why``)."""
    return Call(function, claim, lambda: None, skip=why)


@dataclass
class Peer:
    """A peer library.

    Attributes:
        name: the name rows carry (``dp-accounting``).
        dist: its distribution name on the package index.
        module: the module whose import says it is usable.
        calls: ``calls(case) -> list[Call]``.
        install: how to get it (shown when it is missing).
    """

    name: str
    dist: str
    module: str
    calls: Callable[[Any], list[Call]]
    install: str = ""
    _status: tuple[str | None, str] | None = field(default=None, repr=False)

    def status(self) -> tuple[str | None, str]:
        """``(version, "")`` when importable, else ``(None, why)`` with the import error's one-line message."""
        if self._status is None:
            try:
                importlib.import_module(self.module)
            except Exception as exc:  # a broken install is reported like a missing one, with its message
                why = " ".join(f"{type(exc).__name__}: {exc}".split())
                self._status = (None, f"not installed ({why[:160]}); {self.install or 'pip install ' + self.dist}")
            else:
                try:
                    version = importlib.metadata.version(self.dist)
                except importlib.metadata.PackageNotFoundError:
                    version = "unknown"
                self._status = (version, "")
        return self._status
