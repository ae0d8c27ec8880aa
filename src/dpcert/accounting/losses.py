"""The privacy-loss directions (dominating pairs) of dp-accounting's events, as losses of the PLD engine.

:func:`directions` maps an event (anything with dp-accounting's class name and field names) and a neighbouring
relation to the list of :class:`~dpcert.pld.loss.PrivacyLoss` directions whose k-fold compositions the engine
encloses (δ is the largest direction's), or to ``None`` when no dominating pair is proved here. The proofs, one
per event; conventions (H_α, domination for every α >= 0, joint convexity, disjoint unions) as in
:mod:`dpcert.accounting.subsample`.

**Sensitivities under the two relations.** dp-accounting's events give the noise relative to a bound C on one
record's contribution (‖v_i‖ <= C, or |v_i| <= C in ℓ1), which is the add/remove sensitivity. A replacement is a
removal followed by an addition, so f(D) − f(D′) = (f(D) − f(D ∩ D′)) + (f(D ∩ D′) − f(D′)) has norm <= 2C, and
2C is attained (v = C·e against v′ = −C·e). So under ``replace_one`` every additive mechanism below runs at twice
its add/remove sensitivity; using C would under-state the loss (dp-accounting's RDP accountant does so for the
Gaussian, Laplace and sampling without replacement).

**Additive mechanisms.** For a query f with ‖f(D) − f(D′)‖ <= s and noise Z whose law is invariant under the
relevant symmetries, the pair (Z + s·e, Z) is tight for both directions of both relations:

* *Gaussian* (``GaussianDpEvent(noise_multiplier=σ)``): (N(s, σ²), N(0, σ²)) with s = 1 (add/remove) or 2
  (replace-one); the ℓ2 case reduces to one coordinate by rotating f(D) − f(D′) onto e and marginalising the
  orthogonal coordinates, which have the same law under both. It is
  :class:`~dpcert.gaussian.sgm_loss.SubsampledGaussianLoss` at q = 1 (N(2, σ²) against N(0, σ²) is N(1, (σ/2)²)
  against N(0, (σ/2)²) rescaled).
  The reflection x ↦ s − x swaps the two laws: one direction serves both.
* *Laplace* (``LaplaceDpEvent(noise_multiplier=b)``): (Lap(0, b), Lap(s, b)),
  :class:`~dpcert.laplace.loss.LaplaceLoss`, s = 1 or 2. (ℓ1 vectors: the loss Σ_j (|x_j − d_j| − |x_j|)/b is a
  sum of independent one-coordinate losses, and ‖d‖₁ <= s; that the single coordinate is the worst is the Laplace
  mechanism's standard reduction, not re-proved here.)
* *Discrete Laplace* (``DiscreteLaplaceDpEvent(noise_parameter=a, sensitivity=Δ)``, pmf tanh(a/2)·e^{−a|x|} on
  ℤ): P = DLap(a) at 0, Q = DLap(a) at s (s = Δ or 2Δ, an integer). L(x) = a(|x − s| − |x|) = a·clip(s − 2x, −s,
  s) is non-increasing in x, so L >= t iff x <= m_t with m_t = ⌊(s − t/a)/2⌋ for −as < t <= as (all x for t <=
  −as, none for t > as), and L > t iff x <= ⌈(s − t/a)/2⌉ − 1 (for −as <= t < as). With F(m) = P[Z <= m] =
  e^{am}/(1 + e^{−a}) for m <= 0 and 1 − e^{−a(m+1)}/(1 + e^{−a}) for m >= 0 (geometric sums): P(L >= t) =
  F(m_t), Q(L >= t) = F(m_t − s). All atoms of L are multiples of a (the lattice), every case is decided exactly.
  The reflection x ↦ s − x swaps P and Q.
* *Discrete Gaussian* (``DiscreteGaussianDpEvent(sigma=σ, sensitivity=Δ)``, pmf ∝ w(y) = e^{−y²/(2σ²)} on ℤ,
  Canonne–Kamath–Steinke): P = N_ℤ(0, σ²), Q = N_ℤ(s, σ²), L(y) = (s² − 2ys)/(2σ²), decreasing; L >= t iff y <=
  ⌊s/2 − σ²t/s⌋ (strict: ⌈·⌉ − 1). The normaliser W = 1 + 2·T(1), T(j) = Σ_{y>=j} w(y), is enclosed rigorously:
  w(y) by the recurrence w(y + 1) = w(y)·e^{−(2y+1)/(2σ²)} in balls up to y = Y with e^{−Y²/(2σ²)} < 2^{−prec−64},
  and the rest by a geometric series, Σ_{y>Y} w(y) <= w(Y + 1)/(1 − e^{−(2Y+3)/(2σ²)}) (the ratio of consecutive
  terms only falls), held as the ball [0, bound]. Then F(m) = T(−m)/W for m < 0 (symmetry) and 1 − T(m + 1)/W
  for m >= 0. Atoms lie on multiples of s/(2σ²) (rational for rational σ²). The reflection y ↦ s − y swaps P, Q.

**Randomized response** (``RandomizedResponseDpEvent(noise_parameter=p, num_buckets=k)``: the input bucket with
probability 1 − p, else a uniform bucket). It randomises one record's value, so its relation is replace-one:
inputs x ≠ x′ give, on the outputs {x, x′, other}, P = (1 − p + p/k, p/k, (k − 2)p/k) and Q = (p/k, 1 − p + p/k,
(k − 2)p/k), the exact output laws (every pair x ≠ x′ alike by relabelling buckets), a tight finite pair; the
swap of x and x′ is a relabelling, so one direction serves both. p = 0 is non-private (infinite mass 1); k = 1 or
p = 1 reveals nothing. **Add/remove is undefined for it** (a response's presence is itself visible, and the event
does not say what a missing record outputs; dp-accounting refuses it too): no pair, and :func:`why_none` says so.

**Mixture of Gaussians** (``MixtureOfGaussiansDpEvent(standard_deviation=σ, sensitivities=c, sampling_probs=p)``,
defined by dp-accounting as the add/remove pair itself: N(0, σ²) on one side, Σ p_i N(c_i, σ²) on the other).
Remove: (Σ p_i N(c_i, σ²), N(0, σ²)); add: the swap. With every c_i >= 0, Y(x) = Σ p_i e^{(2c_i x − c_i²)/(2σ²)}
is increasing from p₀ = Σ_{c_i=0} p_i, so L >= t iff x >= x_t (remove; add: x <= x_{−t}), x_t the root of Y = e^t,
which is certified: a Newton iterate x̃ at the working precision, then a ball [x̃ − h, x̃ + h] with Y(x̃ − h) < e^t <
Y(x̃ + h) proved in balls; the Φ's are evaluated on that ball. Negative sensitivities are refused (Y would not be
monotone). Replace-one: the event fixes only the add/remove pair; no replace pair is proved here (``None``).

**Subsampling** (proofs in :mod:`dpcert.accounting.subsample`):

* ``PoissonSampledDpEvent(sampling_probability=q, event)``, add/remove, any inner event with directions: remove
  ((1 − q)Q + qP, Q) from the inner remove pair, add (P, (1 − q)P + qQ) from the inner add pair (tight when the
  inner pairs are; the Gaussian inner is :class:`~dpcert.gaussian.sgm_loss.SubsampledGaussianLoss` itself).
* ``PoissonSampledDpEvent``, replace-one: conditional on the others' sample, D and D′ give (1 − q)A + qB and (1 −
  q)A + qB′ with (B, B′) a replace pair of M; joint convexity over the coupling (record out / in) bounds H_α by (1
  − q)H_α(A‖A) + q·H_α(P‖Q), the disjoint union (1 − q)(⊥, ⊥) ⊕ q(P, Q) with (P, Q) the inner replace pair. Proved
  for every inner event but **not tight**: it amplifies δ by q, not ε. A Gaussian inner event (σ > 0) gets the
  tight mirror pair ((1 − q)N(0, σ²) + qN(C, σ²), (1 − q)N(0, σ²) + qN(−C, σ²)) instead,
  :class:`~dpcert.gaussian.sampling.MirrorLoss`: conditional on the others' sample S the outputs are (1 −
  q)N(f(S)) + qN(f(S) + u) against the same with u′, ‖u‖, ‖u′‖ <= C (the add/remove sensitivity), which
  :mod:`dpcert.gaussian.sampling` proves dominated by that pair (a contraction to unit vectors, then a reflection),
  and the record C·e against −C·e with every other contribution 0 attains it.
* ``SampledWithoutReplacementDpEvent(source_dataset_size=n, sample_size=m, event)``: **replace-one only** (the
  event fixes n and m, which an added or removed record would change: no add/remove pair). The index set is
  drawn alike for D and D′; the differing index is in it with probability γ = m/n, and the same coupling gives the
  disjoint union (1 − γ)(⊥, ⊥) ⊕ γ(P, Q), proved, not tight.
* ``SampledWithReplacementDpEvent(source_dataset_size=n, sample_size=m, event)``: **replace-one only** (as
  above). The m indices are drawn alike for D and D′; the differing index appears K ~ Bin(m, 1/n) times, and
  given K = k an additive inner mechanism moves by k times its replace sensitivity. Joint convexity over the
  index draws gives ⊕_k P[K = k](P_k, Q_k), (P_k, Q_k) the inner pair at sensitivity 2kC; the components past
  k_max (the first k with P[K > k] < 2^−100, or m) are folded into a mutually singular branch of mass P[K > k_max]
  (exact), an infinite loss. Additive inner events only (Gaussian, Laplace, discrete Laplace, discrete Gaussian);
  others ``None``.
* ``TruncatedSubsampledGaussianDpEvent``: ``None``. dp-accounting mixes a Poisson pair with a replace-one pair
  at a derived rate and calls the result a slightly loose upper bound; the mixture-of-pairs argument for a batch
  truncated to B records (which couples the differing record's inclusion with the other records' count) is not
  proved here.

**Which pairs are attained (tight).** A dominating pair's ε(δ) or δ(ε) is at least the mechanism's, so the
upper end of an enclosure built from it always bounds the mechanism from above. Its lower end bounds the mechanism
from below only when the pair is *tight*: some pair of neighbouring datasets has exactly these output laws, in
each direction. :func:`dominating_pairs` says which, decided in the same branch that builds the pair:

* tight: the additive events (a worst pair of neighbours has the shifted noise laws, above; noise 0 is the
  non-private pair, attained too), randomized response (the exact output laws), the mixture of Gaussians (the
  event is its pair), a step that reveals nothing (``NoOpDpEvent``, a sensitivity 0, a rate 0, a sample of size
  0: both laws are one law), and Poisson sampling under add/remove of a tight inner pair (the first and second
  forms are the output laws when every other record is left out of the sample, so the inner pair's neighbours
  with nobody else attain them), the mirror pair of a Poisson-sampled Gaussian under replace-one (attained, above); a
  rate 1 or a sample of every record is the inner event, tight as it is;
* not tight: Poisson sampling under replace-one of a non-Gaussian inner event, and sampling without replacement
  (the labelled disjoint union over-counts: a proved pair that amplifies δ by the rate but not ε, far above the
  truth), sampling with replacement (the copy count is labelled likewise), and ``NonPrivateDpEvent`` (it promises
  nothing, so the mechanism's δ may be anything up to the pair's 1).

Composition keeps tightness: one fixed ordered pair of datasets realises a direction at every step, so the
composed direction is attained too, and the accountant's answer is tight when every leaf's pair is
(:meth:`dpcert.accounting.accountant.Accountant.lower_end_bounds_mechanism`). An event without a pair here is
answered by RDP or refused, and is never tight. Erring here is only safe in one direction: a pair called not tight
that is attained hides nothing false, while a pair called tight that is not would let a peer's correct answer be
called unsafe.

Every parameter is an exact rational (a float means its binary value); a parameter outside its domain raises
:class:`~dpcert.errors.InvalidParameter` naming it. Where no pair is given, :func:`why_none` says why in one line
(an unsound relation, or no proof here).

References:
    dp-accounting 0.6, ``dp_event.py`` (events and their fields) and ``pld/privacy_loss_mechanism.py`` (its
    pairs); the discrete Gaussian: C. Canonne, G. Kamath, T. Steinke, NeurIPS 2020; the mixture of Gaussians:
    C. Choquette-Choo, A. Ganesh, T. Steinke, A. Thakurta, "Privacy amplification for matrix mechanisms", ICLR
    2024; dominating pairs: Zhu–Dong–Wang, AISTATS 2022.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from fractions import Fraction
from typing import Any, NamedTuple

from flint import arb, ctx

from dpcert.accounting.subsample import DisjointMixture, NoLoss, PoissonLoss, decide
from dpcert.arith.ball import ball, fraction_of
from dpcert.core.vocabulary import NEIGHBORING
from dpcert.errors import InvalidParameter
from dpcert.gaussian.sampling import MirrorLoss
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld.loss import PrivacyLoss, has_survivals_at

__all__ = [
    "NEIGHBORING",
    "directions",
    "dominating_pairs",
    "DominatingPairs",
    "why_none",
    "FiniteLoss",
    "DiscreteLaplaceLoss",
    "DiscreteGaussianLoss",
    "MixtureLoss",
    "randomized_response",
]


REMOVE, ADD, REPLACE = "remove", "add", "replace"


class _ExactThresholds(PrivacyLoss):
    """A loss whose survivals are computed at exact rational thresholds (``_at``); a ball threshold [a, b] gets
    the union of the survivals ``>= a`` and ``> b``, which holds every value in between."""

    @abstractmethod
    def _at(self, t: Fraction, strict: bool) -> tuple[arb, arb]:
        """Balls of Q(L >= t) and P_ac(L >= t) (``strict``: L > t) at an exact threshold t."""

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        return self.survivals_at([Fraction(i, n) for i in range(i_lo, i_hi + 1)])

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        sq, sp = [], []
        for t in ts:
            if isinstance(t, arb):
                q0, p0 = self._at(fraction_of(t.lower()), strict=False)
                q1, p1 = self._at(fraction_of(t.upper()), strict=True)
                sq.append(q0.union(q1))
                sp.append(p0.union(p1))
            else:
                qv, pv = self._at(Fraction(t), strict=False)
                sq.append(qv)
                sp.append(pv)
        return sq, sp


class FiniteLoss(_ExactThresholds):
    """A pair of laws on finitely many outcomes, given as exact masses (Q(ω), P(ω)).

    >>> loss = FiniteLoss([(Fraction(1, 4), Fraction(3, 4)), (Fraction(3, 4), Fraction(1, 4))], "rr")
    >>> [float(x.mid()) for x in loss.survivals_at([Fraction(0)])[1]]  # P(L >= 0): the outcome with P > Q
    [0.75]
    """

    def __init__(self, atoms: list[tuple[Fraction, Fraction]], name: str) -> None:
        atoms = [(Fraction(qm), Fraction(pm)) for qm, pm in atoms]
        if any(qm < 0 or pm < 0 for qm, pm in atoms) or sum(a[0] for a in atoms) != 1 or sum(a[1] for a in atoms) != 1:
            raise ValueError("both laws must be probability vectors")
        self.atoms = [(qm, pm) for qm, pm in atoms if qm > 0 and pm > 0]  # finite losses log(pm/qm)
        self.singular = sum((pm for qm, pm in atoms if qm == 0), Fraction(0))
        self.name = name
        self._lf = [math.log(pm) - math.log(qm) for qm, pm in self.atoms]

    def infinite_mass(self) -> Fraction:
        return self.singular

    def _above(self, qm: Fraction, pm: Fraction, t: Fraction, strict: bool) -> bool:
        """Whether the atom's loss log(pm/qm) is >= t (``strict``: > t), decided exactly."""
        if t == 0:  # exact: log(pm/qm) against 0
            return pm > qm or (pm == qm and not strict)
        if pm == qm:  # loss 0 against t != 0
            return t < 0
        # log(pm/qm) = t is impossible for rational t != 0 (e^t is irrational): a ball decides

        def cmp() -> bool | None:
            d = (ball(pm) / ball(qm)).log() - ball(t)
            return True if d > 0 else False if d < 0 else None

        return decide(cmp, "an atom of the loss against a threshold")

    def _at(self, t: Fraction, strict: bool) -> tuple[arb, arb]:
        sq, sp = Fraction(0), Fraction(0)
        for qm, pm in self.atoms:
            if self._above(qm, pm, t, strict):
                sq += qm
                sp += pm
        return ball(sq), ball(sp)

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        """The grid survivals from each atom's place on the grid, found once: the atom at loss ℓ counts at the
        grid point i/n iff i <= m = ⌊nℓ⌋ (ℓ >= i/n), so both survival functions are step functions of i with at
        most one step per atom, each value an exact sum of masses made a ball once (no work per grid point)."""
        tops = [(self._last_index(qm, pm, n), qm, pm) for qm, pm in self.atoms]
        tops.sort(key=lambda x: -x[0])
        sq: list[arb] = []
        sp: list[arb] = []
        acc_q = acc_p = Fraction(0)
        j = 0
        i = i_hi
        while i >= i_lo:
            while j < len(tops) and tops[j][0] >= i:
                acc_q += tops[j][1]
                acc_p += tops[j][2]
                j += 1
            nxt = max(i_lo - 1, tops[j][0] if j < len(tops) else i_lo - 1)  # the next step below i, if any
            bq, bp = ball(acc_q), ball(acc_p)
            sq.extend([bq] * (i - nxt))
            sp.extend([bp] * (i - nxt))
            i = nxt
        sq.reverse()
        sp.reverse()
        return sq, sp

    def _last_index(self, qm: Fraction, pm: Fraction, n: int) -> int:
        """m = ⌊n·log(pm/qm)⌋: the largest grid index i with log(pm/qm) >= i/n (exact decisions from a float
        guess)."""
        m = math.floor(n * (math.log(pm) - math.log(qm)))
        while not self._above(qm, pm, Fraction(m, n), strict=False):
            m -= 1
        while self._above(qm, pm, Fraction(m + 1, n), strict=False):
            m += 1
        return m

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        if not self._lf:
            return -1, 1
        return math.floor(min(self._lf) * n) - 1, math.ceil(max(self._lf) * n) + 1

    def loss_variance(self) -> float:
        return max(sum(float(pm) ** 2 / float(qm) for qm, pm in self.atoms) - 1, 1e-300)


