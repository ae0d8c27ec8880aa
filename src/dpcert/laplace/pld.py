"""The k-fold Laplace mechanism's tight δ(ε) and ε(δ), certified both ends by the PLD engine (:mod:`dpcert.pld`).

The mechanism is :class:`~dpcert.laplace.loss.LaplaceLoss` (one direction: the two are one distribution); the
engine discretises it with each end proved, composes it k times and evaluates δ(ε) or inverts it. At k = 1 the
exact value is 1 − e^{(ε − Δ/b)/2} on [0, Δ/b] (the docstring of :mod:`dpcert.laplace.loss`), which the tests
compare against; the enclosure is a bracket that narrows like 1/n² in the resolution n.

References:
    Dwork–McSherry–Nissim–Smith, TCC 2006 (the mechanism); the engine's construction: :mod:`dpcert.pld`.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import Enclosure
from dpcert.arith.exact import Exact, as_fraction
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld.accountant import (
    EPS_SEARCH_TOL,
    TAIL0,
    PldResult,
    Progress,
    ball_level,
    compose_directions,
    delta_enclosure,
    enclosure_ball,
    eps_enclosure,
    fitting_resolution,
    refining,
    resolution_for,
)
from dpcert.pld.discretise import MAX_CELLS, GridTooLarge

__all__ = ["laplace_delta", "laplace_eps", "LAPLACE_DELTA", "LAPLACE_EPS", "QUANTITIES", "MAX_K"]

#: The largest number of compositions accepted.
MAX_K = 10**6


#: The largest denominator of Δ/b whose multiples are used as resolutions (atoms on grid points).
_ATOM_DENOMINATOR = 2**12


def _on_atoms(loss: LaplaceLoss, n: int) -> int:
    """n raised to a multiple of the denominator of r = Δ/b (times a power of two), so that the atoms at ±r are grid
    points: an atom inside a cell costs the lower construction a first-order deficit near it, one on a grid point
    is kept exactly. Left as it is for a denominator above :data:`_ATOM_DENOMINATOR`."""
    den = loss.r.denominator
    if den == 1 or den > _ATOM_DENOMINATOR:
        return n
    m = den
    while m < n:
        m *= 2
    return m


def _start(loss: LaplaceLoss, k: int, tail: float) -> int:
    try:
        return fitting_resolution([loss], _on_atoms(loss, resolution_for(loss.loss_variance())), tail / k)
    except GridTooLarge as err:
        raise InvalidParameter(
            "scale",
            str(loss.scale),
            f"a scale b with sensitivity/b small enough for the loss range to fit {MAX_CELLS} grid cells "
            f"(sensitivity/b = {loss.r} needs {err.cells})",
        ) from None


def _parse(quantity: Quantity, given: dict[str, Any]) -> tuple[LaplaceLoss, int, Fraction]:
    parsed = quantity.parse(given)
    last = "eps" if "eps" in parsed else "delta"
    loss = LaplaceLoss(as_fraction(parsed["scale"]), as_fraction(parsed["sensitivity"]))
    return loss, int(parsed["k"]), as_fraction(parsed[last])


def laplace_delta(
    eps: Any,
    scale: Any,
    sensitivity: Any,
    k: Any,
    *,
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of the k-fold Laplace mechanism's δ(ε) within a relative width or a time budget.

    >>> r = laplace_delta("0.5", "1", "1", 1, rel_tol=1e-6)
    >>> r.enclosure.short(6), r.reached
    ('[0.221199, 0.221199]', True)
    """
    loss, kk, e = _parse(LAPLACE_DELTA, {"eps": eps, "scale": scale, "sensitivity": sensitivity, "k": k})

    def solve(n: int, tail: float) -> Enclosure:
        return delta_enclosure(compose_directions([loss], kk, n, tail, progress, method="fft", eps=e), e)

    def tail_of(enc: Enclosure, prev: float) -> float:
        lo = float(enc.lo) if enc.lo is not None else 0.0
        return min(prev, lo * rel_tol / 1000) if lo > 0 else prev

    return refining(solve, _start(loss, kk, TAIL0), rel_tol, seconds, progress, tail_of, TAIL0)


