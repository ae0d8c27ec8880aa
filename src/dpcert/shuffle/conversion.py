"""The default certified RDP upper bound of the shuffle model, and RDP → (ε, δ)-DP over T rounds.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

* ``upper(λ) = min(Theorem 1 (eq. 8 between integers), Theorem 2, RR_1(λ))`` where
  RR_1(λ) = (1/(λ−1)) log[(e^{ε0λ} + e^{−ε0(λ−1)})/(e^{ε0}+1)] is the tight RDP of an ε0-DP pair (Steinke 2024 [Ste24],
  Thm 4); the shuffled mechanism is ε0-DP for replacement neighbours (each histogram probability changes by a
  factor in [e^{−ε0}, e^{ε0}]), so RR_1 caps ε(λ), and RR_1 < ε0.
* Lemma 2 (composition): T identical rounds have RDP T·ε(λ).
* Lemma 1 (CKS20 / BBG+20 conversion), for any single λ > 1:
  ε(δ) = R + [log(1/δ) + (λ−1) log(1 − 1/λ) − log λ]/(λ−1),
  δ(ε) = exp((λ−1)(R − ε)) (1 − 1/λ)^λ/(λ−1),
  with R the (composed) RDP at λ. For each λ the two forms are inverses of each other
  (docs/derivations/shuffle.md#conversion-identity: λ log(1−1/λ) −
  log(λ−1) = (λ−1) log(1−1/λ) − log λ). This is tighter than Mironov's [Mir17] Prop. 3, R + log(1/δ)/(λ−1)
  (:func:`dpcert.composition.rdp.rdp_to_dp_eps`), by −[(λ−1) log(1−1/λ) − log λ]/(λ−1) > 0; the tests compare
  the two.

The best λ is chosen in float64 (integers 2..512 and 40 geometric points up to 10^5, then a golden-section
refinement over real λ between the grid neighbours of the best point, rounded to a multiple of 1/1024); the
choice needs no proof, since every λ gives a valid (ε, δ), and the value at the chosen λ is certified in balls.

References:
    Girgis et al. [GDDSK21] (CCS 2021), Lemma 1 (citing Canonne–Kamath–Steinke 2020 [CKS20], Prop. 12; Balle et al.
    2020) [BBGHS20] and
    Lemma 2 (Mironov 2017 [Mir17], Prop. 1); T. Steinke, "Sharp RDP & zCDP from Pure DP", differentialprivacy.org 2024,
    Theorem 4.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from flint import arb
from numpy.typing import ArrayLike, NDArray

from dpcert.arith.ball import ball
from dpcert.arith.exact import Exact, to_fraction
from dpcert.composition.rdp import cks_delta_raw, cks_eps_raw
from dpcert.errors import InvalidParameter
from dpcert.shuffle import bounds
from dpcert.shuffle._floats import log_pos

__all__ = [
    "rr1_ball",
    "rr1_float",
    "upper_ball",
    "upper_float",
    "upper_bound_ball",
    "upper_bound_float",
    "UPPER_BOUNDS",
    "lemma1_eps",
    "lemma1_delta",
    "lemma1_eps_float",
    "best_lambda",
    "dp_eps_ball",
    "dp_eps_float",
    "dp_delta_ball",
    "dp_eps_of_bound",
    "BOUNDS",
    "dp_delta_float",
]


def rr1_ball(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb | Fraction:
    """RR_1(λ), the tight RDP of an ε0-DP pair (randomized response), in balls; exactly 0 at ε0 = 0.

    The excess inside the log, (e^{ε0λ} + e^{−ε0(λ−1)})/(e^{ε0}+1) − 1 = expm1(ε0λ)·(−expm1(−ε0(λ−1)))/(e^{ε0}+1),
    is a product of positive factors each computed to full relative accuracy, so the ball narrows relatively
    at tiny ε0 (about ε0²λ/2; summing the exponentials first would need ~2 log2(1/ε0) bits to see it at all).

    References:
        Steinke 2024, "Sharp RDP & zCDP from Pure DP", Theorem 4 [Ste24]; docs/derivations/shuffle.md#the-pure-dp-cap.
    """
    if to_fraction(eps0) == 0:
        return Fraction(0)
    e0, lam_b = ball(eps0), ball(lam)
    excess = (e0 * lam_b).expm1() * -((-e0 * (lam_b - 1)).expm1()) / (e0.exp() + 1)
    return excess.log1p() / (lam_b - 1)


def rr1_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """RR_1(λ) in float64: the excess inside the log is −expm1(−ε0(λ−1))·expm1(ε0λ)/(e^{ε0}+1), no cancellation."""
    _, e, lam = (np.asarray(a, dtype=np.float64) for a in np.broadcast_arrays(n, eps0, lam))
    with np.errstate(divide="ignore"):
        log_excess = np.log(-np.expm1(-e * (lam - 1))) + bounds._log_expm1(e * lam) - np.logaddexp(e, 0.0)
    return np.logaddexp(0.0, log_excess) / (lam - 1)


def upper_ball(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb | Fraction:
    """min(Theorem 1 via eq. (8), Theorem 2, RR_1) at real λ > 1, in balls (a certified upper bound on ε(λ)).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorems 1–2 and eq. (8); Steinke 2024 [Ste24], Theorem 4.
    """
    return ctx.min(bounds.eq8_ball(ctx, n, eps0, lam), bounds.thm2_ball(ctx, n, eps0, lam), rr1_ball(ctx, n, eps0, lam))


def upper_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """float64 twin of :func:`upper_ball`, vectorised."""
    return np.minimum(
        np.minimum(bounds.eq8_float(n, eps0, lam), bounds.thm2_float(n, eps0, lam)), rr1_float(n, eps0, lam)
    )


#: the choices of ``bound`` on ``shuffle.rdp.upper``
UPPER_BOUNDS = ("default", "reduction")


def _reduction_or_chord(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb | Fraction | None:
    """U_red where it is evaluated, else eq. (8)'s chord of U_red between integers, else None (n > 10^4, λ > 1024)."""
    from dpcert.shuffle import reduction

    lv = to_fraction(lam)
    if n <= reduction.DIRECT_MAX_N or (lv.denominator == 1 and lv <= reduction.MOMENT_MAX_LAM):
        return reduction.reduction_ball(ctx, n, eps0, lam)
    if lv < reduction.MOMENT_MAX_LAM:
        return bounds.eq8_chord(
            lambda c, n_, e_, lam_: reduction.reduction_ball(c, n_, e_, Fraction(lam_)), ctx, n, eps0, lam
        )
    return None


