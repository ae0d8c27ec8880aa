"""Optimal composition of ε_1-, …, ε_k-DP mechanisms (Murtagh–Vadhan [MV16] Thm 1.5), by brute force over subsets.

    δ(ε_g) = [Π_j (1 + e^{ε_j})]^{-1} Σ_{S ⊆ [k]} max{e^{Σ_S ε_i} − e^{ε_g} e^{Σ_{not S} ε_i}, 0},

summed over the 2^k subsets grouped by their exact subset sums (the problem is #P-hard, so k <= :data:`MV_MAX_K`).
Which subsets contribute is decided in integers, so an exactly-zero term is never mistaken for a tiny one.

References:
    J. Murtagh, S. Vadhan, "The Complexity of Computing the Optimal Composition of Differential Privacy",
    TCC 2016, Thm 1.5 [MV16].
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from dpcert.arith.ball import MAX_PREC, Enclosure, ball, workprec
from dpcert.arith.exact import Exact
from dpcert.arith.floats import log1pexp, logsumexp
from dpcert.core.params import real, reals
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = ["mv_delta_ball", "mv_delta_float", "mv_delta", "MV_MAX_K", "MV_MAX_EPS", "MV_DELTA", "QUANTITIES", "CLAIMS"]

#: Largest k accepted by the brute-force heterogeneous sum (2^k subsets).
MV_MAX_K = 20
#: Largest ε_j accepted (as for the homogeneous sum: e^ε beyond 10^4342 is no privacy at all).
MV_MAX_EPS = 10**4

_REF_MV = "Murtagh–Vadhan TCC 2016 Thm 1.5"

_EPS_G = real("eps_g", 0, doc="global epsilon of the composition")
_EPS_LIST = reals("eps_list", 0, MV_MAX_EPS, doc=f"per-mechanism epsilons (at most {MV_MAX_K})")


def _mv_setup(eps_list: Any, eps_g: Any) -> tuple[int, list[int], Fraction]:
    """Common denominator D, the integer numerators n_j = ε_j·D, and ε_g (validated)."""
    items = _EPS_LIST.parse(eps_list)
    if len(items) > MV_MAX_K:
        raise InvalidParameter(
            "eps_list",
            f"<{len(items)} values>",
            f"at most {MV_MAX_K} values: the heterogeneous formula (Murtagh–Vadhan "
            "Thm 1.5) is #P-hard and summed here by brute force over 2^k subsets",
        )
    fr = [x.value for x in items]  # type: ignore[union-attr]
    den = math.lcm(*(f.denominator for f in fr))
    return den, [int(f * den) for f in fr], _EPS_G.exact(eps_g)


def _subset_sums(nums: list[int]) -> tuple[list[int], list[int]]:
    """Distinct subset sums Σ_{i∈S} n_i over all S ⊆ [k], with how many subsets give each (exact integers)."""
    if sum(nums) < 2**62:
        sums = np.zeros(1, dtype=np.int64)
        counts = np.ones(1, dtype=np.int64)
        for n in nums:
            sums = np.concatenate([sums, sums + n])
            counts = np.concatenate([counts, counts])
            sums, inv = np.unique(sums, return_inverse=True)
            # counts are at most 2^20, exact in the float64 weights of bincount
            counts = np.bincount(inv, weights=counts).astype(np.int64)
        return [int(s) for s in sums], [int(c) for c in counts]
    table: Counter[int] = Counter({0: 1})
    for n in nums:
        nxt: Counter[int] = Counter()
        for s, c in table.items():
            nxt[s] += c
            nxt[s + n] += c
        table = nxt
    keys = sorted(table)
    return keys, [table[s] for s in keys]


def _mv_terms(eps_list: Any, eps_g: Any) -> tuple[int, list[int], Fraction, list[tuple[int, int]]]:
    """(D, numerators, ε_g, [(subset sum s, count)] of the subsets whose term is positive).

    The term of S is positive iff Σ_S ε − Σ_{not S} ε > ε_g, i.e. (2s − E)/D > ε_g: decided in integers.
    """
    den, nums, g = _mv_setup(eps_list, eps_g)
    total = sum(nums)
    sums, counts = _subset_sums(nums)
    keep = [(s, c) for s, c in zip(sums, counts, strict=True) if (2 * s - total) * g.denominator > g.numerator * den]
    return den, nums, g, keep


def mv_delta_ball(ctx: Any, eps_list: tuple[Exact, ...], eps_g: Exact | Fraction) -> arb | Fraction:
    """Rigorous ball of the optimal δ(ε_g) of composing ε_1-, …, ε_k-DP mechanisms (brute force, k <= 20).

    Args:
        ctx: a ball context; flint's working precision is the caller's, plus guard bits for the sum.
        eps_list: the per-mechanism ε_j >= 0 (exact), at most :data:`MV_MAX_K` of them.
        eps_g: global ε_g >= 0.

    Returns:
        An ``arb`` ball, or the exact ``Fraction(0)`` when no subset's term is positive.

    Raises:
        InvalidParameter: for an empty or too long list, or negative values.

    References:
        Murtagh–Vadhan TCC 2016 [MV16] Thm 1.5.
    """
    den, nums, g, keep = _mv_terms(eps_list, eps_g)
    if not keep:
        return Fraction(0)
    total = sum(nums)
    with workprec(ctx.prec + len(nums) + 12):
        log_z = arb(0)
        for n in nums:
            log_z += ball(Fraction(n, den)).exp().log1p()
        acc = arb(0)
        for s, c in keep:
            # count · e^{s − log Z} · (1 − e^{ε_g + E − 2s}): all factors positive, each term computed afresh
            mass = (ball(Fraction(s, den)) - log_z).exp()
            acc += c * mass * -ball(g + Fraction(total - 2 * s, den)).expm1()
        return acc


def mv_delta_float(eps_list: Any, eps_g: Any) -> float:
    """float64 heterogeneous δ(ε_g) (Murtagh–Vadhan [MV16] Thm 1.5), vectorised over the distinct subset sums.

    Args:
        eps_list: per-mechanism ε_j >= 0 (floats, strings, Fractions or Exact), at most :data:`MV_MAX_K`.
        eps_g: global ε_g >= 0.

    Returns:
        δ(ε_g) as a float (evidence, not a certificate).

    Raises:
        InvalidParameter: for an empty or too long list, or negative values.

    References:
        Murtagh–Vadhan TCC 2016 [MV16] Thm 1.5.
    """
    den, nums, g, keep = _mv_terms(eps_list, eps_g)
    if not keep:
        return 0.0
    total = sum(nums)
    log_z = float(np.sum(log1pexp([n / den for n in nums])))
    sums = [si for si, _ in keep]
    cnt = np.array([c for _, c in keep], dtype=float)
    if max(abs(2 * sums[-1] - total), abs(2 * sums[0] - total)) < 2**62:
        two_s_minus_e = 2 * np.array(sums, dtype=np.int64) - total
        s = np.array(sums, dtype=np.int64) / den
        d = float(g) - two_s_minus_e / den
        # the exponent of the expm1 factor can be arbitrarily close to 0: redo the near ones exactly
        near = np.flatnonzero(np.abs(d) < 1e-3 * max(1.0, float(g)))
        d[near] = [float(g - Fraction(int(two_s_minus_e[j]), den)) for j in near]
    else:
        s = np.array([float(Fraction(si, den)) for si in sums])
        d = np.array([float(g + Fraction(total - 2 * si, den)) for si in sums])
    with np.errstate(divide="ignore"):
        return math.exp(logsumexp(s - log_z + np.log(-np.expm1(d)), b=cnt))


def mv_delta(eps_list: Any, eps_g: Any, *, rel_tol: float = 1e-15, max_prec: int = MAX_PREC) -> Enclosure:
    """Certified enclosure of the heterogeneous optimal δ(ε_g) (Murtagh–Vadhan [MV16] Thm 1.5; k <= 20).

    Args:
        eps_list: per-mechanism ε_j >= 0 (a list, or a comma-separated string), at most :data:`MV_MAX_K`.
        eps_g: global ε_g >= 0.
        rel_tol: relative width of the enclosure.
        max_prec: the largest precision (bits) tried.

    Returns:
        An :class:`~dpcert.arith.ball.Enclosure`.

    Raises:
        InvalidParameter: for bad inputs or more than :data:`MV_MAX_K` mechanisms.

    References:
        Murtagh–Vadhan TCC 2016 [MV16] Thm 1.5.

    >>> from dpcert.composition.kov import kov_delta
    >>> mv_delta(["0.1", "0.1"], 0).overlaps(kov_delta(2, "0.1", 0))
    True
    """
    return MV_DELTA.enclose(eps_list=eps_list, eps_g=eps_g, rel_tol=rel_tol, max_prec=max_prec)


MV_DELTA = Quantity(
    "composition.mv.delta",
    (_EPS_LIST, _EPS_G),
    mv_delta_ball,
    _REF_MV,
    "optimal delta(eps_g) of composing eps_1-, ..., eps_k-DP mechanisms (brute force over 2^k subsets)",
    float=lambda eps_list, eps_g: mv_delta_float(eps_list, eps_g),
    # measured: worst 3e-14 over 500 random inputs with k <= 12
    float_rtol=1e-12,
)

QUANTITIES = [MV_DELTA]
#: the heterogeneous sum's identity claim lives in :mod:`dpcert.composition.identities`
CLAIMS: list[Any] = []
