"""The RDP bounds of the shuffle model printed by Girgis–Data–Diggavi–Suresh–Kairouz [GDDSK21] (CCS 2021).

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

For n clients, each applying the same ε0-LDP randomizer before a uniform shuffle, ε(λ) is the sup over
replacement neighbours (both orders) of D_λ(M(D)‖M(D′)). All logarithms are natural (nats).

* Theorem 1 (eq. 6), integer λ >= 2:
  (1/(λ−1)) log[1 + C(λ,2)(e^{ε0}−1)²/(n̄e^{ε0}) + Σ_{i=3}^{λ} C(λ,i) i Γ(i/2) x^{i/2} + e^{ε0λ−(n−1)/(8e^{ε0})}],
  x = (e^{2ε0}−1)²/(2e^{2ε0}n̄), n̄ = ⌊(n−1)/(2e^{ε0})⌋ + 1.
* eq. (8): the real-order extension of an integer-order bound, by convexity of (λ−1)D_λ in λ.
* Corollary 1 (eq. 7): (1/(λ−1)) log[1 + 4C(λ,2)(e^{ε0}−1)²/n], stated under λ⁴e^{5ε0} < n/9
  (:func:`cor1_applies` decides that condition exactly; its derivation from Theorem 1 has a gap,
  docs/derivations/shuffle.md#corollary-1s-last-step).
* Theorem 2 (eq. 9), real λ > 1 (the paper prints "λ >= 1", a typo: the bound is undefined at 1):
  (1/(λ−1)) log[exp(λ²(e^{ε0}−1)²/n̄) + e^{ε0λ−(n−1)/(8e^{ε0})}].
* eq. (10), the EFM+19 baseline as the paper quotes it: 2λe^{4ε0}(e^{ε0}−1)²/n.
* Theorem 3 (eq. 11), a lower bound for integer λ >= 2, with the central moments μ_i of Bin(n, p), p = 1/(e^{ε0}+1):
  (1/(λ−1)) log[1 + C(λ,2)(e^{ε0}−1)²/(ne^{ε0}) + Σ_{i=3}^{λ} C(λ,i)((e^{2ε0}−1)/(ne^{ε0}))^i μ_i].
  The moments come from the series of the centred moment generating function g(t) = f(t)^n,
  f(t) = (1−p)e^{−pt} + pe^{(1−p)t}, by the power-series recurrence (J. C. P. Miller; Knuth TAOCP 2 §4.7)
  g_k = (1/k) Σ_{j=1}^{k} ((n+1)j − k) f_j g_{k−j}; μ_i = i! g_i. No sampling, no raw moments.
* Corollary 2 (eq. 12): Theorem 3 without the i >= 3 terms (they are >= 0:
docs/derivations/shuffle.md#nonnegative-central-moments;
  the paper's Jensen argument is not valid, erratum E3).

Each bound has a rigorous ball evaluator (``*_ball(ctx, n, eps0, lam)``, used by the quantities) and a vectorised
float64 evaluator (``*_float(n, eps0, lam)`` over numpy arrays that broadcast, in log space) that is an independent
computation: Theorem 1 by a log-sum-exp over a table of log-terms, Theorem 3 by the direct sum over the binomial
law of the pair it is the divergence of (:mod:`dpcert.shuffle.pair`).

References:
    A. M. Girgis, D. Data, S. Diggavi, A. T. Suresh, P. Kairouz, "On the Rényi Differential Privacy of the Shuffle
    Model", ACM CCS 2021 (arXiv:2105.05180): Theorems 1–3, Corollaries 1–2, eqs. (6)–(12).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from flint import arb, fmpq
from numpy.typing import ArrayLike, NDArray

from dpcert.arith.ball import ball, refine
from dpcert.arith.exact import Exact, to_fraction
from dpcert.errors import InvalidParameter

__all__ = [
    "nbar",
    "nbar_float",
    "cor1_applies",
    "thm5_excess_ball",
    "thm1_ball",
    "thm1_float",
    "eq8_ball",
    "eq8_chord",
    "eq8_float",
    "cor1_ball",
    "cor1_float",
    "thm2_ball",
    "thm2_float",
    "efm19_ball",
    "efm19_float",
    "thm3_ball",
    "cor2_ball",
    "cor2_float",
]


# ----------------------------------------------------------------------------------------------------------------
# n̄, decided exactly


@lru_cache(maxsize=4096)
def _nbar(n: int, eps0: Fraction) -> int:
    if n == 1:
        return 1
    if eps0 == 0:
        return (n - 1) // 2 + 1

    # e^{eps0} is irrational for rational eps0 != 0 (Lindemann), so (n-1)/(2e^{eps0}) is never an integer and the
    # floor of its ball is decided at some finite precision.
    def step(prec: int) -> int | None:
        v = ball(n - 1) / (2 * ball(eps0).exp())
        lo, hi = v.lower().floor(), v.upper().floor()
        if lo == hi:
            return int(lo.unique_fmpz()) + 1
        return None

    value, _ = refine(step, what=f"floor((n-1)/(2e^eps0)) at n={n}, eps0={eps0}", max_prec=1 << 20)
    return value


def nbar(n: int, eps0: Exact | Fraction | int) -> int:
    """n̄ = ⌊(n−1)/(2e^{ε0})⌋ + 1, the number of clones of Theorems 1 and 2, as a certified integer.

    Args:
        n: number of clients, >= 1.
        eps0: the LDP parameter ε0 >= 0 (exact).

    Returns:
        The integer n̄ >= 1 (the floor decided by ball arithmetic at rising precision; exact at ε0 = 0).

    Raises:
        InvalidParameter: for n < 1 or ε0 < 0.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorem 1 (Chernoff bound with γ = 1/2).

    >>> nbar(10**6, Fraction(1, 2)), nbar(42, 3), nbar(43, 3)
    (303266, 1, 1)
    """
    e = to_fraction(eps0)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameter("n", n, "an integer >= 1")
    if e < 0:
        raise InvalidParameter("eps0", eps0, "a real number >= 0")
    return _nbar(n, e)


def nbar_float(n: ArrayLike, eps0: ArrayLike) -> NDArray[np.float64]:
    """float64 n̄ (evidence: the floor may be off by one where (n−1)/(2e^{ε0}) is within an ulp of an integer)."""
    n = np.asarray(n, dtype=np.float64)
    return np.floor((n - 1) * 0.5 * np.exp(-np.asarray(eps0, dtype=np.float64))) + 1


def cor1_applies(n: int, eps0: Exact | Fraction | int, lam: int, *, max_prec: int = 1 << 16) -> bool:
    """Whether Corollary 1's condition λ⁴e^{5ε0} < n/9 holds, decided exactly.

    At ε0 = 0 the comparison is between rationals; otherwise e^{5ε0} is irrational and the two sides are never
    equal, so ball arithmetic at rising precision decides it.

    Raises:
        PrecisionExhausted: only if ``max_prec`` bits do not separate the two sides.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Corollary 1.
    """
    e = to_fraction(eps0)
    if e == 0:
        return Fraction(lam) ** 4 < Fraction(n, 9)

    def step(prec: int) -> bool | None:
        lhs = ball(lam) ** 4 * (5 * ball(e)).exp()
        rhs = ball(Fraction(n, 9))
        if lhs < rhs:
            return True
        if lhs > rhs:
            return False
        return None

    value, _ = refine(step, what=f"Corollary 1 condition at n={n}, eps0={e}, lam={lam}", max_prec=max_prec)
    return value


# ----------------------------------------------------------------------------------------------------------------
# ball evaluators (the quantities' rigorous path)


def _log_chernoff_ball(n: int, e0: arb, lam: arb) -> arb:
    """ε0λ − (n−1)/(8e^{ε0}): the log of the Chernoff term (weight e^{−(n−1)/(8e^{ε0})} times E_0 <= e^{ε0λ})."""
    return e0 * lam - ball(n - 1) / (8 * e0.exp())


def thm5_excess_ball(m: int, eps0: Exact | Fraction, lam: int) -> arb:
    """Theorem 5's bound on the special-case moment, minus 1, for m clients and integer λ >= 2:

    C(λ,2)(e^{ε0}−1)²/(m e^{ε0}) + Σ_{i=3}^{λ} C(λ,i) i Γ(i/2) x^{i/2},   x = (e^{2ε0}−1)²/(2 m e^{2ε0}).

    The i >= 3 terms t_i are generated along two chains (even and odd i) by the exact ratio
    t_{i+2}/t_i = (λ−i)(λ−i−1) x / (2(i+1)), which follows from Γ(i/2 + 1) = (i/2) Γ(i/2).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorem 5, eq. (15) (Lemmas 6–7).
    """
    e0 = ball(eps0)
    em1 = e0.expm1()
    x = (2 * e0).expm1() ** 2 / (2 * (2 * e0).exp() * m)
    excess = ball(Fraction(lam * (lam - 1), 2)) * em1**2 / (m * e0.exp())
    if lam >= 3:
        sx = x.sqrt()
        # t_3 = C(λ,3)·3·Γ(3/2)·x^{3/2} = C(λ,3)·(3/2)·√π·x^{3/2};  t_4 = C(λ,4)·4·Γ(2)·x² = 4C(λ,4)x²
        chains = [(3, ball(Fraction(lam * (lam - 1) * (lam - 2), 6) * Fraction(3, 2)) * arb.pi().sqrt() * sx * x)]
        if lam >= 4:
            chains.append((4, ball(4 * (lam * (lam - 1) * (lam - 2) * (lam - 3) // 24)) * x * x))
        for i, t in chains:
            while True:
                excess += t
                if i + 2 > lam:
                    break
                t = t * x * fmpq((lam - i) * (lam - i - 1), 2 * (i + 1))
                i += 2
    return excess


def thm1_ball(ctx: Any, n: int, eps0: Exact, lam: int) -> arb:
    """Theorem 1 (eq. 6) in ball arithmetic, for integer λ >= 2: Theorem 5 at m = n̄ plus the Chernoff term.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorem 1, eq. (6).
    """
    excess = thm5_excess_ball(nbar(n, eps0), eps0, lam)
    excess += _log_chernoff_ball(n, ball(eps0), ball(lam)).exp()
    return excess.log1p() / (lam - 1)


def eq8_ball(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb:
    """Theorem 1 extended to real λ > 1 by eq. (8): [a(⌊λ⌋−1)ε(⌊λ⌋) + (1−a)(⌈λ⌉−1)ε(⌈λ⌉)]/(λ−1), a = ⌈λ⌉ − λ.

    For λ in (1, 2) the ⌊λ⌋ = 1 term is 0 ((λ−1)D_λ → 0 as λ → 1+) and the bound is ε(2); at an integer λ
    it is Theorem 1 itself.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Remark 2, eq. (8) (convexity of (λ−1)D_λ: van Erven–Harremoës [EH14] 2014).
    """
    return eq8_chord(thm1_ball, ctx, n, eps0, lam)


def eq8_chord(bound: Any, ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb | Fraction:
    """eq. (8) applied to any bound ``bound(ctx, n, eps0, λ)`` on ε(λ) known at the integers around a real λ > 1.

    (λ−1)D_λ is convex in λ for every pair of distributions and 0 at λ = 1, so the chord between the integers
    ⌊λ⌋ and ⌈λ⌉ of (λ−1)·(any upper bound of ε) bounds (λ−1)ε(λ).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Remark 2, eq. (8) (convexity of (λ−1)D_λ: van Erven–Harremoës [EH14] 2014).
    """
    lv = to_fraction(lam)
    lo, hi = lv.numerator // lv.denominator, -((-lv.numerator) // lv.denominator)
    if lo == hi:
        return bound(ctx, n, eps0, lo)
    a = Fraction(hi) - lv
    total = ball((1 - a) * (hi - 1)) * ball(bound(ctx, n, eps0, hi))
    if lo >= 2:
        total += ball(a * (lo - 1)) * ball(bound(ctx, n, eps0, lo))
    return total / ball(lv - 1)


def cor1_ball(ctx: Any, n: int, eps0: Exact, lam: int) -> arb | Fraction:
    """Corollary 1 (eq. 7): (1/(λ−1)) log[1 + 4C(λ,2)(e^{ε0}−1)²/n] (its formula; validity: :func:`cor1_applies`).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Corollary 1, eq. (7).
    """
    if to_fraction(eps0) == 0:
        return Fraction(0)
    em1 = ball(eps0).expm1()
    return (ball(Fraction(2 * lam * (lam - 1), n)) * em1**2).log1p() / (lam - 1)


def thm2_ball(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb:
    """Theorem 2 (eq. 9) in ball arithmetic, for real λ > 1.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorem 2, eq. (9) (stated "λ >= 1"; read λ > 1).
    """
    nb = nbar(n, eps0)
    e0 = ball(eps0)
    lam_b = ball(lam)
    a = lam_b**2 * e0.expm1() ** 2 / nb
    # log(e^a + e^b) = a + log1p(e^{b−a}): keeps the tiny excess a at large n
    return (a + (_log_chernoff_ball(n, e0, lam_b) - a).exp().log1p()) / (lam_b - 1)


def efm19_ball(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb | Fraction:
    """eq. (10): 2λe^{4ε0}(e^{ε0}−1)²/n, the EFM+19 baseline as quoted by the paper.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), eq. (10), quoting Erlingsson et al. [EFMRTT19] (SODA 2019), Remark 1.
    """
    if to_fraction(eps0) == 0:
        return Fraction(0)
    e0 = ball(eps0)
    return 2 * ball(lam) * (4 * e0).exp() * e0.expm1() ** 2 / n


def thm3_excess_ball(n: int, eps0: Exact, lam: int) -> arb:
    """Σ_{i=2}^{λ} C(λ,i) c^i μ_i with c = (e^{2ε0}−1)/(ne^{ε0}): Theorem 3's sum inside the log, minus 1.

    With h_k := c^k g_k (the series of g(ct)) and F_j := c^j f_j the recurrence keeps its form,
    h_k = (1/k) Σ_{j=2}^{k} ((n+1)j − k) F_j h_{k−j} (f_1 = 0), and C(λ,i) c^i μ_i = λ(λ−1)…(λ−i+1) h_i.
    """
    e0 = ball(eps0)
    p = 1 / (e0.exp() + 1)
    q = 1 - p
    c = (2 * e0).expm1() / (n * e0.exp())
    # F_j = c^j [(1−p)(−p)^j + p(1−p)^j] / j!
    big_f = [arb(1), arb(0)]
    pw_p, pw_q, cj, fact = -p, q, c, arb(1)
    for j in range(2, lam + 1):
        pw_p, pw_q, cj, fact = pw_p * (-p), pw_q * q, cj * c, fact * j
        big_f.append(cj * (q * pw_p + p * pw_q) / fact)
    h = [arb(1)]
    total = arb(0)
    falling = ball(lam)
    for k in range(1, lam + 1):
        acc = arb(0)
        for j in range(2, k + 1):
            acc += ((n + 1) * j - k) * big_f[j] * h[k - j]
        h.append(acc / k)
        if k >= 2:
            falling = falling * (lam - k + 1)
            total += falling * h[k]
    return total


def thm3_ball(ctx: Any, n: int, eps0: Exact, lam: int) -> arb | Fraction:
    """Theorem 3 (eq. 11), the lower bound, with exact binomial central moments (integer λ >= 2).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorem 3, eq. (11).
    """
    if to_fraction(eps0) == 0:
        return Fraction(0)
    return thm3_excess_ball(n, eps0, lam).log1p() / (lam - 1)


def cor2_ball(ctx: Any, n: int, eps0: Exact, lam: int) -> arb | Fraction:
    """Corollary 2 (eq. 12): (1/(λ−1)) log[1 + C(λ,2)(e^{ε0}−1)²/(ne^{ε0})].

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Corollary 2, eq. (12).
    """
    if to_fraction(eps0) == 0:
        return Fraction(0)
    e0 = ball(eps0)
    return (ball(Fraction(lam * (lam - 1), 2 * n)) * e0.expm1() ** 2 / e0.exp()).log1p() / (lam - 1)


# ----------------------------------------------------------------------------------------------------------------
# float64 evaluators (vectorised, log space; evidence)


def _arrays(*xs: ArrayLike) -> list[NDArray[np.float64]]:
    return [np.asarray(a, dtype=np.float64) for a in np.broadcast_arrays(*xs)]


def _log_expm1(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """log(e^x − 1) for x >= 0 (−inf at 0), without overflow at large x."""
    with np.errstate(divide="ignore"):
        return np.where(x > 30, x + np.log1p(-np.exp(-x)), np.log(np.expm1(np.minimum(x, 30))))


def _finish(log_excess: NDArray[np.float64], lam: NDArray[np.float64]) -> NDArray[np.float64]:
    """(1/(λ−1)) log(1 + e^{log_excess})."""
    return np.logaddexp(0.0, log_excess) / (lam - 1)


def _log_chernoff(n: NDArray[np.float64], e: NDArray[np.float64], lam: NDArray[np.float64]) -> NDArray[np.float64]:
    return e * lam - (n - 1) * np.exp(-e) / 8


def thm1_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """Theorem 1 (eq. 6) in float64, vectorised: one log-sum-exp over a (…, i) table of log-terms.

    Args:
        n, eps0, lam: arrays that broadcast (lam integer-valued, >= 2).

    Returns:
        The bound, one value per broadcast element.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorem 1, eq. (6).
    """
    n, e, lam = _arrays(n, eps0, lam)
    shape = lam.shape
    n, e, lam = n.ravel(), e.ravel(), lam.ravel()
    out = np.empty(lam.shape)
    # chunks keep the (element × i) table below about 4·10^6 entries
    start = 0
    while start < lam.size:
        stop = start + 1
        width = max(int(lam[start]), 3)
        while stop < lam.size and (stop - start + 1) * max(width, int(lam[stop])) <= 4_000_000:
            width = max(width, int(lam[stop]))
            stop += 1
        out[start:stop] = _thm1_chunk(n[start:stop], e[start:stop], lam[start:stop])
        start = stop
    return out.reshape(shape)


def _thm1_chunk(n: NDArray[np.float64], e: NDArray[np.float64], lam: NDArray[np.float64]) -> NDArray[np.float64]:
    from scipy.special import gammaln, logsumexp  # imported on use: `dpcert --help` must not load scipy

    nb = nbar_float(n, e)
    with np.errstate(divide="ignore", invalid="ignore"):
        l2 = np.log(lam * (lam - 1) / 2) + 2 * _log_expm1(e) - np.log(nb) - e
        logx = 2 * _log_expm1(2 * e) - np.log(2 * nb) - 2 * e
        imax = max(int(np.max(lam)) if lam.size else 2, 3)
        # log k! for k = 0..imax, looked up instead of recomputed for every (λ, i)
        log_fact = gammaln(np.arange(imax + 1, dtype=np.float64) + 1)
        i_int = np.arange(3, imax + 1)
        i = i_int.astype(np.float64)
        lam_int = lam.astype(np.int64)[:, None]
        below = np.maximum(lam_int - i_int, 0)
        log_binom = log_fact[lam_int] - log_fact[i_int] - log_fact[below]
        terms = log_binom + (np.log(i) + gammaln(i / 2)) + (i / 2) * logx[:, None]
        terms = np.where(i_int <= lam_int, terms, -np.inf)
        parts = np.concatenate([l2[:, None], terms, _log_chernoff(n, e, lam)[:, None]], axis=-1)
        return _finish(logsumexp(parts, axis=-1), lam)


def eq8_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """eq. (8) applied to Theorem 1 (real λ > 1), float64, vectorised.

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Remark 2, eq. (8).
    """
    n, e, lam = _arrays(n, eps0, lam)
    lo, hi = np.floor(lam), np.ceil(lam)
    if np.all(lo == hi):
        return thm1_float(n, e, lam)
    a = hi - lam
    up = (1 - a) * (hi - 1) * thm1_float(n, e, np.maximum(hi, 2))
    down = np.where(lo >= 2, a * (lo - 1) * thm1_float(n, e, np.maximum(lo, 2)), 0.0)
    return (up + down) / (lam - 1)


def cor1_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """Corollary 1's formula (eq. 7) in float64 (validity not checked here: see :func:`cor1_applies`)."""
    n, e, lam = _arrays(n, eps0, lam)
    with np.errstate(divide="ignore"):
        return _finish(np.log(2 * lam * (lam - 1) / n) + 2 * _log_expm1(e), lam)


