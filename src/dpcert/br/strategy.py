"""Explicit adaptive adversaries for the composition of ε-BR mechanisms, and the exact value of their privacy curve.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

By Lemma 4.1 and Corollary 4.1 of Dong–Durfee–Rogers [DDR20], an adaptive adversary against k ε-BR mechanisms is,
without
loss, a deterministic rule choosing the pair RR_{ε,t} (t ∈ [0, ε]) of round i from the outcomes of rounds 1..i−1.
For one such adversary the hockey-stick divergence at ε_g obeys the recursion of Lemma 3.2 with the sup removed::

    V(x) = q_t V_0(x − t) + (1 − q_t) V_1(x + ε − t),     leaf value max(1 − e^x, 0),

where V_0, V_1 are the values of the sub-strategies after outcome 0 (probability q_t under b = 0) and 1, and x is
the remaining budget. The value of any explicit adversary is therefore a valid LOWER bound on the adaptive optimum
δ_OPT(𝒜_BR^k, ε_g), and evaluating it in balls proves that bound.

Two representations:

* :class:`StrategyTree`: a full binary tree of choices (heap order: node i has children 2i + 1 after outcome 0 and
  2i + 2 after outcome 1), 2^k − 1 choices, t's exact rationals. For the gap certificates of Theorem 4 (k <= 6).
* :class:`LatticeStrategy`: a Markov adversary on the lattice h = ε/N, the argmax of the restricted recursion of
  :mod:`dpcert.br.adaptive`: with j rounds left at lattice budget m it plays t = s_j(m) h. Its value is
  evaluated in balls over the states it reaches only (at most about k²N/2 of them, against k²N² operations of the
  lattice). States with remaining budget |x| >= jε are exact for every strategy (Lemma 6.7: value 0 above, 1 − e^x
  below, by the identity q_t(1 − e^{x−t}) + (1 − q_t)(1 − e^{x+ε−t}) = 1 − e^x).

References:
    Dong–Durfee–Rogers ICML 2020, Lemma 4.1, Corollary 4.1, Lemma 3.2 / 6.1, Lemma 6.7 [DDR20]; the strategy tree as a
    certificate: docs/derivations/br.md#lattice-bracket.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from dpcert.arith.ball import ball
from dpcert.arith.context import FLOAT, BallContext
from dpcert.arith.exact import parse_rational
from dpcert.br import rr
from dpcert.errors import InvalidParameter

__all__ = ["StrategyTree", "LatticeStrategy"]


def _step_weights(ctx: Any, e: Any, t: Any) -> tuple[Any, Any]:
    """(q_t, 1 − q_t) of RR_{ε,t} in the context's arithmetic (Definition 2.4)."""
    return rr.q_rr(ctx, e, t), rr.one_minus_q(ctx, e, t)


