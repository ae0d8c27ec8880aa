"""Tight DP-SGD accounting: a certified enclosure of the k-step δ(ε) of the Poisson-subsampled Gaussian.

The mechanism is :class:`dpcert.gaussian.sgm_loss.SubsampledGaussianLoss` (both neighbouring directions, the
survival masses of its privacy loss in Arb's balls); everything else — the one-step discretisations with each end
proved, composition with accounted windows, δ(ε), ε(δ) and calibration — is the PLD engine, :mod:`dpcert.pld`,
whose modules carry the proofs. This module holds DP-SGD's drivers and quantities (``dpsgd.delta``, ``dpsgd.eps``,
``dpsgd.sigma``) and keeps the names it always had (``step_measures``, ``compose``, ``both_directions``,
``delta_enclosure``, …) as thin forms of the engine's.

Both ends converge like Δ² (the lower one's loss at the edge Y >= 1 − q stays local, :mod:`dpcert.pld.discretise`);
``n = 1/Δ`` is the resolution reported. When the starting grid would not fit
:data:`MAX_CELLS` (a tiny q with a small σ: a long loss range), coarser grids are tried.

References:
    Convex order: M. Shaked, J. G. Shanthikumar, "Stochastic Orders", Springer 2007, Thm 4.A.15 [SS07]. Connect the
    dots: V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, PETS 2022 (arXiv 2207.04380). Privacy loss
    distributions of the subsampled Gaussian: docs/derivations/gaussian.md#sgm-directions.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import Enclosure, fraction_of
from dpcert.arith.exact import Exact, as_fraction, fraction_to_decimal
from dpcert.core.params import choice, integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter
from dpcert.gaussian.sampling import (
    NEIGHBORINGS,
    SAMPLINGS,
    MirrorLoss,
    SymmetrisedLoss,
    as_steps,
    check_relation,
    shuffle_layout,
)
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.gaussian.sgm_loss import directions as _poisson_directions
from dpcert.pld.accountant import (
    EPS_SEARCH_TOL,
    START_CELLS,
    TAIL0,
    PldResult,
    Progress,
    ball_level,
    calibrate,
    calibrate_located,
    compose_directions,
    delta_enclosure,
    delta_of,
    enclosure_ball,
    eps_enclosure,
    fitting_resolution,
    refining,
)
from dpcert.pld.compose import Composed, compose
from dpcert.pld.discretise import MAX_CELLS, PREC, GridTooLarge, Measure, StepMeasures, discretise

__all__ = [
    "PldResult",
    "dpsgd_delta",
    "dpsgd_eps",
    "dpsgd_sigma",
    "DPSGD_DELTA",
    "DPSGD_EPS",
    "DPSGD_SIGMA",
    "QUANTITIES",
    "MAX_STEPS",
    "Measure",
    "StepMeasures",
    "Composed",
    "step_measures",
    "compose",
    "delta_enclosure",
    "eps_enclosure",
    "both_directions",
    "delta_of",
    "start_resolution",
    "MAX_CELLS",
    "PREC",
]


def _short(x: Fraction) -> str:
    """x with 4 significant digits, for a message (an exact input may have thousands of digits)."""
    return fraction_to_decimal(x, 4, "nearest")


def _too_long(q: Fraction, sigma: Fraction, err: GridTooLarge, max_cells: int = MAX_CELLS) -> InvalidParameter:
    return InvalidParameter(
        "sigma",
        _short(sigma),
        f"a noise multiplier whose one-step loss range fits {max_cells} grid cells at resolution {err.n} "
        f"(q = {_short(q)}, sigma = {_short(sigma)} needs {err.cells})",
    )


#: The least noise multiplier the PLD grid takes (a smaller one's loss range fits no grid).
MIN_SIGMA = Fraction(1, 10**150)
#: The least sampling rate the PLD calibration takes (its first σ guess squares q in float64).
MIN_CALIBRATION_Q = Fraction(1, 10**150)
#: The least sampling rate the PLD grid takes: its range is chosen in float64, where a smaller q is 0.
MIN_Q = Fraction(1, 2**1000)


def _check_sigma(q: Fraction, sigma: Fraction) -> None:
    """Refuse, before any work, a noise multiplier whose one-step loss range (about 1/(2σ²) wide) fits no grid."""
    if sigma < MIN_SIGMA:
        raise InvalidParameter(
            "sigma",
            _short(sigma),
            f"a noise multiplier >= 1e-150 for the PLD accountant (one step's loss range, about 1/(2 sigma^2), fits "
            f"no grid of {MAX_CELLS} cells; q = {_short(q)}); --method rdp answers it",
        )


def _check_q(q: Fraction) -> None:
    """Refuse, before any work, a rate the float64 range choice cannot represent (one line naming q)."""
    if 0 < q < MIN_Q:
        raise InvalidParameter(
            "q",
            _short(q),
            "a sampling rate >= 2^-1000 for the PLD accountant (its grid range is chosen in float64); below it "
            "steps*q <= delta already proves eps = 0, and --method rdp answers any q",
        )


def step_measures(direction: str, q: Fraction, sigma: Fraction, n: int, tail: float, steps: int) -> StepMeasures:
    """One step's lower and upper discretisations at resolution n (:func:`dpcert.pld.discretise.discretise`).

    Args:
        direction: ``"remove"`` or ``"add"``. q, sigma: exact. n: grid cells per unit of loss.
        tail: the P-mass (float) the grid range may leave out on each side, all steps together (tightness only).
        steps: k (sets the range from ``tail``/k).

    Raises:
        InvalidParameter: (``sigma``) if the range does not fit :data:`MAX_CELLS` cells at resolution n.
    """
    try:
        return discretise(SubsampledGaussianLoss(direction, q, sigma), n, tail / steps)
    except GridTooLarge as err:
        raise _too_long(q, sigma, err) from None


def start_resolution(q: Fraction, sigma: Fraction, steps: int) -> int:
    """A float guess of the resolution n = 1/Δ giving a few per cent relative width (tightness only).

    The chord split adds about Δ²/6 per step to the variance of the composed loss, whose variance is about
    k·Var_Q(L); n is chosen so that the ratio is about 10^-3, and at least 2^6.
    """
    qf, s = float(q), float(sigma)
    var1 = qf * qf * math.expm1(min(1 / (s * s), 700) if s > 1e-150 else 700)  # Var_Q(Y) of one remove step
    ratio = 1e-3
    n = math.sqrt(steps / (6 * ratio * steps * max(var1, 1e-300)))
    return max(64, min(int(2 ** math.ceil(math.log2(n))), 2**22))


def directions(
    q: Fraction, sigma: Fraction, sampling: str = "poisson", neighboring: str = "add_remove", which: str = "upper"
) -> list:
    """The directions of one step (:mod:`dpcert.gaussian.sampling`). Poisson sampling: add/remove, the remove and add
    pairs; replace-one, the mirror pair; both tight (realised and proved to dominate: ``which`` does not matter).
    Fixed size, replace-one: ``which="upper"`` the proved dominating pair (symmetrised, rate q, shift 2),
    ``which="lower"`` the realised shift-2 remove and add pairs, whose compositions no valid ε can be below.

    Raises:
        InvalidParameter: for a relation the sampler's analysis does not cover, or ``shuffle`` (no PLD: closed form).
    """
    check_relation(sampling, neighboring)
    if sampling == "shuffle":
        raise InvalidParameter("sampling", sampling, "poisson or fixed for the PLD accountant (shuffle: closed form)")
    if neighboring == "add_remove":
        return _poisson_directions(q, sigma)
    if sampling == "poisson":
        return [MirrorLoss(q, sigma)]
    if which == "lower":  # (D, D′) and (D′, D) realise the remove and the add direction: the max is realised
        return _poisson_directions(q, sigma / 2)
    return [SymmetrisedLoss(SubsampledGaussianLoss("remove", q, sigma / 2))]


def tight(sampling: str, neighboring: str) -> bool:
    """Whether one pair both dominates and is realised (Poisson sampling, either relation), so that one composition
    gives both ends."""
    return sampling == "poisson"


def refine_bounds(
    solve: Callable[[int, float, str], Enclosure],
    same: bool,
    n0: int,
    rel_tol: float,
    seconds: float,
    progress: Progress,
    tail_of: Callable[[Enclosure, float], float],
    tail0: float = TAIL0,
) -> PldResult:
    """:func:`dpcert.pld.accountant.refining` of ``solve(n, tail, which)`` from the first tail ``tail0``: once
    (``which="both"``) when ``same`` (a tight pair); else the lower end (the realised pair's, ``"lower"``) and the
    upper end (the dominating pair's, ``"upper"``) refined each on half the budget, the result [lower's lower end,
    upper's upper end] (its width holds the gap between the two pairs, which no resolution closes; ``reached``
    says both ends were narrowed)."""
    if same:
        return refining(lambda n, t: solve(n, t, "both"), n0, rel_tol, seconds, progress, tail_of, tail0)
    lo = refining(lambda n, t: solve(n, t, "lower"), n0, rel_tol, seconds / 2, progress, tail_of, tail0)
    hi = refining(lambda n, t: solve(n, t, "upper"), n0, rel_tol, seconds / 2, progress, tail_of, tail0)
    reached = lo.reached and hi.reached
    limited = "width" if reached else (hi.limited_by if not hi.reached else lo.limited_by)
    enc = Enclosure(lo.enclosure.lo, hi.enclosure.hi)
    return PldResult(enc, hi.resolution, lo.seconds + hi.seconds, reached, lo.runs + hi.runs, limited)


def _noise(sigma: Fraction, sampling: str, neighboring: str) -> Fraction:
    """The noise multiplier at sensitivity 1 of the pair the grid is built on (fixed size: shift 2, so σ/2)."""
    return sigma if sampling == "poisson" else sigma / 2


def fitting_start(
    q: Fraction,
    sigma: Fraction,
    steps: int,
    tail: float = TAIL0,
    max_cells: int = MAX_CELLS,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
) -> int:
    """:func:`start_resolution`, halved until one step's grid fits ``max_cells`` in every direction.

    Raises:
        InvalidParameter: (``sigma``) if not even n = 1 fits.
    """
    try:
        return fitting_resolution(
            directions(q, sigma, sampling, neighboring) + directions(q, sigma, sampling, neighboring, "lower"),
            start_resolution(q, _noise(sigma, sampling, neighboring), steps),
            tail / steps,
            max_cells,
        )
    except GridTooLarge as err:
        raise _too_long(q, sigma, err, max_cells) from None


def both_directions(
    q: Fraction,
    sigma: Fraction,
    steps: int,
    n: int,
    tail: float,
    progress: Callable[[str], None] | None = None,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
    which: str = "upper",
    *,
    method: str = "arb",
    eps: Fraction | None = None,
    delta: Fraction | None = None,
) -> list[Composed]:
    """The k-fold compositions of both directions (remove, then add; replace-one: the ``which`` pair,
    :func:`directions`) at resolution n.

    Both are always computed: that remove dominates add is not proved (docs/derivations/gaussian.md#sgm-directions).
    ``tail`` is the P-mass each side of one step's grid may leave out (all steps) and, divided by the number of
    products, each window's. ``method``, ``eps``, ``delta``: :func:`dpcert.pld.accountant.compose_directions`
    (``"fft"``: the float path with its proved round-off bound, tilted for that ε or ε(δ)).
    """
    pair = directions(q, sigma, sampling, neighboring, which)
    return compose_directions(pair, steps, n, tail, progress, method=method, eps=eps, delta=delta)


# ----------------------------------------------------------------------------------------------- quantities

#: The largest step count accepted (the composed window grows like √k; checked before any work).
MAX_STEPS = 10**7

_Q = real("q", 0, 1, lo_open=True, doc="sampling rate in (0, 1] (batch_size/n)")
_SIGMA = real("sigma", 0, lo_open=True, doc="noise multiplier")
_STEPS = integer("steps", 1, MAX_STEPS, doc="number of DP-SGD steps (an exact integer)")
_EPS = real("eps", 0, doc="epsilon >= 0")
_DELTA = probability("delta", zero=False, doc="target delta in (0, 1)")
_REF = (
    "privacy loss distribution of the Poisson-subsampled Gaussian (both neighbouring directions), k-fold by a "
    "tilted float FFT with a proved round-off bound (arb_poly powers for the ball evaluator); upper: "
    "connect-the-dots chord split (Doroshenko et al. PETS 2022), lower: convex minorant of the potential at "
    "lowered grid points; convex order (Shaked–Shanthikumar 2007 Thm 4.A.15); other samplers and replace-one: the "
    "pairs proved in dpcert.gaussian.sampling"
)


def _tail_of(rel_tol: float) -> Callable[[Enclosure, float], float]:
    def tail(enc: Enclosure, prev: float) -> float:
        lo = float(enc.lo) if enc.lo is not None else 0.0
        return min(prev, lo * rel_tol / 1000) if lo > 0 else prev

    return tail


def _relation(sampling: Any, neighboring: Any) -> tuple[str, str]:
    sa, ne = str(sampling), str(neighboring)
    if sa not in SAMPLINGS:
        raise InvalidParameter("sampling", sa, f"one of {', '.join(SAMPLINGS)}")
    if ne not in NEIGHBORINGS:
        raise InvalidParameter("neighboring", ne, f"one of {', '.join(NEIGHBORINGS)}")
    check_relation(sa, ne)
    return sa, ne


def _shuffle_mu2(q: Fraction, sigma: Fraction, steps: int) -> tuple[Fraction, Fraction]:
    """μ² of the shuffle bracket's two Gaussian pairs (replace-one, :mod:`dpcert.gaussian.sampling`): the lower
    end's 4E/(Tσ²) (the epoch sums, realised) and the upper end's 4E/σ² (one batch an epoch, no amplification)."""
    t, e = shuffle_layout(q, steps)
    return Fraction(4 * e, t) / (sigma * sigma), Fraction(4 * e) / (sigma * sigma)


def _shuffle_eps(q: Fraction, sigma: Fraction, steps: int, delta: Fraction) -> Enclosure:
    from dpcert.gaussian.mechanism import eps_bracket

    lo2, hi2 = _shuffle_mu2(q, sigma, steps)
    tol = Fraction(1, 10**9)
    return Enclosure(eps_bracket(delta, lo2, tol).lo, eps_bracket(delta, hi2, tol).hi)


def _shuffle_delta(q: Fraction, sigma: Fraction, steps: int, eps: Fraction) -> Enclosure:
    from dpcert.gaussian.mechanism import _delta_at

    lo2, hi2 = _shuffle_mu2(q, sigma, steps)
    return Enclosure(
        max(Fraction(0), fraction_of(_delta_at(eps, lo2, 128).lower())), fraction_of(_delta_at(eps, hi2, 128).upper())
    )


def _closed(enc: Enclosure) -> PldResult:
    return PldResult(enc, 0, 0.0, True, ())


def dpsgd_delta(
    q: Any = None,
    sigma: Any = None,
    steps: Any = None,
    eps: Any = None,
    *,
    sampling: Any = "poisson",
    neighboring: Any = "add_remove",
    epochs: Any = None,
    batch_size: Any = None,
    n: Any = None,
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of DP-SGD's k-step δ(ε) (the max over the sampler's dominating directions) within a
    relative width or budget; ``epochs``, ``batch_size``, ``n`` may replace ``q``, ``steps``.

    With ``sampling="shuffle"`` the enclosure is the shuffle bracket of :mod:`dpcert.gaussian.sampling` (closed
    form): a proved lower and a proved upper bound of the run's δ(ε), not a grid's enclosure of one pair's.

    >>> r = dpsgd_delta("0.01", "1", 10, "0.1")
    >>> r.enclosure.short(4), r.reached
    ('[0.00109, 0.001093]', True)
    """
    parsed = DPSGD_DELTA.parse(
        _given(
            q=q,
            sigma=sigma,
            steps=steps,
            eps=eps,
            sampling=sampling,
            neighboring=neighboring,
            epochs=epochs,
            batch_size=batch_size,
            n=n,
        )
    )
    qq, s, k, e = (
        as_fraction(parsed["q"]),
        as_fraction(parsed["sigma"]),
        int(parsed["steps"]),
        as_fraction(parsed["eps"]),
    )
    sa, ne = _relation(parsed["sampling"], parsed["neighboring"])
    if sa == "shuffle":
        return _closed(_shuffle_delta(qq, s, k, e))
    _check_q(qq)
    _check_sigma(qq, s)

    def solve(n: int, tail: float, which: str) -> Enclosure:
        return delta_enclosure(both_directions(qq, s, k, n, tail, progress, sa, ne, which, method="fft", eps=e), e)

    start = fitting_start(qq, s, k, TAIL0, START_CELLS, sa, ne)
    return refine_bounds(solve, tight(sa, ne), start, rel_tol, seconds, progress, _tail_of(rel_tol))


def _given(**kw: Any) -> dict[str, Any]:
    """The keyword inputs given (None: not given), the trained form turned into q and steps."""
    given = {k: v for k, v in kw.items() if v is not None}
    return as_steps(given, {}, has_steps="steps" in kw)


def dpsgd_eps(
    q: Any = None,
    sigma: Any = None,
    steps: Any = None,
    delta: Any = None,
    *,
    sampling: Any = "poisson",
    neighboring: Any = "add_remove",
    epochs: Any = None,
    batch_size: Any = None,
    n: Any = None,
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of DP-SGD's ε(δ) = min{ε >= 0 : δ_k(ε) <= δ} (upper end safe); ``epochs``,
    ``batch_size``, ``n`` may replace ``q``, ``steps`` (:func:`dpcert.gaussian.sampling.steps_of`).

    ``sampling`` (poisson, fixed, shuffle) and ``neighboring`` (add_remove, replace_one) choose the dominating
    pair (:mod:`dpcert.gaussian.sampling`); fixed and shuffle take replace_one only. With shuffle the enclosure is
    the proved bracket [realised lower bound, no-amplification upper bound].

    >>> dpsgd_eps("0.01", "1", 10, "1e-3").enclosure.short(4)
    '[0.1036, 0.1038]'
    """
    parsed = DPSGD_EPS.parse(
        _given(
            q=q,
            sigma=sigma,
            steps=steps,
            delta=delta,
            sampling=sampling,
            neighboring=neighboring,
            epochs=epochs,
            batch_size=batch_size,
            n=n,
        )
    )
    qq, s, k, d = (
        as_fraction(parsed["q"]),
        as_fraction(parsed["sigma"]),
        int(parsed["steps"]),
        as_fraction(parsed["delta"]),
    )
    sa, ne = _relation(parsed["sampling"], parsed["neighboring"])
    if sa == "shuffle":
        return _closed(_shuffle_eps(qq, s, k, d))

    if k * qq <= d:
        # ε = 0 exactly, with no grid: one step's pair in any direction is (1 − q)Q + qR against Q (or, replace-one,
        # a pair whose total variation is that of the former), so its total variation is at most q; k steps (a
        # product) are at most 1 − (1 − q)^k <= k·q apart in total variation, and δ_k(0) is that distance, so
        # δ_k(0) <= k·q <= δ and the least ε >= 0 with δ_k(ε) <= δ is 0
        return PldResult(Enclosure(Fraction(0), Fraction(0)), 0, 0.0, True, ())
    _check_q(qq)
    _check_sigma(qq, s)

    def solve(n: int, tail: float, which: str) -> Enclosure:
        # the ε search is cheap (probes reuse the compositions): never let it, rather than the grid, set the width
        comps = both_directions(qq, s, k, n, tail, progress, sa, ne, which, method="fft", delta=d)
        return eps_enclosure(comps, d, min(rel_tol, EPS_SEARCH_TOL))

    def tail(enc: Enclosure, prev: float) -> float:
        return min(prev, float(d) * rel_tol / 1000)

    # the dropped tails add at most their mass to δ_up: a thousandth of the width asked for, relative to the target,
    # is all they may take (a fixed first tail far below it only lengthens the grid; one above it would floor δ)
    tail0 = float(d) * rel_tol / 1000
    start = fitting_start(qq, s, k, tail0, START_CELLS, sa, ne)
    return refine_bounds(solve, tight(sa, ne), start, rel_tol, seconds, progress, tail, tail0)


def _sigma_guess(q: Fraction, steps: int, eps: Fraction, delta: Fraction) -> float:
    """The CLT (μ-GDP) guess μ = q√(k(e^{1/σ²} − 1)) solved for σ (a starting point only, often off)."""
    from dpcert.gaussian.mechanism import sigma_float

    mu = 1 / sigma_float(eps, delta, 1, 1)
    return 1 / math.sqrt(math.log1p(mu * mu / (float(q) ** 2 * steps)))


def _twin(
    q: Fraction, k: int, eps: Fraction, tail: float, sa: str, ne: str, which: str = "upper"
) -> Callable[[float, int], float]:
    """The float evidence of the calibration: σ, n ↦ an estimate of the certified upper end of δ_k(ε) at resolution
    n (:func:`dpcert.pld.estimate.delta_estimate`, the grid survival masses from
    :func:`dpcert.gaussian.sgm_estimate.survivals`). Evidence only."""
    from dpcert.gaussian.sgm_estimate import survivals
    from dpcert.pld.estimate import delta_estimate

    e = float(eps)
    return lambda s, n: delta_estimate(directions(q, Fraction(s), sa, ne, which), k, n, tail, e, survivals)


#: The routes of the calibration, ``located`` (float evidence places two certified probes, :func:`calibrate_located`;
#: bisection when it cannot) and ``bisect`` (certified bisection, :func:`calibrate`).
ROUTES = ("located", "bisect")


def dpsgd_sigma(
    q: Any = None,
    steps: Any = None,
    eps: Any = None,
    delta: Any = None,
    *,
    sampling: Any = "poisson",
    neighboring: Any = "add_remove",
    epochs: Any = None,
    batch_size: Any = None,
    n: Any = None,
    rel_tol: float = 0.01,
    seconds: float = 600.0,
    progress: Progress = None,
    route: str = "located",
) -> PldResult:
    """Certified calibration: [σ_lo, σ_hi] around σ_min = min{σ : δ_k(ε; σ) <= δ}, with δ(σ_hi) <= δ proved
    (the upper PLD bound) and δ(σ_lo) > δ proved (the lower one) (:func:`dpcert.pld.accountant.calibrate`).

    δ_k(ε; σ) is non-increasing in σ (a larger σ is the smaller one followed by independent Gaussian noise:
    post-processing), so the two proofs bracket σ_min. ``rel_tol`` bounds the bracket's relative width (σ_hi −
    σ_lo)/σ_hi. ``sampling="shuffle"`` is refused (its ε is a bracket, not one pair's).

    ``route="located"`` (the default; a tight pair: Poisson sampling): a float twin of the certified upper end
    (:func:`dpcert.pld.estimate.delta_estimate`, evidence only) locates σ, and two certified probes make the
    bracket (:func:`dpcert.pld.accountant.calibrate_located`); when the evidence cannot place them, and with
    ``route="bisect"``, the certified bisection (:func:`dpcert.pld.accountant.calibrate`: probes at one resolution,
    doubled when the bracket is wider than ``rel_tol`` because the δ enclosures are). A fixed-size sampler has two
    pairs: each is calibrated so (on half the budget), σ_hi taken from the dominating pair's and σ_lo from the
    realised pair's. Either way every end is one of the two proofs above.

    >>> r = dpsgd_sigma("0.1", 10, "1", "1e-3", rel_tol=0.02)
    >>> r.enclosure.short(3)
    '[1.23, 1.26]'
    """
    if route not in ROUTES:
        raise InvalidParameter("route", route, f"one of {', '.join(ROUTES)}")
    parsed = DPSGD_SIGMA.parse(
        _given(
            q=q,
            steps=steps,
            eps=eps,
            delta=delta,
            sampling=sampling,
            neighboring=neighboring,
            epochs=epochs,
            batch_size=batch_size,
            n=n,
        )
    )
    qq, k, e, d = (
        as_fraction(parsed["q"]),
        int(parsed["steps"]),
        as_fraction(parsed["eps"]),
        as_fraction(parsed["delta"]),
    )
    sa, ne = _relation(parsed["sampling"], parsed["neighboring"])
    if sa == "shuffle":
        raise InvalidParameter(
            "sampling",
            sa,
            "poisson or fixed for the calibration (a shuffled run's eps is a bracket; calibrate its "
            "upper end with gaussian.sigma sensitivity=2 k=<epochs>)",
        )
    _check_q(qq)
    if qq < MIN_CALIBRATION_Q:  # its first guess squares q in float64
        raise InvalidParameter(
            "q", _short(qq), "a sampling rate >= 1e-150 for the PLD calibration (its first sigma guess is float64)"
        )
    guess = _sigma_guess(qq, k, e, d) * (1 if sa == "poisson" else 2)
    tail = float(d) * rel_tol / 1000
    n0 = fitting_start(qq, Fraction(guess).limit_denominator(1000), k, tail, START_CELLS, sa, ne)

    def at(which: str) -> Callable[[Fraction, int], list[Composed]]:
        return lambda s, n: both_directions(qq, s, k, n, tail, None, sa, ne, which, method="fft", eps=e)

    def solved(which: str, budget: float) -> PldResult:
        if route == "located":
            t0 = time.perf_counter()
            located = calibrate_located(
                at(which), _twin(qq, k, e, tail, sa, ne, which), e, d, guess, n0, rel_tol, budget, progress, "sigma"
            )
            if located is not None:
                return located
            budget -= time.perf_counter() - t0
            if progress is not None:
                progress("the float evidence did not place both proofs: bisecting")
        return calibrate(at(which), e, d, guess, n0, rel_tol, budget, progress, name="sigma")

    if tight(sa, ne):
        return solved("both", seconds)
    # σ_hi from the dominating pair (δ <= target proved), σ_lo from the realised pair (δ > target proved)
    hi = solved("upper", seconds / 2)
    lo = solved("lower", seconds / 2)
    reached = lo.reached and hi.reached
    limited = "width" if reached else (hi.limited_by if not hi.reached else lo.limited_by)
    enc = Enclosure(lo.enclosure.lo, hi.enclosure.hi)
    return PldResult(enc, hi.resolution, lo.seconds + hi.seconds, reached, lo.runs + hi.runs, limited)


def _parsed(q: Any, sigma: Any, steps: Any) -> tuple[Fraction, Fraction, int]:
    return as_fraction(q), as_fraction(sigma), int(steps)


def _level_resolution(q: Fraction, s: Fraction, k: int, level: int, tail: float, sa: str, ne: str) -> int:
    """The starting resolution times 2^level, halved back while one step's grid does not fit."""
    try:
        start = fitting_start(q, s, k, tail, MAX_CELLS, sa, ne) * 2**level
        return fitting_resolution(directions(q, s, sa, ne) + directions(q, s, sa, ne, "lower"), start, tail / k)
    except GridTooLarge as err:
        raise _too_long(q, s, err) from None


@functools.lru_cache(maxsize=32)
def _delta_at_level(q: Fraction, s: Fraction, k: int, eps: Fraction, level: int, sa: str, ne: str) -> Enclosure:
    # cached: the precisions past the cap give the same run, which a claim's refinement would repeat
    if sa == "shuffle":
        return _shuffle_delta(q, s, k, eps)
    n = _level_resolution(q, s, k, level, TAIL0, sa, ne)
    hi = delta_enclosure(both_directions(q, s, k, n, TAIL0, None, sa, ne), eps)
    if tight(sa, ne):
        return hi
    return Enclosure(delta_enclosure(both_directions(q, s, k, n, TAIL0, None, sa, ne, "lower"), eps).lo, hi.hi)


@functools.lru_cache(maxsize=32)
def _eps_at_level(q: Fraction, s: Fraction, k: int, delta: Fraction, level: int, sa: str, ne: str) -> Enclosure:
    if sa == "shuffle":
        return _shuffle_eps(q, s, k, delta)
    tail = float(delta) * 1e-6
    n = _level_resolution(q, s, k, level, tail, sa, ne)
    hi = eps_enclosure(both_directions(q, s, k, n, tail, None, sa, ne), delta, 1e-4)
    if tight(sa, ne):
        return hi
    return Enclosure(eps_enclosure(both_directions(q, s, k, n, tail, None, sa, ne, "lower"), delta, 1e-4).lo, hi.hi)


@functools.lru_cache(maxsize=32)
def _sigma_at_level(q: Fraction, k: int, eps: Fraction, delta: Fraction, level: int, sa: str, ne: str) -> Enclosure:
    # the ball evaluator keeps the bisection (route="bisect"): the value a certificate was made with is re-made
    r = dpsgd_sigma(
        q, k, eps, delta, sampling=sa, neighboring=ne, rel_tol=0.02 / 2**level, seconds=math.inf, route="bisect"
    )
    return r.enclosure


def _delta_ball(
    ctx: Any, q: Exact, sigma: Exact, steps: int, eps: Exact, sampling: str = "poisson", neighboring: str = "add_remove"
) -> arb:
    sa, ne = _relation(sampling, neighboring)
    enc = _delta_at_level(*_parsed(q, sigma, steps), as_fraction(eps), ball_level(ctx.prec), sa, ne)
    return enclosure_ball(enc, ctx.prec)


def _delta_within(
    seconds: float,
    q: Exact,
    sigma: Exact,
    steps: int,
    eps: Exact,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
    rel_tol: float = 1e-9,
) -> tuple[Enclosure, int]:
    r = dpsgd_delta(q, sigma, steps, eps, sampling=sampling, neighboring=neighboring, rel_tol=rel_tol, seconds=seconds)
    return r.enclosure, r.resolution


def _eps_ball(
    ctx: Any,
    q: Exact,
    sigma: Exact,
    steps: int,
    delta: Exact,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
) -> arb | Fraction:
    sa, ne = _relation(sampling, neighboring)
    enc = _eps_at_level(*_parsed(q, sigma, steps), as_fraction(delta), ball_level(ctx.prec), sa, ne)
    return enclosure_ball(enc, ctx.prec, exact_point=True)


def _eps_within(
    seconds: float,
    q: Exact,
    sigma: Exact,
    steps: int,
    delta: Exact,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
    rel_tol: float = 1e-6,
) -> tuple[Enclosure, int]:
    r = dpsgd_eps(q, sigma, steps, delta, sampling=sampling, neighboring=neighboring, rel_tol=rel_tol, seconds=seconds)
    return r.enclosure, r.resolution


def _sigma_ball(
    ctx: Any, q: Exact, steps: int, eps: Exact, delta: Exact, sampling: str = "poisson", neighboring: str = "add_remove"
) -> arb:
    sa, ne = _relation(sampling, neighboring)
    enc = _sigma_at_level(
        as_fraction(q), int(steps), as_fraction(eps), as_fraction(delta), ball_level(ctx.prec), sa, ne
    )
    return enclosure_ball(enc, ctx.prec)


def _sigma_within(
    seconds: float,
    q: Exact,
    steps: int,
    eps: Exact,
    delta: Exact,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
    rel_tol: float = 1e-4,
) -> tuple[Enclosure, int]:
    r = dpsgd_sigma(q, steps, eps, delta, sampling=sampling, neighboring=neighboring, rel_tol=rel_tol, seconds=seconds)
    return r.enclosure, r.resolution


class DpsgdQuantity(Quantity):
    """A ``dpsgd.*`` quantity: its inputs may give the run as trained (``epochs``, ``batch_size``, ``n``) instead
    of ``q`` and ``steps``; they are turned into q = batch_size/n and steps before validation, so certificates and
    JSON record q (as the exact text b/n) and steps (:func:`dpcert.gaussian.sampling.as_steps`)."""

    def parse(self, inputs: Any) -> dict:
        has_steps = any(p.name == "steps" for p in self.params)
        return super().parse(as_steps(dict(inputs), self.aliases, has_steps))

    def bracket_within(self, inputs: Any = None, *, seconds: float = 10.0, **kw: Any) -> Any:
        # the trained form turned into q and steps first, so that the narrowing hint names the run's inputs
        extra = {"rel_tol": kw.pop("rel_tol")} if "rel_tol" in kw else {}
        has_steps = any(p.name == "steps" for p in self.params)
        given = as_steps({**(inputs or {}), **kw}, self.aliases, has_steps)
        return super().bracket_within(given, seconds=seconds, **extra)


_SAMPLING = choice(
    "sampling",
    SAMPLINGS,
    default="poisson",
    doc="batch sampler: poisson (rate q), fixed (batches of q*n without replacement), shuffle (disjoint batches each "
    "epoch)",
)
_NEIGHBORING = choice(
    "neighboring", NEIGHBORINGS, default="add_remove", doc="neighbouring datasets: add/remove one, or replace one"
)


DPSGD_DELTA = DpsgdQuantity(
    "dpsgd.delta",
    (_Q, _SIGMA, _STEPS, _EPS, _SAMPLING, _NEIGHBORING),
    _delta_ball,
    _REF,
    "tight delta(eps) of DP-SGD (Poisson rate q, noise multiplier sigma, steps), max of add and remove: the "
    "certified PLD bracket (narrows like 1/n^2 in the resolution n)",
    bracket=True,
    within=_delta_within,
    within_takes_width=True,
    narrow_hint="dpcert eval dpsgd.delta {inputs} --seconds {seconds}",
)
DPSGD_EPS = DpsgdQuantity(
    "dpsgd.eps",
    (_Q, _SIGMA, _STEPS, _DELTA, _SAMPLING, _NEIGHBORING),
    _eps_ball,
    _REF,
    "tight eps(delta) of DP-SGD (the least eps >= 0 with delta(eps) <= delta): the certified PLD bracket",
    bracket=True,
    within=_eps_within,
    within_takes_width=True,
    narrow_hint="dpcert dpsgd eps {inputs} --method pld --seconds {seconds}",
)
DPSGD_SIGMA = DpsgdQuantity(
    "dpsgd.sigma",
    (_Q, _STEPS, _EPS, _DELTA, _SAMPLING, _NEIGHBORING),
    _sigma_ball,
    _REF + "; monotone in sigma by post-processing",
    "the least noise multiplier making DP-SGD (eps, delta)-DP (tight PLD): [sigma_lo, sigma_hi], delta(sigma_hi) "
    "<= delta and delta(sigma_lo) > delta proved",
    bracket=True,
    within=_sigma_within,
    within_takes_width=True,
    narrow_hint="dpcert dpsgd sigma {inputs} --seconds {seconds}",
)

QUANTITIES = [DPSGD_DELTA, DPSGD_EPS, DPSGD_SIGMA]