def randomized_response(p: Fraction, k: int) -> FiniteLoss:
    """The replace-one pair of randomized response with noise parameter p over k buckets (module docstring)."""
    if k == 1:
        return FiniteLoss([(Fraction(1), Fraction(1))], REPLACE)
    keep, other = 1 - p + p / k, p / k
    return FiniteLoss([(other, keep), (keep, other), ((k - 2) * other, (k - 2) * other)], REPLACE)


class DiscreteLaplaceLoss(_ExactThresholds):
    """DLap(a) at 0 against DLap(a) at the integer s > 0 (module docstring)."""

    def __init__(self, a: Fraction, s: int, name: str = "discrete_laplace") -> None:
        self.a, self.s, self.name = Fraction(a), int(s), name
        self.lattice = self.a

    def _cdf(self, m: int) -> arb:
        """P[Z <= m] for Z ~ DLap(a)."""
        ea = (-ball(self.a)).exp()
        if m <= 0:
            return (ball(self.a) * m).exp() / (1 + ea)
        return 1 - (-ball(self.a) * (m + 1)).exp() / (1 + ea)

    def _at(self, t: Fraction, strict: bool) -> tuple[arb, arb]:
        top = self.a * self.s
        if t > top or (strict and t == top):
            return arb(0), arb(0)
        if t < -top or (not strict and t == -top):
            return arb(1), arb(1)
        u = (self.s - t / self.a) / 2
        m = math.ceil(u) - 1 if strict else math.floor(u)
        return self._cdf(m - self.s), self._cdf(m)

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        top = self.a * self.s
        return math.floor(-top * n) - 1, math.ceil(top * n) + 1

    def loss_variance(self) -> float:
        return max(math.expm1(min(float(self.a * self.s), 700.0)), 1e-300)


