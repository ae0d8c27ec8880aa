"""How many ε-BR mechanisms fit in a privacy budget under each composition bound (the paper's headline ratios).

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

"Our nonadaptive composition bound allows for about four times more queries than the optimal composition for
general DP mechanisms given a fixed privacy loss budget [...] about two times more queries than [DR19]. In some
settings our adaptive bound allows for about three times more queries than both DP OptComp and [DR19]."
(Dong–Durfee–Rogers [DDR20] §1.) For a budget (ε_g, δ) the number of queries a bound allows is the largest k whose
ε_g(δ) stays within ε_g; every curve is nondecreasing in k, so a count k* is certified by the two checks
"curve(k*) within budget" and "curve(k* + 1) over budget":

* BR OptComp and ε-DP OptComp: δ_OPT(k, ε, ε_g) <= δ at k* and > δ at k* + 1 (certified δ's);
* DR19: the closed form at k* and k* + 1 (certified enclosures);
* MGF: certified within budget at k* at the λ found by the search (a valid bound), which is a *lower* end of its
  count; its upper end is the BR OptComp count, since the MGF bound holds adaptively and so can never be below
  the nonadaptive optimum.

References:
    Dong–Durfee–Rogers ICML 2020, §1 (the quoted statements), Figure 1 [DDR20].
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from dpcert.arith.exact import parse_rational
from dpcert.br import bounds
from dpcert.br.nonadaptive import nonadaptive_delta, nonadaptive_delta_float
from dpcert.composition.kov import kov_delta, kov_delta_float
from dpcert.core.quantity import Quantity

__all__ = ["query_count", "CURVES"]

CURVES = ("br", "dp", "dr19", "mgf")


def _largest(ok: Callable[[int], bool], hi: int = 2**22) -> int:
    """Largest k >= 0 with ok(k) for a predicate true up to some point and false after (float search)."""
    lo = 0
    while ok(2 * lo + 1) and lo < hi:
        lo = 2 * lo + 1
    top = 2 * lo + 1
    while top - lo > 1:
        mid = (lo + top) // 2
        if ok(mid):
            lo = mid
        else:
            top = mid
    return lo


def _eps_quantity(name: str) -> Quantity:
    return next(q for q in bounds.QUANTITIES if q.name == name)


def _guide(q: Quantity, **inputs: object) -> float | Fraction:
    """A value to steer the search by: the float twin, or a coarse certified value where no float can be formed
    (δ = 1e-400 has no float64); the certified checks decide, whatever the guide says."""
    value, _ = q.float_evidence(inputs)
    if value is not None:
        return value
    mid = q.enclose(inputs, rel_tol=1e-6).mid()
    return mid if mid is not None else Fraction(0)


def query_count(curve: str, eps: str, budget: str, delta: str, max_prec: int) -> tuple[int, int]:
    """Certified [lo, hi] of the number of ε-BR queries the curve allows within (budget, δ).

    Args:
        curve: ``"br"`` (Theorem 3), ``"dp"`` (ε-DP OptComp), ``"dr19"`` or ``"mgf"`` (Theorem 5).
        eps, budget, delta: exact decimals as strings.
        max_prec: the largest precision (bits).

    Returns:
        (lo, hi) with the true count in [lo, hi] (lo == hi except for the MGF bound).

    Raises:
        InvalidParameter: for an unknown curve.
        PrecisionExhausted: if a comparison is undecided.
        RuntimeError: if a certified check contradicts the float search (never observed).
    """
    e, g, d = (parse_rational(x, n).value for x, n in ((eps, "eps"), (budget, "budget"), (delta, "delta")))
    if curve in ("br", "dp"):
        fl = nonadaptive_delta_float if curve == "br" else kov_delta_float
        ce = nonadaptive_delta if curve == "br" else kov_delta
        k = _largest(lambda k: k >= 1 and fl(k, e, g) <= float(d))
        if not (k == 0 or ce(k, e, g, max_prec=max_prec).hi <= d) or not ce(k + 1, e, g, max_prec=max_prec).lo > d:
            raise RuntimeError(f"query count of {curve}: the certified check disagrees with the float search at k={k}")
        return k, k
    if curve == "dr19":
        q = _eps_quantity("br.dr19.eps")
        k = _largest(lambda k: k >= 1 and _guide(q, k=k, eps=e, delta=d) <= g)
        if not (q.enclose(k=k, eps=e, delta=d, max_prec=max_prec).hi <= g < q.enclose(k=k + 1, eps=e, delta=d).lo):
            raise RuntimeError(f"query count of dr19: the certified check disagrees at k={k}")
        return k, k
    if curve == "mgf":
        q = _eps_quantity("br.mgf.eps")
        k = _largest(lambda k: k >= 1 and _guide(q, k=k, eps=e, delta=d) <= g)
        while k > 0 and not q.enclose(k=k, eps=e, delta=d, max_prec=max_prec).hi <= g:
            k -= 1
        return k, query_count("br", eps, budget, delta, max_prec)[1]
    from dpcert.errors import InvalidParameter

    raise InvalidParameter("curve", curve, f"one of {CURVES}")


def ratio_bracket(
    curve: str, baseline: str, eps: str, budget: str, delta: str, max_prec: int
) -> tuple[Fraction, Fraction, dict]:
    """Certified [lo, hi] of count(curve)/count(baseline), with the counts."""
    a, b = query_count(curve, eps, budget, delta, max_prec), query_count(baseline, eps, budget, delta, max_prec)
    return Fraction(a[0], b[1]), Fraction(a[1], b[0]), {curve: list(a), baseline: list(b)}
