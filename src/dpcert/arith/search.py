"""Certified search: the root of a monotone condition, and the maximum over a finite candidate set.

Both are formula-agnostic. The caller supplies a certified *probe* evaluated in ball arithmetic at a given
precision; the search decides where to probe, raises the precision through :func:`~dpcert.arith.ball.refine`
(so ``max_prec`` bounds every step) and reports what was certified.

:func:`certified_root` brackets the point where a monotone condition switches from false to true, e.g. the least
ε_g with δ(ε_g) <= δ. A float starting guess is verified first (probes at guess ± w, w widened when both land on
one side); if the probe also reports the residual f(x) − target and the slope f'(x), Newton estimates place the
next probes, with w set from the observed curvature; a round that does not halve the bracket is followed by a
bisection step, so the search always terminates. The result names its *safe* end: the end where the condition is
certified (for an upper bound, the upper end).

:func:`certified_argmax` certifies which candidates attain the maximum of a function over a finite set. Values that
are exact rationals compare exactly (ties are exact ties, never undecided); a callback may prove two candidates
equal; everything else is refined until the maximum is separated from the rest.

References:
    Bisection with certified sign tests is the interval Newton/bisection idea of R. E. Moore, "Interval
    Analysis", 1966, ch. 7; the probes use Arb balls (Johansson, IEEE TC 66(8), 2017).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from flint import arb

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, refine

__all__ = ["Probe", "Bracket", "certified_root", "ArgMax", "certified_argmax"]

T = TypeVar("T")
Number = Fraction | float | int


@dataclass(frozen=True)
class Probe:
    """A certified answer of a probe, with optional hints for placing the next probe.

    Attributes:
        holds: whether the condition holds at the probed point (certified by the caller).
        residual: an estimate (a midpoint) of f(x) − target, where the condition is ``f(x) <= target`` or
            ``f(x) >= target``; only a hint, never trusted for the answer.
        slope: an estimate of f'(x) (a hint as well); with ``residual`` it gives a Newton estimate.
    """

    holds: bool
    residual: Number | None = None
    slope: Number | None = None


@dataclass(frozen=True)
class Bracket:
    """The result of :func:`certified_root`.

    Attributes:
        lo, hi: the bracket, lo <= hi (exact rationals); the switching point lies in [lo, hi].
        safe: the end where the condition is certified to hold (hi when it holds above the root, lo otherwise).
        unsafe_certified: whether the condition is certified to fail at the other end (False when that end is a
            boundary of the search interval at which the condition holds: then lo == hi == safe).
        precision: the largest precision (bits) any probe needed.
        probes: how many points were probed.
    """

    lo: Fraction
    hi: Fraction
    safe: Fraction
    unsafe_certified: bool
    precision: int
    probes: int

    @property
    def enclosure(self) -> Enclosure:
        return Enclosure(self.lo, self.hi)


def _dyadic(x: Fraction, bits: int) -> Fraction:
    # probe points with short dyadic denominators are exact balls and keep the caller's rational arithmetic cheap
    return Fraction(round(x * 2**bits), 2**bits)


def _fraction(x: Number) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    return Fraction(x)


def _point(x: Fraction) -> str:
    """A probe point for a message: exact when short, else 17 significant digits (a dyadic point of a tiny root
    has a denominator of thousands of digits, beyond Python's int-to-string limit)."""
    return str(x) if x.denominator.bit_length() <= 256 else Enclosure.exact(x).short(17)


def certified_root(
    decide: Callable[[Fraction, int], bool | Probe | None],
    lo: Number,
    hi: Number,
    *,
    holds_above: bool = True,
    tol: Number = Fraction(1, 10**12),
    relative: bool = True,
    guess: Number | Callable[[], Number | None] | None = None,
    guess_rel_err: Number = Fraction(1, 2**36),
    check_ends: bool = True,
    start_prec: int = START_PREC,
    max_prec: int = MAX_PREC,
    what: str = "condition",
) -> Bracket:
    """Certified bracket of the point where a monotone condition switches between false and true.

    The condition C(x) is monotone on [lo, hi]: with ``holds_above`` it is false below some x* and true above
    (e.g. C(x) = "δ(x) <= δ" for a non-increasing δ), otherwise true below and false above. The search returns
    [a, b] containing x* with C certified true at the safe end and false at the other (unless that end is a
    boundary of [lo, hi]), and b − a <= tol (times max(1, |a|, |b|) when ``relative``).

    Args:
        decide: ``decide(x, prec)`` decides C(x) in ball arithmetic at ``prec`` bits (it runs inside
            ``workprec(prec)``): ``True``/``False`` when certain, ``None`` when undecided at that precision, or
            a :class:`Probe` carrying the answer plus Newton hints. Points x are exact dyadic rationals.
        lo, hi: the search interval (exact; floats are their binary values), lo < hi.
        holds_above: whether C holds above the switching point (True) or below it (False).
        tol: the bracket width asked for (> 0).
        relative: whether ``tol`` is relative to max(1, |ends|) (True) or absolute.
        guess: a float starting guess of x*, or a callable computing one (called only when the ends do not
            settle the answer; an exception it raises is ignored: the guess is a starting point only).
        guess_rel_err: the guess's expected relative error (sets the first probe offset).
        check_ends: probe C at lo and hi first (True). When False the caller asserts that C fails at the
            unsafe end and holds at the safe end of [lo, hi].
        start_prec, max_prec: precision of the first attempt of each probe, and the cap (bits).
        what: a description used in the ``PrecisionExhausted`` message.

    Returns:
        A :class:`Bracket`. If C already holds at the unsafe end of [lo, hi], the bracket is that single point.

    Raises:
        ValueError: if lo >= hi, tol <= 0, or C is certified false at the safe end (no switch in [lo, hi]).
        PrecisionExhausted: if a probe is undecided at ``max_prec``.

    References:
        R. E. Moore, "Interval Analysis", 1966, ch. 7 (certified bisection); Newton's method for the probes.

    >>> third = certified_root(lambda x, prec: 3 * x >= 1, 0, 1, tol=Fraction(1, 2**40))
    >>> third.lo <= Fraction(1, 3) <= third.hi and third.safe == third.hi
    True
    """
    a, b, t = _fraction(lo), _fraction(hi), _fraction(tol)
    if not a < b:
        raise ValueError(f"certified_root needs lo < hi, got [{a}, {b}]")
    if t <= 0:
        raise ValueError(f"certified_root needs tol > 0, got {tol!r}")
    stats = {"prec": 0, "probes": 0}

    def probe(x: Fraction) -> Probe:
        def step(prec: int) -> Probe | None:
            out = decide(x, prec)
            if out is None:
                return None
            return out if isinstance(out, Probe) else Probe(bool(out))

        result, prec = refine(step, what=f"{what} at {_point(x)}", start_prec=start_prec, max_prec=max_prec)
        stats["prec"], stats["probes"] = max(stats["prec"], prec), stats["probes"] + 1
        return result

    # fail/hold: the ends where C is certified false/true (search in those terms, whatever the direction)
    fail, hold = (a, b) if holds_above else (b, a)
    first: Probe | None = None
    if check_ends:
        first = probe(fail)
        if first.holds:
            return Bracket(fail, fail, fail, False, stats["prec"], stats["probes"])
        if not probe(hold).holds:
            raise ValueError(f"{what}: certified false at both ends of [{a}, {b}]: no switching point inside")

    def done() -> bool:
        lo_, hi_ = min(fail, hold), max(fail, hold)
        scale = max(Fraction(1), abs(lo_), abs(hi_)) if relative else Fraction(1)
        return hi_ - lo_ <= t * scale

    def newton(x: Fraction, p: Probe) -> Fraction | None:
        if p.residual is None or p.slope is None or p.slope == 0:
            return None
        return x - _fraction(p.residual) / _fraction(p.slope)

    def inside(x: Fraction) -> bool:
        return min(fail, hold) < x < max(fail, hold)

    est: Fraction | None = None
    if first is not None:
        est = newton(fail, first)
    if callable(guess):
        try:
            g = guess()
            if g is not None and math.isfinite(float(g)):
                est = _fraction(g)
        except (ValueError, ArithmeticError, RuntimeError):
            pass
    elif guess is not None:
        est = _fraction(guess)
    bits = max(64, 2 * (1 + math.ceil(1 / t).bit_length()) + max(abs(a), abs(b), Fraction(1)).__ceil__().bit_length())
    w = _fraction(guess_rel_err) * max(Fraction(1), abs(est) if est is not None else Fraction(0))
    curvature: float | None = None
    history: list[tuple[Fraction, Fraction]] = []  # (x, slope) of the probes that reported a slope
    width0 = abs(hold - fail)
    for _ in range(4 * (bits + width0.__ceil__().bit_length()) + 64):
        if done():
            break
        before = abs(hold - fail)
        lo_, hi_ = min(fail, hold), max(fail, hold)
        scale = max(Fraction(1), abs(lo_), abs(hi_)) if relative else Fraction(1)
        floor_w = t * scale / 3
        if est is not None:
            # an estimate outside the bracket (Newton overshoots from the convex side) still says which end is
            # close to the root: probe inwards from that end
            est = min(max(est, lo_), hi_)
            w = max(min(w, before / 4), floor_w)
            results = []
            for x in (_dyadic(est + w, bits), _dyadic(est - w, bits)):
                if inside(x):
                    p = probe(x)
                    results.append((x, p))
                    if p.holds:
                        hold = x
                    else:
                        fail = x
            history += [(x, _fraction(p.slope)) for x, p in results if p.slope]
            if len(history) >= 2 and history[-1][0] != history[-2][0]:
                # relative change of the slope per unit x, from the last two probes that reported one
                (x1, s1), (x2, s2) = history[-2:]
                try:  # a hint only: beyond float64's range (roots near 1e-3999) there is none
                    curvature = float(abs(s1 - s2) / abs(x1 - x2) / (abs(s1) + abs(s2)))
                except (OverflowError, ZeroDivisionError):
                    curvature = None
            steps = [(abs(n - x), n) for x, p in results if (n := newton(x, p)) is not None]
            est = min(steps)[1] if steps else None
            if len(results) == 2 and results[0][1].holds == results[1][1].holds:
                w *= 16  # the estimate was off by more than w
            elif steps and curvature is not None:
                step = min(steps)[0]
                w = max(floor_w, Fraction(4 * curvature) * step * step)
            if abs(hold - fail) <= before / 2:
                continue
        x = _dyadic((fail + hold) / 2, bits)
        if not inside(x):
            x = (fail + hold) / 2
        p = probe(x)
        if p.holds:
            hold = x
        else:
            fail = x
        est = newton(x, p)
    else:  # pragma: no cover - bisection alone halves the bracket every round
        raise RuntimeError(f"{what}: certified_root did not converge")
    lo_, hi_ = min(fail, hold), max(fail, hold)
    return Bracket(lo_, hi_, hold, True, stats["prec"], stats["probes"])


@dataclass(frozen=True)
class ArgMax(Generic[T]):
    """The result of :func:`certified_argmax`.

    Attributes:
        maximisers: the candidates attaining the maximum, in input order (several only when proved equal).
        indices: their positions in the candidate list.
        enclosure: a rigorous enclosure of the maximum (exact when a maximiser's value is an exact rational).
        exact_tie: whether several maximisers were proved equal (exact rationals or the ``equal`` callback).
        precision: the largest precision (bits) used (0 when every value was exact).
    """

    maximisers: tuple[T, ...]
    indices: tuple[int, ...]
    enclosure: Enclosure
    exact_tie: bool
    precision: int


def certified_argmax(
    candidates: Sequence[T],
    value: Callable[[T, int], arb | Fraction | int],
    *,
    equal: Callable[[T, T], bool] | None = None,
    start_prec: int = START_PREC,
    max_prec: int = MAX_PREC,
    what: str = "argmax",
) -> ArgMax[T]:
    """Certified maximisers of ``value`` over a finite, non-empty candidate set, with exact tie handling.

    At each precision every candidate still in the running is evaluated (an exact value only once); a candidate
    whose upper bound is below the best lower bound is out for good. The search stops when the survivors are
    all proved equal: exact rationals that are equal, or pairs for which ``equal(a, b)`` returns True (an exact
    proof by the caller, e.g. a symmetry or an identity of rational functions). Two exact values never need
    precision: they compare exactly.

    Args:
        candidates: the finite candidate set (any objects).
        value: ``value(c, prec)``: the value of candidate c as an ``arb`` ball at ``prec`` bits (called inside
            ``workprec(prec)``), or an exact ``Fraction``/``int``.
        equal: optional exact equality proof; ``equal(a, b)`` True means value(a) = value(b) exactly.
        start_prec, max_prec: the first and the largest precision (bits).
        what: a description used in the ``PrecisionExhausted`` message.

    Returns:
        An :class:`ArgMax` with the maximisers and an enclosure of the maximum.

    Raises:
        ValueError: for an empty candidate set.
        PrecisionExhausted: if two candidates cannot be separated nor proved equal at ``max_prec``.

    References:
        Certified comparison of Arb balls (Johansson, IEEE TC 66(8), 2017); exact rationals compare exactly.

    >>> best = certified_argmax([0, 1, 2, 3], lambda c, prec: Fraction(-((c - 1) * (c - 2))))
    >>> best.indices, best.enclosure.is_exact, best.exact_tie
    ((1, 2), True, True)
    """
    items = list(candidates)
    if not items:
        raise ValueError(f"{what}: certified_argmax needs at least one candidate")
    exact: dict[int, Fraction] = {}
    alive = list(range(len(items)))
    used = {"prec": 0}

    def step(prec: int) -> tuple[list[int], dict[int, Enclosure]] | None:
        nonlocal alive
        encs: dict[int, Enclosure] = {}
        for j in alive:
            if j in exact:
                encs[j] = Enclosure.exact(exact[j])
                continue
            v = value(items[j], prec)
            if isinstance(v, arb):
                if not v.is_finite():
                    return None  # an overflowing ball may be finite at a higher precision
                encs[j] = Enclosure.from_ball(v)
                used["prec"] = max(used["prec"], prec)
            else:
                exact[j] = Fraction(v)
                encs[j] = Enclosure.exact(exact[j])
        best_lo = max(e.lo for e in encs.values())  # type: ignore[type-var]
        alive = [j for j in alive if encs[j].hi >= best_lo]  # type: ignore[operator]
        # group the survivors into classes proved equal; one class left means the maximum is decided
        classes: list[list[int]] = []
        for j in alive:
            for cls in classes:
                r = cls[0]
                same = (j in exact and r in exact and exact[j] == exact[r]) or (
                    equal is not None and equal(items[r], items[j])
                )
                if same:
                    cls.append(j)
                    break
            else:
                classes.append([j])
        if len(classes) == 1:
            return classes[0], encs
        return None

    (winners, encs), _ = refine(step, what=what, start_prec=start_prec, max_prec=max_prec)
    lo = max(encs[j].lo for j in winners)  # type: ignore[type-var]
    hi = min(encs[j].hi for j in winners)  # type: ignore[type-var]
    return ArgMax(
        tuple(items[j] for j in winners),
        tuple(winners),
        Enclosure(lo, hi),
        len(winners) > 1,
        used["prec"],
    )
