"""The optimal adaptive composition of k ε-BR mechanisms: a certified two-sided bracket by the lattice method.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

The adaptive optimum obeys the recursion of Lemma 3.2 / 6.1 of Dong–Durfee–Rogers [DDR20]::

    δ_0(x) = max(1 − e^x, 0),   δ_j(x) = sup_{t∈[0,ε]} q_t δ_{j−1}(x − t) + (1 − q_t) δ_{j−1}(x + ε − t),

with δ_j(x) = 0 for x >= jε and 1 − e^x for x <= −jε (Lemma 6.7). The paper gives no algorithm ("intractable");
a lattice method (dpcert's own) brackets it. With h = ε/N and x = mh:

* lower end L: the adversary restricted to t ∈ {0, h, …, Nh} keeps every argument on the lattice, and its exact
  optimum L_j(m) = max_{s=0..N} q_{sh} L_{j−1}(m − s) + (1 − q_{sh}) L_{j−1}(m − s + N) is a lower bound;
* upper end U: δ_{j−1} is nonincreasing and q_t decreasing in t. For t ∈ [sh, (s+1)h] write the objective as
  δ(x + ε − t) + q_t [δ(x − t) − δ(x + ε − t)]; the bracket is >= 0 (monotonicity), so q_t may be raised to
  q_{sh}, and then both arguments are >= (m − s − 1)h resp. (m − s − 1)h + ε. Hence
  U_j(m) = max_{s=0..N−1} q_{sh} U_{j−1}(m − s − 1) + (1 − q_{sh}) U_{j−1}(m − s − 1 + N) is an upper bound.
  (Weighting the second term by 1 − q_{(s+1)h} instead is also valid but looser: keeping the weights a convex
  combination makes the bracket about three times narrower at the same N, e.g. k = 10, ε = 1, ε_g = 0, N = 1000:
  relative width 3.4e-3 instead of 9.8e-3, so a given width costs about 1/9 of the time.)

Rigour. Both recursions run in vectorised float64 (the fast path).

* Lower end: the float recursion only FINDS the restricted adversary; it keeps the argmax s_j(m) at every cell, an
  explicit adaptive strategy (:class:`~dpcert.br.strategy.LatticeStrategy`). The value of any explicit adversary
  is a lower bound on the optimum, and that strategy's value at ε_g itself is re-evaluated in Arb balls over the
  states it reaches (one ball a·b + c·d per state, at most 2^{k+1} and k²N of them): the lower end is a ball bound by
  construction, no float error analysis involved.
* Upper end: the q's, 1 − q's and the base values enter as doubles rounded up from Arb balls. Every step forms
  a·b + c·d of nonnegative doubles and a max, so with u = 2^-53 each level multiplies the relative error by at most
  (1 + u)^2 (plus an absolute 2^-1074 per operation for underflow); after k levels the computed Û satisfies
  Û >= U (1 + u)^{−2k} − 4k·2^-1074, and the end is widened by these factors in exact rational arithmetic.

For ε_g off the lattice, monotonicity gives δ(ε_g) <= U(⌊ε_g/h⌋), and the strategy started at ⌈ε_g/h⌉ is played
at ε_g. The lower end is also at least the nonadaptive optimum (Theorem 3) and the bracket is exact where
|ε_g| >= (k − 1)ε (Lemma 6.10: there adaptive = nonadaptive).

Cost O(k² N²) operations (only cells strictly inside the exact regions are computed) and O(kN) memory; the
bracket narrows like c_k/N (observed; docs/derivations/br.md#lattice-bracket).

References:
    Dong–Durfee–Rogers ICML 2020, Lemmas 3.2, 6.1, 6.7–6.10 and Theorem 4 [DDR20];
    docs/derivations/br.md#lattice-bracket.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpcert.arith.ball import Enclosure, ball
from dpcert.arith.context import BallContext
from dpcert.br import rr
from dpcert.br.nonadaptive import _EPS, _EPS_G, _K, nonadaptive_delta
from dpcert.br.strategy import LatticeStrategy
from dpcert.core.parallel import RunOptions, sigterm_unwinds
from dpcert.core.quantity import Quantity

__all__ = ["AdaptiveBracket", "LatticeRun", "adaptive_bracket", "adaptive_bracket_within", "lattice_run", "QUANTITIES"]

_U = Fraction(1, 2**53)
_TINY = Fraction(1, 2**1074)


@dataclass(frozen=True)
class AdaptiveBracket:
    """A certified bracket lo <= δ_OPT(adaptive) <= hi.

    Attributes:
        lo, hi: exact rational ends.
        n: the lattice resolution N (h = ε/N); 0 when the value is exact (closed form regions).
        nonadaptive: the certified nonadaptive optimum (a lower bound, Theorem 3).
        seconds: the time the bracket took (lattice and ball re-evaluation).
        lo_float: the restricted adversary's optimum from the float recursion (the fast path; evidence only).
        strategy: the ball value of that adversary's strategy at ε_g (the proof of the lower end).
        lattice_seconds: the time of the float recursions alone.
        states: how many states the strategy reaches (the size of its ball re-evaluation).
    """

    lo: Fraction
    hi: Fraction
    n: int
    nonadaptive: Enclosure
    seconds: float
    lo_float: float | None = None
    strategy: Enclosure | None = None
    lattice_seconds: float = 0.0
    states: int = 0

    @property
    def enclosure(self) -> Enclosure:
        return Enclosure(self.lo, self.hi)

    @property
    def width(self) -> Fraction:
        return self.hi - self.lo


def _outward(values: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Balls -> (doubles rounded down, doubles rounded up)."""
    encs = [Enclosure.from_ball(v) for v in values]
    return np.array([e.float_down() for e in encs]), np.array([e.float_up() for e in encs])