def upper_bound_ball(ctx: Any, n: int, eps0: Exact, lam: Exact, bound: str) -> arb | Fraction:
    """The certified upper bound of ``shuffle.rdp.upper``: :func:`upper_ball`, and with ``bound="reduction"`` also
    U_red (derived here, :mod:`dpcert.shuffle.reduction`).

    With ``bound="reduction"``, U_red enters where it is evaluated exactly (n <= 10^4, or integer λ <= 1024 up to
    n = 10^6); at real λ < 1024 with n > 10^4 its eq. (8) chord between the neighbouring integers enters instead
    (a valid, slightly looser bound: (λ−1)D_λ is convex in λ); above that only the default minimum.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorems 1–2, eq. (8); Steinke 2024 [Ste24], Theorem 4; U_red: derived here
        (dpcert
        docs/derivations/shuffle.md#the-pure-dp-cap).
    """
    base = upper_ball(ctx, n, eps0, lam)
    if bound == "default":
        return base
    if bound != "reduction":
        raise InvalidParameter("bound", bound, "one of " + ", ".join(UPPER_BOUNDS))
    red = _reduction_or_chord(ctx, n, eps0, lam)
    return base if red is None else ctx.min(base, red)


def upper_bound_float(n: int, eps0: Any, lam: Any, bound: str) -> float:
    """float64 twin of :func:`upper_bound_ball` (U_red by its double sum: slow above n = 10^4).

    References:
        as :func:`upper_bound_ball`.
    """
    from dpcert.shuffle import reduction

    base = float(upper_float(n, float(eps0), float(lam)))
    if bound == "default":
        return base
    lv = to_fraction(lam)
    if n > reduction.DIRECT_MAX_N and (lv.denominator != 1 or lv > reduction.MOMENT_MAX_LAM):
        lo, hi = math.floor(lv), math.ceil(lv)
        if hi > reduction.MOMENT_MAX_LAM:
            return base
        a = hi - float(lv)
        chord = (1 - a) * (hi - 1) * reduction.reduction_float(n, float(eps0), hi)
        if lo >= 2:
            chord += a * (lo - 1) * reduction.reduction_float(n, float(eps0), lo)
        return min(base, chord / (float(lv) - 1))
    return min(base, reduction.reduction_float(n, float(eps0), float(lam)))