class DiscreteGaussianLoss(_ExactThresholds):
    """N_ℤ(0, σ²) against N_ℤ(s, σ²), s > 0 an integer (module docstring)."""

    def __init__(self, sigma: Fraction, s: int, name: str = "discrete_gaussian") -> None:
        self.sigma, self.s, self.name = Fraction(sigma), int(s), name
        self.var = self.sigma**2
        self.lattice = Fraction(self.s) / (2 * self.var)
        self._cache: dict[int, tuple[list[arb], arb]] = {}

    def _tails(self) -> tuple[list[arb], arb]:
        """(T, W) at the working precision: T[j] = Σ_{y>=j} w(y) for j = 0 … Y + 1 (T[Y + 1] the ball [0, bound])
        and W the normaliser."""
        prec = ctx.prec
        if prec not in self._cache:
            sf = float(self.sigma)
            top = max(1, math.ceil(sf * math.sqrt(2 * math.log(2) * (prec + 64))) + 1)
            v = ball(self.var)
            g = (-1 / (2 * v)).exp()  # e^{−(2y+1)/(2σ²)} at y = 0
            b = (-1 / v).exp()
            w = [arb(1)]
            for _ in range(top):
                w.append(w[-1] * g)
                g *= b
            # here w[-1] = w(top) and g = e^{−(2·top+1)/(2σ²)}: w(top + 1) = w[-1]·g; the next ratios are <= g·b
            bound = w[-1] * g / (1 - g * b)
            rest = arb(0).union(bound)
            tails = [arb(0)] * (top + 2)
            tails[top + 1] = rest
            for j in range(top, -1, -1):
                tails[j] = tails[j + 1] + w[j]
            total = 2 * tails[1] + 1
            self._cache = {prec: (tails, total)}
        return self._cache[prec]

    def _cdf(self, m: int) -> arb:
        tails, total = self._tails()

        def tail(j: int) -> arb:  # Σ_{y>=j} w(y), j >= 1
            return tails[j] if j < len(tails) else arb(0).union(tails[-1])

        if m < 0:
            return tail(-m) / total
        return 1 - tail(m + 1) / total

    def _at(self, t: Fraction, strict: bool) -> tuple[arb, arb]:
        u = Fraction(self.s, 2) - self.var * t / self.s
        m = math.ceil(u) - 1 if strict else math.floor(u)
        return self._cdf(m - self.s), self._cdf(m)

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        z = math.sqrt(2 * math.log(1 / max(tail, 1e-300)))
        y = math.ceil(float(self.sigma) * z) + 1 + self.s
        v, s = float(self.var), self.s
        return math.floor(n * (s * s - 2 * (y + s) * s) / (2 * v)) - 1, math.ceil(n * (s * s + 2 * y * s) / (2 * v)) + 1

    def loss_variance(self) -> float:
        return max(math.expm1(min(self.s**2 / float(self.var), 700.0)), 1e-300)


