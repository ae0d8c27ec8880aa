"""Claims of the shuffle-model RDP paper (Girgis et al., CCS 2021) [GDDSK21], with dpcert's errata.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

Comparisons between two bounds are decided by :func:`check_le` (certified when the first enclosure lies below the
second, refuted with both enclosures when it lies above); grid statements by :func:`check_sandwich`. Errata are
claims as the paper states them, expected REFUTED, with the exact counterexample in the evidence:

* E1 (Remark 7, "we believe our lower bound is tight"): the reverse order of Theorem 3's own pair exceeds it.
* E2 (Corollary 1 from Theorem 1, Appendix A step (54)): the condition holds and Theorem 1 > Corollary 1.
* E4 (Remark 4, "Theorem 1 better than Theorem 2 for all parameter ranges of interest").
* E5 (§3.1, "both our bounds outperform (10) in all cases"): Theorem 2 > (10).
* E6 (§4, "the bounds saturate close to ε0 as λ → ∞"): Theorem 1 > ε0.

References:
    Girgis, Data, Diggavi, Suresh, Kairouz, "On the Rényi Differential Privacy of the Shuffle Model", CCS 2021;
    docs/derivations/shuffle.md (the derivations behind the errata).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb, fmpq

from dpcert.arith.ball import Enclosure, ball, workprec
from dpcert.arith.exact import RationalFunction, X
from dpcert.core.claim import AtMost, Claim, Evidence, FunctionClaim, QuantityClaim, Rounds, Verdict, check_function
from dpcert.core.parallel import Summary, map_chunks
from dpcert.errors import PrecisionExhausted
from dpcert.shuffle import QUANTITIES, bounds

__all__ = [
    "CLAIMS",
    "check_le",
    "check_rounds",
    "check_sandwich",
    "check_cor1_from_thm1",
    "check_lemma1_inverse",
]

_PAPER = "Girgis–Data–Diggavi–Suresh–Kairouz, CCS 2021"


def _inputs(name: str, n: int, eps0: str, lam: str) -> dict[str, Any]:
    """Inputs of a quantity named ``name`` or ``name:order``."""
    base, _, order = name.partition(":")
    q = QUANTITIES[base]
    inputs: dict[str, Any] = {"n": n, "eps0": eps0, "lam": int(lam) if q.params[2].kind == "int" else lam}
    if order:
        inputs["order"] = order
    return inputs


def _decide_le(
    lower: str, lower_at: tuple[int, str, str], upper: str, upper_at: tuple[int, str, str], max_prec: int
) -> tuple[bool | None, Enclosure, Enclosure, int]:
    """Decide value(lower) <= value(upper), raising the precision of both (None: undecided at max_prec)."""
    ql, qu = QUANTITIES[lower.partition(":")[0]], QUANTITIES[upper.partition(":")[0]]
    pl, pu = ql.parse(_inputs(lower, *lower_at)), qu.parse(_inputs(upper, *upper_at))
    prec = 64
    while True:
        el = _enclose(ql, pl, prec)
        eu = _enclose(qu, pu, prec)
        assert el.lo is not None and el.hi is not None and eu.lo is not None and eu.hi is not None
        if el.hi <= eu.lo:
            return True, el, eu, prec
        if el.lo > eu.hi:
            return False, el, eu, prec
        if prec >= max_prec:
            return None, el, eu, prec
        prec = min(2 * prec, max_prec)


def _enclose(q: Any, parsed: dict[str, Any], prec: int) -> Enclosure:
    from dpcert.core.quantity import enclosure_of

    return enclosure_of(q.ball_at(prec, parsed))


@check_function
def check_le(
    max_prec: int,
    lower: str,
    lower_at: tuple[int, str, str],
    upper: str,
    upper_at: tuple[int, str, str],
) -> tuple[Verdict, Evidence]:
    """The claim "lower(n, ε0, λ) <= upper(n′, ε0′, λ′)" for two named quantities (``name`` or ``name:order``)."""
    holds, el, eu, prec = _decide_le(lower, tuple(lower_at), upper, tuple(upper_at), max_prec)
    detail = f"{lower}{tuple(lower_at)} in {el.short()}; {upper}{tuple(upper_at)} in {eu.short()}"
    if holds is None:
        return Verdict.UNDECIDED, Evidence(el, "arb ball arithmetic", prec, "overlap: " + detail)
    verdict = Verdict.CERTIFIED if holds else Verdict.REFUTED
    return verdict, Evidence(
        el, "arb ball arithmetic", prec, detail, extra={"lower": el.to_json(), "upper": eu.to_json()}
    )


#: each step of a sandwich: (lower quantity, upper quantity, only at integer λ)
_SANDWICH: dict[str, tuple[tuple[str, str], ...]] = {
    "pair": (
        ("shuffle.rdp.thm3", "shuffle.rdp.pair:max"),
        ("shuffle.rdp.pair:max", "shuffle.rdp.thm1"),
        ("shuffle.rdp.pair:max", "shuffle.rdp.thm2"),
    ),
    "real": (
        ("shuffle.rdp.pair:max", "shuffle.rdp.thm1_real"),
        ("shuffle.rdp.pair:max", "shuffle.rdp.thm2"),
    ),
    "cor2": (("shuffle.rdp.cor2", "shuffle.rdp.thm3"),),
    "reverse": (("shuffle.rdp.pair:forward", "shuffle.rdp.pair:reverse"),),
    "reduction": (
        ("shuffle.rdp.pair:max", "shuffle.rdp.reduction"),
        ("shuffle.rdp.reduction", "shuffle.rdp.thm1_real"),
        ("shuffle.rdp.reduction", "shuffle.rdp.thm2"),
    ),
}


def _sandwich_point(point: tuple[str, int, str, str, int]) -> Summary:
    kind, n, eps0, lam, max_prec = point
    out = Summary()
    case = {"n": n, "eps0": eps0, "lam": lam}
    try:
        for lower, upper in _SANDWICH[kind]:
            holds, el, eu, prec = _decide_le(lower, (n, eps0, lam), upper, (n, eps0, lam), max_prec)
            out.used(prec)
            if holds is None:
                out.undecided.append({**case, "detail": f"{lower} vs {upper} overlap"})
                return out
            if not holds:
                out.refuted.append({**case, "detail": f"{lower} {el.short()} > {upper} {eu.short()}"})
                return out
    except PrecisionExhausted as exc:
        out.undecided.append({**case, "detail": str(exc)})
        return out
    out.add("certified")
    return out


@check_function
def check_sandwich(
    max_prec: int, kind: str, ns: tuple[int, ...], eps0s: tuple[str, ...], lams: tuple[str, ...]
) -> tuple[Verdict, Evidence]:
    """Every step of the sandwich ``kind`` (see ``_SANDWICH``) at every grid point, certified in balls."""
    points = [(kind, n, e, lam, max_prec) for n in ns for e in eps0s for lam in lams]
    total = map_chunks(_sandwich_point, points, workers=1)
    steps = "; ".join(f"{lo} <= {up}" for lo, up in _SANDWICH[kind])
    return _grid_verdict(total, steps, len(points), "grid points")


@check_function
def check_cor1_from_thm1(max_prec: int, n: int, eps0: str, lam: int) -> tuple[Verdict, Evidence]:
    """Appendix A: "under λ⁴e^{5ε0} < n/9, Theorem 1's bound is at most Corollary 1's" (so Cor 1 follows).

    REFUTED at a point where the condition is certified and Theorem 1 > Corollary 1 is certified.
    """
    cond = bounds.cor1_applies(n, Fraction(eps0), lam, max_prec=max_prec)
    if not cond:
        return Verdict.UNDECIDED, Evidence(None, "exact", 0, f"the condition fails at {(n, eps0, lam)}: no test")
    verdict, ev = check_le(max_prec, "shuffle.rdp.thm1", (n, eps0, str(lam)), "shuffle.rdp.cor1", (n, eps0, str(lam)))
    detail = f"condition lam^4 e^(5 eps0) < n/9 certified; {ev.detail}"
    return verdict, Evidence(ev.enclosure, ev.method, ev.precision, detail, extra=ev.extra)


@check_function
def check_rounds(max_prec: int, name: str, at: tuple[int, str, str], printed: str) -> tuple[Verdict, Evidence]:
    """The claim "the quantity ``name`` (or ``name:order``) at (n, ε0, λ) rounds to ``printed``"."""
    q = QUANTITIES[name.partition(":")[0]]
    rounds = Rounds(printed)
    try:
        holds, enc, prec = q.decide(q.parse(_inputs(name, *at)), rounds.decide, max_prec=max_prec)
    except PrecisionExhausted as exc:
        return Verdict.UNDECIDED, Evidence(None, "arb ball arithmetic", max_prec, str(exc))
    verdict = Verdict.CERTIFIED if holds else Verdict.REFUTED
    return verdict, Evidence(enc, "arb ball arithmetic", prec, f"{name}{tuple(at)} in {enc.short()} vs {printed}")


class _SympyContext:
    """The functions Lemma 1's formulas use, as sympy expressions (for the symbolic identity check)."""

    @staticmethod
    def num(x: Any) -> Any:
        return x

    @staticmethod
    def log(x: Any) -> Any:
        import sympy

        return sympy.log(x)

    @staticmethod
    def exp(x: Any) -> Any:
        import sympy

        return sympy.exp(x)

    @staticmethod
    def log1p(x: Any) -> Any:
        import sympy

        return sympy.log(1 + x)


