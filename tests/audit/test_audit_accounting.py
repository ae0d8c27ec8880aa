"""``dpcert audit``'s ledger rows: dp-accounting's PLD and RDP accountants on one event of each kind, as
``accounting.eps`` of event-file JSON text, under both neighbouring relations.

Independent sources, one per event where it is cheap: closed forms (the Laplace and discrete Laplace mechanisms'
two-valued or clipped losses, randomized response's three outputs, Balle–Wang's Gaussian formula), mpmath
quadrature and root finding for the mixtures (the mixture of Gaussians, one Poisson-sampled Gaussian or Laplace
step), the zCDP-to-DP conversion minimised over a continuous order in mpmath for the RDP-only events, and
dp-accounting's own optimistic/pessimistic PLD bracket for the heterogeneous composition. Each test also checks
that no row accuses dp-accounting where the independent value does not: a PLD pessimistic estimate is inside or
above, and a ledger certified by RDP or a non-tight pair is never ``unsafe``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.audit.cases import ACCOUNTING_CASES, CASES, LEDGERS, Case
from dpcert.audit.ledgers import UPPER_ONLY_NOTE, lower_end_proved
from dpcert.audit.peers import Call, Peer
from dpcert.audit.run import run_audit

pytestmark = pytest.mark.peers

DELTA = "1e-5"
KINDS = (
    "Gaussian",
    "Laplace",
    "DiscreteLaplace",
    "RandomizedResponse",
    "MixtureOfGaussians",
    "ZCDp",
    "PoissonSampled(Gaussian)",
    "PoissonSampled(Laplace)",
    "SampledWithoutReplacement",
    "SingleEpochTreeAggregation",
    "RepeatAndSelect",
)


# ------------------------------------------------------------------------------------------ independent values


def _bisect(f, lo, hi, steps=70):
    """The root of an increasing f on [lo, hi] (f(lo) < 0 < f(hi))."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def _eps_of(delta_of, delta, hi=40):
    """ε(δ) of a nonincreasing δ(ε) by bisection."""
    target = mp.mpf(delta)
    return _bisect(lambda e: target - delta_of(e), mp.mpf(0), mp.mpf(hi))


def _gaussian_eps(mu, delta):
    with mp.workdps(40):
        return _eps_of(lambda e: mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2), delta)


def _mixture_eps(sigma, shifts, probs, delta):
    """ε(δ) of the add/remove pairs of Σ p_i N(c_i, σ²) against N(0, σ²) (c_i >= 0): remove (mixture, N(0)) and
    add (N(0), mixture), each δ(ε) = A(L >= t) − e^ε B(L >= t) at the threshold where the likelihood ratio
    crosses e^{±ε} (it is increasing in x)."""
    with mp.workdps(30):
        s = mp.mpf(sigma)
        cs, ps = [mp.mpf(c) for c in shifts], [mp.mpf(p) for p in probs]

        def ratio(x):  # mixture density over N(0, σ²)'s
            return mp.fsum(p * mp.exp((2 * c * x - c * c) / (2 * s * s)) for c, p in zip(cs, ps, strict=True))

        def upper_tail_mix(x):
            return mp.fsum(p * mp.ncdf((c - x) / s) for c, p in zip(cs, ps, strict=True))

        def delta_remove(e):
            x = _bisect(lambda y: ratio(y) - mp.exp(e), mp.mpf(-200), mp.mpf(200), 90)
            return upper_tail_mix(x) - mp.exp(e) * mp.ncdf(-x / s)

        def delta_add(e):  # (N(0), mixture): the ratio N(0)/mixture >= e^ε iff x <= x' with ratio(x') = e^-ε
            x = _bisect(lambda y: ratio(y) - mp.exp(-e), mp.mpf(-200), mp.mpf(200), 90)
            return mp.ncdf(x / s) - mp.exp(e) * (1 - upper_tail_mix(x))

        return _eps_of(lambda e: max(delta_remove(e), delta_add(e)), delta)


