"""Float evidence: an uncertified float64 twin of the engine's upper δ(ε), cheap enough to search with.

Nothing in this module is a proof, and nothing it returns is ever reported as a bound. It exists so that certified
work is spent only where it can succeed: :func:`dpcert.pld.accountant.calibrate_located` searches a parameter with
these estimates and then proves two points with the certified path.

**The twin.** For one direction at resolution n it builds, in float64, the same upper measure as
:func:`dpcert.pld.discretise.discretise` — the grid range of :meth:`~dpcert.pld.loss.PrivacyLoss.grid_range` for the
same tail, each cell's Q-mass m_i split between its two ends so that the cell's P-mass μ_i is kept (the chord split,
u_i = (μ_i − g_i m_i)/(g_{i+1} − g_i) at the top end), the mass below the grid moved up to its bottom point, and the
P-mass above the top point counted k times — and composes it k-fold by one float FFT. So it estimates the
certified upper end at that resolution (the certified path adds only its round-off bound and Chernoff tails, far
below the margins the calibration keeps), not the true δ: the caller learns the lower end's distance from a
certified probe.

**The composition.** The P-measure p_j = g_j·w_j of the loss (index j, loss j/n) is tilted, x_j ∝ p_j e^{τj/n} with
τ >= 0 chosen so that the tilted k-fold law has its mean at ε (so the tail δ depends on sits in the bulk, and a
float's absolute error is a relative one on δ), folded onto a window of 2^t cells around ε (± 10 tilted standard
deviations: what is left outside only aliases in, and is negligible there), raised to the k-th power in Fourier
space and untilted: δ(ε) ≈ Σ_{m > εn} M(τ)^k e^{−τm/n} y_m (1 − e^{ε − m/n}) + k·P(L >= L_max) + the infinite part
1 − (1 − p_∞)^k.

A direction's float survival masses come from ``survivals(loss, n, i_lo, i_hi)`` when the caller has a fast float
evaluation of its mechanism, else from the midpoints of :meth:`~dpcert.pld.loss.PrivacyLoss.survival_bounds`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from dpcert.pld.discretise import MAX_CELLS, GridTooLarge
from dpcert.pld.loss import PrivacyLoss

__all__ = ["Survivals", "upper_p_measure", "composed_delta", "delta_estimate"]

#: The type of ``survivals(loss, n, i_lo, i_hi)``, which gives float64 arrays (Q(L >= i/n), P_ac(L >= i/n)) for
#: i = i_lo … i_hi, or None when it has no float evaluation of that loss.
Survivals = Callable[[PrivacyLoss, int, int, int], "tuple[np.ndarray, np.ndarray] | None"]

#: Tilted standard deviations each side of ε that the window covers.
_WIDTH_SD = 10.0


def _midpoints(loss: PrivacyLoss, n: int, i_lo: int, i_hi: int) -> tuple[np.ndarray, np.ndarray]:
    sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, i_lo, i_hi)
    return (sq_lo + sq_hi) / 2, (sp_lo + sp_hi) / 2


def upper_p_measure(sq: np.ndarray, sp: np.ndarray, i_lo: int, n: int) -> tuple[np.ndarray, float]:
    """The chord split's upper measure as P-masses on the grid i_lo … i_hi (floats), and P(L >= L_max)."""
    sq = np.minimum(np.maximum(np.asarray(sq, dtype=float), 0.0), 1.0)
    sp = np.minimum(np.maximum(np.asarray(sp, dtype=float), 0.0), 1.0)
    g = np.exp((i_lo + np.arange(len(sq))) / n)
    m = np.maximum(sq[:-1] - sq[1:], 0.0)
    mu = np.maximum(sp[:-1] - sp[1:], 0.0)
    h = g[:-1] * math.expm1(1 / n)
    u = np.minimum(np.maximum((mu - g[:-1] * m) / h, 0.0), m)
    w = np.zeros(len(sq))
    w[:-1] += m - u
    w[1:] += u
    w[0] += max(0.0, 1.0 - float(sq[0]))
    return w * g, float(sp[-1])


def _tilted(logp: np.ndarray, idx: np.ndarray, tau: float) -> tuple[float, float, float]:
    """(log M(τ), mean index, variance) of the law ∝ p_j e^{τj/n} (idx = j/n)."""
    e = logp + tau * idx
    top = float(np.max(e))
    w = np.exp(e - top)
    s = float(np.sum(w))
    mean = float(np.sum(w * idx)) / s
    var = max(float(np.sum(w * (idx - mean) ** 2)) / s, 0.0)
    return top + math.log(s), mean, var


