"""The exact RDP of the shuffled binary randomized-response pair behind Theorem 3, in both orders.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

2RR keeps its bit with probability e^{ε0}/(e^{ε0}+1); p = 1/(e^{ε0}+1). With D = (0,…,0) (n zeros) and
D′ = (0,…,0,1), the server sees k = #ones: P(k) = M(D)(k) = Bin(k; n, p) and the likelihood ratio is

    Q(k)/P(k) = r_k = (k e^{ε0} + (n−k) e^{−ε0})/n = 1 + c(k − np),   c = (e^{2ε0}−1)/(ne^{ε0})   (paper eq. 49).

Hence, with S_n(a) = E_{k∼Bin(n,p)}[r_k^a],

    forward  D_λ(Q‖P) = log S_n(λ)/(λ−1)       (= Theorem 3 at integer λ: expand r^λ binomially),
    reverse  D_λ(P‖Q) = log S_n(1−λ)/(λ−1)     (E_Q[(P/Q)^λ] = E_P[(P/Q)^{λ−1}] = E_P[r^{1−λ}]).

Both are valid lower bounds on ε(λ) for every real λ > 1; the reverse order is the larger for n >= 2, ε0 > 0
(observed; docs/derivations/shuffle.md#the-worst-case-pair-in-both-orders), which is what refutes Remark 7's "our lower
bound is tight".

Ball path (:func:`pair_ball`). The certified masses Bin(k; n, p), r_k and log r_k are computed once per (n, ε0,
working precision) on a window around the mean that grows on demand (:class:`_Window`, cached), and shared by every
λ and both orders: each λ then costs one exponential per mass (r^λ, and r^{1−λ} = r/r^λ). Outside the window the
tilted terms P(k) r_k^a fall at least geometrically (their ratio is P's, non-increasing, times (1 + d/r_k)^a, which
is bounded on each side: see :func:`_tails`); the bound is carried as radius, and the window doubles until it is
below 2^-(prec+8) of the excess S − 1 (or covers [0, n]). S − 1 is then formed in balls at a working precision
raised by the bits the cancellation costs (about log2(1/(C(λ,2) v)), v = (e^{ε0}−1)²/(ne^{ε0})).
:func:`pair_excess_ball` is the term-by-term variant (the excess as E_P[φ_a(r)] with φ_a(r) = r^a − 1 − a(r − 1)
>= 0, summed from the mode by :func:`dpcert.arith.sums.log_concave_sum` with global weight bounds), used for the
inner sums of U_red's direct double sum and as an independent check of the window path.
The float path sums all n+1 terms in log space with the φ-trick (docs/derivations/shuffle.md#cancellation-free-sums).

References:
    Girgis et al. (CCS 2021), §8 (proof of Theorem 3) and Remark 7 [GDDSK21];
    docs/derivations/shuffle.md#the-worst-case-pair-in-both-orders.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from flint import arb
from numpy.typing import NDArray

from dpcert.arith.ball import ball, workprec
from dpcert.arith.exact import Exact, to_fraction
from dpcert.arith.sums import Weight, log_concave_sum
from dpcert.errors import InvalidParameter
from dpcert.shuffle._floats import log_2sinh_half

__all__ = ["ORDERS", "pair_excess_ball", "pair_ball", "pair_float", "pair_log_excess_float", "rr_neighbour_ball"]

Order = Literal["forward", "reverse", "max"]
ORDERS = ("forward", "reverse")


def _exponent(lam: Fraction, order: str) -> Fraction:
    if order == "forward":
        return lam
    if order == "reverse":
        return 1 - lam
    raise InvalidParameter("order", order, "forward or reverse")


def _p_float(ef: float) -> float:
    """p = 1/(e^{ε0}+1) in float64 (0.0 once it underflows; planning only)."""
    return math.exp(-ef - math.log1p(math.exp(-ef))) if ef > 0 else 0.5


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


class _Window:
    """The certified masses Bin(k; n, p) on a window [lo, hi] and r_k, log r_k there, at one working precision.

    They do not depend on λ, so one window serves every order λ and both orders of the pair (cached by
    :func:`_window`); it grows on demand (masses by the exact ratio recurrence from its ends).
    """

    def __init__(self, n: int, e: Fraction, wp: int) -> None:
        self.n, self.e, self.wp = n, e, wp
        with workprec(wp):
            e0 = ball(e)
            self.em, self.ep = (-e0).exp(), e0.exp()
            self.d = (self.ep - self.em) / n  # r_{k+1} − r_k
            self.log_p, self.log_q = -(self.ep.log1p()), -(self.em.log1p())
            self.odds = self.em  # p/(1−p)
            pf = _p_float(float(e))
            mode = min(n, int((n + 1) * pf))
            self.lo = self.hi = mode
            self.mass = [self._direct(mode)]
            self.r = [self._r(mode)]
            self.logr = [self.r[0].log()]

    def _direct(self, k: int) -> arb:
        n = self.n
        return (
            arb(n + 1).lgamma() - arb(k + 1).lgamma() - arb(n - k + 1).lgamma() + k * self.log_p + (n - k) * self.log_q
        ).exp()

    def _r(self, k: int) -> arb:
        return self.em + k * self.d

    def ratio(self, k: int) -> arb:
        """P(k+1)/P(k)."""
        return self.odds * (self.n - k) / (k + 1)

    def grow(self, lo: int, hi: int) -> None:
        """Extend the window to contain [lo, hi] (clipped to [0, n])."""
        lo, hi = max(0, lo), min(self.n, hi)
        with workprec(self.wp):
            if hi > self.hi:
                t, new_m, new_r = self.mass[-1], [], []
                for k in range(self.hi, hi):
                    t = t * self.ratio(k)
                    new_m.append(t)
                    new_r.append(self._r(k + 1))
                self.mass += new_m
                self.r += new_r
                self.logr += [x.log() for x in new_r]
                self.hi = hi
            if lo < self.lo:
                t, new_m, new_r = self.mass[0], [], []
                for k in range(self.lo - 1, lo - 1, -1):
                    t = t / self.ratio(k)
                    new_m.append(t)
                    new_r.append(self._r(k))
                self.mass = new_m[::-1] + self.mass
                self.r = new_r[::-1] + self.r
                self.logr = [x.log() for x in new_r[::-1]] + self.logr
                self.lo = lo


@lru_cache(maxsize=8)
def _window(n: int, e: Fraction, wp: int) -> _Window:
    return _Window(n, e, wp)


def _tails(w: _Window, a_f: Fraction, a: arb, first: arb, last: arb) -> tuple[arb, bool, bool]:
    """A rigorous bound of Σ_{k ∉ [lo, hi]} P(k) r_k^a, and whether each side's geometric bound applied.

    With T(k) = P(k) r_k^a and r_k = e^{−ε0} + k d: T(k+1)/T(k) = [P(k+1)/P(k)] (1 + d/r_k)^a, where P's ratio is
    non-increasing (log-concavity) and 1 <= 1 + d/r_k <= 1 + d e^{ε0}. So above hi the ratio is at most
    ρ = [P(hi+1)/P(hi)] · (1 + d/r_hi)^{max(a,0)} (r_k >= r_hi there), and below lo the ratio T(k−1)/T(k) is at most
    ρ = [P(lo−1)/P(lo)] · (1 + d e^{ε0})^{max(−a,0)}; where ρ < 1 the omitted side is at most T(end) ρ/(1 − ρ)
    (a geometric series). ``first``, ``last`` are T(lo), T(hi).
    """
    total = arb(0)
    ok_hi = ok_lo = True
    if w.hi < w.n:
        r_hi = w.em + w.hi * w.d
        rho = w.ratio(w.hi) * ((1 + w.d / r_hi) ** a if a_f > 0 else 1)
        if rho < 1:
            total += last * rho / (1 - rho)
        else:
            ok_hi = False
    if w.lo > 0:
        rho = 1 / w.ratio(w.lo - 1)
        if a_f < 0:
            rho = rho * (1 + w.d * w.ep) ** (-a)
        if rho < 1:
            total += first * rho / (1 - rho)
        else:
            ok_lo = False
    return total, ok_lo, ok_hi


def _excess_window(n: int, e: Fraction, lam_f: Fraction, orders: tuple[str, ...], prec: int) -> tuple[arb, ...]:
    """S_n(a) − 1 for a = λ and/or 1 − λ, summed over a shared cached window of certified masses.

    The window starts at ±(σ·sqrt(2 ln 2 (prec + guard)) + the tilt of the weights) around the mean and grows
    (doubling its half-width) until every omitted side is bounded by a geometric series below 2^-(prec+8) of
    the excess; the omitted part is kept as radius. Raises nothing on a failed bound at the ends of [0, n]: there
    is nothing left to omit.
    """
    ef = float(e)
    pf = _p_float(ef)
    sd = math.sqrt(n * pf * (1 - pf)) + 1
    lamf = float(lam_f)
    # bits lost to the cancellation in S − 1 (about C(λ,2) v, v = (e^{ε0}−1)²/(n e^{ε0}) = (2 sinh(ε0/2))²/n; in
    # logs, since v over- or underflows float64 for ε0 >= 355 or tiny ε0) and to the recurrence over the window
    log_v = 2 * log_2sinh_half(e) - math.log(n)
    cancel = max(0.0, -(math.log(lamf * (lamf - 1) / 2) + log_v) / math.log(2))
    # the shift of the tilted mean: λ · 2 sinh(ε0) p(1−p) = λ tanh(ε0/2)
    tilt = lamf * math.tanh(ef / 2)
    half = int(sd * math.sqrt(2 * math.log(2) * (prec + cancel + 8)) + tilt) + 2
    # rounding: about log2(terms) bits for the sum and the mass recurrence from the mode
    wp = -(-(prec + int(cancel) + 2 * int(math.log2(min(n, 2 * half) + 2)) + 16) // 64) * 64
    w = _window(n, e, wp)
    mean = n * pf
    with workprec(wp):
        exps_f = [_exponent(lam_f, o) for o in orders]
        exps = [ball(x) for x in exps_f]
        cutoff = ball(Fraction(1, 2 ** (prec + 8)))
        lam_b = ball(lam_f)
        while True:
            w.grow(int(mean - half), int(mean + half) + 1)
            sums = [arb(0) for _ in orders]
            firsts, lasts = [arb(0)] * len(orders), [arb(0)] * len(orders)
            both = len(orders) == 2
            for idx, (pk, rk, lr) in enumerate(zip(w.mass, w.r, w.logr, strict=True)):
                if both:
                    # r^λ and r^{1−λ} = r / r^λ from one exponential
                    up = (lam_b * lr).exp()
                    down = rk / up
                    t0, t1 = pk * up, pk * down
                    sums[0] += t0
                    sums[1] += t1
                    if idx == 0:
                        firsts = [t0, t1]
                    lasts = [t0, t1]
                else:
                    t0 = pk * (exps[0] * lr).exp()
                    sums[0] += t0
                    if idx == 0:
                        firsts = [t0]
                    lasts = [t0]
            out, grow = [], False
            for a_f, a, s, f, la in zip(exps_f, exps, sums, firsts, lasts, strict=True):
                tail, ok_lo, ok_hi = _tails(w, a_f, a, f, la)
                x = s - 1
                level = abs(x.mid()) * cutoff if x.mid() != 0 else s * cutoff
                if not (ok_lo and ok_hi) or not (tail <= level):
                    grow = True
                out.append(x + arb(0, tail.upper()) if tail != 0 else x)
            if not grow or (w.lo == 0 and w.hi == n):
                return tuple(out)
            half *= 2


def pair_ball(ctx: Any, n: int, eps0: Exact, lam: Exact, order: str = "max") -> arb | Fraction:
    """The exact RDP of the 2RR pair (D = 0ⁿ, D′ = 0^{n−1}1) of order λ > 1, in ball arithmetic.

    The binomial masses are computed once per (n, ε0, working precision) and shared by every λ and both orders
    (:class:`_Window`); each λ then costs one exponential per summed mass.

    Args:
        ctx: a :class:`~dpcert.arith.context.BallContext` (its precision is used).
        n: clients, >= 1.
        eps0: ε0 >= 0.
        lam: real λ > 1.
        order: ``"forward"`` (D_λ(M(D′)‖M(D)), = Theorem 3), ``"reverse"`` (D_λ(M(D)‖M(D′))) or ``"max"``.

    Returns:
        The divergence (nats); exactly 0 at ε0 = 0.

    References:
        Girgis et al. (CCS 2021), §8 [GDDSK21].
    """
    e = to_fraction(eps0)
    if e == 0:
        return Fraction(0)
    lam_f = to_fraction(lam)
    if order != "max":
        _exponent(lam_f, order)  # validates the name
    orders = ORDERS if order == "max" else (order,)
    vals = [x.log1p() / ball(lam_f - 1) for x in _excess_window(n, e, lam_f, orders, ctx.prec)]
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


#: above this ε0 the float path takes log P(k) from log-gamma (p underflows near ε0 = 745) and never forms
#: u = r_k − 1 (it reaches e^{ε0}, which overflows float64 near ε0 = 710)
_LOG_SPACE_EPS0 = 300.0


def pair_log_excess_float(n: int, eps0: float, a: float) -> float:
    """log(S_n(a) − 1) in float64, summing all n+1 terms in log space with the φ-trick
    (docs/derivations/shuffle.md#cancellation-free-sums).

    φ_a(r) = r^a − 1 − a(r − 1) >= 0 is formed from u = r − 1 and log r, each where it is accurate: u = c(k − np)
    near r = 1 (for ε0 <= 300), log r = log(k e^{ε0} + (n−k) e^{−ε0}) − log n where r is far below or above 1
    (log1p(u) loses everything where u rounds to −1, and u overflows for large ε0). With x = a log r:

    * x > 1: φ = e^x [1 − (1−a) e^{−x} − a e^{log r − x}];
    * a < 0 and log r > 1: φ = (−a)(r − 1) [1 + expm1(x)/((−a)(r − 1))], with log(r − 1) from log r;
    * elsewhere |x| <= 1 or x < −1 with r − 1 <= e − 1: expm1(x) − a u, or its series forms near 0.

    Never raises on the declared domain (n <= 10^6, ε0 <= 1000, |a| <= 10^5).
    """
    from scipy.special import gammaln, logsumexp  # imported on use: `dpcert --help` must not load scipy
    from scipy.stats import binom

    k = np.arange(n + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lr_far = np.logaddexp(np.log(k) + eps0, np.log(n - k) - eps0) - math.log(n)
        if eps0 > _LOG_SPACE_EPS0:
            log_p, log_q = -np.logaddexp(0.0, eps0), -math.log1p(math.exp(-eps0))
            log_pmf = gammaln(n + 1.0) - gammaln(k + 1) - gammaln(n - k + 1) + k * log_p + (n - k) * log_q
            lr = lr_far
            u = np.expm1(np.minimum(lr, 1.0))  # used only where log r <= 1
        else:
            p = _p_float(eps0)
            pmf = binom.pmf(k, n, p)
            log_pmf = np.where(pmf > 1e-290, np.log(np.maximum(pmf, 1e-300)), binom.logpmf(k, n, p))
            u = (k - n * p) * (2.0 * math.sinh(eps0) / n)  # c = (e^{2ε0} − 1)/(n e^{ε0})
            lr = np.where(u > -0.5, np.log1p(u), lr_far)
        x = a * lr
        big = x + np.log1p(-((1 - a) * np.exp(-x) + a * np.exp(lr - x)))
        if a < 0:
            log_u = np.where(lr > 30, lr + np.log1p(-np.exp(-lr)), np.log(np.expm1(np.minimum(lr, 30))))
            rev = math.log(-a) + log_u + np.log1p(np.expm1(x) * np.exp(-math.log(-a) - log_u))
        else:
            rev = x
        log1pmx = np.where(np.abs(u) < 1e-2, _log1pmx(u), lr - u)
        mid = _expm1mx(x) + a * log1pmx
        low = np.expm1(x) - a * u
        small = np.log(np.where(x < -1, low, mid))
        log_phi = np.where(x > 1, big, np.where((a < 0) & (lr > 1), rev, small))
    return float(logsumexp(log_pmf + log_phi))


def pair_float(n: int, eps0: float, lam: float, order: str = "max") -> float:
    """float64 twin of :func:`pair_ball` (evidence).

    References:
        Girgis et al. (CCS 2021), §8 [GDDSK21].
    """
    if eps0 == 0:
        return 0.0
    orders = ORDERS if order == "max" else (order,)
    vals = [float(np.logaddexp(0.0, pair_log_excess_float(n, eps0, float(_exponent(lam, o))))) for o in orders]
    return max(vals) / (lam - 1)


# ----------------------------------------------------------------------------------------------------------------
# every 2RR neighbour pair


def _binomial_masses(m: int, pr: arb) -> list[arb]:
    """Bin(k; m, pr) for k = 0..m (balls)."""
    return [math.comb(m, k) * pr**k * (1 - pr) ** (m - k) for k in range(m + 1)]


def _convolve(a: list[arb], b: list[arb]) -> list[arb]:
    """The law of the sum of two independent counts with laws a and b."""
    return [
        sum((a[i] * b[k - i] for i in range(max(0, k - len(b) + 1), min(k, len(a) - 1) + 1)), arb(0))
        for k in range(len(a) + len(b) - 1)
    ]


def rr_neighbour_ball(n: int, j: int, eps0: Exact | Fraction, lam: Exact | Fraction, order: str, prec: int) -> arb:
    """D_λ of the shuffled 2RR neighbours with j ones among the n−1 common clients, the last client 0 (D) or 1 (D′).

    ``order="forward"`` is D_λ(M(D′)‖M(D)), ``"reverse"`` is D_λ(M(D)‖M(D′)); j = 0 is the pair of Theorem 3 and
    j = n−1 in the forward order is its mirror image (relabelling 0 ↔ 1 maps it onto j = 0 reverse).
    The laws of k = #ones are Poisson-binomial (clients holding 1 report 1 with probability 1−p, those holding 0
    with probability p = 1/(e^{ε0}+1)), summed exactly by convolution in balls.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), §8 (the pair of Theorem 3); all 2RR neighbour pairs (this module).
    """
    lam_f = to_fraction(lam)
    _exponent(lam_f, order)  # validates the name
    with workprec(prec + 16 + 2 * int(math.log2(n + 1))):
        p = 1 / (ball(eps0).exp() + 1)
        # j clients holding 1 report 1 w.p. 1−p, the n−1−j holding 0 w.p. p; the last one holds 0 (D) or 1 (D′)
        common = _convolve(_binomial_masses(j, 1 - p), _binomial_masses(n - 1 - j, p))
        law_d, law_d1 = _convolve(common, [1 - p, p]), _convolve(common, [p, 1 - p])
        num, den = (law_d1, law_d) if order == "forward" else (law_d, law_d1)
        lam_b = ball(lam_f)
        total = arb(0)
        for a, b in zip(num, den, strict=True):
            total += (lam_b * a.log() + (1 - lam_b) * b.log()).exp()
        return total.log() / ball(lam_f - 1)
