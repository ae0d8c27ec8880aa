"""Opacus' habits, certified: a privacy accountant and a noise calibration for DP-SGD with a proved answer.

:class:`CertifiedAccountant` has the interface of Opacus' accountants (``opacus.accountants.IAccountant``):
``step(noise_multiplier=, sample_rate=)`` after every optimiser step, ``get_epsilon(delta)`` for the ε spent so far,
``history`` as Opacus keeps it (a list of ``(noise_multiplier, sample_rate, num_steps)``), ``mechanism()``,
``len()``, ``state_dict()``/``load_state_dict()`` and ``get_optimizer_hook_fn(sample_rate)``. Its ``get_epsilon``
returns the upper end of a **certified** enclosure of the tight ε, rounded up to a double: a number that is proved
to be at least the true ε of the run, not an estimate. :func:`get_noise_multiplier` takes the arguments of Opacus'
function of that name and returns a σ whose ε is proved to be at most the target.

What is certified is DP-SGD as Opacus accounts it: each step the Poisson-subsampled Gaussian mechanism with
sampling rate q (each record in the batch independently with probability q), noise multiplier σ (the noise's
standard deviation over the clipping norm) and **add/remove** neighbouring datasets. Opacus accounts every run
that way, also one trained with ``poisson_sampling=False``; for fixed-size or shuffled batches, or replace-one
neighbours, this number is not the run's ε (see ``dpcert dpsgd``).

**How the history is certified.** Each segment is one (σ, q) repeated k times. Steps with the same exact (σ, q),
wherever they are in the history, are one power of the step's privacy-loss distribution: composition is a product
of independent steps, and a product does not depend on the order of its factors. Each distinct (σ, q) is composed
by the PLD engine (:func:`dpcert.pld.compose_directions`, both neighbouring directions), the different ones are
combined on one grid (:func:`dpcert.pld.combine`) direction by direction — the *remove* direction of every step
is one fixed pair of datasets, so the directions are never mixed — and ε(δ) is the certified inversion of the
larger direction's δ(ε) (:func:`dpcert.pld.eps_enclosure`). This is the composition of a schedule fixed before
training (as Opacus' accountants assume too): σ and q may change from step to step, but not as a function of the
run's own noisy outputs. A history of one distinct (σ, q) is answered by :func:`dpcert.gaussian.pld.dpsgd_eps`
itself. Otherwise the first grid is the engine's width model aimed at ``rel_tol``
(:func:`dpcert.pld.accountant.eps_resolution`, as for a schedule), so that one run usually reaches the width; the grid
is refined from there until the enclosure is ``rel_tol`` wide or the time budget ``seconds`` would be exceeded; either
way the enclosure holds the truth, and ``get_epsilon`` returns its upper end.

**Floats are exact.** Opacus passes doubles: ``sample_rate = 1/len(data_loader)`` is the double nearest 1/m, and
that double is what is certified (a string ``"1/235"`` or a ``Fraction`` is taken exactly). Segments are merged only
when their values are exactly equal, as Opacus does.

**Using it with Opacus** (which needs PyTorch; this module imports neither until :func:`register` is called)::

    import dpcert.opacus
    dpcert.opacus.register()                       # makes "dpcert" an Opacus accountant name
    engine = PrivacyEngine(accountant="dpcert")    # or: engine.accountant = dpcert.opacus.CertifiedAccountant()

References:
    Opacus: A. Yousefpour et al., "Opacus: User-Friendly Differential Privacy Library in PyTorch", 2021
    (arXiv 2109.12298) [YSS+21]. The accountant's mathematics: :mod:`dpcert.gaussian.pld`, :mod:`dpcert.pld`.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from copy import deepcopy
from fractions import Fraction
from typing import Any

from dpcert.arith.ball import Enclosure
from dpcert.arith.rounding import fraction_to_float
from dpcert.core.params import integer, probability, real
from dpcert.errors import InvalidParameter

__all__ = [
    "CertifiedAccountant",
    "get_noise_multiplier",
    "register",
    "history_eps",
    "MECHANISM",
]

#: The name the accountant is registered under in Opacus (``PrivacyEngine(accountant="dpcert")``).
MECHANISM = "dpcert"

#: Keyword arguments Opacus' own accountants take for their numerical accuracy (RDP's ``alphas``, PRV's
#: ``eps_error`` and ``delta_error``, GDP's ``poisson``): accepted so that a call written for them runs, and
#: ignored, because a certified enclosure needs no such setting (``poisson=False`` is refused: it asks for another
#: sampling scheme).
_OPACUS_ACCURACY_KWARGS = ("alphas", "eps_error", "delta_error")

_NOISE = real("noise_multiplier", 0, lo_open=True, doc="noise multiplier sigma > 0")
_RATE = real("sample_rate", 0, 1, lo_open=True, doc="Poisson sampling rate in (0, 1]")
_DELTA = probability("delta", zero=False, doc="target delta in (0, 1)")
_TARGET_EPS = real("target_epsilon", 0, lo_open=True, doc="target epsilon > 0")
_TARGET_DELTA = probability("target_delta", zero=False, doc="target delta in (0, 1)")
_EPOCHS = real("epochs", 0, lo_open=True, doc="number of epochs > 0")


def _steps_param() -> Any:
    from dpcert.gaussian.pld import MAX_STEPS

    return integer("num_steps", 1, MAX_STEPS, doc="number of steps of one segment")


def _stages(history: Iterable[Any]) -> list[tuple[Fraction, Fraction, int]]:
    """The history's distinct exact (q, σ) with their total step counts, in order of first appearance.

    Raises:
        InvalidParameter: a segment that is not ``(noise_multiplier, sample_rate, num_steps)`` with σ > 0,
            q in (0, 1] and a whole number of steps >= 1 (the message names the segment).
    """
    steps_param = _steps_param()
    totals: dict[tuple[Fraction, Fraction], int] = {}
    for i, seg in enumerate(history):
        if not isinstance(seg, (tuple, list)) or len(seg) != 3:
            raise InvalidParameter(
                f"history[{i}]", seg, "a tuple (noise_multiplier, sample_rate, num_steps), as Opacus keeps it"
            )
        sigma, q, k = seg
        try:
            s = _NOISE.parse(sigma).value
            r = _RATE.parse(q).value
            n = int(steps_param.parse(k))
        except InvalidParameter as exc:
            raise InvalidParameter(f"history[{i}]", seg, f"a valid segment ({exc})") from None
        totals[(r, s)] = totals.get((r, s), 0) + n
    return [(r, s, k) for (r, s), k in totals.items()]


def history_eps(
    history: Iterable[Any],
    delta: Any,
    *,
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Callable[[str], None] | None = None,
) -> Any:
    """Certified enclosure of the ε(δ) of a DP-SGD run given as Opacus' history (Poisson sampling, add/remove).

    Args:
        history: ``[(noise_multiplier, sample_rate, num_steps), ...]`` (exact values: a float is its binary value).
        delta: the target δ in (0, 1).
        rel_tol: the relative width at which the refinement stops.
        seconds: the time budget (the refinement stops before a run that would exceed it).
        progress: a callable receiving one line per stage of the work, or ``None``.

    Returns:
        A :class:`dpcert.pld.PldResult`: the certified enclosure of ε, the resolution, whether ``rel_tol`` was
        reached and what limited it. An empty history is ε = 0 exactly.

    Raises:
        InvalidParameter: a bad segment or δ, or a noise multiplier whose one-step loss range fits no grid.

    >>> history_eps([(1, 0.01, 10)], "1e-3").enclosure.short(4)
    '[0.1036, 0.1038]'
    """
    from dpcert.gaussian.pld import MIN_Q, MIN_SIGMA, dpsgd_eps
    from dpcert.gaussian.schedule import stages_start
    from dpcert.gaussian.sgm_loss import directions
    from dpcert.pld import PldResult, compose_directions_mixed, eps_enclosure, refining
    from dpcert.pld.accountant import EPS_SEARCH_TOL

    d = _DELTA.parse(delta).value
    stages = _stages(history)
    if sum((k * q for q, _, k in stages), Fraction(0)) <= d:
        # ε = 0 exactly, with no grid: one step's pair in either direction is (1 − q)Q + qR against Q, at most q
        # apart in total variation; the product of all steps is at most Σ k_i q_i apart (total variation is
        # subadditive over products), and δ(0) is that distance, so δ(0) <= δ and the least ε >= 0 is 0
        return PldResult(Enclosure(Fraction(0), Fraction(0)), 0, 0.0, True, ())
    for q, s, _ in stages:
        if q < MIN_Q:
            raise InvalidParameter("sample_rate", float(q), "a sampling rate >= 2^-1000 for the PLD accountant")
        if s < MIN_SIGMA:
            raise InvalidParameter("noise_multiplier", float(s), "a noise multiplier >= 1e-150 for the PLD accountant")
    if len(stages) == 1:  # one (σ, q): the homogeneous run, exactly dpsgd_eps (its grid, its answer)
        q, s, k = stages[0]
        return dpsgd_eps(q, s, k, d, rel_tol=rel_tol, seconds=seconds, progress=progress)
    # the dropped tails add at most their mass to δ_up: a thousandth of the width asked for, relative to the target,
    # is all they may take from the first run on (as in dpsgd_eps); the start is a schedule's (the engine's width
    # model aimed at rel_tol over all steps; every stage's one-step range fits it)
    tail0 = float(d) * rel_tol / 1000
    n0 = stages_start(stages, "poisson", "add_remove", tail0, rel_tol)
    search_tol = min(rel_tol, EPS_SEARCH_TOL)

    def solve(n: int, tail: float) -> Enclosure:
        # every stage in one float composition per direction (each stage's transform raised to its step count)
        parts = [(list(directions(q, s)), k) for q, s, k in stages]
        comps = compose_directions_mixed(parts, n, tail, progress, method="fft", delta=d)
        return eps_enclosure(comps, d, search_tol)

    def tail_of(enc: Enclosure, prev: float) -> float:
        return min(prev, float(d) * rel_tol / 1000)

    return refining(solve, n0, rel_tol, seconds, progress, tail_of, tail0)


class CertifiedAccountant:
    """An Opacus privacy accountant whose ε is certified (Poisson sampling, add/remove neighbours).

    Args:
        rel_tol: the relative width of the ε enclosure at which the refinement stops (default 1 %: the returned
            ε is at most about 1 % above the tight ε, and never below it).
        seconds: the time budget of one ``get_epsilon`` (the enclosure is valid whatever it stops at).

    Attributes:
        history: Opacus' history, ``[(noise_multiplier, sample_rate, num_steps), ...]``; consecutive steps with the
            same values extend the last segment. It may be assigned directly (Opacus' ``get_noise_multiplier``
            does): every answer is recomputed from it.

    >>> acc = CertifiedAccountant()
    >>> for _ in range(10):
    ...     acc.step(noise_multiplier=1.0, sample_rate=0.01)
    >>> acc.history, len(acc), acc.mechanism()
    ([(1.0, 0.01, 10)], 1, 'dpcert')
    >>> acc.get_epsilon(1e-3)
    0.1037...
    """

    def __init__(self, *, rel_tol: float = 0.01, seconds: float = 60.0) -> None:
        if not (isinstance(rel_tol, (int, float)) and 0 < rel_tol < 1):
            raise InvalidParameter("rel_tol", rel_tol, "a relative width in (0, 1)")
        if not (isinstance(seconds, (int, float)) and 0 < seconds < math.inf):
            raise InvalidParameter("seconds", seconds, "a positive finite time budget in seconds")
        self.history: list[tuple[Any, Any, int]] = []
        self.rel_tol = float(rel_tol)
        self.seconds = float(seconds)
        self._cache: dict[tuple[Any, ...], Any] = {}

    # ------------------------------------------------------------------------------------ Opacus' interface

    def step(self, *, noise_multiplier: Any, sample_rate: Any) -> None:
        """Record one optimiser step (both arguments are checked here, so that a bad one fails at once)."""
        _NOISE.parse(noise_multiplier)
        _RATE.parse(sample_rate)
        if self.history:
            last_sigma, last_q, k = self.history[-1]
            if last_sigma == noise_multiplier and last_q == sample_rate:
                self.history[-1] = (last_sigma, last_q, k + 1)
                return
        self.history.append((noise_multiplier, sample_rate, 1))

    def get_epsilon(self, delta: Any, *args: Any, poisson: bool = True, **kwargs: Any) -> float:
        """The ε spent so far at ``delta``: the upper end of the certified enclosure, rounded up to a double.

        Opacus' accuracy arguments (``alphas``, ``eps_error``, ``delta_error``) are accepted and ignored.

        Raises:
            InvalidParameter: a bad δ or history segment, ``poisson=False`` (not Poisson sampling: not what this
                accountant certifies) or an unknown keyword.
        """
        if args:
            raise InvalidParameter("args", args, "no positional argument after delta (Opacus passes keywords)")
        if poisson is not True:
            raise InvalidParameter(
                "poisson",
                poisson,
                "True: this accountant certifies Poisson sampling; fixed-size or shuffled batches are another "
                "mechanism (dpcert dpsgd)",
            )
        unknown = sorted(set(kwargs) - set(_OPACUS_ACCURACY_KWARGS))
        if unknown:
            raise InvalidParameter(unknown[0], kwargs[unknown[0]], f"one of {', '.join(_OPACUS_ACCURACY_KWARGS)}")
        return fraction_to_float(self.epsilon(delta).hi, "up")

    def __len__(self) -> int:
        """The number of history segments (what Opacus' accountants return)."""
        return len(self.history)

    @classmethod
    def mechanism(cls) -> str:
        """The accountant's name in Opacus' registry: ``"dpcert"``."""
        return MECHANISM

    def get_optimizer_hook_fn(self, sample_rate: Any) -> Callable[[Any], None]:
        """The callback Opacus attaches to its ``DPOptimizer``: one :meth:`step` per optimiser step, with the
        optimiser's noise multiplier and ``sample_rate`` times its accumulated iterations (as Opacus does)."""

        def hook_fn(optim: Any) -> None:
            self.step(noise_multiplier=optim.noise_multiplier, sample_rate=sample_rate * optim.accumulated_iterations)

        return hook_fn

    def state_dict(self, destination: Any = None) -> Any:
        """``{"history": ..., "mechanism": "dpcert"}``, as Opacus' accountants save themselves."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore a :meth:`state_dict` (its mechanism must be ``"dpcert"``)."""
        if not state_dict or "history" not in state_dict or "mechanism" not in state_dict:
            raise InvalidParameter("state_dict", state_dict, 'a mapping with "history" and "mechanism"')
        if state_dict["mechanism"] != self.mechanism():
            raise InvalidParameter("state_dict", state_dict["mechanism"], f"the state of a {MECHANISM!r} accountant")
        self.history = list(state_dict["history"])

    # ------------------------------------------------------------------------------------- certified answers

    def result(self, delta: Any, *, progress: Callable[[str], None] | None = None) -> Any:
        """The certified ε at ``delta`` with how it was reached (a :class:`dpcert.pld.PldResult`)."""
        key = (tuple(tuple(s) if isinstance(s, list) else s for s in self.history), str(delta), repr(delta))
        if key not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = history_eps(
                self.history, delta, rel_tol=self.rel_tol, seconds=self.seconds, progress=progress
            )
        return self._cache[key]

    def epsilon(self, delta: Any) -> Enclosure:
        """The certified enclosure [lo, hi] of the tight ε at ``delta`` (its safe end is ``hi``)."""
        return self.result(delta).enclosure


def _steps_of(sample_rate: Fraction, epochs: Any, steps: Any) -> int:
    if (epochs is None) == (steps is None):
        raise InvalidParameter("epochs", epochs, "exactly one of epochs and steps")
    if steps is not None:
        return int(_steps_param().parse(steps))
    e = _EPOCHS.parse(epochs).value
    # ⌈epochs / q⌉ exactly: Opacus truncates int(epochs / sample_rate) in floats, which for q = 1/m given as a
    # double can count one step fewer than the epochs·m steps a loop over the data loader runs
    k = math.ceil(e / sample_rate)
    return int(_steps_param().parse(k))


def get_noise_multiplier(
    *,
    target_epsilon: Any,
    target_delta: Any,
    sample_rate: Any,
    epochs: Any = None,
    steps: Any = None,
    rel_tol: float = 0.01,
    seconds: float = 600.0,
    progress: Callable[[str], None] | None = None,
    **kwargs: Any,
) -> float:
    """A noise multiplier σ whose DP-SGD run is proved (target_epsilon, target_delta)-DP, as a double.

    The arguments are Opacus' (``opacus.accountants.utils.get_noise_multiplier``); ``epochs`` gives
    ⌈epochs / sample_rate⌉ steps (computed exactly). The certified calibration
    (:func:`dpcert.gaussian.pld.dpsgd_sigma`) brackets the least such σ in [σ_lo, σ_hi] with δ(ε; σ_hi) <= δ
    proved; σ_hi rounded up is returned (δ is non-increasing in σ, so the rounding keeps the proof). ``rel_tol`` is
    the bracket's relative width at which it stops: the σ returned is at most about that much above the least one.
    Opacus' ``accountant`` and ``epsilon_tolerance`` are accepted and ignored.

    Raises:
        InvalidParameter: a bad input, neither or both of epochs and steps, or an unknown keyword.
    """
    from dpcert.gaussian.pld import dpsgd_sigma

    unknown = sorted(set(kwargs) - {"accountant", "epsilon_tolerance", *_OPACUS_ACCURACY_KWARGS})
    if unknown:
        raise InvalidParameter(unknown[0], kwargs[unknown[0]], "an argument of Opacus' get_noise_multiplier")
    eps = _TARGET_EPS.parse(target_epsilon).value
    delta = _TARGET_DELTA.parse(target_delta).value
    q = _RATE.parse(sample_rate).value
    k = _steps_of(q, epochs, steps)
    r = dpsgd_sigma(q, k, eps, delta, rel_tol=rel_tol, seconds=seconds, progress=progress)
    return fraction_to_float(r.enclosure.hi, "up")


def register() -> type:
    """Make ``"dpcert"`` an accountant name of Opacus (``PrivacyEngine(accountant="dpcert")``) and
    :class:`CertifiedAccountant` a virtual subclass of ``opacus.accountants.IAccountant``. Imports Opacus (and so
    PyTorch); calling it again does nothing.

    Raises:
        ModuleNotFoundError: Opacus is not installed (``pip install "dpcert[opacus]"``).
    """
    from opacus.accountants import IAccountant, create_accountant, register_accountant

    IAccountant.register(CertifiedAccountant)
    try:
        register_accountant(MECHANISM, CertifiedAccountant)
    except ValueError:  # the name is taken: by this class (a second call) it is fine, by another one it is not
        if type(create_accountant(MECHANISM)) is not CertifiedAccountant:
            raise
    return CertifiedAccountant
