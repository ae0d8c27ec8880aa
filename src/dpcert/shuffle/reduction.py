"""U_red: Theorem 4's reduction with the special case solved exactly — an upper bound DERIVED HERE (dpcert).

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

Evaluation. U_red is evaluated exactly (no blocking): the excess Σ_m Bin(m; n−1, q) (S_{m+1}(λ) − 1) is a
log-concave-mass sum over m with weights S_{m+1} − 1 in [0, S_1 − 1], each weight itself the exact forward sum of
the 2RR pair with m+1 clients (:func:`dpcert.shuffle.pair.pair_excess_ball`). Both sums carry rigorous head and
tail bounds. The cost is O(n) inner terms per outer term near the mode, so n is capped at 10^4.

References:
    Girgis et al. (CCS 2021), Theorem 4, Lemmas 3–5, 8, Corollary 3 (the reduction); the exact special case and
    U_red are derived here (dpcert notes shuffle_rdp §1.10, Propositions A and B). Convex order: Shaked and
    Shanthikumar, "Stochastic Orders" (2007), Thm 3.A.12 (closure under convolution).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from dpcert.arith.ball import ball, workprec
from dpcert.arith.exact import Exact, to_fraction
from dpcert.arith.sums import Weight, log_concave_sum
from dpcert.shuffle.pair import _weight_bound, pair_excess_ball, pair_log_excess_float

__all__ = ["LABEL", "reduction_ball", "reduction_float"]

#: shown next to every U_red value
LABEL = "derived here (dpcert): Theorem 4 with the special case solved exactly; not a result of the paper"


def reduction_ball(ctx: Any, n: int, eps0: Exact, lam: Exact) -> arb | Fraction:
    """U_red(n, ε0, λ) in ball arithmetic (derived here; see the module docstring for the proof).

    References:
        dpcert (derived here), notes shuffle_rdp §1.10; reduction: Girgis et al. (CCS 2021), Theorem 4.
    """
    e = to_fraction(eps0)
    if e == 0:
        return Fraction(0)
    lam_f = to_fraction(lam)
    prec = ctx.prec
    guard = 16 + 2 * int(math.log2(n + 1))
    with workprec(prec + guard):
        e0 = ball(e)
        q = (-e0).exp()
        log_q, log_1q = -e0, (-q).log1p()
        ratio_q = q / (1 - q)

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
    return s.values[0].log1p() / ball(lam_f - 1)


def reduction_float(n: int, eps0: Any, lam: Any) -> float:
    """U_red in float64 (evidence): all n outer terms in log space, each inner sum in log space.

    References:
        dpcert (derived here), notes shuffle_rdp §1.10.
    """
    from scipy.special import logsumexp
    from scipy.stats import binom

    e, lam_f = float(eps0), float(lam)
    if e == 0:
        return 0.0
    m = np.arange(n)
    log_w = binom.logpmf(m, n - 1, math.exp(-e))
    log_ex = np.array([pair_log_excess_float(int(k) + 1, e, lam_f) for k in m])
    return float(np.logaddexp(0.0, logsumexp(log_w + log_ex))) / (lam_f - 1)