def _lower_level(prev: np.ndarray, a: int, b: int, n: int, q: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, Any]:
    """L(m) = max_{s=0..N} q_s L'(m − s) + o_s L'(m − s + N) on the cells a..b, and its argmax (buffered float64)."""
    width = b - a + 1
    new = np.zeros(width)
    arg = np.zeros(width, dtype=np.int16 if n < 2**15 else np.int32)
    cand, tmp = np.empty(width), np.empty(width)
    better = np.empty(width, dtype=bool)
    for s in range(n + 1):
        np.multiply(prev[a - s : b - s + 1], q[s], out=cand)
        np.multiply(prev[a - s + n : b - s + n + 1], o[s], out=tmp)
        cand += tmp
        np.greater(cand, new, out=better)
        np.copyto(arg, s, where=better)
        np.maximum(new, cand, out=new)
    return new, arg


def _upper_level(prev: np.ndarray, a: int, b: int, n: int, q: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, Any]:
    """U(m) = max_{s<N} q_s U'(m − s − 1) + o_s U'(m − s − 1 + N) on the cells a..b (buffered float64)."""
    width = b - a + 1
    new = np.zeros(width)
    cand, tmp = np.empty(width), np.empty(width)
    for s in range(n):
        np.multiply(prev[a - s - 1 : b - s], q[s], out=cand)
        np.multiply(prev[a - s - 1 + n : b - s + n], o[s], out=tmp)
        cand += tmp
        np.maximum(new, cand, out=new)
    return new, None


def _recursion(k: int, n: int, m: int, base: np.ndarray, level: Any, q: np.ndarray, o: np.ndarray) -> tuple:
    """Run ``level`` for j = 1..k on the cells that reach the budget m h at level k.

    ``base`` holds the level-0 values on the cells m − kN .. m + kN. Cells in the exact regions (Lemma 6.7: 0 from
    jN on, 1 − e^{mh} up to −jN, the base value there) are filled, not computed.

    Returns:
        (the level-k value at m, the offsets and per-level extras ``level`` returned, e.g. the argmax).
    """
    lo_cell = m - k * n  # the lattice budget of array index 0
    size = 2 * k * n + 1
    ms = np.arange(lo_cell, lo_cell + size)
    prev = base.copy()
    offsets, extras = [], []
    for j in range(1, k + 1):
        a, b = j * n, size - 1 - j * n  # the cells m − (k − j)N .. m + (k − j)N
        new = np.zeros(b - a + 1)
        low = ms[a : b + 1] <= -j * n
        new[low] = base[a : b + 1][low]
        a2, b2 = max(a, -j * n + 1 - lo_cell), min(b, j * n - 1 - lo_cell)
        extra = None
        if a2 <= b2:
            new[a2 - a : b2 - a + 1], extra = level(prev, a2, b2, n, q, o)
        prev = np.zeros(size)
        prev[a : b + 1] = new
        offsets.append(a2 + lo_cell)
        extras.append(extra)
    return prev[k * n], offsets, extras


