"""The error of DaRRM_γ (Definition 2.4), exactly, for given p_1..p_K and under a product prior.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

E(DaRRM_γ) = |Pr[DaRRM_γ(D) = 1] − Pr[g(S) = 1]| = |Σ_{l<=H} α_l (1−γ(l))/2 − Σ_{l>=H+1} α_l (1−γ(l))/2|
with α the PoissonBinomial(p_1..p_K) pmf (Eqs. 183–186). Under a product prior T = T_1^{⊗K} with mean
μ, E_T[α_l] = Bin(K, μ)(l) exactly (independent Bernoulli(p_i) with independent p_i are Bernoulli(μ)), so the
paper's surrogate objective (Eq. 201/202, the absolute value dropped) is the error of K i.i.d. mechanisms with
p = μ: that is ``darrm.error`` (for μ >= 1/2 the absolute value is not needed, Lemma B.11's sign argument).

References:
    DaRRM (Jiang–Zhang–Joshi), Definition 2.4, App. C.1 (Eqs. 183–202), Lemma B.11 [JZJ24];
    docs/derivations/darrm.md#error-under-a-product-prior.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, lcm
from typing import Any

from dpcert.arith.exact import to_fraction
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.darrm.gamma import Gamma, check_integer_m, check_k, named_gamma
from dpcert.darrm.params import gamma_param
from dpcert.errors import InvalidParameter

__all__ = ["poisson_binomial", "error", "error_iid", "mismatch", "surrogate", "PRIOR_MEANS", "QUANTITIES"]

#: Means μ of the product priors behind the paper's surrogate objectives
# (docs/derivations/darrm.md#error-under-a-product-prior): Eq. 202 (uniform on
#: [0.5, 1]^K), Algorithm 5's left-endpoint grid {0.50, …, 0.99}, Eq. 204 (uniform on [0.7, 1]^K).
PRIOR_MEANS = {"eq202": Fraction(3, 4), "alg5_grid": Fraction(149, 200), "eq204": Fraction(17, 20)}


def _pmf_numerators(ps: list[Fraction]) -> tuple[list[int], int]:
    """The pmf of the number of ones among independent Bernoulli(p_i) as integers over one denominator Π den(p_i).

    Integer multiply-adds, no gcd per step (a Fraction per cell made K = 401 mechanisms take minutes).
    """
    nums, den = [1], 1
    for p in ps:
        a, b = p.numerator, p.denominator
        c = b - a
        new = [0] * (len(nums) + 1)
        for i, x in enumerate(nums):
            new[i] += x * c
            new[i + 1] += x * a
        nums, den = new, den * b
    return nums, den


def poisson_binomial(ps: list[Fraction]) -> list[Fraction]:
    """The exact pmf of the number of ones among independent Bernoulli(p_i)."""
    nums, den = _pmf_numerators(ps)
    return [Fraction(x, den) for x in nums]


def _table(gamma: Gamma) -> tuple[Fraction, ...]:
    if not gamma.eps_free:
        raise InvalidParameter("gamma", gamma.name, "a gamma that does not depend on eps (const needs eps)")
    return tuple(Fraction(gamma.scale) * g for g in gamma.table)


def _err(alpha: list[Fraction], g: tuple[Fraction, ...]) -> Fraction:
    K = len(g) - 1
    H = (K - 1) // 2
    return abs(sum((alpha[l] * (1 - g[l]) / 2 * (1 if l <= H else -1) for l in range(K + 1)), Fraction(0)))


def _err_int(nums: list[int], den: int, g: tuple[Fraction, ...]) -> Fraction:
    """:func:`_err` with α_l = nums[l] / den: one integer sum over a common denominator, one Fraction at the end."""
    K = len(g) - 1
    H = (K - 1) // 2
    G = lcm(*(x.denominator for x in g))
    w = [int((1 - x) * G) for x in g]  # (1 − γ(l))·G, integers
    total = sum(nums[l] * w[l] for l in range(H + 1)) - sum(nums[l] * w[l] for l in range(H + 1, K + 1))
    return abs(Fraction(total, 2 * den * G))


def _check_size(name: str, value: Any, K: int, bits: int) -> None:
    """Refuse, before any work, inputs whose exact error costs more than :data:`ERROR_MAX_WORK`: K + 1 terms (or
    K steps) on integers of ``bits`` bits, the size of the result's denominator."""
    if (K + 1) * bits > ERROR_MAX_WORK:
        raise InvalidParameter(
            name,
            value,
            f"probabilities with fewer digits: (K + 1) x {bits} bits (the exact error's denominator) exceeds "
            f"{ERROR_MAX_WORK} (about a second of exact arithmetic)",
        )