class MixtureLoss(PrivacyLoss):
    """One direction of a mixture of Gaussians: remove (Σ p_i N(c_i, σ²), N(0, σ²)), add the swap (c_i >= 0)."""

    def __init__(self, direction: str, sigma: Fraction, cs: list[Fraction], ps: list[Fraction]) -> None:
        if direction not in (REMOVE, ADD):
            raise ValueError(f"direction must be remove or add, not {direction!r}")
        self.name, self.sigma = direction, Fraction(sigma)
        self.parts = [(Fraction(c), Fraction(p)) for c, p in zip(cs, ps, strict=True) if p != 0]
        self.p0 = sum((p for c, p in self.parts if c == 0), Fraction(0))
        self._f = [(float(c), math.log(float(p))) for c, p in self.parts]
        self._x_prev: float | None = None
        self._ball_prec = 0
        self._ball_cache: tuple[arb, list[tuple[arb, arb]]] = (arb(0), [])

    # -- floats (tightness only) --
    def _log_y(self, x: float) -> float:
        v = float(self.sigma) ** 2
        terms = [lp + (2 * c * x - c * c) / (2 * v) for c, lp in self._f]
        m = max(terms)
        return m + math.log(sum(math.exp(t - m) for t in terms))

    def _x_float(self, lt: float) -> float:
        """The x with log Y(x) = lt (lt above log p₀): Newton on the convex increasing log Y from the last root
        (thresholds come in increasing order), bisection where Newton leaves its bracket."""
        v = float(self.sigma) ** 2
        x = 0.0 if self._x_prev is None else self._x_prev
        lo, hi = -math.inf, math.inf
        for _ in range(100):
            terms = [lp + (2 * c * x - c * c) / (2 * v) for c, lp in self._f]
            m = max(terms)
            ws = [math.exp(t - m) for t in terms]
            tot = sum(ws)
            f = m + math.log(tot) - lt
            if f < 0:
                lo = x
            else:
                hi = x
            slope = sum(w * c for w, (c, _) in zip(ws, self._f, strict=True)) / (tot * v)
            nxt = x - f / slope if slope > 0 else math.nan
            if not lo < nxt < hi:  # outside the bracket (or no slope): bisect, or step out of an open side
                nxt = (lo + hi) / 2 if math.isfinite(lo) and math.isfinite(hi) else (x - 1 if f > 0 else x + 1) * 2
            if abs(nxt - x) <= 1e-12 * max(1.0, abs(x)):  # the ball Newton refines from here
                x = nxt
                break
            x = nxt
        self._x_prev = x
        return x

    def _balls(self) -> tuple[arb, list[tuple[arb, arb]]]:
        """σ² and the (c_i, p_i) as balls at the working precision (cached per precision)."""
        prec = ctx.prec
        if self._ball_prec != prec:
            self._ball_cache = (ball(self.sigma**2), [(ball(c), ball(p)) for c, p in self.parts])
            self._ball_prec = prec
        return self._ball_cache

    # -- balls --
    def _y(self, x: arb) -> tuple[arb, arb]:
        """(Y(x), Y′(x)) in balls."""
        v, parts = self._balls()
        y, dy = arb(0), arb(0)
        for bc, bp in parts:
            term = bp * ((2 * bc * x - bc * bc) / (2 * v)).exp()
            y += term
            dy += term * bc / v
        return y, dy

    def _root(self, et: arb, lt: float) -> arb:
        """A ball containing the x with Y(x) = e^t for every e^t in the ball ``et`` (Y increasing; ``lt`` a float
        of t, to start from)."""
        x = arb(self._x_float(lt))
        target = arb(et.mid())
        for _ in range(2 + ctx.prec.bit_length()):  # Newton on midpoints: digits double per step
            y, dy = self._y(x)
            step = ((y - target) / dy).mid()
            x = arb((x - step).mid())
            if abs(float(step)) <= 2.0 ** (-ctx.prec + 4) * max(1.0, abs(float(x.mid()))):
                break
        h = arb(2) ** (-ctx.prec + 8) * max(1, abs(float(x.mid())))
        for _ in range(40):
            lo, hi = arb((x - h).lower()), arb((x + h).upper())
            if self._y(lo)[0] < et and self._y(hi)[0] > et:
                return lo.union(hi)
            h *= 2**8
        raise ArithmeticError("the mixture's loss threshold could not be enclosed at the working precision")

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        return self.survivals_at([Fraction(i, n) for i in range(i_lo, i_hi + 1)])

    def survivals_at(self, ts: list[Fraction | arb]) -> tuple[list[arb], list[arb]]:
        sq, sp = [], []
        for t in ts:
            a, b = self._one(t)
            sq.append(a)
            sp.append(b)
        return sq, sp

    def _one(self, t: Fraction | arb) -> tuple[arb, arb]:
        """(Q(L >= t), P(L >= t)) for one threshold."""
        bt = t if isinstance(t, arb) else ball(t)
        sign = 1 if self.name == REMOVE else -1
        if isinstance(t, arb):
            below = _cmp_le(bt, self.name, self.p0)
        else:
            below = decide(lambda t_=t: _cmp_le(ball(t_), self.name, self.p0), "e^t against p0")
        if below is None:  # a ball threshold across the bottom of Y: between the full value and the far end's
            far = self._one(arb(t.upper()) if sign > 0 else arb(t.lower()))
            full = arb(1) if self.name == REMOVE else arb(0)
            return full.union(far[0]), full.union(far[1])
        if below:
            full = arb(1) if self.name == REMOVE else arb(0)
            return full, full
        x = self._root((sign * bt).exp(), sign * float(bt.mid()))
        sig = ball(self.sigma) * arb(2).sqrt()
        parts = self._balls()[1]
        if self.name == REMOVE:  # L >= t iff x >= x_t: Φ̄
            q = (x / sig).erfc() / 2
            p = sum((bp * ((x - bc) / sig).erfc() / 2 for bc, bp in parts), arb(0))
            return q, p
        # add: L >= t iff x <= x_{−t}: Φ
        p = (-x / sig).erfc() / 2
        q = sum((bp * (-(x - bc) / sig).erfc() / 2 for bc, bp in parts), arb(0))
        return q, p

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        s = float(self.sigma)
        z = math.sqrt(2 * math.log(1 / max(tail, 1e-300)))
        cmax = max(c for c, _ in self._f)
        if self.name == REMOVE:
            lo, hi = self._log_y(-s * z), self._log_y(cmax + s * z)
        else:
            lo, hi = -self._log_y(s * z + cmax), -self._log_y(-s * z)
        return math.floor(n * lo) - 1, math.ceil(n * hi) + 1

    def loss_variance(self) -> float:
        v = float(self.sigma) ** 2
        tot = sum(
            float(p1) * float(p2) * math.exp(min(float(c1) * float(c2) / v, 700.0))
            for c1, p1 in self.parts
            for c2, p2 in self.parts
        )
        return max(tot - 1, 1e-300)