def _poisson_laplace_eps(q, b, delta):
    """ε(δ) of one Poisson-sampled Laplace step, add/remove: remove ((1−q)Lap(0) + q·Lap(1), Lap(0)) and add
    (Lap(0), (1−q)Lap(0) + q·Lap(1)), δ(ε) = ∫ (A − e^ε B)_+ by quadrature split where the integrand has kinks."""
    with mp.workdps(30):
        q, b = mp.mpf(q), mp.mpf(b)

        def lap(x, m):
            return mp.exp(-abs(x - m) / b) / (2 * b)

        def mix(x):
            return (1 - q) * lap(x, 0) + q * lap(x, 1)

        def delta_for(a, bb, e):
            f = lambda x: a(x) - mp.exp(e) * bb(x)  # noqa: E731
            pts = [mp.mpf(0), mp.mpf(1)]
            if f(mp.mpf(0)) * f(mp.mpf(1)) < 0:  # the log-ratio is linear on [0, 1]: one crossing at most
                lo_is_neg = f(mp.mpf(0)) < 0
                pts.append(_bisect(lambda x: f(x) if lo_is_neg else -f(x), mp.mpf(0), mp.mpf(1), 120))
            pts = sorted(pts)
            return mp.quad(lambda x: max(f(x), 0), [-mp.inf, *pts, mp.inf])

        def delta_of(e):
            return max(delta_for(mix, lambda x: lap(x, 0), e), delta_for(lambda x: lap(x, 0), mix, e))

        return _eps_of(delta_of, delta, hi=2)


def _zcdp_eps(rho, delta):
    """The least ε of Canonne–Kamath–Steinke's conversion ρα + log(1 − 1/α) − (log δ + log α)/(α − 1) over every
    real α > 1 (a ternary search: the expression is unimodal here), a lower bound of any order set's least."""
    with mp.workdps(30):
        rho, d = mp.mpf(rho), mp.mpf(delta)

        def f(a):
            return rho * a + mp.log(1 - 1 / a) - (mp.log(d) + mp.log(a)) / (a - 1)

        lo, hi = mp.mpf("1.0001"), mp.mpf(10**4)
        for _ in range(300):
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            lo, hi = (lo, m2) if f(m1) < f(m2) else (m1, hi)
        return f((lo + hi) / 2)


# ------------------------------------------------------------------------------------------------- the audit


def test_every_event_kind_has_a_case():
    for kind in KINDS:
        assert kind in LEDGERS, kind
    composed = [k for k in LEDGERS if k.startswith("Composed(")]
    assert composed and len(json.loads(LEDGERS[composed[0]][0])["events"]) >= 3
    assert all(c in CASES for c in ACCOUNTING_CASES)
    for case in ACCOUNTING_CASES:
        json.loads(case.inputs["events"])  # JSON text, not a path


def test_lower_end_proved_lists_the_tight_ledgers():
    def ok(kind, rel):
        return lower_end_proved("accounting.eps", {"events": (LEDGERS[kind][0],), "neighboring": rel})

    assert ok("Gaussian", "replace_one") and ok("MixtureOfGaussians", "add_remove")
    assert ok("PoissonSampled(Laplace)", "add_remove")
    assert ok("PoissonSampled(Gaussian)", "replace_one")  # the mirror pair, attained
    assert not ok("PoissonSampled(Laplace)", "replace_one")  # a proved pair that amplifies δ only
    assert not ok("SampledWithoutReplacement", "replace_one")
    assert not ok("ZCDp", "add_remove") and not ok("RepeatAndSelect", "replace_one")
    assert ok("Composed(PoissonSampled(Gaussian), Gaussian, Laplace)", "add_remove")
    assert ok("Composed(PoissonSampled(Gaussian), Gaussian, Laplace)", "replace_one")
    assert lower_end_proved("gaussian.eps", {})  # every other quantity's enclosure is the mechanism's