# ----------------------------------------------------------------------------------------------------------------
# Lemma 1 (both forms): Canonne–Kamath–Steinke's conversion, written once in dpcert.composition.rdp

#: ε = R + log(1 − 1/λ) − (log δ + log λ)/(λ−1): (λ, R)-RDP implies (ε, δ)-DP before clamping at 0 ([GDDSK21,
#: Lemma 1], citing [CKS20, Prop. 12]); :func:`dpcert.composition.rdp.cks_eps_raw`
lemma1_eps = cks_eps_raw
#: δ = exp((λ−1)(R − ε)) (1−1/λ)^λ/(λ−1) before clamping at 1 ([GDDSK21, Lemma 1]);
#: :func:`dpcert.composition.rdp.cks_delta_raw`
lemma1_delta = cks_delta_raw


# ----------------------------------------------------------------------------------------------------------------
# the best λ (float search; its choice needs no proof)

#: the RDP curves the conversion can use: name -> (float evaluator, ball evaluator), all valid at real λ > 1
BOUNDS: dict[str, tuple[Any, Any]] = {
    "upper": (upper_float, upper_ball),
    "thm1": (bounds.eq8_float, bounds.eq8_ball),
    "thm2": (bounds.thm2_float, bounds.thm2_ball),
    "efm19": (bounds.efm19_float, bounds.efm19_ball),
}

_INT_GRID = np.unique(np.concatenate([np.arange(2, 513), np.round(np.geomspace(512, 10**5, 40))])).astype(np.float64)


def _objective_eps(
    n: int, e: float, t: int, log_delta: float, lam: NDArray[np.float64], bound: str = "upper"
) -> NDArray[np.float64]:
    """ε(δ) at each λ, from log δ (δ itself may be below float64's range: 1e-3999 is a valid δ)."""
    return lemma1_eps_float(t * BOUNDS[bound][0](n, e, lam), lam, log_delta)


def lemma1_eps_float(rdp: ArrayLike, lam: NDArray[np.float64], log_delta: float) -> NDArray[np.float64]:
    """Lemma 1's ε at each order, vectorised over λ, from log δ: the float64 search objective (the certified value
    is :func:`dpcert.composition.rdp.cks_eps_raw`'s). It takes log δ because δ itself may be below float64's
    range (1e-3999 is a valid δ)."""
    return rdp + (-log_delta + (lam - 1) * np.log1p(-1 / lam) - np.log(lam)) / (lam - 1)


def _objective_log_delta(n: int, e: float, t: int, eps: float, lam: NDArray[np.float64]) -> NDArray[np.float64]:
    return (lam - 1) * (t * upper_float(n, e, lam) - eps) + lam * np.log1p(-1 / lam) - np.log(lam - 1)


def _search(objective: Any) -> Fraction:
    vals = objective(_INT_GRID)
    i = int(np.argmin(vals))
    best = _INT_GRID[i]
    lo = max(1.0 + 2.0**-10, _INT_GRID[i - 1] if i > 0 else best - 1)
    hi = _INT_GRID[i + 1] if i + 1 < _INT_GRID.size else best + 1
    # golden section over real λ near the best integer (the objective is not convex there in general: any λ is
    # valid, so a local refinement that only ever keeps a better value is enough)
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    for _ in range(40):
        c, d = b - g * (b - a), a + g * (b - a)
        fc, fd = objective(np.array([c, d]))
        if fc < fd:
            b = d
        else:
            a = c
    cand = Fraction(round((a + b) / 2 * 1024), 1024)
    if cand > 1 and float(objective(np.array([float(cand)]))[0]) < float(vals[i]):
        return cand
    return Fraction(int(best))