def _cmp_le(bt: arb, direction: str, p0: Fraction) -> bool | None:
    """Whether e^{±t} <= p₀ (decided in balls, None if not yet)."""
    if p0 == 0:
        return False
    et = (bt if direction == REMOVE else -bt).exp()
    bp = ball(p0)
    return True if et <= bp else False if et > bp else None


# ---------------------------------------------------------------------------------------------------- dispatch


def _exact(event: Any, field: str) -> Fraction:
    return _number(getattr(event, field), field, type(event).__name__)


def _number(value: Any, field: str, owner: str) -> Fraction:
    if hasattr(value, "value") and isinstance(value.value, Fraction):  # dpcert's Exact
        value = value.value
    if isinstance(value, bool) or not isinstance(value, (int, Fraction, float)):
        try:
            value = Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            raise InvalidParameter(field, value, f"an exact number ({owner})") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidParameter(field, value, f"a finite number ({owner})")
    return Fraction(value)


def _check(ok: bool, event: Any, field: str, allowed: str) -> None:
    if not ok:
        raise InvalidParameter(field, getattr(event, field), f"{allowed} ({type(event).__name__})")


def _integer(event: Any, field: str, least: int) -> int:
    v = _exact(event, field)
    _check(v.denominator == 1 and v >= least, event, field, f"an integer >= {least}")
    return int(v)