@check_function
def check_lemma1_inverse(max_prec: int) -> tuple[Verdict, Evidence]:
    """Lemma 1's δ-form applied to the ε-form's ε gives back δ, for every λ > 1, R and δ > 0 (symbolic algebra).

    With λ = 1 + s (s > 0), δ > 0, every logarithm's argument is positive (1 − 1/λ = s/(1+s)), so expanding the
    logarithms is valid; sympy then simplifies log δ(ε(δ)) − log δ to 0.
    """
    import sympy

    from dpcert.shuffle.conversion import lemma1_delta, lemma1_eps

    s, rdp, delta = sympy.symbols("s R delta", positive=True)
    lam = 1 + s
    back = lemma1_delta(_SympyContext, lam, rdp, lemma1_eps(_SympyContext, lam, rdp, delta))
    residual = sympy.simplify(sympy.expand_log(sympy.log(back) - sympy.log(delta), force=True))
    detail = f"log delta(eps(delta)) - log delta simplifies to {residual} (lam = 1 + s, s > 0, delta > 0)"
    verdict = Verdict.CERTIFIED if residual == 0 else Verdict.UNDECIDED
    return verdict, Evidence(None, "exact symbolic algebra (sympy)", 0, detail)


def _le(cid: str, ref: str, statement: str, lower: str, lower_at: tuple, upper: str, upper_at: tuple, **kw: Any):
    return FunctionClaim(
        cid,
        ref,
        statement,
        fn=check_le,
        inputs={"lower": lower, "lower_at": lower_at, "upper": upper, "upper_at": upper_at},
        **kw,
    )


_GRID_N = (10, 30, 100, 200)
_GRID_E = ("0.1", "0.5", "1", "2", "3")
_GRID_L = ("2", "3", "5", "10", "20", "50")

