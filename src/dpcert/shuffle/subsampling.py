"""Poisson subsampling of an RDP mechanism (Zhu–Wang 2019 [ZW19], general upper bound), applied to the shuffle bounds.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

For a mechanism with RDP ε(ℓ) at every integer order ℓ >= 2, run on a Poisson subsample (each record kept
independently with probability γ), for integer α >= 2::

    ε_γ(α) <= (1/(α−1)) log[ (1−γ)^{α−1}(αγ − γ + 1) + C(α,2) γ² (1−γ)^{α−2} e^{ε(2)}
                              + 3 Σ_{ℓ=3}^{α} C(α,ℓ) (1−γ)^{α−ℓ} γ^ℓ e^{(ℓ−1) ε(ℓ)} ].

Source check: it is exactly what autodp's ``rdp_acct.general_upperbound``
computes (read in yuxiangw/autodp at commit 06489ea, and in the PyPI release 0.2.3.1), whose docstring calls it "the
upper bound in theorem 1 in 2019 ICML" (the reproduction script ``papers/ICML18-PoissonSampling/eps.py`` labels the
same curve "via general upper bound (Theorem 1)"). The code writes it as
log[3 e^{−ε(α)}(1−γ+γe^{ε(α)})^α + (1−γ)^α − (correction terms)] and, for α > 51, replaces ε(ℓ) by ε(α) for ℓ > 50
(a looser bound); expanding its terms gives the formula above term by term (the test compares the two). We could not
retrieve the paper's text itself, so the theorem number rests on the code's docstring.

Inside the log, the binomial weights of ℓ >= 2 sum to 1 − (1−γ)^{α−1}(1+(α−1)γ), so the excess over 1 is the sum of
positive terms C(α,2)γ²(1−γ)^{α−2} expm1(ε(2)) + Σ_{ℓ>=3} C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓ (3e^{(ℓ−1)ε(ℓ)} − 1), evaluated
without cancellation (then log1p).

Caveats the paper's Fig. 5 inherits (docs/derivations/shuffle.md#readings-of-the-figures): Zhu–Wang [ZW19] is for
add/remove
neighbours (autodp refuses replace-one
mechanisms for Poisson sampling), while the shuffle bounds are for replacement neighbours with a fixed number n of
clients; under Poisson sampling the number of shuffled clients is random, Bin(N, γ). The paper calls its use "a
simplistic combination" and does not say which n it plugs in. The quantity here is a certified evaluation of the
formula with the shuffle bound of Theorem 1 at a given n (the caller picks n, e.g. γN); as a privacy guarantee it is
only as good as that combination.

References:
    Y. Zhu, Y.-X. Wang, "Poisson Subsampled Rényi Differential Privacy", ICML 2019, general upper bound (autodp
    ``rdp_acct.general_upperbound``); Girgis et al. (CCS 2021) §4, Fig. 5 [GDDSK21; ZW19].
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from dpcert.arith.ball import ball
from dpcert.arith.exact import Exact, to_fraction
from dpcert.shuffle import bounds
from dpcert.shuffle._floats import log_pos

__all__ = [
    "zw19_ball",
    "zw19_float",
    "poisson_thm1_ball",
    "poisson_thm1_float",
    "poisson_curve_float",
    "poisson_dp_eps",
]


def zw19_ball(alpha: int, gamma: Fraction, eps_at: Any) -> arb | Fraction:
    """Zhu–Wang [ZW19]'s general upper bound in balls, from a map ℓ ↦ ball of the base mechanism's ε(ℓ), ℓ = 2..α.

    Args:
        alpha: integer order α >= 2.
        gamma: sampling probability in [0, 1] (exact).
        eps_at: callable returning an upper bound (ball) on the base RDP at integer order ℓ.

    Returns:
        The bound (an exact 0 when γ = 0).

    References:
        Zhu–Wang ICML 2019 [ZW19], general upper bound (autodp ``rdp_acct.general_upperbound``).
    """
    if gamma == 0:
        return Fraction(0)
    g, h = ball(gamma), ball(1 - gamma)
    excess = ball(Fraction(alpha * (alpha - 1), 2)) * g**2 * h ** (alpha - 2) * eps_at(2).expm1()
    binom = Fraction(alpha * (alpha - 1), 2)
    for ell in range(3, alpha + 1):
        binom = binom * (alpha - ell + 1) / ell
        weight = ball(binom) * g**ell * h ** (alpha - ell)
        excess += weight * (3 * ((ell - 1) * eps_at(ell)).exp() - 1)
    return excess.log1p() / (alpha - 1)


def zw19_float(alpha: int, gamma: float, eps: np.ndarray) -> float:
    """Zhu–Wang [ZW19]'s general upper bound in float64 (log-space), from ``eps[ℓ-2]`` = ε(ℓ), ℓ = 2..α (evidence).

    References:
        Zhu–Wang ICML 2019 [ZW19], general upper bound (autodp ``rdp_acct.general_upperbound``).
    """
    from scipy.special import gammaln, logsumexp  # imported on use: `dpcert --help` must not load scipy

    if gamma == 0:
        return 0.0
    ell = np.arange(2, alpha + 1, dtype=np.float64)
    log_w = gammaln(alpha + 1) - gammaln(ell + 1) - gammaln(alpha - ell + 1) + ell * math.log(gamma)
    if gamma < 1:
        log_w += (alpha - ell) * math.log1p(-gamma)
    else:
        log_w = np.where(ell == alpha, log_w, -np.inf)
    x = (ell - 1) * np.asarray(eps, dtype=np.float64)
    # log(3e^x − 1) = x + log(3 − e^{−x}) for ℓ >= 3; log(expm1(x)) = x + log1p(−e^{−x}) for ℓ = 2 (x >= 0)
    with np.errstate(divide="ignore"):
        log_f = x + np.where(ell == 2, np.log1p(-np.exp(-x)), np.log(3 - np.exp(-x)))
    return float(np.logaddexp(0.0, logsumexp(log_w + log_f)) / (alpha - 1))


def poisson_thm1_ball(ctx: Any, n: int, eps0: Exact, lam: int, gamma: Exact) -> arb | Fraction:
    """Zhu–Wang [ZW19]'s bound with Theorem 1 (eq. 6) at n clients as the base RDP, certified.

    References:
        Zhu–Wang ICML 2019 [ZW19] (general upper bound) with Girgis et al. [GDDSK21] (CCS 2021) Theorem 1, as in their
        Fig. 5.
    """
    return zw19_ball(lam, to_fraction(gamma), lambda ell: bounds.thm1_ball(ctx, n, eps0, ell))


def poisson_thm1_float(n: int, eps0: Any, lam: int, gamma: Any) -> float:
    """float64 twin of :func:`poisson_thm1_ball` (vectorised Theorem 1, log-space sum; evidence)."""
    ells = np.arange(2, int(lam) + 1, dtype=np.float64)
    return zw19_float(int(lam), float(gamma), bounds.thm1_float(n, float(eps0), ells))


def poisson_curve_float(n: int, eps0: Any, gamma: Any, lam_max: int) -> np.ndarray:
    """float64 ε_γ(α) for α = 2..lam_max from one vectorised Theorem 1 table (evidence)."""
    ells = np.arange(2, lam_max + 1, dtype=np.float64)
    base = bounds.thm1_float(n, float(eps0), ells)
    return np.array([zw19_float(a, float(gamma), base[: a - 1]) for a in range(2, lam_max + 1)])


def poisson_dp_eps(
    n: int, eps0: Exact, gamma: Exact, T: int, delta: Exact, lam_max: int = 256, prec: int = 128
) -> tuple[int, arb]:
    """(α*, certified ε(δ)) of T Poisson-subsampled shuffled rounds: Theorem 1 at n clients, Zhu–Wang [ZW19]'s bound,
    Lemma 2 (T·ε_γ(α)) and Lemma 1; α* is the float argmin over integers 2..lam_max (any α is valid).

    References:
        Girgis et al. [GDDSK21] (CCS 2021) Lemmas 1–2 and Fig. 5; Zhu–Wang ICML 2019 [ZW19] (general upper bound).
    """
    from dpcert.arith.context import BallContext
    from dpcert.shuffle.conversion import lemma1_eps, lemma1_eps_float

    alphas = np.arange(2, lam_max + 1, dtype=np.float64)
    log_d = log_pos(to_fraction(delta))  # δ may be below float64's range
    curve = poisson_curve_float(n, float(to_fraction(eps0)), float(to_fraction(gamma)), lam_max)
    objective = lemma1_eps_float(T * curve, alphas, log_d)
    best = int(alphas[int(np.argmin(objective))])
    with BallContext(prec) as ctx:
        rdp = T * ball(poisson_thm1_ball(ctx, n, eps0, best, gamma))
        return best, lemma1_eps(ctx, ball(best), rdp, ball(to_fraction(delta)))
