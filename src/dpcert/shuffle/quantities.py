"""The named shuffle-model quantities (inputs n, ε0, λ; all values in nats).

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

The paper writes the Rényi order λ and the number of rounds T; the inputs are named from the vocabulary
(:mod:`dpcert.core.vocabulary`): ``alpha`` for λ and ``k`` for T, with ``lam`` and ``T`` still accepted. The
paper's functions take them by position (:func:`by_position`).

References:
    Girgis, Data, Diggavi, Suresh, Kairouz, "On the Rényi Differential Privacy of the Shuffle Model", CCS 2021.
"""

from __future__ import annotations

from typing import Any

from dpcert.core.params import choice, integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.shuffle import bounds, conversion, pair, reduction

__all__ = ["QUANTITIES", "N", "EPS0", "LAM_INT", "LAM_REAL"]


N = integer("n", 1, doc="number of clients (shuffled messages)", max_abs=10**9)
N_RED = integer("n", 1, doc="number of clients (U_red exactly; above 10^4 for integer lam <= 1024 only)", max_abs=10**6)
N_PAIR = integer("n", 1, doc="number of clients (shuffled messages; the float twin sums all n+1 terms)", max_abs=10**6)
EPS0 = real("eps0", 0, doc="LDP parameter eps0 of each client's randomizer (nats)", max_abs=1000)
LAM_INT = integer("alpha", 2, doc="integer Renyi order lambda >= 2", max_abs=10**5)
LAM_THM3 = integer("alpha", 2, doc="integer Renyi order lambda >= 2 (O(lambda^2) moments)", max_abs=4096)
LAM_REAL = real("alpha", 1, lo_open=True, doc="Renyi order lambda > 1", max_abs=10**5)
T_ROUNDS = integer("k", 1, doc="number of composed shuffled rounds T", max_abs=10**9)
DELTA = probability("delta", zero=False, doc="target delta in (0, 1)")
EPS = real("eps", 0, lo_open=True, doc="target DP epsilon > 0 (nats)", max_abs=10**4)
ORDER = choice(
    "order", ("max", "forward", "reverse"), default="max", doc="which order of the pair: max of both, forward, reverse"
)
BOUND = choice(
    "bound",
    ("default", "reduction"),
    default="default",
    doc="default: min(Thm 1 via eq. (8), Thm 2, RR_1); reduction: also U_red (derived here, not in the paper)",
)

_PAPER = "Girgis–Data–Diggavi–Suresh–Kairouz, CCS 2021"


#: the order in which the paper's functions take their inputs (``(ctx,) n, eps0, λ or T, …``)
_POSITIONS = ("n", "eps0", "alpha", "k", "delta", "eps", "order", "bound", "q")


def by_position(fn: Any) -> Any:
    """An evaluator taking a quantity's inputs by name from one of the paper's functions, which takes them by
    position in the order of :data:`_POSITIONS` (the input ``alpha`` is the paper's λ, ``k`` its T)."""

    def run(*ctx: Any, **inputs: Any) -> Any:
        return fn(*ctx, *(inputs[name] for name in sorted(inputs, key=_POSITIONS.index)))

    return run


def _f(fn: Any) -> Any:
    """A quantity float evaluator from a vectorised float64 bound."""

    def run(n: int, eps0: Any, alpha: Any) -> float:
        return float(fn(n, float(eps0), float(alpha)))

    return run


def _thm3_float(n: int, eps0: Any, alpha: int) -> float:
    # an independent computation: the direct sum over k of the forward divergence, not the moments
    return pair.pair_float(n, float(eps0), float(alpha), "forward")


def _pair_float(n: int, eps0: Any, alpha: Any, order: str) -> float:
    return pair.pair_float(n, float(eps0), float(alpha), order)


