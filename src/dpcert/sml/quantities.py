"""Named quantities of the tabular mechanisms: SML (nats and bits) and distortion of RR and QM (Theorem V.4).

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

* ``sml.rr.sml``, ``sml.rr.sml_bits``, ``sml.rr.distortion`` (inputs ``tau, d, eps``): with N = C(τ+d−1, d−1)
  an exact big integer, r = (e^ε − 1)/N, Π_RR = log1p((s−1)·r/(1+r)) and Δ_RR = (d−1)/(d(1+r)). ε = 0 gives the
  exact values 0 and (d−1)/d; otherwise e^ε is transcendental and the result is an arb ball.
* ``sml.qm.sml``, ``sml.qm.sml_bits`` (inputs ``tau, d, I``): log⌈s/I⌉, exact 0 for one bin and exact integers in
  bits for powers of two; ``sml.qm.distortion``: the exact Fraction 1 − (τ−⌊I/2⌋)/(τ(d−1)) (the corrected
  Theorem V.4; the printed form is the erratum claim ``sml.thm_v4.qm_distortion_printed``). QM inputs outside the
  validity rule raise InvalidParameter naming ``I``.

The float evaluators are independent float64 code: RR works in the log domain with ``lgamma`` for log N (e^ε
overflows float64 at the Adult setting, ε ≈ 44,320) and never forms N; the QM SML takes ``math.log`` of the
integer ⌈s/I⌉. ``sml.qm.distortion`` is exact-only (a rational for every input; tested against brute force).

References:
    Wang–Lin–Fanti, Theorem V.4, §V-A, §V-B [WLF24]; docs/derivations/sml.md#tabular-mechanisms.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import ball
from dpcert.arith.exact import Exact
from dpcert.core.params import integer, real
from dpcert.core.quantity import Quantity
from dpcert.sml.tabular import check_qm, num_histograms, num_secrets, qm_distortion, qm_sml_exp

__all__ = ["QUANTITIES"]

_REF = "Wang–Lin–Fanti, Statistic Maximal Leakage, Theorem V.4"
#: Magnitude caps: N = C(τ+d−1, d−1) is formed exactly (about 2·10^6 bits at the caps).
TAU_MAX = 1_000_000
D_MAX = 1_000_000

_TAU = integer("tau", 1, TAU_MAX, doc="histogram precision tau (every mass a multiple of 1/tau)")
_D = integer("d", 2, D_MAX, doc="number of categories d")
_EPS = real("eps", 0, 10**5, doc="randomized-response parameter eps (nats)")
_I = integer("I", 1, TAU_MAX + 1, doc="QM bin length I (1 <= I <= s = tau + 1, validity rule)")


def _rr_r(tau: int, d: int, eps: Exact) -> arb:
    return ball(eps).expm1() / ball(num_histograms(tau, d))


def _rr_sml_ball(ctx: Any, tau: int, d: int, eps: Exact) -> arb | Fraction:
    if eps.value == 0:
        return Fraction(0)
    r = _rr_r(tau, d, eps)
    return ((num_secrets(tau) - 1) * r / (1 + r)).log1p()


def _rr_sml_bits_ball(ctx: Any, tau: int, d: int, eps: Exact) -> arb | Fraction:
    v = _rr_sml_ball(ctx, tau, d, eps)
    return v if isinstance(v, Fraction) else v / arb(2).log()


def _rr_distortion_ball(ctx: Any, tau: int, d: int, eps: Exact) -> arb | Fraction:
    if eps.value == 0:
        return Fraction(d - 1, d)
    return ball(Fraction(d - 1, d)) / (1 + _rr_r(tau, d, eps))


def _log_r_float(tau: int, d: int, eps: Exact) -> float:
    """log r = log(e^ε − 1) − log N in float64, never forming e^ε or N."""
    e = float(eps.value)
    log_expm1 = math.log(math.expm1(e)) if e < 30 else e + math.log1p(-math.exp(-e))
    log_n = math.lgamma(tau + d) - math.lgamma(tau + 1) - math.lgamma(d)
    return log_expm1 - log_n


def _log1p_exp(x: float) -> float:
    """log(1 + e^x) without overflow."""
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _rr_sml_float(tau: int, d: int, eps: Exact) -> float:
    if eps.value == 0:
        return 0.0
    lr = _log_r_float(tau, d, eps)
    return math.log1p(tau * math.exp(lr - _log1p_exp(lr)))


def _rr_sml_bits_float(tau: int, d: int, eps: Exact) -> float:
    return _rr_sml_float(tau, d, eps) / math.log(2)


def _rr_distortion_float(tau: int, d: int, eps: Exact) -> float:
    if eps.value == 0:
        return (d - 1) / d
    return (1 - 1 / d) * math.exp(-_log1p_exp(_log_r_float(tau, d, eps)))


def _qm_sml_ball(ctx: Any, tau: int, d: int, I: int) -> arb | Fraction:  # noqa: N803 (the paper's I)
    b = qm_sml_exp(tau, d, I)
    return Fraction(0) if b == 1 else ball(b).log()


def _qm_sml_bits_ball(ctx: Any, tau: int, d: int, I: int) -> arb | Fraction:  # noqa: N803
    b = qm_sml_exp(tau, d, I)
    if b & (b - 1) == 0:
        return Fraction(b.bit_length() - 1)
    return ball(b).log() / arb(2).log()


def _qm_bins_float(tau: int, d: int, I: int) -> int:  # noqa: N803
    check_qm(tau, d, I)
    return math.ceil((tau + 1) / I) if tau < 2**52 else -(-(tau + 1) // I)


def _qm_sml_float(tau: int, d: int, I: int) -> float:  # noqa: N803
    return math.log(_qm_bins_float(tau, d, I))


def _qm_sml_bits_float(tau: int, d: int, I: int) -> float:  # noqa: N803
    return math.log2(_qm_bins_float(tau, d, I))


def _qm_distortion_ball(ctx: Any, tau: int, d: int, I: int) -> Fraction:  # noqa: N803
    return qm_distortion(tau, d, I)


QUANTITIES: list[Quantity] = [
    Quantity(
        "sml.rr.sml",
        (_TAU, _D, _EPS),
        _rr_sml_ball,
        f"{_REF} (RR privacy)",
        "SML of randomized response over histograms, nats: log((N + s(e^eps-1))/(N + e^eps - 1))",
        float=_rr_sml_float,
        float_rtol=1e-9,
    ),
    Quantity(
        "sml.rr.sml_bits",
        (_TAU, _D, _EPS),
        _rr_sml_bits_ball,
        f"{_REF} (RR privacy)",
        "SML of randomized response over histograms, bits",
        float=_rr_sml_bits_float,
        float_rtol=1e-9,
    ),
    Quantity(
        "sml.rr.distortion",
        (_TAU, _D, _EPS),
        _rr_distortion_ball,
        f"{_REF} (RR distortion)",
        "worst-case expected TV distortion of randomized response: (d-1)N/(d(N + e^eps - 1))",
        float=_rr_distortion_float,
        float_rtol=1e-9,
    ),
    Quantity(
        "sml.qm.sml",
        (_TAU, _D, _I),
        _qm_sml_ball,
        f"{_REF} (QM privacy)",
        "SML of the quantization mechanism, nats: log ceil(s/I)",
        float=_qm_sml_float,
    ),
    Quantity(
        "sml.qm.sml_bits",
        (_TAU, _D, _I),
        _qm_sml_bits_ball,
        f"{_REF} (QM privacy)",
        "SML of the quantization mechanism, bits: log2 ceil(s/I)",
        float=_qm_sml_bits_float,
    ),
    Quantity(
        "sml.qm.distortion",
        (_TAU, _D, _I),
        _qm_distortion_ball,
        f"{_REF} (QM distortion, corrected: the printed form is wrong for d >= 3)",
        "exact worst-case distortion of the quantization mechanism: 1 - (tau - floor(I/2))/(tau(d-1))",
        exact=True,
    ),
]
