"""Generalized randomized response RR_{ε,t}, the worst-case pair of an ε-bounded-range mechanism.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

For ε > 0 and t ∈ [0, ε] (Definition 2.4 of Dong–Durfee–Rogers [DDR20])::

    q_{ε,t} = Pr[RR(0) = 0] = (1 − e^{t−ε}) / (1 − e^{−ε}) = expm1(t − ε) / expm1(−ε)
    p_{ε,t} = Pr[RR(1) = 0] = (e^{−t} − e^{−ε}) / (1 − e^{−ε}) = e^{−t} q_{ε,t}
    1 − q   = e^{t−ε} expm1(−t) / expm1(−ε)          1 − p = expm1(−t) / expm1(−ε)

Each is a quotient of two expm1 of the same sign, so no form subtracts nearly equal numbers
(docs/derivations/br.md#numerically-safe-forms): the
formulas keep full relative accuracy for t near 0, t near ε and tiny ε.

The identities of Definition 2.4 and Claim 5.1 [DDR20] used here (claim ``br.def2_4.rr_identities``) are identities of
rational functions in a = e^t and x = e^ε and are proved
exactly by :func:`rr_identities` (polynomial arithmetic over Q). The KL divergence
(docs/derivations/br.md#the-kl-maximising-t) is
KL(Bern(q) ‖ Bern(p)) = t − ε (1 − q) (because ln(q/p) = t and ln((1−q)/(1−p)) = t − ε, both exact by A1), and
1 − q = (e^t − 1)/(e^ε − 1); its maximum over t is maxkl(ε) = y − 1 − ln y with y = ε / (1 − e^{−ε}).

References:
    J. Dong, D. Durfee, R. Rogers, "Optimal Differential Privacy Composition for Exponential Mechanisms and the
    Cost of Adaptivity", ICML 2020 (arXiv 1909.13830), Definition 2.4, Claim 5.1, Corollary 3.1.
"""

from __future__ import annotations

from typing import Any

__all__ = ["q_rr", "p_rr", "one_minus_q", "one_minus_p", "kl_rr", "maxkl", "maxkl_argmax", "rr_identities"]


def q_rr(ctx: Any, eps: Any, t: Any) -> Any:
    """q_{ε,t} = Pr[RR_{ε,t}(0) = 0] = expm1(t − ε)/expm1(−ε), for ε > 0 and 0 <= t <= ε.

    Args:
        ctx: an arithmetic context (``FLOAT`` or a ``BallContext``).
        eps, t: ε > 0 and t ∈ [0, ε], in the context's number type (use ``ctx.num`` on exact inputs).

    Returns:
        q_{ε,t} in the context's number type.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Definition 2.4.
    """
    return ctx.expm1(t - eps) / ctx.expm1(-eps)


def p_rr(ctx: Any, eps: Any, t: Any) -> Any:
    """p_{ε,t} = Pr[RR_{ε,t}(1) = 0] = e^{−t} q_{ε,t} (Definition 2.4 of Dong–Durfee–Rogers ICML 2020) [DDR20]."""
    return ctx.exp(-t) * q_rr(ctx, eps, t)


def one_minus_q(ctx: Any, eps: Any, t: Any) -> Any:
    """1 − q_{ε,t} = e^{t−ε} expm1(−t)/expm1(−ε), without subtraction (Dong–Durfee–Rogers [DDR20] Def. 2.4)."""
    return ctx.exp(t - eps) * ctx.expm1(-t) / ctx.expm1(-eps)


def one_minus_p(ctx: Any, eps: Any, t: Any) -> Any:
    """1 − p_{ε,t} = expm1(−t)/expm1(−ε), without subtraction (Dong–Durfee–Rogers [DDR20] Def. 2.4)."""
    return ctx.expm1(-t) / ctx.expm1(-eps)


def kl_rr(ctx: Any, eps: Any, t: Any) -> Any:
    """KL(Bern(q_{ε,t}) ‖ Bern(p_{ε,t})) = t − ε(e^t − 1)/(e^ε − 1), the mean privacy loss of one RR_{ε,t}.

    References:
        Dong–Durfee–Rogers ICML 2020, §7 (proof of Corollary 3.1) [DDR20]; docs/derivations/br.md#the-kl-maximising-t.
    """
    return t - eps * ctx.expm1(t) / ctx.expm1(eps)


def maxkl(ctx: Any, eps: Any) -> Any:
    """maxkl(ε) = sup_t KL(RR_{ε,t}) = y − 1 − ln y with y = ε/(1 − e^{−ε}) (Corollary 3.1 of Dong–Durfee–Rogers
    [DDR20]).

    Computed as (y − 1) − log1p(y − 1) with y − 1 = (ε − (1 − e^{−ε}))/(1 − e^{−ε}); the numerator
    ε + expm1(−ε) is O(ε²) and loses relative accuracy for tiny ε in float (ball arithmetic tracks it).

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Corollary 3.1.
    """
    d = -ctx.expm1(-eps)
    ym1 = (eps - d) / d
    return ym1 - ctx.log1p(ym1)


def maxkl_argmax(ctx: Any, eps: Any) -> Any:
    """The t maximising KL(RR_{ε,t}): t = ln((e^ε − 1)/ε) (d/dt KL = 1 − ε e^t/(e^ε − 1);
    docs/derivations/br.md#the-kl-maximising-t)."""
    return ctx.log(ctx.expm1(eps) / eps)


def rr_identities() -> dict[str, bool]:
    """Prove the identities of RR_{ε,t} exactly: each identity as an identity of rational functions of a = e^t, x = e^ε.

    With a = e^t, b = e^{ε−t} (so x = e^ε = ab; the reflection t ↦ ε − t swaps a and b):
    q = (1 − 1/b)/(1 − 1/x), p = (1/a − 1/x)/(1 − 1/x). Each identity is reduced to a polynomial that must vanish,
    by exact polynomial arithmetic over Q (sympy).

    Returns:
        The name of each identity and whether it holds identically.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Definition 2.4 and Claim 5.1.
    """
    import sympy as sp

    a, b, s = sp.symbols("a b s", positive=True)
    x = a * b

    def q(a_: Any, b_: Any) -> Any:
        return (1 - 1 / b_) / (1 - 1 / (a_ * b_))

    def p(a_: Any, b_: Any) -> Any:
        return (1 / a_ - 1 / (a_ * b_)) / (1 - 1 / (a_ * b_))

    checks = {
        "q = e^t p": q(a, b) - a * p(a, b),
        "1 - q = e^(t - eps) (1 - p)": (1 - q(a, b)) - (1 / b) * (1 - p(a, b)),
        "q(eps - t) = 1 - p(t)": q(b, a) - (1 - p(a, b)),
        "p(eps - t) = 1 - q(t)": p(b, a) - (1 - q(a, b)),
        # t = ε/2: a = b = s = e^{ε/2}
        "p(eps/2) = 1/(1 + e^(eps/2))": p(s, s) - 1 / (1 + s),
        "1 - q = (e^t - 1)/(e^eps - 1)": (1 - q(a, b)) - (a - 1) / (x - 1),
    }
    return {name: sp.cancel(sp.together(expr)) == 0 for name, expr in checks.items()}
