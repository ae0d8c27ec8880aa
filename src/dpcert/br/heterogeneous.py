"""Nonadaptive composition of ε_i-BR mechanisms with different ε_i (Lemma 3.1): a certified bracket for small k.

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

Lemma 3.1 of Dong–Durfee–Rogers [DDR20]::

    δ_OPT = sup_{t ∈ Π[0, ε_i]} Σ_{S ⊆ [k]} max{ Π_{i∉S} q_i Π_{i∈S} (1 − q_i)
                                                  − e^{ε_g} Π_{i∉S} p_i Π_{i∈S} (1 − p_i), 0 }

with q_i = q_{ε_i, t_i}, p_i = p_{ε_i, t_i}. The paper gives no algorithm (it conjectures hardness). Here:

* **lower end**: the 2^k-term sum at one t-vector, found by a multistart bounded quasi-Newton search in float64
  (evidence), then evaluated at that t (as exact rationals) in Arb balls, each term max{x, 0} bounded below by
  max{lower(x), 0}: a certified value of an explicit pair, hence a rigorous lower bound of the sup;
* **upper end**: an ε_i-BR mechanism is also (max ε_i)-BR, so the homogeneous optimum of Theorem 3 at max ε_i
  (certified) bounds it; so does the optimal composition of ε_i-DP mechanisms (ε-BR ⇒ ε-DP; Murtagh–Vadhan [MV16],
  the foundation's ``composition.mv``) for ε_g >= 0. The smaller of the two is taken.

The bracket is labelled as such: it is not the optimum.

References:
    Dong–Durfee–Rogers ICML 2020 [DDR20], Lemma 3.1 (Lemma 5.1 with Claim 5.1), Lemma 2.1; Murtagh–Vadhan TCC 2016
    [MV16],
    Thm 1.5 [MV16].
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from dpcert.arith.ball import Enclosure, ball, workprec
from dpcert.arith.exact import parse_rational
from dpcert.br.nonadaptive import nonadaptive_delta
from dpcert.errors import InvalidParameter

__all__ = ["HeterogeneousBracket", "heterogeneous_bracket", "delta_at_t"]

#: Largest k: the sum has 2^k terms.
MAX_K = 12


@dataclass(frozen=True)
class HeterogeneousBracket:
    """lo <= δ_OPT(ε_1..ε_k; ε_g) <= hi; ``t`` is the t-vector whose certified value is ``lo``."""

    lo: Fraction
    hi: Fraction
    t: tuple[Fraction, ...]
    upper_from: str


def _float_delta(eps: np.ndarray, g: float, t: np.ndarray, signs: np.ndarray) -> float:
    """The 2^k-term sum at t in float64 (signs: the 2^k × k 0/1 outcome matrix, 1 = outcome with ratio e^{t−ε})."""
    q = np.expm1(t - eps) / np.expm1(-eps)
    oq = np.exp(t - eps) * np.expm1(-t) / np.expm1(-eps)
    p = np.exp(-t) * q
    op = np.expm1(-t) / np.expm1(-eps)
    log_qs = np.where(signs == 0, np.log(np.maximum(q, 1e-300)), np.log(np.maximum(oq, 1e-300))).sum(axis=1)
    log_ps = np.where(signs == 0, np.log(np.maximum(p, 1e-300)), np.log(np.maximum(op, 1e-300))).sum(axis=1)
    return float(np.maximum(np.exp(log_qs) - np.exp(g + log_ps), 0.0).sum())


def delta_at_t(eps: tuple[Fraction, ...], g: Fraction, t: tuple[Fraction, ...], prec: int = 128) -> arb:
    """Certified lower bound (a ball whose lower end is rigorous) of the Lemma 3.1 sum at a fixed t-vector.

    Each term is max{Q(y) − e^{ε_g} P(y), 0}; its loss ln(Q/P) = Σ t_i − Σ_{i: y_i=1} ε_i is an exact rational, so
    which terms count is decided exactly and the sum is a ball of the exact value.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Lemma 3.1.
    """
    with workprec(prec):
        qs, oqs, ps, ops = [], [], [], []
        for e, ti in zip(eps, t, strict=True):
            eb, tb = ball(e), ball(ti)
            den = (-eb).expm1()
            qs.append((tb - eb).expm1() / den)
            oqs.append((tb - eb).exp() * (-tb).expm1() / den)
            ps.append((-tb).exp() * qs[-1])
            ops.append((-tb).expm1() / den)
        eg = ball(g).exp()
        total = arb(0)
        for y in itertools.product((0, 1), repeat=len(eps)):
            loss = sum(t) - sum(e for e, yi in zip(eps, y, strict=True) if yi)
            if loss <= g:
                continue  # Q(y) <= e^{ε_g} P(y) exactly
            qv, pv = arb(1), arb(1)
            for i, yi in enumerate(y):
                qv *= oqs[i] if yi else qs[i]
                pv *= ops[i] if yi else ps[i]
            total += qv - eg * pv
        return total


def heterogeneous_bracket(eps: Any, eps_g: Any, *, starts: int = 24) -> HeterogeneousBracket:
    """Certified lower and upper bounds of the nonadaptive optimum for ε_i-BR mechanisms (k <= 12).

    Args:
        eps: the ε_i > 0 (a list, or a comma-separated string; decimals as strings mean them exactly).
        eps_g: the global ε_g (any real).
        starts: how many starting points the float search uses (deterministic).

    Returns:
        A :class:`HeterogeneousBracket` (a bracket, not the optimum).

    Raises:
        InvalidParameter: for bad inputs or more than 12 mechanisms.

    References:
        Dong–Durfee–Rogers ICML 2020 [DDR20], Lemma 3.1, Theorem 3, Lemma 2.1.
    """
    from scipy.optimize import minimize

    items = eps.split(",") if isinstance(eps, str) else list(eps)
    es = tuple(parse_rational(x, "eps").value for x in items)
    if not 1 <= len(es) <= MAX_K or any(e <= 0 for e in es):
        raise InvalidParameter("eps", eps, f"1 to {MAX_K} positive reals")
    g = parse_rational(eps_g, "eps_g").value
    k = len(es)
    ef = np.array([float(e) for e in es])
    signs = np.array(list(itertools.product((0, 1), repeat=k)))
    gf = float(g)

    def neg(x: np.ndarray) -> float:
        return -_float_delta(ef, gf, np.clip(x, 0.0, ef), signs)

    rng = np.random.default_rng(20200712)
    tries = [ef * c for c in np.linspace(0.05, 0.95, 10)] + [ef * rng.uniform(0.02, 0.98, k) for _ in range(starts)]
    best_x, best_v = tries[0], math.inf
    for x0 in tries:
        res = minimize(neg, x0, method="L-BFGS-B", bounds=list(zip(np.zeros(k), ef, strict=True)))
        if res.fun < best_v:
            best_v, best_x = res.fun, res.x
    t = tuple(min(max(Fraction(float(x)), Fraction(0)), e) for x, e in zip(best_x, es, strict=True))
    lower = delta_at_t(es, g, t)
    lo = max(Fraction(0), Fraction(Enclosure.from_ball(lower).lo))
    homog = nonadaptive_delta(k, max(es), g)
    hi, source = homog.hi, f"Theorem 3 at max eps_i = {max(es)}"
    if g >= 0 and len(set(es)) > 1:
        from dpcert.composition.mv import mv_delta

        dp = mv_delta([str(e) for e in es], g)
        if dp.hi < hi:
            hi, source = dp.hi, "optimal eps_i-DP composition (Murtagh–Vadhan)"
    return HeterogeneousBracket(lo, hi, t, source)