CLAIMS: list[Claim] = [
    # ---- errata (expected REFUTED) -------------------------------------------------------------------------
    _le(
        "shuffle.remark7.lower_bound_tight",
        f"{_PAPER}, Remark 7 / §9",
        "Theorem 3's lower bound is tight: the pair it comes from has no larger Renyi divergence than Theorem 3 "
        "(at n = 1000, eps0 = 3, lam = 100)",
        "shuffle.rdp.pair:reverse",
        (1000, "3", "100"),
        "shuffle.rdp.thm3",
        (1000, "3", "100"),
        expected=Verdict.REFUTED,
        erratum="the reverse order D_lam(M(D)||M(D')) of Theorem 3's own 2RR pair is 2.50921867097 > Theorem 3's "
        "0.494017222138; the unconstrained tightness belief is false (first-order tightness as n -> oo is not refuted)",
    ),
    FunctionClaim(
        "shuffle.cor1.follows_from_thm1",
        f"{_PAPER}, Corollary 1 and Appendix A, step (54)",
        "Under lam^4 e^(5 eps0) < n/9, Theorem 1 is at most Corollary 1 (n = 150, eps0 = 0.0005, lam = 2)",
        fn=check_cor1_from_thm1,
        inputs={"n": 150, "eps0": "0.0005", "lam": 2},
        expected=Verdict.REFUTED,
        erratum="the condition holds (16.04 < 16.67) but Theorem 1 = 1.15698e-8 > Corollary 1 = 6.67000e-9: "
        "Corollary 1 does not follow from Theorem 1 for small eps0 (its inequality itself was not refuted)",
    ),
    _le(
        "shuffle.remark4.thm1_beats_thm2",
        f"{_PAPER}, Remark 4",
        "Theorem 1 is better (smaller) than Theorem 2 for all parameter ranges of interest (n = 10^4, eps0 = 0.1, "
        "lam = 1000, inside Fig. 2(a)'s range)",
        "shuffle.rdp.thm1",
        (10**4, "0.1", "1000"),
        "shuffle.rdp.thm2",
        (10**4, "0.1", "1000"),
        expected=Verdict.REFUTED,
        erratum="Theorem 1 = 2.7038e-3 > Theorem 2 = 2.4474e-3 at small eps0 and large lam",
    ),
    _le(
        "shuffle.s3_1.thm2_beats_efm19",
        f"{_PAPER}, §3.1 'both our bounds outperform (10) in all cases'",
        "Theorem 2 is at most the EFM+19 baseline (10) (n = 10^4, eps0 = 0.1, lam = 2)",
        "shuffle.rdp.thm2",
        (10**4, "0.1", "2"),
        "shuffle.rdp.efm19",
        (10**4, "0.1", "2"),
        expected=Verdict.REFUTED,
        erratum="Theorem 2 = 9.7798e-6 > (10) = 6.6004e-6 (also at lam = 3); Theorem 1 does beat (10) there",
    ),
    QuantityClaim(
        "shuffle.fig2.saturates_near_eps0",
        f"{_PAPER}, §4 text on Fig. 2",
        "The bounds saturate close to eps0 (Theorem 1 stays at most eps0; n = 10, eps0 = 3, lam = 2)",
        quantity=QUANTITIES["shuffle.rdp.thm1"],
        inputs={"n": 10, "eps0": "3", "lam": 2},
        comparison=AtMost.of("3"),
        expected=Verdict.REFUTED,
        erratum="Theorem 1 = 5.99 > eps0 = 3 at n = 10 (and it grows like log(lam)/2 as lam -> oo); the true "
        "eps(lam) stays below RR_1(lam) < eps0",
    ),
    # ---- statements that hold (expected CERTIFIED) ---------------------------------------------------------
    _le(
        "shuffle.thm1.beats_efm19_fig2d",
        f"{_PAPER}, §3.1 (holds for Theorem 1)",
        "Theorem 1 is at most (10) at Fig. 2(d) (n = 10^4, eps0 = 3, lam = 100)",
        "shuffle.rdp.thm1",
        (10**4, "3", "100"),
        "shuffle.rdp.efm19",
        (10**4, "3", "100"),
    ),
    FunctionClaim(
        "shuffle.thm3.sandwich_grid",
        f"{_PAPER}, Theorems 1-3",
        "Theorem 3 <= exact 2RR pair RDP <= Theorem 1 and <= Theorem 2 on n in {10,30,100,200}, eps0 in "
        "{0.1,0.5,1,2,3}, lam in {2,3,5,10,20,50}",
        fn=check_sandwich,
        inputs={"kind": "pair", "ns": _GRID_N, "eps0s": _GRID_E, "lams": _GRID_L},
    ),
    FunctionClaim(
        "shuffle.eq8.real_order_grid",
        f"{_PAPER}, Remark 2, eq. (8) and Theorem 2 at real lam",
        "The exact pair RDP is at most Theorem 1 via eq. (8) and Theorem 2 at real lam in {1.5, 2.5, 3.7, 7.3, 10.3}",
        fn=check_sandwich,
        inputs={
            "kind": "real",
            "ns": (30, 50, 100, 200),
            "eps0s": ("0.5", "1", "2", "3"),
            "lams": ("1.5", "2.5", "3.7", "7.3", "10.3"),
        },
    ),
    FunctionClaim(
        "shuffle.cor2.below_thm3_grid",
        f"{_PAPER}, Corollary 2 (the paper's Jensen argument is invalid, the statement true: "
        "docs/derivations/shuffle.md#nonnegative-central-moments)",
        "Corollary 2 <= Theorem 3 (odd central moments of Bin(n, p <= 1/2) are >= 0) on the sandwich grid with "
        "lam >= 3 (at lam = 2 the two are the same formula)",
        fn=check_sandwich,
        inputs={"kind": "cor2", "ns": _GRID_N, "eps0s": _GRID_E, "lams": _GRID_L[1:]},
    ),
    FunctionClaim(
        "shuffle.pair.reverse_exceeds_forward_grid",
        "dpcert.shuffle.pair; docs/derivations/shuffle.md#the-worst-case-pair-in-both-orders",
        "The reverse order of the 2RR pair is at least its forward order (= Theorem 3) on the sandwich grid",
        fn=check_sandwich,
        inputs={"kind": "reverse", "ns": _GRID_N, "eps0s": _GRID_E, "lams": _GRID_L},
    ),
    _le(
        "shuffle.thm1.not_monotone_in_lam",
        "Girgis et al. (CCS 2021), Theorem 1 (eq. 6)",
        "Theorem 1 is not monotone in lam: at n = 10, eps0 = 3 its value at lam = 50 is below its value at lam = 2",
        "shuffle.rdp.thm1",
        (10, "3", "50"),
        "shuffle.rdp.thm1",
        (10, "3", "2"),
    ),
]