def test_an_upper_end_only_row_is_never_unsafe():
    """A peer answering far below dpcert's (non-tight) pair's lower end: inside [0, hi], with the note; the same
    answer on a tight ledger is unsafe. Needs no peer library."""
    text, _ = LEDGERS["PoissonSampled(Gaussian)"]
    loose, _ = LEDGERS["SampledWithoutReplacement"]
    loose_pair = Case("accounting.eps", {"events": loose, "delta": DELTA, "neighboring": "replace_one"})
    tight_pair = Case("accounting.eps", {"events": text, "delta": DELTA, "neighboring": "add_remove"})

    def calls(case):
        return [Call("half_of_nothing()", "upper", lambda: 0.5)]

    report = run_audit(cases=[loose_pair, tight_pair], adapters=[Peer("fake", "dpcert", "math", calls)])
    by = {r.inputs["neighboring"]: r for r in report.rows}
    assert by["replace_one"].verdict == "inside" and by["replace_one"].enclosure.lo == 0
    assert UPPER_ONLY_NOTE in by["replace_one"].note
    assert by["add_remove"].verdict == "unsafe" and by["add_remove"].enclosure.lo > Fraction(19, 10)


def test_a_number_that_is_no_double_is_enclosed_at_the_double_given():
    pytest.importorskip("dp_accounting")
    from dpcert.audit.peers.dp_accounting_events import to_dp_accounting

    event, exact, changed = to_dp_accounting('{"type":"GaussianDpEvent","noise_multiplier":"0.1"}')
    assert changed and event.noise_multiplier == 0.1
    assert Fraction(json.loads(exact)["noise_multiplier"]) == Fraction(0.1) != Fraction(1, 10)
    event, exact, changed = to_dp_accounting(LEDGERS["SampledWithoutReplacement"][0])
    assert not changed and event.sample_size == 16 and isinstance(event.sample_size, int)


#: dp-accounting's mixture-of-Gaussians PLD alone takes 5-10 s: its rows are audited in their own slow test.
_MIXTURE = [c for c in ACCOUNTING_CASES if c.pattern == "event: MixtureOfGaussians"]


@pytest.fixture(scope="module")
def report():
    pytest.importorskip("dp_accounting")
    return run_audit(["dp-accounting"], [c for c in ACCOUNTING_CASES if c not in _MIXTURE])


def _row(report, kind, rel, function_start):
    rows = [
        r
        for r in report.rows
        if r.quantity == "accounting.eps"
        and r.inputs.get("events") == LEDGERS[kind][0]
        and r.inputs.get("neighboring") == rel
        and r.function.startswith(function_start)
    ]
    assert len(rows) == 1, [(r.function, r.inputs.get("neighboring")) for r in rows]
    return rows[0]


def _holds(row, truth, rel=1e-12):
    """dpcert's enclosure holds the independent value (to the float's own digits)."""
    t = Fraction(str(mp.nstr(truth, 25)))
    slack = abs(t) * Fraction(rel)
    return row.enclosure.lo - slack <= t <= row.enclosure.hi + slack


def _tight_pld_rows_fair(report, kind, rel, truth):
    """The pessimistic PLD row is inside or loose, never unsafe, and the independent value agrees that its answer
    is at least the truth (less a grid's worth); the bracket row holds it."""
    pld = _row(report, kind, rel, "PLDAccountant(")
    assert _holds(pld, truth), (pld.enclosure.short(), truth)
    assert pld.verdict in ("inside", "loose"), pld
    assert pld.value >= float(truth) * (1 - 1e-6)
    return pld


def test_gaussian_rows(report):
    ar, r1 = _gaussian_eps(mp.mpf(1) / 2, DELTA), _gaussian_eps(mp.mpf(1), DELTA)
    _tight_pld_rows_fair(report, "Gaussian", "add_remove", ar)
    _tight_pld_rows_fair(report, "Gaussian", "replace_one", r1)
    assert _row(report, "Gaussian", "add_remove", "RdpAccountant(").verdict == "loose"
    rdp = _row(report, "Gaussian", "replace_one", "RdpAccountant(")
    # its RDP accountant answers the add/remove Gaussian under REPLACE_ONE: below the closed form, proved
    assert rdp.verdict == "unsafe" and rdp.value < float(r1) * 0.5 and _holds(rdp, r1)


