"""GNMax noise calibration of DaRRM Appendix D.2.1 (the GNMax baseline of Section 6.2 and Table 4).

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

GNMax is (λ, λ/σ²)-RDP; by the RDP → DP conversion ([JZJ24, Thm D.1]) it is (λ/σ² + log(1/δ)/(λ − 1), δ)-DP.
Holding it to the per-query budget (mε, δ = mΔ) gives

    σ²(λ) = λ / (mε − log(1/δ)/(λ − 1)),   defined for λ > λ_min := log(1/δ)/(mε) + 1,

and the paper takes the smallest σ² over the grid λ ∈ [λ_min, 500] with spacing 0.5. At λ_min itself σ² is
infinite, so the grid used here is λ_j = λ_min + j/2 for j = 1, 2, … while λ_j ≤ 500.

The grid argmin is certified: every σ²(λ_j) is a ball, and the minimiser is accepted only when its upper bound is
below the lower bound of every other grid value. Natural logarithms throughout (the printed σ_min reproduces
with them).

References:
    S. Jiang, Q. Zhang, G. Joshi, DaRRM (TMLR), Appendix D.2.1, Theorem D.1, Table 4, Figure 10.
    N. Papernot et al. [PSMRTE18], "Scalable Private Learning with PATE", ICLR 2018, §4.1 and Theorem 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import ball, lt
from dpcert.arith.context import FLOAT
from dpcert.arith.exact import Exact
from dpcert.composition.rdp import rdp_to_dp_eps
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = ["lambda_min", "sigma_sq", "GridArgmin", "grid_argmin", "QUANTITIES", "LAMBDA_MAX", "LAMBDA_STEP"]

#: The grid of DaRRM App. D.2.1: λ ∈ [λ_min, 500] with spacing 0.5.
LAMBDA_MAX = Fraction(500)
LAMBDA_STEP = Fraction(1, 2)


def lambda_min(ctx: Any, eps_target: Exact, delta: Exact) -> Any:
    """λ_min = log(1/δ)/(mε) + 1, below which no σ meets the budget (DaRRM App. D.2.1)."""
    return -ctx.log(ctx.num(delta)) / ctx.num(eps_target) + 1


def sigma_sq(ctx: Any, lam: Any, eps_target: Exact, delta: Exact) -> Any:
    """σ²(λ) = λ / (mε − log(1/δ)/(λ − 1)), the noise variance meeting (mε, δ) at order λ.

    Solves ``rdp_to_dp_eps(λ, λ/σ², δ) = mε`` for σ² (λ/σ² is GNMax's RDP,
    :func:`dpcert.composition.rdp.gnmax_rdp`). Only meaningful for λ > λ_min; the caller
    checks the denominator's sign.
    """
    lam = ctx.num(lam)
    return lam / (ctx.num(eps_target) - rdp_to_dp_eps(ctx, lam, ctx.num(0), delta))


@dataclass(frozen=True)
class GridArgmin:
    """The certified minimiser of σ² on the grid: index j (λ = λ_min + j/2), and balls for λ and σ."""

    j: int
    lam: arb
    sigma: arb
    n_grid: int


def grid_argmin(ctx: Any, eps_target: Exact, delta: Exact) -> GridArgmin | None:
    """The grid minimiser of σ², or ``None`` if the current precision cannot tell it apart.

    Must run in ball arithmetic (``ctx.rigorous``); rising precision is the caller's (:meth:`Quantity.decide`).
    """
    lmin = lambda_min(ctx, eps_target, delta)
    step = ball(LAMBDA_STEP)
    # grid size: the largest j with λ_min + j/2 <= 500, decided with balls
    t = (ball(LAMBDA_MAX) - lmin) / step
    if t.contains_integer():
        return None  # a grid point lies within the ball's radius of 500: more precision needed
    j_hi = int(t.floor().unique_fmpz())
    if j_hi < 1:
        raise InvalidParameter(
            "eps_target", str(eps_target), f"a budget whose lambda_min + 1/2 <= {LAMBDA_MAX} (the grid is empty)"
        )
    values = []
    for j in range(1, j_hi + 1):
        lam = lmin + j * step
        den = ctx.num(eps_target) - rdp_to_dp_eps(ctx, lam, ctx.num(0), delta)
        if not den > 0:
            return None
        values.append(lam / den)
    best = min(range(len(values)), key=lambda i: values[i].mid())
    for i, v in enumerate(values):
        if i != best and lt(values[best], v) is not True:
            return None
    j = best + 1
    return GridArgmin(j, lmin + j * step, values[best].sqrt(), j_hi)


def _argmin_or_nan(ctx: Any, eps_target: Exact, delta: Exact, what: str) -> arb:
    found = grid_argmin(ctx, eps_target, delta)
    if found is None:
        return arb.nan()  # undecided at this precision: the unbounded enclosure, which decides nothing
    return found.lam if what == "lam" else found.sigma


def _sigma(ctx: Any, alpha: Exact, eps_target: Exact, delta: Exact) -> arb:
    """σ at Rényi order λ (the input ``alpha``); λ at or below λ_min has no σ (the budget cannot be met) and is
    refused."""
    s2 = sigma_sq(ctx, alpha, eps_target, delta)
    if s2 <= 0 or (ball(alpha) - lambda_min(ctx, eps_target, delta)) <= 0:
        lmin = lambda_min(ctx, eps_target, delta)
        raise InvalidParameter(
            "alpha", str(alpha), f"a Renyi order above lambda_min = {lmin.mid().str(8, radius=False)} for this budget"
        )
    return s2.sqrt()


def _float_argmin(eps_target: Exact, delta: Exact) -> tuple[float, float]:
    import numpy as np

    lmin = lambda_min(FLOAT, eps_target, delta)
    j = np.arange(1, int((500 - lmin) / 0.5) + 1)
    lam = lmin + 0.5 * j
    lam = lam[lam <= 500]
    s2 = lam / (float(eps_target) + np.log(float(delta)) / (lam - 1))
    i = int(np.argmin(s2))
    return float(lam[i]), float(np.sqrt(s2[i]))


_EPS_T = real("eps_target", 0, lo_open=True, doc="per-query budget m*eps")
_DELTA = probability("delta", zero=False, doc="per-query delta = m*Delta")

QUANTITIES = [
    Quantity(
        "darrm.gnmax.lambda_min",
        (_EPS_T, _DELTA),
        lambda_min,
        "DaRRM App. D.2.1",
        "log(1/delta)/eps_target + 1",
        float=lambda **kw: lambda_min(FLOAT, **kw),
    ),
    Quantity(
        "darrm.gnmax.grid_lambda",
        (_EPS_T, _DELTA, integer("j", 1)),
        lambda ctx, eps_target, delta, j: lambda_min(ctx, eps_target, delta) + j * ctx.num(LAMBDA_STEP),
        "DaRRM App. D.2.1",
        "the j-th grid point lambda_min + j/2",
        float=lambda eps_target, delta, j: lambda_min(FLOAT, eps_target, delta) + j / 2,
    ),
    Quantity(
        "darrm.gnmax.sigma",
        (_EPS_T, _DELTA, real("alpha", 1, lo_open=True, doc="Renyi order alpha > 1 (DaRRM's lambda)")),
        _sigma,
        "DaRRM App. D.2.1; PATE Thm 5",
        "sigma meeting (eps_target, delta) at Renyi order alpha",
        float=lambda alpha, **kw: sigma_sq(FLOAT, alpha, **kw) ** 0.5,
    ),
    Quantity(
        "darrm.gnmax.grid_sigma",
        (_EPS_T, _DELTA, integer("j", 1)),
        lambda ctx, eps_target, delta, j: sigma_sq(
            ctx, lambda_min(ctx, eps_target, delta) + j * ctx.num(LAMBDA_STEP), eps_target, delta
        ).sqrt(),
        "DaRRM App. D.2.1, Figure 10",
        "sigma at the j-th grid point lambda_min + j/2",
        float=lambda eps_target, delta, j: (
            sigma_sq(FLOAT, lambda_min(FLOAT, eps_target, delta) + j / 2, eps_target, delta) ** 0.5
        ),
    ),
    Quantity(
        "darrm.gnmax.lambda_argmin",
        (_EPS_T, _DELTA),
        lambda ctx, **kw: _argmin_or_nan(ctx, what="lam", **kw),
        "DaRRM App. D.2.1, Table 4",
        "grid argmin of sigma^2 over lambda_min + j/2 <= 500",
        float=lambda **kw: _float_argmin(**kw)[0],
    ),
    Quantity(
        "darrm.gnmax.sigma_min",
        (_EPS_T, _DELTA),
        lambda ctx, **kw: _argmin_or_nan(ctx, what="sigma", **kw),
        "DaRRM App. D.2.1, Table 4",
        "grid minimum of sigma over lambda_min + j/2 <= 500",
        float=lambda **kw: _float_argmin(**kw)[1],
    ),
]