@dataclass(frozen=True)
class StrategyTree:
    """A k-round adaptive adversary as a full binary tree of choices t ∈ [0, ε] (heap order, 2^k − 1 nodes).

    Attributes:
        eps: ε (exact).
        t: the choices; node i is reached by the outcome string of its path, its children are 2i + 1 (outcome 0,
            budget x → x − t) and 2i + 2 (outcome 1, budget x → x + ε − t).
    """

    eps: Fraction
    t: tuple[Fraction, ...]

    @classmethod
    def of(cls, eps: Any, choices: Sequence[Any]) -> StrategyTree:
        """Build a tree from ε and its 2^k − 1 choices (decimal or fraction strings are exact).

        Raises:
            InvalidParameter: if the number of choices is not 2^k − 1 (k >= 1) or a choice lies outside [0, ε].
        """
        e = parse_rational(eps, "eps").value
        if not e > 0:
            raise InvalidParameter("eps", eps, "a real > 0")
        ts = tuple(parse_rational(c, "t").value for c in choices)
        size = len(ts) + 1
        if len(ts) < 1 or size & (size - 1):
            raise InvalidParameter("t", len(ts), "2^k - 1 choices (k >= 1), one per node in heap order")
        for c, v in zip(choices, ts, strict=True):
            if not 0 <= v <= e:
                raise InvalidParameter("t", c, f"a choice in [0, eps] = [0, {e}]")
        return cls(e, ts)

    @classmethod
    def from_levels(cls, eps: Any, levels: Sequence[str]) -> StrategyTree:
        """Build a tree from one string per round: round i (from 1) lists its 2^{i−1} choices separated by spaces,
        in the lexicographic order of the past outcomes ("0…0" first; the first outcome is the most significant).

        Raises:
            InvalidParameter: if round i does not list 2^{i−1} choices, or as :meth:`of`.
        """
        choices: list[str] = []
        for i, text in enumerate(levels):
            row = text.split()
            if len(row) != 2**i:
                raise InvalidParameter("t", text, f"{2**i} choices for round {i + 1}")
            choices += row
        return cls.of(eps, choices)

    def levels(self) -> tuple[str, ...]:
        """The choices round by round, as :meth:`from_levels` reads them (exact fraction strings)."""
        return tuple(" ".join(str(t) for t in self.t[2**i - 1 : 2 ** (i + 1) - 1]) for i in range(self.k))

    @property
    def k(self) -> int:
        return (len(self.t) + 1).bit_length() - 1

    def value(self, eps_g: Any, prec: int = 128) -> arb | Fraction:
        """The strategy's δ at ε_g, in balls (leaf signs decided exactly: every budget is an exact rational).

        Returns:
            A ball, or the exact Fraction 0 when no leaf carries mass.

        References:
            Dong–Durfee–Rogers ICML 2020 [DDR20], Lemma 3.2 (the recursion with the sup removed), Definition 2.4.
        """
        g = parse_rational(eps_g, "eps_g").value
        with BallContext(prec) as ctx:
            eb = ctx.num(self.eps)
            out = self._value(ctx, eb, 0, g)
        # an int 0 (flint multiplies arb by int, not by Fraction): no leaf carries mass
        return Fraction(out) if isinstance(out, int) else out

    def _value(self, ctx: Any, eb: arb, node: int, x: Fraction) -> arb | int:
        if node >= len(self.t):
            return -ctx.num(x).expm1() if x < 0 else 0
        t = self.t[node]
        low = self._value(ctx, eb, 2 * node + 1, x - t)
        high = self._value(ctx, eb, 2 * node + 2, x + self.eps - t)
        # t = 0 or ε: a constant mechanism, one branch has probability exactly 1
        if t == 0:
            return low
        if t == self.eps:
            return high
        q, omq = _step_weights(ctx, eb, ctx.num(t))
        return q * low + omq * high

    def value_float(self, eps_g: float) -> float:
        """The strategy's δ at ε_g in float64 (evidence; the ball :meth:`value` is the proof)."""
        e = float(self.eps)
        ts = [float(t) for t in self.t]

        def v(node: int, x: float) -> float:
            if node >= len(ts):
                return -math.expm1(x) if x < 0 else 0.0
            q, omq = _step_weights(FLOAT, e, ts[node])
            return q * v(2 * node + 1, x - ts[node]) + omq * v(2 * node + 2, x + e - ts[node])

        return v(0, float(eps_g))


