"""From compositions to answers: δ(ε), ε(δ), the refinement driver and the calibration of a parameter.

**Evaluation.** For one direction, δ_k(ε) = P_s-part + E[(Y_1⋯Y_k − e^ε)₊]. Over the final atoms (both measures)
δ = Σ_j w_j (e^{j/n} − e^ε)₊ is computed in balls; the lower measure is <=_icx the exact composition, so its sum
is a lower bound, and the upper measure's sum plus the carried error (windows and tails) is an upper bound
(:mod:`dpcert.pld.discretise`, :mod:`dpcert.pld.compose`). The mass of an infinite composed loss, a ball, is added
to both. The lower end of the lower ball and the upper end of the upper ball are the certified enclosure. A
mechanism with several neighbouring directions has δ = the largest direction's: the enclosure of a maximum is the
maximum of the ends.

**Inversion.** δ_k is non-increasing in ε, so δ_up(b) <= δ proves ε(δ) <= b and δ_lo(a) > δ proves ε(δ) > a; each
end is found by :func:`dpcert.arith.search.certified_root` on its own condition, all probes from the same
compositions (one composition serves the whole δ(ε) curve).

**Refinement.** Every resolution gives a valid enclosure, so the intersection of two is valid; two valid
enclosures of one number always overlap, so an empty intersection can only be a defect and is raised, never
returned. The resolution doubles (or more, when the width is far from the target and the time allows) until the
width is reached, the budget would be exceeded, or the grid would not fit :data:`~dpcert.pld.discretise.MAX_CELLS`;
:attr:`PldResult.limited_by` says which.

**Calibration.** For a parameter θ in which δ_k(ε; θ) is non-increasing (σ, by post-processing: a larger σ is a
smaller one followed by independent noise), δ_up(θ_hi) <= δ proves θ_min <= θ_hi and δ_lo(θ_lo) > δ proves θ_min >
θ_lo; :func:`calibrate` brackets θ_min with both proofs, probes at one resolution sharing a cache.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

from flint import arb, arb_poly

from dpcert.arith.ball import Enclosure, ball, fraction_of, workprec
from dpcert.errors import InvalidParameter
from dpcert.pld.compose import Composed, combine, compose
from dpcert.pld.discretise import (
    MAX_CELLS,
    GridTooLarge,
    Measure,
    StepMeasures,
    cells_needed,
    discretise,
    working_precision,
)
from dpcert.pld.fftcompose import (
    FloatComposed,
    compose_fft,
    compose_fft_mixed,
    rdp_theta,
    rdp_theta_mixed,
    saddle_theta,
    saddle_theta_mixed,
)
from dpcert.pld.floatdisc import discretise_float
from dpcert.pld.loss import PrivacyLoss

__all__ = [
    "START_CELLS",
    "TAIL0",
    "EPS_SEARCH_TOL",
    "LEVEL_CAP",
    "ball_level",
    "enclosure_ball",
    "PldResult",
    "EmptyIntersection",
    "compose_directions",
    "compose_directions_mixed",
    "delta_of",
    "delta_enclosure",
    "eps_enclosure",
    "refining",
    "calibrate",
    "resolution_for",
    "fitting_resolution",
]

Progress = Callable[[str], None] | None

#: The tail (P-mass each side of one step's grid, all steps together) of the first run of a refinement.
TAIL0 = 1e-22

#: The relative tolerance of the ε search at most (:func:`eps_enclosure`): the search is cheap (its probes reuse
#: the compositions), so the grid, never the search, sets a driver's width.
EPS_SEARCH_TOL = 1e-4

#: The largest effort of the ball path, 2^LEVEL_CAP times the starting resolution.
LEVEL_CAP = 2


def ball_level(prec: int) -> int:
    """The ball path's effort: the resolution doubles with every doubling of the precision past 64 bits, up to
    :data:`LEVEL_CAP` doublings (a re-check asking for a 1000 times narrower enclosure stops there)."""
    return min(LEVEL_CAP, max(0, (prec // 64).bit_length() - 1))


def enclosure_ball(enc: Enclosure, prec: int, *, exact_point: bool = False) -> arb | Fraction:
    """A quantity's ball evaluator's value from a PLD enclosure: the enclosure as a ball at ``prec`` bits, or, with
    ``exact_point``, its exact value when it is a point (ε(δ) = 0 proved)."""
    if exact_point and enc.is_exact:
        return enc.lo
    with workprec(prec):
        return enc.ball()


#: The most cells of one step's grid a refinement starts with; it doubles from there while the budget allows. A
#: tiny q with a small σ has a long loss range, and a first run of millions of cells would spend the whole budget.
START_CELLS = 2**16


class EmptyIntersection(ArithmeticError):
    """Two certified enclosures of one number do not overlap: a defect of the construction, never an answer."""


@dataclass(frozen=True)
class PldResult:
    """A certified PLD enclosure and how it was reached.

    Attributes:
        enclosure: the certified enclosure (δ, ε or a calibrated parameter).
        resolution: n, grid cells per unit of privacy loss, of the narrowest run.
        seconds: the time taken.
        reached: whether the relative width asked for was reached.
        runs: the resolutions tried, in order.
        limited_by: ``"width"`` (reached), ``"time"`` (the next resolution would exceed the budget) or ``"grid"``
            (the next resolution would not fit the largest grid).
    """

    enclosure: Enclosure
    resolution: int
    seconds: float
    reached: bool
    runs: tuple[int, ...]
    limited_by: str = "width"


def compose_directions(
    losses: list[PrivacyLoss],
    steps: int,
    n: int,
    tail: float,
    progress: Progress = None,
    *,
    method: str = "arb",
    eps: Fraction | None = None,
    delta: Fraction | None = None,
) -> list[Composed | FloatComposed]:
    """The k-fold compositions of every direction at resolution n.

    ``tail`` is the P-mass each side of one step's grid may leave out in all k steps together (each step gets
    tail/k) and, divided by the number of products, each window's.

    ``method="fft"`` composes by the float path (:mod:`dpcert.pld.fftcompose`: one FFT, a k-th power, one inverse
    FFT, with a proved round-off bound), tilted for the ε (or, given ``delta``, the ε(δ)) the caller will ask
    about: any ε is still answered validly, the tilt only decides where the answer is tightest. A direction
    the float path declines (a tilt or window past the float range) is composed by the arb path. With ``"fft"``
    one step is also discretised in floats (:func:`dpcert.pld.floatdisc.discretise_float`, each end proved on the
    floats; the arb discretisation where a float check is not decided), with ``"arb"`` in balls.
    """
    if method not in ("arb", "fft"):
        raise ValueError(f"method must be 'arb' or 'fft', not {method!r}")

    def one(parts: list[tuple[StepMeasures, int]], report: Progress) -> Composed | FloatComposed:
        st = parts[0][0]
        if method == "fft":
            if eps is not None:
                theta = saddle_theta(st, steps, eps)
            elif delta is not None:
                theta = rdp_theta(st, steps, delta)
            else:
                theta = 1.0
            fc = compose_fft(st, steps, theta, report)
            if fc is not None:
                return fc
        rounds = 2 * max(1, steps.bit_length())
        return compose(st, steps, tail / rounds, report)

    out: list[Composed | FloatComposed] = []
    for loss in losses:
        if progress is not None:
            progress(f"{loss.name}: one step on {n} cells per unit loss")
        disc = discretise_float if method == "fft" else discretise
        st = disc(loss, n, tail / steps, groups=steps <= GROUPS_STEPS)
        report = None if progress is None else (lambda m, d=loss.name: progress(f"{d}: {m}"))
        out.append(_with_groups(one, [(st, steps)], report))
    return out


#: Up to this many steps in all, a composition is also run with the equal-mean groups' lower measures and the
#: larger lower end is taken (:func:`delta_of`; both are lower bounds). Next to a pile of mass (the subsampled
#: Gaussian's cell just below loss 0) the groups' lower end at ε = 0 is the tighter one at one to four steps
#: (measured, q = 1e-3, σ = 1/2, n = 1024: 2.4 %, 0.26 %, 0.07 %, 0.03 % higher at k = 1 … 4, 0.04 % lower at
#: k = 6), the convex minorant's from then on and away from ε = 0. Past it nothing extra is built or composed.
GROUPS_STEPS = 4


def _with_groups(make: Callable, steps: list[tuple[StepMeasures, int]], report: Progress) -> Composed | FloatComposed:
    """``make(steps, report)``, carrying as ``alt`` the same composition with the groups' lower measures when every
    step has them."""
    main = make(steps, report)
    if any(st.lower_groups is None for st, _ in steps):
        return main
    alt = make([(replace(st, lower=st.lower_groups, lower_groups=None), k) for st, k in steps], report)
    return replace(main, alt=alt)


def compose_directions_mixed(
    parts: list[tuple[list[PrivacyLoss], int]],
    n: int,
    tail: float,
    progress: Progress = None,
    *,
    method: str = "fft",
    eps: Fraction | None = None,
    delta: Fraction | None = None,
) -> list[Composed | FloatComposed]:
    """Every direction's composition of different steps at resolution n: k_i steps of each part, all together.

    ``parts`` holds (directions, k_i >= 1): a part with one direction serves every direction (one law for both
    orders of its neighbouring pairs); parts with more must agree on how many, and direction d of the composition
    composes direction d of each. ``tail`` is the P-mass each side of a step's grid may leave out in all Σ k_i steps
    together (each step gets tail/Σ k_i).

    ``method="fft"`` composes each direction in one float composition
    (:func:`dpcert.pld.fftcompose.compose_fft_mixed`: each part's transform raised to its count, the product, one
    inverse FFT, with a proved round-off bound), tilted for the ε (or, given ``delta``, the ε(δ)) the caller will ask
    about; a direction the float path declines, and every direction with ``method="arb"``, is composed by the arb
    path: each part k_i-fold (:func:`dpcert.pld.compose.compose`), the parts joined by
    :func:`dpcert.pld.compose.combine`. The steps are discretised as by :func:`compose_directions` (in floats with
    ``"fft"``, in balls with ``"arb"``).

    Raises:
        ValueError: an unknown method, no parts, a count below 1, or parts disagreeing on the number of directions.
    """
    if method not in ("arb", "fft"):
        raise ValueError(f"method must be 'arb' or 'fft', not {method!r}")
    if not parts:
        raise ValueError("compose_directions_mixed needs at least one part")
    for _, k in parts:
        if k < 1:
            raise ValueError(f"steps must be >= 1, not {k}")
    ndir = max(len(losses) for losses, _ in parts)
    if any(len(losses) not in (1, ndir) for losses, _ in parts):
        raise ValueError(f"parts with {sorted({len(ls) for ls, _ in parts})} directions cannot be composed together")
    total = sum(k for _, k in parts)
    measures: dict[int, StepMeasures] = {}  # one discretisation per loss (a one-direction part serves all)

    def measure(loss: PrivacyLoss) -> StepMeasures:
        if id(loss) not in measures:
            if progress is not None:
                progress(f"{loss.name}: one step on {n} cells per unit loss")
            disc = discretise_float if method == "fft" else discretise
            measures[id(loss)] = disc(loss, n, tail / total, groups=total <= GROUPS_STEPS)
        return measures[id(loss)]

    def one(steps: list[tuple[StepMeasures, int]], report: Progress) -> Composed | FloatComposed:
        if method == "fft":
            if eps is not None:
                theta = saddle_theta_mixed(steps, eps)
            elif delta is not None:
                theta = rdp_theta_mixed(steps, delta)
            else:
                theta = 1.0
            fc = compose_fft_mixed(steps, theta, report)
            if fc is not None:
                return fc
        acc: Composed | None = None
        tau = tail / (2 * len(steps))  # each join's window (tightness only)
        for st, k in steps:
            rounds = 2 * max(1, k.bit_length())
            c = compose(st, k, tail * k / total / rounds, report)
            acc = c if acc is None else combine(acc, c, tau)
        assert acc is not None
        return acc

    out: list[Composed | FloatComposed] = []
    for d in range(ndir):
        chosen = [(losses[d] if len(losses) > 1 else losses[0], k) for losses, k in parts]
        steps = [(measure(loss), k) for loss, k in chosen]
        name = chosen[0][0].name if len(chosen) == 1 else f"direction {d + 1} of {ndir}"
        report = None if progress is None else (lambda m, d=name: progress(f"{d}: {m}"))
        out.append(_with_groups(one, steps, report))
    return out


def resolution_for(variance: float, least: int = 64, most: int = 2**22) -> int:
    """A float guess of the resolution n = 1/Δ giving a few per cent relative width (tightness only).

    The chord split adds about Δ²/6 per step to the variance of the composed loss, whose variance is about k times
    one step's ``variance`` (Var_Q(Y)); n is the power of two making the ratio about 10^-3, within [least, most].
    """
    ratio = 1e-3
    n = math.sqrt(1 / (6 * ratio * max(variance, 1e-300)))
    return max(least, min(int(2 ** math.ceil(math.log2(n))), most))


def fitting_resolution(losses: list[PrivacyLoss], n: int, tail: float, max_cells: int = MAX_CELLS) -> int:
    """The largest n / 2^j (j >= 0) at which every direction's one-step range fits ``max_cells`` cells (a coarser
    grid is valid, only wider; the refinement narrows it again).

    Raises:
        GridTooLarge: if even n = 1 does not fit.
    """
    while True:
        worst = max(cells_needed(loss, n, max(tail, 1e-320)) for loss in losses)
        if worst <= max_cells:
            return n
        if n == 1:
            raise GridTooLarge(n, worst)
        n //= 2


def _hockey(meas: Measure, n: int, eps: Fraction) -> arb:
    """Σ_j w_j (e^{j/n} − e^ε)₊ in balls."""
    j0 = math.floor(eps * n) + 1  # the first j with j/n > ε
    start = max(0, j0 - meas.off)
    coeffs = meas.poly.coeffs()
    if start >= len(coeffs):
        return arb(0)
    high = arb_poly(list(coeffs[start:]))
    first = meas.off + start
    return ball(Fraction(first, n)).exp() * high(ball(Fraction(1, n)).exp()) - ball(eps).exp() * high(arb(1))


def delta_of(composed: Composed | FloatComposed, eps: Fraction) -> Enclosure:
    """The certified enclosure of one direction's δ_k(ε) from a composition (lower end >= 0)."""
    if isinstance(composed, FloatComposed):
        enc = composed.delta(eps)
    else:
        n = composed.n
        with workprec(working_precision(n)):
            lo = _hockey(composed.lower, n, eps) + composed.infinite
            hi = _hockey(composed.upper, n, eps) + composed.error + composed.infinite
        enc = Enclosure(max(Fraction(0), fraction_of(lo.lower())), fraction_of(hi.upper()))
    if composed.alt is not None:  # a second valid lower end (the groups' lower measures): the larger one
        enc = Enclosure(max(enc.lo, delta_of(composed.alt, eps).lo), enc.hi)
    return enc


