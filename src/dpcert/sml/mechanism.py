"""Exact statistic maximal leakage (SML) of a finite mechanism: Proposition IV.1 by branch and bound.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

A finite mechanism is a channel matrix ``P(θ'|θ)`` with rows θ ∈ Θ, columns θ' ∈ Θ', and a secret value
``𝔤(θ)`` for every row. Proposition IV.1 of Wang–Lin–Fanti [WLF24] gives

    exp Π = max over selections σ (one θ_g ∈ Θ_g per secret value g) of  Σ_θ' max_g P(θ' | θ_g),

and Π = log of it. The maximum is computed exactly: the probabilities are brought to one common denominator D,
so every sum is an exact integer over D, and ``exp Π`` is returned as a :class:`~fractions.Fraction` together with
the selection that attains it. The logarithm is then enclosed in a ball, in nats and in bits (the paper mixes
the two bases; docs/derivations/sml.md#logarithm-base).

The problem is NP-hard (Theorem IV.1). :func:`sml` runs an exact branch and bound:

* rows dominated entrywise by another row of the same secret are dropped (they never raise the sum);
* the incumbent starts from a greedy selection improved by one-exchange local search (any selection is a
  certified lower bound);
* at a partial selection with column maxima ``cur``, the value of any completion is at most
  ``Σ_θ' max(cur(θ'), env_k(θ'))``, where ``env_k`` is the entrywise maximum over all rows of the secrets still free
  (the maximal-leakage / ℒ_MEL bound of Property IV.1 restricted to the free secrets); at most
  ``Σ cur + Σ_{g free} max_{θ∈Θ_g} Σ_θ' (P(θ'|θ) − cur(θ'))⁺`` (max(c, r₁, …, r_j) − c ≤ Σ_i (r_i − c)⁺); and at
  most ``min(s, |Θ'|)`` (the range bound 0 ≤ Π ≤ log min(s, |Θ'|)). A node whose bound does not exceed the
  incumbent is pruned, and the search stops as soon as the incumbent reaches ``min(s, |Θ'|)``.

How large an instance it finishes (benchmarks/bench_sml.py, random dense mechanisms with 4 parameters per secret
and s outputs): s = 10 (4^10 ≈ 10^6 selections) in tens of milliseconds, and, with a 60 s limit per instance,
every size from 11 to 21 except 15 (s = 21: 4^21 ≈ 4.4·10^12 selections, in 4 s); plain enumeration already needs
about a second at s = 8. Difficulty depends on the instance more than on its size.

:func:`sml_enumerate` is the plain enumeration over all ``Π_g |Θ_g|`` selections, kept as the reference the branch
and bound is tested and benchmarked against. Deterministic mechanisms have a polynomial algorithm
(:mod:`dpcert.sml.deterministic`), which :func:`sml` uses automatically.

References:
    S. Wang, Z. Lin, G. Fanti, "Statistic Maximal Leakage", Proposition IV.1, Property IV.1, Theorem IV.1,
    Appendix A-B and A-C [WLF24]; docs/derivations/sml.md#elementary-bounds.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
from flint import arb

from dpcert.arith.ball import Enclosure, ball, refine
from dpcert.arith.exact import parse_rational
from dpcert.core.parallel import RunOptions, Summary, map_chunks
from dpcert.errors import InvalidParameter, WorkerDied
from dpcert.sml.deterministic import matching_sml_exp

__all__ = [
    "sml_deterministic",
    "FiniteMechanism",
    "SMLResult",
    "sml",
    "sml_enumerate",
    "selection_value",
    "mel_exp",
    "ml_exp",
    "leakage_exp_at_prior",
    "sml_inf_exp",
    "log_enclosure",
    "sml_bounds",
]


@dataclass(frozen=True)
class FiniteMechanism:
    """A channel matrix with a secret value per row, all probabilities exact.

    Attributes:
        inputs: labels of the rows θ (distinct).
        secrets: the secret value 𝔤(θ) of each row (labels; equal labels form one Θ_g).
        outputs: labels of the columns θ' (distinct).
        rows: ``rows[i][j] = P(outputs[j] | inputs[i])`` as Fractions; each row is a probability vector.
    """

    inputs: tuple[str, ...]
    secrets: tuple[str, ...]
    outputs: tuple[str, ...]
    rows: tuple[tuple[Fraction, ...], ...]

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Sequence[Any]],
        secrets: Sequence[Any],
        *,
        inputs: Sequence[Any] | None = None,
        outputs: Sequence[Any] | None = None,
    ) -> FiniteMechanism:
        """Build and validate a mechanism from exact entries (``"1/3"``, ``"0.25"``, ints, Fractions).

        Args:
            rows: the matrix, one row per input θ.
            secrets: the secret label of each row.
            inputs: row labels (default ``"0"``, ``"1"``, …).
            outputs: column labels (default ``"0"``, ``"1"``, …).

        Returns:
            The mechanism.

        Raises:
            InvalidParameter: naming the row (``row[3]``) for a negative entry, a wrong length or a row that does
                not sum to 1; naming ``secrets``/``inputs``/``outputs`` for a wrong count or a repeated label.

        References:
            Wang–Lin–Fanti [WLF24], §III (a mechanism is a Markov kernel P_{Θ'|Θ}).
        """
        if len(rows) == 0:
            raise InvalidParameter("rows", rows, "at least one row")
        width = len(rows[0])
        if width == 0:
            raise InvalidParameter("row[0]", rows[0], "at least one output column")
        in_labels = tuple(str(x) for x in (range(len(rows)) if inputs is None else inputs))
        out_labels = tuple(str(x) for x in (range(width) if outputs is None else outputs))
        sec = tuple(str(x) for x in secrets)
        if len(sec) != len(rows):
            raise InvalidParameter("secrets", list(secrets), f"one secret label per row ({len(rows)} rows)")
        if len(in_labels) != len(rows) or len(set(in_labels)) != len(in_labels):
            raise InvalidParameter("inputs", list(in_labels), f"{len(rows)} distinct row labels")
        if len(out_labels) != width or len(set(out_labels)) != width:
            raise InvalidParameter("outputs", list(out_labels), f"{width} distinct column labels")
        parsed: list[tuple[Fraction, ...]] = []
        for i, row in enumerate(rows):
            name = f"row[{i}] ({in_labels[i]})"
            if len(row) != width:
                raise InvalidParameter(name, list(row), f"{width} entries, one per output")
            vals = tuple(parse_rational(x, f"{name}[{j}]").value for j, x in enumerate(row))
            for j, v in enumerate(vals):
                if v < 0:
                    raise InvalidParameter(f"{name}[{j}]", row[j], "a probability >= 0")
            total = sum(vals, Fraction(0))
            if total != 1:
                raise InvalidParameter(
                    name, [str(v) for v in vals], f"entries summing to exactly 1 (they sum to {total})"
                )
            parsed.append(vals)
        return cls(in_labels, sec, out_labels, tuple(parsed))

    @property
    def n_inputs(self) -> int:
        return len(self.inputs)

    @property
    def n_outputs(self) -> int:
        return len(self.outputs)

    @cached_property
    def secret_values(self) -> tuple[str, ...]:
        """The attained secret values 𝐆 = 𝔤(Θ), in order of first appearance (s = len)."""
        return tuple(dict.fromkeys(self.secrets))

    @cached_property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """Row indices of each Θ_g, in the order of :attr:`secret_values`."""
        idx: dict[str, list[int]] = {g: [] for g in self.secret_values}
        for i, g in enumerate(self.secrets):
            idx[g].append(i)
        return tuple(tuple(v) for v in idx.values())

    @cached_property
    def is_deterministic(self) -> bool:
        """Whether every row is a point mass (Proposition IV.2 applies)."""
        return all(sum(1 for v in row if v) == 1 for row in self.rows)

    @cached_property
    def scaled(self) -> tuple[np.ndarray, int]:
        """``(M, D)``: the integer matrix ``M = D·P`` with D the least common denominator (exact).

        int64 when every sum of at most |Θ'| entries fits; Python integers (object array) otherwise.
        """
        den = 1
        for row in self.rows:
            for v in row:
                den = math.lcm(den, v.denominator)
        ints = [[v.numerator * (den // v.denominator) for v in row] for row in self.rows]
        dtype: Any = np.int64 if den * max(self.n_outputs, len(self.secret_values)) < 2**62 else object
        return np.array(ints, dtype=dtype), den


@dataclass(frozen=True)
class SMLResult:
    """The exact SML of a mechanism and a selection attaining it.

    Attributes:
        exp_value: ``exp Π`` exactly (a Fraction in [1, min(s, |Θ'|)]).
        selection: secret label -> the chosen input label θ_g.
        method: ``"matching"``, ``"branch and bound"`` or ``"enumeration"``.
        nodes: search nodes visited (selections evaluated, for enumeration).
    """

    exp_value: Fraction
    selection: Mapping[str, str]
    method: str
    nodes: int = 0

    def nats(self, rel_tol: float = 1e-30) -> Enclosure:
        """Π in nats, enclosed."""
        return log_enclosure(self.exp_value, "nats", rel_tol)

    def bits(self, rel_tol: float = 1e-30) -> Enclosure:
        """Π in bits, enclosed."""
        return log_enclosure(self.exp_value, "bits", rel_tol)


def log_enclosure(x: Fraction | int, unit: str = "nats", rel_tol: float = 1e-30) -> Enclosure:
    """A rigorous enclosure of ``log x`` (``unit`` ``"nats"``: ln; ``"bits"``: log₂) for a rational x ≥ 1.

    ``log 1 = 0`` is returned exactly; log₂ of a power of two exactly.

    Raises:
        InvalidParameter: for x < 1 (never an SML value) or an unknown unit.
    """
    x = Fraction(x)
    if unit not in ("nats", "bits"):
        raise InvalidParameter("unit", unit, "'nats' or 'bits'")
    if x < 1:
        raise InvalidParameter("x", x, "an exp-SML value >= 1")
    if x == 1:
        return Enclosure.exact(Fraction(0))
    if unit == "bits" and x.denominator == 1 and x.numerator & (x.numerator - 1) == 0:
        return Enclosure.exact(Fraction(x.numerator.bit_length() - 1))

    def step(prec: int) -> Enclosure | None:
        v = ball(x).log()
        if unit == "bits":
            v = v / arb(2).log()
        enc = Enclosure.from_ball(v)
        return enc if enc.rel_width() <= rel_tol else None

    enc, _ = refine(step, what=f"log({x})", max_prec=1 << 16)
    return enc


def selection_value(mech: FiniteMechanism, selection: Sequence[int]) -> Fraction:
    """``Σ_θ' max_g P(θ'|σ(g))`` for a selection given as one row index per secret value (exact)."""
    m, den = mech.scaled
    return Fraction(int(m[list(selection)].max(axis=0).sum()), den)


def _labels(mech: FiniteMechanism, sel: Sequence[int]) -> dict[str, str]:
    return {g: mech.inputs[i] for g, i in zip(mech.secret_values, sel, strict=True)}


def sml_enumerate(mech: FiniteMechanism) -> SMLResult:
    """Exact SML by plain enumeration of all ``Π_g |Θ_g|`` selections (Proposition IV.1; exponential).

    References:
        Wang–Lin–Fanti, Proposition IV.1 ("worst case exponential in |Θ|") [WLF24].
    """
    m, den = mech.scaled
    best, best_sel, count = -1, None, 0
    for sel in itertools.product(*mech.groups):
        count += 1
        v = m[list(sel)].max(axis=0).sum()
        if v > best:
            best, best_sel = v, sel
    assert best_sel is not None
    return SMLResult(Fraction(int(best), den), _labels(mech, best_sel), "enumeration", count)


def sml_deterministic(mech: FiniteMechanism) -> SMLResult:
    """Exact SML of a deterministic :class:`FiniteMechanism` by maximum bipartite matching.

    Raises:
        InvalidParameter: if some row is not a point mass.

    References:
        Wang–Lin–Fanti, Proposition IV.2 [WLF24]; docs/derivations/sml.md#deterministic-mechanisms.
    """
    if not mech.is_deterministic:
        raise InvalidParameter("mechanism", "a randomized channel", "a deterministic mechanism (0/1 rows)")
    index = {g: k for k, g in enumerate(mech.secret_values)}
    sec = [index[g] for g in mech.secrets]
    out = [next(j for j, v in enumerate(row) if v) for row in mech.rows]
    size, sel = matching_sml_exp(sec, out, len(mech.secret_values), mech.n_outputs)
    labels = {g: mech.inputs[int(i)] for g, i in zip(mech.secret_values, sel, strict=True)}
    return SMLResult(Fraction(size), labels, "matching")


def _undominated(m: np.ndarray, group: Sequence[int]) -> list[int]:
    """Rows of ``group`` not dominated entrywise by another row of it (one of each set of equal rows kept)."""
    keep: list[int] = []
    rows = m[list(group)]
    for a, i in enumerate(group):
        ge = np.all(rows >= rows[a], axis=1)
        eq = np.all(rows == rows[a], axis=1)
        # dominated: some other row is >= everywhere and differs somewhere, or an equal row comes earlier
        strictly = ge & ~eq
        earlier_equal = eq.copy()
        earlier_equal[a:] = False
        if not strictly.any() and not earlier_equal.any():
            keep.append(i)
    return keep


def sml(mech: FiniteMechanism, *, node_limit: int | None = None, run: RunOptions | None = None) -> SMLResult:
    """Exact SML of a finite mechanism and a maximising selection (Proposition IV.1).

    Deterministic mechanisms go to the matching algorithm (:func:`sml_deterministic`);
    others to an exact branch and bound (module docstring).

    Args:
        mech: the mechanism.
        node_limit: give up after this many branch-and-bound nodes (``None``: no limit).
        run: search the subtrees below a fixed split (:func:`_parallel_search`) on this executor
            (:func:`dpcert.core.parallel.map_chunks`; ``None``: one depth-first search here). The value and the
            selection are those of the one search (the first maximiser in depth-first order); ``nodes`` counts the
            split search's nodes, the same for every executor and worker count.

    Returns:
        :class:`SMLResult` with ``exp_value = exp Π`` exactly.

    Raises:
        InvalidParameter: when ``node_limit`` is reached before the optimum is proved (never a guess).

    References:
        Wang–Lin–Fanti, Proposition IV.1, Property IV.1, Theorem IV.1 [WLF24];
        docs/derivations/sml.md#elementary-bounds.
    """
    if mech.is_deterministic:
        return sml_deterministic(mech)
    m, den = mech.scaled
    s = len(mech.secret_values)
    cap = min(s, mech.n_outputs) * den
    kept = [_undominated(m, g) for g in mech.groups]
    # forced secrets first, then by branching factor: small domains first ("fail first")
    order = sorted(range(s), key=lambda k: (len(kept[k]), k))
    cand = [m[kept[k]] for k in order]
    zero = np.zeros(mech.n_outputs, dtype=m.dtype)
    suffix = [zero] * (s + 1)
    for k in range(s - 1, -1, -1):
        suffix[k] = np.maximum(suffix[k + 1], cand[k].max(axis=0))
    # the rows of the free secrets stacked, with the start of each secret's block (for the gain bound)
    all_rows = np.vstack(cand)
    offsets = np.cumsum([0] + [len(c) for c in cand])

    # incumbent: greedy, then one-exchange local search (swap one secret's row while the sum improves)
    cur, greedy = zero, []
    for k in range(s):
        gains = np.maximum(cur, cand[k]).sum(axis=1)
        a = int(np.argmax(gains))
        greedy.append(a)
        cur = np.maximum(cur, cand[k][a])
    cols = np.arange(mech.n_outputs)
    improved = True
    while improved:
        improved = False
        stale = True
        for k in range(s):
            if stale:  # column maxima of the current choice: the top value, its owner, and the runner-up
                chosen = np.stack([cand[j][greedy[j]] for j in range(s)])
                top = chosen.argmax(axis=0)
                top1 = chosen[top, cols]
                chosen[top, cols] = 0
                second = chosen.max(axis=0)
                stale = False
            others = np.where(top == k, second, top1)
            vals = np.maximum(others, cand[k]).sum(axis=1)
            a = int(np.argmax(vals))
            if vals[a] > vals[greedy[k]]:
                greedy[k], improved, stale = a, True, True
    cur = zero
    for k in range(s):
        cur = np.maximum(cur, cand[k][greedy[k]])
    prob = _Problem(tuple(cand), tuple(suffix), all_rows, offsets, s, cap, node_limit)
    state = {"best": cur.sum(), "sel": list(greedy), "nodes": 0}
    if state["best"] < cap and run is None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, s + 200))
        try:
            _dfs(prob, 0, zero, [0] * s, state)
        finally:
            sys.setrecursionlimit(old)
    elif state["best"] < cap:
        _parallel_search(prob, zero, state, run)
    chosen = [0] * s
    for pos, k in enumerate(order):
        chosen[k] = kept[k][state["sel"][pos]]
    return SMLResult(Fraction(int(state["best"]), den), _labels(mech, chosen), "branch and bound", state["nodes"])


@dataclass(frozen=True)
class _Problem:
    """The branch and bound's data (candidate rows in search order, suffix envelopes, stacked rows), picklable."""

    cand: tuple[np.ndarray, ...]
    suffix: tuple[np.ndarray, ...]
    all_rows: np.ndarray
    offsets: np.ndarray
    s: int
    cap: Any
    node_limit: int | None


def _pruned(p: _Problem, k: int, cur: np.ndarray, best: Any) -> bool:
    """Whether no completion of a partial selection (k secrets chosen, column maxima ``cur``) beats ``best``."""
    if min(np.maximum(cur, p.suffix[k]).sum(), p.cap) <= best:
        return True
    # max(c, r_1, ..., r_j) - c <= sum_i (r_i - c)^+: each free secret adds at most its best row's gain
    gains = np.maximum(p.all_rows[p.offsets[k] :] - cur, 0).sum(axis=1)
    return bool(cur.sum() + np.maximum.reduceat(gains, p.offsets[k:-1] - p.offsets[k]).sum() <= best)


def _count(p: _Problem, state: dict[str, Any]) -> None:
    state["nodes"] += 1
    if p.node_limit is not None and state["nodes"] > p.node_limit:
        raise InvalidParameter("node_limit", p.node_limit, "a larger limit: the optimum is not yet proved")


def _dfs(p: _Problem, k: int, cur: np.ndarray, path: list[int], state: dict[str, Any]) -> bool:
    """Explore completions of ``path[:k]``; True when the search may stop (cap reached)."""
    _count(p, state)
    if k == p.s:
        v = cur.sum()
        if v > state["best"]:
            state["best"], state["sel"] = v, list(path)
        return state["best"] >= p.cap
    if _pruned(p, k, cur, state["best"]):
        return False
    nxt = np.maximum(cur, p.cand[k])
    for a in np.argsort(-nxt.sum(axis=1), kind="stable"):
        path[k] = int(a)
        if _dfs(p, k + 1, nxt[a], path, state):
            return True
    return False


#: the split of the parallel search: the first levels are expanded until at least this many subtrees remain
SPLIT_SUBTREES = 64


def _subtree(task: tuple[_Problem, Any, tuple[int, ...], np.ndarray]) -> Summary:
    """One subtree of the split search (module level: it runs in a worker): the depth-first search below
    ``prefix`` against the common incumbent; its best selection if it beats it (the first in depth-first order)."""
    p, best, prefix, cur = task
    path = list(prefix) + [0] * (p.s - len(prefix))
    state = {"best": best, "sel": None, "nodes": 0}
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, p.s + 200))
    try:
        _dfs(p, len(prefix), cur, path, state)
    finally:
        sys.setrecursionlimit(old)
    out = Summary({"nodes": state["nodes"]})
    if state["sel"] is not None:
        out.consider(int(state["best"]), tuple(state["sel"]))
    return out


def _parallel_search(p: _Problem, zero: np.ndarray, state: dict[str, Any], run: RunOptions) -> None:
    """The branch and bound split into independent subtrees, each searched against the incumbent ``state`` starts
    with (never one found in another subtree), merged in depth-first order. The first maximiser in depth-first
    order is the sequential search's answer too (the subtree holding it is never pruned: its bound is at least the
    maximum, above every earlier incumbent), so the value and selection equal :func:`_dfs`'s; nodes (those of
    the expanded levels and of every subtree) are the same for any executor. Updates ``state``."""
    best0 = state["best"]
    level: list[tuple[tuple[int, ...], np.ndarray]] = [((), zero)]
    k = 0
    while k < p.s - 1 and 0 < len(level) < SPLIT_SUBTREES:  # expand one level, children in the search's order
        nxt_level = []
        for prefix, cur in level:
            _count(p, state)
            if _pruned(p, k, cur, best0):
                continue
            nxt = np.maximum(cur, p.cand[k])
            for a in np.argsort(-nxt.sum(axis=1), kind="stable"):
                nxt_level.append(((*prefix, int(a)), nxt[a]))
        level, k = nxt_level, k + 1
    chunks = [(p, best0, prefix, cur) for prefix, cur in level]
    total = map_chunks(_subtree, chunks, run=run, describe=lambda c: {"subtree": list(c[2])})
    if total.failed:
        raise WorkerDied(None)
    state["nodes"] += total.counts.get("nodes", 0)
    if p.node_limit is not None and state["nodes"] > p.node_limit:
        raise InvalidParameter("node_limit", p.node_limit, "a larger limit: the optimum is not yet proved")
    if total.worst_score is not None and total.worst_score > best0:
        state["best"], state["sel"] = total.worst_score, list(total.worst_case)


def mel_exp(mech: FiniteMechanism) -> Fraction:
    """``exp ℒ_MEL = Σ_θ' max_θ P(θ'|θ)``: worst-case min-entropy leakage (= sup over priors of ML).

    References:
        Wang–Lin–Fanti [WLF24], §II and Property IV.1 (Braun et al.; Issa–Wagner–Kamath Thm 1).
    """
    m, den = mech.scaled
    return Fraction(int(m.max(axis=0).sum()), den)


def ml_exp(mech: FiniteMechanism, prior: Sequence[Any]) -> Fraction:
    """``exp ℒ_ML = Σ_θ' max_{θ: P_Θ(θ)>0} P(θ'|θ)``: maximal leakage at a fixed prior (support only matters).

    References:
        Issa–Wagner–Kamath, Theorem 1, as quoted in Wang–Lin–Fanti [WLF24] §II.
    """
    m, den = mech.scaled
    support = [i for i, p in enumerate(prior) if Fraction(p) > 0]
    return Fraction(int(m[support].max(axis=0).sum()), den)


def leakage_exp_at_prior(mech: FiniteMechanism, prior: Sequence[Any]) -> Fraction:
    """``exp L(P_Θ) = Σ_θ' max_g P(g, θ') / max_g P_G(g)``: the MAP gain at a fixed prior (Eq. 7).

    Args:
        mech: the mechanism.
        prior: P_Θ, one exact probability per row.

    References:
        Wang–Lin–Fanti [WLF24], Eq. (2) and Appendix A-C, Eq. (7).
    """
    pri = [Fraction(p) for p in prior]
    if len(pri) != mech.n_inputs or any(p < 0 for p in pri) or sum(pri) != 1:
        raise InvalidParameter("prior", prior, f"{mech.n_inputs} probabilities >= 0 summing to 1")
    joint = []
    for grp in mech.groups:
        joint.append([sum((pri[i] * mech.rows[i][j] for i in grp), Fraction(0)) for j in range(mech.n_outputs)])
    pg = [sum((pri[i] for i in grp), Fraction(0)) for grp in mech.groups]
    num = sum((max(col) for col in zip(*joint, strict=True)), Fraction(0))
    return num / max(pg)


def sml_inf_exp(mech: FiniteMechanism) -> Fraction | None:
    """``exp Π^inf = 1 / min_σ Σ_θ' min_g P(θ'|σ(g))`` by enumeration, or ``None`` for Π^inf = +∞.

    References:
        Wang–Lin–Fanti [WLF24], Appendix K, proof of Proposition K.7 (the text labels it Π̃; it is Π^inf,
        docs/derivations/sml.md#randomized-response-and-ldp).
    """
    m, den = mech.scaled
    low = min(int(m[list(sel)].min(axis=0).sum()) for sel in itertools.product(*mech.groups))
    return None if low == 0 else Fraction(den, low)


def sml_bounds(mech: FiniteMechanism) -> dict[str, Fraction]:
    """The bounds on ``exp Π`` that need no search (docs/derivations/sml.md#elementary-bounds, Property IV.1 [WLF24]).

    Returns:
        ``lower``: max(1, exp ℒ_MEL / max_g |Θ_g|); ``upper``: min(s, |Θ'|, exp ℒ_MEL); and the pieces.

    References:
        Wang–Lin–Fanti, Property IV.1 and the "trivial upper bound" log s [WLF24];
        docs/derivations/sml.md#elementary-bounds.
    """
    mel = mel_exp(mech)
    s = len(mech.secret_values)
    biggest = max(len(g) for g in mech.groups)
    return {
        "mel": mel,
        "sandwich_lower": mel / biggest,
        "range_upper": Fraction(min(s, mech.n_outputs)),
        "lower": max(Fraction(1), mel / biggest),
        "upper": min(Fraction(min(s, mech.n_outputs)), mel),
    }