CLAIMS += [
    FunctionClaim(
        "shuffle.reduction.sandwich_grid",
        "derived here (dpcert): U_red = Theorem 4 with the special case solved "
        "exactly; proof in dpcert.shuffle.reduction",
        "Exact 2RR pair RDP <= U_red (derived here) <= Theorem 1 (eq. 8) and <= Theorem 2 on n in {10,30,100,200}, "
        "eps0 in {0.1,0.5,1,2,3}, lam in {1.5,2,3,5,10,20,50}",
        fn=check_sandwich,
        inputs={"kind": "reduction", "ns": _GRID_N, "eps0s": _GRID_E, "lams": ("1.5",) + _GRID_L[:-1] + ("50",)},
    ),
    FunctionClaim(
        "shuffle.reduction.pinned_n1000_eps3_lam100",
        "derived here (dpcert.shuffle.reduction)",
        "U_red (derived here) at n = 1000, eps0 = 3, lam = 100 rounds to 2.50921885527 (the exact pair gives "
        "2.50921867097: eps(100) is pinned to 2e-7)",
        fn=check_rounds,
        inputs={"name": "shuffle.rdp.reduction", "at": (1000, "3", "100"), "printed": "2.50921885527"},
    ),
]

CLAIMS += [
    FunctionClaim(
        "shuffle.lemma1.forms_inverse",
        f"{_PAPER}, Lemma 1",
        "For each fixed lam > 1, Lemma 1's eps-form and delta-form are inverses of each other",
        fn=check_lemma1_inverse,
        inputs={},
    ),
]

#: reference values computed independently with mpmath at 50 digits: quantity, (n, eps0, lam), printed
_REFERENCE = [
    ("thm1", (10, "0.5", 5), "0.594981144232843"),
    ("thm3", (10, "0.5", 5), "0.0599756546849495"),
    ("thm1", (100, "1", 10), "0.632582820169624"),
    ("thm3", (100, "1", 10), "0.0511412230705165"),
    ("thm1", (10**4, "3", 100), "2.40174129215875"),
    ("thm3", (10**4, "3", 100), "0.0815802542252152"),
    ("thm1", (10**6, "0.5", 256), "0.000182363514400216"),
    ("thm3", (10**6, "0.5", 256), "0.0000326708307557587"),
]
for _q, (_n, _e, _l), _v in _REFERENCE:
    CLAIMS.append(
        QuantityClaim(
            f"shuffle.{_q}.reference_n{_n}_eps{_e.replace('.', '_')}_lam{_l}",
            f"{_PAPER}, {'Theorem 1, eq. (6)' if _q == 'thm1' else 'Theorem 3, eq. (11)'}; "
            "value from an independent 50-digit mpmath computation",
            f"{_q} at n = {_n}, eps0 = {_e}, lam = {_l} rounds to {_v}",
            quantity=QUANTITIES[f"shuffle.rdp.{_q}"],
            inputs={"n": _n, "eps0": _e, "lam": _l},
            comparison=Rounds(_v),
        )
    )
CLAIMS.append(
    FunctionClaim(
        "shuffle.pair.pinned_n1000_eps3_lam100",
        "dpcert.shuffle.pair (exact 2RR pair); docs/derivations/shuffle.md#the-worst-case-pair-in-both-orders",
        "The exact pair RDP (max of both orders: the reverse one) at n = 1000, eps0 = 3, lam = 100 rounds to "
        "2.50921867097",
        fn=check_rounds,
        inputs={"name": "shuffle.rdp.pair:max", "at": (1000, "3", "100"), "printed": "2.50921867097"},
    )
)


# ----------------------------------------------------------------------------------------------------------------
# the exact pair, U_red and the conversion at work


def _strictly_below(lower: Any, upper: Any, max_prec: int) -> tuple[bool | None, int]:
    """Decide lower(prec) < upper(prec) for two ball-valued functions of the precision, doubling it up to max_prec."""
    prec = 64
    while True:
        a, b = lower(prec), upper(prec)
        if a < b:
            return True, prec
        if a >= b:
            return False, prec
        if prec >= max_prec:
            return None, prec
        prec = min(2 * prec, max_prec)


def _record(out: Summary, below: bool | None, prec: int, case: dict[str, Any]) -> None:
    """Count one decided comparison of a grid (certified, refuted or undecided)."""
    out.used(prec)
    if below is None:
        out.undecided.append(case)
    elif not below:
        out.refuted.append(case)
    else:
        out.add("certified")


def _grid_verdict(total: Summary, what: str, points: int, unit: str = "comparisons") -> tuple[Verdict, Evidence]:
    """The verdict of a grid of comparisons: REFUTED by the first refuted one, else UNDECIDED if any overlapped."""
    counts = {
        "certified": total.counts.get("certified", 0),
        "refuted": len(total.refuted),
        "undecided": len(total.undecided),
    }
    if total.refuted:
        return Verdict.REFUTED, Evidence(
            None, "arb ball arithmetic", total.precision, what, worst_case=total.refuted[0], counts=counts
        )
    if total.undecided:
        return Verdict.UNDECIDED, Evidence(
            None, "arb ball arithmetic", total.precision, what, worst_case=total.undecided[0], counts=counts
        )
    return Verdict.CERTIFIED, Evidence(
        None, "arb ball arithmetic", total.precision, f"{what}: all {points} {unit}", counts=counts
    )