def thm2_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """Theorem 2 (eq. 9) in float64, vectorised (real λ > 1).

    References:
        Girgis et al. [GDDSK21] (CCS 2021), Theorem 2, eq. (9).
    """
    n, e, lam = _arrays(n, eps0, lam)
    nb = nbar_float(n, e)
    with np.errstate(divide="ignore", over="ignore"):
        a = np.exp(2 * np.log(lam) + 2 * _log_expm1(e) - np.log(nb))
        a = np.where(e == 0, 0.0, a)
        return np.logaddexp(a, _log_chernoff(n, e, lam)) / (lam - 1)


def efm19_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """eq. (10) in float64, vectorised (evaluated through logs so that large ε0 overflows only at +inf)."""
    n, e, lam = _arrays(n, eps0, lam)
    with np.errstate(divide="ignore", over="ignore"):
        return np.exp(np.log(2 * lam) + 4 * e + 2 * _log_expm1(e) - np.log(n))


def cor2_float(n: ArrayLike, eps0: ArrayLike, lam: ArrayLike) -> NDArray[np.float64]:
    """Corollary 2 (eq. 12) in float64, vectorised."""
    n, e, lam = _arrays(n, eps0, lam)
    with np.errstate(divide="ignore"):
        return _finish(np.log(lam * (lam - 1) / (2 * n)) + 2 * _log_expm1(e) - e, lam)
