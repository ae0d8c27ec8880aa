"""Float64 survival masses of DP-SGD's privacy losses, vectorised: evidence for the calibration's search only.

:func:`survivals` evaluates Q(L >= i/n) and P(L >= i/n) on a whole grid at once: the remove and add directions of
the Poisson-subsampled Gaussian by :func:`dpcert.gaussian.sgm_loss.log_survivals` (the one float implementation,
which also chooses that loss's grid ranges), the mirror pair and the symmetrised pair of
:mod:`dpcert.gaussian.sampling` by their formulas here, in float64 through ``log_ndtr``. The
certified masses are Arb's balls in those modules; these floats only feed :func:`dpcert.pld.estimate.delta_estimate`,
which decides where the certified probes of :func:`dpcert.pld.accountant.calibrate_located` go. A loss it does not
know, or a float result that is not finite, gives ``None`` (the engine then reads the certified bounds' midpoints).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpcert.gaussian.sampling import MirrorLoss, SymmetrisedLoss
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss, log_survivals
from dpcert.pld.loss import PrivacyLoss

__all__ = ["survivals"]


def _log_mix(l1: np.ndarray, l2: np.ndarray, q: float) -> np.ndarray:
    """log((1 − q)e^{l1} + q e^{l2})."""
    with np.errstate(divide="ignore"):
        a = (math.log1p(-q) if q < 1 else -math.inf) + l1
        return np.logaddexp(a, math.log(q) + l2)


def _sgm(direction: str, q: float, s: float, lv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):
        lq, lp = log_survivals(direction, q, s, lv)
    return np.exp(lq), np.exp(lp)


def _mirror(q: float, s: float, lv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = math.exp(-1 / (2 * s * s))
    with np.errstate(all="ignore"):
        el = np.exp(lv)
        b = (1 - q) * -np.expm1(lv)
        root = np.sqrt(b * b + 4 * q * q * a * a * el)
        z = np.where(lv >= 0, (-b + root) / (2 * q * a), 2 * q * a * el / (b + root))
        x = s * s * np.log(z)
        lq = _log_mix(special.log_ndtr(-x / s), special.log_ndtr(-(x + 1) / s), q)
        lp = _log_mix(special.log_ndtr(-x / s), special.log_ndtr(-(x - 1) / s), q)
    return np.exp(lq), np.exp(lp)


def _floats(loss: PrivacyLoss, n: int, i_lo: int, i_hi: int) -> tuple[np.ndarray, np.ndarray] | None:
    lv = np.arange(i_lo, i_hi + 1) / n
    if isinstance(loss, SubsampledGaussianLoss):
        return _sgm(loss.name, float(loss.q), float(loss.sigma), lv)
    if isinstance(loss, MirrorLoss):
        return _mirror(float(loss.q), float(loss.sigma), lv)
    if isinstance(loss, SymmetrisedLoss):
        top = max(i_hi, -i_lo, 1)
        base = _floats(loss.base, n, 0, top)
        if base is None:
            return None
        bq, bp = base
        i = np.arange(i_lo, i_hi + 1)
        pos = i > 0
        j = np.abs(i)
        return np.where(pos, bq[j], 1 - bp[j]), np.where(pos, bp[j], 1 - bq[j])
    return None


def survivals(loss: PrivacyLoss, n: int, i_lo: int, i_hi: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Float64 (Q(L >= i/n), P(L >= i/n)) for i = i_lo … i_hi of a DP-SGD loss, or None (an unknown loss, or a
    value that is not finite). Evidence only (:mod:`dpcert.pld.estimate`)."""
    got = _floats(loss, n, i_lo, i_hi)
    if got is None or not (np.all(np.isfinite(got[0])) and np.all(np.isfinite(got[1]))):
        return None
    return got
