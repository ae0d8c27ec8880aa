"""Heterogeneous Gaussian composition, exactly: k Gaussians with noise σ_i and L2 sensitivities Δ_i are one.

The i-th mechanism adds N(0, σ_i²I) to a query of L2 sensitivity Δ_i, so it is exactly μ_i-GDP with μ_i = Δ_i/σ_i,
and the adaptive composition of μ_i-GDP mechanisms is exactly μ-GDP with μ² = Σ μ_i² (Dong–Roth–Su, JRSS-B 2022 [DRS22],
Cor. 3.3: the pair (N(0, I), N(μ⃗, I)) dominates each mechanism and composing such pairs stacks the μ vectors, so
the composed pair is (N(0, I_k), N((μ_1, …, μ_k), I_k)), a single Gaussian shift of length ‖μ⃗‖₂). The composition is
therefore one Gaussian mechanism with μ² = Σ (Δ_i/σ_i)², an exact rational, and its privacy profile is Balle–Wang
[BW18]'s
δ_μ(ε) (:mod:`dpcert.gaussian.mechanism`), evaluated here with the same certified ball code and the same
certified inversion.

Inputs: ``sigmas`` (a list of at most :data:`COMPOSED_MAX_ITEMS` values, the count checked before any item is
parsed) and ``sensitivities``: one value for every mechanism (default 1) or one per mechanism.

References:
    J. Dong, A. Roth, W. Su, "Gaussian Differential Privacy", JRSS-B 2022 (arXiv 1905.02383), Cor. 2.13, 3.3 [DRS22].
    B. Balle, Y.-X. Wang, ICML 2018 (arXiv 1805.06530), Thm 8 [BW18].
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import MAX_PREC, Enclosure, workprec
from dpcert.arith.exact import Exact, as_fraction
from dpcert.core.params import probability, real, reals
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter
from dpcert.gaussian.mechanism import (
    DELTA_FLOOR_BITS,
    DELTA_MU2_MAX,
    MU2_MAX,
    _delta_at,
    _eps_float_mu,
    _log_delta_quad,
    check_mu_squared,
    eps_bracket,
)

__all__ = [
    "composed_mu_squared",
    "composed_delta_ball",
    "composed_delta_float",
    "composed_eps_ball",
    "composed_eps_float",
    "gaussian_composed_delta",
    "gaussian_composed_eps",
    "COMPOSED_MAX_ITEMS",
    "GAUSSIAN_COMPOSED_DELTA",
    "GAUSSIAN_COMPOSED_EPS",
    "QUANTITIES",
]

#: The most mechanisms accepted in one composition (each σ_i is an exact rational; Σ (Δ_i/σ_i)² is summed exactly,
#: so its denominator can grow with the count).
COMPOSED_MAX_ITEMS = 1000

_REF = "Dong–Roth–Su JRSS-B 2022 Cor. 3.3 (mu^2 = sum (Delta_i/sigma_i)^2, exact); Balle–Wang ICML 2018 Thm 8"

_EPS = real("eps", doc="epsilon (any real)")
_DELTA = probability("delta", zero=False, doc="delta in (0, 1)")
_SIGMAS = reals(
    "sigmas", 0, lo_open=True, max_items=COMPOSED_MAX_ITEMS, doc="noise standard deviations, one per mechanism"
)
_SENS = replace(
    reals("sensitivities", 0, lo_open=True, max_items=COMPOSED_MAX_ITEMS, doc="L2 sensitivities (one, or one each)"),
    default="1",
)


def composed_mu_squared(sigmas: Any, sensitivities: Any, limit: int = MU2_MAX) -> Fraction:
    """μ² = Σ_i (Δ_i/σ_i)², exact (one sensitivity applies to every mechanism).

    Raises:
        InvalidParameter: when there are several sensitivities and not one per σ, or when μ² > ``limit``
            (:data:`~dpcert.gaussian.mechanism.MU2_MAX` for ε(δ), ``DELTA_MU2_MAX`` for δ(ε)).
    """
    s = [as_fraction(x) for x in sigmas]
    d = [as_fraction(x) for x in sensitivities]
    if len(d) == 1:
        d = d * len(s)
    if len(d) != len(s):
        raise InvalidParameter(
            "sensitivities",
            f"<{len(d)} values>",
            f"one value, or one per sigma ({len(s)} values)",
        )
    mu2 = sum((di * di / (si * si) for di, si in zip(d, s, strict=True)), Fraction(0))
    shown = ",".join(str(getattr(x, "given", x)) for x in sigmas)
    return check_mu_squared(mu2, "sigmas", shown, "sum of (sensitivity_i/sigma_i)^2", limit)


def composed_delta_ball(ctx: Any, eps: Exact, sigmas: tuple, sensitivities: tuple) -> arb:
    """Rigorous ball of δ_μ(ε) at μ² = Σ (Δ_i/σ_i)² (relative width about 2^-ctx.prec, as gaussian.delta)."""
    return _delta_at(as_fraction(eps), composed_mu_squared(sigmas, sensitivities, DELTA_MU2_MAX), ctx.prec)


def composed_delta_float(eps: Any, sigmas: Any, sensitivities: Any) -> float:
    """float64 δ_μ(ε) by quadrature of its positive integral form, μ from a float sum of (Δ_i/σ_i)² (evidence)."""
    import warnings

    s = [float(as_fraction(x)) for x in sigmas]
    d = [float(as_fraction(x)) for x in sensitivities]
    d = d * len(s) if len(d) == 1 else d
    mu = math.sqrt(math.fsum((di / si) ** 2 for di, si in zip(d, s, strict=True)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return math.exp(_log_delta_quad(float(as_fraction(eps)), mu))


def composed_eps_ball(ctx: Any, delta: Exact, sigmas: tuple, sensitivities: tuple) -> arb | Fraction:
    """Rigorous ball of ε(δ) of the composition (the exact 0 when δ_μ(0) <= δ); its upper end is a safe ε."""
    prec = ctx.prec
    cap = getattr(ctx, "max_prec", MAX_PREC)
    br = eps_bracket(
        as_fraction(delta),
        composed_mu_squared(sigmas, sensitivities),
        Fraction(1, 2 ** max(8, prec - 12)),
        start_prec=min(prec, cap),
        max_prec=cap,
    )
    if br.lo == br.hi:
        return br.lo
    with workprec(prec):
        return Enclosure(br.lo, br.hi).ball()


def composed_eps_float(delta: Any, sigmas: Any, sensitivities: Any) -> float:
    """float64 ε(δ): Brent's method on the closed form of log δ_μ, μ from a float sum (evidence)."""
    s = [float(as_fraction(x)) for x in sigmas]
    d = [float(as_fraction(x)) for x in sensitivities]
    d = d * len(s) if len(d) == 1 else d
    mu = math.sqrt(math.fsum((di / si) ** 2 for di, si in zip(d, s, strict=True)))
    return _eps_float_mu(as_fraction(delta), mu)


