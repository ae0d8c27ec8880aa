"""Bundled claims of the adaptive optimum: the cost of adaptivity (Theorem 4(i)) from explicit strategy trees.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

Each gap claim carries its adversary IN ITS INPUTS: a full tree of per-round choices t of the pair RR_{ε,t}, round by
round (round i lists its 2^{i−1} choices in the lexicographic order of the past outcomes). The trees are the
restricted adversary of the lattice method (:mod:`dpcert.br.adaptive`) at N = 24 (t a multiple of ε/24), found by
:func:`dpcert.br.adaptive.lattice_run` and frozen here; the check does not run the lattice. It evaluates the tree's δ
in Arb balls (:meth:`dpcert.br.strategy.StrategyTree.value`: the value of an explicit adaptive adversary is a lower
bound on the adaptive optimum) and certifies that it exceeds the certified nonadaptive optimum
``br.nonadaptive.delta`` (Theorem 3) at the same (k, ε, ε_g): a strict gap, CERTIFIED.

Instances (ε = 1; k = 4 at ε_g ∈ {0, 1}, k = 5 at ε_g ∈ {0, 1, 2}, k = 6 at ε_g = 0), all inside the
range [0, (k − 3)ε] of Theorem 4(i). The k = 2 closed form (docs/derivations/br.md#adaptivity-gap-at-two-rounds) is
``br.lemma6_4.k2_gap_closed_form`` in
:mod:`dpcert.br.claims`; the lattice-bracket gap claims ``br.thm4.gap_*`` are there too.

References:
    Dong–Durfee–Rogers ICML 2020, Theorem 4(i), Lemma 6.6, Lemma 3.2 [DDR20];
    docs/derivations/br.md#adaptivity-gap-at-two-rounds.
"""

from __future__ import annotations

from fractions import Fraction

from dpcert.arith.ball import Enclosure, refine
from dpcert.arith.exact import parse_rational
from dpcert.br.nonadaptive import nonadaptive_delta
from dpcert.br.strategy import StrategyTree
from dpcert.core.claim import Claim, Evidence, FunctionClaim, Verdict, check_function
from dpcert.errors import InvalidParameter, PrecisionExhausted

__all__ = ["ADAPTIVE_CLAIMS", "CLAIMS", "TREES", "check_strategy_gap"]

_PAPER = "Dong–Durfee–Rogers ICML 2020"

#: (k, ε_g) at ε = 1 -> the adversary's choices round by round (the lattice's restricted optimum at N = 24)
TREES: dict[tuple[int, str], tuple[str, ...]] = {
    (4, "0"): (
        "1/2",
        "5/12 7/12",
        "3/8 1/2 1/2 5/8",
        "1/8 1/3 7/24 19/24 5/24 17/24 5/8 0",
    ),
    (4, "1"): (
        "7/12",
        "13/24 5/8",
        "11/24 5/8 5/8 11/12",
        "5/24 17/24 5/8 0 7/12 0 11/12 0",
    ),
    (5, "0"): (
        "1/2",
        "11/24 13/24",
        "3/8 1/2 11/24 5/8",
        "5/24 1/2 1/2 1/2 1/2 1/2 1/2 3/4",
        "1/12 1/4 1/12 7/12 1/24 1/2 1/2 0 0 1/2 1/2 0 5/12 11/12 19/24 0",
    ),
    (5, "1"): (
        "13/24",
        "13/24 5/8",
        "1/2 7/12 7/12 17/24",
        "11/24 1/2 1/2 3/4 1/2 3/4 17/24 0",
        "0 11/24 11/24 23/24 5/12 11/12 19/24 0 3/8 7/8 3/4 0 17/24 0 0 0",
    ),
    (5, "2"): (
        "5/8",
        "5/8 17/24",
        "7/12 2/3 2/3 11/12",
        "1/2 17/24 17/24 0 2/3 0 11/12 0",
        "1/3 5/6 17/24 0 17/24 0 0 0 2/3 0 0 0 11/12 0 0 0",
    ),
    (6, "0"): (
        "1/2",
        "11/24 13/24",
        "5/12 1/2 1/2 7/12",
        "3/8 11/24 11/24 13/24 11/24 13/24 13/24 5/8",
        "1/12 5/12 3/8 1/2 3/8 1/2 1/2 2/3 1/3 1/2 1/2 5/8 1/2 5/8 7/12 11/12",
        "0 1/12 1/12 5/12 0 3/8 1/3 5/6 1/8 1/3 7/24 19/24 1/4 3/4 2/3 0 "
        "7/24 1/3 1/4 3/4 5/24 17/24 5/8 0 1/6 2/3 7/12 0 7/12 0 11/12 0",
    ),
}


