"""A certified privacy accountant in dp-accounting's habits: compose events, then ask for ε(δ) or δ(ε).

``Accountant(neighboring="add_remove")`` keeps a ledger of events (:mod:`dpcert.accounting.events`, or
dp-accounting's own ``DpEvent`` objects, converted as they are); :meth:`Accountant.epsilon` and
:meth:`Accountant.delta` return an :class:`AccountingResult`: a certified enclosure (exact rational ends), its safe
end one call away as a float (:attr:`AccountingResult.safe`), the neighbouring relation and the method used.

**Flattening.** ``SelfComposedDpEvent`` multiplies counts, ``ComposedDpEvent`` lists its events, ``NoOpDpEvent``
drops out; equal events are merged into one leaf with their counts added (``compose(e, count=3)``, three
``compose(e)`` calls and ``SelfComposedDpEvent(e, 3)`` are one ledger). Trivial forms are read first: a Gaussian
or Laplace event with noise multiplier 0 is non-private, ``PoissonSampledDpEvent`` with rate 0 is a no-op and with
rate 1 is its event. A non-private event makes δ(ε) = 1 at every ε (exact) and ε(δ) infinite (refused).

**Dispatch.** Each leaf is given to a *certifier*, in this order:

1. PLD, where a dominating pair is known: :data:`PLD_CERTIFIERS` (event class name → function of the event and
   the relation returning the directions, a list of :class:`~dpcert.pld.PrivacyLoss`, or ``None``), then the
   mechanism module :mod:`dpcert.accounting.losses` (``directions(event, neighboring)``) when present;
2. certified RDP, when some leaf has no PLD: the module :mod:`dpcert.accounting.rdp` (``rdp_curve(event,
   neighboring)`` for every leaf, then ``rdp_epsilon`` / ``rdp_delta``) when present;
3. otherwise the accountant refuses in one line naming the event (:class:`UnsupportedEventError`).

**Which ends are the mechanism's.** The upper end always bounds the mechanism's ε or δ. The lower end does when
every leaf's pair is attained by some pair of neighbouring datasets (tight): each certifier says so where it builds
the pair (``register_pld(..., tight=True)``, :func:`dpcert.accounting.losses.dominating_pairs`; the reasons, event
by event, in :mod:`dpcert.accounting.losses`), and a composition of attained pairs is attained (one fixed ordered
pair of datasets realises a direction at every step). An RDP answer, a ledger holding ``NonPrivateDpEvent`` and a
refused one are never tight. The answer carries it (:attr:`AccountingResult.lower_end_bounds_mechanism`, the
``--json`` key of the same name), and :meth:`Accountant.lower_end_bounds_mechanism` says it without composing.

**Directions.** A certifier returns one direction when both orders of a neighbouring pair have one privacy loss
distribution (the Gaussian and Laplace: x ↦ Δ − x swaps the pair), or two, ``[remove, add]`` under add/remove and
``[(P, Q), (Q, P)]`` under replace-one. A fixed ordered pair of datasets is "remove" at every step, so each
direction is composed over all steps on its own (a one-direction leaf serves both) and δ is the larger of the two;
never the maximum per step (dp-accounting does the same).

**Heterogeneous composition.** Every leaf is discretised at one resolution n (grid cells per unit of loss), and
each direction of the whole ledger is one float composition (:func:`dpcert.pld.compose_directions_mixed`): every
leaf's transform raised to its ``count``, the product, one inverse FFT, one tilt for the ε or δ asked about, with the
round-off bound of a product of powers proved in :mod:`dpcert.pld.fftcompose`. A direction the float path declines
(a tilt or window past the float range) is composed by the arb path: each leaf ``count`` times by
:func:`dpcert.pld.compose` (binary powering), joined by :func:`dpcert.pld.combine` (error bookkeeping proved in
:mod:`dpcert.pld.compose`); so is every direction of :meth:`Accountant.enclosure_at_level`, the fixed-grid answer
behind a quantity's ball evaluator. δ(ε) and ε(δ) are the engine's enclosures (:func:`dpcert.pld.delta_enclosure`,
:func:`dpcert.pld.eps_enclosure`), refined by doubling n within the time budget (:func:`dpcert.pld.refining`).

**Neighbouring relations** (sensitivities by dp-accounting's convention: a noise multiplier is the noise scale over
the norm bound C of one record's contribution):

* add/remove: a record's presence moves a sum by at most C: the Gaussian's pair is N(1, σ²) against N(0, σ²),
  Laplace's Lap(1, b) against Lap(0, b), the Poisson-subsampled Gaussian's the mixture pairs of
  :mod:`dpcert.gaussian.sgm_loss`;
* replace-one: a replaced record moves a sum by up to 2C (v against −v), so the Gaussian's pair is N(2, σ²) against
  N(0, σ²), which is the add/remove pair at σ/2 (x ↦ x/2 is a bijection), and Laplace's is Lap(2, b) against
  Lap(0, b). The Poisson-subsampled Gaussian under replace-one has a different pair (a mixture on both sides);
  it is the mechanism module's (refused until it is there).

References:
    dp-accounting 0.6 (``PrivacyAccountant``, ``PLDAccountant``: the event language, the two directions); the
    engine's construction and proofs: :mod:`dpcert.pld`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpcert.accounting.events import (
    ComposedDpEvent,
    DpEvent,
    GaussianDpEvent,
    LaplaceDpEvent,
    NonPrivateDpEvent,
    NoOpDpEvent,
    PoissonSampledDpEvent,
    RandomizedResponseDpEvent,
    SelfComposedDpEvent,
    as_event,
    number_text,
)
from dpcert.arith.ball import Enclosure
from dpcert.arith.exact import fraction_to_decimal, parse_rational
from dpcert.core.vocabulary import NEIGHBORING
from dpcert.errors import InvalidParameter
from dpcert.pld.accountant import (
    EPS_SEARCH_TOL,
    START_CELLS,
    TAIL0,
    PldResult,
    Progress,
    delta_enclosure,
    eps_enclosure,
    eps_resolution,
    fitting_resolution,
    refining,
    resolution_for,
)
from dpcert.pld.compose import Composed
from dpcert.pld.discretise import GridTooLarge
from dpcert.pld.fftcompose import FloatComposed
from dpcert.pld.loss import PrivacyLoss

__all__ = [
    "NEIGHBORING",
    "Accountant",
    "AccountingResult",
    "UnsupportedEventError",
    "PLD_CERTIFIERS",
    "register_pld",
    "flatten",
    "leaf_directions",
    "leaf_pairs",
]


#: The most leaves (distinct events after flattening) one ledger may hold.
MAX_LEAVES = 10**4
#: The largest total number of steps (the composed window grows like the square root of it).
MAX_STEPS = 10**9

Directions = list[PrivacyLoss]
PldCertifier = Callable[[DpEvent, str], "Directions | None"]

#: PLD certifiers by event class name: each returns the event's directions under a relation, or None when it knows
#: no dominating pair there (the next certifier is then asked).
PLD_CERTIFIERS: dict[str, PldCertifier] = {}
#: The event class names whose registered certifier's directions are attained by some pair of neighbouring
#: datasets wherever it gives them (``register_pld(..., tight=True)``); any other registered certifier's are
#: taken as proved upper bounds only.
PLD_TIGHT: set[str] = set()


def register_pld(*names: str, tight: bool = False) -> Callable[[PldCertifier], PldCertifier]:
    """Register a PLD certifier for the event classes named (a decorator); ``tight``: every pair it returns is
    attained by some pair of neighbouring datasets (:func:`leaf_pairs`), which a certifier must prove to say."""

    def deco(fn: PldCertifier) -> PldCertifier:
        for name in names:
            PLD_CERTIFIERS[name] = fn
            if tight:
                PLD_TIGHT.add(name)
            else:
                PLD_TIGHT.discard(name)
        return fn

    return deco


class UnsupportedEventError(InvalidParameter):
    """No certified method covers an event under the relation asked: refused in one line naming it.

    (dp-accounting's accountants raise their ``UnsupportedEventError`` the same way.)
    """

    def __init__(self, event: DpEvent, neighboring: str, why: str) -> None:
        super().__init__("event", _describe(event), why)
        Exception.__init__(self, f"cannot certify {_describe(event)} under {neighboring} neighbours: {why}")


def _describe(event: DpEvent, limit: int = 160) -> str:
    """``GaussianDpEvent(noise_multiplier=1.1)``: the event with its fields as exact text, cut to ``limit``."""
    import json

    data = event.to_json()
    name = data.pop("type")
    parts = [f"{k}={v if isinstance(v, str) else json.dumps(v, separators=(',', ':'))}" for k, v in data.items()]
    text = f"{name}({', '.join(parts)})"
    return text if len(text) <= limit else text[: limit - 5] + "…)"


def _check_neighboring(neighboring: str) -> str:
    if neighboring not in NEIGHBORING:
        raise InvalidParameter("neighboring", neighboring, "add_remove or replace_one")
    return neighboring


# ----------------------------------------------------------------------------------------------- flattening


def _simplify(event: DpEvent) -> DpEvent:
    """An event's trivial forms read as what they are (no-op, non-private, the inner event)."""
    if isinstance(event, (GaussianDpEvent, LaplaceDpEvent)) and event.noise_multiplier == 0:
        return NonPrivateDpEvent()
    if isinstance(event, RandomizedResponseDpEvent):
        if event.noise_parameter == 0:
            return NonPrivateDpEvent()
        if event.noise_parameter == 1 or event.num_buckets == 1:
            return NoOpDpEvent()
    if isinstance(event, PoissonSampledDpEvent):
        inner = _simplify(event.event)
        if event.sampling_probability == 0 or isinstance(inner, NoOpDpEvent):
            return NoOpDpEvent()
        if event.sampling_probability == 1:
            return inner
        if inner is not event.event:
            return PoissonSampledDpEvent(event.sampling_probability, inner)
    return event


def flatten(ledger: list[tuple[DpEvent, int]]) -> list[tuple[DpEvent, int]]:
    """The ledger's leaves with their counts, in order of first appearance, equal leaves merged, no-ops dropped
    (a non-private leaf is kept once).

    >>> from dpcert.accounting.events import GaussianDpEvent as G
    >>> flatten([(SelfComposedDpEvent(ComposedDpEvent([G(1), G(2)]), 3), 1), (G(1), 2)])
    [(GaussianDpEvent(noise_multiplier=Fraction(1, 1)), 5), (GaussianDpEvent(noise_multiplier=Fraction(2, 1)), 3)]
    """
    counts: dict[DpEvent, int] = {}

    def walk(ev: DpEvent, k: int, depth: int) -> None:
        if depth > 64:
            raise InvalidParameter("event", "<nested too deep>", "events nested at most 64 deep")
        if k == 0:
            return
        if isinstance(ev, SelfComposedDpEvent):
            walk(ev.event, k * ev.count, depth + 1)
            return
        if isinstance(ev, ComposedDpEvent):
            for e in ev.events:
                walk(e, k, depth + 1)
            return
        ev = _simplify(ev)
        if isinstance(ev, NoOpDpEvent):
            return
        if isinstance(ev, NonPrivateDpEvent):
            k = 1
        counts[ev] = counts.get(ev, 0) + k
        if len(counts) > MAX_LEAVES:
            raise InvalidParameter("events", f"<more than {MAX_LEAVES} distinct events>", f"at most {MAX_LEAVES}")

    for ev, k in ledger:
        walk(ev, k, 0)
    total = sum(counts.values())
    if total > MAX_STEPS:
        raise InvalidParameter("count", total, f"at most {MAX_STEPS} steps in all")
    return list(counts.items())


# ----------------------------------------------------------------------------------------------- certifiers


def _shift(neighboring: str) -> int:
    """A sum's largest move, in units of the norm bound C: 1 (add/remove), 2 (replace-one: v against −v)."""
    return 1 if neighboring == "add_remove" else 2


def _check_grid_inputs(q: Fraction, sigma: Fraction) -> None:
    """Refuse, before any work, what the Gaussian losses' float64 range choice cannot represent (one line naming
    it): the same limits as ``dpsgd.*`` (:data:`dpcert.gaussian.pld.MIN_SIGMA`, :data:`dpcert.gaussian.pld.MIN_Q`)."""
    from dpcert.gaussian.pld import MIN_Q, MIN_SIGMA

    if sigma < MIN_SIGMA:
        shown = fraction_to_decimal(sigma, 4, "nearest")
        raise InvalidParameter(
            "noise_multiplier", shown, "a noise multiplier >= 1e-150 (divided by 2 under replace_one): one step's "
            "loss range, about 1/(2 sigma^2), fits no grid"
        )  # fmt: skip
    if 0 < q < MIN_Q:
        shown = fraction_to_decimal(q, 4, "nearest")
        raise InvalidParameter(
            "sampling_probability", shown, "a rate >= 2^-1000 (the grid's range is chosen in float64)"
        )


@register_pld("GaussianDpEvent", tight=True)
def _gaussian(event: DpEvent, neighboring: str) -> Directions | None:
    """N(Δ, σ²) against N(0, σ²), Δ = 1 or 2: the shift-1 pair at σ/Δ (one direction: x ↦ Δ − x swaps it; tight:
    the output laws at a worst pair of neighbours)."""
    from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss

    assert isinstance(event, GaussianDpEvent)
    _check_grid_inputs(Fraction(1), event.noise_multiplier / _shift(neighboring))
    loss = SubsampledGaussianLoss("remove", Fraction(1), event.noise_multiplier / _shift(neighboring))
    loss.name = "gaussian"
    return [loss]


@register_pld("LaplaceDpEvent", tight=True)
def _laplace(event: DpEvent, neighboring: str) -> Directions | None:
    """Lap(Δ, b) against Lap(0, b), Δ = 1 or 2 (one direction: x ↦ Δ − x swaps it; tight, as the Gaussian's)."""
    from dpcert.laplace.loss import LaplaceLoss

    assert isinstance(event, LaplaceDpEvent)
    return [LaplaceLoss(event.noise_multiplier, Fraction(_shift(neighboring)))]


@register_pld("PoissonSampledDpEvent", tight=True)
def _poisson(event: DpEvent, neighboring: str) -> Directions | None:
    """The Poisson-subsampled Gaussian under add/remove: remove and add (:mod:`dpcert.gaussian.sgm_loss`); tight,
    the output laws when the other records are left out of the sample (None for everything else, which the
    mechanism module answers with its own tightness)."""
    from dpcert.gaussian.sgm_loss import directions

    assert isinstance(event, PoissonSampledDpEvent)
    inner = event.event
    if neighboring != "add_remove" or not isinstance(inner, GaussianDpEvent):
        return None
    _check_grid_inputs(event.sampling_probability, inner.noise_multiplier)
    return list(directions(event.sampling_probability, inner.noise_multiplier))


def _mechanism_module() -> Any:
    """The mechanism module :mod:`dpcert.accounting.losses` (a function, so tests can stand in for it)."""
    from dpcert.accounting import losses

    return losses


def _rdp_module() -> Any:
    """The certified RDP module :mod:`dpcert.accounting.rdp` (a function, so tests can stand in for it)."""
    from dpcert.accounting import rdp

    return rdp


def leaf_pairs(event: DpEvent, neighboring: str) -> tuple[Directions, bool] | None:
    """The PLD directions of one leaf (a flattened event) under a relation and whether they are attained by some
    pair of neighbouring datasets (tight), or None when no dominating pair is known: :data:`PLD_CERTIFIERS` first
    (tight where registered so, :data:`PLD_TIGHT`), then the mechanism module (its ``dominating_pairs``; a module
    with ``directions`` only is taken as not tight)."""
    name = type(event).__name__
    fn = PLD_CERTIFIERS.get(name)
    out = fn(event, neighboring) if fn is not None else None
    tight = name in PLD_TIGHT
    if out is None:
        mech = _mechanism_module()
        if mech is not None:
            if hasattr(mech, "dominating_pairs"):
                found = mech.dominating_pairs(event, neighboring)
                out, tight = (None, False) if found is None else (found.directions, found.tight)
            else:
                out, tight = mech.directions(event, neighboring), False
    if out is None:
        return None
    if not 1 <= len(out) <= 2:
        raise ValueError(f"a certifier gave {len(out)} directions for {_describe(event)} (one or two expected)")
    return out, bool(tight)


def leaf_directions(event: DpEvent, neighboring: str) -> Directions | None:
    """The PLD directions of one leaf (a flattened event) under a relation, or None when no dominating pair is
    known (:func:`leaf_pairs` without whether they are tight)."""
    found = leaf_pairs(event, neighboring)
    return None if found is None else found[0]


def _refusal(event: DpEvent, neighboring: str) -> UnsupportedEventError:
    """One line: why neither a dominating pair (:func:`dpcert.accounting.losses.why_none`) nor a certified RDP
    curve (:func:`dpcert.accounting.rdp.rdp_refusal`) covers the event under the relation."""
    if type(event).__name__ == "NonPrivateDpEvent":
        return UnsupportedEventError(event, neighboring, "it is not private: eps is infinite at every delta < 1")
    mech, rdp = _mechanism_module(), _rdp_module()
    reasons = []
    if mech is not None:
        reasons.append(mech.why_none(event, neighboring))
    if rdp is not None:
        reasons.append(rdp.rdp_refusal(event, neighboring) or "")
    reasons = list(dict.fromkeys(r for r in reasons if r))
    why = "; ".join(reasons) or "no dominating pair (PLD) and no certified RDP bound under this relation"
    return UnsupportedEventError(event, neighboring, why)


# ----------------------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class AccountingResult:
    """A certified ε(δ) or δ(ε) of a ledger.

    Attributes:
        enclosure: the certified enclosure (exact rational ends; ``hi`` is the safe end).
        quantity: ``"epsilon"`` or ``"delta"``. target: the δ (for ε) or ε (for δ) given, exact.
        neighboring: ``"add_remove"`` or ``"replace_one"``: the relation every event was certified under.
        method: ``"pld"`` (dominating pairs), ``"rdp"`` (certified Rényi bound) or ``"exact"`` (no grid:
            nothing private, or a non-private event).
        resolution: the PLD grid's cells per unit of loss (0 without a grid). seconds: the time taken.
        reached: whether ``rel_tol`` was reached. limited_by: ``"width"``, ``"time"`` or ``"grid"``.
        lower_end_bounds_mechanism: whether the enclosure's lower end bounds the *mechanism's* ε or δ from below,
            not only the dominating pairs' (every pair composed is attained by some pair of neighbouring datasets;
            :meth:`Accountant.lower_end_bounds_mechanism`). The upper end always bounds the mechanism's from
            above; when this is false, a smaller value than ``lo`` may still be the truth.
    """

    enclosure: Enclosure
    quantity: str
    target: Fraction
    neighboring: str
    method: str
    resolution: int = 0
    seconds: float = 0.0
    reached: bool = True
    limited_by: str = "width"
    lower_end_bounds_mechanism: bool = False

    @property
    def lo(self) -> Fraction | None:
        return self.enclosure.lo

    @property
    def hi(self) -> Fraction | None:
        return self.enclosure.hi

    @property
    def safe(self) -> float:
        """The least double >= the enclosure's upper end, the safe ε or δ to report (a float)."""
        return self.enclosure.float_up()

    def to_json(self, digits: int = 20) -> dict[str, Any]:
        """The result for ``--json``: the enclosure (outward-rounded strings), the relation, the method and whether
        the lower end bounds the mechanism."""
        given = "delta" if self.quantity == "epsilon" else "eps"
        return {
            "quantity": self.quantity,
            given: number_text(self.target),
            "enclosure": self.enclosure.to_json(digits),
            "safe": self.safe,  # a JSON number: read back, it is the double >= hi
            "neighboring": self.neighboring,
            "method": self.method,
            "resolution": self.resolution,
            "reached": self.reached,
            "limited_by": self.limited_by,
            "seconds": self.seconds,
            "lower_end_bounds_mechanism": self.lower_end_bounds_mechanism,
        }

    def __str__(self) -> str:
        lo, hi = self.enclosure.decimal(12)
        name = "eps" if self.quantity == "epsilon" else "delta"
        return f"{name} <= {hi} (certified enclosure [{lo}, {hi}]; {self.neighboring} neighbours, {self.method})"


# ----------------------------------------------------------------------------------------------- the PLD path


def _compositions(
    leaves: list[tuple[Directions, int]],
    n: int,
    tail: float,
    progress: Progress = None,
    *,
    method: str = "fft",
    eps: Fraction | None = None,
    delta: Fraction | None = None,
) -> list[Composed | FloatComposed]:
    """Every direction's composition of all leaves at resolution n, each leaf ``count``-fold: with ``method="fft"``
    one float composition per direction (the product of the leaves' transforms raised to their counts), tilted for
    ``eps`` or ``delta``, and the arb path where the float path declines; with ``"arb"`` ball products joined by
    :func:`dpcert.pld.combine` (:func:`dpcert.pld.compose_directions_mixed`)."""
    from dpcert.pld.accountant import compose_directions_mixed

    return compose_directions_mixed(
        [(list(d), k) for d, k in leaves], n, tail, progress, method=method, eps=eps, delta=delta
    )


#: The largest common denominator of the atoms' losses that the resolution is raised to a multiple of.
_ATOM_DENOMINATOR = 2**12


def _atom_denominator(loss: PrivacyLoss) -> int:
    """d such that the loss's atoms lie at multiples of 1/d (1: none known), from the loss's
    :attr:`~dpcert.pld.loss.PrivacyLoss.lattice` (atoms at multiples of a rational a = p/d)."""
    lat = getattr(loss, "lattice", None)
    return 1 if lat is None else Fraction(lat).denominator


def _on_atoms(losses: list[PrivacyLoss], n: int, *, least: bool = False) -> int:
    """n raised to a multiple of the atoms' common denominator, so that atoms fall on grid points: the lower
    discretisation keeps an atom on a grid point exactly but loses to first order one inside a cell
    (:mod:`dpcert.pld.discretise`). The multiple is the denominator times a power of two, or with ``least`` the
    least multiple >= n. Tightness only; left as it is past :data:`_ATOM_DENOMINATOR`."""
    den = 1
    for loss in losses:
        den = math.lcm(den, _atom_denominator(loss))
    if den == 1 or den > _ATOM_DENOMINATOR:
        return n
    if least:
        return den * max(1, -(-n // den))
    m = den
    while m < n:
        m *= 2
    return m


def _start(leaves: list[tuple[Directions, int]], tail: float, rel_tol: float | None = None) -> int:
    """The first resolution: without ``rel_tol`` (a fixed grid's base) :func:`~dpcert.pld.resolution_for` of the
    mean step variance, a power of two; with it (the ε path) the width model's guess for ``rel_tol``, clamped
    (:func:`dpcert.pld.accountant.eps_resolution`), raised to the least multiple of the atoms' denominator."""
    total = sum(k for _, k in leaves)
    var = sum(k * max(d.loss_variance() for d in ds) for ds, k in leaves)
    losses = [d for ds, _ in leaves for d in ds]
    if rel_tol is None:
        n = _on_atoms(losses, resolution_for(var / total))
    else:
        n = _on_atoms(losses, eps_resolution(total, var, rel_tol), least=True)
    try:
        return fitting_resolution(losses, n, tail / total, START_CELLS)
    except GridTooLarge as err:
        raise InvalidParameter(
            "event", "<ledger>", f"events whose one-step loss ranges fit a grid ({err.cells} cells needed)"
        ) from None


def _pld(
    leaves: list[tuple[Directions, int]],
    quantity: str,
    target: Fraction,
    rel_tol: float,
    seconds: float,
    progress: Progress,
) -> PldResult:
    tail0 = TAIL0
    if quantity == "delta":

        def solve(n: int, tail: float) -> Enclosure:
            return delta_enclosure(_compositions(leaves, n, tail, progress, eps=target), target)

        def tail_of(enc: Enclosure, prev: float) -> float:
            lo = float(enc.lo) if enc.lo is not None else 0.0
            return min(prev, lo * rel_tol / 1000) if lo > 0 else prev

    else:

        def solve(n: int, tail: float) -> Enclosure:
            comps = _compositions(leaves, n, tail, progress, delta=target)
            return eps_enclosure(comps, target, min(rel_tol, EPS_SEARCH_TOL))

        def tail_of(enc: Enclosure, prev: float) -> float:
            return min(prev, float(target) * rel_tol / 10)

        # the dropped tails add at most their mass to δ_up: a tenth of the width asked for, relative to the target
        # δ, is all they may take from the first run on, and a δ moved by a fraction f moves ε by about
        # f/(ε·|d ln δ/dε|), some sixteen times less again at δ = 1e-5 (a tail far below it only lengthens the
        # grid: on 10^4 subsampled Gaussian steps at n = 3310, 10^-10 against 10^-9 is 15-20 % more time for
        # 0.7 % less width)
        tail0 = float(target) * rel_tol / 10

    n0 = _start(leaves, tail0, rel_tol if quantity == "eps" else None)
    return refining(solve, n0, rel_tol, seconds, progress, tail_of, tail0)


# ----------------------------------------------------------------------------------------------- the accountant


class Accountant:
    """A certified privacy accountant with dp-accounting's interface.

    Args:
        neighboring: ``"add_remove"`` (a record added or removed) or ``"replace_one"`` (one record replaced).
        rel_tol: the relative width asked of each answer (default 1 %).
        seconds: the time budget of each answer (default 60); the narrowest certified enclosure reached within it
            is returned, with ``reached`` false.
        progress: a callback taking progress lines, or None.

    >>> from dpcert.accounting.events import GaussianDpEvent
    >>> acc = Accountant().compose(GaussianDpEvent(2), count=4)
    >>> r = acc.delta(1, rel_tol=1e-3)
    >>> r.enclosure.short(4), r.neighboring, r.method
    ('[0.1268, 0.127]', 'add_remove', 'pld')
    """

    def __init__(
        self,
        neighboring: str = "add_remove",
        *,
        rel_tol: float = 0.01,
        seconds: float = 60.0,
        progress: Progress = None,
    ) -> None:
        self.neighboring = _check_neighboring(neighboring)
        self.rel_tol = _check_rel_tol(rel_tol)
        self.seconds = _check_seconds(seconds)
        self.progress = progress
        self._ledger: list[tuple[DpEvent, int]] = []

    def compose(self, event: Any, count: int = 1) -> Accountant:
        """Add ``event`` (dpcert's or dp-accounting's), ``count`` times; returns the accountant (calls chain)."""
        from dpcert.accounting.events import _int

        ev = as_event(event)
        k = _int("count", count, 0, 10**12, what="an integer in [0, 10^12]")
        self._ledger.append((ev, k))
        flatten(self._ledger)  # the step limits, checked now rather than at the first answer
        return self

    @property
    def ledger(self) -> ComposedDpEvent:
        """Everything composed so far, as one event (dp-accounting's ``ledger``)."""
        return ComposedDpEvent([SelfComposedDpEvent(e, k) if k != 1 else e for e, k in self._ledger])

    def supports(self, event: Any) -> bool:
        """Whether every leaf of ``event`` has a certified method under this accountant's relation."""
        try:
            self._plan(flatten([(as_event(event), 1)]))
        except UnsupportedEventError:
            return False
        return True

    def lower_end_bounds_mechanism(self) -> bool:
        """Whether the lower end of this ledger's answers (:meth:`epsilon`, :meth:`delta`) bounds the mechanism's
        ε or δ from below (:attr:`AccountingResult.lower_end_bounds_mechanism`), decided without composing: true
        for an empty ledger (exactly 0) and for a PLD ledger whose every leaf's pair is attained by some pair of
        neighbouring datasets (:func:`leaf_pairs`; a fixed ordered pair of datasets realises a direction at every
        step, so the composition of attained pairs is attained); false for an RDP answer (its lower end is a
        conversion's, not the mechanism's), a ledger holding ``NonPrivateDpEvent`` and one no method covers.

        >>> from dpcert.accounting.events import GaussianDpEvent, LaplaceDpEvent, PoissonSampledDpEvent, ZCDpEvent
        >>> sgm = PoissonSampledDpEvent("0.01", GaussianDpEvent(1))
        >>> Accountant().compose(sgm, 100).lower_end_bounds_mechanism()
        True
        >>> Accountant("replace_one").compose(sgm, 100).lower_end_bounds_mechanism()  # the mirror pair
        True
        >>> sampled_laplace = PoissonSampledDpEvent("0.01", LaplaceDpEvent(1))
        >>> Accountant("replace_one").compose(sampled_laplace).lower_end_bounds_mechanism()  # a proved pair only
        False
        >>> Accountant().compose(sgm, 100).compose(ZCDpEvent("0.1")).lower_end_bounds_mechanism()
        False
        """
        try:
            return self._plan(flatten(self._ledger))[2]
        except InvalidParameter:  # refused: no answer, so nothing is claimed below
            return False

    def _plan(self, leaves: list[tuple[DpEvent, int]]) -> tuple[str, Any, bool]:
        """("exact", None) | ("nonprivate", event) | ("pld", [(directions, count)]) | ("rdp", [(curve, count)]),
        with whether the answer's lower end bounds the mechanism (:meth:`lower_end_bounds_mechanism`)."""
        if not leaves:
            return "exact", None, True
        for ev, _ in leaves:
            if isinstance(ev, NonPrivateDpEvent):  # promises nothing: the mechanism's δ may be below 1
                return "nonprivate", ev, False
        found = [leaf_pairs(ev, self.neighboring) for ev, _ in leaves]
        pld = [(None if f is None else f[0], k) for f, (_, k) in zip(found, leaves, strict=True)]
        no_pld = [ev for (d, _), (ev, _) in zip(pld, leaves, strict=True) if d is None]
        if not no_pld:
            return "pld", pld, all(f is not None and f[1] for f in found)
        rdp = _rdp_module()
        if rdp is None:
            raise _refusal(no_pld[0], self.neighboring)
        curves = []
        for ev, k in leaves:
            c = rdp.rdp_curve(ev, self.neighboring)
            if c is None:
                if ev in no_pld:
                    raise _refusal(ev, self.neighboring)
                why = (
                    f"it has a PLD certificate only and {_describe(no_pld[0], 80)} has none (RDP only), and no "
                    "certified method composes the two"
                )
                raise UnsupportedEventError(ev, self.neighboring, why)
            curves.append((c, k))
        return "rdp", curves, False

    def _answer(
        self, quantity: str, target: Fraction, rel_tol: float | None, seconds: float | None
    ) -> AccountingResult:
        rt = self.rel_tol if rel_tol is None else _check_rel_tol(rel_tol)
        sec = self.seconds if seconds is None else _check_seconds(seconds)
        t0 = time.perf_counter()
        kind, plan, tight = self._plan(flatten(self._ledger))
        common = {
            "quantity": quantity,
            "target": target,
            "neighboring": self.neighboring,
            "lower_end_bounds_mechanism": tight,
        }
        if kind == "exact":  # nothing private was released: δ(ε) = 0 for ε >= 0, so ε(δ) = 0
            return AccountingResult(Enclosure.exact(0), method="exact", **common)
        if kind == "nonprivate":
            if quantity == "delta":  # an atom of mass 1 at an infinite loss: δ(ε) = 1 at every ε
                return AccountingResult(Enclosure.exact(1), method="exact", **common)
            raise _refusal(plan, self.neighboring)
        if kind == "rdp":
            rdp = _rdp_module()
            fn = rdp.rdp_epsilon if quantity == "epsilon" else rdp.rdp_delta
            enc = fn(plan, target, self.neighboring)
            return AccountingResult(enc, method="rdp", seconds=time.perf_counter() - t0, **common)
        res = _pld(plan, "eps" if quantity == "epsilon" else "delta", target, rt, sec, self.progress)
        return AccountingResult(
            res.enclosure,
            method="pld",
            resolution=res.resolution,
            seconds=res.seconds,
            reached=res.reached,
            limited_by=res.limited_by,
            **common,
        )

    def enclosure_at_level(self, quantity: str, target: Fraction, level: int) -> Enclosure:
        """The certified enclosure of ``quantity`` (``"epsilon"`` or ``"delta"``) at ``target`` on one fixed grid:
        the starting resolution times 2^level (no time budget; the same answer on every run, which a quantity's
        ball evaluator needs)."""
        kind, plan, _ = self._plan(flatten(self._ledger))
        if kind in ("exact", "nonprivate", "rdp"):
            return self._answer(quantity, target, None, None).enclosure
        tail = TAIL0 if quantity == "delta" else float(target) * 1e-6
        total = sum(k for _, k in plan)
        losses = [d for ds, _ in plan for d in ds]
        try:
            n = fitting_resolution(losses, _start(plan, tail) * 2**level, tail / total)
        except GridTooLarge as err:  # pragma: no cover - _start fitted a coarser grid already
            raise InvalidParameter("event", "<ledger>", f"events whose loss ranges fit a grid ({err})") from None
        comps = _compositions(plan, n, tail, method="arb")  # ball products: no float kernel behind a ball evaluator
        if quantity == "delta":
            return delta_enclosure(comps, target)
        return eps_enclosure(comps, target, EPS_SEARCH_TOL)

    def epsilon(self, delta: Any, *, rel_tol: float | None = None, seconds: float | None = None) -> AccountingResult:
        """The certified ε(δ) = min{ε >= 0 : δ(ε) <= δ} of everything composed, δ in (0, 1).

        Raises:
            UnsupportedEventError: an event no certified method covers (or a non-private one: ε is infinite).
        """
        d = _target("delta", delta, lo_open=True, hi=Fraction(1), hi_open=True, what="a real in (0, 1)")
        return self._answer("epsilon", d, rel_tol, seconds)

    def delta(self, epsilon: Any, *, rel_tol: float | None = None, seconds: float | None = None) -> AccountingResult:
        """The certified δ(ε) of everything composed, ε >= 0.

        Raises:
            UnsupportedEventError: an event no certified method covers.
        """
        e = _target("epsilon", epsilon, what="a real >= 0")
        return self._answer("delta", e, rel_tol, seconds)

    def get_epsilon(self, target_delta: Any) -> float:
        """dp-accounting's habit: the safe ε as a float (the certified enclosure's upper end, rounded up)."""
        return self.epsilon(target_delta).safe

    def get_delta(self, target_epsilon: Any) -> float:
        """dp-accounting's habit: the safe δ as a float (the certified enclosure's upper end, rounded up)."""
        return self.delta(target_epsilon).safe

    def __repr__(self) -> str:
        return f"Accountant(neighboring={self.neighboring!r}, events={len(self._ledger)})"


def _target(name: str, value: Any, *, lo_open: bool = False, hi: Fraction | None = None, hi_open: bool = False,
            what: str) -> Fraction:  # fmt: skip
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(name, value, what)
        value = repr(value)
    x = parse_rational(value, name).value
    if x < 0 or (lo_open and x == 0) or (hi is not None and (x > hi or (hi_open and x == hi))):
        raise InvalidParameter(name, value, what)
    if x.denominator > 10**60 or abs(x) > 10**5:
        raise InvalidParameter(name, fraction_to_decimal(x, 6, "nearest"), what + " of modest size")
    return x


def _check_rel_tol(rel_tol: float) -> float:
    if isinstance(rel_tol, bool) or not isinstance(rel_tol, (int, float)) or not 1e-9 <= rel_tol <= 0.5:
        raise InvalidParameter("rel_tol", rel_tol, "a relative width in [1e-9, 0.5]")
    return float(rel_tol)


def _check_seconds(seconds: float) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds <= 86400:
        raise InvalidParameter("seconds", seconds, "a time budget in (0, 86400] seconds")
    return float(seconds)
