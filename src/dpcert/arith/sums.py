"""Certified sums of positive log-concave terms given by a term recurrence, and their float64 twin.

A sum S = Σ_{i=start}^{stop} a_i w_i of positive terms a_i > 0, given by one term computed directly and the ratio
r_i = a_{i+1}/a_i, with weights 0 <= w_i <= W (each given directly at an index and by a forward step), is summed
from the peak of a outward and stopped once the rest is rigorously negligible; the rest is carried as a radius.
Binomial, Poisson and hypergeometric masses are log-concave (their ratio r_i is non-increasing in i), which is
what the bounds need.

Tail bound. Let r be non-increasing on [start, stop) and r_{n+1} < 1. For j >= n + 1, a_{j+1} = a_j r_j <=
a_j r_{n+1}, so a_{n+1+m} <= a_{n+1} r_{n+1}^m and, as 0 <= w_j <= W,

    Σ_{j>n} a_j w_j <= W a_{n+1} Σ_{m>=0} r_{n+1}^m = W a_{n+1} / (1 − r_{n+1}),

also when the sum stops at a finite ``stop`` (fewer positive terms).

Head bound. Let r_{s−1} > 1. For j < s, r_j >= r_{s−1} (r non-increasing), so a_j = a_{j+1}/r_j <= a_{j+1}/r_{s−1}
and a_{s−m} <= a_s r_{s−1}^{−m}; hence

    Σ_{start<=j<s} a_j w_j <= W a_s Σ_{m>=1} r_{s−1}^{−m} = W a_s / (r_{s−1} − 1).

Both bounds are evaluated in ball arithmetic and added as a radius [0, bound]: the enclosure stays rigorous
whatever the cut-off. The explicit part is summed with the recurrence, so it costs one ball product per term
and weight; starting at the peak and stopping at relative size 2^-(prec+4) makes the number of terms
O(σ·sqrt(prec)) for a distribution of standard deviation σ, whatever the length of the range.

:func:`log_concave_sum_float` is the float64 twin: the same peak, the same two bounds, applied to vectorised
chunks of doubling length, so it evaluates about as many terms as the ball sum and never the whole range.

References:
    Tail of a series bounded by a geometric series (ratio test), e.g. Knopp, "Theory and Application of Infinite
    Series", §13; log-concavity of the binomial masses (Newton's inequalities).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb
from numpy.typing import NDArray

from dpcert.arith.ball import ball

__all__ = ["Weight", "SeriesSum", "log_concave_sum", "find_peak", "log_concave_sum_float"]


@dataclass(frozen=True)
class Weight:
    """A weight sequence 0 <= w_i <= bound, given directly at an index and by a forward step.

    Attributes:
        at: ``at(i)`` is w_i as a ball (used at the first index of each summed stretch).
        step: ``step(i, w_i)`` is w_{i+1} (used along the stretch).
        bound: an upper bound W of every w_i on the range (exact), used in the tail and head bounds.
    """

    at: Callable[[int], arb]
    step: Callable[[int, arb], arb]
    bound: Fraction | int = 1


@dataclass(frozen=True)
class SeriesSum:
    """The result of :func:`log_concave_sum`.

    Attributes:
        values: one ball per weight, Σ a_i w_i with the omitted terms as radius (Σ a_i when no weights are given).
        first, last: the explicitly summed index range [first, last].
        terms: how many terms were summed explicitly.
        omitted: a rigorous upper bound of Σ a_i (unweighted) over the omitted indices (0 when none).
        plain: the ball of Σ a_i itself (only when asked for with ``plain=True``).
        exceeded: True when the summation stopped early because the first sum certainly exceeded ``stop_above``;
            ``values`` are then partial sums, i.e. only rigorous *lower* bounds.
    """

    values: tuple[arb, ...]
    first: int
    last: int
    terms: int
    omitted: arb
    plain: arb | None = None
    exceeded: bool = False


def find_peak(ratio: Callable[[int], Any], start: int, stop: int) -> int:
    """The first index m in [start, stop] with ratio(m) < 1 (stop when there is none), by bisection.

    For a log-concave sequence this is where the terms peak. Only a starting point: the bounds of
    :func:`log_concave_sum` are rigorous wherever the summation starts, so an undecided ball comparison is
    simply taken as "not below 1".
    """
    lo, hi = start, stop
    while lo < hi:
        mid = (lo + hi) // 2
        if ratio(mid) < 1:
            hi = mid
        else:
            lo = mid + 1
    return lo


def log_concave_sum(
    term: Callable[[int], arb],
    ratio: Callable[[int], arb],
    start: int,
    stop: int,
    *,
    prec: int,
    weights: Sequence[Weight] = (),
    plain: bool = False,
    stop_above: Fraction | None = None,
    peak: int | None = None,
    check_every: int = 16,
) -> SeriesSum:
    """Rigorous ball of Σ_{i=start}^{stop} a_i w_i for positive log-concave a_i and bounded weights w_i >= 0.

    Runs at flint's ambient working precision (the caller sets it with guard bits for the recurrence); stops
    when the omitted part is below 2^-(prec+4) of the first sum and carries it as a radius (see the module
    docstring for the proof of both bounds).

    Args:
        term: ``term(i)`` is a_i > 0 as a ball, computed directly (called once per summed stretch).
        ratio: ``ratio(i)`` is r_i = a_{i+1}/a_i as a ball; it must be non-increasing in i on [start, stop)
            (the caller's proof obligation: log-concavity).
        start, stop: the index range, start <= stop.
        prec: the relative accuracy (bits) at which the omitted part counts as negligible.
        weights: the weight sequences; the stopping rule looks at the first one. None: the plain sum Σ a_i.
        plain: also return Σ a_i (one more addition per term), e.g. to get Σ a_i (1 − w_i) without a weight.
        stop_above: stop as soon as the first sum is certainly above this level (all terms are positive, so a
            partial sum above it proves the whole sum is): for deciding ``sum <= level`` cheaply when it fails.
        peak: where to start summing (default: :func:`find_peak`); any index in [start, stop] is valid.
        check_every: how often (in terms) the tail bound is tried.

    Returns:
        A :class:`SeriesSum`.

    Raises:
        ValueError: if stop < start.

    References:
        Module docstring (geometric tail and head bounds for log-concave terms).

    >>> from dpcert.arith.ball import workprec
    >>> with workprec(80):   # Σ_{i>=0} 2^-i over 0..10^9: 2 up to 2^-10^9, found in a few dozen terms
    ...     s = log_concave_sum(lambda i: ball(Fraction(1, 2**i)), lambda i: ball(Fraction(1, 2)), 0, 10**9, prec=64)
    >>> s.values[0].contains(2), s.terms < 100
    (True, True)
    """
    if stop < start:
        raise ValueError(f"log_concave_sum needs start <= stop, got [{start}, {stop}]")
    ws = list(weights)
    m = find_peak(ratio, start, stop) if peak is None else min(max(peak, start), stop)
    cutoff = ball(Fraction(1, 2 ** (prec + 4)))
    level = None if stop_above is None else ball(stop_above)
    bounds = [ball(Fraction(w.bound)) for w in ws] or [arb(1)]
    nw = max(1, len(ws))
    accs = [arb(0) for _ in range(nw)]
    env = [arb(0)]

    def stretch(a: int, b: int | None) -> tuple[int, arb | None]:
        """Sum [a, b] (b None: until the tail is negligible); returns (last index, bound of the unweighted tail).

        The tail is None when the sum stopped early above ``stop_above``.
        """
        t = term(a)
        cur = [w.at(a) for w in ws]
        end = stop if b is None else b
        i = a
        single = cur[0] if len(ws) == 1 else None
        step0 = ws[0].step if len(ws) == 1 else None
        while True:
            # three copies of one loop (no weight, one weight, several): this is the hot path
            if single is not None:
                accs[0] += t * single
            elif ws:
                for j in range(nw):
                    accs[j] += t * cur[j]
            else:
                accs[0] += t
            if plain:
                env[0] += t
            if i == end:
                return i, arb(0)
            t = t * ratio(i)
            if step0 is not None:
                single = step0(i, single)
            elif ws:
                cur = [w.step(i, c) for w, c in zip(ws, cur, strict=True)]
            i += 1
            if (i - a) % check_every == 0:
                if level is not None and accs[0] > level:
                    return i - 1, None
                if b is None:
                    r_next = ratio(i)
                    if r_next < 1:
                        tail = t / (1 - r_next)
                        if (bounds[0] * tail).upper() <= (accs[0] * cutoff).lower():
                            return i - 1, tail

    def partial(first: int, last: int, terms: int) -> SeriesSum:
        return SeriesSum(tuple(accs), first, last, terms, arb(0), env[0] if plain else None, True)

    last, tail = stretch(m, None)
    first, terms = m, last - m + 1
    if tail is None or (level is not None and accs[0] > level):
        return partial(first, last, terms)
    length = 2 * check_every
    head = arb(0)
    while first > start:
        r_before = ratio(first - 1)
        if r_before > 1:
            head = term(first) / (r_before - 1)
            if (bounds[0] * head).upper() <= (accs[0] * cutoff).lower():
                break
        lo = max(start, first - length)
        _, done = stretch(lo, first - 1)
        terms += first - lo
        first, head = lo, arb(0)
        length *= 2
        if done is None or (level is not None and accs[0] > level):
            return partial(first, last, terms)
    omitted = tail + head
    rad = [(bd * omitted).upper() for bd in bounds]
    values = tuple(acc + arb(0, r) if omitted != 0 else acc for acc, r in zip(accs, rad, strict=True))
    whole = (env[0] + arb(0, omitted.upper()) if omitted != 0 else env[0]) if plain else None
    return SeriesSum(values, first, last, terms, omitted, whole)


def log_concave_sum_float(
    envelope: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    ratio: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    start: int,
    stop: int,
    *,
    weights: Sequence[Callable[[NDArray[np.int64]], NDArray[np.float64]]] = (),
    bounds: Sequence[float] = (),
    peak: int | None = None,
    rel_tol: float = 2.0**-60,
    chunk: int = 256,
    whole: int = 4096,
) -> tuple[float, ...]:
    """float64 twin of :func:`log_concave_sum`: Σ a_i w_i over vectorised chunks, truncated the same way.

    Starts at the peak (the first index with ratio < 1), sums chunks of doubling length forwards until the
    geometric tail bound W a_n r_n/(1 − r_n) is below ``rel_tol`` of the sum, then backwards until the head bound
    W a_s/(r_{s−1} − 1) is. Evidence, not a certificate.

    Args:
        envelope: ``envelope(i)`` is a_i (float64) for an int64 array of consecutive indices.
        ratio: ``ratio(i)`` is a_{i+1}/a_i for an array of indices (non-increasing in i).
        start, stop: the index range, start <= stop.
        weights: ``weight(i)`` arrays, each 0 <= w_i <= its bound; none: the plain sum.
        bounds: the weights' upper bounds (default 1 each).
        peak: where to start (default: bisection on ``ratio``).
        rel_tol: the relative size of the omitted part at which to stop.
        chunk: the first chunk length.
        whole: a range of at most this many indices is summed in one vectorised call, without truncation
            (cheaper than several calls).

    Returns:
        One float per weight (one float for the plain sum).

    Raises:
        ValueError: if stop < start.

    References:
        Module docstring (geometric tail and head bounds for log-concave terms).

    >>> log_concave_sum_float(lambda i: 0.5 ** i.astype(float), lambda i: np.full(i.shape, 0.5), 0, 10**12)
    (2.0,)
    """
    if stop < start:
        raise ValueError(f"log_concave_sum_float needs start <= stop, got [{start}, {stop}]")
    ws = list(weights)
    bd = list(bounds) or [1.0] * len(ws)
    w0 = bd[0] if ws else 1.0
    nw = max(1, len(ws))
    accs = [0.0] * nw
    if stop - start < whole:
        idx = np.arange(start, stop + 1, dtype=np.int64)
        env = envelope(idx)
        return tuple(float(np.dot(env, w(idx))) for w in ws) if ws else (float(np.sum(env)),)
    if peak is None:
        peak = find_peak(lambda i: float(ratio(np.array([i], dtype=np.int64))[0]), start, stop)
    m = min(max(peak, start), stop)

    def add(a: int, b: int) -> NDArray[np.float64]:
        idx = np.arange(a, b + 1, dtype=np.int64)
        env = envelope(idx)
        if ws:
            for j, w in enumerate(ws):
                accs[j] += float(np.dot(env, w(idx)))
        else:
            accs[0] += float(np.sum(env))
        return env

    size, a = chunk, m
    while a <= stop:
        b = min(stop, a + size - 1)
        env = add(a, b)
        if b == stop:
            break
        r = float(ratio(np.array([b], dtype=np.int64))[0])
        if r < 1 and w0 * env[-1] * r / (1 - r) <= rel_tol * accs[0]:
            break
        a, size = b + 1, 2 * size
    size, b = chunk, m - 1
    while b >= start:
        a = max(start, b - size + 1)
        env = add(a, b)
        if a == start:
            break
        r = float(ratio(np.array([a - 1], dtype=np.int64))[0])
        if r > 1 and w0 * env[0] / (r - 1) <= rel_tol * accs[0]:
            break
        b, size = a - 1, 2 * size
    return tuple(accs)