def error(gamma: Gamma, ps: list[Fraction]) -> Fraction:
    """E(DaRRM_γ) for independent mechanisms with Pr[M_i(D) = 1] = p_i (Definition 2.4), exactly.

    Raises:
        InvalidParameter: len(ps) != K, some p_i outside [0, 1], or a cost over :data:`ERROR_MAX_WORK`.
    """
    g = _table(gamma)
    if len(ps) != len(g) - 1:
        raise InvalidParameter("p", ps, f"K = {len(g) - 1} probabilities")
    for i, p in enumerate(ps):
        if not 0 <= p <= 1:
            raise InvalidParameter(f"p[{i}]", p, "a probability in [0, 1]")
    _check_size("p", ps, len(ps), sum(p.denominator.bit_length() for p in ps))
    return _err_int(*_pmf_numerators(ps), g)


def error_iid(gamma: Gamma, mu: Fraction) -> Fraction:
    """E(DaRRM_γ) for K i.i.d. mechanisms with p = μ: the surrogate objective under a product prior of mean μ.

    Raises:
        InvalidParameter: for a cost over :data:`ERROR_MAX_WORK`.
    """
    g = _table(gamma)
    K = len(g) - 1
    a, b = mu.numerator, mu.denominator
    _check_size("mu", mu, K, K * b.bit_length())
    pa, pc = [1], [1]  # a^l and (b − a)^l
    for _ in range(K):
        pa.append(pa[-1] * a)
        pc.append(pc[-1] * (b - a))
    nums = [comb(K, l) * pa[l] * pc[K - l] for l in range(K + 1)]
    return _err_int(nums, b**K, g)


def mismatch(gamma: Gamma, ps: list[Fraction]) -> Fraction:
    """Pr[DaRRM_γ output differs from the realised majority] = Σ_l α_l (1 − γ(l))/2
    (docs/derivations/darrm.md#error-under-a-product-prior)."""
    g = _table(gamma)
    return sum((a * (1 - gl) / 2 for a, gl in zip(poisson_binomial(ps), g, strict=True)), Fraction(0))


def surrogate(gamma: Gamma, mu: Fraction) -> Fraction:
    """The surrogate objective of App. C.1–C.2 (Eq. 201 with E_T[α_l] = Bin(K, μ)(l) exactly):
    −(1/2) Σ_{l=H+1}^{K} (Bin(K,μ)(l) − Bin(K,μ)(K−l)) γ(l), linear in γ (the LP minimises it).

    References:
        DaRRM App. C.1, Eqs. 199–202; Algorithm 5 estimates it by sampling, here it is exact.
    """
    g = _table(gamma)
    K = len(g) - 1
    H = (K - 1) // 2
    b = [comb(K, l) * mu**l * (1 - mu) ** (K - l) for l in range(K + 1)]
    return -sum(((b[l] - b[K - l]) * g[l] for l in range(H + 1, K + 1)), Fraction(0)) / 2


def _gamma(gamma: str, K: int, m: Any) -> Gamma:
    mv = to_fraction(m)
    check_k(K)
    check_integer_m(K, mv)
    if gamma == "const":
        raise InvalidParameter("gamma", gamma, "sub, dsub, max, one or a γ table (const depends on eps)")
    return named_gamma(gamma, K, mv, Fraction(0), Fraction(0), Fraction(0))


def _error_ball(ctx: Any, gamma: str, K: int, m: Any, mu: Any) -> Fraction:
    return error_iid(_gamma(gamma, K, m), to_fraction(mu))


def _error_float(gamma: str, K: int, m: Any, mu: Any) -> float:
    g = [float(v) for v in _gamma(gamma, K, m).table]
    x = float(to_fraction(mu))
    H = (K - 1) // 2
    tot = 0.0
    for l in range(K + 1):
        a = comb(K, l) * x**l * (1 - x) ** (K - l)
        tot += (0.5 if l <= H else -0.5) * a * (1 - g[l])
    return abs(tot)


#: Largest K of ``darrm.error`` and ``dpcert darrm error``; with :data:`ERROR_MAX_WORK` it keeps every exact error
#: within about a second (before: K = 10001 took 42 s, K = 401 different mechanisms 14 s with a Fraction per cell).
ERROR_MAX_K = 1001
#: Largest cost of an exact error: (K + 1) times the bits of its denominator (K times those of μ's, or the sum of
#: those of the p_i's). K = 1001 with a 29-digit μ is 9.7e7 (1.2 s); checked before the work.
ERROR_MAX_WORK = 10**8

ERROR = Quantity(
    "darrm.error",
    (
        gamma_param(doc="sub, dsub, max, one, or a γ table file (recorded as its values)"),
        integer("K", 1, ERROR_MAX_K, odd=True, doc="number of mechanisms"),
        real("m", 1, doc="privacy allowance (integer for sub/dsub/max)"),
        probability("mu", one=True, doc="mean of the product prior (= p of i.i.d. mechanisms)"),
    ),
    _error_ball,
    "Jiang–Zhang–Joshi, DaRRM (TMLR), Definition 2.4 and App. C.1 (Eq. 201)",
    "E(DaRRM_gamma) of K i.i.d. mechanisms with p = mu (the surrogate objective under a product prior of mean mu)",
    float=_error_float,
)

QUANTITIES = [ERROR]