def _enclose(tree: StrategyTree, g: Fraction, prec: int) -> Enclosure:
    value = tree.value(g, prec=prec)
    return Enclosure.exact(value) if isinstance(value, Fraction) else Enclosure.from_ball(value)


@check_function
def check_strategy_gap(max_prec: int, k: int, eps: str, eps_g: str, t: tuple[str, ...]) -> tuple[Verdict, Evidence]:
    """An explicit adaptive strategy beats the nonadaptive optimum: value(tree) > δ_OPT(𝓜_BR^k, ε_g) strictly.

    Args:
        max_prec: the largest ball precision (bits).
        k: the number of rounds (must match the tree's depth).
        eps, eps_g: ε > 0 and ε_g (decimals as strings mean them exactly).
        t: the tree's choices round by round (:meth:`StrategyTree.from_levels`).

    Returns:
        CERTIFIED with the tree's value as enclosure when its ball lies above the certified nonadaptive optimum;
        UNDECIDED otherwise (a strategy below the nonadaptive optimum proves nothing).

    Raises:
        InvalidParameter: if the tree is malformed or its depth is not k.

    References:
        Dong–Durfee–Rogers ICML 2020, Theorem 4(i), Lemma 3.2, Theorem 3 [DDR20].
    """
    tree = StrategyTree.from_levels(eps, t)
    if tree.k != k:
        raise InvalidParameter("t", len(t), f"{k} rounds of choices (k = {k})")
    g = parse_rational(eps_g, "eps_g").value
    na = nonadaptive_delta(k, eps, g, rel_tol=1e-30, max_prec=max_prec)

    def step(prec: int) -> Enclosure | None:
        enc = _enclose(tree, g, prec)
        # decided once the tree's value is certainly above the optimum's upper end or not above its lower end
        return enc if enc.lo > na.hi or enc.hi <= na.lo else None

    try:
        enc, prec = refine(step, what=f"strategy tree value vs nonadaptive at k = {k}", max_prec=max_prec)
    except PrecisionExhausted:
        enc = _enclose(tree, g, 128)
        return Verdict.UNDECIDED, Evidence(
            enc, precision=max_prec, detail=f"tree value {enc.short(15)} not separated from nonadaptive {na.short(15)}"
        )
    facts = f"tree value {enc.short(15)} vs nonadaptive {na.short(15)}; gap >= {float(enc.lo - na.hi):.6g}"
    worst = {"tree": list(t), "nonadaptive": na.to_json(20), "tree_value": enc.to_json(20)}
    counts = {"leaves": 2**k, "choices": 2**k - 1}
    method = "explicit strategy tree evaluated in arb balls (exact budgets); Theorem 3 certified in arb balls"
    if enc.lo > na.hi:
        return Verdict.CERTIFIED, Evidence(enc, method, prec, facts, worst, counts)
    return Verdict.UNDECIDED, Evidence(enc, method, prec, facts + "; the tree does not beat it", worst, counts)


def _tag(x: str) -> str:
    return x.replace("-", "m").replace(".", "p")


ADAPTIVE_CLAIMS: list[Claim] = [
    FunctionClaim(
        f"br.thm4.strategy_gap_k{k}_eps1_g{_tag(g)}",
        f"{_PAPER} Theorem 4(i) / Lemma 6.6: an explicit {2**k}-leaf strategy tree",
        f"an explicit adaptive adversary against {k} 1-BR mechanisms has delta at eps_g = {g} strictly above the "
        "nonadaptive optimum",
        fn=check_strategy_gap,
        inputs={"k": k, "eps": "1", "eps_g": g, "t": levels},
    )
    for (k, g), levels in TREES.items()
]

# the name the package's lazy tables (dpcert.core.tables.lazy_tables) collect
CLAIMS = ADAPTIVE_CLAIMS
