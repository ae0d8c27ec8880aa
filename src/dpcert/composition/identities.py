"""Exact identities of the optimal-composition formulas, certified as rational functions of x = e^ε.

* KOV's parametrisation (Kairouz–Oh–Viswanath [KOV15] Thm 3.3) and Murtagh–Vadhan [MV16]'s sum (Thm 1.4) agree at the
lattice
  points ε_g = (k − 2i)ε;
* the heterogeneous subset sum (Murtagh–Vadhan [MV16] Thm 1.5) with all ε_j = ε reduces to the homogeneous binomial sum.

Both hold for every ε >= 0, so they are checked as identities of rational functions, not at sample points.

References:
    P. Kairouz, S. Oh, P. Viswanath, ICML 2015, Thm 3.3 [KOV15]; J. Murtagh, S. Vadhan, TCC 2016, Thms 1.4 and 1.5
    [MV16].
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import fmpq_poly

from dpcert.arith.exact import RationalFunction
from dpcert.composition.kov import first_index
from dpcert.core.claim import Evidence, FunctionClaim, Verdict, check_function

__all__ = ["check_kov_identity", "check_mv_homogeneous", "CLAIMS", "QUANTITIES"]


def _mono(n: int, c: int = 1) -> fmpq_poly:
    return fmpq_poly([0] * n + [c])


@check_function
def check_kov_identity(max_prec: int, pairs: tuple[tuple[int, int], ...]) -> tuple[Verdict, Evidence]:
    """Claim check: the [MV16, Thm 1.4] and [KOV15, Thm 3.3] sums agree as rational functions of x = e^ε at each
    (k, i)."""
    bad = []
    for k, i in pairs:
        # ε_g = (k − 2i)ε; which terms of the MV sum are positive does not depend on ε > 0 (ε = 1 here)
        j0 = first_index(k, Fraction(1), Fraction(k - 2 * i))
        mv = sum(
            (_mono(j, math.comb(k, j)) - _mono(2 * k - 2 * i - j, math.comb(k, j)) for j in range(j0, k + 1)),
            fmpq_poly([]),
        )
        kov = sum(
            (_mono(k - ell, math.comb(k, ell)) - _mono(k - 2 * i + ell, math.comb(k, ell)) for ell in range(i)),
            fmpq_poly([]),
        )
        den = fmpq_poly([1, 1]) ** k
        if not (RationalFunction(mv, den) - RationalFunction(kov, den)).is_zero():
            bad.append((k, i))
    detail = (
        f"MV Thm 1.4 sum minus KOV Thm 3.3 sum at eps_g = (k-2i)eps is the zero rational function "
        f"of x = e^eps for (k, i) in {list(pairs)}"
    )
    if bad:
        return Verdict.REFUTED, Evidence(
            method="exact rational arithmetic",
            worst_case=bad,
            detail=f"non-zero difference for (k, i) in {bad}",
        )
    return Verdict.CERTIFIED, Evidence(
        method="exact rational arithmetic", detail=detail, counts={"identities": len(pairs)}
    )


def _kov_identity(pairs: tuple[tuple[int, int], ...]) -> FunctionClaim:
    return FunctionClaim(
        id="composition.kov.identity_kov_parametrisation",
        reference="Kairouz–Oh–Viswanath ICML 2015 Thm 3.3; Murtagh–Vadhan TCC 2016 Thm 1.4",
        statement="For every eps >= 0, the Murtagh–Vadhan sum at eps_g = (k-2i)eps equals KOV's "
        "sum_{l<i} C(k,l)(e^{(k-l)eps} - e^{(k-2i+l)eps})/(1+e^eps)^k (identity in x = e^eps)",
        fn=check_kov_identity,
        inputs={"pairs": pairs},
    )


@check_function
def check_mv_homogeneous(max_prec: int, k: tuple[int, ...]) -> tuple[Verdict, Evidence]:
    """Claim check: the 2^k subset sum with equal ε_i equals the homogeneous binomial sum, for each k."""
    ks = k
    bad = []
    checked = 0
    for k in ks:
        # y = e^{ε/2}; ε_g = (m/2)ε for m = 0..2k covers lattice and off-lattice points
        for m in range(2 * k + 1):
            het = [0] * (3 * k + 1)
            for mask in range(2**k):
                s = bin(mask).count("1")
                # term of S: y^{2|S|} − y^m y^{2(k−|S|)}, kept iff its exponent comparison says positive
                if 2 * s > m + 2 * (k - s):
                    het[2 * s] += 1
                    het[m + 2 * (k - s)] -= 1
            hom = fmpq_poly([])
            for i in range(k + 1):
                if 4 * i - 2 * k > m:
                    hom += _mono(2 * i, math.comb(k, i)) - _mono(m + 2 * (k - i), math.comb(k, i))
            den = fmpq_poly([1, 0, 1]) ** k
            checked += 1
            if not (RationalFunction(fmpq_poly(het), den) - RationalFunction(hom, den)).is_zero():
                bad.append((k, m))
    if bad:
        return Verdict.REFUTED, Evidence(
            method="exact rational arithmetic",
            worst_case=bad,
            detail=f"non-zero difference at (k, 2 eps_g/eps) in {bad}",
        )
    return Verdict.CERTIFIED, Evidence(
        method="exact rational arithmetic",
        counts={"identities": checked},
        detail=f"brute-force 2^k subset sum (MV Thm 1.5, all eps_i = eps) minus MV Thm 1.4 is the zero "
        f"rational function of y = e^(eps/2) for k in {list(ks)} and eps_g = (m/2) eps, m = 0..2k",
    )


def _mv_homogeneous_identity(ks: tuple[int, ...]) -> FunctionClaim:
    return FunctionClaim(
        id="composition.mv.homogeneous_reduction",
        reference="Murtagh–Vadhan TCC 2016 Thms 1.4 and 1.5",
        statement="With all eps_i = eps, the heterogeneous optimal-composition sum over all subsets equals "
        "the homogeneous binomial sum, for every eps >= 0 and eps_g in (eps/2)·{0, ..., 2k}",
        fn=check_mv_homogeneous,
        inputs={"k": ks},
    )


QUANTITIES: list = []
CLAIMS = [
    _kov_identity(((1, 0), (2, 1), (5, 2), (10, 3), (10, 5), (31, 9), (64, 20))),
    _mv_homogeneous_identity((1, 2, 3, 5, 8)),
]