def _rr_pairs_point(point: tuple[int, str, str, int]) -> Summary:
    from dpcert.shuffle.pair import rr_neighbour_ball

    n, eps0, lam, max_prec = point
    e, lv = Fraction(eps0), Fraction(lam)
    out = Summary()
    for j in range(n):
        for order in ("forward", "reverse"):
            if (j, order) in ((0, "reverse"), (n - 1, "forward")):
                continue  # the pair itself and its mirror image (equal by relabelling 0 <-> 1)
            below, prec = _strictly_below(
                lambda pr, j=j, order=order: rr_neighbour_ball(n, j, e, lv, order, pr),
                lambda pr: rr_neighbour_ball(n, 0, e, lv, "reverse", pr),
                max_prec,
            )
            _record(out, below, prec, {"n": n, "eps0": eps0, "lam": lam, "j": j, "order": order})
    return out


@check_function
def check_rr_pairs_max(
    max_prec: int, ns: tuple[int, ...], eps0s: tuple[str, ...], lams: tuple[str, ...]
) -> tuple[Verdict, Evidence]:
    """C5: over every 2RR neighbour pair (j ones among the n−1 others, both orders) the largest D_λ is j = 0 in
    the reverse order (and its mirror j = n−1 forward): every other one is certified strictly smaller."""
    points = [(n, e, lam, max_prec) for n in ns for e in eps0s for lam in lams]
    total = map_chunks(_rr_pairs_point, points, workers=1)
    what = "D_lam(j, order) < D_lam(0, reverse) for every other 2RR neighbour pair (j = n-1 forward is its mirror)"
    return _grid_verdict(total, what, sum(2 * n - 2 for n, *_ in points))


def _lemma8_point(point: tuple[str, str, tuple[int, ...], int]) -> Summary:
    from dpcert.shuffle.pair import pair_excess_ball

    eps0, lam, ms, max_prec = point
    e, lv = Fraction(eps0), Fraction(lam)
    out = Summary()
    for m0, m1 in zip(ms, ms[1:], strict=False):
        below, prec = _strictly_below(
            lambda pr, m1=m1: pair_excess_ball(m1, e, lv, "forward", pr),
            lambda pr, m0=m0: pair_excess_ball(m0, e, lv, "forward", pr),
            max_prec,
        )
        _record(out, below, prec, {"eps0": eps0, "lam": lam, "m": m0, "next_m": m1})
    return out


@check_function
def check_lemma8(
    max_prec: int, ms: tuple[int, ...], eps0s: tuple[str, ...], lams: tuple[str, ...]
) -> tuple[Verdict, Evidence]:
    """C7 (Lemma 8): S_m(λ) is decreasing along the increasing list ``ms`` (strictly, in balls), for each (ε0, λ)."""
    points = [(e, lam, tuple(ms), max_prec) for e in eps0s for lam in lams]
    total = map_chunks(_lemma8_point, points, workers=1)
    return _grid_verdict(total, "S_m'(lam) < S_m(lam) for consecutive m < m' of the list", len(points) * (len(ms) - 1))


def _thm5_point(point: tuple[str, int, tuple[int, ...], int]) -> Summary:
    from dpcert.shuffle.pair import pair_excess_ball

    eps0, lam, ms, max_prec = point
    e = Fraction(eps0)
    out = Summary()
    for m in ms:

        def thm5(pr: int, m: int = m) -> arb:
            with workprec(pr + 32):
                return bounds.thm5_excess_ball(m, e, lam)

        def exact(pr: int, m: int = m) -> arb:
            return pair_excess_ball(m, e, Fraction(lam), "forward", pr)

        below, prec = _strictly_below(exact, thm5, max_prec)
        _record(out, below, prec, {"eps0": eps0, "lam": lam, "m": m})
    return out


def _rr_law(m: int) -> tuple[list[RationalFunction], list[RationalFunction]]:
    """Bin(k; m, p) and r_k = (k x + (m−k)/x)/m as exact rational functions of x = e^{ε0}, p = 1/(x+1)."""
    p = 1 / (X + 1)
    masses = [math.comb(m, k) * p**k * (1 - p) ** (m - k) for k in range(m + 1)]
    ratios = [(k * X + Fraction(m - k) / X) / m for k in range(m + 1)]
    return masses, ratios


