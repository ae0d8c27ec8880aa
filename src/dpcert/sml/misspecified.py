"""Misspecified support (§V-C, Appendices G–I): RR and QM when the estimated categories Γ̂* differ from Γ*.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

Model (our reading of Appendices G–H [WLF24]; docs/derivations/sml.md#misspecified-support). Categories are laid out as

    [0, d̂₀)                 Γ̂*₀ = Γ̂* ∩ Γ*, correctly estimated feasible categories (0 is the secret category),
    [d̂₀, d*)                the n_miss = d* − d̂₀ feasible categories the holder missed,
    [d*, d* + d̂₁)           Γ̂*₁ = Γ̂* ∖ Γ*, infeasible categories wrongly included.

Inputs θ are histograms of precision τ on Γ* (zero on Γ̂*₁); the secret is the fraction of category 0 (s = τ + 1).
On input θ a mechanism releases a histogram supported in Γ̂* ∪ Supp(θ):

* RR keeps θ with weight E = e^ε and gives weight 1 to every other histogram of that output space, normalised by
  N_θ + E − 1 with N_θ = C(τ + d̂* + β(θ) − 1, d̂* + β(θ) − 1), β(θ) = |Supp(θ) ∖ Γ̂*|;
* QM releases a uniform histogram of that output space whose secret coordinate is g_{R(k)}.

Π* is the correctly specified SML with d = d* (Theorem V.4). The paper's bounds are written here as bounds on
exp Π (all rational for rational E), with ``log`` in exponents read as ⌊log₂ ·⌋
(docs/derivations/sml.md#logarithm-base):

* Proposition V.3: RR with E − 1 ≤ C(τ+d̂*−1, d̂*−1)/s has exp Π ≤ 3^{n_miss} exp Π*; QM has
  exp Π ≤ 2^{n_miss} exp Π* (1-robust in bits, which implies the statement in nats);
* Proposition H.4 (upper bounds), Proposition H.5 (lower bounds; the QM case n_miss ≥ I is false: τ = 3, d* = 3,
  d̂₀ = 1, d̂₁ = 1, I = 2 gives exp Π = 8/3 < 20/7, because τ(1 − g_{k,I}) ≥ τI/(2s) fails for the top bin);
* Appendix H-D distortion bounds (the RR ones hold; the QM ones inherit the Theorem V.4 error: τ = 1, d* = 2,
  d̂₀ = 1, d̂₁ = 1, I = 1 has distortion 1/2 above the upper bound 1/4).

Everything is checked by brute force on tiny instances (:func:`mechanism`, :func:`dpcert.sml.mechanism.sml`).

References:
    Wang–Lin–Fanti [WLF24], Definition 1, Proposition V.3, Appendices G, H (H.4, H.5, H-D), I [WLF24].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import FiniteMechanism
from dpcert.sml.tabular import compositions, qm_median_index, qm_valid, rr_sml_exp

__all__ = [
    "Support",
    "mechanism",
    "rr_upper_h4",
    "qm_upper_h4",
    "rr_lower_h5",
    "qm_lower_h5",
    "rr_distortion_bounds_hd",
    "qm_distortion_bounds_hd",
    "rr_robust_condition",
    "rr_sml_star_exp",
    "qm_sml_star_exp",
]


@dataclass(frozen=True)
class Support:
    """A misspecified-support setting: precision τ, d* feasible categories, d̂₀ of them estimated, d̂₁ wrong ones.

    Raises:
        InvalidParameter: naming the field out of range (τ ≥ 1, d* ≥ 2, 1 ≤ d̂₀ ≤ d*, d̂₁ ≥ 0).
    """

    tau: int
    d_star: int
    d0: int
    d1: int

    def __post_init__(self) -> None:
        if self.tau < 1:
            raise InvalidParameter("tau", self.tau, "an integer >= 1")
        if self.d_star < 2:
            raise InvalidParameter("d_star", self.d_star, "an integer >= 2 (feasible categories)")
        if not 1 <= self.d0 <= self.d_star:
            raise InvalidParameter("d0", self.d0, f"an integer in [1, d_star] = [1, {self.d_star}]")
        if self.d1 < 0:
            raise InvalidParameter("d1", self.d1, "an integer >= 0")

    @property
    def n_miss(self) -> int:
        return self.d_star - self.d0

    @property
    def s(self) -> int:
        return self.tau + 1

    @property
    def d_hat(self) -> int:
        return self.d0 + self.d1

    def inputs(self) -> list[tuple[int, ...]]:
        """Histograms on Γ* (padded with zeros on Γ̂*₁)."""
        return [h + (0,) * self.d1 for h in compositions(self.tau, self.d_star)]

    def outputs(self) -> list[tuple[int, ...]]:
        """Histograms on Γ̂* ∪ Γ*."""
        return list(compositions(self.tau, self.d_star + self.d1))

    def allowed(self, theta: tuple[int, ...], out: tuple[int, ...]) -> bool:
        """Whether ``out`` lies in θ's output space: supported in Γ̂* ∪ Supp(θ)."""
        return all(out[c] == 0 or theta[c] > 0 for c in range(self.d0, self.d_star))


