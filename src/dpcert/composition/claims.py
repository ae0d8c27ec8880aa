"""Claims that relate several composition theorems to each other.

For k ε-DP mechanisms and a target δ, the optimal ε_g(δ) (Kairouz–Oh–Viswanath [KOV15] Thm 3.3 / Murtagh–Vadhan [MV16])
is the
least valid ε_g, so it can exceed no other valid bound. In particular, with δ' = δ and per-mechanism δ = 0,

    ε_opt(δ) ≤ ε_KOV-3.4(δ') ≤ ε_DRV(δ'),

the second step because kε·tanh(ε/2) ≤ kε(e^ε − 1) and the [KOV15, Thm 3.4] minimum includes the DRV-shaped term.
Each inequality is certified on a grid of (k, ε, δ); the evidence reports how many grid points were certified
and the one with the smallest relative margin.
"""

from __future__ import annotations

import itertools

from dpcert.arith.ball import MAX_PREC, Enclosure
from dpcert.composition import QUANTITIES
from dpcert.composition.kov import kov_eps
from dpcert.core.claim import Claim, Evidence, FunctionClaim, Verdict, check_function
from dpcert.core.parallel import Summary, map_chunks
from dpcert.core.quantity import Quantity
from dpcert.errors import PrecisionExhausted

__all__ = ["CLAIMS", "sandwich", "check_sandwich"]

_GENERAL: Quantity = QUANTITIES["composition.general.eps"]
_DRV: Quantity = QUANTITIES["composition.drv.eps"]


def _certify_le(lower: Enclosure, q: Quantity, inputs: dict[str, object], max_prec: int) -> tuple[bool, Enclosure, int]:
    """Decide ``lower <= q(inputs)`` with rising precision on q: (True/False when certain, q's enclosure, bits)."""

    def decider(enc: Enclosure) -> bool | None:
        assert lower.hi is not None and lower.lo is not None and enc.lo is not None and enc.hi is not None
        if lower.hi <= enc.lo:
            return True
        if lower.lo > enc.hi:
            return False
        return None

    holds, enc, prec = q.decide(q.parse(inputs), decider, max_prec=max_prec)
    return holds, enc, 0 if enc.is_exact else prec


def _sandwich_point(point: tuple[int, str, str, int]) -> Summary:
    """One grid point: certify ε_opt ≤ ε_KOV-3.4 ≤ ε_DRV (a pure function of the point, for map_chunks)."""
    k, eps, delta, max_prec = point
    case = {"k": k, "eps": eps, "delta": delta}
    out = Summary()
    try:
        opt = kov_eps(k, eps, delta, max_prec=max_prec)
        ok1, gen, p1 = _certify_le(opt, _GENERAL, {"k": k, "eps": eps, "delta_prime": delta}, max_prec)
        out.used(p1)
        if not ok1:
            out.refuted.append({**case, "detail": f"optimal eps_g {opt.short()} exceeds KOV Thm 3.4's {gen.short()}"})
            return out
        ok2, drv, p2 = _certify_le(gen, _DRV, {"k": k, "eps": eps, "delta_prime": delta}, max_prec)
        out.used(p2)
    except PrecisionExhausted as exc:
        out.undecided.append({**case, "detail": str(exc)})
        out.used(exc.max_prec)
        return out
    if not ok2:
        out.refuted.append({**case, "detail": f"KOV Thm 3.4's eps' {gen.short()} exceeds DRV's {drv.short()}"})
        return out
    out.add("certified")
    assert opt.hi is not None and gen.lo is not None
    margin = (gen.lo - opt.hi) / gen.lo  # the smallest relative margin is the worst case
    out.consider(-margin, {**case, "optimal": opt.short(10), "kov_3_4": gen.short(10), "drv": drv.short(10)})
    return out


@check_function
def check_sandwich(
    max_prec: int, k: tuple[int, ...], eps: tuple[str, ...], delta: tuple[str, ...], workers: int | None = None
) -> tuple[Verdict, Evidence]:
    """The claim check of :func:`sandwich` (the inputs a certificate records)."""
    return sandwich(k, eps, delta, max_prec, workers)


def sandwich(
    ks: tuple[int, ...],
    epss: tuple[str, ...],
    deltas: tuple[str, ...],
    max_prec: int = MAX_PREC,
    workers: int | None = None,
) -> tuple[Verdict, Evidence]:
    """Certify ε_opt ≤ ε_KOV-3.4 ≤ ε_DRV at every grid point, on every local core; return (Verdict, Evidence)."""
    points = [(k, e, d, max_prec) for k, e, d in itertools.product(ks, epss, deltas)]
    summary = map_chunks(_sandwich_point, points, workers=workers)
    counts = {"grid_points": len(points), **summary.counts}
    if summary.refuted:
        first = summary.refuted[0]
        return Verdict.REFUTED, Evidence(
            method="arb ball arithmetic",
            precision=summary.precision,
            worst_case=first,
            detail=first["detail"],
            counts={**counts, "refuted": len(summary.refuted), "undecided": len(summary.undecided)},
        )
    if summary.undecided:
        first = summary.undecided[0]
        return Verdict.UNDECIDED, Evidence(
            method="arb ball arithmetic",
            precision=summary.precision,
            worst_case=first,
            detail=f"{len(summary.undecided)} grid point(s) undecided at {max_prec} bits; first: {first['detail']}",
            counts={**counts, "undecided": len(summary.undecided)},
        )
    n = summary.counts.get("certified", 0)
    return Verdict.CERTIFIED, Evidence(
        method="certified bisection (optimal) and arb ball arithmetic (closed forms)",
        precision=summary.precision,
        detail=f"eps_opt <= eps_KOV3.4 <= eps_DRV at all {n} grid points; smallest relative margin "
        f"{float(-summary.worst_score):.3g} between optimal and KOV Thm 3.4",
        worst_case=summary.worst_case,
        counts=counts,
    )


def _claim(name: str, ks: tuple[int, ...], slow: bool) -> Claim:
    epss, deltas = ("0.01", "0.1", "0.5", "1", "2"), ("1e-3", "1e-6", "1e-9")
    return FunctionClaim(
        f"composition.sandwich.{name}",
        "Kairouz–Oh–Viswanath ICML 2015 Thms 3.3 and 3.4; Dwork–Rothblum–Vadhan 2010",
        f"eps_opt(delta) <= eps_KOV3.4(delta' = delta) <= eps_DRV(delta' = delta) for k in {list(ks)}, "
        f"eps in {list(epss)}, delta in {list(deltas)}",
        slow=slow,
        inputs={"k": ks, "eps": epss, "delta": deltas},
        fn=check_sandwich,
    )


CLAIMS: list[Claim] = [
    _claim("optimal_le_general_le_drv", (1, 2, 5, 10, 50, 100, 1000), slow=False),
    _claim("optimal_le_general_le_drv_large_k", (10**4, 3 * 10**4, 10**5), slow=True),
]
