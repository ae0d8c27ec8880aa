"""SML of deterministic mechanisms in polynomial time (Proposition IV.2, Algorithm 1).

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

For a deterministic mechanism θ' = f(θ), each term of Proposition IV.1 is 0 or 1, and ``Σ_θ' max_g P(θ'|θ_g)`` is
the number of distinct outputs hit by one representative per secret. Its maximum over selections is the size of a
maximum matching in the bipartite graph H = (𝐆, Θ') with an edge (g, θ') iff some θ ∈ Θ_g has f(θ) = θ'
(a matching picks distinct outputs for distinct secrets, and the θ realising each matched edge is a selection;
conversely the distinct outputs of any selection contain a matching of that size). So

    exp Π = |maximum matching of H|,

computed with ``scipy.sparse.csgraph.maximum_bipartite_matching`` (Hopcroft–Karp, O(|Θ| √(s + |Θ'|))).

Proposition IV.2 states the same value through the min-cost flow of Algorithm 1 (unit capacities, cost −P(θ'|θ)
on θ → θ'). Its wording "negative log cost" is an erratum: the proof (Appendix B) gives **Π = log(−C)**, with C
the minimum cost (docs/derivations/sml.md#deterministic-mechanisms). :func:`algorithm1_min_cost` solves that network as
a linear program
(scipy HiGHS; the network matrix is totally unimodular, so the optimum is integral for 0/1 costs) and serves as
an independent cross-check of the matching on small instances. On a randomized mechanism Algorithm 1 is only a
lower bound on exp Π (each secret can serve one output), which the tests show.

References:
    Wang–Lin–Fanti, Proposition IV.2, Algorithm 1, Appendix B [WLF24]; docs/derivations/sml.md#deterministic-mechanisms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dpcert.errors import InvalidParameter

__all__ = ["matching_sml_exp", "algorithm1_min_cost"]


def matching_sml_exp(
    secret_of: Sequence[int] | np.ndarray,
    output_of: Sequence[int] | np.ndarray,
    n_secrets: int | None = None,
    n_outputs: int | None = None,
) -> tuple[int, np.ndarray]:
    """``exp Π`` of the deterministic mechanism θ ↦ ``output_of[θ]`` with secret ``secret_of[θ]``.

    Args:
        secret_of: secret index (0 … s−1) of every parameter θ; every index in range must occur.
        output_of: output index (0 … |Θ'|−1) of every θ.
        n_secrets, n_outputs: sizes (default: one more than the largest index).

    Returns:
        ``(exp_pi, selection)``: the maximum matching size (an integer, = exp Π) and, per secret, the index of a
        θ in a maximising selection.

    Raises:
        InvalidParameter: for mismatched lengths, negative or out-of-range indices, or a secret with no θ.

    References:
        Wang–Lin–Fanti, Proposition IV.2 and Algorithm 1 [WLF24] (matching form:
        docs/derivations/sml.md#deterministic-mechanisms).
    """
    sec = np.asarray(secret_of, dtype=np.int64)
    out = np.asarray(output_of, dtype=np.int64)
    if sec.ndim != 1 or sec.shape != out.shape or sec.size == 0:
        raise InvalidParameter(
            "secret_of/output_of", (sec.shape, out.shape), "two non-empty 1-d arrays of equal length"
        )
    s = int(sec.max()) + 1 if n_secrets is None else n_secrets
    m = int(out.max()) + 1 if n_outputs is None else n_outputs
    if sec.min() < 0 or sec.max() >= s:
        raise InvalidParameter("secret_of", "an index outside [0, n_secrets)", f"indices in [0, {s})")
    if out.min() < 0 or out.max() >= m:
        raise InvalidParameter("output_of", "an index outside [0, n_outputs)", f"indices in [0, {m})")
    first_of_secret = np.full(s, -1, dtype=np.int64)
    # first θ of each secret (reverse assignment leaves the smallest index)
    first_of_secret[sec[::-1]] = np.arange(sec.size - 1, -1, -1)
    if (first_of_secret < 0).any():
        missing = int(np.flatnonzero(first_of_secret < 0)[0])
        raise InvalidParameter("secret_of", f"no parameter has secret {missing}", "every secret value attained")
    key = sec * m + out
    uniq, first = np.unique(key, return_index=True)
    from scipy.sparse import coo_matrix  # imported on use (start-up time)
    from scipy.sparse.csgraph import maximum_bipartite_matching

    graph = coo_matrix((np.ones(uniq.size, dtype=np.int8), (uniq // m, uniq % m)), shape=(s, m)).tocsr()
    match = maximum_bipartite_matching(graph, perm_type="column")
    matched = match >= 0
    selection = first_of_secret.copy()
    rows = np.flatnonzero(matched)
    pos = np.searchsorted(uniq, rows * m + match[matched])
    selection[rows] = first[pos]
    return int(matched.sum()), selection


def algorithm1_min_cost(mech: Any) -> float:
    """Minimum cost C of the Algorithm 1 network of a :class:`~dpcert.sml.mechanism.FiniteMechanism` ``mech``,
    solved as a linear program (scipy HiGHS; float64).

    Edges: src → N_g (cap 1), N_g → N_θ for θ ∈ Θ_g (cap 1), N_θ → N_θ' for every pair (cap 1, cost −P(θ'|θ)),
    N_θ' → sink (cap 1); the flow value is free (all costs are ≤ 0, so min-cost flow and min-cost max-flow agree).
    For a deterministic mechanism Proposition IV.2 (corrected) reads exp Π = −C.

    Returns:
        The optimal cost as a float (evidence; the matching is the exact route).

    References:
        Wang–Lin–Fanti [WLF24], Algorithm 1 and Proposition IV.2 ("negative log cost" should read log(−C)) [WLF24];
        docs/derivations/sml.md#deterministic-mechanisms.
    """
    s, n, m = len(mech.secret_values), mech.n_inputs, mech.n_outputs
    # node ids: g: 0..s-1, θ: s..s+n-1, θ': s+n..s+n+m-1 (source and sink are not conserved)
    edges: list[tuple[int | None, int | None, float]] = []
    gidx = {g: k for k, g in enumerate(mech.secret_values)}
    edges += [(None, k, 0.0) for k in range(s)]
    edges += [(gidx[g], s + i, 0.0) for i, g in enumerate(mech.secrets)]
    edges += [(s + i, s + n + j, -float(mech.rows[i][j])) for i in range(n) for j in range(m)]
    edges += [(s + n + j, None, 0.0) for j in range(m)]
    a = np.zeros((s + n + m, len(edges)))
    for e, (u, v, _) in enumerate(edges):
        if u is not None:
            a[u, e] -= 1
        if v is not None:
            a[v, e] += 1
    cost = np.array([c for _, _, c in edges])
    from scipy.optimize import linprog

    res = linprog(cost, A_eq=a, b_eq=np.zeros(s + n + m), bounds=(0, 1), method="highs")
    if res.status != 0:  # pragma: no cover - the zero flow is always feasible
        raise RuntimeError(f"Algorithm 1 LP failed: {res.message}")
    return float(res.fun)
