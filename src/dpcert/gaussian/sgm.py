"""One step of the Poisson-subsampled Gaussian mechanism (the step of DP-SGD): its RDP and its exact δ(ε).

Neighbours are add/remove-one, the sampling is Poisson with rate q, the L2 sensitivity is 1 and σ is the noise
multiplier. The **remove** pair is P = (1−q)N(0, σ²) + qN(1, σ²), Q = N(0, σ²); the **add** pair swaps them.

RDP (Mironov–Talwar–Zhang [MTZ19], arXiv 1908.10530, Sec. 3.3): D_α(P‖Q) = log(A_α)/(α−1) with
A_α = E_{z∼Q}[((1−q) + q e^{(2z−1)/(2σ²)})^α]; at an integer α the binomial expansion gives the finite sum
A_α = Σ_j C(α, j)(1−q)^{α−j} q^j e^{(j²−j)/(2σ²)}. Since Σ_j C(α, j)(1−q)^{α−j} q^j = 1 and the j = 0, 1
exponents vanish, A_α − 1 = Σ_{j>=2} C(α, j)(1−q)^{α−j} q^j expm1((j²−j)/(2σ²)), a sum of positive terms: the
ball is formed without cancellation and RDP = log1p(A_α − 1)/(α−1) keeps its relative accuracy for tiny q.

**The add direction.** The add pair's divergence is D_α(Q‖P) = log(B_α)/(α−1), B_α = E_P[(Q/P)^α]
= E_Q[(P/Q)^{1−α}]. Mironov–Talwar–Zhang [MTZ19] (arXiv 1908.10530, Sec. 3) prove A_α >= B_α at integer orders α, so at
an
integer order D_α(P‖Q) is the step's RDP for add/remove neighbours (the convention of every peer: dp_accounting,
Opacus, TF Privacy). The theorem's number is not confirmed against the paper's text here, so it is cited by section. The
statement is checked numerically in tests/gaussian/test_gaussian_sgm_directions.py: both
divergences by direct mpmath quadrature at nine (q, σ, α), five of them non-integer orders, where A_α > B_α holds as
well. ``sgm.rdp`` is D_α(P‖Q) at every order; where a non-integer order is used for accounting
(``dpsgd.rdp.eps orders=real``) the add direction is computed too (:func:`rdp_add_ball`, certified quadrature) and
the max taken, so nothing rests on dominance at non-integer orders.

Non-integer α > 1: certified quadrature (``acb.integral``) of A_α − 1 = ∫ φ_σ(z)(b^α − 1 − α(b − 1)) dz,
b = P/Q, whose integrand is non-negative (see :func:`_a_minus_one_quad`), with proved tails; as α → 1 the value
keeps its relative accuracy (q² C(α,2) is factored out exactly, and the normalised integrand is evaluated without
cancellation, also at tiny q: see :func:`_a_minus_one_quad`). This replaces the
binomial series of A_α at real α, whose tails decay only like k^{−α−1}.

One step's exact δ(ε), both directions (the ratio P/Q is increasing in x, so each hockey-stick integral is a
half-line; docs/derivations/gaussian.md#sgm-directions): with x* = σ² log((e^ε − (1−q))/q) + ½,
δ_rem(ε) = qΦ̄((x*−1)/σ) − (e^ε − (1−q))Φ̄(x*/σ), and for e^ε(1−q) < 1, with
x′ = σ² log((1 − e^ε(1−q))/(e^ε q)) + ½, δ_add(ε) = (1 − e^ε(1−q))Φ(x′/σ) − e^ε qΦ((x′−1)/σ) (0 otherwise).
``sgm.delta`` is max(δ_rem, δ_add): the exact δ(ε) of one DP-SGD step (steps = 1), e.g. tensorflow/privacy#166.

References:
    I. Mironov [Mir17], K. Talwar, L. Zhang, "Rényi Differential Privacy of the Sampled Gaussian Mechanism",
    arXiv 1908.10530, Sec. 3 (A_α >= B_α at integer α) and Sec. 3.3 (the computation).
    B. Balle, Y.-X. Wang, ICML 2018 (the half-line form of the hockey-stick divergence for monotone ratios).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb, fmpq, fmpz

from dpcert.arith.ball import Enclosure, ball, workprec
from dpcert.arith.exact import Exact, as_fraction
from dpcert.core.params import real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = [
    "rdp_ball",
    "rdp_float",
    "a_minus_one_ball",
    "rdp_add_ball",
    "delta_ball",
    "delta_float",
    "sgm_rdp",
    "sgm_delta",
    "SGM_RDP",
    "SGM_DELTA",
    "SGM_MAX_ALPHA",
    "QUANTITIES",
]

#: Largest integer order accepted (above 512 a window of the sum is taken and the rest bounded, see below).
SGM_MAX_ALPHA = 10**5
#: Largest non-integer order accepted (certified quadrature; the integrand peaks near z = α).
SGM_MAX_REAL_ALPHA = 1000
#: Largest (α² − α)/(2σ²) accepted at a non-integer order: the integrand spans e^{±that} over the range. The
#: quadrature took about 0.6 s at 10^4 (and did not finish in minutes at 6·10^4); since the integrand is one exponent
#: centred at z = α where b >= 2 (see :func:`_a_minus_one_quad`) it takes milliseconds there (10 ms at
#: (q, σ, α) = (1/2, 2.9, 999.5), exponent 6·10^4), but the cap is kept. Integer orders have no such cap.
SGM_MAX_REAL_EXPONENT = 10**4

_REF_RDP = (
    "Mironov–Talwar–Zhang arXiv 1908.10530 Sec. 3.3 (integer orders: the binomial expansion; other orders: "
    "certified quadrature of the defining expectation)"
)
_REF_DELTA = (
    "exact hockey-stick divergence of the Poisson-subsampled Gaussian, both directions "
    "(docs/derivations/gaussian.md#sgm-directions)"
)

_Q = real("q", 0, 1, lo_open=True, doc="Poisson sampling rate in (0, 1]")
_SIGMA = real("sigma", 0, lo_open=True, doc="noise multiplier (noise std / L2 sensitivity)")
_ALPHA = real("alpha", 1, lo_open=True, max_abs=SGM_MAX_ALPHA, doc="Renyi order > 1 (non-integers up to 1000)")
_EPS = real("eps", 0, doc="epsilon >= 0")


def _fmpq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _terms_ball(q: Fraction, h: fmpq, alpha: int, lo: int, hi: int) -> arb:
    """Σ_{j=lo}^{hi} C(α, j)(1−q)^{α−j} q^j expm1(j(j−1)h) at the working precision (2 <= lo <= hi <= α, q < 1)."""
    r = arb(_fmpq(q / (1 - q)))
    term = arb(fmpz.bin_uiui(alpha, lo)) * arb(_fmpq(1 - q)) ** (alpha - lo) * arb(_fmpq(q)) ** lo
    total = arb(0)
    for j in range(lo, hi + 1):
        total += term * arb(h * (j * (j - 1))).expm1()
        term = term * r * fmpq(alpha - j, j + 1)
    return total


def _chernoff_log(alpha: int, c: int, q: Fraction) -> arb:
    """−α·D(c/α ‖ q), D the Bernoulli KL divergence: log of the Chernoff bound on P(X >= c) (c/α >= q) or on
    P(X <= c) (c/α <= q) for X ~ Bin(α, q) (Hoeffding 1963 [Hoe63], Thm 1)."""
    a = Fraction(c, alpha)
    d = arb(0)
    if a > 0:
        d += arb(_fmpq(a)) * arb(_fmpq(a / q)).log()
    if a < 1:
        d += arb(_fmpq(1 - a)) * arb(_fmpq((1 - a) / (1 - q))).log()
    return -alpha * d


#: Orders up to this are summed term by term; above it the sum is taken over a window and the rest bounded.
_FULL_SUM_MAX_ALPHA = 512


def a_minus_one_ball(q: Fraction, sigma: Fraction, alpha: int, prec: int | None = None) -> arb:
    """A_α − 1 = Σ_{j>=2} C(α, j)(1−q)^{α−j} q^j expm1((j²−j)/(2σ²)) at the working precision (q < 1).

    Up to α = 512 every term is summed. Above, a float guide (log-space terms) picks the window of terms within
    2^-(prec+64) of the largest; the window is summed in balls and every term outside it is bounded rigorously,
    chunk by chunk: Σ_{j=c}^{d} b_j expm1(j(j−1)h) <= expm1(d(d−1)h)·P(X >= c) above the window and
    <= expm1(d(d−1)h)·P(X <= d) below it, X ~ Bin(α, q) with Chernoff's bound; a chunk whose bound is not
    negligible is split, and summed exactly once short. The bounds enter as the radius of [0, R].
    """
    h = _fmpq(1 / (2 * sigma * sigma))
    if alpha <= _FULL_SUM_MAX_ALPHA:
        return _terms_ball(q, h, alpha, 2, alpha)
    import numpy as np
    from scipy import special

    bits = prec if prec is not None else 64
    h_exact = 1 / (2 * sigma * sigma)
    if h_exact > Fraction(10**300):
        # consecutive exponents j(j−1)h differ by 2(j−1)h > 10^300: the last term outweighs all the others by far
        # (the window is only a choice; every term outside it is bounded below, whatever it is)
        window = _terms_ball(q, h, alpha, alpha, alpha)
        return window + _outside(q, h, alpha, alpha, alpha, window, prec if prec is not None else 64)
    hf = float(h_exact)
    j = np.arange(2, alpha + 1, dtype=float)
    with np.errstate(all="ignore"):
        guide = (
            special.gammaln(alpha + 1.0)
            - special.gammaln(j + 1)
            - special.gammaln(alpha - j + 1)
            + (alpha - j) * _log_exact(1 - q)
            + j * _log_exact(q)
            + _log_expm1(j * (j - 1) * hf)
        )
    if not np.all(np.isfinite(guide)):
        return _terms_ball(q, h, alpha, 2, alpha)
    keep = np.nonzero(guide >= guide.max() - (bits + 64) * math.log(2))[0]
    j1, j2 = int(keep[0]) + 2, int(keep[-1]) + 2
    window = _terms_ball(q, h, alpha, j1, j2)
    return window + _outside(q, h, alpha, j1, j2, window, bits)


def _outside(q: Fraction, h: fmpq, alpha: int, j1: int, j2: int, window: arb, bits: int) -> arb:
    """The terms of A_α − 1 outside the window [j1, j2]: summed where they matter, else bounded by Chernoff's
    bound (see :func:`a_minus_one_ball`), as a ball."""
    floor = window.lower() * arb(2) ** (-(bits + 40))  # negligible: far below the window's own rounding
    mean = q * alpha
    exact = arb(0)
    slack = arb(0)
    stack = [(2, j1 - 1), (j2 + 1, alpha)]
    while stack:
        c, d = stack.pop()
        if c > d:
            continue
        grow = arb(h * (d * (d - 1))).expm1()
        if c >= mean:
            bound = grow * _chernoff_log(alpha, c, q).exp()
        elif d <= mean:
            bound = grow * _chernoff_log(alpha, d, q).exp()
        else:
            bound = grow
        if bound < floor:
            slack += bound
        elif d - c < 32:
            exact += _terms_ball(q, h, alpha, c, d)
        else:
            m = (c + d) // 2
            stack += [(c, m), (m + 1, d)]
    r = slack.upper()
    return exact + arb(0).union(r)


def _rdp_at(q: Fraction, sigma: Fraction, alpha: int, prec: int) -> arb | Fraction:
    if q == 1:
        return Fraction(alpha) / (2 * sigma * sigma)  # the Gaussian mechanism's RDP, exactly
    with workprec(prec + 2 * alpha.bit_length() + 10 + _exponent_guard(sigma, alpha)):
        return a_minus_one_ball(q, sigma, alpha, prec).log1p() / (alpha - 1)


def _log_exact(x: Fraction) -> float:
    """log x of a positive rational in float64, without the underflow of float(x) (q = 1 − 1e-300 has
    log(1 − q) = −690.8, though float(1 − q) is fine and float(q) is 1.0)."""
    return math.log(x.numerator) - math.log(x.denominator)


def _exponent_guard(sigma: Fraction, alpha: int) -> int:
    """Guard bits for the largest exponent of the sum, x = α(α − 1)/(2σ²): the ball of x carries an absolute error
    of x·2^-prec, which e^x turns into a relative one of the same size, so a small σ (x up to 10^600 at σ = 1e-300)
    needs log2(x) more bits or expm1 returns [±inf]."""
    x = alpha * (alpha - 1) / (2 * sigma * sigma)
    return max(0, math.ceil(x).bit_length() - 16)


#: :func:`_a_minus_one_quad` uses the series of H(x) (and of expm1(y) − y) below 2^-_SERIES_BITS in absolute value.
_SERIES_BITS = 16


def _a_minus_one_quad(q: Fraction, sigma: Fraction, alpha: Fraction, prec: int) -> arb:
    """A_α − 1 = q² ∫ φ_σ(z) u² G(qu) dz, u = e^{(2z−1)/(2σ²)} − 1, by certified quadrature (``acb.integral``)
    on [−L₁, L₂] plus proved tails (bounded below).

    With b = P/Q = 1 + qu: ∫ φ_σ (b − 1) = E_Q[P/Q − 1] = 0, so A_α − 1 = ∫ φ_σ g with g = b^α − 1 − α(b − 1)
    >= 0 (b^α is convex in b): no cancellation in the integral. g = x² G(x) at x = qu, where
    G(x) = ((1+x)^α − 1 − αx)/x² = Σ_{k>=2} C(α, k) x^{k−2} = α(α−1) ∫_0^1 (1−t)(1+tx)^{α−2} dt (Taylor's
    remainder) > 0 for x > −1. The factor q² is taken out exactly, so the integrand's size does not vanish with
    q and the result keeps its relative accuracy at any tiny q (no guard bits in log(1/q)).

    The integral is computed for H = G/C(α,2) (≈ 1 near x = 0), so neither q nor α − 1 makes it vanish:
    A_α − 1 = q² C(α,2) ∫ φ_σ u² H(qu), with C(α,2) = α(α−1)/2 from the exact α − 1. H is evaluated without
    cancellation. Where |x| <= r <= 2^-16: the series Σ_{k=2}^{K−1} (C(α,k)/C(α,2)) x^{k−2} plus a ball of radius
    c_n r^n (1−r)^{−(α+2)}, n = K − 2, c_m = C(α+1+m, m). Proof: |C(α,k)/C(α,2)| = Π_{i=2}^{k−1} |α−i|/(i+1)
    <= Π_{i=2}^{k−1} (α+i)/(i−1) = c_{k−2}; c_{n+m} <= c_n c_m (termwise (β+n+j)/(n+j) <= (β+j)/j, β = α+1);
    and Σ_m c_m r^m = (1−r)^{−(α+2)}. Elsewhere, with L = log(1+x), ε = α − 1, y = εL:
    (1+x)^α − 1 − αx = ε((1+x)L − x) + (1+x)(expm1(y) − y), two non-negative terms, so
    H = (2/α)((1+x)L − x + (1+x)(expm1(y) − y)/ε)/x²; (expm1(y) − y)/ε = εL² Σ_{k>=2} y^{k−2}/k! (tail after
    k−1 terms <= 2|y|^{k−2}/k! for |y| <= 1/2) where |y| <= 2^-16, directly otherwise. Each direct form loses
    at most about 16 bits (|x|, |y| > 2^-16), covered by the guard of :func:`_rdp_real`.

    Tails, with β = max(α, 2): for z < −L₁, −q < x < 0 and u² <= 1, G(x) <= C(α,2)·max(1, (1−q)^{α−2}) (the
    integral form), and also g <= α(1 − b) <= αq; so that tail is <= min(q² C(α,2) max(1, (1−q)^{α−2}), αq)
    Φ(−L₁/σ). For z > L₂ (w = (2z−1)/(2σ²) > 0): G(x) <= C(α,2)(1+x)^{max(α−2,0)}, and 1 + x = b <= e^w,
    u <= e^w, so u² G(qu) <= C(α,2) e^{βw}; completing the square, ∫_{L₂}^∞ φ_σ e^{βw} = e^{(β²−β)/(2σ²)}
    Φ̄((L₂ − β)/σ), so that tail is <= q² C(α,2) e^{(β²−β)/(2σ²)} Φ̄((L₂ − β)/σ). For α >= 2 also (this one keeps
    the factor q^α, so L₂ need not be far out): with w₂ = (2L₂−1)/(2σ²) > 0 and κ = 1 + (1−q)e^{−w₂}/q,
    1 <= b = qe^w(1 + (1−q)e^{−w}/q) <= qκe^w and g <= b^α for z > L₂, so that tail is also
    <= (qκ)^α e^{(α²−α)/(2σ²)} Φ̄((L₂ − α)/σ); the smaller bound is used. L₁ <= 0 and L₂ are chosen from a float
    guide to the integral's size (:func:`_log_value_guide`), and so is the quadrature's abs_tol: effort only.

    Cost (the quadrature evaluates f at points and bounds it on complex boxes, ellipses around each piece): on a
    box the direct form is taken as (2/α)(…)/q², not u²·(…)/x² (x = qu exactly, and the two factors taken apart
    overestimated the box some 100-fold at large z), and a box with |x| <= 1/4 takes the series to a tolerance of
    2^-20 (the same proved tail bound holds for every r < 1; the direct form's 1/x² is infinite on a box around 0).
    For α >= 2 where Re x >= 1 (b >= 2), φ_σ g is taken as norm·(e^{−(z−α)²/(2σ²) + α log q + (α²−α)/(2σ²)}
    (1 + (1−q)e^{−w}/q)^α − e^{−z²/(2σ²)}(1 + αx)), the same analytic function (equal on the real line, analytic
    on the box where the log is): the Gaussian and b^α, whose exponents grow apart by α/σ² per unit on a box, are
    one exponent centred at z = α (at α = 999.5, σ = 8 this took the time from 0.6 s to 5 ms).
    """
    from flint import acb

    a = ball(alpha)
    eps = ball(alpha - 1)  # exact α − 1 rounded once: C(α,2) keeps its relative accuracy as α → 1
    s = ball(sigma)
    bq = ball(q)
    inv2s2 = 1 / (2 * s * s)
    norm = 1 / (s * (2 * arb.pi()).sqrt())
    c2 = a * eps / 2
    target = arb(2) ** (-(prec + 10))
    rmax = arb(2) ** (-_SERIES_BITS)
    inv_q2 = 1 / (bq * bq)
    box_rmax, box_target = arb(1) / 4, arb(2) ** -20

    def small(ball_: Any) -> tuple[bool, arb]:
        r = ball_.abs_upper()
        return bool(r <= rmax), r

    def h(x: Any, analytic: bool) -> tuple[Any, bool]:
        """(H(x), True), H(x) = G(x)/C(α,2) = Σ_{k>=2} (C(α,k)/C(α,2)) x^{k−2}, from the series; or from the direct
        form (u²H(x), False) = ((2/α)((1+x)L − x + (1+x)(expm1(y) − y)/ε)/q², False): x = qu, so u²/x² = 1/q²
        exactly, and a box is not widened by u² and 1/x² taken apart."""
        is_small, r = small(x)
        # a box (analytic: the bound on an ellipse) near x = 0 takes the series up to |x| <= 1/4, to a loose
        # tolerance: the direct form's 1/x² is infinite on a box around 0, which forced bisection down to 2^-16
        loose = analytic and not is_small and bool(r <= box_rmax)
        if is_small or loose:
            stop = box_target if loose else target
            total, power, coef, k = acb(0), acb(1), arb(1), 2
            bound = arb(1)  # C(α+1+m, m) r^m at m = k − 2
            while True:
                total += coef * power
                power *= x
                coef = coef * (a - k) / (k + 1)
                bound = bound * r * (a + k) / (k - 1)
                k += 1
                tail = bound / (1 - r) ** (a + 2)
                if tail < stop:
                    t = tail.upper()
                    return total + acb(arb(0, t), arb(0, t)), True
                if loose and k > 64:  # slow to converge (large α): the direct form (non-finite on a box around 0)
                    break
        log_b = (1 + x).log(analytic=analytic)
        y = eps * log_b
        is_small_y, ry = small(y)
        if is_small_y:  # (expm1(y) − y)/ε = ε L² Σ_{k>=2} y^{k−2}/k!
            total, power, fact, k = acb(0), acb(1), arb(2), 2
            while True:
                total += power / fact
                power *= y
                k += 1
                fact *= k
                tail = 2 * ry ** (k - 2) / fact
                if tail < target:
                    t = tail.upper()
                    break
            e_over_eps = eps * log_b * log_b * (total + acb(arb(0, t), arb(0, t)))
        else:
            e_over_eps = (y.expm1() - y) / eps
        return 2 / a * ((1 + x) * log_b - x + (1 + x) * e_over_eps) * inv_q2, False

    far = alpha >= 2
    if far:
        one_q_over_q = ball(1 - q) / bq
        far_const = a * bq.log() + (a * a - a) * inv2s2
        far_scale = 1 / (bq * bq * c2)

    def f(z: Any, analytic: bool) -> Any:
        w = (2 * z - 1) * inv2s2
        u = w.expm1()
        x = bq * u
        if far and x.real >= 1:
            # φ_σ(z) b^α = φ_σ(z) (qe^w)^α (1 + (1−q)e^{−w}/q)^α = norm·e^{−(z−α)²/(2σ²) + α log q + (α²−α)/(2σ²)}
            # (1 + (1−q)e^{−w}/q)^α, one exponent whose parts do not grow apart on a box; g = b^α − (1 + αx)
            # with b >= 2, α >= 2 loses at most 2 bits ((1 + α(b−1))/b^α <= 3/4)
            log_k = (1 + one_q_over_q * (-w).exp()).log(analytic=analytic)
            t1 = (-(z - a) * (z - a) * inv2s2 + far_const + a * log_k).exp()
            return norm * far_scale * (t1 - (-z * z * inv2s2).exp() * (1 + a * x))
        v, times_u2 = h(x, analytic)
        return norm * (-z * z * inv2s2).exp() * (u * u * v if times_u2 else v)

    sf = float(sigma)
    beta = max(alpha, Fraction(2))
    bf = float(beta)
    bits = prec + 30
    ln2 = math.log(2)
    # a float guide to the size of the normalised integral (effort only: the ends and abs_tol below), in log
    est = _log_value_guide(q, sigma, alpha)
    # left end: the low tail (normalised) is <= max(1, (1−q)^{α−2}) Φ(−L₁/σ); want it <= 2^-bits e^est
    low_log = 0.0 if alpha >= 2 else -_log_exact(1 - q)
    t_lo = math.sqrt(max(2 * (bits * ln2 + low_log - est), 4.0))
    lo_end = min(-Fraction(sf * t_lo + 1).limit_denominator(2**20), Fraction(0))
    # right end: the smaller of the two high-tail exponents (see the docstring), at the candidate end
    t_hi = math.sqrt(max(2 * (bits * ln2 + (bf * bf - bf) / (2 * sf * sf) - est), 4.0))
    hi_end = Fraction(bf + sf * t_hi + 1).limit_denominator(2**20)
    log_q = _log_frac(q)
    if alpha >= 2 and log_q is not None:
        af = float(alpha)
        w2 = (2 * (af + 2 * sf) - 1) / (2 * sf * sf)  # the end will be at least α + 2σ + 1
        v = _log_exact(1 - q) - w2 - log_q  # log((1−q)e^{−w₂}/q), q < 1 here
        kappa_log = v + math.log1p(math.exp(-v)) if v > 0 else math.log1p(math.exp(v))
        e_new = af * (log_q + kappa_log) + (af * af - af) / (2 * sf * sf) - 2 * log_q - math.log(af * (af - 1) / 2)
        t_new = math.sqrt(max(2 * (bits * ln2 + e_new - est), 4.0))
        hi_end = min(hi_end, Fraction(af + sf * t_new + 1).limit_denominator(2**20))
    # Arb integrates from one end with the tolerance max(abs_tol, rel_tol·|sum so far|): with a negligible abs_tol
    # the far tail, integrated first, was resolved to 2^-2prec at a cost of thousands of evaluations. abs_tol is
    # 2^-(prec+16) times the guide: effort only (every piece is a proved enclosure whatever the tolerance; a value
    # below the guide just gives a wider ball, which the caller refines).
    tol = arb(2) ** (-(prec + 16)) * arb(est).exp()
    value = acb.integral(f, acb(_fmpq(lo_end)), acb(_fmpq(hi_end)), rel_tol=arb(2) ** (-prec), abs_tol=tol).real
    s2 = arb(2).sqrt()
    lo_phi = (-ball(lo_end) / (s * s2)).erfc() / 2
    low_g = bq * bq * c2 * (arb(1) if alpha >= 2 else ball(1 - q) ** (a - 2))
    low_tail = low_g.min(a * bq) * lo_phi
    hi_phi = ((ball(hi_end) - ball(beta)) / (s * s2)).erfc() / 2
    high_tail = bq * bq * c2 * ((ball(beta * beta - beta)) * inv2s2).exp() * hi_phi
    if alpha >= 2:  # b <= qκe^w for w >= w₂ = (2L₂ − 1)/(2σ²) > 0, κ = 1 + (1−q)e^{−w₂}/q; g <= b^α
        kappa = 1 + ball(1 - q) * (-(2 * ball(hi_end) - 1) * inv2s2).exp() / bq
        hi_phi_a = ((ball(hi_end) - a) / (s * s2)).erfc() / 2
        high_tail = high_tail.min((bq * kappa) ** a * ((a * a - a) * inv2s2).exp() * hi_phi_a)
    r = (low_tail + high_tail).upper()
    return bq * bq * c2 * value + arb(0).union(r)


def _log_frac(x: Fraction) -> float | None:
    """log(x) as a float for a positive rational x, or None when it is out of float range."""
    try:
        return math.log(x.numerator) - math.log(x.denominator)
    except (OverflowError, ValueError):
        return None


def _log_value_guide(q: Fraction, sigma: Fraction, alpha: Fraction) -> float:
    """A float guide (natural log) to the normalised integral (A_α − 1)/(q² C(α,2)) of :func:`_a_minus_one_quad`.

    At least log(e^{1/σ²} − 1) (its value as q → 0); for α >= 2 also (A_m − 1)/(q² C(α,2)) at m = ⌊α⌋, from the
    largest term of the finite sum: A_α is non-decreasing in α (log A_α is convex in α, 0 at α = 1 and >= 0 after).
    Used only to choose the quadrature's ends and tolerance; the enclosure's tails are bounded rigorously.
    """
    try:
        return _log_value_guide_floats(q, sigma, alpha)
    except (ValueError, OverflowError, ZeroDivisionError):  # out of float range: a plain guide
        log_s = _log_frac(sigma)
        return -2 * log_s if log_s is not None and log_s > 0 else 0.0


def _log_value_guide_floats(q: Fraction, sigma: Fraction, alpha: Fraction) -> float:
    c = 1 / float(sigma) ** 2
    est = _log_expm1_float(c)
    log_q, m = _log_frac(q), math.floor(alpha)
    if m < 2 or log_q is None or q >= 1 or log_q < -700:
        return est
    af, lq1 = float(alpha), _log_exact(1 - q)
    lg = math.lgamma(m + 1.0)
    # the largest term of the sum is a lower bound on it (pure floats: no numpy/scipy import on this path)
    top = max(
        lg
        - math.lgamma(j + 1.0)
        - math.lgamma(m - j + 1.0)
        + (m - j) * lq1
        + j * log_q
        + _log_expm1_float(j * (j - 1) * c / 2)
        for j in range(2, m + 1)
    )
    lower = top - 2 * log_q - math.log(af * (af - 1) / 2)
    return max(est, lower) if math.isfinite(lower) else est


def _rdp_real(q: Fraction, sigma: Fraction, alpha: Fraction, prec: int) -> arb | Fraction:
    if q == 1:
        return alpha / (2 * sigma * sigma)  # the Gaussian mechanism's RDP, exactly, at every order
    # the direct forms lose at most about 2·16 bits where |x| or |y| is just above 2^-16 (see the quadrature)
    guard = 2 * _SERIES_BITS + 30
    with workprec(prec + guard):
        # the guard bits are for the rounding inside the integrand; the quadrature's own goal (its degree and
        # subdivisions, the interval ends, the series' tails) is the caller's accuracy plus 8 bits
        return _a_minus_one_quad(q, sigma, alpha, prec + 8).log1p() / ball(alpha - 1)


def rdp_add_ball(q: Fraction, sigma: Fraction, alpha: Fraction, prec: int) -> arb | Fraction:
    """Rigorous ball of the **add** direction's divergence D_α(Q‖P) = log(B_α)/(α − 1), B_α = E_Q[(P/Q)^{1−α}], by
    certified quadrature (any real α > 1; used where MTZ's dominance A_α >= B_α is not invoked: non-integer orders).

    With r = P/Q = (1−q) + q e^{(2z−1)/(2σ²)} >= 1 − q and 1 − α < 0, the integrand φ_σ r^{1−α} is at most
    φ_σ (1−q)^{1−α}, so the two tails beyond ±L are at most 2(1−q)^{1−α} Φ̄(L/σ). B_α − 1 is about
    q² C(α, 2)(e^{1/σ²} − 1), so log2 of its inverse is added as guard bits (the subtraction of 1 cancels them).
    """
    from flint import acb

    if q == 1:
        return alpha / (2 * sigma * sigma)  # the Gaussian: both directions coincide
    qf, sf, af = float(q), float(sigma), float(alpha)
    scale = qf * qf * af * (af - 1) / 2 * math.expm1(min(1 / (sf * sf), 700.0))
    guard = 40 + (max(0, math.ceil(-math.log2(scale))) if scale > 0 else 4000)
    bits = prec + guard
    with workprec(bits):
        s, bq, beta = ball(sigma), ball(q), ball(1 - alpha)
        inv2s2 = 1 / (2 * s * s)
        norm = 1 / (s * (2 * arb.pi()).sqrt())
        one_q = ball(1 - q)

        def f(z: Any, analytic: bool) -> Any:
            r = one_q + bq * ((2 * z - 1) * inv2s2).exp()
            return norm * (-z * z * inv2s2).exp() * (beta * r.log(analytic=analytic)).exp()

        span = 2 * (bits + 20) * math.log(2) + 2 * (af - 1) * -_log_exact(1 - q)
        end = Fraction(sf * math.sqrt(span) + 2).limit_denominator(2**20)
        value = acb.integral(
            f, acb(_fmpq(-end)), acb(_fmpq(end)), rel_tol=arb(2) ** (-bits), abs_tol=arb(2) ** (-bits - 10)
        ).real
        tail = 2 * one_q**beta * (ball(end) / (s * arb(2).sqrt())).erfc() / 2
        total = value + arb(0).union(tail.upper())
        return (total - 1).log1p() / ball(alpha - 1)


def _sci(x: Fraction) -> str:
    """x in scientific notation with 5 significant digits, for a message (a Fraction may have 300 digits)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 8
        return format(Decimal(x.numerator) / Decimal(x.denominator), ".5g")


def rdp_ball(ctx: Any, q: Exact, sigma: Exact, alpha: Exact | int) -> arb | Fraction:
    """Rigorous ball of the RDP of order α of one Poisson-subsampled Gaussian step (MTZ Sec. 3.3).

    Args:
        ctx: a ball context. q: the sampling rate in (0, 1]. sigma: the noise multiplier. alpha: the order > 1:
            an integer (the finite sum, up to :data:`SGM_MAX_ALPHA`) or not (certified quadrature, up to
            :data:`SGM_MAX_REAL_ALPHA` and (α² − α)/(2σ²) <= :data:`SGM_MAX_REAL_EXPONENT`).

    Returns:
        An ``arb`` ball, or the exact α/(2σ²) when q = 1.

    Raises:
        InvalidParameter: for a non-integer order beyond those caps (checked before any work).
    """
    a = as_fraction(alpha)
    if a.denominator == 1:
        return _rdp_at(as_fraction(q), as_fraction(sigma), int(a), ctx.prec)
    s = as_fraction(sigma)
    if a > SGM_MAX_REAL_ALPHA or (a * a - a) / (2 * s * s) > SGM_MAX_REAL_EXPONENT:
        raise InvalidParameter(
            "alpha",
            alpha.given if isinstance(alpha, Exact) else alpha,
            f"an integer, or a non-integer order <= {SGM_MAX_REAL_ALPHA} with (alpha^2 - alpha)/(2 sigma^2) <= "
            f"{SGM_MAX_REAL_EXPONENT} (sigma = {_sci(s)})",
        )
    return _rdp_real(as_fraction(q), s, a, ctx.prec)


def _log_expm1_float(x: float) -> float:
    """log(e^x − 1) for a float x > 0."""
    return x + math.log1p(-math.exp(-x)) if x > 1 else math.log(math.expm1(x))


def _log_expm1(x: Any) -> Any:
    """log(e^x − 1) for x > 0, elementwise, without overflow."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    big, small = np.maximum(x, 1.0), np.minimum(x, 1.0)
    return np.where(x > 1, big + np.log1p(-np.exp(-big)), np.log(np.expm1(small)))


def _g_float(u: float, alpha: float) -> float:
    """b^α − 1 − α(b − 1) at b = 1 + u, without cancellation: a series in t = log1p(u) where |αt| < 2."""
    t = math.log1p(u)
    if abs(alpha * t) >= 2:
        return math.expm1(alpha * t) - alpha * u
    # expm1(αt) − α·expm1(t) = Σ_{n>=2} (α^n − α) t^n / n!, and α^n − α = α·expm1((n−1) log α)
    la, total, power = math.log(alpha), 0.0, t
    for n in range(2, 60):
        power *= t / n
        term = alpha * math.expm1((n - 1) * la) * power
        total += term
        if abs(term) <= 1e-18 * abs(total):
            break
    return total


def _rdp_real_float(qf: float, s: float, alpha: float) -> float:
    import warnings

    from scipy import integrate

    norm = 1 / (s * math.sqrt(2 * math.pi))
    # A_α is at most about e^{(α²−α)/(2σ²)}: the integrand is scaled by e^{−c} so that no double overflows
    c = max(0.0, (alpha * alpha - alpha) / (2 * s * s) - 50.0)

    log_norm, log_q = math.log(norm), math.log(qf)

    def f(z: float) -> float:
        w = (2 * z - 1) / (2 * s * s)
        if w < 700:
            u = qf * math.expm1(w)
            lb = math.log1p(u)  # log b
            lu = math.log(u) if u > 0 else -math.inf
        else:
            lb = w + log_q + math.log1p((1 - qf) / qf * math.exp(-w))
            lu = log_q + w
        if alpha * lb <= 30:
            return norm * math.exp(-z * z / (2 * s * s) - c) * _g_float(math.expm1(lb), alpha)
        # b^α dominates: log g = α log b + log1p(−b^−α − α(b − 1) b^−α), in log space (no overflow)
        log_g = alpha * lb + math.log1p(-math.exp(-alpha * lb) - alpha * math.exp(lu - alpha * lb))
        return math.exp(log_norm - z * z / (2 * s * s) + log_g - c)

    opts = {"epsabs": 0.0, "epsrel": 1.2e-14, "limit": 400}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = [
            integrate.quad(f, -math.inf, 0.5, **opts)[0],
            integrate.quad(f, 0.5, alpha + 1, **opts)[0],
            integrate.quad(f, alpha + 1, math.inf, **opts)[0],
        ]
    total = sum(parts)
    if c == 0:
        return math.log1p(total) / (alpha - 1)
    log_a1 = c + math.log(total)  # log(A_α − 1)
    return (log_a1 + math.log1p(math.exp(-log_a1))) / (alpha - 1)


def rdp_float(q: Any, sigma: Any, alpha: Any) -> float:
    """float64 RDP of order α: integers by the binomial sum in log space (log-gamma binomials, logsumexp);
    non-integers by quadrature of A_α − 1 = ∫ φ_σ (b^α − 1 − α(b − 1)) with a cancellation-free integrand."""
    import numpy as np
    from scipy import special

    qf, s, a = float(as_fraction(q)), float(as_fraction(sigma)), as_fraction(alpha)
    if as_fraction(q) == 1:
        return float(a) / (2 * s * s)
    if a.denominator != 1:
        return _rdp_real_float(qf, s, float(a))
    alpha = int(a)
    j = np.arange(2, alpha + 1, dtype=float)
    log_c = special.gammaln(alpha + 1.0) - special.gammaln(j + 1) - special.gammaln(alpha - j + 1)
    qe = as_fraction(q)
    terms = log_c + (alpha - j) * _log_exact(1 - qe) + j * _log_exact(qe) + _log_expm1(j * (j - 1) / (2 * s * s))
    return float(np.logaddexp(0.0, special.logsumexp(terms)) / (alpha - 1))


# --------------------------------------------------------------------------------------------- one-step δ(ε)


def _phi_bar(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


#: Below e^{-10^6} the one-step δ is enclosed as about [0, 2^-1442695] (as gaussian.delta: a proved bound).
_FLOOR_BITS = 1442695


def _delta_terms(qq: Fraction, s: Fraction, e: Fraction) -> tuple[arb, arb, arb, arb | None]:
    """(δ_rem, x*, 1 − e^ε(1−q), x′ or None) at the working precision."""
    x = ball(e).exp()
    sg = ball(s)
    bq = ball(qq)
    one_q = ball(1 - qq)
    # remove: e^ε > 1 − q always (ε >= 0, q > 0)
    xs = sg * sg * ((x - one_q) / bq).log() + arb(1) / 2
    rem = bq * _phi_bar((xs - 1) / sg) - (x - one_q) * _phi_bar(xs / sg)
    gap = 1 - x * one_q  # the add direction is positive iff e^ε(1−q) < 1
    xa = sg * sg * (gap / (x * bq)).log() + arb(1) / 2 if gap > 0 else None
    return rem, xs, gap, xa


def _below_floor(qq: Fraction, s: Fraction, e: Fraction) -> bool:
    """Whether both directions are proved below e^{-10^6}: δ_rem <= qΦ̄((x*−1)/σ) and δ_add <= Φ(x′/σ) (or 0),
    with Φ̄(y) <= e^{−y²/2}/2 for y > 0 (decided in 64-bit balls; undecided means no)."""
    limit = arb(2 * 10**6).sqrt()
    with workprec(64):
        _, xs, gap, xa = _delta_terms(qq, s, e)
        sg = ball(s)
        rem_tiny = bool((xs - 1) / sg > limit)
        add_tiny = bool(gap <= 0) or (xa is not None and bool(-xa / sg > limit))
    return rem_tiny and add_tiny


def delta_ball(ctx: Any, q: Exact, sigma: Exact, eps: Exact) -> arb:
    """Rigorous ball of max(δ_rem(ε), δ_add(ε)) of one Poisson-subsampled Gaussian step (ε >= 0).

    Below e^{-10^6} (both directions' Gaussian tail bounds decided in balls) the ball is about [0, 2^-1442695]:
    a proved upper bound, whose exact end points are representable (the value's own would take megabytes).
    """
    qq, s, e = as_fraction(q), as_fraction(sigma), as_fraction(eps)
    if _below_floor(qq, s, e):
        half = arb(2) ** (-_FLOOR_BITS - 1)
        return arb(half, half)
    with workprec(ctx.prec + 16 + math.ceil(1 + 1 / qq + 1 / (s * s) + e).bit_length()):
        rem, _, gap, xa = _delta_terms(qq, s, e)
        x, bq, sg = ball(e).exp(), ball(qq), ball(s)
        if xa is not None:
            add = gap * (1 - _phi_bar(xa / sg)) - x * bq * (1 - _phi_bar((xa - 1) / sg))
        elif gap <= 0:
            add = arb(0)
        else:  # undecided at this precision: 0 <= δ_add <= (1 − e^ε(1−q))₊, a ball that shrinks with precision
            add = arb(0).union(arb(gap.upper()))
        return rem.max(add)


def delta_float(q: Any, sigma: Any, eps: Any) -> float:
    """float64 max(δ_rem, δ_add) by quadrature of the positive integrals ∫_0^∞ e^{−t} S(ε + t) dt (evidence).

    S(l) is the probability that the privacy loss exceeds l: for the remove pair, with x(l) the point where the
    loss is l, S(l) = (1−q)Φ̄(x(l)/σ) + qΦ̄((x(l)−1)/σ); for the add pair S(l) = Φ(x′(l)/σ), zero from
    l = −log(1−q) on. Integration by parts of E[(1 − e^{ε−L})₊]; no cancellation, unlike the closed form.
    """
    import warnings

    import numpy as np
    from scipy import integrate, special

    qf, s, e = float(as_fraction(q)), float(as_fraction(sigma)), float(as_fraction(eps))
    log_q, log_1q = math.log(qf), (math.log1p(-qf) if qf < 1 else -math.inf)

    def log_s_rem(lv: float) -> float:
        # e^l − (1 − q) = expm1(l) + q > 0 for l >= 0
        log_gap = lv + math.log1p((qf - 1) * math.exp(-lv)) if lv > 30 else math.log(math.expm1(lv) + qf)
        x = s * s * (log_gap - log_q) + 0.5
        return float(np.logaddexp(log_1q + special.log_ndtr(-x / s), log_q + special.log_ndtr(-(x - 1) / s)))

    def log_s_add(lv: float) -> float:
        gap = -math.expm1(lv + log_1q) if qf < 1 else 1.0  # 1 − e^l(1 − q) > 0
        x = s * s * (math.log(gap) - lv - log_q) + 0.5
        return float(special.log_ndtr(x / s))

    def integral(log_s: Any, upper: float) -> float:
        base = log_s(e)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value, _ = integrate.quad(
                lambda t: math.exp(-t + log_s(e + t) - base), 0, upper, epsabs=0.0, epsrel=1.2e-14, limit=200
            )
        return math.exp(base + math.log(value)) if value > 0 else 0.0

    rem = integral(log_s_rem, math.inf)
    add = 0.0
    if qf < 1 and e < -log_1q:
        add = integral(log_s_add, -log_1q - e)
    return max(rem, add)


SGM_RDP = Quantity(
    "sgm.rdp",
    (_Q, _SIGMA, _ALPHA),
    rdp_ball,
    _REF_RDP,
    "RDP of order alpha > 1 of one Poisson-subsampled Gaussian step (rate q, noise multiplier sigma)",
    float=rdp_float,
    float_rtol=1e-12,
)
SGM_DELTA = Quantity(
    "sgm.delta",
    (_Q, _SIGMA, _EPS),
    delta_ball,
    _REF_DELTA,
    "exact delta(eps) of one Poisson-subsampled Gaussian step, max of the add and remove directions",
    float=delta_float,
    float_rtol=1e-12,
)

QUANTITIES = [SGM_RDP, SGM_DELTA]


def sgm_rdp(q: Any, sigma: Any, alpha: Any, *, rel_tol: float = 1e-15) -> Enclosure:
    """Certified enclosure of the RDP of order α of one Poisson-subsampled Gaussian step (rate ``q``, noise
    multiplier ``sigma``), Mironov–Talwar–Zhang Sec. 3.3, of relative width at most ``rel_tol``.

    Compose T steps by multiplying by T (RDP composes additively); :func:`dpcert.gaussian.dpsgd_rdp_eps` turns the
    composed RDP into DP-SGD's ε.

    Raises:
        InvalidParameter: for q outside (0, 1], sigma <= 0, or an order outside (1, 1000] (any integer order).
        PrecisionExhausted: if the requested accuracy is not reached at the maximum precision.

    >>> sgm_rdp("0.01", "1", 2).short(12)
    '[1.71813422074e-4, 1.71813422075e-4]'
    """
    return SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=rel_tol)


def sgm_delta(q: Any, sigma: Any, eps: Any, *, rel_tol: float = 1e-15) -> Enclosure:
    """Certified enclosure of the exact δ(ε) of one Poisson-subsampled Gaussian step (rate ``q``, noise multiplier
    ``sigma``), the larger of the add and remove directions, of relative width at most ``rel_tol``.

    Raises:
        InvalidParameter: for q outside (0, 1], sigma <= 0 or eps < 0.
        PrecisionExhausted: if the requested accuracy is not reached at the maximum precision (a δ below
            e^{-10^6} is returned as the proved bound [0, 2^-1442695] instead).
    """
    # below e^{-10^6} the value is enclosed as [0, 2^-_FLOOR_BITS] (see delta_ball): accepted as it is
    return SGM_DELTA.enclose(q=q, sigma=sigma, eps=eps, rel_tol=rel_tol, abs_tol=Fraction(1, 2 ** (_FLOOR_BITS - 1)))
