"""DP-SGD as trained: batch samplers, neighbouring relations, and the inputs ``epochs``, ``batch_size``, ``n``.

Notation: n records, batches of (expected) size b, rate γ = b/n, noise multiplier σ, per-example gradients clipped to
norm 1 (the noise is N(0, σ²I) on the clipped sum). G_s(α) = H_α(N(s, σ²)‖N(0, σ²)) is the Gaussian profile at
shift s, non-decreasing in s (a shift s <= s′ is a contraction of s′ followed by the same noise), and
H_α(P‖Q) = sup_S P(S) − αQ(S) (α = e^ε) is the hockey-stick divergence.

**Inputs as trained.** q = batch_size/n and steps = epochs·n/batch_size, which must be a whole number (a fraction of
a step is no run); otherwise the input is refused, naming the nearest epochs, batch sizes and dataset sizes that
are whole (:func:`steps_of`).

**Which relations are sound.** Poisson sampling keeps its rate when a record is added or removed, so both
add/remove and replace-one are defined. A fixed batch size or a shuffled partition into batches of b is defined by
n: adding or removing a record changes the batches of every other record (a different n), so add/remove is not a
relation these samplers' analyses cover, and it is refused; replace-one (n fixed) is the sound relation for them.

**Lemma 1 (mixtures with a common part).** Let R, X, X′ be laws and p ∈ (0, 1]. For α >= 1 put α′ = 1 + p(α − 1)
and β = α′/α ∈ (0, 1]. Then, exactly,

    H_α′((1 − p)R + pX ‖ (1 − p)R + pX′) = p · H_α(X ‖ (1 − β)R + βX′),

since (1 − p)R + pX − α′((1 − p)R + pX′) = p(X − α[(1 − β)R + βX′]) as measures (expand α(1 − β) = (1 − p)(α − 1)
and αβ = α′) and H is the supremum over sets of that signed measure. (This is the advanced joint convexity of
Balle–Barthe–Gaboardi 2018, written as an identity.) α ↦ α′ maps [1, ∞) onto [1, ∞).

**Lemma 2 (one step, replace-one, a first bound).** Under replace-one, every step of DP-SGD with Poisson rate γ or with
a fixed batch of b = γn, conditioned on what came before, has H_α′(M(D)‖M(D′)) <= γ·G_2(α) = H_α′(W_P‖W_Q) for every α′
>= 1, where (W_P, W_Q) = ((1 − γ)N(0, σ²) + γN(2, σ²), N(0, σ²)) (the "remove" pair of rate γ at shift 2, i.e.
:class:`~dpcert.gaussian.sgm_loss.SubsampledGaussianLoss` at σ/2).

*Proof.* Poisson: the differing record (gradient u in D, u′ in D′) is in the batch with probability γ independently
of the rest; given the others' clipped sum s, M(D) = (1 − γ)N(s) + γN(s + u) and M(D′) likewise with u′. Fixed
size: draw a uniform b-subset B₀ of the other n − 1 records and, with probability γ, swap a uniform member j of B₀
for the differing record; this draws a uniform b-subset of all n records. Given (B₀, j) with sum s, M(D) = (1 −
γ)N(s) + γN(s − g_j + u), M(D′) the same with u′. Both are mixtures of the pair ((1 − γ)R + γX, (1 − γ)R + γX′)
with R, X, X′ Gaussians (noise σ²I) whose centres are at most 2 apart, and H is jointly convex, so it suffices to
bound one such pair. By Lemma 1 and convexity of H_α(X‖·), H_α′ <= γ[(1 − β)H_α(X‖R) + βH_α(X‖X′)] <= γG_2(α);
and Lemma 1 for (W_P, W_Q) (X = N(2), R = X′ = N(0)) gives H_α′(W_P‖W_Q) = γG_2(α). ∎

**Lemma 3 (the steep half symmetrised).** Let (P, Q) have a privacy loss L = log dP/dQ with no atoms and P(L > 0)
+ Q(L > 0) <= 1, and let W(α) = H_α(P‖Q). The function Ŵ(α) = W(α) for α >= 1 and Ŵ(α) = 1 − α + αW(1/α) for α <
1 is the hockey-stick curve of the pair (P̃, Q̃) whose loss has the survival functions

    P̃(L >= l) = P(L >= l), Q̃(L >= l) = Q(L >= l)            for l > 0,
    P̃(L >= l) = 1 − Q(L >= −l), Q̃(L >= l) = 1 − P(L >= −l)  for l <= 0

(an atom at L = 0 of mass 1 − P(L > 0) − Q(L > 0) >= 0 in both). *Proof.* H_α = P̃(L > log α) − αQ̃(L > log α) and
dH/dα = −Q̃(L > log α); for α >= 1 these are (P, Q)'s; for α < 1, differentiating 1 − α + αW(1/α) gives −1 +
P(L > log(1/α)), which is −Q̃(L > log α) above, and the value matches. Ŵ is convex on each side (the second piece
is a perspective of W), its derivative lies in [−1, 0] on both, and at α = 1 the left derivative −1 + P(L > 0) is
<= the right one −Q(L > 0) exactly when P(L > 0) + Q(L > 0) <= 1; so the survival functions above are those of
probability laws. ∎ For W_P, W_Q of Lemma 2, L > 0 iff x > 1, so P(L > 0) + Q(L > 0) = γ + 2(1 − γ)Φ̄(1/σ) <= 1.

**Theorem (replace-one, fixed size; also valid for Poisson).** For each ordered replace-one pair (D, D′), each step
satisfies H_α <= Ŵ(α) for every α >= 0: for α >= 1 by Lemma 2, and for α < 1 because H_α(A‖B) = 1 − α + αH_{1/α}(B‖A)
and (D′, D) is a replace-one pair too. So (P̃, Q̃) of Lemma 3 built on (W_P, W_Q) dominates every step, and its k-fold
product dominates the adaptive composition (Zhu–Dong–Wang 2022, composition of dominating pairs). The pair is its own
swap (Ŵ(α) = 1 − α + αŴ(1/α)), so one direction is computed (:class:`SymmetrisedLoss`). This is the symmetrisation of
Dong–Roth–Su's subsampling theorem (their C_γ(f) = min{f_γ, f_γ⁻¹}**) for the fixed-size sampler, proved here for both
samplers.

**Theorem (replace-one, Poisson: the mirror pair is tight).** With A_v = (1 − q)N(0, σ²I) + qN(v, σ²I), every
step of a Poisson replace-one pair is dominated by (A_e, A_{−e}) (e a unit vector), the pair dp-accounting uses,
which the record e in D and −e in D′ (every other gradient 0) realises (:class:`MirrorLoss`). *Proof.* As in
Lemma 2 (conditioning on the others' sum, joint convexity) it suffices to show H_α′(A_u‖A_{u′}) <=
H_α′(A_e‖A_{−e}) for ‖u‖, ‖u′‖ <= 1 and α′ >= 1; the pair is its own mirror image (x ↦ −x swaps it), so α′ < 1
follows as in the theorem above.

1. *Unit vectors.* Take unit s, s′ with ⟨s, s′⟩ = ⟨u, u′⟩ (in one more dimension if needed; s = u, s′ = u′ when both are
   unit and parallel). The linear map M with Ms = u, Ms′ = u′ (and 0 orthogonally) is a contraction, since Gram(s, s′) −
   Gram(u, u′) = diag(1 − ‖u‖², 1 − ‖u′‖²) ⪰ 0, so x ↦ Mx + N(0, σ²(I − MMᵀ)) maps N(c, σ²I) to N(Mc, σ²I) for every c,
   hence A_s to A_u and A_{s′} to A_{u′}: post-processing, H_α′(A_u‖A_{u′}) <= H_α′(A_s‖A_{s′}).
2. *Lemma 1* (R = N(0), X = N(s), X′ = N(s′), p = q): H_α′(A_s‖A_{s′}) = q·sup_S f, f = φ_s − aφ_0 − bφ_{s′}
   (φ_c the density of N(c, σ²I)) with a = α(1 − β) >= 0 and b = αβ = α′ >= 1 (α, β those of Lemma 1); the sup
   is attained on S* = {f > 0}.
3. *A reflection* (if s′ = −s there is nothing to prove). Let ρ be the reflection in the hyperplane through 0 orthogonal
   to s + s′: it swaps s and −s′ (both unit), so ρs′ = −s, and it fixes φ_0. Let H₊ = {x : ⟨x, s + s′⟩ >= 0}. With A =
   e^{⟨x,s⟩/σ²}, B = e^{⟨x,s′⟩/σ²}, κ = e^{−1/(2σ²)}: f(x)/φ_0(x) = κA − a − bκB and f(ρx)/φ_0(x) = κ/B − a − bκ/A, and
   AB >= 1 on H₊. If x ∈ H₊ and f(ρx) > 0 then κ/B > bκ/A, so A > bB, and f(x)/φ_0 − f(ρx)/φ_0 = κ(AB − 1)(A − bB)/(AB)
   >= 0, so f(x) > 0: on H₊, 1_{S*}(x) >= 1_{S*}(ρx). Also φ_{s′}(x) >= φ_{−s}(x) on H₊ (x is nearer s′ than −s there).
   Hence N(s′)(S*) − N(−s)(S*) = ∫_{H₊} (φ_{s′} − φ_{−s})(x)(1_{S*}(x) − 1_{S*}(ρx)) dx >= 0, and

           sup_S f = ∫_{S*} f <= ∫_{S*} (φ_s − aφ_0 − bφ_{−s}) <= the same sup with s′ = −s,

   which by Lemma 1 again is H_α′(A_s‖A_{−s})/q = H_α′(A_e‖A_{−e})/q (a rotation). ∎

So under replace-one with Poisson sampling the PLD engine's enclosure is of the tight ε, as under add/remove.

*Fixed size: how tight, and the lower end.* Under replace-one with fixed-size batches the drivers report [the
realised pair's certified lower end, the proved pair's certified upper end]: the true ε of the worst pair of
datasets lies in it. The realised pair is (W_P, W_Q) itself: with every other gradient −e, the record e in D and −e
in D′, the batch sums are −be (record out) and −(b − 2)e or −be (record in), so each step of (D, D′) is exactly
(W_P, W_Q), and each step of (D′, D) is (W_Q, W_P): the lower end is the larger of the two compositions' (the
"remove" and "add" directions of the shift-2 pair), and the gap is the symmetrisation's only (an adaptive adversary
may mix the two directions across steps, which the symmetrised pair covers).

**Shuffling (disjoint batches of b each epoch, T = n/b steps an epoch, E epochs), replace-one.** *Upper end*:
within an epoch the differing record is in exactly one batch, the other batches being the same under D and D′ given
the permutation, so an epoch is, given its permutation, one Gaussian release at shift <= 2 followed by releases that
do not depend on the record; mixing over the permutation (joint convexity) and composing E epochs gives the
Gaussian pair at μ = 2√E/σ [DRS22 composition]. *Lower end*: the sum of the T noisy batch sums of an epoch is the
sum of all clipped gradients plus N(0, Tσ²I) (each record is in exactly one batch), a post-processing of the run;
with every other gradient 0 and the record e vs −e it is N(e, Tσ²) against N(−e, Tσ²), so E epochs give the
Gaussian pair at μ = 2√E/(σ√T) as a realised post-processing: no valid ε can be below its ε. Both ends are exact
Gaussian profiles (:mod:`dpcert.gaussian.mechanism`). An ε accounted as Poisson sampling for a shuffled run that
lies below the lower end is therefore refuted.

**Float bounds at float speed** (the ``survival_bounds`` of :class:`MirrorLoss` and :class:`SymmetrisedLoss`; the
float path of the discretisation reads them).

*The mirror pair's threshold in closed form.* With a = e^{−1/(2σ²)} and z = e^{x/σ²} the loss is L >= l iff z >= z_l,
z_l the positive root of qa·z² + (1 − q)(1 − e^l)·z − qa·e^l = 0 (:class:`MirrorLoss`). Put z = e^{l/2}y and divide by
qa·e^l: y² − 2s·y − 1 = 0 with s(l) = κ·sinh(l/2), κ = (1 − q)/(qa) = (1 − q)e^{1/(2σ²)}/q >= 0, whose positive root
is y = s + √(s² + 1) = e^{asinh s}. Hence

    x_l = σ²·(l/2 + asinh(κ·sinh(l/2))),

an odd function of l (the pair is its own mirror image). :func:`dpcert.arith.taylor.grid_bounds` turns Taylor
models of the two survival functions l ↦ Q(L >= l), P(L >= l) per block of grid points into proved float64 bounds
(its docstring holds the float part of the proof); this module owes it three things.

* *Analyticity on a box* B = [c − R, c + R] + i[−R, R] of complex l. x_l is odd in real l, so a box whose centre
  is left of 0 is mirrored: if X is analytic on a neighbourhood of −B and equals x on its real points, then −X(−l)
  is analytic on a neighbourhood of B and equals x there. So let B be the box or its mirror image, with c >= 0. s is
  entire (sinh is). Two forms of X are tried, each with principal square roots and logarithms:

  (A) X = σ²(l/2 + log(s + √(1 + s²))), used only when, evaluated in complex balls over B, Re(1 + s²) > 0 and then
      Re(s + √(1 + s²)) > 0 are certain;
  (B) (q < 1, so κ > 0) X = σ²(l + log(κ/2) + log(1 − e^{−l}) + log(1 + √(1 + s^{−2}))) with s^{−2} written as
      4e^{−l}/(κ²(1 − e^{−l})²) (as sinh(l/2) = e^{l/2}(1 − e^{−l})/2), used only when Re(1 − e^{−l}) > 0 (so
      1 − e^{−l} ≠ 0 and s^{−2} is analytic) and the enclosure of 1 + s^{−2} is finite with a positive real part;
      then Re(1 + √(1 + s^{−2})) >= 1 (a principal root has Re >= 0). Form (B) suits wide boxes far from 0, where
      e^{−l} is small and (A)'s balls wrap.

  A box on which neither is certain is refused (``grid_bounds`` splits it or takes per-point balls). On the open set
  where the real parts checked are positive (it contains the compact B, hence a neighbourhood of it) each principal
  √ is analytic (its argument avoids (−∞, 0]), each principal log too (its argument lies in the open right
  half-plane), and 1/s² where s ≠ 0: X is analytic there. On real points of B: in (A), 1 + s² > 0, the root is the
  positive one and s + √(1 + s²) = e^{asinh s}; in (B), 1 − e^{−l} > 0 forces l > 0, so s > 0, every logarithm's
  argument is a positive real, and log(κ/2) + l + log(1 − e^{−l}) = log(κ·sinh(l/2)) − l/2 + l = log s + l/2 and
  log s + log(1 + √(1 + s^{−2})) = log(s + √(s² + 1)) = asinh s. Either way X = σ²(l/2 + asinh s) = x_l. The
  survivals are erfc (an entire function) of affine functions of x: Q(L >= l) = (1 − q)·erfc(x/(σ√2))/2 +
  q·erfc((x + 1)/(σ√2))/2 and P(L >= l) the same with x − 1 in the second erfc, so they are analytic on a
  neighbourhood of B and real on the real axis; their enclosures on B are these formulas in complex balls.
* *Taylor series at c* (c and the half-width h balls, l = c + hτ). s = κ·sinh(u/2) as a series of τ, its constant
  term sinh(c/2) taken directly (no difference e^{c/2} − e^{−c/2} that cancels near 0). asinh(s) is composed through
  its derivative: d/dτ asinh(s(τ)) = s′(τ)·(1 + s²)^{−1/2}, both sides analytic at τ = 0 (1 + s² >= 1 there), so
  the series of asinh∘s is asinh(s(c)) plus the integral of the series of s′·(1 + s²)^{−1/2}; no logarithm of a
  difference. Q(L >= l) is composed from its two erfc series. P follows from Q: for any pair whose loss is a
  strictly increasing smooth function of x with continuous densities p, q_d (here p(x) = ((1 − q)φ(x/σ) + qφ((x −
  1)/σ))/σ, q_d(x) the same with x + 1), d/dl P(L >= l) = −p(x_l)·x_l′ and d/dl Q(L >= l) = −q_d(x_l)·x_l′, and
  p(x_l)/q_d(x_l) = e^l by the definition of x_l; so P′ = e^l·Q′ as analytic functions, and P(c + hτ) = P(c) +
  ∫_0^τ e^{c + hr}·(d/dr)Q(c + hr) dr, with P(c) from its formula in balls. Two erfc series per block, not three.
* *Per-point balls* where a block cannot prove its accuracy (around l = 0, where the branch points s = ±i of asinh,
  l = ±2i·asin(1/κ) when κ >= 1, sit about 2/κ from the real axis, and the disks must be small): the reference formula
  of :meth:`MirrorLoss.survivals` (the quadratic's root, evaluated in real balls), an evaluation independent of the
  asinh form above.

*The symmetrised pair from its base.* :class:`SymmetrisedLoss` has Q̃(L >= l) = Q(L >= l) and P̃(L >= l) = P(L >= l)
for l > 0, and Q̃(L >= l) = 1 − P(L >= −l), P̃(L >= l) = 1 − Q(L >= −l) for l <= 0 (Lemma 3). Its float bounds are
the base's at the index i (l > 0) and, for l <= 0, lo = pred(fl(1 − hi_b)), hi = succ(fl(1 − lo_b)) from the
base's bounds lo_b <= v <= hi_b at −i, pred and succ being the neighbouring doubles. Proof: 1 − hi_b <= 1 − v <=
1 − lo_b exactly; an IEEE subtraction returns the correctly rounded value fl(y) of the exact difference y, and
pred(fl(y)) <= y <= succ(fl(y)) (rounding to nearest moves by at most half an ulp, less than one step to a
neighbouring double). The results are clipped to [0, 1], which the exact values lie in.

References:
    B. Balle, G. Barthe, M. Gaboardi, NeurIPS 2018 (arXiv 1807.01647), advanced joint convexity. J. Dong, A. Roth,
    W. Su, "Gaussian Differential Privacy", JRSS-B 2022 (arXiv 1905.02383), subsampling theorem and composition
    [DRS22]. Y. Zhu, J. Dong, Y.-X. Wang, AISTATS 2022 (arXiv 2106.08567), dominating pairs. C. J. Lebeda, M. Regehr,
    G. Kamath, T. Steinke, arXiv 2405.20769 (Poisson and fixed-size sampling differ under replace-one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from flint import acb, arb, arb_series, ctx

from dpcert.arith.ball import ball
from dpcert.arith.taylor import GridBoundsStats, grid_bounds
from dpcert.core.params import integer
from dpcert.core.vocabulary import NEIGHBORING
from dpcert.errors import InvalidParameter
from dpcert.pld.loss import PrivacyLoss, solve_switch

__all__ = [
    "SAMPLINGS",
    "NEIGHBORINGS",
    "SymmetrisedLoss",
    "MirrorLoss",
    "steps_of",
    "as_steps",
    "check_relation",
    "shuffle_layout",
]

SAMPLINGS = ("poisson", "fixed", "shuffle")
NEIGHBORINGS = NEIGHBORING

_EPOCHS = integer("epochs", 1, 10**7, doc="passes over the data")
_BATCH = integer("batch_size", 1, doc="records per batch (expected, under Poisson sampling)")
_N = integer("n", 1, doc="records in the dataset")
_TRAINED = ("epochs", "batch_size", "n")


class SymmetrisedLoss(PrivacyLoss):
    """The pair (P̃, Q̃) of Lemma 3 built on a base direction with no atoms (see the module docstring)."""

    def __init__(self, base: PrivacyLoss, name: str = "replace") -> None:
        self.base = base
        self.name = name

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        top = max(i_hi, -i_lo, 1)
        bq, bp = self.base.survivals(n, 0, top)  # index j is base index j (l = j/n >= 0)
        sq, sp = [], []
        for i in range(i_lo, i_hi + 1):
            if i > 0:
                sq.append(bq[i])
                sp.append(bp[i])
            else:
                sq.append(1 - bp[-i])
                sp.append(1 - bq[-i])
        return sq, sp

    def survival_bounds(self, n: int, i_lo: int, i_hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Float64 bounds of Q̃(L >= i/n) and P̃(L >= i/n) from the base's bounds (its fast path where it has one):
        for i > 0 the base's at i; for i <= 0 one minus the other measure's at −i, each IEEE subtraction moved one
        double outwards (the proof: the module docstring)."""
        size = i_hi - i_lo + 1
        if size <= 0:
            return tuple(np.zeros(0) for _ in range(4))  # type: ignore[return-value]
        need = [j for j in (max(i_lo, 1), i_hi) if j > 0 and i_hi >= 1] + [
            j for j in (max(-i_hi, 0), -i_lo) if i_lo <= 0
        ]
        j_lo, j_hi = min(need), max(need)
        bq_lo, bq_hi, bp_lo, bp_hi = (np.asarray(x, dtype=np.float64) for x in self.base.survival_bounds(n, j_lo, j_hi))
        idx = np.arange(i_lo, i_hi + 1, dtype=np.int64)
        pos = idx > 0
        at = np.where(pos, idx, -idx) - j_lo  # the base index of each point, as a position in the base's arrays
        # l > 0: the base's own bounds; l <= 0: 1 − [the other measure's bounds], rounded outwards
        sq_lo = np.where(pos, bq_lo[at], np.nextafter(1.0 - bp_hi[at], -np.inf))
        sq_hi = np.where(pos, bq_hi[at], np.nextafter(1.0 - bp_lo[at], np.inf))
        sp_lo = np.where(pos, bp_lo[at], np.nextafter(1.0 - bq_hi[at], -np.inf))
        sp_hi = np.where(pos, bp_hi[at], np.nextafter(1.0 - bq_lo[at], np.inf))
        return tuple(np.clip(a, 0.0, 1.0) for a in (sq_lo, sq_hi, sp_lo, sp_hi))  # type: ignore[return-value]

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        _, hi = self.base.grid_range(n, tail)
        return -hi, hi

    def loss_variance(self) -> float:
        return self.base.loss_variance()