@check_function
def check_thm5_vs_exact(
    max_prec: int, ms: tuple[int, ...], eps0s: tuple[str, ...], lams: tuple[int, ...], exact_ms: tuple[int, ...]
) -> tuple[Verdict, Evidence]:
    """C8: Theorem 5 >= S_m(λ) (strictly, in balls, at integer λ >= 3), Theorem 5 = S_m(2) exactly (identity of
    rational functions of x = e^{ε0} for every m in ``exact_ms``, so for every ε0), and Lemma 7's sup
    (e^{ε0}−1)²/e^{ε0} of Σ p′²/p − 1 attained by 2RR (an identity in x)."""
    # exact parts: S_m(2) − 1 = (x−1)²/(m x) and 2RR's chi-square = (x−1)²/x
    for m in exact_ms:
        masses, ratios = _rr_law(m)
        s2 = sum((w * (r - 1) ** 2 for w, r in zip(masses, ratios, strict=True)), RationalFunction(0))
        if not (s2 - (X - 1) ** 2 / (m * X)).is_zero():
            return Verdict.REFUTED, Evidence(None, "exact rational functions", 0, f"S_m(2) - 1 != Thm 5 at m = {m}")
    p = 1 / (X + 1)
    chi2 = p**2 / (1 - p) + (1 - p) ** 2 / p - 1  # p = 2RR's law at d, p' = its law at d' (swapped)
    if not (chi2 - (X - 1) ** 2 / X).is_zero():
        return Verdict.REFUTED, Evidence(None, "exact rational functions", 0, "2RR does not attain Lemma 7's value")
    points = [(e, lam, tuple(ms), max_prec) for e in eps0s for lam in lams]
    total = map_chunks(_thm5_point, points, workers=1)
    verdict, ev = _grid_verdict(total, "S_m(lam) - 1 < Theorem 5 - 1 at integer lam >= 3", len(points) * len(ms))
    detail = (
        f"{ev.detail}; exact identities (rational functions of x = e^eps0): S_m(2) = Theorem 5 at lam = 2 for m in "
        f"{exact_ms[0]}..{exact_ms[-1]}, and 2RR's sum p'^2/p - 1 = (x-1)^2/x (Lemma 7's sup, attained)"
    )
    return verdict, Evidence(
        None,
        "arb ball arithmetic + exact rational functions",
        ev.precision,
        detail,
        worst_case=ev.worst_case,
        counts=ev.counts,
    )


@check_function
def check_ratio_near_limit(
    max_prec: int, num: str, den: str, at: tuple[int, str, str], coef: int, power: int, tol: str
) -> tuple[Verdict, Evidence]:
    """C15: value(num)/value(den) at ``at`` lies within relative ``tol`` of its large-n limit coef·e^{power·ε0}."""
    qn, qd = QUANTITIES[num.partition(":")[0]], QUANTITIES[den.partition(":")[0]]
    pn, pd = qn.parse(_inputs(num, *at)), qd.parse(_inputs(den, *at))
    t = Fraction(tol)
    prec = 64
    while True:
        with workprec(prec):
            ratio = ball(qn.ball_at(prec, pn)) / ball(qd.ball_at(prec, pd))
            limit = coef * (power * ball(Fraction(at[1]))).exp()
            dev = abs(ratio / limit - 1)
        enc = Enclosure.from_ball(ratio)
        detail = f"{num}/{den} at {tuple(at)} in {enc.short(10)}; limit {coef} e^({power} eps0) = {limit.str(10)}"
        if dev < ball(t):
            return Verdict.CERTIFIED, Evidence(enc, "arb ball arithmetic", prec, detail + f"; within {tol}")
        if dev > ball(t):
            return Verdict.REFUTED, Evidence(enc, "arb ball arithmetic", prec, detail + f"; not within {tol}")
        if prec >= max_prec:
            return Verdict.UNDECIDED, Evidence(enc, "arb ball arithmetic", prec, detail)
        prec *= 2


@check_function
def check_cor1_cor2_identity(max_prec: int) -> tuple[Verdict, Evidence]:
    """C15 (Remark 7): the excess of Corollary 1 over that of Corollary 2 is 4e^{ε0}, for every n, λ, ε0 (sympy)."""
    import sympy

    x, n, lam = sympy.symbols("x n lam", positive=True)
    cor1 = 4 * sympy.binomial(lam, 2) * (x - 1) ** 2 / n
    cor2 = sympy.binomial(lam, 2) * (x - 1) ** 2 / (n * x)
    residual = sympy.simplify(cor1 / cor2 - 4 * x)
    detail = f"[4 C(lam,2)(x-1)^2/n] / [C(lam,2)(x-1)^2/(n x)] - 4x simplifies to {residual} (x = e^eps0)"
    verdict = Verdict.CERTIFIED if residual == 0 else Verdict.UNDECIDED
    return verdict, Evidence(None, "exact symbolic algebra (sympy)", 0, detail)


def _dp_curve_point(point: tuple[str, int, str, int, str, int]) -> tuple[tuple[str, int, str, int], Any]:
    from dpcert.arith.exact import parse_rational
    from dpcert.shuffle.conversion import dp_eps_of_bound

    bound, n, eps0, t, delta, prec = point
    _, val = dp_eps_of_bound(bound, n, parse_rational(eps0), t, parse_rational(delta), prec)
    return (bound, n, eps0, t), val


@check_function
def check_dp_monotone(
    max_prec: int,
    bounds_: tuple[str, ...],
    ns: tuple[int, ...],
    eps0s: tuple[str, ...],
    ts: tuple[int, ...],
    delta: str,
) -> tuple[Verdict, Evidence]:
    """C26: the composed ε(δ) of every RDP curve (each at its float-chosen λ, certified there) is decreasing in n
    and increasing in T and ε0 along the grid (strict comparisons of certified balls)."""
    vals = dict(_dp_curve_point((b, n, e, t, delta, 128)) for b in bounds_ for n in ns for e in eps0s for t in ts)
    total = Summary()
    total.used(128)
    axes = (("n", ns, 1, -1), ("eps0", eps0s, 2, 1), ("T", ts, 3, 1))
    for key, val in vals.items():
        for name, grid, pos, sign in axes:
            i = grid.index(key[pos])
            if i + 1 == len(grid):
                continue
            nxt = list(key)
            nxt[pos] = grid[i + 1]
            other = vals[tuple(nxt)]
            case = {"bound": key[0], "n": key[1], "eps0": key[2], "T": key[3], "axis": name}
            ok = other < val if sign < 0 else other > val
            if ok:
                total.add("certified")
            elif (other >= val) if sign < 0 else (other <= val):
                total.refuted.append(case)
            else:
                total.undecided.append(case)
    what = "eps(delta) decreasing in n, increasing in eps0 and T, for the curves " + ", ".join(bounds_)
    return _grid_verdict(total, what, sum(total.counts.values()) + len(total.refuted) + len(total.undecided))