def _fraction_tol(rel_tol: float, denominator: int) -> Fraction:
    """``rel_tol`` as a short fraction, or exactly when it is below 1/denominator (never 0)."""
    short = Fraction(rel_tol).limit_denominator(denominator)
    return short if short > 0 else Fraction(rel_tol)


def delta_enclosure(compositions: list[Composed] | list[FloatComposed], eps: Fraction) -> Enclosure:
    """max over directions of the certified δ_k(ε)."""
    encs = [delta_of(c, eps) for c in compositions]
    return Enclosure(max(e.lo for e in encs), max(e.hi for e in encs))


def eps_enclosure(compositions: list[Composed] | list[FloatComposed], delta: Fraction, rel_tol: float) -> Enclosure:
    """The certified enclosure of ε(δ) = min{ε >= 0 : δ_k(ε) <= δ} from fixed compositions.

    δ_k is non-increasing in ε, so δ_up(b) <= δ proves ε <= b, and δ_lo(a) > δ proves ε > a. Each end is found
    by :func:`dpcert.arith.search.certified_root` on its own condition (decided from the ball's end points).
    """
    from dpcert.arith.exact import fraction_to_decimal
    from dpcert.arith.search import certified_root

    def up_holds(e: Fraction) -> bool:
        return delta_enclosure(compositions, e).hi <= delta

    def lo_holds(e: Fraction) -> bool:  # "not certified above δ"
        return not delta_enclosure(compositions, e).lo > delta

    zero = Fraction(0)
    if up_holds(zero):
        return Enclosure.exact(0)
    top = Fraction(1)
    while not up_holds(top):
        top *= 2
        if top > 2**20:
            floor = delta_enclosure(compositions, top).hi
            raise InvalidParameter(
                "delta",
                fraction_to_decimal(delta, 3, "nearest"),
                f"a target above {fraction_to_decimal(floor, 3, 'up')}, the least delta this grid certifies (its "
                "dropped tails and round-off bound every certified delta from below; no eps <= 2^20 meets the "
                "target here); "
                "--method rdp certifies smaller ones",
            )
    # the tolerance is relative to ε itself (certified_root's relative mode scales by max(1, |ε|)): a first
    # coarse search gives the scale
    coarse = certified_root(lambda e, p: up_holds(e), zero, top, tol=Fraction(1, 64), what="delta_up(eps) <= delta")
    scale = max(coarse.lo, Fraction(1, 2**40))
    tol = _fraction_tol(rel_tol, 10**12) / 64 * scale  # probes are cheap (O(n) each)
    hi = certified_root(
        lambda e, p: up_holds(e),
        coarse.lo,
        coarse.hi,
        tol=tol,
        relative=False,
        check_ends=coarse.lo == 0,
        what="delta_up(eps) <= delta",
    ).safe
    if lo_holds(zero):
        return Enclosure(zero, hi)
    lo_br = certified_root(lambda e, p: lo_holds(e), zero, hi, tol=tol, relative=False, what="delta_lo(eps) <= delta")
    return Enclosure(lo_br.lo, hi)