class MirrorLoss(PrivacyLoss):
    """The replace-one pair of Poisson sampling, P = (1 − q)N(0, σ²) + qN(1, σ²), Q = (1 − q)N(0, σ²) + qN(−1, σ²)
    (dp-accounting's): realised (the record e in D, −e in D′, every other gradient 0) and proved to dominate (the
    module docstring's reflection theorem), so tight. It is its own mirror image: one direction.

    With a = e^{−1/(2σ²)} and z = e^{x/σ²}, dP/dQ = ((1 − q) + qaz)/((1 − q) + qa/z) is increasing in x, and L >= l
    iff z >= z_l, the positive root of qa·z² + (1 − q)(1 − e^l)·z − qa·e^l = 0 (taken as 2qa·e^l/(B + √(B² +
    4q²a²e^l)) when B = (1 − q)(1 − e^l) > 0, so that no difference cancels). Then Q(L >= l) = (1 − q)Φ̄(x_l/σ) +
    qΦ̄((x_l + 1)/σ) and P(L >= l) = (1 − q)Φ̄(x_l/σ) + qΦ̄((x_l − 1)/σ), x_l = σ² log z_l; no atoms.
    """

    def __init__(self, q: Fraction, sigma: Fraction, name: str = "replace (realised)") -> None:
        self.q, self.sigma, self.name = Fraction(q), Fraction(sigma), name

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        return _mirror_points(self.q, self.sigma, n, range(i_lo, i_hi + 1))

    def survival_bounds(
        self, n: int, i_lo: int, i_hi: int, *, stats: GridBoundsStats | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Float64 bounds of Q(L >= i/n) and P(L >= i/n) by Taylor models in blocks (the module docstring and
        :mod:`dpcert.arith.taylor`), per-point balls of :meth:`survivals` where a block cannot prove its accuracy."""
        (sq_lo, sq_hi), (sp_lo, sp_hi) = grid_bounds(_MirrorFamily(self.q, self.sigma), n, i_lo, i_hi, stats=stats)
        return tuple(np.clip(a, 0.0, 1.0) for a in (sq_lo, sq_hi, sp_lo, sp_hi))  # type: ignore[return-value]

    def _x(self, lv: float) -> float:
        qf, s = float(self.q), float(self.sigma)
        a = math.exp(-1 / (2 * s * s))
        b = (1 - qf) * -math.expm1(lv)
        root = math.sqrt(b * b + 4 * qf * qf * a * a * math.exp(lv))
        z = (-b + root) / (2 * qf * a) if lv >= 0 else 2 * qf * a * math.exp(lv) / (b + root)
        return s * s * math.log(z)

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        from scipy import special

        s = float(self.sigma)
        lt = math.log(tail)

        def small_above(lv: float) -> bool:  # P(L >= lv) <= tail (its q-part dominates far out)
            return float(special.log_ndtr(-(self._x(lv) - 1) / s)) <= lt

        hi = solve_switch(small_above, 0.0, 700.0)
        return -math.ceil(n * hi) - 1, math.ceil(n * hi) + 1

    def loss_variance(self) -> float:
        s = float(self.sigma)
        return 4 * float(self.q) ** 2 * math.expm1(min(1 / (s * s), 700))


def _mirror_points(q: Fraction, sigma: Fraction, n: int, indices: Sequence[int]) -> tuple[list[arb], list[arb]]:
    """Balls of the mirror pair's Q(L >= i/n) and P(L >= i/n) at the given indices, from the quadratic's root (the
    reference path; the current working precision)."""
    sg, bq = ball(sigma), ball(q)
    one_q = 1 - bq
    a = (-1 / (2 * sg * sg)).exp()
    s2 = arb(2).sqrt()
    step = ball(Fraction(1, n))
    sq, sp = [], []
    for i in indices:
        el = (i * step).exp()
        b = -one_q * (i * step).expm1()  # (1 − q)(1 − e^l)
        root = (b * b + 4 * bq * bq * a * a * el).sqrt()
        z = (-b + root) / (2 * bq * a) if i >= 0 else 2 * bq * a * el / (b + root)
        x = sg * sg * z.log()
        phibar = [((x + c) / (sg * s2)).erfc() / 2 for c in (0, 1, -1)]
        sq.append(one_q * phibar[0] + bq * phibar[1])
        sp.append(one_q * phibar[0] + bq * phibar[2])
    return sq, sp


class _MirrorFamily:
    """The mirror pair's survival functions l ↦ (Q(L >= l), P(L >= l)) as an analytic family for
    :func:`dpcert.arith.taylor.grid_bounds`, through x_l = σ²(l/2 + asinh(κ sinh(l/2))) (the module docstring
    proves the formula and the analyticity on every box :meth:`disk` answers for)."""

    count = 2

    def __init__(self, q: Fraction, sigma: Fraction) -> None:
        self.q, self.sigma = Fraction(q), Fraction(sigma)
        self._cache: tuple[int, tuple[arb, arb, arb, arb, arb]] | None = None

    def _consts(self) -> tuple[arb, arb, arb, arb, arb]:
        """σ², q, 1 − q, σ√2 and κ = (1 − q)e^{1/(2σ²)}/q as balls at the working precision (once per precision)."""
        prec = ctx.prec
        if self._cache is None or self._cache[0] != prec:
            sg, bq = ball(self.sigma), ball(self.q)
            one_q = ball(1 - self.q)
            kappa = one_q * (1 / (2 * sg * sg)).exp() / bq
            self._cache = (prec, (sg * sg, bq, one_q, sg * arb(2).sqrt(), kappa))
        return self._cache[1]

    def series(self, c: arb, h: arb, length: int) -> list[arb_series] | None:
        s2, bq, one_q, ss, kappa = self._consts()
        half = arb(1) / 2
        u = arb_series([c, h])  # l = c + hτ
        e_half = (u * half).exp()
        sh = (e_half - 1 / e_half) * half  # sinh(l/2); its constant term replaced by sinh(c/2) itself
        s = arb_series([(c * half).sinh(), *list(sh.coeffs())[1:]]) * kappa
        s0 = (c * half).sinh() * kappa
        asinh = (s.derivative() * (1 + s * s).rsqrt()).integral() + s0.asinh()
        x = (u * half + asinh) * s2
        x0 = (c * half + s0.asinh()) * s2
        sq = (x / ss).erfc() * (one_q * half) + ((x + 1) / ss).erfc() * (bq * half)
        p0 = (x0 / ss).erfc() * (one_q * half) + ((x0 - 1) / ss).erfc() * (bq * half)
        sp = (u.exp() * sq.derivative()).integral() + p0  # P′ = e^l·Q′ (the module docstring)
        return [sq, sp]

    def disk(self, z: acb) -> list[acb] | None:
        s2, bq, one_q, ss, kappa = self._consts()
        sign = 1 if z.real.mid() >= 0 else -1  # x is odd: a box left of 0 is mirrored, x negated (module docstring)
        w = sign * z
        y = self._far(w, kappa) if self.q < 1 else None
        if y is None:
            y = self._near(w, kappa)
        if y is None:
            return None
        x = sign * y * s2
        a = (x / ss).erfc() / 2
        return [a * one_q + ((x + 1) / ss).erfc() * (bq / 2), a * one_q + ((x - 1) / ss).erfc() * (bq / 2)]

    @staticmethod
    def _near(w: acb, kappa: arb) -> acb | None:
        """x/σ² = l/2 + log(s + √(1 + s²)) on the box w, or None off the principal branches (form A)."""
        s = (w / 2).sinh() * kappa
        r = 1 + s * s
        if not r.real > 0:  # the principal square root is analytic where Re > 0
            return None
        v = s + r.sqrt()
        if not v.real > 0:  # the principal log is analytic on the open right half-plane
            return None
        return w / 2 + v.log()

    @staticmethod
    def _far(w: acb, kappa: arb) -> acb | None:
        """x/σ² = l + log(κ/2) + log(1 − e^{−l}) + log(1 + √(1 + s^{−2})) on the box w, s^{−2} = 4e^{−l}/(κ²(1 −
        e^{−l})²), or None (form B: little wrapping on a wide box far from 0, where e^{−l} is small)."""
        e = (-w).exp()
        t = 1 - e
        if not t.real > 0:  # then also t ≠ 0 and l > 0 on real points
            return None
        r = 1 + 4 * e / (kappa * kappa * t * t)
        if not (r.is_finite() and r.real > 0):  # Re > 0: the principal root is analytic
            return None
        return w + (kappa / 2).log() + t.log() + (1 + r.sqrt()).log()

    def points(self, n: int, indices: Sequence[int]) -> list[list[arb]]:
        return list(_mirror_points(self.q, self.sigma, n, indices))


def _nearest(target: int, ok: Any, limit: int = 10**6) -> list[int]:
    """The nearest integers >= 1 to ``target`` (below and above) for which ``ok`` holds."""
    out = []
    for d in range(1, limit):
        lo = target - d
        if lo >= 1 and ok(lo):
            out.append(lo)
            break
    for d in range(1, limit):
        if ok(target + d):
            out.append(target + d)
            break
    return sorted(out)


def steps_of(epochs: Any, batch_size: Any, n: Any) -> tuple[Fraction, int]:
    """(q, steps) = (batch_size/n, epochs·n/batch_size) of a run given as trained.

    Raises:
        InvalidParameter: for a batch larger than the dataset, or when epochs·n/batch_size is not whole (naming the
            nearest epochs, batch sizes and dataset sizes that are).

    >>> steps_of(64, 256, 60000)
    (Fraction(8, 1875), 15000)
    """
    e, b, m = int(_EPOCHS.parse(epochs)), int(_BATCH.parse(batch_size)), int(_N.parse(n))
    if b > m:
        raise InvalidParameter("batch_size", batch_size, f"a batch size <= n = {m}")
    total = e * m
    if total % b:
        ep = _nearest(e, lambda x: (x * m) % b == 0)
        bs = [x for x in _nearest(b, lambda x: x <= m and total % x == 0) if x <= m]
        ns = _nearest(m, lambda x: x >= b and (e * x) % b == 0)
        raise InvalidParameter(
            "epochs",
            e,
            f"epochs*n/batch_size a whole number of steps ({e}*{m}/{b} = {total / b:g}); nearest whole: epochs="
            f"{' or '.join(map(str, ep))}, or batch_size={' or '.join(map(str, bs))}, or n={' or '.join(map(str, ns))}",
        )
    return Fraction(b, m), total // b


def as_steps(inputs: Mapping[str, Any], aliases: Mapping[str, str], has_steps: bool = True) -> dict[str, Any]:
    """``inputs`` with ``epochs``, ``batch_size``, ``n`` replaced by ``q`` (as the exact text b/n) and ``steps``.

    Raises:
        InvalidParameter: when the two forms are mixed or the trained form is partial (one line naming them).
    """
    given = [k for k in _TRAINED if k in inputs]
    if not given:
        return dict(inputs)
    rate = [k for k in inputs if aliases.get(k, k) in ("q", "steps")]
    if rate:
        raise InvalidParameter(
            given[0],
            inputs[given[0]],
            f"either q= and steps= or epochs=, batch_size= and n=, not both ({rate[0]} given)",
        )
    missing = [k for k in _TRAINED if k not in inputs]
    if missing:
        raise InvalidParameter(
            given[0], inputs[given[0]], f"epochs=, batch_size= and n= together (missing {', '.join(missing)})"
        )
    q, steps = steps_of(inputs["epochs"], inputs["batch_size"], inputs["n"])
    out = {k: v for k, v in inputs.items() if k not in _TRAINED}
    out["q"] = f"{int(_BATCH.parse(inputs['batch_size']))}/{int(_N.parse(inputs['n']))}"
    if has_steps:
        out["steps"] = steps
    return out


def check_relation(sampling: str, neighboring: str) -> None:
    """Refuse a sampler with a neighbouring relation its analysis does not cover (one line saying why)."""
    if sampling in ("fixed", "shuffle") and neighboring == "add_remove":
        raise InvalidParameter(
            "neighboring",
            neighboring,
            f"replace_one with sampling={sampling}: adding or removing a record changes n and with it every other "
            "record's batches, which no proved pair covers",
        )


def shuffle_layout(q: Fraction, steps: int) -> tuple[int, int]:
    """(T, E): steps per epoch 1/q and epochs steps·q of a shuffled run, both whole.

    Raises:
        InvalidParameter: when 1/q or steps·q is not whole.
    """
    inv = 1 / q
    if inv.denominator != 1:
        raise InvalidParameter("q", str(q), "1/q a whole number of batches per epoch with sampling=shuffle")
    e = steps * q
    if e.denominator != 1:
        raise InvalidParameter("steps", steps, f"a whole number of epochs with sampling=shuffle (steps*q = {e})")
    return int(inv), int(e)