def _non_private() -> FiniteLoss:
    return FiniteLoss([(Fraction(0), Fraction(1)), (Fraction(1), Fraction(0))], "non_private")


class Pairs(NamedTuple):
    """An event's pairs, each with the roles it plays (remove, add, replace), and whether they are attained."""

    items: list[tuple[PrivacyLoss, frozenset]]
    tight: bool


_BOTH = frozenset({REMOVE, ADD})
_REP = frozenset({REPLACE})


def _roles(neighboring: str) -> frozenset:
    return _BOTH if neighboring == "add_remove" else _REP


def _scale(neighboring: str) -> int:
    """The sensitivity factor of the relation (module docstring: 2 under replace-one)."""
    return 1 if neighboring == "add_remove" else 2


def _additive(event: Any, name: str, neighboring: str, k: int = 1) -> PrivacyLoss | None:
    """The tight pair of an additive event at k copies of its relation's sensitivity (None if not additive)."""
    f = k * _scale(neighboring)
    if name == "GaussianDpEvent":
        sigma = _exact(event, "noise_multiplier")
        _check(sigma >= 0, event, "noise_multiplier", "a number >= 0")
        if sigma == 0:
            return _non_private()
        loss = SubsampledGaussianLoss(REMOVE, Fraction(1), sigma / f)
        loss.name = "gaussian"
        return loss
    if name == "LaplaceDpEvent":
        b = _exact(event, "noise_multiplier")
        _check(b >= 0, event, "noise_multiplier", "a number >= 0")
        return _non_private() if b == 0 else LaplaceLoss(b, Fraction(f))
    if name == "DiscreteLaplaceDpEvent":
        a = _exact(event, "noise_parameter")
        _check(a > 0, event, "noise_parameter", "a number > 0")
        s = _integer(event, "sensitivity", 0)
        return NoLoss() if s == 0 else DiscreteLaplaceLoss(a, f * s)
    if name == "DiscreteGaussianDpEvent":
        sigma = _exact(event, "sigma")
        _check(sigma > 0, event, "sigma", "a number > 0")
        s = _integer(event, "sensitivity", 0)
        return NoLoss() if s == 0 else DiscreteGaussianLoss(sigma, f * s)
    return None