def test_laplace_rows(report):
    delta = mp.mpf(DELTA)
    with mp.workdps(30):
        ar, r1 = mp.mpf("0.5") + 2 * mp.log1p(-delta), 1 + 2 * mp.log1p(-delta)  # δ(ε) = 1 − e^{(ε − ε0)/2}
    _tight_pld_rows_fair(report, "Laplace", "add_remove", ar)
    assert _row(report, "Laplace", "add_remove", "RdpAccountant(").verdict == "loose"
    assert _row(report, "Laplace", "replace_one", "PLDAccountant(").verdict == "skipped"
    rdp = _row(report, "Laplace", "replace_one", "RdpAccountant(")
    assert _holds(rdp, r1) and rdp.verdict == "unsafe" and rdp.value < float(r1) * 0.51


def test_discrete_laplace_and_randomized_response_rows(report):
    delta = mp.mpf(DELTA)
    with mp.workdps(30):
        a = mp.mpf("0.5")  # the loss is ±a: δ(ε) = (1 − e^{ε−a})/(1 + e^{−a})
        dlap = a + mp.log1p(-delta * (1 + mp.exp(-a)))
        rr = mp.log(5 - 8 * delta)  # outputs (5/8, 1/8, 1/4) against (1/8, 5/8, 1/4): δ(ε) = 5/8 − e^ε/8
    _tight_pld_rows_fair(report, "DiscreteLaplace", "add_remove", dlap)
    assert "not supported" in _row(report, "DiscreteLaplace", "add_remove", "RdpAccountant(").note
    _tight_pld_rows_fair(report, "RandomizedResponse", "replace_one", rr)
    assert _row(report, "RandomizedResponse", "replace_one", "RdpAccountant(").verdict in ("inside", "loose")


@pytest.mark.slow
def test_mixture_rows():
    pytest.importorskip("dp_accounting")
    report = run_audit(["dp-accounting"], _MIXTURE)
    mog = _mixture_eps(4, ["1", "0.5"], ["0.5", "0.5"], DELTA)
    _tight_pld_rows_fair(report, "MixtureOfGaussians", "add_remove", mog)
    assert _row(report, "MixtureOfGaussians", "add_remove", "PLD(").verdict == "skipped"  # too slow, said so
    assert "not supported" in _row(report, "MixtureOfGaussians", "add_remove", "RdpAccountant(").note


def test_poisson_rows(report):
    psg = _mixture_eps(1, ["1", "0"], ["0.125", "0.875"], DELTA)  # one sampled Gaussian step is that mixture
    _tight_pld_rows_fair(report, "PoissonSampled(Gaussian)", "add_remove", psg)
    assert _row(report, "PoissonSampled(Gaussian)", "add_remove", "RdpAccountant(").verdict == "loose"
    psl = _poisson_laplace_eps("0.125", 1, DELTA)
    _tight_pld_rows_fair(report, "PoissonSampled(Laplace)", "add_remove", psl)


def _mirror_eps(q, delta):
    """ε(δ) of the mirror pair ((1 − q)N(0, 1) + qN(1, 1), (1 − q)N(0, 1) + qN(−1, 1)) (one step, σ = 1): the
    likelihood ratio is increasing in x, so δ(ε) = P(X > x*) − e^ε Q(X > x*) where it crosses e^ε; the pair is its
    own mirror image, so one direction."""
    with mp.workdps(30):
        q = mp.mpf(q)

        def log_ratio(t):
            return mp.log((1 - q) + q * mp.exp(t - 0.5)) - mp.log((1 - q) + q * mp.exp(-t - 0.5))

        def surv(x, m):
            return (1 - q) * mp.ncdf(-x) + q * mp.ncdf(m - x)

        def delta_of(e):
            x = _bisect(lambda t: log_ratio(t) - e, mp.mpf(-60), mp.mpf(60))
            return surv(x, 1) - mp.exp(e) * surv(x, -1)

        return _eps_of(delta_of, delta)


