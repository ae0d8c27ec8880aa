"""DP-SGD with a schedule: the sampling rate and the noise multiplier changing over training, certified.

A run of stages (q_1, σ_1, k_1), …, (q_m, σ_m, k_m) is the adaptive composition of k_1 steps of the first
mechanism, then k_2 of the second, and so on. For one fixed pair of neighbouring datasets the direction is the same
at every step (under add/remove, D ⊃ D′ is "remove" throughout), so each direction's dominating pairs compose stage
by stage, all on one grid: one float composition per direction, each stage's transform raised to its step count
and the stages multiplied (:func:`dpcert.pld.accountant.compose_directions_mixed`, the round-off bound of a product
of powers proved in :mod:`dpcert.pld.fftcompose`), or, where the float path declines, the k_i-fold composition of
each stage (:func:`dpcert.pld.compose.compose`) joined by :func:`dpcert.pld.compose.combine` (whose error
bookkeeping is proved there); δ(ε) is the largest direction's, and ε(δ) its certified inverse
(:mod:`dpcert.pld.accountant`). The pairs of each
stage are those of :mod:`dpcert.gaussian.sampling` (the same sampler and relation for the whole run; under
replace-one the lower end composes the realised pairs and the upper end the proved dominating ones).

References:
    Composition of dominating pairs: Y. Zhu, J. Dong, Y.-X. Wang, AISTATS 2022 (arXiv 2106.08567).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from dpcert.arith.ball import Enclosure
from dpcert.arith.exact import as_fraction
from dpcert.core.params import integer, probability, real
from dpcert.errors import InvalidParameter
from dpcert.gaussian.pld import (
    START_CELLS,
    TAIL0,
    PldResult,
    _check_q,
    _check_sigma,
    _noise,
    _relation,
    directions,
    fitting_start,
    refine_bounds,
    tight,
)
from dpcert.pld.accountant import (
    EPS_SEARCH_TOL,
    Progress,
    compose_directions_mixed,
    delta_enclosure,
    eps_enclosure,
    eps_resolution,
    fitting_resolution,
    resolution_for,
)
from dpcert.pld.compose import Composed
from dpcert.pld.discretise import GridTooLarge
from dpcert.pld.fftcompose import FloatComposed

__all__ = ["dpsgd_schedule_eps", "dpsgd_schedule_delta", "stages_start", "MAX_STAGES"]

#: The most stages a schedule may have.
MAX_STAGES = 1000

_Q = real("q", 0, 1, lo_open=True)
_SIGMA = real("sigma", 0, lo_open=True)
_STEPS = integer("steps", 1, 10**7)


def _stages(stages: Sequence[Any]) -> list[tuple[Fraction, Fraction, int]]:
    """Parse ``[(q, sigma, steps), …]`` exactly (each a tuple or a mapping with those keys)."""
    if isinstance(stages, (str, bytes)) or not hasattr(stages, "__len__") or not 1 <= len(stages) <= MAX_STAGES:
        raise InvalidParameter("stages", str(stages)[:60], f"a list of 1 to {MAX_STAGES} stages (q, sigma, steps)")
    out = []
    for st in stages:
        if isinstance(st, dict):
            st = (st.get("q"), st.get("sigma"), st.get("steps"))
        if not isinstance(st, (tuple, list)) or len(st) != 3:
            raise InvalidParameter("stages", str(st)[:60], "each stage a (q, sigma, steps) triple")
        q, s, k = as_fraction(_Q.parse(st[0])), as_fraction(_SIGMA.parse(st[1])), int(_STEPS.parse(st[2]))
        _check_q(q)
        _check_sigma(q, s)
        out.append((q, s, k))
    return out


def _compositions(
    stages: list[tuple[Fraction, Fraction, int]],
    n: int,
    tail: float,
    sa: str,
    ne: str,
    progress: Progress,
    which: str = "upper",
    *,
    eps: Fraction | None = None,
    delta: Fraction | None = None,
) -> list[Composed | FloatComposed]:
    parts = [(directions(q, s, sa, ne, which), k) for q, s, k in stages]
    return compose_directions_mixed(parts, n, tail, progress, method="fft", eps=eps, delta=delta)


def stages_start(
    stages: list[tuple[Fraction, Fraction, int]],
    sa: str,
    ne: str,
    tail: float = TAIL0,
    rel_tol: float | None = None,
) -> int:
    """The starting resolution of a schedule, halved until every stage's one-step grid fits (tightness and time
    only).

    Without ``rel_tol`` (δ(ε)): :func:`dpcert.gaussian.pld.start_resolution`'s guess for the steps' mean variance
    (the composed loss's variance is the sum of the stages', so the grid's share is set by the mean, not by the
    noisiest stage). With it (ε(δ)): the engine's width model aimed at ``rel_tol``
    (:func:`dpcert.pld.accountant.eps_resolution`, the accountant's first grid too) for K the total steps and V the
    sum over stages of k_i times the largest one-step Var_Q(Y) of the stage's directions, so that the first run
    reaches the width asked.
    """
    total = sum(k for _, _, k in stages)
    pairs = [(directions(q, s, sa, ne, "upper") + directions(q, s, sa, ne, "lower"), k) for q, s, k in stages]
    losses = [d for ds, _ in pairs for d in ds]
    if rel_tol is None:
        var = sum(k * float(q) ** 2 * math.expm1(min(1 / float(_noise(s, sa, ne)) ** 2, 700)) for q, s, k in stages)
        n = resolution_for(var / total)
    else:
        n = eps_resolution(total, sum(k * max(d.loss_variance() for d in ds) for ds, k in pairs), rel_tol)
    try:
        return fitting_resolution(losses, n, tail / total, START_CELLS)
    except GridTooLarge:  # the stage that does not fit says so, naming its σ
        for q, s, k in stages:
            fitting_start(q, s, k, tail, START_CELLS, sa, ne)
        raise


def _schedule_relation(sampling: str, neighboring: str) -> tuple[str, str]:
    """The checked sampler and relation of a schedule (shuffling is refused: its bracket is a closed form, not a
    composition of stages)."""
    sa, ne = _relation(sampling, neighboring)
    if sa == "shuffle":
        raise InvalidParameter("sampling", sa, "poisson or fixed for a schedule")
    return sa, ne


def dpsgd_schedule_delta(
    stages: Sequence[Any],
    eps: Any,
    *,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of δ(ε) of DP-SGD run in stages ``[(q, sigma, steps), …]``.

    >>> dpsgd_schedule_delta([("0.01", "1", 5), ("0.01", "1", 5)], "0.1").enclosure.short(4)
    '[0.00109, 0.001093]'
    """
    st = _stages(stages)
    e = as_fraction(real("eps", 0).parse(eps))
    sa, ne = _schedule_relation(sampling, neighboring)

    def solve(n: int, tail: float, which: str) -> Enclosure:
        return delta_enclosure(_compositions(st, n, tail, sa, ne, progress, which, eps=e), e)

    start = stages_start(st, sa, ne)
    return refine_bounds(solve, tight(sa, ne), start, rel_tol, seconds, progress, lambda enc, prev: prev)


def dpsgd_schedule_eps(
    stages: Sequence[Any],
    delta: Any,
    *,
    sampling: str = "poisson",
    neighboring: str = "add_remove",
    rel_tol: float = 0.01,
    seconds: float = 60.0,
    progress: Progress = None,
) -> PldResult:
    """Certified enclosure of ε(δ) of DP-SGD run in stages ``[(q, sigma, steps), …]`` (upper end safe).

    >>> dpsgd_schedule_eps([("0.01", "1", 5), ("0.01", "1", 5)], "1e-3").enclosure.short(4)
    '[0.1036, 0.1038]'
    """
    st = _stages(stages)
    d = as_fraction(probability("delta", zero=False).parse(delta))
    sa, ne = _schedule_relation(sampling, neighboring)

    def solve(n: int, tail: float, which: str) -> Enclosure:
        comps = _compositions(st, n, tail, sa, ne, progress, which, delta=d)
        return eps_enclosure(comps, d, min(rel_tol, EPS_SEARCH_TOL))

    def tail(enc: Enclosure, prev: float) -> float:
        return min(prev, float(d) * rel_tol / 1000)

    # the dropped tails add at most their mass to δ_up: a thousandth of the width asked for, relative to the target,
    # is all they may take from the first run on (as in dpsgd_eps); the first grid is the width model's for rel_tol
    tail0 = float(d) * rel_tol / 1000
    start = stages_start(st, sa, ne, tail0, rel_tol)
    return refine_bounds(solve, tight(sa, ne), start, rel_tol, seconds, progress, tail, tail0)