def _pairs(event: Any, neighboring: str) -> Pairs | None:
    name = type(event).__name__
    roles = _roles(neighboring)
    if name == "NoOpDpEvent":
        return Pairs([(NoLoss(), roles)], True)
    if name == "NonPrivateDpEvent":  # promises nothing: its δ may be anything up to the pair's 1
        return Pairs([(_non_private(), roles)], False)
    single = _additive(event, name, neighboring)
    if single is not None:
        return Pairs([(single, roles)], True)
    if name == "RandomizedResponseDpEvent":
        p = _exact(event, "noise_parameter")
        _check(0 <= p <= 1, event, "noise_parameter", "a probability in [0, 1]")
        k = _integer(event, "num_buckets", 1)
        if neighboring != "replace_one":
            raise _Unsound(
                "randomized response has no add/remove form (a removed record has no response, and the event does "
                "not say what a missing record outputs; dp-accounting refuses it too); use replace_one"
            )
        return Pairs([(randomized_response(p, k), roles)], True)
    if name == "MixtureOfGaussiansDpEvent":
        return _mixture(event, neighboring)
    if name == "PoissonSampledDpEvent":
        return _poisson(event, neighboring)
    if name in ("SampledWithoutReplacementDpEvent", "SampledWithReplacementDpEvent"):
        return _fixed_size(event, name, neighboring)
    return None  # TruncatedSubsampledGaussian, ZCDp, tree aggregation, repeat-and-select, compositions


def _mixture(event: Any, neighboring: str) -> Pairs | None:
    sigma = _exact(event, "standard_deviation")
    _check(sigma > 0, event, "standard_deviation", "a number > 0")
    kind = type(event).__name__
    cs = [_number(c, "sensitivities", kind) for c in event.sensitivities]
    ps = [_number(p, "sampling_probs", kind) for p in event.sampling_probs]
    _check(len(cs) == len(ps) and len(cs) > 0, event, "sampling_probs", "one probability per sensitivity")
    _check(all(c >= 0 for c in cs), event, "sensitivities", "numbers >= 0")
    _check(all(p >= 0 for p in ps) and sum(ps) == 1, event, "sampling_probs", "probabilities >= 0 summing to 1")
    if neighboring != "add_remove":
        return None
    if all(c == 0 or p == 0 for c, p in zip(cs, ps, strict=True)):
        return Pairs([(NoLoss(), _BOTH)], True)
    return Pairs(
        [
            (MixtureLoss(REMOVE, sigma, cs, ps), frozenset({REMOVE})),
            (MixtureLoss(ADD, sigma, cs, ps), frozenset({ADD})),
        ],
        True,
    )


def _poisson(event: Any, neighboring: str) -> Pairs | None:
    q = _exact(event, "sampling_probability")
    _check(0 <= q <= 1, event, "sampling_probability", "a probability in [0, 1]")
    inner_event = event.event
    if q == 0:
        return Pairs([(NoLoss(), _roles(neighboring))], True)
    inner = _pairs(inner_event, neighboring)
    if inner is None or q == 1:
        return inner
    if neighboring == "replace_one":
        if type(inner_event).__name__ == "GaussianDpEvent":
            sigma = _exact(inner_event, "noise_multiplier")
            if sigma > 0:  # the mirror pair: proved to dominate and attained (module docstring)
                return Pairs([(MirrorLoss(q, sigma), _roles(neighboring))], True)
        # proved, not attained (module docstring)
        return Pairs([(DisjointMixture([(1 - q, NoLoss()), (q, loss)], REPLACE), r) for loss, r in inner.items], False)
    if type(inner_event).__name__ == "GaussianDpEvent":
        sigma = _exact(inner_event, "noise_multiplier")
        if sigma > 0:
            return Pairs([(SubsampledGaussianLoss(d, q, sigma), frozenset({d})) for d in (REMOVE, ADD)], True)
    out: list[tuple[PrivacyLoss, frozenset]] = []
    for loss, r in inner.items:
        if not has_survivals_at(loss):
            return None
        if REMOVE in r:
            out.append((PoissonLoss(loss, q, "first", REMOVE), frozenset({REMOVE})))
        if ADD in r:
            out.append((PoissonLoss(loss, q, "second", ADD), frozenset({ADD})))
    return Pairs(out, inner.tight)  # attained where the inner pairs are, with every other record left out


#: P[K > k_max] below this ends the with-replacement mixture (the rest is an infinite loss).
_WR_TAIL = Fraction(1, 2**100)


