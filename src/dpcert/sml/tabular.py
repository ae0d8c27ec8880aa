"""Tabular mechanisms of §V: randomized response (RR) and the quantization mechanism (QM), exactly.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

Model (correctly specified support). A parameter θ is a histogram of precision τ over d
categories: θ = (a_1, …, a_d)/τ with nonnegative integers summing to τ, so |Θ| = |Θ'| = N = C(τ+d−1, d−1)
(an exact big integer: 19,250 digits at the Adult parameters). The secret is the fraction of category 1,
g = a_1/τ, with s = τ + 1 values.

* **RR** (§V-A): keep θ with weight E = e^ε, move to each other θ' with weight 1, normalised by N + E − 1.
  exp Π_RR = (N + s(E−1))/(N + E − 1) and Δ_RR = (d−1)N/(d(N + E − 1)) (Theorem V.4).
* **QM** (§V-B): bins of I consecutive secret values; θ in bin k is released as a uniform θ' whose secret is
  g_{R(k)}, R(k) = ⌊(k + ½)I⌋ + 1. QM is defined only when every R(k) ≤ s, i.e. (s = qI + ρ, 0 ≤ ρ < I)
  **ρ = 0 or ρ > ⌊I/2⌋** (the validity rule, docs/derivations/sml.md#tabular-mechanisms; the paper is silent). exp Π_QM
  = ⌈s/I⌉.

**Erratum (Theorem V.4, QM distortion).** The paper prints Δ_QM = ½ + (d⌊I/2⌋ − τ)/(2τ(d−1)). The exact value is

    Δ_QM = 1 − (τ − ⌊I/2⌋)/(τ(d−1))  =  (τ(d−2) + ⌊I/2⌋)/(τ(d−1)),

attained at a point mass on a non-secret category: the output has a'_1 = ⌊I/2⌋ and is otherwise uniform over the
compositions of τ − ⌊I/2⌋ into d − 1 parts, so E[TV] = 1 − E[a'_2]/τ = 1 − (τ−⌊I/2⌋)/(τ(d−1)). The two agree iff
d = 2 (or ⌊I/2⌋ = τ); e.g. τ = 4, d = 3, I = 3: exact 5/8, printed 7/16. The brute force of
:func:`distortion_brute_force` on the kernels of :func:`qm_mechanism` confirms the exact form on every small
instance (tests/sml). With it, "QM beats RR at equal SML" holds iff d⌊I/2⌋/τ + (d−1)²(B−1)/(s−1) ≤ 1
(:func:`qm_beats_rr`), which fails at the Adult parameters for every valid I.

References:
    Wang–Lin–Fanti, §V, Theorem V.4, Appendix F, Figure 5 [WLF24]; docs/derivations/sml.md#tabular-mechanisms.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import FiniteMechanism

__all__ = [
    "compositions",
    "num_histograms",
    "num_secrets",
    "qm_valid",
    "check_qm",
    "qm_median_index",
    "qm_sml_exp",
    "qm_distortion",
    "qm_distortion_printed",
    "rr_sml_exp",
    "rr_distortion",
    "rr_sml_inf_exp",
    "rr_E_for_sml_exp",
    "rr_distortion_at_sml_exp",
    "qm_beats_rr",
    "qm_beats_rr_rule",
    "rr_mechanism",
    "qm_mechanism",
    "distortion_brute_force",
    "Fig5Point",
    "figure5_points",
    "ADULT_TAU",
    "ADULT_D",
]

#: The Adult setting of §VI (τ = n = 48,842 records, d = 22,381 attribute combinations).
ADULT_TAU = 48_842
ADULT_D = 22_381


def _check_td(tau: int, d: int) -> None:
    if isinstance(tau, bool) or not isinstance(tau, int) or tau < 1:
        raise InvalidParameter("tau", tau, "an integer >= 1 (the precision of the histograms)")
    if isinstance(d, bool) or not isinstance(d, int) or d < 2:
        raise InvalidParameter("d", d, "an integer >= 2 (the number of categories)")


def compositions(tau: int, d: int) -> Iterator[tuple[int, ...]]:
    """All histograms (a_1, …, a_d), a_i ≥ 0, Σ a_i = τ, in lexicographic order (θ = a/τ)."""
    if d == 1:
        yield (tau,)
        return
    for a in range(tau + 1):
        for rest in compositions(tau - a, d - 1):
            yield (a, *rest)


@lru_cache(maxsize=64)
def num_histograms(tau: int, d: int) -> int:
    """N = |Θ| = C(τ+d−1, d−1), exactly."""
    _check_td(tau, d)
    return math.comb(tau + d - 1, d - 1)


def num_secrets(tau: int) -> int:
    """s = τ + 1 values of the fraction-of-a-category secret."""
    return tau + 1


def qm_median_index(k: int, interval: int) -> int:
    """R(k) = ⌊(k + ½)I⌋ + 1, the 1-based index of the released secret value of bin k."""
    return (2 * k + 1) * interval // 2 + 1


def qm_valid(s: int, interval: int) -> bool:
    """Whether QM with bin length I is defined for s secret values: every R(k) ≤ s (ρ = 0 or ρ > ⌊I/2⌋)."""
    rho = s % interval
    return rho == 0 or rho > interval // 2


def check_qm(tau: int, d: int, interval: int) -> None:
    """Validate QM parameters.

    Raises:
        InvalidParameter: naming ``tau``, ``d`` or ``I`` (I outside [1, s] or breaking the validity rule).
    """
    _check_td(tau, d)
    s = num_secrets(tau)
    if isinstance(interval, bool) or not isinstance(interval, int) or not 1 <= interval <= s:
        raise InvalidParameter("I", interval, f"an integer bin length in [1, s] = [1, {s}]")
    if not qm_valid(s, interval):
        rho = s % interval
        raise InvalidParameter(
            "I",
            interval,
            f"a bin length satisfying the QM validity rule s mod I = 0 or s mod I > floor(I/2) "
            f"(s = {s}: s mod I = {rho} <= {interval // 2}, so the last bin's median R = "
            f"{qm_median_index(s // interval, interval)} exceeds s)",
        )


def qm_sml_exp(tau: int, d: int, interval: int) -> int:
    """exp Π_QM = ⌈s/I⌉ (Theorem V.4; any secret function, given validity).

    Raises:
        InvalidParameter: see :func:`check_qm`.

    References:
        Wang–Lin–Fanti, Theorem V.4 [WLF24]; docs/derivations/sml.md#mechanisms-of-the-secret-alone.
    """
    check_qm(tau, d, interval)
    return -(-num_secrets(tau) // interval)


def qm_distortion(tau: int, d: int, interval: int) -> Fraction:
    """The exact QM distortion Δ_QM = 1 − (τ − ⌊I/2⌋)/(τ(d−1)) (corrects Theorem V.4 for d ≥ 3).

    Raises:
        InvalidParameter: see :func:`check_qm`.

    References:
        Wang–Lin–Fanti, Theorem V.4 and Appendix F [WLF24] (erratum, module docstring).
    """
    check_qm(tau, d, interval)
    return 1 - Fraction(tau - interval // 2, tau * (d - 1))


def qm_distortion_printed(tau: int, d: int, interval: int) -> Fraction:
    """Δ_QM as printed in Theorem V.4: ½ + (d⌊I/2⌋ − τ)/(2τ(d−1)) (wrong for d ≥ 3; kept to reproduce Fig. 5)."""
    check_qm(tau, d, interval)
    return Fraction(1, 2) + Fraction(d * (interval // 2) - tau, 2 * tau * (d - 1))


def _check_e(big_e: Fraction) -> Fraction:
    big_e = Fraction(big_e)
    if big_e < 1:
        raise InvalidParameter("E", big_e, "E = e^eps >= 1")
    return big_e


def rr_sml_exp(tau: int, d: int, big_e: Fraction) -> Fraction:
    """exp Π_RR = (N + s(E−1))/(N + E − 1), E = e^ε given as an exact rational (Theorem V.4)."""
    big_e = _check_e(big_e)
    n = num_histograms(tau, d)
    return (n + num_secrets(tau) * (big_e - 1)) / (n + big_e - 1)


def rr_distortion(tau: int, d: int, big_e: Fraction) -> Fraction:
    """Δ_RR = (d−1)N/(d(N + E − 1)) (Theorem V.4; it does not depend on the secret)."""
    big_e = _check_e(big_e)
    n = num_histograms(tau, d)
    return Fraction((d - 1) * n) / (d * (n + big_e - 1))


def rr_sml_inf_exp(tau: int, d: int, big_e: Fraction) -> Fraction:
    """exp Π^inf_RR = 1 + (E−1)/N (Appendix K [WLF24]; docs/derivations/sml.md#randomized-response-and-ldp)."""
    big_e = _check_e(big_e)
    return 1 + (big_e - 1) / num_histograms(tau, d)


def rr_E_for_sml_exp(tau: int, d: int, b: Fraction) -> Fraction:
    """The E = e^ε at which exp Π_RR = B: E = 1 + N(B−1)/(s−B), for 1 ≤ B < s (inverse of Theorem V.4)."""
    s = num_secrets(tau)
    b = Fraction(b)
    if not 1 <= b < s:
        raise InvalidParameter("B", b, f"an exp-SML level in [1, s) = [1, {s})")
    return 1 + num_histograms(tau, d) * (b - 1) / (s - b)


def rr_distortion_at_sml_exp(tau: int, d: int, b: Fraction) -> Fraction:
    """Δ_RR at the ε with exp Π_RR = B: (d−1)(s−B)/(d(s−1)) (N cancels; docs/derivations/sml.md#tabular-mechanisms)."""
    _check_td(tau, d)
    s = num_secrets(tau)
    b = Fraction(b)
    if not 1 <= b < s:
        raise InvalidParameter("B", b, f"an exp-SML level in [1, s) = [1, {s})")
    return Fraction(d - 1, d) * (s - b) / (s - 1)


def qm_beats_rr(tau: int, d: int, interval: int, *, printed: bool = False) -> bool:
    """Whether Δ_QM ≤ Δ_RR at equal SML (RR tuned to exp Π = ⌈s/I⌉ < s), by exact comparison.

    Args:
        printed: use the paper's Δ_QM instead of the exact one.
    """
    b = qm_sml_exp(tau, d, interval)
    qm = qm_distortion_printed(tau, d, interval) if printed else qm_distortion(tau, d, interval)
    return qm <= rr_distortion_at_sml_exp(tau, d, b)


def qm_beats_rr_rule(tau: int, d: int, interval: int) -> bool:
    """The closed rule d⌊I/2⌋/τ + (d−1)²(B−1)/(s−1) ≤ 1 for Δ_QM ≤ Δ_RR at equal SML
    (docs/derivations/sml.md#tabular-mechanisms).

    Derivation: multiply Δ_QM ≤ Δ_RR, with Δ_RR = (d−1)(s−B)/(d(s−1)), by d(d−1) > 0; both sides contain
    d² − 2d, which cancels. Checked against :func:`qm_beats_rr` in the tests.
    """
    b = qm_sml_exp(tau, d, interval)
    s = num_secrets(tau)
    return Fraction(d * (interval // 2), tau) + Fraction((d - 1) ** 2 * (b - 1), s - 1) <= 1


def _hist_label(a: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, a)) + ")"


def rr_mechanism(tau: int, d: int, big_e: Fraction) -> tuple[list[tuple[int, ...]], FiniteMechanism]:
    """The RR kernel on all histograms (small τ, d only), secret = a_1/τ.

    Returns:
        ``(histograms, mechanism)`` with rows and columns in the order of ``histograms``.
    """
    big_e = _check_e(big_e)
    hs = list(compositions(tau, d))
    n = len(hs)
    z = n + big_e - 1
    rows = [[big_e / z if j == i else 1 / z for j in range(n)] for i in range(n)]
    labels = [_hist_label(h) for h in hs]
    return hs, FiniteMechanism.from_rows(rows, [h[0] for h in hs], inputs=labels, outputs=labels)


def qm_mechanism(tau: int, d: int, interval: int) -> tuple[list[tuple[int, ...]], FiniteMechanism]:
    """The QM kernel on all histograms (small τ, d only): bin k → uniform over θ' with a'_1 + 1 = R(k).

    Raises:
        InvalidParameter: see :func:`check_qm`.
    """
    check_qm(tau, d, interval)
    hs = list(compositions(tau, d))
    rows = []
    for h in hs:
        r = qm_median_index(h[0] // interval, interval)
        targets = [j for j, u in enumerate(hs) if u[0] + 1 == r]
        w = Fraction(1, len(targets))
        row = [Fraction(0)] * len(hs)
        for j in targets:
            row[j] = w
        rows.append(row)
    labels = [_hist_label(h) for h in hs]
    return hs, FiniteMechanism.from_rows(rows, [h[0] for h in hs], inputs=labels, outputs=labels)


def distortion_brute_force(
    hists: list[tuple[int, ...]],
    mech: FiniteMechanism,
    tau: int,
    out_hists: list[tuple[int, ...]] | None = None,
) -> Fraction:
    """Δ = max_θ E_{θ'~ℳ(θ)} TV(θ, θ') by enumeration (Lemma III.1: the worst prior is a point mass).

    Args:
        hists: the histogram of each row (input θ), as counts summing to τ.
        mech: the mechanism.
        tau: the precision.
        out_hists: the histogram of each column (default: ``hists``, i.e. Θ' = Θ), same number of categories.

    References:
        Wang–Lin–Fanti [WLF24], Eq. (1) and Lemma III.1.
    """
    outs = hists if out_hists is None else out_hists
    best = Fraction(0)
    for i, h in enumerate(hists):
        acc = Fraction(0)
        for j, p in enumerate(mech.rows[i]):
            if p:
                acc += p * sum(abs(a - b) for a, b in zip(h, outs[j], strict=True))
        best = max(best, acc / (2 * tau))
    return best


@dataclass(frozen=True)
class Fig5Point:
    """One point of Figure 5: QM with bin length I and RR tuned to the same SML.

    Attributes:
        interval: I. bins: B = ⌈s/I⌉ = exp Π (SML = log B).
        qm_exact, qm_printed: Δ_QM exact and as printed in Theorem V.4.
        rr: Δ_RR at exp Π_RR = B.
    """

    interval: int
    bins: int
    qm_exact: Fraction
    qm_printed: Fraction
    rr: Fraction


def figure5_points(tau: int = ADULT_TAU, d: int = ADULT_D) -> list[Fig5Point]:
    """Every Figure 5 point: all valid I with B = ⌈s/I⌉ < s (RR cannot reach exp Π = s), exactly.

    References:
        Wang–Lin–Fanti, Figure 5 and Theorem V.4 [WLF24]; docs/derivations/sml.md#tabular-mechanisms.
    """
    _check_td(tau, d)
    s = num_secrets(tau)
    # one Fraction per value (each normalised once): exact QM = (τ(d−2) + h)/(τ(d−1)); printed QM =
    # (τ(d−2) + d·h)/(2τ(d−1)); RR at exp Π = B: (d−1)(s−B)/(d(s−1))
    den_qm, den_rr = tau * (d - 1), d * (s - 1)
    out = []
    for interval in range(2, s + 1):
        rho = s % interval
        if rho and rho <= interval // 2:
            continue
        h, b = interval // 2, -(-s // interval)
        out.append(
            Fig5Point(
                interval,
                b,
                Fraction(tau * (d - 2) + h, den_qm),
                Fraction(tau * (d - 2) + d * h, 2 * den_qm),
                Fraction((d - 1) * (s - b), den_rr),
            )
        )
    return out