def narrow(enc: Enclosure, rel_tol: float) -> bool:
    """Whether ``enc`` is exact or at most ``rel_tol`` wide relative to itself."""
    return enc.is_exact or (enc.width is not None and (enc.width == 0 or enc.rel_width() <= rel_tol))


def intersect(a: Enclosure, b: Enclosure) -> Enclosure:
    """The intersection of two certified enclosures of one number.

    Raises:
        EmptyIntersection: if they do not overlap (a defect: both cannot hold).
    """
    lo = max(a.lo, b.lo)
    hi = b.hi if a.hi is None else a.hi if b.hi is None else min(a.hi, b.hi)
    if hi is not None and lo > hi:
        raise EmptyIntersection(
            f"two certified enclosures of one number do not overlap: {a.short(8)} and {b.short(8)} (a defect)"
        )
    return Enclosure(lo, hi)


def refining(
    solve: Callable[[int, float], Enclosure],
    n0: int,
    rel_tol: float,
    seconds: float,
    progress: Progress,
    tail_of: Callable[[Enclosure, float], float],
    tail0: float = 1e-22,
) -> PldResult:
    """Double the resolution (the width falls about 4x each time) until the width is reached, the next run would
    exceed the budget (its time predicted from the last one) or the grid would not fit; every run is valid, so the
    intersection is (an empty one is raised: :func:`intersect`).

    Raises:
        GridTooLarge: if the first resolution's grid does not fit (later ones end the refinement instead).
    """
    t0 = time.perf_counter()
    n, tail = n0, tail0
    best: Enclosure | None = None
    runs: list[int] = []
    while True:
        t1 = time.perf_counter()
        try:
            enc = solve(n, tail)
        except GridTooLarge:
            if best is None:
                raise
            return PldResult(best, runs[-1], time.perf_counter() - t0, False, tuple(runs), "grid")
        took = time.perf_counter() - t1
        runs.append(n)
        best = enc if best is None else intersect(best, enc)
        if progress is not None:
            progress(f"resolution {n}: {best.short(6)} ({took:.1f} s)")
        if narrow(best, rel_tol):
            return PldResult(best, n, time.perf_counter() - t0, True, tuple(runs), "width")
        left = seconds - (time.perf_counter() - t0)
        w = best.rel_width()
        factor = 2  # the width falls about 4x per doubling; the time grows about 2x: the largest step that fits
        while factor < 16 and w / factor**2 > rel_tol and took * 2 * factor * 1.3 <= left:
            factor *= 2
        if took * factor * 1.3 > left:
            return PldResult(best, n, time.perf_counter() - t0, False, tuple(runs), "time")
        n *= factor
        tail = tail_of(best, tail)