def _fixed_size(event: Any, name: str, neighboring: str) -> Pairs | None:
    n = _integer(event, "source_dataset_size", 1)
    m = _integer(event, "sample_size", 0)
    if name == "SampledWithoutReplacementDpEvent":
        _check(m <= n, event, "sample_size", f"an integer <= source_dataset_size = {n}")
    if neighboring != "replace_one":
        raise _Unsound(
            f"{name} fixes the dataset and sample sizes, which adding or removing a record changes: it is sound "
            "under replace_one only"
        )
    if m == 0:
        return Pairs([(NoLoss(), _REP)], True)
    inner_event = event.event
    if name == "SampledWithoutReplacementDpEvent":
        gamma = Fraction(m, n)
        inner = _pairs(inner_event, neighboring)
        if inner is None or gamma == 1:
            return inner
        items = [(DisjointMixture([(1 - gamma, NoLoss()), (gamma, loss)], REPLACE), r) for loss, r in inner.items]
        return Pairs(items, False)
    if _additive(inner_event, type(inner_event).__name__, neighboring) is None:
        return None
    r = Fraction(1, n)
    parts: list[tuple[Fraction, PrivacyLoss]] = []
    cdf = Fraction(0)
    for k in range(m + 1):
        pk = math.comb(m, k) * r**k * (1 - r) ** (m - k)
        loss = NoLoss() if k == 0 else _additive(inner_event, type(inner_event).__name__, neighboring, k)
        parts.append((pk, loss))
        cdf += pk
        if 1 - cdf < _WR_TAIL:
            break
    return Pairs([(DisjointMixture(parts, REPLACE, singular=1 - cdf), _REP)], False)


class _Unsound(Exception):
    """The event is not defined (or not sound) under the relation asked; the message says why."""


#: Why an event has no dominating pair here (``None``: under either relation), where it is not an unsound relation.
_NO_PAIR = {
    ("MixtureOfGaussiansDpEvent", "replace_one"): "the event defines only the add/remove pair; no replace-one pair "
    "is proved (dp-accounting refuses it too)",
    ("TruncatedSubsampledGaussianDpEvent", None): "no dominating pair is proved for Poisson sampling truncated to a "
    "batch size (dp-accounting's mixture is its own 'slightly loose' construction, not re-proved here)",
    ("SampledWithReplacementDpEvent", "replace_one"): "a pair is proved for additive inner events only (Gaussian, "
    "Laplace, discrete Laplace, discrete Gaussian), whose sensitivity grows with the copies drawn",
}


class DominatingPairs(NamedTuple):
    """An event's directions under a relation (:func:`directions`) and whether they are attained.

    ``tight`` is true when some pair of neighbouring datasets has exactly these output laws in each direction, so
    that a lower end computed from them bounds the mechanism's own ε(δ) or δ(ε) from below; false when the pairs are
    only proved to dominate (their values bound the mechanism's from above only). Module docstring, "Which pairs
    are attained".
    """

    directions: list[PrivacyLoss]
    tight: bool


def dominating_pairs(event: Any, neighboring: str) -> DominatingPairs | None:
    """The directions of ``event`` under ``neighboring`` with whether they are attained (tight), or None when
    :func:`directions` gives none.

    >>> class GaussianDpEvent:
    ...     noise_multiplier = 2
    >>> class PoissonSampledDpEvent:
    ...     sampling_probability, event = Fraction(1, 8), GaussianDpEvent()
    >>> [dominating_pairs(PoissonSampledDpEvent(), rel).tight for rel in ("add_remove", "replace_one")]
    [True, False]

    Raises:
        InvalidParameter: a field outside its domain, or an unknown relation.
    """
    if neighboring not in NEIGHBORING:
        raise InvalidParameter("neighboring", neighboring, "add_remove or replace_one")
    try:
        pairs = _pairs(event, neighboring)
    except _Unsound:
        return None
    if pairs is None:
        return None
    return DominatingPairs([loss for loss, _ in pairs.items], pairs.tight)


def directions(event: Any, neighboring: str) -> list[PrivacyLoss] | None:
    """The directions of ``event`` under ``neighboring`` (δ is the largest direction's), or None.

    Args:
        event: an object with dp-accounting's class name and field names (exact numbers: Fraction, int; a float
            means its binary value). neighboring: ``"add_remove"`` or ``"replace_one"``.

    Returns:
        The dominating pairs as engine losses (one when both orders of a neighbouring pair have one privacy loss
        distribution, else ``[remove, add]``), or ``None`` when no dominating pair is proved here or the event is
        not sound under the relation (:func:`why_none` says which, in one line). Whether they are attained:
        :func:`dominating_pairs`.

    Raises:
        InvalidParameter: a field outside its domain, or an unknown relation.
    """
    found = dominating_pairs(event, neighboring)
    return None if found is None else found.directions


def why_none(event: Any, neighboring: str) -> str:
    """One line saying why :func:`directions` gives no pair for ``event`` under ``neighboring`` (for a refusal);
    the innermost reason for a sampled event.

    >>> class RandomizedResponseDpEvent:
    ...     noise_parameter, num_buckets = 0.5, 3
    >>> why_none(RandomizedResponseDpEvent(), "add_remove")[:42]
    'randomized response has no add/remove form'
    """
    if neighboring not in NEIGHBORING:
        raise InvalidParameter("neighboring", neighboring, "add_remove or replace_one")
    try:
        if _pairs(event, neighboring) is not None:
            return ""
    except _Unsound as err:
        return str(err)
    inner = getattr(event, "event", None)
    if inner is not None and type(event).__name__ in (
        "PoissonSampledDpEvent",
        "SampledWithoutReplacementDpEvent",
    ):
        return why_none(inner, neighboring)
    name = type(event).__name__
    why = _NO_PAIR.get((name, neighboring)) or _NO_PAIR.get((name, None))
    return why or f"no dominating pair is proved for {name} under {neighboring}"
