"""Claims of the shuffle-model RDP paper (Girgis et al., CCS 2021), from the notes' §5 (C1–C26) and §7 (errata).

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
    dpcert notes shuffle_rdp §5, §7.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpcert.arith.ball import Enclosure
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
    counts = {
        "certified": total.counts.get("certified", 0),
        "refuted": len(total.refuted),
        "undecided": len(total.undecided),
    }
    steps = "; ".join(f"{lo} <= {up}" for lo, up in _SANDWICH[kind])
    if total.refuted:
        return Verdict.REFUTED, Evidence(
            None, "arb ball arithmetic", total.precision, steps, worst_case=total.refuted[0], counts=counts
        )
    if total.undecided:
        return Verdict.UNDECIDED, Evidence(
            None, "arb ball arithmetic", total.precision, steps, worst_case=total.undecided[0], counts=counts
        )
    return Verdict.CERTIFIED, Evidence(
        None, "arb ball arithmetic", total.precision, f"{steps}: all {len(points)} grid points", counts=counts
    )


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
    """The three functions Lemma 1's formulas use, as sympy expressions (for the symbolic identity check)."""

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
        f"{_PAPER}, Remark 7 / §9 (notes E1, C3)",
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
        f"{_PAPER}, Corollary 1 and Appendix A, step (54) (notes E2, C11)",
        "Under lam^4 e^(5 eps0) < n/9, Theorem 1 is at most Corollary 1 (n = 150, eps0 = 0.0005, lam = 2)",
        fn=check_cor1_from_thm1,
        inputs={"n": 150, "eps0": "0.0005", "lam": 2},
        expected=Verdict.REFUTED,
        erratum="the condition holds (16.04 < 16.67) but Theorem 1 = 1.15698e-8 > Corollary 1 = 6.67000e-9: "
        "Corollary 1 does not follow from Theorem 1 for small eps0 (its inequality itself was not refuted)",
    ),
    _le(
        "shuffle.remark4.thm1_beats_thm2",
        f"{_PAPER}, Remark 4 (notes E4, C13)",
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
        f"{_PAPER}, §3.1 'both our bounds outperform (10) in all cases' (notes E5, C14)",
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
        f"{_PAPER}, §4 text on Fig. 2 (notes E6, C16)",
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
        f"{_PAPER}, §3.1 (notes C14: holds for Theorem 1)",
        "Theorem 1 is at most (10) at Fig. 2(d) (n = 10^4, eps0 = 3, lam = 100)",
        "shuffle.rdp.thm1",
        (10**4, "3", "100"),
        "shuffle.rdp.efm19",
        (10**4, "3", "100"),
    ),
    FunctionClaim(
        "shuffle.thm3.sandwich_grid",
        f"{_PAPER}, Theorems 1-3 (notes C4, C9)",
        "Theorem 3 <= exact 2RR pair RDP <= Theorem 1 and <= Theorem 2 on n in {10,30,100,200}, eps0 in "
        "{0.1,0.5,1,2,3}, lam in {2,3,5,10,20,50}",
        fn=check_sandwich,
        inputs={"kind": "pair", "ns": _GRID_N, "eps0s": _GRID_E, "lams": _GRID_L},
    ),
    FunctionClaim(
        "shuffle.eq8.real_order_grid",
        f"{_PAPER}, Remark 2, eq. (8) and Theorem 2 at real lam (notes C25, C9)",
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
        f"{_PAPER}, Corollary 2 (notes C12, E3: the paper's Jensen argument is invalid, the statement true)",
        "Corollary 2 <= Theorem 3 (odd central moments of Bin(n, p <= 1/2) are >= 0) on the sandwich grid with "
        "lam >= 3 (at lam = 2 the two are the same formula)",
        fn=check_sandwich,
        inputs={"kind": "cor2", "ns": _GRID_N, "eps0s": _GRID_E, "lams": _GRID_L[1:]},
    ),
    FunctionClaim(
        "shuffle.pair.reverse_exceeds_forward_grid",
        "notes shuffle_rdp §1.11, C3",
        "The reverse order of the 2RR pair is at least its forward order (= Theorem 3) on the sandwich grid",
        fn=check_sandwich,
        inputs={"kind": "reverse", "ns": _GRID_N, "eps0s": _GRID_E, "lams": _GRID_L},
    ),
    _le(
        "shuffle.thm1.not_monotone_in_lam",
        "notes shuffle_rdp C17, pitfall 10",
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
        "derived here (dpcert), notes shuffle_rdp §1.10 (C4, C10): U_red = Theorem 4 with the special case solved "
        "exactly; proof in dpcert.shuffle.reduction",
        "Exact 2RR pair RDP <= U_red (derived here) <= Theorem 1 (eq. 8) and <= Theorem 2 on n in {10,30,100,200}, "
        "eps0 in {0.1,0.5,1,2,3}, lam in {1.5,2,3,5,10,20,50}",
        fn=check_sandwich,
        inputs={"kind": "reduction", "ns": _GRID_N, "eps0s": _GRID_E, "lams": ("1.5",) + _GRID_L[:-1] + ("50",)},
    ),
    FunctionClaim(
        "shuffle.reduction.pinned_n1000_eps3_lam100",
        "derived here (dpcert), notes shuffle_rdp C23",
        "U_red (derived here) at n = 1000, eps0 = 3, lam = 100 rounds to 2.50921885527 (the exact pair gives "
        "2.50921867097: eps(100) is pinned to 2e-7)",
        fn=check_rounds,
        inputs={"name": "shuffle.rdp.reduction", "at": (1000, "3", "100"), "printed": "2.50921885527"},
    ),
]

CLAIMS += [
    FunctionClaim(
        "shuffle.lemma1.forms_inverse",
        f"{_PAPER}, Lemma 1 (notes C1)",
        "For each fixed lam > 1, Lemma 1's eps-form and delta-form are inverses of each other",
        fn=check_lemma1_inverse,
        inputs={},
    ),
]

#: notes §3.2 reference values (mpmath 50 digits): quantity, (n, eps0, lam), printed
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
            f"{_PAPER}, {'Theorem 1, eq. (6)' if _q == 'thm1' else 'Theorem 3, eq. (11)'}; notes §3.2 (mp50)",
            f"{_q} at n = {_n}, eps0 = {_e}, lam = {_l} rounds to {_v}",
            quantity=QUANTITIES[f"shuffle.rdp.{_q}"],
            inputs={"n": _n, "eps0": _e, "lam": _l},
            comparison=Rounds(_v),
        )
    )
CLAIMS.append(
    FunctionClaim(
        "shuffle.pair.pinned_n1000_eps3_lam100",
        "notes shuffle_rdp C23, E1",
        "The exact pair RDP (max of both orders: the reverse one) at n = 1000, eps0 = 3, lam = 100 rounds to "
        "2.50921867097",
        fn=check_rounds,
        inputs={"name": "shuffle.rdp.pair:max", "at": (1000, "3", "100"), "printed": "2.50921867097"},
    )
)