@lru_cache(maxsize=1024)
def best_lambda(n: int, eps0: Fraction, t: int, target: Fraction, kind: str, bound: str = "upper") -> Fraction:
    """The λ (an exact rational, a multiple of 1/1024) at which the float64 objective is smallest.

    Args:
        n, eps0, t: clients, LDP parameter, number of rounds.
        target: δ (``kind="eps"``) or ε (``kind="delta"``).
        kind: ``"eps"`` (minimise ε(δ)) or ``"delta"`` (minimise log δ(ε)).
        bound: the RDP curve (a key of :data:`BOUNDS`; ``"delta"`` uses the default upper bound).
    """
    e = float(eps0)
    if kind == "eps":
        log_delta = log_pos(target)
        return _search(lambda lam: _objective_eps(n, e, t, log_delta, lam, bound))
    return _search(lambda lam: _objective_log_delta(n, e, t, float(target), lam))


def dp_eps_ball(ctx: Any, n: int, eps0: Exact, T: int, delta: Exact) -> arb | Fraction:
    """ε(δ) of T shuffled rounds, certified at the float-chosen λ (Lemmas 1–2 with :func:`upper_ball`).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Lemmas 1–2, Theorems 1–2; Steinke 2024 [Ste24].
    """
    lam = best_lambda(n, to_fraction(eps0), T, to_fraction(delta), "eps")
    rdp = T * upper_ball(ctx, n, eps0, Exact(lam, str(lam), "fraction"))
    return ctx.max(Fraction(0), lemma1_eps(ctx, ball(lam), ball(rdp), ball(delta)))


def dp_eps_float(n: int, eps0: Any, T: int, delta: Any) -> float:
    """float64 ε(δ): the minimum of the objective over the same search (evidence)."""
    lam = best_lambda(n, to_fraction(eps0), T, to_fraction(delta), "eps")
    return max(0.0, float(_objective_eps(n, float(eps0), T, log_pos(delta), np.array([float(lam)]))[0]))


def dp_eps_of_bound(bound: str, n: int, eps0: Exact, T: int, delta: Exact, prec: int = 128) -> tuple[Fraction, arb]:
    """(λ, certified ε(δ)) of T rounds from one RDP curve of :data:`BOUNDS` (``"upper"`` is :func:`dp_eps_ball`).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Lemmas 1–2 with Theorem 1 (eq. 8), Theorem 2 or eq. (10).
    """
    from dpcert.arith.context import BallContext

    lam = best_lambda(n, to_fraction(eps0), T, to_fraction(delta), "eps", bound)
    with BallContext(prec) as ctx:
        rdp = T * ball(BOUNDS[bound][1](ctx, n, eps0, Exact(lam, str(lam), "fraction")))
        return lam, lemma1_eps(ctx, ball(lam), rdp, ball(delta))


def dp_delta_ball(ctx: Any, n: int, eps0: Exact, T: int, eps: Exact) -> arb | Fraction:
    """δ(ε) of T shuffled rounds, certified at the float-chosen λ (Lemmas 1–2 with :func:`upper_ball`).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Lemmas 1–2.
    """
    lam = best_lambda(n, to_fraction(eps0), T, to_fraction(eps), "delta")
    rdp = T * upper_ball(ctx, n, eps0, Exact(lam, str(lam), "fraction"))
    return ctx.min(Fraction(1), lemma1_delta(ctx, ball(lam), ball(rdp), ball(eps)))


def dp_delta_float(n: int, eps0: Any, T: int, eps: Any) -> float:
    """float64 δ(ε) at the same λ (evidence)."""
    lam = best_lambda(n, to_fraction(eps0), T, to_fraction(eps), "delta")
    log_delta = float(_objective_log_delta(n, float(eps0), T, float(eps), np.array([float(lam)]))[0])
    return 1.0 if log_delta >= 0 else math.exp(log_delta)
