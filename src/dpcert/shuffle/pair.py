"""The exact RDP of the shuffled binary randomized-response pair behind Theorem 3, in both orders.

2RR keeps its bit with probability e^{ε0}/(e^{ε0}+1); p = 1/(e^{ε0}+1). With D = (0,…,0) (n zeros) and
D′ = (0,…,0,1), the server sees k = #ones: P(k) = M(D)(k) = Bin(k; n, p) and the likelihood ratio is

    Q(k)/P(k) = r_k = (k e^{ε0} + (n−k) e^{−ε0})/n = 1 + c(k − np),   c = (e^{2ε0}−1)/(ne^{ε0})   (paper eq. 49).

Hence, with S_n(a) = E_{k∼Bin(n,p)}[r_k^a],

    forward  D_λ(Q‖P) = log S_n(λ)/(λ−1)       (= Theorem 3 at integer λ: expand r^λ binomially),
    reverse  D_λ(P‖Q) = log S_n(1−λ)/(λ−1)     (E_Q[(P/Q)^λ] = E_P[(P/Q)^{λ−1}] = E_P[r^{1−λ}]).

Both are valid lower bounds on ε(λ) for every real λ > 1; the reverse order is the larger for n >= 2, ε0 > 0
(notes §1.11), which is what refutes Remark 7's "our lower bound is tight".

The sum is carried as its excess S − 1 = E_P[φ_a(r)] with φ_a(r) = r^a − 1 − a(r − 1) >= 0 (E_P r = 1), which
has no cancellation (notes §2, pitfall 3b). The ball path sums the log-concave binomial masses from the mode
outwards with :func:`dpcert.arith.sums.log_concave_sum` and bounds the omitted head and tail rigorously (weights
0 <= φ_a(r_k) <= max(φ_a(e^{−ε0}), φ_a(e^{ε0})), since φ_a is convex and r_k ∈ [e^{−ε0}, e^{ε0}]). The float path
sums all n+1 terms in log space.

References:
    Girgis et al. (CCS 2021), §8 (proof of Theorem 3) and Remark 7; dpcert notes shuffle_rdp §1.11.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from flint import arb
from numpy.typing import NDArray

from dpcert.arith.ball import ball, workprec
from dpcert.arith.exact import Exact, to_fraction
from dpcert.arith.sums import Weight, log_concave_sum
from dpcert.errors import InvalidParameter

__all__ = ["ORDERS", "pair_excess_ball", "pair_ball", "pair_float", "pair_log_excess_float"]

Order = Literal["forward", "reverse", "max"]
ORDERS = ("forward", "reverse")


def _exponent(lam: Fraction, order: str) -> Fraction:
    if order == "forward":
        return lam
    if order == "reverse":
        return 1 - lam
    raise InvalidParameter("order", order, "forward or reverse")


def _weight_bound(e: Fraction, a: Fraction) -> int:
    """An exact integer >= max φ_a over [e^{−ε0}, e^{ε0}]: φ_a(r) <= r^a + 1 + |a||r − 1| and e < 3."""
    big = 3 ** math.ceil(e * abs(a))
    return big + 1 + math.ceil(abs(a)) * 3 ** math.ceil(e) + 1


def pair_excess_ball(n: int, eps0: Exact | Fraction, lam: Exact | Fraction, order: str, prec: int) -> arb:
    """A ball of S_n(a) − 1 = Σ_k Bin(k; n, p) φ_a(r_k), a = λ (forward) or 1 − λ (reverse).

    Runs with ``prec`` bits of relative accuracy for the omitted terms and enough guard bits for the recurrence
    of the binomial masses.
    """
    return _excess_balls(n, eps0, lam, (order,), prec)[0]


def _excess_balls(
    n: int, eps0: Exact | Fraction, lam: Exact | Fraction, orders: tuple[str, ...], prec: int
) -> tuple[arb, ...]:
    """The excesses of several orders in one pass over the binomial masses (one weight per order).

    The stopping rule follows the first order; every order's omitted part is still carried as its own rigorous
    radius (weight bound × omitted mass), so each ball is an enclosure whatever the first order is.
    """
    e = to_fraction(eps0)
    exps = [_exponent(to_fraction(lam), o) for o in orders]
    guard = 16 + int(math.log2(n + 1)) * 2
    with workprec(prec + guard):
        e0 = ball(e)
        em, ep = (-e0).exp(), e0.exp()
        step = (ep - em) / n  # r_{k+1} − r_k
        log_p = -(e0.exp().log1p())
        log_q = -(em.log1p())
        ratio_pq = em  # p/(1−p)

        def term(k: int) -> arb:
            lg = arb(n + 1).lgamma() - arb(k + 1).lgamma() - arb(n - k + 1).lgamma() + k * log_p + (n - k) * log_q
            return lg.exp()

        def ratio(k: int) -> arb:
            return ratio_pq * (n - k) / (k + 1)

        def weight(a: Fraction) -> Weight:
            a_b = ball(a)

            def phi(k: int) -> arb:
                r = em + k * step
                return (a_b * r.log()).exp() - 1 - a_b * (r - 1)

            return Weight(phi, lambda k, _w: phi(k + 1), _weight_bound(e, a))

        s = log_concave_sum(term, ratio, 0, n, prec=prec, weights=[weight(a) for a in exps])
    return s.values


def pair_ball(ctx: Any, n: int, eps0: Exact, lam: Exact, order: str = "max") -> arb | Fraction:
    """The exact RDP of the 2RR pair (D = 0ⁿ, D′ = 0^{n−1}1) of order λ > 1, in ball arithmetic.

    Args:
        ctx: a :class:`~dpcert.arith.context.BallContext` (its precision is used).
        n: clients, >= 1.
        eps0: ε0 >= 0.
        lam: real λ > 1.
        order: ``"forward"`` (D_λ(M(D′)‖M(D)), = Theorem 3), ``"reverse"`` (D_λ(M(D)‖M(D′))) or ``"max"``.

    Returns:
        The divergence (nats); exactly 0 at ε0 = 0.

    References:
        Girgis et al. (CCS 2021), §8; notes §1.11.
    """
    if to_fraction(eps0) == 0:
        return Fraction(0)
    lam_f = to_fraction(lam)
    # "max": both orders in one pass, led by the forward one (its weight bound e^{ε0λ} is the larger)
    orders = ORDERS if order == "max" else (order,)
    vals = [x.log1p() / ball(lam_f - 1) for x in _excess_balls(n, eps0, lam_f, orders, ctx.prec)]
    out = vals[0]
    for v in vals[1:]:
        out = arb.max(out, v)
    return out


# ----------------------------------------------------------------------------------------------------------------
# float64


def _expm1mx(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """e^x − 1 − x, with its Taylor series where |x| < 1e-2."""
    series = x * x * (1 / 2 + x * (1 / 6 + x * (1 / 24 + x * (1 / 120 + x / 720))))
    return np.where(np.abs(x) < 1e-2, series, np.expm1(x) - x)


def _log1pmx(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """log(1 + u) − u, with its Taylor series where |u| < 1e-2."""
    series = -u * u * (1 / 2 - u * (1 / 3 - u * (1 / 4 - u * (1 / 5 - u * (1 / 6 - u / 7)))))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.abs(u) < 1e-2, series, np.log1p(u) - u)


def pair_log_excess_float(n: int, eps0: float, a: float) -> float:
    """log(S_n(a) − 1) in float64, summing all n+1 terms in log space with the φ-trick (notes §2, pitfall 3b)."""
    from scipy.special import logsumexp  # imported on use: `dpcert --help` must not load scipy
    from scipy.stats import binom

    k = np.arange(n + 1, dtype=np.float64)
    p = 1.0 / (math.exp(eps0) + 1.0) if eps0 < 700 else 0.0
    with np.errstate(divide="ignore"):
        pmf = binom.pmf(k, n, p)
        log_pmf = np.where(pmf > 1e-290, np.log(np.maximum(pmf, 1e-300)), binom.logpmf(k, n, p))
    c = 2.0 * math.sinh(eps0) / n  # (e^{2ε0} − 1)/(n e^{ε0})
    u = (k - n * p) * c
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = a * np.log1p(u)
        mid = _expm1mx(x) + a * _log1pmx(u)
        low = np.expm1(x) - a * u
        big = x + np.log1p(-(1 + a * u) * np.exp(-x))
        log_phi = np.where(x > 1, big, np.log(np.where(x < -1, low, mid)))
    return float(logsumexp(log_pmf + log_phi))


def pair_float(n: int, eps0: float, lam: float, order: str = "max") -> float:
    """float64 twin of :func:`pair_ball` (evidence).

    References:
        Girgis et al. (CCS 2021), §8; notes §1.11.
    """
    if eps0 == 0:
        return 0.0
    orders = ORDERS if order == "max" else (order,)
    vals = [float(np.logaddexp(0.0, pair_log_excess_float(n, eps0, float(_exponent(lam, o))))) for o in orders]
    return max(vals) / (lam - 1)
