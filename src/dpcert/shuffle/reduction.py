"""U_red: Theorem 4's reduction with the special case solved exactly — an upper bound DERIVED HERE (dpcert).

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

This is not in the paper. It is dpcert's own result, labelled "derived here" wherever it is shown.

Statement. For n >= 1, ε0 >= 0 and every real λ > 1, the shuffled output of any ε0-LDP randomizer satisfies

    ε(λ) <= U_red(n, ε0, λ) := (1/(λ−1)) log Σ_{m=0}^{n−1} Bin(m; n−1, e^{−ε0}) S_{m+1}(λ),
    S_m(λ) := E_{k∼Bin(m, p)}[((k e^{ε0} + (m−k) e^{−ε0})/m)^λ],   p = 1/(e^{ε0}+1).

Proof.
1. Reduction (the paper's Theorem 4 with Lemmas 3–5 and Corollary 3). For neighbours D, D′ differing in the last
   client, write each other client's law as a mixture q·p′_n + (1−q)·p̃_i with q = e^{−ε0} (possible by ε0-LDP,
   Lemma 3). Joint convexity of (P, Q) ↦ ∫P^λQ^{1−λ} for λ >= 1 (Lemma 4/9) over this common mixture, and the
   data-processing inequality for the clients that are not clones (Lemma 5: adding an independent client is one
   Markov kernel applied to both laws), give E_{M(D′)}[(M(D)/M(D′))^λ] <= E_{m∼Bin(n−1,q)} E_m, where E_m is the
   λ-moment of the special pair of m+1 clients: m+1 copies of d′_n against m copies of d′_n and one d_n. The
   paper states Theorem 4 and these lemmas for integer λ, but each step holds for real λ > 1 (joint convexity of
   the Hellinger integral and data processing hold for every real λ > 1).
2. The special case, exactly (Proposition A). With a_j = p_j/p′_j ∈ [e^{−ε0}, e^{ε0}] and J ∼ p′, E_m =
   E[g(Σ_{i=1}^{m+1} Z_i)] with g(s) = (s/(m+1))^λ convex and Z_i i.i.d. copies of a_J: mean 1, support in
   [e^{−ε0}, e^{ε0}]. Any such Z is dominated in convex order by the two-point law W on {e^{−ε0}, e^{ε0}} with
   mean 1 (P(W = e^{ε0}) = 1/(e^{ε0}+1) = p): for convex f, f(z) is at most the chord of f through the endpoints,
   whose expectation is E f(W). Convex order is preserved under independent sums: z ↦ E f(z + R) is convex for
   R independent of Z_i, so E f(Z_i + R) <= E f(W_i + R); replace the Z_i by independent copies of W one at a
   time. So E_m <= E[g(Σ W_i)] = S_{m+1}(λ) (the sum of m+1 copies of W is e^{−ε0}(m+1) + k(e^{ε0} − e^{−ε0})
   with k ∼ Bin(m+1, p)), attained by binary randomized response.
3. Steps 1–2 give the bound. No Chernoff step is used, so it is at most Theorems 1 and 2 (which bound E_m by
   E_0 <= e^{ε0λ} below the Chernoff split and by Theorem 5/6 >= S above, with Lemma 8's monotonicity), and at
   most RR_1(λ) = (1/(λ−1)) log S_1(λ) because S_m is non-increasing in m (Lemma 8). The lower bound side: the
   exact 2RR pair (:mod:`dpcert.shuffle.pair`) is a valid lower bound, so pair <= ε(λ) <= U_red.

What it does not settle. The proof bounds ε(λ) from above; the 2RR pair bounds it from below. Step 1
(joint convexity over the clone mixture, and dropping the non-clone clients) is lossy, so U_red is in general
strictly above the 2RR reverse value (e.g. n = 100, ε0 = 1, λ = 10: 0.1277 against 0.0588), and the sandwich leaves
room for a mechanism above 2RR. Whether 2RR's reverse order is the worst pair (ε(λ) = that value) stays open; the
claim ``shuffle.pairs.no_mechanism_beats_rr`` checks it exactly on a sample and is expected UNDECIDED.

Evaluation. U_red is evaluated exactly (no blocking), by one of two exact formulas:

* integer λ <= 1024 (any n <= 10^6): the moment expansion. With M = m+1 and X_M = Σ_{i<=M}(W_i − 1) for i.i.d.
  copies of 2RR's likelihood ratio W (mean 1), S_M(λ) = E[(1 + X_M/M)^λ] = Σ_{i<=λ} C(λ,i) E[X_M^i] M^{−i}, and
  E[X_M^i]/i! = [t^i] e^{M L(t)} = Σ_j M^j [t^i] L(t)^j/j! with L the cumulant generating function of W − 1.
  So U_red's excess is Σ_{i=2}^{λ} λ(λ−1)…(λ−i+1) Σ_j [t^i]L^j/j! · E[M^{−(i−j)}]: a finite identity whose only
  infinite ingredients are the inverse moments E[M^{−t}] of M = 1 + Bin(n−1, e^{−ε0}), summed over a window
  with rigorous geometric tail bounds (:func:`_inverse_moments`). Both the cumulant table and the inverse
  moments are independent of λ and shared by every λ up to the table size, and cached across the precision steps
  of a refinement (a table built at a higher precision serves every lower request). Where the expansion cancels
  badly (few clones: n e^{−ε0} small against λ) the ball says so, and for n <= 10^4 the direct sum takes over.
* few clones ((n−1)e^{−ε0} <= :data:`DIRECT_MAX_CLONES` and ε0 >= 1, any n <= 10^6, integer λ <= 1024): the
  direct double sum below, chosen up front. There the expansion cancels catastrophically (at n = 10001, ε0 = 7,
  λ = 512 its ball had no correct bit at 64–512 bits, and the tables were rebuilt at each precision step for
  minutes), while the direct sum is short: its inner sums have at most m+1 terms for m clones.
* real λ (n <= 10^4): the direct double sum Σ_m Bin(m; n−1, q)(S_{m+1}(λ) − 1), a log-concave-mass sum over m
  whose weights are the exact forward sums of the 2RR pair with m+1 clients
  (:func:`dpcert.shuffle.pair.pair_excess_ball`), both with rigorous head and tail bounds.

References:
    Girgis et al. [GDDSK21] (CCS 2021), Theorem 4, Lemmas 3–5, 8, Corollary 3 (the reduction); the exact special case
    and
    U_red are derived here (above; consequences in docs/derivations/shuffle.md#u_red). Convex order: Shaked and
    Shanthikumar, "Stochastic Orders" (2007), Thm 3.A.12 (closure under convolution).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, arb_series
from flint import ctx as flint_ctx

from dpcert.arith.ball import ball, workprec
from dpcert.arith.exact import Exact, to_fraction
from dpcert.arith.sums import Weight, log_concave_sum
from dpcert.errors import InvalidParameter
from dpcert.shuffle.pair import _weight_bound, pair_excess_ball, pair_log_excess_float

__all__ = ["LABEL", "reduction_ball", "reduction_float"]

#: shown next to every U_red value
LABEL = "derived here (dpcert): Theorem 4 with the special case solved exactly; not a result of the paper"


#: the direct double sum is used up to this n (and for real λ); above it, integer λ only (the moment expansion)
DIRECT_MAX_N = 10**4
#: the largest working precision (bits) the moment expansion jumps to when its terms cancel
MOMENT_MAX_WP = 1 << 14
#: the largest integer λ of the moment expansion (its table costs O(λ³) coefficient products, done in C)
MOMENT_MAX_LAM = 1024


#: the direct double sum is also used above n = 10^4 (integer λ <= 1024) when the mean number of clones
#: (n−1)e^{−ε0} is at most this: there the moment expansion cancels catastrophically (at n = 10001, ε0 = 7,
#: λ = 512 it had no correct bit at 64–512 bits and never finished), while the direct sum has few terms (its
#: inner sums have at most m+1 terms, and m stays within a few hundred of the mean; 0.3 s there)
#: Measured (one core, cold caches, enclosure to 1e-15): the issue's grid n ∈ {10001, 10^5, 10^6} × ε0 ∈ {0.1, 1,
#: 7, 10} × λ ∈ {2, 64, 512, 1024} all finish, the slowest n = 10001, ε0 = 1, λ = 1024 in ~17 s; between the two
#: methods' ranges (a few thousand clones, λ = 1024) it is slower: n = 10^6, ε0 = 6 ~26 s (direct), n = 30000,
#: ε0 = 2 ~40 s (expansion at ~1700 bits), the slowest points found (``benchmarks/bench_shuffle.py --reduction-grid``)
DIRECT_MAX_CLONES = 3000


def _few_clones(n: int, e: Fraction) -> bool:
    """Whether the mean clone count (n−1)e^{−ε0} is at most :data:`DIRECT_MAX_CLONES` (planning, float64)."""
    return math.log(max(n - 1, 1)) - float(e) <= math.log(DIRECT_MAX_CLONES)


def _direct_excess(n: int, e: Fraction, lam_f: Fraction, prec: int) -> arb:
    """Σ_m Bin(m; n−1, q)(S_{m+1}(λ) − 1) term by term (every m, each inner sum exact with rigorous tails)."""
    guard = 16 + 2 * int(math.log2(n + 1))
    with workprec(prec + guard):
        e0 = ball(e)
        q = (-e0).exp()
        one_q = -((-e0).expm1())  # 1 − q to full relative accuracy (1 − q cancels completely at tiny ε0)
        log_q, log_1q = -e0, one_q.log()
        ratio_q = q / one_q

        def term(m: int) -> arb:
            lg = arb(n).lgamma() - arb(m + 1).lgamma() - arb(n - m).lgamma() + m * log_q + (n - 1 - m) * log_1q
            return lg.exp()

        def ratio(m: int) -> arb:
            return ratio_q * (n - 1 - m) / (m + 1)

        def excess(m: int) -> arb:
            return pair_excess_ball(m + 1, e, lam_f, "forward", prec + guard)

        s = log_concave_sum(
            term,
            ratio,
            0,
            n - 1,
            prec=prec,
            weights=[Weight(excess, lambda m, _w: excess(m + 1), _weight_bound(e, lam_f))],
        )
    return s.values[0]


def _at_least_as_precise(fn: Any) -> Any:
    """Cache ``fn(*key, wp, prec)`` so that a table computed at a higher working precision (and accuracy target)
    serves every lower request: the balls of a more precise table are valid enclosures at any precision, and the
    refinement loop asks for the same tables at rising precision (each O(λ²)–O(λ³) to build)."""
    store: dict[tuple[Any, ...], tuple[int, int, Any]] = {}

    def cached(*args: Any) -> Any:
        *key, wp, prec = args
        hit = store.get(tuple(key))
        if hit is not None and hit[0] >= wp and hit[1] >= prec:
            return hit[2]
        value = fn(*args)
        if len(store) >= 8:
            store.pop(next(iter(store)))
        store[tuple(key)] = (wp, prec, value)
        return value

    cached.cache_clear = store.clear  # type: ignore[attr-defined]
    return cached


@_at_least_as_precise
def _cumulant_powers(e: Fraction, big: int, wp: int, _prec: int = 0) -> tuple[tuple[arb, ...], ...]:
    """c[j][i] = [t^i] L(t)^j / j! for j = 1..⌊big/2⌋, i = 0..big, where L(t) = log E e^{t(W−1)}.

    W is 2RR's likelihood ratio: e^{ε0} with probability p = 1/(e^{ε0}+1), e^{−ε0} otherwise (mean 1), so
    E e^{t(W−1)} = (1−p) e^{−(1−e^{−ε0})t} + p e^{(e^{ε0}−1)t}. Power series in arb (``arb_series``), truncated
    at degree ``big``; L = O(t²), so L^j starts at t^{2j}.
    """
    with workprec(wp):
        old = flint_ctx.cap
        flint_ctx.cap = big + 1
        try:
            e0 = ball(e)
            p = 1 / (e0.exp() + 1)
            down, up = -(-e0).expm1(), e0.expm1()
            coeffs, fact, pd, pu = [], arb(1), arb(1), arb(1)
            for r in range(big + 1):
                if r:
                    fact, pd, pu = fact * r, pd * (-down), pu * up
                coeffs.append(((1 - p) * pd + p * pu) / fact)
            log_f = list(arb_series(coeffs, prec=big + 1).log().coeffs())
            log_f += [arb(0)] * (big + 1 - len(log_f))
            # L = t² K with K = L/t² (L(0) = L'(0) = 0), so L^j/j! = t^{2j} K^j/j!, and only the first big − 2j + 1
            # coefficients of K^j/j! are needed: multiplying the shrinking truncations costs about a third of
            # multiplying full-length series
            k_all = log_f[2:]
            out: list[tuple[arb, ...]] = [()]
            cur = None
            for j in range(1, big // 2 + 1):
                length = big - 2 * j + 1
                k_j = arb_series(k_all[:length], prec=length)
                cur = k_j if cur is None else arb_series(list(cur.coeffs())[:length], prec=length) * k_j / j
                c = list(cur.coeffs())[:length]
                out.append(tuple([arb(0)] * (2 * j) + c + [arb(0)] * (length - len(c))))
        finally:
            flint_ctx.cap = old
    return tuple(out)


@_at_least_as_precise
def _inverse_moments(n: int, e: Fraction, top: int, wp: int, prec: int) -> tuple[arb, ...]:
    """ν_t = E[M^{−t}] for M = 1 + Bin(n−1, e^{−ε0}), t = 0..top, as balls with the omitted tails as radius.

    Summed over a window of M around the mean (the masses by their ratio recurrence from the mode), with the
    tilted terms T_t(M) = w_M M^{−t} bounded outside it:

    * above hi: T_t(M+1)/T_t(M) = ρ(M) (M/(M+1))^t <= ρ(hi) (ρ(M) = w_{M+1}/w_M is non-increasing), so the rest
      is at most T_t(hi) ρ(hi)/(1 − ρ(hi));
    * from mid = ⌊lo/2⌋ to lo − 1: T_t(M−1)/T_t(M) = (M/(M−1))^t/ρ(M−1) <= (1 + 1/mid)^t/ρ(lo−1) =: ρ_t, so at
      most T_t(lo) ρ_t/(1 − ρ_t);
    * below mid: M^{−t} <= 1 and the masses fall geometrically, at most w_mid/(ρ(mid−1) − 1).

    The window doubles until each bound is below 2^-(prec+8) of its sum (or covers [1, n]).
    """
    with workprec(wp):
        e0 = ball(e)
        q = (-e0).exp()
        one_q = -((-e0).expm1())  # 1 − q to full relative accuracy
        log_q, log_1q = -e0, one_q.log()
        odds = q / one_q

        def direct(big_m: int) -> arb:
            m = big_m - 1
            return (
                arb(n).lgamma() - arb(m + 1).lgamma() - arb(n - m).lgamma() + m * log_q + (n - 1 - m) * log_1q
            ).exp()

        def rho(big_m: int) -> arb:  # w_{M+1}/w_M
            return odds * (n - big_m) / big_m

        qf = math.exp(-float(e))
        mean = 1 + (n - 1) * qf
        sd = math.sqrt((n - 1) * qf * (1 - qf)) + 1
        half = int(sd * math.sqrt(2 * math.log(2) * (prec + 16)) + top * (1 - qf)) + 2
        mode = max(1, min(n, int(mean)))
        top_mass = direct(mode)
        cutoff = ball(Fraction(1, 2 ** (prec + 8)))
        while True:
            lo, hi = max(1, int(mean - half)), min(n, int(mean + half) + 1)
            masses = {mode: top_mass}
            t = top_mass
            for big_m in range(mode, hi):
                t = t * rho(big_m)
                masses[big_m + 1] = t
            t = top_mass
            for big_m in range(mode - 1, lo - 1, -1):
                t = t / rho(big_m)
                masses[big_m] = t
            # Σ_M w_M M^{−t} for t = 0..top: the power series Σ_M w_M/(1 − z/M), each term's geometric series
            # formed and added in C (arb_series division by a linear polynomial), not term by term in Python
            old_cap = flint_ctx.cap
            flint_ctx.cap = top + 1
            try:
                total = arb_series([0], prec=top + 1)
                rows: dict[int, arb_series] = {}
                for big_m in range(lo, hi + 1):
                    row = arb_series([masses[big_m]], prec=top + 1) / arb_series([1, -1 / arb(big_m)], prec=top + 1)
                    total += row
                    if big_m in (lo, hi):
                        rows[big_m] = row

                def coeffs(ser: arb_series) -> list[arb]:
                    c = list(ser.coeffs())
                    return c + [arb(0)] * (top + 1 - len(c))

                acc, first, last = coeffs(total), coeffs(rows[lo]), coeffs(rows[hi])
            finally:
                flint_ctx.cap = old_cap
            tails = [arb(0)] * (top + 1)
            ok = True
            if hi < n:
                r_hi = rho(hi)
                if r_hi < 1:
                    tails = [tl + f * r_hi / (1 - r_hi) for tl, f in zip(tails, last, strict=True)]
                else:
                    ok = False
            if lo > 1 and ok:
                mid = max(1, lo // 2)
                back = 1 / rho(lo - 1)
                step = 1 + arb(1) / mid
                for k in range(top + 1):
                    r_k = back * step**k
                    if not r_k < 1:
                        ok = False
                        break
                    tails[k] += first[k] * r_k / (1 - r_k)
                if ok and mid > 1:
                    r_mid = rho(mid - 1)
                    if r_mid > 1:
                        below = direct(mid) / (r_mid - 1)
                        tails = [tl + below for tl in tails]
                    else:
                        ok = False
            if ok and all(tl <= a * cutoff for tl, a in zip(tails, acc, strict=True)):
                return tuple(a + arb(0, tl.upper()) if tl != 0 else a for a, tl in zip(acc, tails, strict=True))
            if lo == 1 and hi == n:
                return tuple(acc)
            half *= 2


@_at_least_as_precise
def _moment_sums(n: int, e: Fraction, big: int, wp: int, prec: int) -> tuple[arb, ...]:
    """D_i = Σ_{j=1}^{⌊i/2⌋} c[j][i] ν_{i−j} for i = 0..big (D_0 = D_1 = 0): E_M[E[X_M^i]/(i! M^i)]."""
    c = _cumulant_powers(e, big, wp, 0)
    nu = _inverse_moments(n, e, big - 1, wp, prec)
    with workprec(wp):
        out = [arb(0), arb(0)]
        for i in range(2, big + 1):
            acc = arb(0)
            for j in range(1, i // 2 + 1):
                acc += c[j][i] * nu[i - j]
            out.append(acc)
    return tuple(out)


def _moment_excess(n: int, e: Fraction, lam: int, prec: int) -> arb:
    """Σ_m Bin(m; n−1, q)(S_{m+1}(λ) − 1) for integer λ by the moment expansion (exact identity, no blocking).

    With M = m+1 and X_M = Σ_{i<=M}(W_i − 1) (W as in :func:`_cumulant_powers`), S_M(λ) = E[(1 + X_M/M)^λ]
    = Σ_{i=0}^{λ} C(λ,i) E[X_M^i]/M^i, and E[X_M^i]/i! = [t^i] e^{M L(t)} = Σ_j M^j c[j][i]. Hence
    E_M[S_M(λ)] − 1 = Σ_{i=2}^{λ} λ(λ−1)…(λ−i+1) D_i, with D_i from the inverse moments ν_t = E[M^{−t}], which
    are shared by every λ up to the table size (16, 64, 256 or 1024).

    The expansion's terms can be far larger than the sum (moderately few clones against λ: at n = 10001, ε0 = 1,
    λ = 1024 about 1500 bits cancel). When the ball is short of ``prec`` bits, the working precision jumps once to
    what the cancellation needs, estimated from the ball's radius (≈ the largest term × 2^-wp) against a float64
    estimate of the value, log(S_{M̄}(λ) − 1) at the mean clone count, rather than doubling through every step
    (each step rebuilds the tables); at most :data:`MOMENT_MAX_WP` bits.
    """
    big = 16
    while big < lam:  # tables of 16, 64, 256, 1024 orders: a sweep over λ rebuilds them few times
        big *= 4
    wp = -(-(prec + 48 + 2 * int(math.log2(n + 1))) // 64) * 64
    while True:
        d = _moment_sums(n, e, big, wp, prec)
        with workprec(wp):
            total, falling = arb(0), arb(lam)
            for i in range(2, lam + 1):
                falling *= lam - i + 1
                total += falling * d[i]
        if total.rel_accuracy_bits() >= prec or wp >= MOMENT_MAX_WP or not total.rad() > 0:
            return total
        m_bar = max(1, round((n - 1) * math.exp(-float(e)))) + 1
        log2_value = pair_log_excess_float(m_bar, float(e), float(lam)) / math.log(2)
        log2_rad = float(total.rad().log()) / math.log(2) if total.rad() > 0 else 0.0
        need = wp + log2_rad - log2_value + prec + 32
        if not math.isfinite(need):
            return total
        wp = min(MOMENT_MAX_WP, max(2 * wp, -(-int(need) // 64) * 64))


def reduction_ball(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb | Fraction:
    """U_red(n, ε0, λ) in ball arithmetic (derived here; see the module docstring for the proof).

    Integer λ <= 1024 uses the direct double sum over m and k when clones are few ((n−1)e^{−ε0} <= 3000 and
    ε0 >= 1, any n), else the moment expansion (:func:`_moment_excess`), whose inverse moments and cumulant table
    are shared across λ and precision steps; if that loses too many bits to cancellation and n <= 10^4, or for
    real λ, the direct double sum is used. Cost: see ``benchmarks/bench_shuffle.py`` (``reduction-grid``).

    Raises:
        InvalidParameter: real λ with n > 10^4, or λ > 1024 with n > 10^4 (neither path is practical there).

    References:
        dpcert (derived in the module docstring); reduction: Girgis et al. [GDDSK21] (CCS 2021), Theorem 4.
    """
    e = to_fraction(eps0)
    if e == 0:
        return Fraction(0)
    lam_f = to_fraction(lam)
    prec = ctx.prec
    integer = lam_f.denominator == 1
    if integer and lam_f <= MOMENT_MAX_LAM:
        if e >= 1 and _few_clones(n, e):
            # few clones: the moment expansion would cancel; the direct sum is short (not for ε0 < 1, where
            # its φ terms lose ~log2(1/ε0) bits and the expansion, whose terms fall like (λε0)^i, is the accurate one)
            return _direct_excess(n, e, lam_f, prec).log1p() / ball(lam_f - 1)
        excess = _moment_excess(n, e, int(lam_f), prec)
        if n > DIRECT_MAX_N or excess.rel_accuracy_bits() >= prec:
            return excess.log1p() / ball(lam_f - 1)
    elif n > DIRECT_MAX_N:
        raise InvalidParameter(
            "lam", lam.given if isinstance(lam, Exact) else lam, f"an integer <= {MOMENT_MAX_LAM} when n > 10^4"
        )
    return _direct_excess(n, e, lam_f, prec).log1p() / ball(lam_f - 1)


def reduction_float(n: int, eps0: Any, lam: Any) -> float:
    """U_red in float64 (evidence), by the double sum of its definition (independent of the moment expansion).

    The outer sum keeps every m whose mass times the largest possible weight S_1(λ) − 1 is within e^{-40} of the
    term at the mode; each inner sum runs over all m+1+1 values of k in log space (the φ-trick). Cost O(σ n):
    practical up to n ≈ 10^5.

    References:
        dpcert (derived in the module docstring).
    """
    from scipy.special import logsumexp
    from scipy.stats import binom

    e, lam_f = float(eps0), float(lam)
    if e == 0:
        return 0.0
    m = np.arange(n)
    log_w = binom.logpmf(m, n - 1, math.exp(-e))
    mode = int(np.argmax(log_w))
    at_mode = log_w[mode] + pair_log_excess_float(mode + 1, e, lam_f)
    log_big = pair_log_excess_float(1, e, lam_f)  # S_1 − 1 >= S_{m+1} − 1 (Lemma 8)
    keep = m[log_w + log_big >= at_mode - 40]
    log_ex = np.array([pair_log_excess_float(int(k) + 1, e, lam_f) for k in keep])
    return float(np.logaddexp(0.0, logsumexp(log_w[keep] + log_ex))) / (lam_f - 1)