@dataclass(frozen=True)
class LatticeStrategy:
    """A Markov adversary on the lattice h = ε/N: with j rounds left at lattice budget m it plays t = s_j(m) h.

    Attributes:
        eps: ε (exact); n: the lattice resolution N.
        offsets: offsets[j − 1] is the lattice index m of choices[j − 1][0].
        choices: choices[j − 1][m − offsets[j − 1]] = s_j(m) ∈ {0..N}, for j = 1..k.
    """

    eps: Fraction
    n: int
    offsets: tuple[int, ...]
    choices: tuple[np.ndarray, ...]

    @property
    def k(self) -> int:
        return len(self.choices)

    def play(self, j: int, m: np.ndarray) -> np.ndarray:
        """s_j(m) for an array of lattice budgets m; 0 (a constant mechanism) outside the stored range of level j."""
        arr = self.choices[j - 1]
        idx = np.asarray(m, dtype=np.int64) - self.offsets[j - 1]
        inside = (idx >= 0) & (idx < len(arr))
        out = np.zeros(idx.shape, dtype=np.int64)
        out[inside] = arr[idx[inside]]
        return out

    def _bounds(self, j: int, m0: int, g: Fraction) -> tuple[int, int]:
        """(first m with budget >= jε, last m with budget <= −jε) for the start m0 at ε_g = g: budget x(m) =
        g + (m − m0) h, so x >= jε iff m >= jN + m0 − Ng/ε."""
        c = self.n * g / self.eps
        return math.ceil(j * self.n + m0 - c), math.floor(-j * self.n + m0 - c)

    def reached(self, m0: int, eps_g: Any = None) -> list[np.ndarray]:
        """The lattice budgets reached with j rounds left, j = 0..k (states in the exact regions end the walk)."""
        g = Fraction(m0) * self.eps / self.n if eps_g is None else parse_rational(eps_g, "eps_g").value
        levels: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * (self.k + 1)
        levels[self.k] = np.array([m0], dtype=np.int64)
        for j in range(self.k, 0, -1):
            ms = levels[j]
            top, bottom = self._bounds(j, m0, g)
            live = ms[(ms < top) & (ms > bottom)]
            s = self.play(j, live)
            levels[j - 1] = np.unique(np.concatenate((live - s, live - s + self.n)))
        return levels

    def value(self, m0: int, eps_g: Any = None, prec: int = 64) -> arb | Fraction:
        """The strategy's δ started at lattice state m0 with budget ε_g (default m0 h), in balls.

        The budget follows the strategy's moves exactly: after the walk reaches m the budget is ε_g + (m − m0) h.
        With ε_g >= m0 h this is a lower bound on δ_OPT(𝒜_BR^k, ε_g) for any ε_g (the strategy is a valid adversary
        at every start). Cost: one ball a·b + c·d per reached state.

        References:
            Dong–Durfee–Rogers ICML 2020, Lemma 3.2 with the sup removed, Lemma 6.7 (exact regions) [DDR20].
        """
        g = Fraction(m0) * self.eps / self.n if eps_g is None else parse_rational(eps_g, "eps_g").value
        levels = self.reached(m0, g)
        with BallContext(prec) as ctx:
            eb, hb, gb = ctx.num(self.eps), ball(self.eps / self.n), ctx.num(g)
            weights: dict[int, tuple[arb, arb]] = {}

            def budget(m: int) -> arb:
                return gb + (m - m0) * hb

            prev: dict[int, arb | int] = {}
            for m in levels[0].tolist():
                x = g + Fraction((m - m0) * self.eps, self.n)
                prev[m] = -budget(m).expm1() if x < 0 else 0
            for j in range(1, self.k + 1):
                top, bottom = self._bounds(j, m0, g)
                cur: dict[int, arb | int] = {}
                ms = levels[j]
                live = (ms < top) & (ms > bottom)
                ss = np.zeros(len(ms), dtype=np.int64)
                ss[live] = self.play(j, ms[live])
                for m, s, is_live in zip(ms.tolist(), ss.tolist(), live.tolist(), strict=True):
                    if not is_live:
                        cur[m] = 0 if m >= top else -budget(m).expm1()
                        continue
                    if s in (0, self.n):
                        # t = 0 or ε: a constant mechanism; the branch taken with probability 1 stays at m
                        cur[m] = prev[m]
                    else:
                        if s not in weights:
                            weights[s] = _step_weights(ctx, eb, ball(self.eps * s / self.n))
                        a, b = weights[s]
                        cur[m] = a * prev[m - s] + b * prev[m - s + self.n]
                prev = cur
        return Fraction(prev[m0]) if isinstance(prev[m0], int) else prev[m0]

    def tree(self, m0: int) -> StrategyTree:
        """The strategy unrolled from lattice state m0 into an explicit tree (2^k − 1 choices; for small k).

        States outside the stored range (the exact regions of Lemma 6.7) play t = 0: every choice gives the same
        value there.
        """
        ts: list[Fraction] = []
        frontier = np.array([m0], dtype=np.int64)
        for j in range(self.k, 0, -1):
            s = self.play(j, frontier)
            ts += [Fraction(int(v) * self.eps, self.n) for v in s]
            frontier = np.stack((frontier - s, frontier - s + self.n), axis=1).reshape(-1)
        return StrategyTree(self.eps, tuple(ts))