def _saddle(logp: np.ndarray, idx: np.ndarray, steps: int, eps: float) -> float:
    """τ >= 0 with k·E_τ[L] = ε (0 when the untilted mean is already past ε)."""
    if steps * _tilted(logp, idx, 0.0)[1] >= eps:
        return 0.0
    lo, hi = 0.0, 1.0
    while steps * _tilted(logp, idx, hi)[1] < eps:
        lo, hi = hi, hi * 2
        if hi > 1e6:
            return lo
    for _ in range(50):
        mid = (lo + hi) / 2
        if steps * _tilted(logp, idx, mid)[1] < eps:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-4 * hi:  # the tilt only decides where the floats are most accurate
            break
    return (lo + hi) / 2


def composed_delta(p: np.ndarray, i_lo: int, n: int, steps: int, eps: float) -> float:
    """Σ_{m > εn} (p^{∗k})_m (1 − e^{ε − m/n}) in floats, for a P-measure p on the indices i_lo, i_lo + 1, …"""
    length = len(p)
    if steps * (i_lo + length - 1) <= eps * n:  # the composed loss never exceeds ε on the grid
        return 0.0
    with np.errstate(divide="ignore"):
        logp = np.log(np.maximum(p, 0.0))
    idx = (i_lo + np.arange(length)) / n
    tau = _saddle(logp, idx, steps, eps)
    log_m, mean, var = _tilted(logp, idx, tau)
    x = np.exp(logp + tau * idx - log_m)
    full = steps * (length - 1) + 1
    centre = steps * (mean * n - i_lo)  # the tilted composed mean, relative to the first composed index
    span = 2 * _WIDTH_SD * math.sqrt(steps * var) * n + 64
    size = 1 << max(4, math.ceil(math.log2(min(span, full))))
    start = 0 if full <= size else min(max(0, round(centre - size / 2)), full - size)
    folded = x if length <= size else np.bincount(np.arange(length) % size, weights=x, minlength=size)
    spec = np.fft.rfft(folded, size)
    with np.errstate(all="ignore"):
        # the k-th power as exp(k·log z), only where it is not below e^-800 (the tilted law's characteristic
        # function, raised to the k-th power, is negligible away from the low frequencies)
        logz = np.log(spec)
        live = steps * logz.real > -800
        power = np.zeros_like(spec)
        power[live] = np.exp(steps * logz[live])
        y = np.fft.irfft(power, size)
    y = np.roll(y, -(start % size))
    m = steps * i_lo + start + np.arange(size)
    sel = m > eps * n
    if not np.any(sel):
        return 0.0
    ys, ms = np.maximum(y[sel], 0.0), m[sel] / n
    with np.errstate(divide="ignore"):
        logt = steps * log_m - tau * ms + np.log(ys)
    top = float(np.max(logt))
    if not math.isfinite(top):
        return 0.0
    return math.exp(top) * float(np.sum(np.exp(logt - top) * -np.expm1(eps - ms)))


def delta_estimate(
    losses: Sequence[PrivacyLoss],
    steps: int,
    n: int,
    tail: float,
    eps: float,
    survivals: Survivals | None = None,
) -> float:
    """A float estimate of the certified upper end of max over directions of δ_k(ε) at resolution n, each
    direction on the grid :func:`dpcert.pld.accountant.compose_directions` builds for ``tail`` (evidence only).

    Raises:
        GridTooLarge: a direction's grid does not fit :data:`~dpcert.pld.discretise.MAX_CELLS`.
    """
    worst = 0.0
    for loss in losses:
        i_lo, i_hi = loss.grid_range(n, max(tail / steps, 1e-320))
        if i_hi - i_lo > MAX_CELLS:
            raise GridTooLarge(n, i_hi - i_lo)
        got = survivals(loss, n, i_lo, i_hi) if survivals is not None else None
        sq, sp = got if got is not None else _midpoints(loss, n, i_lo, i_hi)
        p, top = upper_p_measure(sq, sp, i_lo, n)
        d = composed_delta(p, i_lo, n, steps, eps) + steps * top
        inf = float(loss.infinite_mass())
        if inf > 0:
            d += -math.expm1(steps * math.log1p(-inf))
        worst = max(worst, d)
    return worst