@dataclass(frozen=True)
class LatticeRun:
    """One run of the lattice recursions (module docstring).

    Attributes:
        lo_float: the restricted adversary's optimum L in float64 at its start (the fast path: evidence only).
        hi: the certified upper end U(⌊ε_g/h⌋) (outward-rounded float recursion, widened in exact arithmetic).
        strategy: the restricted adversary's argmax at every computed cell of its lattice, an explicit strategy
            whose ball value is the certified lower end.
        start: the lattice budget the strategy starts from, ⌈ε_g/h_L⌉ on its lattice h_L = ε/N_L.
    """

    lo_float: float
    hi: Fraction
    strategy: LatticeStrategy
    start: int


def lattice_run(
    k: int, e: Fraction, eps_g: Fraction, n: int, n_lower: int | None = None, *, run: RunOptions | None = None
) -> LatticeRun:
    """The upper recursion on h = ε/N and the restricted adversary on h_L = ε/N_L, for the budget ε_g.

    δ is nonincreasing, so δ(ε_g) <= U(⌊ε_g/h⌋); the restricted adversary started at ⌈ε_g/h_L⌉ is a valid
    adversary at ε_g and its value (:meth:`LatticeStrategy.value`) is a lower bound.

    Each recursion is sequential (level j needs level j − 1), but the restricted adversary's recursion, the upper
    weights and the upper base values (chunks of :data:`_BASE_CHUNK` balls) are independent tasks, run with ``run``
    on its executor (:func:`dpcert.core.parallel.map_each`) while the upper recursion waits for them; every task
    does the same float64 and ball operations in the same order wherever it runs, so the result is identical for
    every executor and worker count. With ``run.checkpoint`` each finished task is recorded (section
    ``N=<n>,NL=<n_lower>``) and reused on resume.

    Args:
        k, e, eps_g: rounds, ε and ε_g (exact).
        n: the upper lattice's resolution N.
        n_lower: the restricted adversary's resolution N_L (default N).
        run: how to run the two recursions (``None``: one after the other in this process).

    References:
        Dong–Durfee–Rogers ICML 2020, Lemma 3.2 / 6.1 (recursion), Lemma 6.7 (trivial regions) [DDR20]; the lattice
        method of the module docstring.
    """
    n_lower = n if n_lower is None else n_lower
    m_up = math.floor(eps_g * n / e)
    neg = [m for m in range(m_up - k * n, m_up + k * n + 1) if m < 0]
    # independent tasks: the restricted adversary's whole recursion, the upper weights, and the upper base values
    # -expm1(m h) in balls (kN of them: at k = 20, N = 4000 they cost more than the upper recursion itself)
    tasks: list[tuple[Any, ...]] = [("lower", k, e, eps_g, n_lower), ("weights", e, n)]
    if neg:
        tasks += [("base", e, n, m, min(m + _BASE_CHUNK, neg[-1] + 1)) for m in range(neg[0], neg[-1] + 1, _BASE_CHUNK)]
    results = _run_tasks(tasks, run, f"N={n},NL={n_lower}", f"br adaptive {k} {e} {eps_g}")
    lo_val, m_start, offsets, choices = results[0]
    q_up, o_up = results[1]
    base_up = np.zeros(2 * k * n + 1)
    if neg:
        base_up[: len(neg)] = np.concatenate(results[2:])
    # the upper recursion: level j needs level j − 1 (this process)
    up_val, _, _ = _recursion(k, n, m_up, base_up, _upper_level, q_up, o_up)
    # float rounding of k levels of a·b + c·d (module docstring), widened in exact arithmetic
    grow = (1 + _U) ** (2 * k + 2)
    hi = min(Fraction(1), Fraction(float(up_val)) * grow + 4 * (k + 1) * _TINY)
    return LatticeRun(float(lo_val), hi, LatticeStrategy(e, n_lower, tuple(offsets), tuple(choices)), m_start)


#: base values -expm1(m h) per task of :func:`lattice_run` (fixed, so a checkpoint's tasks do not depend on workers)
_BASE_CHUNK = 4096