def test_replace_one_poisson_gaussian_rows_are_two_sided(report):
    """The mirror pair is attained: the row is placed against the whole enclosure (no upper-end-only note), which
    holds the independent mpmath value, and dp-accounting's PLD (the same pair) is inside or loose."""
    row = _tight_pld_rows_fair(report, "PoissonSampled(Gaussian)", "replace_one", _mirror_eps("0.125", DELTA))
    assert row.enclosure.lo > 0 and UPPER_ONLY_NOTE not in row.note


def test_upper_end_only_rows_accuse_nobody(report):
    """Replace-one sampling (a proved pair that is not tight) and the RDP events: placed against [0, hi], never
    unsafe, though dp-accounting's answer lies below the pair's own lower end."""
    for kind, rel, fn in (
        ("SampledWithoutReplacement", "replace_one", "RdpAccountant("),
        ("ZCDp", "add_remove", "RdpAccountant("),
        ("ZCDp", "replace_one", "RdpAccountant("),
        ("SingleEpochTreeAggregation", "add_remove", "RdpAccountant(REPLACE_SPECIAL)"),
        ("RepeatAndSelect", "add_remove", "RdpAccountant("),
        ("RepeatAndSelect", "replace_one", "RdpAccountant("),
    ):
        row = _row(report, kind, rel, fn)
        assert row.enclosure.lo == 0 and UPPER_ONLY_NOTE in row.note, (kind, rel)
        assert row.verdict in ("inside", "loose"), (kind, rel, row.verdict)
        assert (row.verdict == "loose") == (Fraction(row.value) > row.enclosure.hi)


def test_rdp_only_upper_ends_against_the_conversion(report):
    """zCDP ρ = 1/8 and the tree (σ = 8, 16 steps: depth 5, ρ = 5/128): dpcert's upper end is the conversion at
    its best order, so at least the continuous minimum and within 0.1 % of it."""
    for kind, rel, rho in (
        ("ZCDp", "add_remove", Fraction(1, 8)),
        ("SingleEpochTreeAggregation", "add_remove", Fraction(5, 128)),
    ):
        row = _row(report, kind, rel, "RdpAccountant(")
        best = _zcdp_eps(mp.mpf(rho.numerator) / rho.denominator, DELTA)
        hi = float(row.enclosure.hi)
        assert float(best) * (1 - 1e-12) <= hi <= float(best) * 1.001, (kind, hi, best)


def test_the_composition_rows(report):
    kind = "Composed(PoissonSampled(Gaussian), Gaussian, Laplace)"
    pld = _row(report, kind, "add_remove", "PLDAccountant(")
    bracket = _row(report, kind, "add_remove", "PLD(")
    assert pld.verdict in ("inside", "loose") and bracket.verdict == "inside"
    lower, _, upper = bracket.bracket
    # dp-accounting's own optimistic/pessimistic PLDs at its fine grid overlap dpcert's certified enclosure
    assert lower <= float(pld.enclosure.hi) and upper >= float(pld.enclosure.lo)
    assert (upper - lower) / upper < 5e-3 and float(pld.enclosure.rel_width()) < 1e-2
    assert _row(report, kind, "add_remove", "RdpAccountant(").verdict == "loose"
    for fn in ("PLDAccountant(", "RdpAccountant("):
        assert _row(report, kind, "replace_one", fn).verdict == "skipped"


def test_no_ledger_row_accuses_beyond_the_two_known_replace_one_findings(report):
    unsafe = sorted(
        (json.loads(r.inputs["events"])["type"], r.inputs["neighboring"], r.function.split("(")[0])
        for r in report.rows
        if r.quantity == "accounting.eps" and r.verdict in ("unsafe", "wrong")
    )
    assert unsafe == [
        ("GaussianDpEvent", "replace_one", "RdpAccountant"),
        ("LaplaceDpEvent", "replace_one", "RdpAccountant"),
    ]
    assert not [r for r in report.rows if r.verdict == "error"]