def laplace_eps(
    delta: Any,
    scale: Any,
    sensitivity: Any,
    k: Any,
    *,
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of the k-fold Laplace mechanism's ε(δ) = min{ε >= 0 : δ_k(ε) <= δ}.

    >>> laplace_eps("1e-3", "1", "1", 1, rel_tol=1e-4).enclosure.short(4)
    '[0.998, 0.998]'
    """
    loss, kk, d = _parse(LAPLACE_EPS, {"delta": delta, "scale": scale, "sensitivity": sensitivity, "k": k})

    def solve(n: int, tail: float) -> Enclosure:
        # the ε search is cheap (probes reuse the compositions): never let it, rather than the grid, set the width
        comps = compose_directions([loss], kk, n, tail, progress, method="fft", delta=d)
        return eps_enclosure(comps, d, min(rel_tol, EPS_SEARCH_TOL))

    def tail_of(enc: Enclosure, prev: float) -> float:
        return min(prev, float(d) * rel_tol / 1000)

    return refining(solve, _start(loss, kk, TAIL0), rel_tol, seconds, progress, tail_of, TAIL0)


# ----------------------------------------------------------------------------------------------- quantities

_EPS = real("eps", 0, doc="epsilon >= 0")
_DELTA = probability("delta", zero=False, doc="target delta in (0, 1)")
_SCALE = real("scale", 0, lo_open=True, doc="the Laplace noise scale b > 0")
_SENS = real("sensitivity", 0, lo_open=True, doc="the L1 sensitivity of the query, > 0")
_K = integer("k", 1, MAX_K, doc="number of Laplace mechanisms composed")
_REF = (
    "privacy loss distribution of the Laplace mechanism (atoms at +-sensitivity/scale), k-fold by a tilted float "
    "FFT with a proved round-off bound (arb_poly powers for the ball evaluator); upper: connect-the-dots chord "
    "split (Doroshenko et al. PETS 2022), lower: convex minorant of the potential at lowered grid points; convex "
    "order (Shaked–Shanthikumar 2007 Thm 4.A.15)"
)


@functools.lru_cache(maxsize=32)
def _delta_at_level(b: Fraction, sens: Fraction, k: int, eps: Fraction, level: int) -> Enclosure:
    loss = LaplaceLoss(b, sens)
    n = fitting_resolution([loss], _start(loss, k, TAIL0) * 2**level, TAIL0 / k)
    return delta_enclosure(compose_directions([loss], k, n, TAIL0), eps)


@functools.lru_cache(maxsize=32)
def _eps_at_level(b: Fraction, sens: Fraction, k: int, delta: Fraction, level: int) -> Enclosure:
    loss = LaplaceLoss(b, sens)
    tail = float(delta) * 1e-6
    n = fitting_resolution([loss], _start(loss, k, tail) * 2**level, tail / k)
    return eps_enclosure(compose_directions([loss], k, n, tail), delta, 1e-4)


def _delta_ball(ctx: Any, eps: Exact, scale: Exact, sensitivity: Exact, k: int) -> arb:
    enc = _delta_at_level(as_fraction(scale), as_fraction(sensitivity), int(k), as_fraction(eps), ball_level(ctx.prec))
    return enclosure_ball(enc, ctx.prec)


def _eps_ball(ctx: Any, delta: Exact, scale: Exact, sensitivity: Exact, k: int) -> arb | Fraction:
    enc = _eps_at_level(as_fraction(scale), as_fraction(sensitivity), int(k), as_fraction(delta), ball_level(ctx.prec))
    return enclosure_ball(enc, ctx.prec, exact_point=True)


def _delta_within(
    seconds: float, eps: Exact, scale: Exact, sensitivity: Exact, k: int, rel_tol: float = 1e-9
) -> tuple[Enclosure, int]:
    r = laplace_delta(eps, scale, sensitivity, k, rel_tol=rel_tol, seconds=seconds)
    return r.enclosure, r.resolution


def _eps_within(
    seconds: float, delta: Exact, scale: Exact, sensitivity: Exact, k: int, rel_tol: float = 1e-6
) -> tuple[Enclosure, int]:
    r = laplace_eps(delta, scale, sensitivity, k, rel_tol=rel_tol, seconds=seconds)
    return r.enclosure, r.resolution


LAPLACE_DELTA = Quantity(
    "laplace.delta",
    (_EPS, _SCALE, _SENS, _K),
    _delta_ball,
    _REF,
    "tight delta(eps) of k Laplace mechanisms of scale b on a query of L1 sensitivity Delta: the certified PLD "
    "bracket (narrows like 1/n^2 in the resolution n)",
    bracket=True,
    within=_delta_within,
    within_takes_width=True,
    narrow_hint="dpcert eval laplace.delta {inputs} --seconds {seconds}",
)
LAPLACE_EPS = Quantity(
    "laplace.eps",
    (_DELTA, _SCALE, _SENS, _K),
    _eps_ball,
    _REF,
    "tight eps(delta) of k Laplace mechanisms (the least eps >= 0 with delta(eps) <= delta): the certified PLD bracket",
    bracket=True,
    within=_eps_within,
    within_takes_width=True,
    narrow_hint="dpcert eval laplace.eps {inputs} --seconds {seconds}",
)

QUANTITIES = [LAPLACE_DELTA, LAPLACE_EPS]