@sigterm_unwinds()  # SIGTERM unwinds: the checkpoint of finished tasks is flushed
def _run_tasks(tasks: list[Any], run: RunOptions | None, section: str, key: str) -> list[Any]:
    """:func:`_lattice_task` over ``tasks`` on ``run``'s executor (``None``: here), resuming from and recording to
    its checkpoint; the results in the tasks' order."""
    results: dict[int, Any] = {}
    ckpt = None
    if run is not None and run.checkpoint is not None:
        from dpcert.core.parallel import Checkpoint

        ckpt = Checkpoint(run.checkpoint, run.checkpoint_key or key)
        try:
            results = {i: _from_record(v) for i, v in ckpt.values(section).items() if i < len(tasks)}
        except (ValueError, TypeError, KeyError, IndexError):
            raise ckpt._damaged() from None
    todo = [i for i in range(len(tasks)) if i not in results]

    def keep(i: int, value: Any) -> None:
        results[i] = value
        if ckpt is not None:
            ckpt.put(section, i, _to_record(value))

    try:
        if run is None or run.executor == "serial" or (run.executor == "processes" and run.n_workers == 1):
            for i in todo:
                keep(i, _lattice_task(tasks[i]))
        elif todo:
            from dataclasses import replace

            from dpcert.core.parallel import map_each
            from dpcert.errors import WorkerDied

            done = map_each(
                _lattice_task,
                [tasks[i] for i in todo],
                run=replace(run, checkpoint=None, progress=None),
                on_result=lambda j, v: keep(todo[j], v),
            )
            for _, reason in done:
                if reason is not None:  # the bracket needs every task: no verdict
                    import re

                    sig = re.search(r"signal (\d+)", reason)
                    raise WorkerDied(int(sig.group(1)) if sig else None)
    finally:  # what finished is on disk, also after Ctrl-C or an error
        if ckpt is not None:
            ckpt.flush()
    return [results[i] for i in range(len(tasks))]


def _to_record(value: Any) -> Any:
    """A task's result as values a checkpoint holds (arrays as lists; floats are kept exactly)."""
    if isinstance(value, np.ndarray):
        return ["base", value.tolist()]
    if len(value) == 2:
        return ["weights", value[0].tolist(), value[1].tolist()]
    lo_val, m_start, offsets, choices = value
    return ["lower", lo_val, m_start, list(offsets), [[c.dtype.str, c.tolist()] for c in choices]]


def _from_record(rec: Any) -> Any:
    if rec[0] == "base":
        return np.array(rec[1], dtype=np.float64)
    if rec[0] == "weights":
        return np.array(rec[1], dtype=np.float64), np.array(rec[2], dtype=np.float64)
    _, lo_val, m_start, offsets, choices = rec
    return lo_val, m_start, tuple(offsets), tuple(np.array(c, dtype=np.dtype(t)) for t, c in choices)


def _lattice_task(task: tuple[Any, ...]) -> Any:
    """One independent piece of :func:`lattice_run` (a module-level function: it runs in a worker).

    ``("lower", k, ε, ε_g, N_L)`` -> the restricted adversary's recursion: (L in float64, its start ⌈ε_g/h_L⌉, the
    offsets and argmax of each level); ``("weights", ε, N)`` -> the upper recursion's q_{sh} and 1 − q_{sh},
    s < N, as doubles rounded up from balls; ``("base", ε, N, a, b)`` -> -expm1(m h), a <= m < b, rounded up.
    """
    if task[0] == "base":
        _, e, n, a, b = task
        h = e / n
        with BallContext(80):
            return _outward([-ball(m * h).expm1() for m in range(a, b)])[1]
    if task[0] == "weights":
        _, e, n = task
        h = e / n
        with BallContext(80) as ctx:
            eb = ctx.num(e)
            q_up = _outward([rr.q_rr(ctx, eb, ctx.num(s * h)) for s in range(n)])[1]
            o_up = _outward([rr.one_minus_q(ctx, eb, ctx.num(s * h)) for s in range(n)])[1]
        return q_up, o_up
    # lower end: the recursion only FINDS the adversary (its ball value is the proof), so plain float64 suffices
    _, k, e, eps_g, n = task
    m_start = math.ceil(eps_g * n / e)
    ef, hf = float(e), float(e) / n
    cells = np.arange(m_start - k * n, m_start + k * n + 1)
    base_lo = np.where(cells < 0, -np.expm1(np.minimum(cells, 0) * hf), 0.0)
    ts = np.arange(n + 1) * hf
    q_lo, o_lo = rr.q_rr(_NUMPY, ef, ts), rr.one_minus_q(_NUMPY, ef, ts)
    lo_val, offsets, args = _recursion(k, n, m_start, base_lo, _lower_level, q_lo, o_lo)
    choices = tuple(np.zeros(0, dtype=np.int16) if x is None else x for x in args)
    return float(lo_val), m_start, tuple(int(x) for x in offsets), choices