def mechanism(
    spec: Support, kind: str, *, big_e: Fraction | None = None, interval: int | None = None
) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], FiniteMechanism]:
    """RR (``kind="rr"``, with ``big_e``) or QM (``kind="qm"``, with ``interval``) under misspecified support.

    Returns:
        ``(input histograms, output histograms, mechanism)``.

    Raises:
        InvalidParameter: for an unknown kind, E < 1, or a QM bin length outside the validity rule.
    """
    ins, outs = spec.inputs(), spec.outputs()
    rows = []
    if kind == "rr":
        if big_e is None or Fraction(big_e) < 1:
            raise InvalidParameter("big_e", big_e, "E = e^eps >= 1")
        big_e = Fraction(big_e)
        for th in ins:
            space = [j for j, u in enumerate(outs) if spec.allowed(th, u)]
            z = len(space) + big_e - 1
            row = [Fraction(0)] * len(outs)
            for j in space:
                row[j] = (big_e if outs[j] == th else Fraction(1)) / z
            rows.append(row)
    elif kind == "qm":
        if interval is None or not 1 <= interval <= spec.s or not qm_valid(spec.s, interval):
            raise InvalidParameter("I", interval, f"a bin length in [1, {spec.s}] meeting the QM validity rule")
        for th in ins:
            r = qm_median_index(th[0] // interval, interval)
            space = [j for j, u in enumerate(outs) if spec.allowed(th, u) and u[0] + 1 == r]
            if not space:  # only when Γ̂* ∪ Supp(θ) is the secret category alone (d̂₀ + d̂₁ = 1)
                raise InvalidParameter(
                    "d1", spec.d1, f"a setting where QM is defined (input {th} has no output with secret index {r})"
                )
            row = [Fraction(0)] * len(outs)
            for j in space:
                row[j] = Fraction(1, len(space))
            rows.append(row)
    else:
        raise InvalidParameter("kind", kind, "'rr' or 'qm'")
    labels_in = ["(" + ",".join(map(str, h)) + ")" for h in ins]
    labels_out = ["(" + ",".join(map(str, h)) + ")" for h in outs]
    mech = FiniteMechanism.from_rows(rows, [h[0] for h in ins], inputs=labels_in, outputs=labels_out)
    return ins, outs, mech


def _c(n: int, k: int) -> int:
    return math.comb(n, k)


def rr_sml_star_exp(spec: Support, big_e: Fraction) -> Fraction:
    """exp Π*_RR: the correctly specified RR with d = d* (Theorem V.4)."""
    return rr_sml_exp(spec.tau, spec.d_star, Fraction(big_e))


def qm_sml_star_exp(spec: Support, interval: int) -> int:
    """exp Π*_QM = ⌈s/I⌉."""
    return -(-spec.s // interval)


def rr_robust_condition(spec: Support, big_e: Fraction) -> bool:
    """Proposition V.3's condition for RR: E − 1 ≤ C(τ + d̂* − 1, d̂* − 1)/s."""
    return Fraction(big_e) - 1 <= Fraction(_c(spec.tau + spec.d_hat - 1, spec.d_hat - 1), spec.s)


def _nh_n1(spec: Support) -> tuple[int, int]:
    t, d0, d1, ds = spec.tau, spec.d0, spec.d1, spec.d_star
    return _c(t + d0 + d1 - 1, d0 + d1 - 1), _c(t + ds + d1 - 1, ds + d1 - 1)


def rr_upper_h4(spec: Support, big_e: Fraction) -> Fraction:
    """Proposition H.4, RR: exp Π_RR ≤ min{A, B} (exp form of the printed bound)."""
    e, s, n, t = Fraction(big_e), spec.s, spec.n_miss, spec.tau
    nh, n1 = _nh_n1(spec)
    a = s * (e - 1) / (nh + e - 1) + Fraction(n1) / (n1 + e - 1) * (1 + Fraction(t, t + spec.d_hat - 1)) ** n
    b = 1 + s - s * Fraction(spec.d_hat, t + spec.d_star + spec.d1 - 1) ** n / (1 + (e - 1) / n1)
    return min(a, b)


def qm_upper_h4(spec: Support, interval: int) -> Fraction | None:
    """Proposition H.4, QM: exp Π_QM ≤ min{⌈s/I⌉(1 + τ/(τ+d̂₀+d̂₁−2))^n, ⌈s/I⌉ + s − s((d̂₀+d̂₁−1)/(τ+d*+d̂₁−2))^n}.

    Returns ``None`` where a denominator vanishes (τ = 1 with d̂₀ + d̂₁ = 1: the bound is undefined).
    """
    t, s, n, b = spec.tau, spec.s, spec.n_miss, qm_sml_star_exp(spec, interval)
    if t + spec.d_hat - 2 == 0 or t + spec.d_star + spec.d1 - 2 == 0:
        return None
    first = b * (1 + Fraction(t, t + spec.d_hat - 2)) ** n
    second = b + s - s * Fraction(spec.d_hat - 1, t + spec.d_star + spec.d1 - 2) ** n
    return min(first, second)


def rr_lower_h5(spec: Support, big_e: Fraction) -> Fraction:
    """Proposition H.5, RR lower bound on exp Π_RR (log read as ⌊log₂ s⌋)."""
    e, s, n, t = Fraction(big_e), spec.s, spec.n_miss, spec.tau
    nh, n1 = _nh_n1(spec)
    if n >= s:
        z = n // s
        return s - (s - 1) * Fraction(spec.d_hat + z - 1, t + spec.d_hat) ** z
    k = min(n, s.bit_length() - 1)
    return (
        s * (e - 1) / (n1 + e - 1)
        + Fraction(nh) / (nh + e - 1) * (1 + Fraction(t - k, t + spec.d_star + spec.d1 - 1)) ** k
    )


def qm_lower_h5(spec: Support, interval: int) -> Fraction:
    """Proposition H.5, QM lower bound on exp Π_QM (log read as ⌊log₂ I⌋); the case n_miss ≥ I is an erratum."""
    t, s, n, i = spec.tau, spec.s, spec.n_miss, interval
    if n >= i:
        z = n // i
        ratio = Fraction(spec.d_hat + z - 2) / (Fraction(t * i, 2 * s) + spec.d_hat - 1)
        return s - (s - qm_sml_star_exp(spec, i)) * ratio**z
    k = min(n, i.bit_length() - 1)
    return (s // i) * (1 + Fraction(t * i - 2 * s * k, t * i + 2 * s * (spec.d_star + spec.d1 - 2))) ** k


def rr_distortion_bounds_hd(spec: Support, big_e: Fraction) -> tuple[Fraction, Fraction]:
    """Appendix H-D, RR: (D0−1)/(D0(1+r₁)) ≤ Δ_RR ≤ (D1−1)/(D1(1+r₂)), D0 = d̂₀+d̂₁, D1 = d*+d̂₁."""
    e, t = Fraction(big_e), spec.tau
    d0_, d1_ = spec.d_hat, spec.d_star + spec.d1
    r1 = (e - 1) / _c(t + d0_ - 1, d0_ - 1)
    r2 = (e - 1) / _c(t + d1_ - 1, d1_ - 1)
    return Fraction(d0_ - 1, d0_) / (1 + r1), Fraction(d1_ - 1, d1_) / (1 + r2)


def qm_distortion_bounds_hd(spec: Support, interval: int) -> tuple[Fraction, Fraction] | None:
    """Appendix H-D, QM (as printed; inherits the Theorem V.4 error): ½ + (D⌊I/2⌋ − τ)/(2τ(D−1)) at D0 and D1.

    Returns ``None`` when D0 = 1 (the lower bound divides by zero).
    """
    t, h = spec.tau, interval // 2
    d0_, d1_ = spec.d_hat, spec.d_star + spec.d1
    if d0_ < 2:
        return None
    lo = Fraction(1, 2) + Fraction(d0_ * h - t, 2 * t * (d0_ - 1))
    hi = Fraction(1, 2) + Fraction(d1_ * h - t, 2 * t * (d1_ - 1))
    return lo, hi
