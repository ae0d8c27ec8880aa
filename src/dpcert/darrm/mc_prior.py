"""The paper's Monte-Carlo objective estimators (DaRRM App. C.2, Algorithms 4 and 5), seeded, for reproduction.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

:func:`dpcert.darrm.optimize.optimize` takes a prior either as a rational mean μ (the exact objective of a product
prior: K i.i.d. mechanisms with p = μ, docs/derivations/darrm.md#error-under-a-product-prior) or as one of these
specifications:

``mc:uniform(LO,HI):seed=S:samples=T``
    Algorithm 4 (direct sampling): T draws of p_1..p_K i.i.d. Uniform(LO, HI) (float64, numpy's PCG64 seeded
    with S), α̂ the PoissonBinomial(p̂) pmf of each draw, and the coefficient of γ(l), l > H, the mean of
    (α̂_l − α̂_{K−l})/2 (Algorithm 4's g_t without its sign: the LP maximises Σ c_j g_j).
``mc:grid(LO,HI,TAU):seed=S:samples=T``
    Algorithm 5 (rectangle rule on a grid): the same, with each p_i drawn uniformly from the grid
    W = {LO + i (HI − LO)/TAU : i = 0..TAU−1} (the paper: LO = 0.5, HI = 1, TAU = 50, T = 10000; its weights
    w = θ^K K! and P/N are one positive constant, which never changes the argmin, and are left out so that the
    objective stays an estimate of the expected error).

1/2 <= LO < HI <= 1 (the paper's surrogate region, where every draw's α̂_l − α̂_{K−l} >= 0 for l > H). The
coefficients are computed in float64 in fixed batches and summed exactly, then used as exact rationals: the LP,
its shrink and its dual bound are then certified *for that estimated objective*; the estimate itself is float
evidence of the expected error under the prior (the privacy certificate does not depend on the objective).
Deterministic for a given seed (and numpy build).

References:
    DaRRM (Jiang–Zhang–Joshi [JZJ24]) App. C.2.1 (Algorithm 4), C.2.2 (Algorithm 5, Eqs. 202–203).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpcert.arith.exact import to_fraction
from dpcert.errors import InvalidParameter

__all__ = ["MonteCarloPrior", "parse_prior", "MAX_MC_WORK", "MAX_MC_SAMPLES"]

#: Largest number of draws T.
MAX_MC_SAMPLES = 10**7
#: Largest T·(K + 1)^2 (the cost of T PoissonBinomial pmfs), checked before any draw.
MAX_MC_WORK = 2 * 10**9
#: Draws per batch (fixed: the batch sums, hence the coefficients, do not depend on anything else).
BATCH = 4096

_SPEC = re.compile(
    r"mc:(?P<kind>uniform|grid)\((?P<args>[^()]*)\):seed=(?P<seed>[0-9]+):samples=(?P<samples>[0-9]+)",
)
_ALLOWED = "mc:uniform(LO,HI):seed=S:samples=T or mc:grid(LO,HI,TAU):seed=S:samples=T with 1/2 <= LO < HI <= 1"


@dataclass(frozen=True)
class MonteCarloPrior:
    """A seeded Monte-Carlo estimate of the objective (Algorithm 4: ``points == 0``; Algorithm 5: grid points)."""

    lo: Fraction
    hi: Fraction
    points: int
    seed: int
    samples: int

    def __str__(self) -> str:
        args = f"{self.lo},{self.hi}" + (f",{self.points}" if self.points else "")
        kind = "grid" if self.points else "uniform"
        return f"mc:{kind}({args}):seed={self.seed}:samples={self.samples}"

    @property
    def algorithm(self) -> str:
        return "Algorithm 5 (grid)" if self.points else "Algorithm 4 (direct sampling)"

    def check_size(self, K: int) -> None:
        """Refuse a T·(K + 1)^2 over :data:`MAX_MC_WORK` (before any draw)."""
        if self.samples * (K + 1) ** 2 > MAX_MC_WORK:
            raise InvalidParameter("prior samples", self.samples, f"samples * (K + 1)^2 <= {MAX_MC_WORK} (K = {K})")

    def coefficients(self, K: int) -> tuple[tuple[Fraction, ...], Fraction]:
        """(c_0..c_H, E0) of the estimated objective E(γ) = E0 − Σ_j c_j g_j (as :func:`optimize.objective`)."""
        self.check_size(K)
        H = (K - 1) // 2
        rng = np.random.Generator(np.random.PCG64(self.seed))
        lo, hi = float(self.lo), float(self.hi)
        grid = lo + (hi - lo) * np.arange(self.points) / self.points if self.points else None
        total = [Fraction(0)] * (H + 1)
        left = self.samples
        while left > 0:
            n = min(BATCH, left)
            left -= n
            if grid is None:
                p = rng.uniform(lo, hi, size=(n, K))
            else:
                p = grid[rng.integers(0, self.points, size=(n, K))]
            a = np.zeros((n, K + 1))
            a[:, 0] = 1.0
            for i in range(K):  # PoissonBinomial pmf of every draw, one mechanism at a time
                pi = p[:, i : i + 1]
                a[:, 1 : i + 2] = a[:, 1 : i + 2] * (1 - pi) + a[:, 0 : i + 1] * pi
                a[:, 0:1] *= 1 - pi
            d = (a[:, K - H :][:, ::-1] - a[:, : H + 1]).sum(axis=0) / 2  # Σ_t (α̂_{K−j} − α̂_j)/2, j = 0..H
            total = [t + Fraction(float(v)) for t, v in zip(total, d, strict=True)]
        c = tuple(t / self.samples for t in total)
        return c, sum(c, Fraction(0))


def parse_prior(value: Any) -> Fraction | MonteCarloPrior:
    """A prior mean μ in [0, 1] (a rational, e.g. ``0.75`` or ``3/4``) or a Monte-Carlo specification (module doc).

    Raises:
        InvalidParameter: neither, or a specification outside its domain.
    """
    if isinstance(value, MonteCarloPrior):
        return value
    if isinstance(value, str) and value.strip().startswith("mc:"):
        text = value.strip()
        m = _SPEC.fullmatch(text)
        if m is None:
            raise InvalidParameter("prior", value, _ALLOWED)
        args = [a.strip() for a in m["args"].split(",")]
        want = 3 if m["kind"] == "grid" else 2
        if len(args) != want:
            raise InvalidParameter("prior", value, _ALLOWED)
        lo, hi = (to_fraction(a, "prior") for a in args[:2])
        points = int(args[2]) if want == 3 and args[2].isdigit() else (0 if want == 2 else -1)
        seed, samples = int(m["seed"]), int(m["samples"])
        if not Fraction(1, 2) <= lo < hi <= 1:
            raise InvalidParameter("prior", value, "1/2 <= LO < HI <= 1 (the paper's surrogate region)")
        if want == 3 and not 1 <= points <= 10**4:
            raise InvalidParameter("prior", value, "TAU, the grid points, an integer in [1, 10000]")
        if not 1 <= samples <= MAX_MC_SAMPLES:
            raise InvalidParameter("prior", value, f"samples an integer in [1, {MAX_MC_SAMPLES}]")
        if seed >= 2**63:
            raise InvalidParameter("prior", value, "seed an integer in [0, 2^63)")
        return MonteCarloPrior(lo, hi, points, seed, samples)
    mu = to_fraction(value, "prior")
    if not 0 <= mu <= 1:
        raise InvalidParameter("prior", mu, "the prior mean mu, a rational in [0, 1], or " + _ALLOWED)
    return mu