_LEMMA8_MS = tuple(range(1, 60)) + (80, 120, 200)


def _ratio_claim(cid: str, ref: str, statement: str, pair_: tuple[str, str], limit: tuple[int, int, str]) -> Claim:
    """C15: num/den at (10^6, 0.5, 2) within relative tol of coef·e^{power·ε0} (``limit = (coef, power, tol)``)."""
    coef, power, tol = limit
    inputs = {"num": pair_[0], "den": pair_[1], "at": (10**6, "0.5", "2"), "coef": coef, "power": power, "tol": tol}
    return FunctionClaim(cid, ref, statement, fn=check_ratio_near_limit, inputs=inputs)


CLAIMS += [
    FunctionClaim(
        "shuffle.pairs.rr_reverse_is_max",
        "dpcert.shuffle.pair (all 2RR neighbour pairs)",
        "Among all shuffled 2RR neighbour pairs (j ones among the n-1 common clients, both orders), the largest "
        "Renyi divergence is j = 0 in the reverse order (and its mirror j = n-1 forward), on n in {5,10,20,40}, "
        "eps0 in {0.5,1,3}, lam in {2,5,20}",
        fn=check_rr_pairs_max,
        inputs={"ns": (5, 10, 20, 40), "eps0s": ("0.5", "1", "3"), "lams": ("2", "5", "20")},
    ),
    FunctionClaim(
        "shuffle.lemma8.special_moment_decreasing",
        f"{_PAPER}, Lemma 8 (for the exact special-case moment S_m)",
        "S_m(lam) = E[((k e^eps0 + (m-k) e^-eps0)/m)^lam], k ~ Bin(m, 1/(e^eps0+1)), decreases in m: m = 1..59, 80, "
        "120, 200; eps0 in {0.1,0.5,1,2,3,5}; lam in {1.5,2,2.5,3,3.7,4,7,10,10.3,25,60}",
        fn=check_lemma8,
        inputs={
            "ms": _LEMMA8_MS,
            "eps0s": ("0.1", "0.5", "1", "2", "3", "5"),
            "lams": ("1.5", "2", "2.5", "3", "3.7", "4", "7", "10", "10.3", "25", "60"),
        },
    ),
    FunctionClaim(
        "shuffle.thm5.above_exact_special_case",
        f"{_PAPER}, Theorem 5 (eq. 15) and Lemma 7; S_m is the exact sup (dpcert.shuffle.reduction)",
        "Theorem 5's bound is at least the exact special-case sup S_m(lam), with equality at lam = 2 (for every m "
        "and eps0), and Lemma 7's value (e^eps0 - 1)^2/e^eps0 is attained by 2RR; strict at m = 1..59, 80, 120, 200, "
        "eps0 in {0.1,0.5,1,2,3,5}, lam in {3,4,7,10,25,60}",
        fn=check_thm5_vs_exact,
        inputs={
            "ms": _LEMMA8_MS,
            "eps0s": ("0.1", "0.5", "1", "2", "3", "5"),
            "lams": (3, 4, 7, 10, 25, 60),
            "exact_ms": tuple(range(1, 41)) + (80, 120, 200),
        },
    ),
    _ratio_claim(
        "shuffle.remark7.thm1_over_thm3_large_n",
        f"{_PAPER}, Remark 7",
        "At lam = 2 Theorem 1 / Theorem 3 tends to 2 e^eps0 as n grows: at n = 10^6, eps0 = 0.5 it is within 1e-5 "
        "of 2 e^0.5 (3.2974...)",
        ("shuffle.rdp.thm1", "shuffle.rdp.thm3"),
        (2, 1, "0.00001"),
    ),
    _ratio_claim(
        "shuffle.reduction.over_thm3_large_n",
        "derived here (dpcert), docs/derivations/shuffle.md#u_red",
        "At lam = 2 U_red (derived here) / Theorem 3 tends to e^eps0: at n = 10^6, eps0 = 0.5 it is within 1e-6 of "
        "e^0.5 (1.648721...)",
        ("shuffle.rdp.reduction", "shuffle.rdp.thm3"),
        (1, 1, "0.000001"),
    ),
    _ratio_claim(
        "shuffle.reduction.thm1_over_reduction_large_n",
        "derived here (dpcert), docs/derivations/shuffle.md#u_red",
        "At lam = 2 Theorem 1 / U_red (derived here) tends to 2: at n = 10^6, eps0 = 0.5 it is within 1e-5 of 2",
        ("shuffle.rdp.thm1", "shuffle.rdp.reduction"),
        (2, 0, "0.00001"),
    ),
    FunctionClaim(
        "shuffle.remark7.cor1_over_cor2_exact",
        f"{_PAPER}, Remark 7 (Corollary 1 vs Corollary 2)",
        "The excess inside Corollary 1's logarithm is exactly 4 e^eps0 times that of Corollary 2 (every n, lam, eps0)",
        fn=check_cor1_cor2_identity,
        inputs={},
    ),
    FunctionClaim(
        "shuffle.lemma1.dp_eps_monotone_grid",
        f"{_PAPER}, Lemmas 1-2 (any lam gives a valid (eps, delta))",
        "The composed eps(delta = 1e-6) from each RDP curve (min(Thm 1, Thm 2, RR_1), Thm 1 via eq. (8), Thm 2, eq. "
        "(10)), certified at its float-chosen lam, decreases in n and increases in T and eps0: n in {10^3,10^4,10^6}, "
        "eps0 in {0.1,0.5,2}, T in {1,1000}",
        fn=check_dp_monotone,
        inputs={
            "bounds_": ("upper", "thm1", "thm2", "efm19"),
            "ns": (10**3, 10**4, 10**6),
            "eps0s": ("0.1", "0.5", "2"),
            "ts": (1, 1000),
            "delta": "0.000001",
        },
    ),
]