def calibrate(
    compositions_at: Callable[[Fraction, int], list[Composed]],
    eps: Fraction,
    delta: Fraction,
    guess: float,
    n0: int,
    rel_tol: float,
    seconds: float,
    progress: Progress = None,
    name: str = "theta",
) -> PldResult:
    """Certified calibration: [θ_lo, θ_hi] around θ_min = min{θ : δ_k(ε; θ) <= δ} for a parameter θ > 0 in which
    δ_k(ε; θ) is non-increasing, with δ(θ_hi) <= δ proved (the upper PLD bound) and δ(θ_lo) > δ proved (the lower
    one). ``compositions_at(θ, n)`` gives the compositions of every direction at resolution n; the probes share one
    resolution, doubled while the bracket is wider than ``rel_tol`` and the budget allows.
    """
    from dpcert.arith.search import certified_root

    t0 = time.perf_counter()
    n = n0
    runs: list[int] = []
    best = Enclosure(Fraction(0), None)  # type: ignore[arg-type]
    while True:
        cache: dict[Fraction, Enclosure] = {}  # one per resolution

        def delta_at(s: Fraction, n: int = n, cache: dict = cache) -> Enclosure:
            if s not in cache:
                cache[s] = delta_enclosure(compositions_at(s, n), eps)
                if progress is not None:
                    progress(f"resolution {n}: {name} = {float(s):.8g}: delta in {cache[s].short(4)}")
            return cache[s]

        lo, hi = Fraction(guess / 2).limit_denominator(2**20), Fraction(guess * 2).limit_denominator(2**20)
        while not delta_at(hi).hi <= delta:
            lo, hi = hi, hi * 2
        while delta_at(lo).hi <= delta and lo > Fraction(1, 2**20):
            hi, lo = lo, lo / 2
        # relative to θ itself (certified_root's relative mode scales by max(1, |θ|))
        tol = _fraction_tol(rel_tol, 10**9) / 4 * lo
        up = certified_root(
            lambda s, p: delta_at(s).hi <= delta, lo, hi, tol=tol, relative=False, check_ends=True, what=f"{name}_hi"
        )
        s_hi = up.safe
        low_fail = [s for s, enc in cache.items() if enc.lo > delta and s <= s_hi]
        s_lo = max(low_fail) if low_fail else Fraction(0)
        if s_lo > 0 and not narrow(Enclosure(s_lo, s_hi), rel_tol) and delta_at(s_hi).lo <= delta:
            dn = certified_root(
                lambda s, p: not delta_at(s).lo > delta,
                s_lo,
                s_hi,
                tol=tol,
                relative=False,
                check_ends=False,
                what=f"{name}_lo",
            )
            s_lo = dn.lo
        runs.append(n)
        best = intersect(best, Enclosure(s_lo, s_hi))
        took = time.perf_counter() - t0
        if narrow(best, rel_tol):
            return PldResult(best, n, time.perf_counter() - t0, True, tuple(runs), "width")
        if took * 3 > seconds:
            return PldResult(best, n, time.perf_counter() - t0, False, tuple(runs), "time")
        n *= 2