QUANTITIES = [
    Quantity(
        "shuffle.rdp.thm1",
        (N, EPS0, LAM_INT),
        by_position(bounds.thm1_ball),
        f"{_PAPER}, Theorem 1, eq. (6)",
        "upper bound 1 on the RDP of the shuffle model, integer lam >= 2",
        float=_f(bounds.thm1_float),
        float_rtol=1e-10,
    ),
    Quantity(
        "shuffle.rdp.cor1",
        (N, EPS0, LAM_INT),
        by_position(bounds.cor1_ball),
        f"{_PAPER}, Corollary 1, eq. (7)",
        "Corollary 1's formula (a bound only where lam^4 e^{5 eps0} < n/9; see cor1_applies)",
        float=_f(bounds.cor1_float),
        float_rtol=1e-12,
    ),
    Quantity(
        "shuffle.rdp.thm2",
        (N, EPS0, LAM_REAL),
        by_position(bounds.thm2_ball),
        f"{_PAPER}, Theorem 2, eq. (9)",
        "upper bound 2 on the RDP of the shuffle model, real lam > 1",
        float=_f(bounds.thm2_float),
        float_rtol=1e-11,
    ),
    Quantity(
        "shuffle.rdp.thm1_real",
        (N, EPS0, LAM_REAL),
        by_position(bounds.eq8_ball),
        f"{_PAPER}, Remark 2, eq. (8) applied to Theorem 1",
        "Theorem 1 extended to real lam > 1 by convexity of (lam-1) D_lam",
        float=_f(bounds.eq8_float),
        float_rtol=1e-10,
    ),
    Quantity(
        "shuffle.rdp.efm19",
        (N, EPS0, LAM_REAL),
        by_position(bounds.efm19_ball),
        f"{_PAPER}, eq. (10) (quoting Erlingsson et al. SODA 2019, Remark 1)",
        "baseline 2 lam e^{4 eps0} (e^eps0 - 1)^2 / n",
        float=_f(bounds.efm19_float),
        float_rtol=1e-12,
    ),
    Quantity(
        "shuffle.rdp.thm3",
        (N_PAIR, EPS0, LAM_THM3),
        by_position(bounds.thm3_ball),
        f"{_PAPER}, Theorem 3, eq. (11)",
        "lower bound on the RDP of the shuffle model (exact binomial central moments), integer lam >= 2",
        float=_thm3_float,
        float_rtol=1e-8,
    ),
    Quantity(
        "shuffle.rdp.cor2",
        (N, EPS0, LAM_INT),
        by_position(bounds.cor2_ball),
        f"{_PAPER}, Corollary 2, eq. (12)",
        "Theorem 3 without its i >= 3 terms",
        float=_f(bounds.cor2_float),
        float_rtol=1e-12,
    ),
    Quantity(
        "shuffle.rdp.pair",
        (N_PAIR, EPS0, LAM_REAL, ORDER),
        by_position(pair.pair_ball),
        f"{_PAPER}, §8 (the pair of Theorem 3)",
        "exact RDP of shuffled binary RR, D = 0^n vs D' = 0^(n-1)1 (order: max of both, forward, reverse)",
        float=_pair_float,
        float_rtol=1e-8,
    ),
    Quantity(
        "shuffle.rdp.upper",
        (N, EPS0, LAM_REAL, BOUND),
        by_position(conversion.upper_bound_ball),
        f"{_PAPER}, Theorems 1-2 and eq. (8); Steinke 2024 (Sharp RDP from pure DP), Theorem 4; with bound=reduction "
        "also U_red (DERIVED HERE, see dpcert.shuffle.reduction)",
        "certified RDP upper bound: min(Thm 1 via eq. (8), Thm 2, RR_1(lam)); bound=reduction adds U_red (derived "
        "here; n <= 10^4, or integer lam <= 1024 up to n = 10^6, else its eq. (8) chord between integers)",
        float=by_position(conversion.upper_bound_float),
        float_rtol=1e-9,
    ),
    Quantity(
        "shuffle.dp.eps",
        (N, EPS0, T_ROUNDS, DELTA),
        by_position(conversion.dp_eps_ball),
        f"{_PAPER}, Lemmas 1-2 with shuffle.rdp.upper",
        "DP epsilon(delta) of T shuffled rounds, certified at the float-chosen Renyi order",
        float=by_position(conversion.dp_eps_float),
        float_rtol=1e-9,
    ),
    Quantity(
        "shuffle.dp.delta",
        (N, EPS0, T_ROUNDS, EPS),
        by_position(conversion.dp_delta_ball),
        f"{_PAPER}, Lemmas 1-2 with shuffle.rdp.upper",
        "DP delta(eps) of T shuffled rounds, certified at the float-chosen Renyi order",
        float=by_position(conversion.dp_delta_float),
        float_rtol=1e-8,
    ),
    Quantity(
        "shuffle.rdp.reduction",
        (N_RED, EPS0, LAM_REAL),
        by_position(reduction.reduction_ball),
        "DERIVED HERE (dpcert.shuffle.reduction): Girgis et al. CCS 2021 Theorem 4 with the special case "
        "solved exactly (binary RR is the worst special pair, by convex order)",
        "U_red, a tighter upper bound on the shuffle-model RDP, derived here (not in the paper); real lam > 1",
        float=lambda n, eps0, alpha: reduction.reduction_float(n, eps0, alpha),
        float_rtol=1e-9,
    ),
]