# ---- C6: no eps0-LDP mechanism beats the 2RR reverse order (general: open; an exact sample) -----------------


def _shuffled_law(mech: tuple[tuple[fmpq, ...], ...], data: tuple[int, ...]) -> dict[tuple[int, ...], fmpq]:
    """The law of the histogram of the clients' outputs (a shuffle keeps only the histogram), exactly."""
    law: dict[tuple[int, ...], fmpq] = {(0,) * len(mech[0]): fmpq(1)}
    for d in data:
        nxt: dict[tuple[int, ...], fmpq] = {}
        for h, v in law.items():
            for y, py in enumerate(mech[d]):
                h2 = h[:y] + (h[y] + 1,) + h[y + 1 :]
                nxt[h2] = nxt.get(h2, fmpq(0)) + v * py
        law = nxt
    return law


def _hellinger(num: dict[tuple[int, ...], fmpq], den: dict[tuple[int, ...], fmpq], lam: int) -> fmpq:
    """Σ_h num(h)^λ den(h)^{1−λ} = e^{(λ−1) D_λ(num‖den)}, exactly (integer λ, den > 0 wherever num > 0)."""
    return sum((num[h] ** lam / den[h] ** (lam - 1) for h in num), fmpq(0))


def _random_mechanism(rng: Any) -> tuple[tuple[fmpq, ...], ...]:
    """K in {2, 3} inputs, B in {2, 3} outputs, positive rational rows (weights 1..30, normalised)."""
    k, b = rng.choice((2, 3)), rng.choice((2, 3))
    rows = []
    for _ in range(k):
        w = [rng.randint(1, 30) for _ in range(b)]
        rows.append(tuple(fmpq(x, sum(w)) for x in w))
    return tuple(rows)


@check_function
def check_ldp_sample(
    max_prec: int, ns: tuple[int, ...], lams: tuple[int, ...], mechanisms: int, seed: int
) -> tuple[Verdict, Evidence]:
    """C6 on an exact sample: every neighbour pair (both orders) of random rational LDP mechanisms, shuffled, has
    e^{(λ−1)D_λ} at most that of the 2RR pair's reverse order at the mechanism's own exact LDP level R = e^{ε0}
    (the largest ratio of its entries; 2RR at R has p = 1/(R+1), rational, so both sides are exact rationals).

    REFUTED if some pair exceeds it (a counterexample to the conjecture); otherwise UNDECIDED: a sample proves
    nothing about all mechanisms.
    """
    import itertools
    import random

    rng = random.Random(seed)
    checked, best, best_case = 0, 0.0, None
    for trial in range(mechanisms):
        mech = _random_mechanism(rng)
        ratio = max(a[y] / b[y] for a in mech for b in mech for y in range(len(a)))
        if ratio == 1:
            continue
        p = 1 / (ratio + 1)
        for n in ns:
            rr_p = [fmpq(math.comb(n, k)) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
            rr_r = [(k * ratio + (n - k) / ratio) / n for k in range(n + 1)]
            for lam in lams:
                rr_rev = sum((w / r ** (lam - 1) for w, r in zip(rr_p, rr_r, strict=True)), fmpq(0))
                for rest in itertools.combinations_with_replacement(range(len(mech)), n - 1):
                    for a, b in itertools.permutations(range(len(mech)), 2):
                        h = _hellinger(_shuffled_law(mech, (*rest, a)), _shuffled_law(mech, (*rest, b)), lam)
                        checked += 1
                        case = {
                            "trial": trial,
                            "mechanism": [[str(v) for v in row] for row in mech],
                            "n": n,
                            "lam": lam,
                            "others": list(rest),
                            "pair": [a, b],
                            "R": str(ratio),
                        }
                        if h > rr_rev:
                            detail = f"e^((lam-1)D) = {h} > 2RR reverse {rr_rev} at R = {ratio}"
                            return Verdict.REFUTED, Evidence(
                                None, "exact rational arithmetic", 0, detail, worst_case=case, counts={"pairs": checked}
                            )
                        score = math.log(float(h)) / math.log(float(rr_rev)) if rr_rev > 1 else 0.0
                        if score > best:
                            best, best_case = score, case
    detail = (
        f"{checked} neighbour pairs of {mechanisms} random rational mechanisms (n in {list(ns)}, lam in {list(lams)}): "
        f"none exceeds 2RR's reverse order at its LDP level (exact rationals); largest ratio of divergences "
        f"{best:.4f}. The general statement (every eps0-LDP mechanism, every n) is open: U_red >= eps(lam) >= the "
        "2RR reverse value, and U_red is strictly larger in general, so the reduction does not settle it"
    )
    return Verdict.UNDECIDED, Evidence(
        None,
        "exact rational arithmetic",
        0,
        detail,
        worst_case=best_case,
        counts={"pairs": checked, "counterexamples": 0},
    )


CLAIMS.append(
    FunctionClaim(
        "shuffle.pairs.no_mechanism_beats_rr",
        "dpcert conjecture (dpcert.shuffle.reduction, what it does not settle)",
        "No eps0-LDP randomizer and neighbour pair has a larger shuffled Renyi divergence than 2RR's D = 0^n, "
        "D' = 0^(n-1)1 in the reverse order (so eps(lam) would equal that value); open in general, checked "
        "exactly on random rational mechanisms (K, B <= 3, n <= 4, lam in {2,3,5,10})",
        fn=check_ldp_sample,
        inputs={"ns": (2, 3, 4), "lams": (2, 3, 5, 10), "mechanisms": 100, "seed": 20211},
        expected=Verdict.UNDECIDED,
    )
)
