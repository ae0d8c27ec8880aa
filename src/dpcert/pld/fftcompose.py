"""Composition in float64 by FFT, tilted, with a proved bound on every rounding: the fast path of the PLD engine.

The arb path (:mod:`dpcert.pld.compose`) multiplies balls; this module takes the same one-step measures
(:mod:`dpcert.pld.discretise`), rounds them to floats in the direction that keeps each end valid, composes them by
one forward FFT, a k-th power and one inverse FFT, and carries a rigorous bound on what the floats may have got
wrong. Every claim below is about the exact real value of a float array and is proved here; the float results are
never trusted beyond these bounds. The answer is an :class:`~dpcert.arith.ball.Enclosure` as on the arb path.

**1. Tilting.** Let w_j >= 0 (j the grid index, loss j/n) be one step's measure and ρ = e^{θ/n}, C = e^λ for a
float θ >= 1 and a float λ. Put x_j = w_j ρ^j / C. Convolution commutes with the tilt: (x^{∗k})_m = ρ^m (w^{∗k})_m /
C^k, so (w^{∗k})_m = C^k e^{−θm/n} (x^{∗k})_m. θ is chosen so that the tilted law has its bulk near the ε asked
for (:func:`saddle_theta`: k·E_θ[L] = ε; for ε(δ), :func:`rdp_theta`: the Rényi order of the RDP conversion
[Mir17], whose ε is just above the true one), λ so that Σ x_j ≈ 1 (the lower measure gets its own λ_lo: it keeps
the top tail the upper one leaves to k·P(L >= L_max), so its tilted mass may be larger). The tail δ depends on then
sits at the top of the float range, and an absolute error on x^{∗k} becomes, after untilting, a *relative* one on
δ — down to δ = 1e-300.

**2. Rounding the inputs.** The float x_up is >= the exact tilted upper measure componentwise, x_lo <= the exact
tilted lower measure (and >= 0). A larger measure raises every E f_c (f_c(y) = (y − c)₊ >= 0 and the composition
of non-negative measures is monotone in each factor), a smaller one lowers it, so the upper end stays an upper
bound and the lower end a lower bound. The factors ρ^j/C are formed as T1[j // B]·T2[j mod B], each table entry
from an Arb ball (:func:`_geometric`): away from underflow the relative error is at most 6u (u = 2^-53: two
conversions of at most one ulp each and one rounded product; T2 spans at most e^{±40}, so a product above 2^-950
has a normal T1), and a value whose float is below 2^-950 is below 2^-940. The atoms themselves are rounded from
their balls (midpoint ± one ulp ± the radius). So x_up = (W·ĝ)(1 + 7u) rounded up, plus 2^-930 wherever W > 0
(which covers W·2^-940 for W <= 1), and x_lo = (W·ĝ)(1 − 7u) rounded down, minus 2^-930, clipped at 0. The extra
mass, at most 2^-930 per cell, is far below the round-off bound B of §3. The largest tilt exponent must stay
below 690 (no overflow); a very negative one only underflows, which the above covers.

**3. The FFT and its round-off.** The transform is this module's own radix-2 network (:func:`_fft`; the error
analysis must be of the code that runs). Twiddles w_j = e^{−2πij/N} are T1·T2 products of Arb-rounded tables, so
∣ŵ − w∣ <= μ = (1 + 2u + 2^-70)²(1 + c) − 1 with c = √2·γ₂ (γ_m = mu/(1 − mu)) the bound on the relative error of
one complex product (∣fl(xy) − xy∣ <= √2γ₂∣xy∣ for the textbook formula, with or without a fused multiply-add: each
part's error is at most γ₂(∣ac∣ + ∣bd∣)); an addition errs by at most u times its result. *Claim:* after ℓ
butterfly levels every entry, which belongs to a subsequence of 2^ℓ inputs of ℓ1-mass S, is within (K^ℓ − 1)·S of
its exact value, K = (1 + μ)(1 + c)(1 + u). *Proof* by induction: an output is a ± f̂b with a, b from the two
halves (masses S_a + S_b = S, exact values of modulus <= S_a, S_b, errors e_a <= η S_a, e_b <= η S_b); the computed
value differs from the exact one by at most e_a + (1 + μ)(1 + c)e_b + (μ + (1 + μ)c)S_b + u·(S_a + e_a + (1 + μ)(1 +
c)(S_b + e_b)) <= (Kη + K − 1)(S_a + S_b). So the forward transform of an input of ℓ1-mass S errs by at most E =
(K^t − 1)·S in every entry (N = 2^t), and the inverse (the conjugated network, then the exact scaling 2^-t) of an
input Q̂ errs by at most (K^t − 1)Σ∣Q̂_j∣ / N plus Σ_j ∣Q̂_j − Q_j∣ / N for an input error.

The two measures travel together as z = x_up + i·x_lo; U_j = (Z_j + conj Z_{−j})/2 and L_j = (Z_j − conj Z_{−j})/(2i)
are their transforms, within e_U = E + u(S_up + E) (one rounded addition; halving and multiplying by i are exact).
The k-th power is taken by binary powering: the computed power of Û is Û^k·Π(1 + ε_i) over k − 1 products, so it
is within ((1 + c)^{k−1} − 1)∣Û∣^k of Û^k, and ∣Û^k − U^k∣ <= k·e_U·r^{k−1} with r >= max(∣Û∣, ∣U∣), bounded by
∣Û∣(1 + 3u) + e_U (the modulus is computed as a square root of a sum of squares: three roundings). Underflow only
adds absolute errors below 2^-1074 per operation, which the powering (intermediates of modulus <= 1 + 2^-20) can
amplify by at most 2^25·48 for k <= 2^24: below 2^-1000 in all, carried as such. Summing, the inverse transform
of Q̂ = Û^k + i·L̂^k is within B (:func:`_spectral_bound`) of the cyclic convolutions in every entry.

**4. Aliasing.** The cyclic convolution of length N is, at each index m of the chosen window [a, a + N), the
k-fold composition at m plus the composition's mass at the indices ≡ m (mod N) outside the window (>= 0). So the
computed real part plus B is an upper bound of (x_up^{∗k})_m — aliasing only adds mass there — and the imaginary
part minus B minus the lower composition's whole tilted mass outside the window, T, clipped at 0, is a lower
bound of (x_lo^{∗k})_m. T is bounded by Chernoff in Arb from the exact one-step measure: Σ_{m >= b} (v^{∗k})_m e^{θm/n}
<= e^{−sb/n} M(θ + s)^k and Σ_{m < a} <= e^{sa/n} M(θ − s)^k for s >= 0, M(τ) = Σ_j v_j e^{τj/n}. The upper end's
mass outside the window is handled in untilted terms the same way (§5). When the whole support fits (k(L − 1) < N)
there is no aliasing and T = 0. The window (a power of two) is placed in floats around both tilted laws' bulks
(± 10 s.d., widened until a float Chernoff estimate leaves less than e^-30 outside): only tightness depends on it.

**5. δ(ε), the whole curve.** For m0 = ⌊εn⌋ + 1 the first index above ε, and X⁺ >= x_up^{∗k} >= 0 on the window,

    Σ_{m >= m0} (w^{∗k})_m (e^{m/n} − e^ε) <= C^k Σ_{m >= m0} X⁺_m (e^{(1−θ)m/n} − e^ε e^{−θm/n}),

because each weight is >= 0; the right side is R1(m0) − e^ε R0(m0) with two reverse cumulative sums of
non-negative terms, computed once per composition (every ε, every probe of the inversion, reuses them). The
weights are written relative to the tilted mean m_ref, e^{(1−θ)(m − m_ref)/n} and e^{−θ(m − m_ref)/n}, the factor
e^{kλ + (1−θ)m_ref/n} (and e^{kλ + ε − θm_ref/n}) applied in Arb, and the sums cover only [base, end), where the
weights stay within [e^-650, e^690]: all normal, so each errs by at most 6u, each product by u (plus at most 2^-1074
if it underflows), and a sum of non-negative terms computed in any order by at most γ_m relative (m terms). The
lower end is the same sum over X⁻ with R1 rounded down and R0 up; a lower sum is never below 0. Outside
[base, end) the upper end adds untilted Chernoff bounds, Σ_{m >= end} (w^{∗k})_m e^{m/n} <= e^{−s·end/n}
M_up(1 + s)^k (also the whole answer for an ε past the window) and, when m0 < base, Σ_{m < base} (w^{∗k})_m e^{m/n}
<= e^{s·base/n} M_up(1 − s)^k (the lower end simply drops those indices). The upper end adds k·P_ac(L >= L_max) as
the arb path does (:mod:`dpcert.pld.discretise`), and both ends add the infinite part 1 − (1 − p)^k. An upper end
above 1 is replaced by 1 (δ <= 1), and ends below 2^-4000 by 2^-4000 (upper) or 0 (lower).

**6. Different steps** (:func:`compose_fft_mixed`). A heterogeneous composition — k_1 steps of one measure, k_2 of
another, …, k_p of a p-th, at one resolution n — is the same computation with the k-th power replaced by a product
of powers. One θ serves every part (:func:`saddle_theta_mixed`: Σ_i k_i E_θ[L_i] = ε; :func:`rdp_theta_mixed`:
the order minimising (Σ_i k_i log M_i(θ) + log 1/δ)/(θ − 1)); each part is tilted and rounded on its own (§2, its
own λ_i and λ_lo,i, so each has tilted mass about 1) and transformed by its own forward FFT of the common length N
(§3's E_i uses its own mass); its power P̂_i is within err_i of the exact A_i = U_i^{k_i}, and both have modulus
at most R_i = r_i^{k_i} + err_i. The computed powers are multiplied entrywise (:func:`_product`). Telescoping,

    P̂_1⋯P̂_p − A_1⋯A_p = Σ_i P̂_1⋯P̂_{i−1}·(P̂_i − A_i)·A_{i+1}⋯A_p,

so the exact product of the computed powers is within Σ_i err_i Π_{j≠i} R_j of Π_i A_i: the bounds compose
additively, each part's error weighted by the other parts' moduli (at most about 1 each: tilted masses near 1).
The p − 1 rounded complex products add at most ((1 + c)^{p−1} − 1)·Π_i R_i, and underflow at most 2^-1000 per
product (a lost 2^-1073 grown by later factors whose moduli multiply to at most e^16 for Σ k_i <= 2^24). This
per-entry bound replaces the single power's in B (:func:`_spectral_bound`); the lower measures' product is the
same with their own bounds. The rest is unchanged with the sums it implies: the composition's indices start at
Σ_i k_i off_i and end at Σ_i k_i (off_i + len_i − 1), the normaliser is C = e^{Σ_i k_i λ_i} (carried as the mean
λ = Σ_i k_i λ_i / k over k = Σ_i k_i steps, exactly, so that C = e^{kλ} as in the identical case), every Chernoff
bound of §4 and §5 uses Π_i M_i(τ)^{k_i} (the mgf of a sum of independent parts), the upper end adds Σ_i k_i
P_ac(L_i >= L_max,i) (the argument of :mod:`dpcert.pld.discretise`, step by step: the other factors have Q-mean
<= 1), and the infinite part is 1 − Π_i (1 − p_i)^{k_i}. One part is exactly the identical case: no product is
taken, and :func:`compose_fft` is :func:`compose_fft_mixed` of one part.

**7. The choices.** θ, λ, the window and every Chernoff parameter s are floats chosen for tightness; the proofs
above hold for any of them, and take each as the given number it is. They are found by searches that use the
convexity of a log-MGF ψ(τ) = log Σ_j v_j e^{τj/n} (ψ' is the τ-tilted mean, ψ'' its variance >= 0), not by grids:
a Chernoff exponent φ(s) = Σ_i k_i ψ_i(τ0 ± s) ∓ s·edge/n is convex in s, so its least value on [1e-4, 1e16] is at
the left end or at the root of the increasing φ', reached by Newton steps that fall back to bisecting the bracket
in log s (:func:`_min_chernoff`; the window's test stops at the first s whose estimate is below e^-30); the
saddle tilt solves the increasing Σ_i k_i ψ_i'(θ) = ε the same way; the Rényi bound (Σ_i k_i ψ_i(θ) + log 1/δ)/(θ − 1)
is quasi-convex in θ (its sublevel sets are where a convex function is <= 0), so the first of its 200 geometric grid
points within 0.1 % of the least is found by two bisections over the grid.

The path declines (returns ``None``, and the caller takes the arb path) when a tilt exponent would leave the float
range or the window would exceed :data:`MAX_WINDOW`.

References:
    Round-off: [Hig02] ch. 3 (γ_m, complex products) and ch. 24 (the radix-2 FFT's normwise bound); the bound above
    is a componentwise form for this module's network, proved here. The tilt is the classical exponential
    (Esscher) tilt; its order for ε(δ) is the RDP conversion's [Mir17].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np
from flint import acb, arb

from dpcert.arith.ball import Enclosure, ball, fraction_of, workprec
from dpcert.pld.discretise import Measure, StepMeasures, working_precision

__all__ = [
    "FloatComposed",
    "compose_fft",
    "compose_fft_mixed",
    "saddle_theta",
    "saddle_theta_mixed",
    "rdp_theta",
    "rdp_theta_mixed",
    "MAX_WINDOW",
]

#: The largest FFT length (complex entries) the float path takes; past it the arb path runs.
MAX_WINDOW = 2**22

_U = Fraction(1, 2**53)
#: Below this a float result of :func:`_geometric` may have left the normal range: its true value is < _FLOOR.
_SMALL = 2.0**-950
_FLOOR = 2.0**-940
#: An absolute allowance for underflow in the transform and the powering (§3 of the module docstring).
_UNDER = 2.0**-1000
_PREC = 128


def _gamma(m: int) -> Fraction:
    return m * _U / (1 - m * _U)


_TINY_FLOAT = 2.0**-1070
_TINY_ARB = arb(2) ** -1070
_HUGE_ARB = arb(2) ** 1000


def _up(x: Fraction | arb) -> float:
    """A float >= x (exact rational or ball)."""
    if isinstance(x, arb):
        if x < _TINY_ARB:  # an exponent far below the float range: its exact fraction would be huge
            return _TINY_FLOAT
        if not x.upper() < _HUGE_ARB:
            return math.inf
        x = fraction_of(x.upper())
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _down(x: Fraction | arb) -> float:
    """A float <= x."""
    if isinstance(x, arb):
        if abs(x) < _TINY_ARB:
            return 0.0 if x >= 0 else -_TINY_FLOAT
        x = fraction_of(x.lower())
    f = float(x)
    return f if Fraction(f) <= x else math.nextafter(f, -math.inf)


#: c = √2·γ₂ (√2 < 1.4143): the relative error of one complex product.
_C = Fraction(14143, 10000) * _gamma(2)
#: μ: the error of one twiddle factor (two rounded table entries, one rounded product).
_MU = (1 + 2 * _U + Fraction(1, 2**70)) ** 2 * (1 + _C) - 1
#: K: the per-level factor of the FFT bound.
_K = (1 + _MU) * (1 + _C) * (1 + _U)


@lru_cache(maxsize=24)
def _fft_factor(t: int) -> float:
    """A float >= K^t − 1."""
    return _up(_K**t - 1)


@lru_cache(maxsize=64)
def _power_factor(k: int) -> float:
    """A float >= (1 + c)^{k−1} − 1 (the relative error of a binary-powered k-th power)."""
    with workprec(_PREC):
        return _up((1 + ball(_C)) ** (k - 1) - 1)


def _next_up(x: np.ndarray) -> np.ndarray:
    """``np.nextafter(x, inf)`` for floats x >= 0 (or −0), in place and bit for bit, at a sixth of its cost.

    For a float x >= +0 that is finite, the next float up has the next integer as its bit pattern (IEEE 754 orders
    non-negative floats as their patterns); −0 is first made +0 (−0 + 0 = +0), and +∞ and NaN are left as they are
    (``np.nextafter`` leaves them too)."""
    x += 0.0
    bits = x.view(np.int64)
    np.add(bits, 1, out=bits, where=x < np.inf)
    return x


def _rel_up(v: np.ndarray, rel: float) -> np.ndarray:
    """Floats >= v·(1 + rel) (v >= 0 elementwise): one rounded product, then one ulp up."""
    return _next_up(v * (1.0 + (rel + 4 * 2.0**-53)))


def _rel_down(v: np.ndarray, rel: float) -> np.ndarray:
    """Floats <= v·(1 − rel), clipped at 0 (v >= 0)."""
    return np.maximum(np.nextafter(v * (1.0 - (rel + 4 * 2.0**-53)), -np.inf), 0.0)


def _sum_up(v: np.ndarray) -> float:
    """A float >= Σ v (v >= 0 floats): any summation order errs by at most γ_{len} relative."""
    s = float(np.sum(v))
    return _up(Fraction(s) * (1 + _gamma(len(v) + 2))) if s > 0 else 0.0


# ---------------------------------------------------------------------------------------------------- tables


def _geometric(alpha: Fraction, beta: Fraction, count: int) -> np.ndarray:
    """Floats ĝ_i ≈ e^{α + βi}, i < count, with |ĝ_i − e^{α+βi}| <= 6u·ĝ_i + 2^-940 (module docstring §2).

    The caller keeps α + βi <= 700 (no overflow). T2 spans at most e^{±40}, so a float product above 2^-950 has a
    normal T1 factor (relative errors apply); below it the true value is below 2^-940.
    """
    if count <= 0:
        return np.zeros(0)
    b = max(1, math.isqrt(count))
    if abs(beta) * b > 40:
        b = max(1, int(40 / abs(beta)))
    a = -(-count // b)
    with workprec(_PREC):
        eb = ball(beta)
        t2 = np.array([float((eb * i).exp()) for i in range(b)])
        base, step = ball(alpha), eb * b
        t1 = np.array([float((base + step * i).exp()) for i in range(a)])
    return np.outer(t1, t2).ravel()[:count]


@lru_cache(maxsize=8)
def _twiddles(size: int) -> np.ndarray:
    """ŵ_j ≈ e^{−2πij/N} for j < N/2, each within μ of the exact root (T1·T2 of Arb-rounded tables)."""
    half = size // 2
    b = 1 << (half.bit_length() // 2)
    a = max(1, half // b)
    with workprec(_PREC):

        def root(j: int) -> complex:
            z = acb(ball(Fraction(-2 * j, size))).exp_pi_i()
            return complex(float(z.real), float(z.imag))

        t1 = np.array([root(i * b) for i in range(a)], dtype=complex)
        t2 = np.array([root(i) for i in range(b)], dtype=complex)
    return np.outer(t1, t2).ravel()[:half]


def _fft(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The DFT Σ_c z_c e^{−2πijc/N} by radix-2 decimation in time (natural order in and out; N a power of 2).

    Row r of X holds frequency r of the DFTs of the subsequences of stride N/R (column c: offset c); one level
    merges offsets c and c + N/(2R) by the butterfly E ± ω_{2R}^r O.
    """
    size = len(z)
    x = z.reshape(1, size)
    rows = 1
    while rows < size:
        half = x.shape[1] // 2
        even, odd = x[:, :half], x[:, half:]
        t = w[:: size // (2 * rows)][:rows, None] * odd
        out = np.empty((2 * rows, half), dtype=complex)
        np.add(even, t, out=out[:rows])
        np.subtract(even, t, out=out[rows:])
        x = out
        rows *= 2
    return x.ravel()


def _ifft_unscaled(q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ_j q_j e^{+2πijm/N} (the conjugated network; conjugation is exact)."""
    return np.conj(_fft(np.conj(q), w))


def _pow(z: np.ndarray, k: int) -> np.ndarray:
    """z^k elementwise by binary powering: k − 1 products per entry at most, never libm's pow. For complex z each
    product is one rounded complex product; for real r >= 0 the result is within (1 + u)^{k−1} − 1 <= γ_k relative,
    plus underflow."""
    result = None
    base = z
    while k:
        if k & 1:
            result = base if result is None else result * base
        k >>= 1
        if k:
            base = base * base
    assert result is not None
    return result


def _modulus_up(z: np.ndarray) -> np.ndarray:
    """Floats >= |z| (a square root of a sum of squares: three roundings, so (1 + 3u) and one ulp cover them)."""
    return _rel_up(np.sqrt(z.real * z.real + z.imag * z.imag), 3 * 2.0**-53)


def _power(hat: np.ndarray, e: float, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The k-th powers of the transform Ĥ (each within e of the exact H), per entry a float bound on |computed
    power − H^k| (module docstring §3), and per entry a float R >= both |computed power| and |H^k| (§6). Where r^k
    (r >= |Ĥ|, |H|) is below 2^-1000 the power is not taken: 0 is returned, within r^k of H^k."""
    gk = _up(2 * _gamma(k + 2))
    r = _modulus_up(hat) + e
    rk = _rel_up(_pow(r, k), gk) + _UNDER
    live = rk > _UNDER * 2
    power = np.zeros_like(hat)
    err = rk.copy()
    if np.any(live):
        power[live] = _pow(hat[live], k)
        rl = r[live]
        rk1 = _rel_up(_pow(rl, k - 1), gk) + _UNDER if k > 1 else np.ones_like(rl)
        err[live] = _power_factor(k) * rk[live] + (k * e) * rk1 + _UNDER
    err = _rel_up(err, 4 * 2.0**-53)
    return power, err, _rel_up(rk + err, 2.0**-53)


def _product(factors: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The entrywise product of the computed powers P̂_i (each within e_i of the exact A_i, both of modulus <= R_i)
    and a float bound on |computed product − Π A_i| per entry (module docstring §6); one factor is returned as it
    is."""
    if len(factors) == 1:
        return factors[0][0], factors[0][1]
    m = len(factors)
    prod = factors[0][0]
    for p, _, _ in factors[1:]:
        prod = prod * p
    mags = [r for _, _, r in factors]
    # prefix and suffix products of the R_i (non-negative floats: each product within one u relative)
    pre = [np.ones_like(mags[0])]
    for r in mags[:-1]:
        pre.append(pre[-1] * r)
    suf = [np.ones_like(mags[0])]
    for r in mags[:0:-1]:
        suf.append(suf[-1] * r)
    suf.reverse()
    spread = sum(e * pre[i] * suf[i] for i, (_, e, _) in enumerate(factors))
    whole = pre[-1] * mags[-1]
    # the m − 1 rounded complex products: (1 + c)^{m−1} − 1 relative to Π |P̂_i| <= Π R_i
    err = _rel_up(spread, _up(_gamma(3 * m + 4))) + _rel_up(whole, _up(_gamma(m + 2))) * _power_factor(m)
    return prod, _rel_up(err + (m - 1) * _UNDER, 4 * 2.0**-53)


def _spectral_bound(err_u: np.ndarray, err_l: np.ndarray, q_hat: np.ndarray) -> float:
    """B: every entry of the computed inverse transform of Q̂ = Û^k + iL̂^k is within B of the exact cyclic
    convolutions (module docstring §3), given the powers' error bounds. All sums are of non-negative floats,
    inflated by γ_len."""
    size = len(q_hat)
    t = size.bit_length() - 1
    total = Fraction(_sum_up(err_u)) + Fraction(_sum_up(err_l))
    s_q = Fraction(_sum_up(_modulus_up(q_hat)))
    total += s_q * _U * 2  # the rounded addition Û^k + i·L̂^k
    bound = (total * (1 + _gamma(8)) + Fraction(_fft_factor(t)) * s_q * (1 + _gamma(4))) / size
    return _up(bound * (1 + Fraction(1, 10**6)) + Fraction(_UNDER))


def _cyclic_power(x_up: np.ndarray, x_lo: np.ndarray, k: int, size: int) -> tuple[np.ndarray, float]:
    """The k-fold cyclic convolutions (length N = ``size``, a power of 2) of two non-negative float vectors of
    ℓ1-mass <= 1 + 2^-20, as the real and imaginary parts of one complex array, and B: every part of every entry is
    within B of the exact cyclic convolution of the floats given (module docstring §3)."""
    return _cyclic_product([(x_up, x_lo, k)], size)


def _cyclic_product(parts: list[tuple[np.ndarray, np.ndarray, int]], size: int) -> tuple[np.ndarray, float]:
    """The cyclic convolutions (length N = ``size``, a power of 2) of the k_i-fold powers of several pairs (x_up,
    x_lo, k_i) of non-negative float vectors of ℓ1-mass <= 1 + 2^-20 (each no longer than N), as the real (upper)
    and imaginary (lower) parts of one complex array, and B: every part of every entry is within B of the exact
    cyclic convolutions of the floats given (module docstring §3 and §6)."""
    t = size.bit_length() - 1
    w = _twiddles(size)
    ups, los = [], []
    for x_up, x_lo, k in parts:
        length = len(x_up)
        s_up, s_lo = _sum_up(x_up), _sum_up(x_lo)
        z = np.zeros(size, dtype=complex)
        z.real[:length] = x_up
        z.imag[:length] = x_lo
        zf = _fft(z, w)
        zr = np.conj(np.roll(zf[::-1], 1))  # conj Z_{−j}
        u_hat = (zf + zr) * 0.5
        l_hat = (zf - zr) * -0.5j
        e_f = Fraction(_fft_factor(t)) * (Fraction(s_up) + Fraction(s_lo))
        e_u = _up(e_f * (1 + _U) + _U * Fraction(s_up))
        e_l = _up(e_f * (1 + _U) + _U * Fraction(s_lo))
        ups.append(_power(u_hat, e_u, k))
        los.append(_power(l_hat, e_l, k))
    pu, err_u = _product(ups)
    pl, err_l = _product(los)
    q_hat = pu + 1j * pl
    y = _ifft_unscaled(q_hat, w) * (1.0 / size)
    return y, _spectral_bound(err_u, err_l, q_hat)


# ---------------------------------------------------------------------------------------------- the measures


#: The last few measures converted (keyed by the polynomial's identity, which the entry keeps alive).
_CONVERTED: list[tuple[object, np.ndarray, np.ndarray]] = []


def _floats(meas: Measure, upper: bool) -> np.ndarray:
    """The measure's atoms as floats, >= the exact ones (``upper``) or <= them and >= 0."""
    if meas.values is not None:  # built in floats: the floats are the atoms, exactly
        return meas.values
    for poly, up, lo in _CONVERTED:
        if poly is meas.poly:
            return up if upper else lo
    coeffs = meas.poly.coeffs()
    mid = np.array([float(c.mid()) for c in coeffs])
    rad = np.array([float(c.rad()) for c in coeffs])
    slack = np.abs(mid) * 2.0**-50 + 2 * rad  # one ulp of each conversion, and the radius
    up = np.maximum(np.nextafter(mid + slack, np.inf), 0.0)
    lo = np.maximum(np.nextafter(mid - slack, -np.inf), 0.0)
    _CONVERTED.append((meas.poly, up, lo))
    del _CONVERTED[:-8]
    return up if upper else lo


def _log_mgf_float(logw: np.ndarray, off: int, n: int, tau: float) -> float:
    """log Σ_j w_j e^{τj/n} in floats (tightness only)."""
    e = logw + tau * (np.arange(len(logw)) + off) / n
    top = float(np.max(e))
    if not math.isfinite(top):
        return -math.inf
    return top + math.log(float(np.sum(np.exp(e - top))))


#: The range of Chernoff parameters s searched in floats: from 1e-4 to 1e16, since a loss of scale h needs s about
#: 1/h².
_S_LO, _S_HI = 1e-4, 1e16


def _finite(logw: np.ndarray, off: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The finite log-atoms of a measure and their losses (j + off)/n, in floats (tightness only)."""
    finite = np.isfinite(logw)
    return logw[finite], ((np.arange(len(logw)) + off) / n)[finite]


def _cumulants(lw: np.ndarray, ix: np.ndarray, tau: float) -> tuple[float, float, float]:
    """(ψ(τ), ψ'(τ), ψ''(τ)) in floats for ψ(τ) = log Σ_j e^{lw_j + τ·ix_j}: the log-MGF, the tilted law's mean and its
    variance (one pass of exponentials; tightness only)."""
    e = lw + tau * ix
    top = float(np.max(e))
    p = np.exp(e - top)
    mass = float(np.sum(p))
    mean = float(np.sum(p * ix)) / mass  # not p @ ix: BLAS' threaded dot costs milliseconds on a busy machine
    d = ix - mean
    return top + math.log(mass), mean, float(np.sum(p * d * d)) / mass


def _min_chernoff(
    terms: list[tuple[np.ndarray, np.ndarray, int]], tau0: float, sign: int, c: float, stop: float | None = None
) -> tuple[float, float]:
    """The s in [1e-4, 1e16] minimising φ(s) = Σ_i k_i ψ_i(τ0 + sign·s) − sign·s·c (``terms``: (finite log-atoms,
    losses, k_i), :func:`_finite`), and φ there, in floats (tightness only).

    Each ψ_i is convex (a log-MGF), so φ is convex in s and its derivative φ'(s) = sign·(Σ_i k_i ψ_i'(τ) − c) is
    increasing: the minimiser is the left end when φ'(1e-4) >= 0, else the root of φ', bracketed in log s and found
    by Newton steps (φ'' = Σ_i k_i ψ_i'' >= 0) that fall back to bisecting the bracket in log s whenever a step
    leaves it. The point of least φ evaluated is returned. With ``stop``, the search ends at the first point whose φ
    is below it (:func:`_outside_small` needs only that)."""
    if any(len(lw) == 0 for lw, _, _ in terms):
        return _S_LO, -math.inf

    def at(s: float) -> tuple[float, float, float]:
        val = der = cur = 0.0
        for lw, ix, k in terms:
            v, m, var = _cumulants(lw, ix, tau0 + sign * s)
            val, der, cur = val + k * v, der + k * m, cur + k * var
        return val - sign * s * c, sign * (der - c), cur

    s = _S_LO
    f, d, h = at(s)
    best = (f, s)
    if d >= 0 or (stop is not None and f < stop):
        return s, f
    a, b = math.log(_S_LO), math.log(_S_HI)
    for _ in range(200):
        step = s - d / h if h > 0 else math.nan
        if not (math.exp(a) < step < math.exp(b)):  # outside the bracket (or no curvature): bisect it in log s
            step = math.exp((a + b) / 2)
        f, d, h = at(step)
        if f < best[0]:
            best = (f, step)
        if stop is not None and f < stop:
            break
        if d < 0:
            a = math.log(step)
        elif d > 0:
            b = math.log(step)
        if d == 0 or abs(step - s) <= 1e-7 * step or b - a <= 1e-7:
            break
        s = step
    return best[1], best[0]


def _log_mgf(meas: Measure, n: int, tau: Fraction) -> arb:
    """A ball whose upper end bounds log Σ_j v_j e^{τj/n} for the exact measure (Arb's polynomial evaluation)."""
    top = meas.poly(ball(tau / n).exp()).upper()  # an upper bound of the (non-negative) exact sum
    if not top > 0:
        return arb("-inf")
    return ball(tau * meas.off / n) + top.log()


def _chernoff(
    terms: list[tuple[Measure, np.ndarray, int]], n: int, tau0: float, edge: int, above: bool
) -> tuple[arb, Fraction]:
    """An upper bound, as a ball's log, of Σ_{m >= edge} (v_1^{*k_1} ∗ … ∗ v_p^{*k_p})_m e^{τ0 m/n} (``above``) or
    of Σ_{m < edge}: e^{∓s·edge/n}·Π_i M_i(τ0 ± s)^{k_i} for the s >= 0 that is best in floats, then proved in Arb.
    ``terms`` holds (v_i, log of its floats, k_i). Returns (log bound, s). The composition's support is [Σ k_i·off_i,
    Σ k_i·(off_i + len_i − 1)], so a side beyond it has no mass at all (log bound −∞)."""
    top = sum(k * (meas.off + meas.length - 1) for meas, _, k in terms)
    bottom = sum(k * meas.off for meas, _, k in terms)
    if (above and edge > top) or (not above and edge <= bottom):
        return arb("-inf"), Fraction(0)
    flat = [(*_finite(logw, meas.off, n), k) for meas, logw, k in terms]
    best_s, _ = _min_chernoff(flat, tau0, 1 if above else -1, edge / n)
    s = Fraction(best_s).limit_denominator(1 << 20) if best_s < 1e6 else Fraction(round(best_s))
    tau = Fraction(tau0) + (s if above else -s)
    log_m = sum((k * _log_mgf(meas, n, tau) for meas, _, k in terms), arb(0))
    sign = -1 if above else 1
    return log_m + ball(sign * s * edge / n), s


def _tilted_law(parts: list[tuple[np.ndarray, float, int]]) -> tuple[float, float, list]:
    """The law of a sum of k_i draws from each x_i/mass_i: (mean index, s.d., [(log x_i/mass_i, k_i, k_i·mean_i)]),
    indices of each part from 0, in floats (tightness only)."""
    mean, var, terms = 0.0, 0.0, []
    for x, mass, k in parts:
        jj = np.arange(len(x), dtype=float)
        xs = x / max(mass, 1e-300)
        mu = float(np.sum(xs * jj))
        v = max(float(np.sum(xs * (jj - mu) ** 2)), 0.0)
        mean += k * mu
        var += k * v
        with np.errstate(divide="ignore"):
            terms.append((np.log(xs), k, k * mu))
    return mean, math.sqrt(var), terms


def _place(laws: list, n: int, full: int, length: int) -> tuple[int, int] | None:
    """A window (start, size) relative to the composition's first index, covering each law's bulk, or None past
    :data:`MAX_WINDOW`."""
    lo = min(mu - 10 * sd - 16 for mu, sd, _ in laws)
    hi = max(mu + 10 * sd + 16 for mu, sd, _ in laws)
    size = 1 << max(1, math.ceil(math.log2(max(min(full, hi - lo), length, 2))))
    while size < full:
        if size > MAX_WINDOW:
            return None
        start = min(max(0, round((lo + hi) / 2 - size / 2)), full - size)
        if all(_outside_small(terms, n, start, start + size) for _, _, terms in laws):
            return start, size
        size *= 2
    return (0, size) if size <= MAX_WINDOW else None


#: The tilted mass (of about 1) a window may leave outside, by float Chernoff estimates: e^-30 ≈ 1e-13, about the
#: round-off bound B, so that the aliased mass the lower end gives up per entry (T, §4) costs no more than the
#: rounding does (tightness only).
_OUTSIDE_LOG = -30.0


def _outside_small(terms: list, n: int, lo: int, hi: int, log_tol: float = _OUTSIDE_LOG) -> bool:
    """Whether float Chernoff estimates put less than e^{log_tol} of the law of a sum of k_i draws from each x_i
    (``terms`` from :func:`_tilted_law`, indices from 0) below ``lo`` and at or above ``hi`` (tightness only: the
    certified bounds are :func:`_chernoff`'s)."""
    flat = [(*_finite(logx, 0, n), k) for logx, k, _ in terms]
    for above in (True, False):
        edge = hi if above else lo
        if not above and lo <= 0:
            continue
        _, best = _min_chernoff(flat, 0.0, 1 if above else -1, edge / n, stop=log_tol)
        if best > log_tol:
            return False
    return True


#: Ends below 2^-4000 are written as 2^-4000 (upper) or 0 (lower): their exact fractions would be huge.
_END_FLOOR = Fraction(1, 2**4000)


def _ends(x: arb, upper: bool) -> Fraction:
    """The upper end of x capped to [2^-4000, 1] (``upper``), or its lower end clipped to [0, 1]."""
    if not x.is_finite():
        return Fraction(1) if upper else Fraction(0)
    if upper:
        return (
            Fraction(1)
            if not x < 1
            else _END_FLOOR
            if x < arb(_END_FLOOR.numerator) / _END_FLOOR.denominator
            else fraction_of(x.upper())
        )
    if not x > arb(_END_FLOOR.numerator) / _END_FLOOR.denominator:
        return Fraction(0)
    return min(Fraction(1), fraction_of(x.lower()))


def _nonneg(x: arb) -> arb:
    """A ball for max(0, x): 0 when x is not certainly positive, else x (a lower bound of a non-negative sum)."""
    return x if x > 0 else arb(0)


@dataclass(frozen=True)
class FloatComposed:
    """A composition in one direction by the float path: the tilted composed measures on a window, as reverse
    cumulative sums, with every bound needed to turn them into a certified δ(ε) (module docstring §5).

    Attributes:
        n: the resolution. steps: k (Σ k_i for a composition of different steps). theta: the tilt θ (an exact
            float). lam, lam_lo: the normalisers λ and λ_lo (exact: floats, or for different steps the means
            Σ_i k_i λ_i / k, module docstring §6).
        base: the first grid index the sums cover; ref: the index their weights are relative to; end: one past the
            window's last index.
        r1_up, r0_up, r1_lo, r0_lo: reverse cumulative sums (floats), from base on, of X± times e^{(1−θ)(m − ref)/n}
            and e^{−θ(m − ref)/n}.
        rel: the relative allowance of those sums (γ and the weights' 6u), as a float.
        floor_up, floor_lo: their absolute allowance (the weights' 2^-940 times the mass).
        above_log: a ball, log of the upper measure's untilted mass above the window (−inf if none).
        below_log: a ball, log of the same below ``base``.
        error: k·P_ac(L >= L_max) (Σ_i k_i P_ac(L_i >= L_max,i)), added to the upper end. infinite: 1 − (1 − p)^k
            (1 − Π_i (1 − p_i)^{k_i}).
        bound: B, the round-off bound on every composed entry (tilted units; for reports).
        alt: another composition of the same steps whose lower end is valid too, or None (as
            :class:`dpcert.pld.compose.Composed`'s; only :func:`dpcert.pld.accountant.delta_of` reads it).
    """

    n: int
    steps: int
    theta: Fraction
    lam: Fraction
    lam_lo: Fraction
    base: int
    ref: int
    end: int
    r1_up: np.ndarray
    r0_up: np.ndarray
    r1_lo: np.ndarray
    r0_lo: np.ndarray
    rel: Fraction
    floor_up: float
    floor_lo: float
    above_log: arb
    below_log: arb
    error: arb
    infinite: arb = field(default_factory=lambda: arb(0))
    bound: float = 0.0
    alt: object = None

    @cached_property
    def _fixed(self) -> tuple[arb, ...]:
        """The balls :meth:`delta` uses that do not depend on ε, formed once at the precision it works at (the same
        operations at the same precision: the same balls as forming them at every call)."""
        n, k, theta = self.n, self.steps, self.theta
        with workprec(working_precision(n)):
            ref = Fraction(self.ref, n)
            k_lam, k_lam_lo = k * ball(self.lam), k * ball(self.lam_lo)
            return (
                1 + ball(self.rel),
                k_lam,
                k_lam_lo,
                (k_lam + ball((1 - theta) * ref)).exp(),
                (k_lam_lo + ball((1 - theta) * ref)).exp(),
                ball(Fraction(self.floor_up)),
                ball(Fraction(self.floor_lo)),
                self.above_log.exp(),
                self.below_log.exp(),
            )

    def delta(self, eps: Fraction) -> Enclosure:
        """The certified enclosure of this direction's δ_k(ε) (lower end >= 0, upper end <= 1)."""
        n, theta = self.n, self.theta
        m0 = math.floor(eps * n) + 1
        top = self.end - 1
        one, k_lam, k_lam_lo, f1, g1, floor_up, floor_lo, above, below = self._fixed
        with workprec(working_precision(n)):
            lo = arb(0)
            hi = arb(0)
            if m0 <= top:
                r0 = max(0, m0 - self.base)
                ref = Fraction(self.ref, n)
                f0 = (k_lam + ball(eps - theta * ref)).exp()
                s1u = ball(Fraction(float(self.r1_up[r0]))) * one + floor_up
                # a sum of non-negative terms is >= 0: the floor never makes it negative
                s0u = _nonneg(ball(Fraction(float(self.r0_up[r0]))) / one - floor_up)
                hi = f1 * s1u - f0 * s0u
                g0 = (k_lam_lo + ball(eps - theta * ref)).exp()
                s1l = _nonneg(ball(Fraction(float(self.r1_lo[r0]))) / one - floor_lo)
                s0l = ball(Fraction(float(self.r0_lo[r0]))) * one + floor_lo
                lo = g1 * s1l - g0 * s0l
                hi += above
                if m0 < self.base:
                    hi += below
            else:  # past the window: the bound on the untilted mass above it covers every larger ε
                hi = above
            hi = hi + self.error + self.infinite
            lo = lo + self.infinite
        lo_f = _ends(lo, upper=False)
        hi_f = _ends(hi, upper=True)
        return Enclosure(lo_f, hi_f)


# --------------------------------------------------------------------------------------------- the tilt choice


def _logw(meas: Measure) -> np.ndarray:
    """log of the measure's atoms rounded up (their balls' radii included, as Arb's evaluation includes them)."""
    with np.errstate(divide="ignore"):
        return np.log(_floats(meas, True))


def _theta_cap(meas: Measure, n: int, limit: float = math.inf) -> float:
    """The largest θ (floats, tightness only) whose tilt factor e^{θj/n − λ(θ)} stays below e^600 at the top of one
    step's range (below the float range at the bottom only underflows, which the bounds cover); ``limit`` when that
    one fits already (the callers take the smaller of the two). The exponent θ·top − log M(θ) has derivative top −
    E_θ[L] >= 0, so "fits" is monotone in θ and a fitting ``limit`` bounds the cap from below."""
    logw = _logw(meas)
    top = (meas.off + meas.length - 1) / n

    def fits(theta: float) -> bool:
        return theta * top - _log_mgf_float(logw, meas.off, n, theta) <= 600

    if not fits(1.0):
        return 1.0
    if limit < math.inf and fits(limit):
        return limit
    lo, hi = 1.0, 2.0
    while fits(hi) and hi < 1e12:
        lo, hi = hi, hi * 2
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


#: The largest tilt chosen (past it a bounded loss near its maximum is answered by the top cells
#: alone, and a larger tilt narrows nothing).
_THETA_MAX = 2000.0


def saddle_theta(step: StepMeasures, steps: int, eps: Fraction) -> float:
    """The tilt θ >= 1 at which the tilted k-fold law has its mean at ε (floats; tightness only): the tilted law
    then has its bulk where δ(ε) is decided. θ = 1 when the P-law's mean is above ε already."""
    return saddle_theta_mixed([(step, steps)], eps)


def saddle_theta_mixed(parts: Sequence[tuple[StepMeasures, int]], eps: Fraction) -> float:
    """:func:`saddle_theta` for a composition of k_i steps of each part (StepMeasures, k_i): the θ at which the
    tilted law of the sum, Σ_i k_i E_θ[L_i], is ε."""
    terms = [(*_finite(_logw(step.upper), step.upper.off, step.n), steps) for step, steps in parts]

    def mean_at(theta: float) -> tuple[float, float]:
        mean = var = 0.0
        for lw, ix, steps in terms:
            _, m, v = _cumulants(lw, ix, theta)
            mean, var = mean + steps * m, var + steps * v
        return mean, var

    # the tilted mean is increasing in θ (its derivative is the tilted variance): Newton steps, each kept inside the
    # bracket [lo, hi] of the root or replaced by its midpoint
    target = float(eps)
    lo, hi = 1.0, min(min(_theta_cap(step.upper, step.n, _THETA_MAX) for step, _ in parts), _THETA_MAX)
    m, v = mean_at(lo)
    if m >= target:
        return 1.0
    if mean_at(hi)[0] <= target:
        return hi
    theta = lo
    for _ in range(100):
        step = theta + (target - m) / v if v > 0 else math.nan
        if not lo < step < hi:
            step = (lo + hi) / 2
        m, v = mean_at(step)
        if m < target:
            lo = step
        else:
            hi = step
        if abs(step - theta) <= 1e-13 * step or hi - lo <= 1e-13 * hi:
            return step
        theta = step
    return theta


def rdp_theta(step: StepMeasures, steps: int, delta: Fraction) -> float:
    """The tilt θ > 1 minimising the Rényi bound (k log M(θ) + log(1/δ))/(θ − 1) (floats; tightness only): its
    ε is just above the true ε(δ), so the tilted law has its bulk there."""
    return rdp_theta_mixed([(step, steps)], delta)


def rdp_theta_mixed(parts: Sequence[tuple[StepMeasures, int]], delta: Fraction) -> float:
    """:func:`rdp_theta` for a composition of k_i steps of each part: the θ minimising (Σ_i k_i log M_i(θ) +
    log(1/δ))/(θ − 1)."""
    ld = math.log(delta.numerator) - math.log(delta.denominator)
    cap = min(min(_theta_cap(step.upper, step.n, _THETA_MAX) for step, _ in parts), _THETA_MAX)
    grid = np.geomspace(1.0001, max(cap, 1.001), 200)
    terms = [(_logw(step.upper), step.upper.off, step.n, steps) for step, steps in parts]
    memo: dict[int, float] = {}

    def bound(i: int) -> float:
        if i not in memo:
            th = float(grid[i])
            memo[i] = (sum(steps * _log_mgf_float(logw, off, n, th) for logw, off, n, steps in terms) - ld) / (th - 1)
        return memo[i]

    # The bound is quasi-convex in θ (its sublevel sets {θ : Σ k_i log M_i(θ) − ld <= t(θ − 1)} are intervals, since
    # Σ k_i log M_i(θ) − ld − t(θ − 1) is convex in θ), so on the grid its values fall, then rise: the first index
    # whose successor is no smaller holds the least value, and the indices within 0.1 % of it form a run that
    # contains it. Both are found by bisection over the grid: some 20 evaluations instead of 200, and the θ that
    # evaluating them all picks (up to rounding where the bound is flat to the last bits).
    lo, hi = 0, len(grid) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if bound(mid + 1) >= bound(mid):
            hi = mid
        else:
            lo = mid + 1
    best = bound(lo)
    # the smallest θ within 0.1 % of the best: a bounded loss's bound flattens as θ grows, and a needlessly large
    # tilt only narrows the range of ε the composition answers well
    limit = best + 1e-3 * abs(best)
    first, last = 0, lo
    while first < last:
        mid = (first + last) // 2
        if bound(mid) <= limit:
            last = mid
        else:
            first = mid + 1
    return float(grid[first])


# ---------------------------------------------------------------------------------------------- composition


def _aligned(step: StepMeasures) -> tuple[int, np.ndarray, np.ndarray]:
    """Both measures as floats on one index range: (offset, upper floats, lower floats)."""
    up = _floats(step.upper, True)
    lo = _floats(step.lower, False)
    off = min(step.upper.off, step.lower.off)
    end = max(step.upper.off + len(up), step.lower.off + len(lo))
    u = np.zeros(end - off)
    v = np.zeros(end - off)
    u[step.upper.off - off : step.upper.off - off + len(up)] = up
    v[step.lower.off - off : step.lower.off - off + len(lo)] = lo
    return off, u, v


def compose_fft(
    step: StepMeasures, steps: int, theta: float, progress: Callable[[str], None] | None = None
) -> FloatComposed | None:
    """The k-fold composition of one direction's step measures by the float path (module docstring), or ``None``
    when the float path declines (a tilt past the float range, a window past :data:`MAX_WINDOW`).

    Args:
        step: one step's measures. steps: k >= 1. theta: the tilt (float >= 1; :func:`saddle_theta`,
            :func:`rdp_theta`).
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, not {steps}")
    return compose_fft_mixed([(step, steps)], theta, progress)


@dataclass
class _Part:
    """One part of a composition, prepared: its measures, count, aligned offset and tilted floats."""

    step: StepMeasures
    k: int
    off: int
    lam: Fraction
    lam_lo: Fraction
    x_up: np.ndarray
    x_lo: np.ndarray
    s_up: float
    s_lo: float


def _prepare(step: StepMeasures, k: int, th: Fraction) -> _Part | None:
    """One part's tilted, normalised, rounded floats (module docstring §1–§2), or None past the float range."""
    n = step.n
    off, w_up, w_lo = _aligned(step)
    length = len(w_up)
    # the normaliser λ (a float, exact from here on): Σ x_up ≈ 1
    with np.errstate(divide="ignore"):
        logw = np.log(w_up)
    lam_f = _log_mgf_float(logw, off, n, float(th))
    if not math.isfinite(lam_f):
        return None
    lam = Fraction(lam_f)
    with np.errstate(divide="ignore"):
        lam_lo_f = _log_mgf_float(np.log(w_lo), off, n, float(th))
    # the lower measure's own normaliser λ_lo (its mass may exceed the upper's: it keeps the top tail)
    lam_lo = Fraction(lam_lo_f) if math.isfinite(lam_lo_f) else lam
    beta = th / n
    alpha, alpha_lo = th * off / n - lam, th * off / n - lam_lo
    # the tilt tables' largest exponent within the float range (a smaller one only underflows: module docstring §2)
    if max(float(al + beta * length) for al in (alpha, alpha_lo)) > 690:
        return None
    g = _geometric(alpha, beta, length)
    g_lo = g if lam_lo == lam else _geometric(alpha_lo, beta, length)
    x_up = _rel_up(w_up * g, 7 * 2.0**-53) + np.where(w_up > 0, 2.0**-930, 0.0)
    x_lo = np.maximum(_rel_down(w_lo * g_lo, 7 * 2.0**-53) - np.where(w_lo > 0, 2.0**-930, 0.0), 0.0)
    s_up, s_lo = _sum_up(x_up), _sum_up(x_lo)
    if not (s_up <= 1 + 2.0**-20 and s_lo <= 1 + 2.0**-20):
        return None
    return _Part(step, k, off, lam, lam_lo, x_up, x_lo, s_up, s_lo)


def compose_fft_mixed(
    parts: Sequence[tuple[StepMeasures, int]], theta: float, progress: Callable[[str], None] | None = None
) -> FloatComposed | None:
    """The composition of k_i steps of each part (one direction's step measures, k_i) by the float path: the
    product of the parts' transforms raised to their counts, at one resolution, one tilt and one window (module
    docstring, §6), or ``None`` when the float path declines (a tilt past the float range, a window past
    :data:`MAX_WINDOW`).

    Args:
        parts: pairs (one step's measures, k_i >= 1), all at one resolution n. theta: the tilt (float >= 1;
            :func:`saddle_theta_mixed`, :func:`rdp_theta_mixed`).

    Raises:
        ValueError: no parts, a count below 1, or measures at different resolutions.
    """
    if not parts:
        raise ValueError("compose_fft_mixed needs at least one part")
    n = parts[0][0].n
    for step, k in parts:
        if k < 1:
            raise ValueError(f"steps must be >= 1, not {k}")
        if step.n != n:
            raise ValueError(f"parts at resolutions {n} and {step.n} cannot be composed (one grid is needed)")
    th = Fraction(float(theta))
    prepared = []
    for step, k in parts:
        part = _prepare(step, k, th)
        if part is None:
            return None
        prepared.append(part)
    steps = sum(p.k for p in prepared)
    off_all = sum(p.k * p.off for p in prepared)  # the composition's first index
    length = max(len(p.x_up) for p in prepared)
    # the window: the tilted composed laws' bulks (upper and lower: the lower one may sit lower, having lost mean)
    # ± 10 s.d., widened (doubling) until float Chernoff estimates put less than e^-30 of each tilted mass outside
    # it, or the whole support when that fits; the upper law's alone if both need more than MAX_WINDOW (tightness
    # only: any window is valid)
    full = sum(p.k * (len(p.x_up) - 1) for p in prepared) + 1
    laws = [
        _tilted_law([(p.x_up, p.s_up, p.k) for p in prepared]),
        _tilted_law([(p.x_lo, p.s_lo, p.k) for p in prepared]),
    ]
    placed = _place(laws, n, full, length) or _place(laws[:1], n, full, length)
    if placed is None:
        return None
    start, size = placed
    if full <= size:
        a = off_all
        aliased = False
    else:
        a = off_all + start
        aliased = True
    if progress is not None:
        what = f"{len(prepared)} parts, " if len(prepared) > 1 else ""
        progress(f"float composition: {what}theta {float(th):.4g}, window {size} cells")
    y, b = _cyclic_product([(p.x_up, p.x_lo, p.k) for p in prepared], size)
    shift = (a - off_all) % size
    y = np.roll(y, -shift)
    # Σ k_i λ_i and Σ k_i λ_lo,i, exact (floats times integers), carried as their means over the k steps
    lam = sum((p.k * p.lam for p in prepared), Fraction(0)) / steps
    lam_lo = sum((p.k * p.lam_lo for p in prepared), Fraction(0)) / steps
    lows = [(p.step.lower, _logw(p.step.lower), p.k) for p in prepared]
    highs = [(p.step.upper, _logw(p.step.upper), p.k) for p in prepared]
    with workprec(working_precision(n)):
        t_out = arb(0)
        if aliased:
            top = a + size
            lo_a, _ = _chernoff(lows, n, float(th), top, above=True)
            lo_b, _ = _chernoff(lows, n, float(th), a, above=False)
            t_out = (lo_a - steps * ball(lam_lo)).exp() + (lo_b - steps * ball(lam_lo)).exp()
        t_out_f = _up(t_out) if t_out.is_finite() else math.inf
    cut = _up(Fraction(b) + Fraction(t_out_f)) if math.isfinite(t_out_f) else math.inf
    x_plus = np.maximum(np.nextafter(y.real + b, np.inf), 0.0)  # >= the upper composition on the window
    x_minus = np.maximum(y.imag - cut, 0.0)  # <= the lower composition·(1 + u)
    # the weights e^{(1−θ)(r − r_ref)/n} and e^{−θ(r − r_ref)/n}, relative to the tilted mean r_ref (where δ is
    # decided), from r_cut on, where they stay below e^690; the indices below a + r_cut are left to the Chernoff
    # bound (upper) or dropped (lower)
    mean = sum(p.k * (km / p.k + p.off) for p, (_, _, km) in zip(prepared, laws[0][2], strict=True))
    r_ref = min(max(0, round(mean - a)), size - 1)
    r_cut = max(0, r_ref - math.floor(690 * n / float(th)))
    r_end = min(size, r_ref + math.floor(650 * n / float(th)))  # past it e^{−θ(r − r_ref)/n} < e^-650
    count = r_end - r_cut
    v1 = _geometric((1 - th) * (r_cut - r_ref) / n, (1 - th) / n, count)
    v0 = _geometric(-th * (r_cut - r_ref) / n, -th / n, count)
    xp, xm = x_plus[r_cut:r_end], x_minus[r_cut:r_end]
    r1_up = np.cumsum((xp * v1)[::-1])[::-1]
    r0_up = np.cumsum((xp * v0)[::-1])[::-1]
    r1_lo = np.cumsum((xm * v1)[::-1])[::-1]
    r0_lo = np.cumsum((xm * v0)[::-1])[::-1]
    rel = (1 + _gamma(count + 4)) * (1 + 6 * _U) * (1 + _U) ** 2 - 1
    # every weight is above e^-650 > 2^-950 (normal, relative error 6u); a product may still underflow, by less
    # than 2^-1074 each
    floor_up = floor_lo = _up(Fraction(count + 1, 2**1074))
    base, end = a + r_cut, a + r_end
    with workprec(working_precision(n)):
        below_log, _ = _chernoff(highs, n, 1.0, base, above=False)
        above_log, _ = _chernoff(highs, n, 1.0, end, above=True)
        err = sum((p.k * p.step.tail for p in prepared), arb(0))
        survive = arb(1)
        for p in prepared:
            if p.step.infinite != 0:
                survive *= (1 - ball(p.step.infinite)) ** p.k
        inf = arb(0) if all(p.step.infinite == 0 for p in prepared) else 1 - survive
    return FloatComposed(
        n,
        steps,
        th,
        lam,
        lam_lo,
        base,
        a + r_ref,
        end,
        r1_up,
        r0_up,
        r1_lo,
        r0_lo,
        rel,
        floor_up,
        floor_lo,
        above_log,
        below_log,
        err,
        inf,
        b,
    )