class _NumpyOps:
    """The vocabulary rr's formulas need, on float64 arrays (the lower recursion's weights)."""

    exp = staticmethod(np.exp)
    expm1 = staticmethod(np.expm1)


_NUMPY = _NumpyOps()


def adaptive_bracket(
    k: Any, eps: Any, eps_g: Any, *, n: int = 200, n_lower: int | None = None, run: RunOptions | None = None
) -> AdaptiveBracket:
    """Certified bracket of the optimal δ of the k-fold adaptive composition of ε-BR mechanisms at ε_g.

    Args:
        k: number of mechanisms (int >= 1).
        eps: per-mechanism ε > 0 (decimals as strings mean them exactly).
        eps_g: global ε_g, any real.
        n: lattice resolution N (h = ε/N); the width shrinks like c_k/N at a cost O(k² N²).
        n_lower: the restricted adversary's resolution N_L (default: N up to 1000, max(1000, ⌈N/4⌉) above).
            The lower end converges at second order (k = 10, ε = 1, ε_g = 0: 0.58306313 at N_L = 1000,
            0.58306323 at 4000, while the width is 5e-4 at N = 4000), so a coarser adversary is invisible in the
            bracket and saves most of the lower recursion's time.
        run: executor and checkpoint of the two lattice recursions (:func:`lattice_run`; ``None``: this process).
            The bracket is identical for every choice.

    Returns:
        An :class:`AdaptiveBracket` (exact ends where |ε_g| >= (k − 1)ε, Lemma 6.10).

    Raises:
        InvalidParameter: for bad inputs or n < 1.

    References:
        Dong–Durfee–Rogers ICML 2020, Lemmas 3.2, 6.7–6.10 [DDR20]; the lattice method of the module docstring.

    >>> br = adaptive_bracket(2, 1, 0, n=100)
    >>> float(br.lo) > 0.3033 and float(br.hi) < 0.32   # A_2(0) = 0.303365496…
    True
    """
    from dpcert.errors import InvalidParameter

    k = _K.parse(k)
    e, g = _EPS.exact(eps), _EPS_G.exact(eps_g)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameter("n", n, "a positive integer (lattice resolution)")
    if n_lower is None:
        n_lower = n if n <= 1000 else max(1000, -(-n // 4))
    if isinstance(n_lower, bool) or not isinstance(n_lower, int) or n_lower < 1:
        raise InvalidParameter("n_lower", n_lower, "a positive integer (the restricted adversary's resolution)")
    na = nonadaptive_delta(k, e, g, rel_tol=1e-30)
    if abs(g) >= (k - 1) * e:
        # Lemma 6.10 / Theorem 4(ii): adaptive = nonadaptive here (and Lemma 6.7 at |ε_g| >= kε)
        return AdaptiveBracket(na.lo, na.hi, 0, na, 0.0)
    start = time.perf_counter()
    lat = lattice_run(k, e, g, n, n_lower, run=run)
    lattice_s = time.perf_counter() - start
    # the proof of the lower end: the restricted adversary's own strategy, re-evaluated in balls at ε_g itself
    value = lat.strategy.value(lat.start, g, prec=64)
    strategy = Enclosure.exact(value) if isinstance(value, Fraction) else Enclosure.from_ball(value)
    lo = max(strategy.lo, na.lo)
    states = sum(len(level) for level in lat.strategy.reached(lat.start, g))
    return AdaptiveBracket(
        lo, max(lat.hi, na.hi), n, na, time.perf_counter() - start, lat.lo_float, strategy, lattice_s, states
    )


def adaptive_bracket_within(
    k: Any, eps: Any, eps_g: Any, seconds: float, *, start: int = 100, safety: float = 0.85
) -> AdaptiveBracket:
    """The narrowest certified bracket the lattice method reaches in about ``seconds``.

    The time of one lattice is about c·N^p for fixed (k, ε_g), p = 2 asymptotically (O(k²N²)) and less while
    per-step overheads count. Runs at N = start, 2·start, … calibrate until one run takes at least 2 % of the time;
    then each run takes the largest N predicted to fit ``safety`` of the time left (c and p fitted on the last two
    runs), until the next N would grow by less than 10 %. Every run's bracket is valid, so the result is their
    intersection (the larger lower end, the smaller upper).

    Args:
        k, eps, eps_g: as :func:`adaptive_bracket`.
        seconds: the time budget (> 0). The last run may overshoot it when the machine slows down.
        start: the first lattice resolution.
        safety: the fraction of the remaining time the last run is planned to take.

    Returns:
        An :class:`AdaptiveBracket` whose ``n`` is the finest resolution run and ``seconds`` the total time.

    Raises:
        InvalidParameter: for bad inputs or a non-positive budget.

    References:
        Dong–Durfee–Rogers ICML 2020, Lemma 3.2 [DDR20]; the lattice method of the module docstring.
    """
    from dpcert.errors import InvalidParameter

    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise InvalidParameter("seconds", seconds, "a positive time budget in seconds")
    t0 = time.perf_counter()
    n = start
    best = adaptive_bracket(k, eps, eps_g, n=n)
    runs = [(n, max(best.seconds, 1e-3))]
    while best.n:
        left = seconds - (time.perf_counter() - t0)
        if left <= 0:
            break
        # time ~ c·N^2 (O(k²N²) cells): planning with the asymptotic exponent never overshoots the budget when
        # overheads make small runs look cheaper than quadratic (fitting p on them planned runs 5x over budget)
        p = 2.0
        run_s = runs[-1][1]
        if run_s < 0.02 * seconds:
            nxt = 2 * n  # still calibrating
            if run_s * 2**p > left:
                break
        else:
            nxt = int(n * (safety * left / run_s) ** (1 / p))
            if nxt < 1.1 * n:
                break
        n = nxt
        br = adaptive_bracket(k, eps, eps_g, n=n)
        runs.append((n, max(br.seconds, 1e-3)))
        lo, hi = max(best.lo, br.lo), min(best.hi, br.hi)
        best = AdaptiveBracket(lo, hi, n, br.nonadaptive, 0.0, br.lo_float, br.strategy, br.lattice_seconds, br.states)
    return AdaptiveBracket(
        best.lo,
        best.hi,
        best.n,
        best.nonadaptive,
        time.perf_counter() - t0,
        best.lo_float,
        best.strategy,
        best.lattice_seconds,
        best.states,
    )


def _adaptive_ball(ctx: Any, k: int, eps: Any, eps_g: Any) -> Any:
    """The certified bracket as a ball; the lattice resolution N follows the precision asked for (N = prec), so
    the rising precision of a claim or of ``dpcert eval --digits`` refines the lattice until it decides."""
    return adaptive_bracket(k, eps, eps_g, n=max(16, ctx.prec)).enclosure.ball()


def _adaptive_within(seconds: float, k: int, eps: Any, eps_g: Any) -> tuple[Enclosure, int]:
    """The narrowest bracket in about ``seconds`` and its lattice resolution N (0: exact, Lemma 6.10)."""
    br = adaptive_bracket_within(k, eps, eps_g, seconds)
    return br.enclosure, br.n


QUANTITIES = [
    Quantity(
        "br.adaptive.delta",
        (_K, _EPS, _EPS_G),
        _adaptive_ball,
        "Dong–Durfee–Rogers ICML 2020, Lemmas 3.2, 6.1, 6.7–6.10; docs/derivations/br.md#lattice-bracket",
        "optimal delta(eps_g) of the k-fold adaptive composition of eps-BR mechanisms: the certified lattice "
        "bracket (resolution N = the working precision; narrows like 1/N at cost O(k^2 N^2))",
        bracket=True,
        within=_adaptive_within,
        # quadrupling the time about halves the width (cost O(N^2), width O(1/N))
        narrow_hint="dpcert br adaptive {inputs} --seconds {seconds}",
    ),
]
