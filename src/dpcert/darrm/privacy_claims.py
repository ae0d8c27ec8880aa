"""Claim checks of the DaRRM privacy pillar [JZJ24] as marked module-level functions.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

Each check takes exact inputs (ints and decimal strings) and returns ``(Verdict, Evidence)``; the claims that use
them are built in :mod:`dpcert.darrm.privacy_claim_list` and selected by ``verify/darrm_privacy.toml``.

References:
    S. Jiang, Q. Zhang, G. Joshi, DaRRM (TMLR): Lemmas 3.1, 3.4, 5.1, A.1, B.9, B.10, Theorem 4.1.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpcert.arith.ball import MAX_PREC
from dpcert.arith.exact import parse_rational
from dpcert.core.claim import Evidence, Verdict, check_function
from dpcert.errors import InvalidParameter

__all__ = ["check_private", "privacy_evidence", "parse_delta", "set_progress"]

#: Progress callback (chunks done, chunks total) for long certifications; set by the CLI, ``None`` otherwise.
_PROGRESS: Any = None


def set_progress(callback: Any) -> None:
    """Report progress of :func:`check_private` through ``callback(done, total)`` (``None``: silent)."""
    global _PROGRESS
    _PROGRESS = callback


_METHOD = (
    "float64 meet-in-the-middle kernel with a proved rounding-error bound; the undecided rows by exact rational "
    "functions of x = e^eps (sign_at_exp)"
)


def parse_delta(delta: str, Delta: Fraction, m: Fraction) -> Fraction:
    """δ as given, or ``"general"``: 1 − (1 − Δ)^m (m-fold general composition, Figure 2)."""
    if delta == "general":
        if m.denominator != 1:
            raise ValueError("delta=general needs an integer m")
        return 1 - (1 - Delta) ** int(m)
    return parse_rational(delta, "delta").value


def privacy_evidence(res: Any) -> tuple[Verdict, Evidence]:
    """(Verdict, Evidence) of a :class:`~dpcert.darrm.privacy.PrivacyResult`.

    The evidence's enclosure is the maximum margin over 𝒫 (``extra["max_margin"]`` too); ``worst_case`` and
    ``extra["worst_multiset"]`` give a multiset attaining it (up to the enclosure's width) with its own margin.
    """
    pr = res.problem
    lo, hi = res.margin.decimal(12)
    what = f"max margin over {res.rows} multisets in [{lo}, {hi}]"
    if res.verdict == Verdict.REFUTED:
        wl, wh = res.worst_margin.decimal(15)
        detail = (
            f"REFUTED: the multiset {', '.join(res.worst_corners())} has certified margin in [{wl}, {wh}] > 0 "
            f"(DaRRM_{pr.gamma.name} is not ({pr.m}*eps, {pr.delta})-DP at eps = {pr.eps}); {what}"
        )
    elif res.verdict == Verdict.CERTIFIED:
        tight = " (tight: exact equality)" if res.max_is_exact_zero else ""
        detail = f"every multiset has margin <= 0{tight}; {what}"
    else:
        detail = f"{len(res.undecided)} multisets undecided; {what}"
    if res.failed:
        lost = sum(f.get("range", {}).get("multisets", 0) for f in res.failed)
        detail += f"; {len(res.failed)} chunk(s) of {lost} multisets not run (their workers died): undecided"
    worst = {"counts": list(res.worst), "corners": res.worst_corners()}
    extra_failed = {"failed_chunks": res.failed} if res.failed else {}
    return res.verdict, Evidence(
        enclosure=res.margin,
        method=_METHOD,
        precision=0,
        detail=detail,
        worst_case=worst,
        counts=dict(res.counts),
        extra={
            "max_margin": res.margin.to_json(),
            "worst_multiset": {**worst, "margin": res.worst_margin.to_json()},
            "float_error_bound": res.bound,
            "rows": res.rows,
            **extra_failed,
        },
    )


def validate_certify_inputs(gamma: Any, K: Any, m: Any, Delta: Any, delta: Any, eps: Any = "1") -> None:
    """The inputs of ``dpcert darrm certify`` (and of its certificates), validated as the command line does.

    Raises:
        InvalidParameter: for anything the privacy question (Problem 1.1) does not allow.
    """
    try:
        _problem(gamma, K, m, eps, Delta, delta, MAX_PREC)
    except InvalidParameter:
        raise
    except (ValueError, TypeError, AttributeError) as exc:
        raise InvalidParameter("inputs", {"gamma": gamma, "K": K, "m": m}, f"valid DaRRM inputs ({exc})") from None


@check_function(validate=validate_certify_inputs)
def check_private(
    max_prec: int,
    gamma: str,
    K: int,
    m: str,
    eps: str,
    Delta: str,
    delta: str,
    workers: int = 1,
    run: Any = None,
) -> tuple[Verdict, Evidence]:
    """DaRRM_γ is (mε, δ)-DP for every K (ε, Δ)-DP mechanisms: max over 𝒫 of the margin <= 0.

    ``delta = "general"`` means 1 − (1 − Δ)^m. ``workers``, ``run`` (:class:`~dpcert.core.parallel.RunOptions`):
    how to run, never what is claimed.
    """
    from dpcert.darrm.gamma import named_gamma
    from dpcert.darrm.privacy import certify, problem

    mv, ev, Dv = (parse_rational(v, n).value for v, n in ((m, "m"), (eps, "eps"), (Delta, "Delta")))
    dv = parse_delta(delta, Dv, mv)
    pr = problem(named_gamma(gamma, K, mv, ev, Dv, dv), K, mv, ev, Dv, dv, max_prec=max_prec)
    return privacy_evidence(certify(pr, workers=workers, progress=_PROGRESS, run=run))


def _problem(gamma: str, K: int, m: str, eps: str, Delta: str, delta: str, max_prec: int) -> Any:
    from dpcert.darrm.gamma import named_gamma
    from dpcert.darrm.privacy import problem

    mv, ev, Dv = (parse_rational(v, n).value for v, n in ((m, "m"), (eps, "eps"), (Delta, "Delta")))
    dv = parse_delta(delta, Dv, mv)
    return problem(named_gamma(gamma, K, mv, ev, Dv, dv), K, mv, ev, Dv, dv, max_prec=max_prec)


@check_function(validate=validate_certify_inputs)
def check_private_all_eps(
    max_prec: int, gamma: str, K: int, m: str, Delta: str, delta: str, run: Any = None
) -> tuple[Verdict, Evidence]:
    """DaRRM_γ is (mε, δ)-DP for every ε > 0 (polynomial inequalities in x = e^ε on (1, ∞), exact); ``run``: how
    (:class:`~dpcert.core.parallel.RunOptions`)."""
    from dpcert.darrm.all_eps import certify_all_eps

    pr = _problem(gamma, K, m, "1", Delta, delta, max_prec)
    r = certify_all_eps(pr, run=run)
    if r.verdict == Verdict.CERTIFIED:
        detail = f"every one of {r.rows} multisets has margin <= 0 for every eps > 0"
        if r.tight:
            detail += f" (tight for every eps, e.g. at counts {list(r.tight)})"
    else:
        detail = f"counterexample {r.counterexample}"
    return r.verdict, Evidence(
        method="exact polynomials in x = e^eps: Descartes' rule on (1, inf), else factorisation and real-root "
        "isolation (flint)",
        detail=detail,
        worst_case=r.counterexample,
        counts=dict(r.counts),
        extra={"rows": r.rows},
    )


def _iid(pr: Any, run: Any = None) -> tuple[Verdict, Evidence, Any]:
    """(Verdict, Evidence, IidResult) of the i.i.d. mode, every number labelled for what it is.

    The evidence's enclosure always encloses the largest i.i.d. margin over F: as ``extra["max_margin"]`` when it
    is the branch-and-bound's enclosure of the maximum, as ``extra["max_margin_bracket"]`` when the multiset
    fallback ran (``extra["margin_upper_bound"]``: the all-multiset maximum). A counterexample's margin is
    ``extra["margin_at_counterexample"]``, with the point (or the corner) it is evaluated at.
    """
    from dpcert.arith.ball import Enclosure
    from dpcert.darrm.iid import BNB_PREC, certify_iid

    r = certify_iid(pr, run=run)
    counts: dict[str, int] = {}
    extra: dict[str, Any] = {}
    if r.edges:
        for e in r.edges:
            counts[f"edge_{e.edge}_boxes"] = e.boxes
            rec = {
                "verdict": e.verdict.value,
                "max_margin": e.enclosure.to_json(),
                "argmax_t": list(Enclosure(e.argmax[0], e.argmax[1]).decimal(12)),
                "note": e.tangent,
            }
            if e.point is not None and e.point_margin is not None:
                rec["margin_at_point"] = {"p": str(e.point[0]), "p_prime": str(e.point[1]), **e.point_margin.to_json()}
            extra[f"edge_{e.edge}"] = rec
    if r.finite is not None:
        counts.update(r.finite.counts)
    parts = [r.method]
    if r.margin is not None:
        lo, hi = r.margin.decimal(12)
        if r.margin_is_max:
            extra["max_margin"] = r.margin.to_json()
            parts.append(f"max margin over F in [{lo}, {hi}]")
        else:
            extra["max_margin_bracket"] = r.margin.to_json()
            parts.append(f"max margin over F in the bracket [{lo}, {hi}]")
    if r.finite is not None and r.finite.margin.hi is not None:
        ub = r.finite.margin.hi
        extra["margin_upper_bound"] = {
            "hi": Enclosure(ub, ub).to_json()["hi"],
            "is": "the maximum over all corner multisets (not only identical mechanisms): an upper bound",
        }
        parts.append(f"max margin over F <= {Enclosure(ub, ub).decimal(12)[1]} (the all-multiset maximum)")
    worst: Any = None
    if r.point_margin is not None and r.verdict == Verdict.REFUTED:
        pl, ph = r.point_margin.decimal(15)
        if r.point is not None:
            at = {"p": str(r.point[0]), "p_prime": str(r.point[1])}
            worst = {"point": [str(r.point[0]), str(r.point[1])]}
            parts.append(f"margin at the counterexample (p, p') = ({r.point[0]}, {r.point[1]}) in [{pl}, {ph}] > 0")
        else:
            at = {"corner": r.corner}
            worst = {"corner": r.corner}
            parts.append(f"margin at the counterexample ({r.corner}) in [{pl}, {ph}] > 0")
        extra["margin_at_counterexample"] = {**at, "margin": r.point_margin.to_json()}
    return (
        r.verdict,
        Evidence(
            enclosure=r.margin,
            method="boundary reduction (phi non-decreasing) + 1-D interval branch-and-bound (arb), exact Taylor "
            "coefficients at tight ends; else the multiset certificate (an upper bound) and i.i.d. configurations",
            precision=BNB_PREC if r.edges else 0,
            detail="; ".join(parts),
            worst_case=worst,
            counts=counts,
            extra=extra,
        ),
        r,
    )


@check_function(validate=validate_certify_inputs)
def check_private_iid(
    max_prec: int, gamma: str, K: int, m: str, eps: str, Delta: str, delta: str, run: Any = None
) -> tuple[Verdict, Evidence]:
    """DaRRM_γ is (mε, δ)-DP for K identical (ε, Δ)-DP mechanisms (Theorem 4.1's setting); ``run``: how the
    multiset fallback runs (:class:`~dpcert.core.parallel.RunOptions`)."""
    v, ev, _ = _iid(_problem(gamma, K, m, eps, Delta, delta, max_prec), run)
    return v, ev


@check_function
def check_not_private_iid(
    max_prec: int, gamma: str, K: int, m: str, eps: str, Delta: str, delta: str
) -> tuple[Verdict, Evidence]:
    """DaRRM_γ is NOT (mε, δ)-DP already for identical mechanisms: a certified i.i.d. counterexample exists."""
    v, ev, _ = _iid(_problem(gamma, K, m, eps, Delta, delta, max_prec))
    if v == Verdict.REFUTED:
        return Verdict.CERTIFIED, ev
    if v == Verdict.CERTIFIED:
        return Verdict.REFUTED, ev
    return v, ev


def _subsample_dp(K: int, m: int, l: int) -> Fraction:
    """Pr[majority of m draws without replacement from l ones and K − l zeros is 1], fair coin on ties, by
    drawing one at a time (a Markov chain over (draws, ones drawn)): independent of the closed form."""
    dist = {0: Fraction(1)}
    for d in range(m):
        new: dict[int, Fraction] = {}
        for ones, pr in dist.items():
            left = K - d
            p1 = Fraction(l - ones, left)
            if p1:
                new[ones + 1] = new.get(ones + 1, Fraction(0)) + pr * p1
            if 1 - p1:
                new[ones] = new.get(ones, Fraction(0)) + pr * (1 - p1)
        dist = new
    return sum((pr * (1 if 2 * o > m else Fraction(1, 2) if 2 * o == m else 0) for o, pr in dist.items()), Fraction(0))


@check_function
def check_lemma_3_1(max_prec: int, K: int, ms: tuple[int, ...]) -> tuple[Verdict, Evidence]:
    """Lemma 3.1: γ_Sub(l) = |2 Pr[SubMaj = 1 | L = l] − 1| (fair-coin ties), symmetric, monotone, in [0, 1],
    γ_Sub(2k) = γ_Sub(2k − 1); the subsampling probabilities by sequential drawing."""
    from dpcert.darrm.gamma import gamma_sub

    H = (K - 1) // 2
    for m in ms:
        g = gamma_sub(K, m).table
        for l in range(K + 1):
            if g[l] != abs(2 * _subsample_dp(K, m, l) - 1):
                return Verdict.REFUTED, Evidence(method="exact rationals", detail=f"m = {m}, l = {l} differs")
        ok = all(0 <= v <= 1 and v == g[K - i] for i, v in enumerate(g)) and all(g[i] >= g[i + 1] for i in range(H))
        if not ok or (m % 2 == 0 and g != gamma_sub(K, m - 1).table):
            return Verdict.REFUTED, Evidence(method="exact rationals", detail=f"property fails at m = {m}")
    return Verdict.CERTIFIED, Evidence(
        method="exact rationals",
        detail=f"K = {K}, m in {list(ms)}: gamma_Sub = |2 Pr[SubMaj = 1 | L] - 1| for every l, symmetric, "
        "monotone, in [0,1], even m equal to m - 1",
    )


def _q(v: Fraction) -> Any:
    from flint import fmpq

    return fmpq(v.numerator, v.denominator)


def _bin_poly(n: int, k: int) -> Any:
    """C(n, k) p^k (1 − p)^(n − k) as a polynomial in p."""
    from math import comb

    from flint import fmpq_poly

    p = fmpq_poly([0, 1])
    return comb(n, k) * p**k * (1 - p) ** (n - k)


@check_function
def check_lemma_b9(max_prec: int, Kmax: int) -> tuple[Verdict, Evidence]:
    """Lemma B.9: E[C(X,i) C(K−X, m−i)]/C(K,m) = C(m,i) p^i (1−p)^(m−i), X ~ Bin(K,p), as polynomials in p."""
    from math import comb

    n = 0
    for K in range(1, Kmax + 1):
        for m in range(K + 1):
            for i in range(m + 1):
                lhs = sum(
                    (comb(x, i) * comb(K - x, m - i) * _bin_poly(K, x) for x in range(K + 1)), _bin_poly(0, 0) * 0
                )
                if lhs != comb(K, m) * _bin_poly(m, i):
                    return Verdict.REFUTED, Evidence(method="exact polynomials in p", detail=f"K={K}, m={m}, i={i}")
                n += 1
    return Verdict.CERTIFIED, Evidence(
        method="exact polynomials in p (flint fmpq_poly)", detail=f"{n} identities for K <= {Kmax}, all i <= m <= K"
    )


@check_function
def check_eq_159(max_prec: int, K: int, ms: tuple[int, ...]) -> tuple[Verdict, Evidence]:
    """Eq. 159: E_{X~Bin(K−1,p)}[h(X+1) − h(X)] = ((2m−1)/K) C(2m−2, m−1) (p(1−p))^(m−1), h = h_DSub."""
    from math import comb

    from flint import fmpq_poly

    from dpcert.darrm.gamma import h_sub

    p = fmpq_poly([0, 1])
    for m in ms:
        h = h_sub(K, 2 * m - 1)
        lhs = sum((_q(h[x + 1] - h[x]) * _bin_poly(K - 1, x) for x in range(K)), fmpq_poly())
        rhs = _q(Fraction(2 * m - 1, K) * comb(2 * m - 2, m - 1)) * (p * (1 - p)) ** (m - 1)
        if lhs != rhs:
            return Verdict.REFUTED, Evidence(method="exact polynomials in p", detail=f"m = {m}: {lhs} != {rhs}")
    return Verdict.CERTIFIED, Evidence(
        method="exact polynomials in p", detail=f"K = {K}, m in {list(ms)}: identity holds for every p"
    )


@check_function
def check_dsub_ge_sub(max_prec: int, Kmax: int) -> tuple[Verdict, Evidence]:
    """γ_DSub >= γ_Sub pointwise for every odd K <= Kmax and 1 <= m <= (K−1)/2 (Section B.3, Lemma B.11)."""
    from dpcert.darrm.gamma import gamma_dsub, gamma_sub

    n = 0
    for K in range(3, Kmax + 1, 2):
        for m in range(1, (K - 1) // 2 + 1):
            d, s = gamma_dsub(K, m).table, gamma_sub(K, m).table
            bad = [l for l in range(K + 1) if d[l] < s[l]]
            if bad:
                return Verdict.REFUTED, Evidence(method="exact rationals", detail=f"K={K}, m={m}, l={bad[0]}")
            n += 1
    return Verdict.CERTIFIED, Evidence(method="exact rationals", detail=f"{n} pairs (K, m), K odd <= {Kmax}")


@check_function
def check_lemma_3_4_identity(max_prec: int, K: int, m: int) -> tuple[Verdict, Evidence]:
    """Lemma 3.4 master identity f = 2(P(D) − X P(D')) + X − 1 (X = e^{mε} symbolic) and reflection
    f(1−p, 1−p') = −f(p, p'), with P(D) from running DaRRM_γSub on every outcome of K independent mechanisms."""
    from itertools import product

    from dpcert.arith.exact import X as XV
    from dpcert.darrm.gamma import gamma_sub

    g = gamma_sub(K, m).table
    H = (K - 1) // 2
    ps = [Fraction(i + 1, K + 3) for i in range(K)]
    pps = [Fraction(2 * i + 1, 2 * K + 5) for i in range(K)]

    def law(qs):  # α_l and Pr[DaRRM = 1] by enumerating every outcome
        alpha = [Fraction(0)] * (K + 1)
        out1 = Fraction(0)
        for s in product((0, 1), repeat=K):
            w = Fraction(1)
            for si, q in zip(s, qs, strict=True):
                w *= q if si else 1 - q
            L = sum(s)
            alpha[L] += w
            out1 += w * (g[L] * (1 if L > H else 0) + (1 - g[L]) / 2)
        return alpha, out1

    def f(a, a2):
        return sum(
            ((XV**m * a2[l] - a[l]) * g[l] if l <= H else (a[l] - XV**m * a2[l]) * g[l] for l in range(K + 1)),
            XV * 0,
        )

    a, P = law(ps)
    a2, P2 = law(pps)
    ra, _ = law([1 - q for q in ps])
    ra2, _ = law([1 - q for q in pps])
    ok1 = f(a, a2) == 2 * (P - XV**m * P2) + XV**m - 1
    ok2 = f(ra, ra2) == -f(a, a2)
    v = Verdict.CERTIFIED if ok1 and ok2 else Verdict.REFUTED
    return v, Evidence(
        method="exact rational functions of x", detail=f"K = {K}, m = {m}: identity {ok1}, reflection {ok2}"
    )


@check_function
def check_corners(max_prec: int, Delta: str, eps: str) -> tuple[Verdict, Evidence]:
    """Lemma 5.1: the listed corners are the vertices of F (two constraints tight identically in x, the others
    satisfied at x = e^ε), 4 for Δ = 0 and 8 for Δ > 0 (docs/derivations/darrm.md#feasible-region)."""
    from dpcert.arith.ball import sign_at_exp
    from dpcert.arith.exact import X as XV
    from dpcert.darrm.corners import corners

    D = parse_rational(Delta, "Delta").value
    e = parse_rational(eps, "eps").value
    cs = corners(D)
    for j, ((a0, a1), (b0, b1)) in enumerate(cs):
        p = (a0 + a1 * XV) / (XV + 1)
        q = (b0 + b1 * XV) / (XV + 1)
        slack = [
            XV * q + D - p,
            XV * p + D - q,
            XV * (1 - q) + D - (1 - p),
            XV * (1 - p) + D - (1 - q),
            p,
            1 - p,
            q,
            1 - q,
        ]
        tight = [s.is_zero() for s in slack]
        signs = [sign_at_exp(s, e) for s in slack]
        # a vertex: feasible, and two independent constraints tight (the pairs (p,1-p), (q,1-q) are dependent)
        if min(signs) < 0 or sum(tight) < 2:
            return Verdict.REFUTED, Evidence(method="exact rational functions", detail=f"corner {j} not a vertex")
    want = 4 if D == 0 else 8
    v = Verdict.CERTIFIED if len(cs) == want else Verdict.REFUTED
    return v, Evidence(method="exact rational functions of x", detail=f"{len(cs)} corners, each a vertex of F")


@check_function
def check_pconst_upper(
    max_prec: int, K: int, m: str, tau: str, lam: str, eps: str, Delta: str, delta: str
) -> tuple[Verdict, Evidence]:
    """RR with Lemma A.1's p_const (real m and τ) is (mε, δ)-DP: p_const is enclosed in a ball and the constant
    γ ≡ r with a rational r >= p_const is certified; feasibility is downward closed in a constant γ (its margin is
    c·F − b with b >= 0), so p_const itself is feasible."""
    from flint import arb

    from dpcert.arith.ball import ball, workprec
    from dpcert.arith.exact import fraction_to_decimal
    from dpcert.darrm.gamma import Gamma
    from dpcert.darrm.privacy import certify, problem

    mv, tv, lv, ev, Dv, dv = (
        parse_rational(v, n).value
        for v, n in ((m, "m"), (tau, "tau"), (lam, "lambda"), (eps, "eps"), (Delta, "Delta"), (delta, "delta"))
    )
    if tv < mv:
        raise ValueError("tau >= m is needed for Lemma A.1's maximiser")
    with workprec(128):
        X = (ball(mv) * ball(ev)).exp()
        T = (ball(tv) * ball(ev)).exp()
        pc: arb = (X - 1 + 2 * ball(dv)) / (2 * (T - X + (1 + X) * ball(lv)) / (T + 1) + X - 1)
        from dpcert.arith.ball import Enclosure

        enc = Enclosure.from_ball(pc)
    r = min(Fraction(1), Fraction(fraction_to_decimal(enc.hi, 20, "up")))
    pr = problem(Gamma("const-upper", tuple(r for _ in range(K + 1))), K, mv, ev, Dv, dv, max_prec=max_prec)
    v, evd = privacy_evidence(certify(pr))
    evd.detail = f"p_const in {enc.short(15)} <= r = {r}; gamma = r: " + evd.detail
    return v, evd


@check_function
def check_algorithm3_ties_to_one(max_prec: int, K: int, m: int) -> tuple[Verdict, Evidence]:
    """Algorithm 3 as printed (output I{L̂/m >= 1/2}: ties go to 1) has the output law of DaRRM_γSub (Lemma 3.1).

    REFUTED for even m (docs/derivations/darrm.md#the-noise-functions): with ties to 1, Pr[output = 1 | L = l] is not
    h_Sub(l) (fair coin), and the
    induced γ would not be symmetric; the counterexample is the first l where they differ.
    """
    from dpcert.darrm.gamma import h_sub

    h = h_sub(K, m)
    for l in range(K + 1):
        fair = _subsample_dp(K, m, l)
        tie_mass = _subsample_tie(K, m, l)
        ties_to_one = fair + tie_mass / 2
        if ties_to_one != h[l]:
            return Verdict.REFUTED, Evidence(
                method="exact rationals (sequential drawing)",
                detail=f"K = {K}, m = {m}, l = {l}: ties to 1 give Pr[out = 1 | L = l] = {ties_to_one}, "
                f"Lemma 3.1 needs h_Sub(l) = {h[l]} (fair coin on ties)",
                worst_case={"l": l, "ties_to_one": str(ties_to_one), "h_sub": str(h[l])},
            )
    return Verdict.CERTIFIED, Evidence(method="exact rationals", detail="no tie can occur (m odd)")


def _subsample_tie(K: int, m: int, l: int) -> Fraction:
    """Pr[exactly m/2 ones among m draws without replacement] (0 for odd m)."""
    if m % 2:
        return Fraction(0)
    from math import comb

    return Fraction(comb(l, m // 2) * comb(K - l, m // 2), comb(K, m))


@check_function
def check_lemma_b11(max_prec: int, K: int, ms: tuple[int, ...]) -> tuple[Verdict, Evidence]:
    """Lemma B.11 for γ_DSub >= γ_Sub: E(DaRRM_γDSub) <= E(DaRRM_γSub) for K i.i.d. mechanisms and EVERY p in
    [0, 1], as the polynomial inequality g_Sub(p)² − g_DSub(p)² >= 0 (E = |g|), decided exactly on (0, 1) through
    p = (x − 1)/x, x in (1, ∞) (Descartes / real-root isolation), and at p = 0, 1 by evaluation."""
    from flint import fmpq_poly

    from dpcert.darrm.all_eps import poly_nonpositive_on
    from dpcert.darrm.gamma import gamma_dsub, gamma_sub

    H = (K - 1) // 2

    def g(table: tuple[Fraction, ...]) -> Any:
        return sum(
            (_q((1 - table[l]) / 2) * (_bin_poly(K, l) - _bin_poly(K, K - l)) for l in range(H + 1, K + 1)),
            fmpq_poly(),
        )

    methods: dict[str, int] = {}
    for m in ms:
        d = g(gamma_sub(K, m).table) ** 2 - g(gamma_dsub(K, m).table) ** 2
        deg = max(d.degree(), 0)
        # x^deg · d((x − 1)/x) as a polynomial in x
        x = fmpq_poly([0, 1])
        inx = sum((c * (x - 1) ** i * x ** (deg - i) for i, c in enumerate(d.coeffs())), fmpq_poly())
        ok, w, method = poly_nonpositive_on(-inx)
        ends = d(0) >= 0 and d(1) >= 0
        methods[method] = methods.get(method, 0) + 1
        if not (ok and ends):
            p = None if w is None else (w - 1) / w
            return Verdict.REFUTED, Evidence(
                method="exact polynomials in p", detail=f"m = {m}: E(DSub) > E(Sub) at p = {p}"
            )
    return Verdict.CERTIFIED, Evidence(
        method="exact polynomials in p; sign on (0, 1) by Descartes' rule or real-root isolation",
        detail=f"K = {K}, m in {list(ms)}: E(DSub) <= E(Sub) for every p in [0, 1]",
        counts=methods,
    )