def gaussian_composed_delta(eps: Any, sigmas: Any, sensitivities: Any = "1", *, rel_tol: float = 1e-15) -> Enclosure:
    """Certified enclosure of δ(ε) of k composed Gaussian mechanisms with noises σ_i and sensitivities Δ_i.

    >>> gaussian_composed_delta("1", ["1", "1"]).short(12) == gaussian_composed_delta("1", ["0.7071067811865475244"]
    ...     ).short(12)
    True
    """
    return GAUSSIAN_COMPOSED_DELTA.enclose(
        eps=eps, sigmas=sigmas, sensitivities=sensitivities, rel_tol=rel_tol, abs_tol=Fraction(1, 2**DELTA_FLOOR_BITS)
    )


def gaussian_composed_eps(delta: Any, sigmas: Any, sensitivities: Any = "1", *, rel_tol: float = 1e-15) -> Enclosure:
    """Certified enclosure of ε(δ) of k composed Gaussian mechanisms (δ_μ at its upper end is proved <= δ)."""
    return GAUSSIAN_COMPOSED_EPS.enclose(delta=delta, sigmas=sigmas, sensitivities=sensitivities, rel_tol=rel_tol)


GAUSSIAN_COMPOSED_DELTA = Quantity(
    "gaussian.composed.delta",
    (_EPS, _SIGMAS, _SENS),
    composed_delta_ball,
    _REF,
    "delta(eps) of k composed Gaussian mechanisms (noises sigma_i, L2 sensitivities Delta_i): exact profile",
    float=composed_delta_float,
    float_rtol=1e-12,
)
GAUSSIAN_COMPOSED_EPS = Quantity(
    "gaussian.composed.eps",
    (_DELTA, _SIGMAS, _SENS),
    composed_eps_ball,
    _REF,
    "least eps with delta(eps) <= delta for k composed Gaussian mechanisms (0 when delta(0) <= delta)",
    float=composed_eps_float,
    float_rtol=1e-12,
)

QUANTITIES = [GAUSSIAN_COMPOSED_DELTA, GAUSSIAN_COMPOSED_EPS]
