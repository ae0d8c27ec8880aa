"""Figure claims (C18, C20, C21): the numbers in their evidence against independent computations and the notes."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dpcert.arith.exact import parse_rational
from dpcert.core.claim import Verdict
from dpcert.shuffle import conversion, figure_claims, fmt20


def test_thm1_route_of_c18_matches_the_notes_mp30_value():
    # notes §3.4: the mp30 check of the Theorem 1 route at T = 10^5, eps0 = 0.5, n = 10^6 is 1.36841991876479976607
    lam, enc = figure_claims._thm1_route(10**6, "0.5", 10**5, "1e-6")
    assert lam == 17
    assert abs(enc.mid - Fraction("1.36841991876479976607")) < Fraction(1, 10**15)


def test_figure_quantities_float_inside_ball():
    for name, inputs in [
        ("shuffle.fmt20.eps", {"n": 10**4, "eps0": "0.5", "delta": "1e-6"}),
        ("shuffle.fmt20_kov.eps", {"n": 10**5, "eps0": "1", "T": 10, "delta": "1e-6"}),
    ]:
        q = figure_claims.FIGURE_QUANTITIES[name]
        parsed = q.parse(inputs)
        enc = q.enclose(**inputs)
        flt = q.float(**parsed)
        assert abs(flt - float(enc.mid)) <= 1e-9 * abs(flt)


def test_check_saving_reports_both_variants():
    verdict, ev = figure_claims.check_saving(256, 10**5, "0.5", 1000, "1e-6", "8")
    assert verdict is Verdict.UNDECIDED
    row = ev.extra["rows"][0]
    # the Thm 1 route is the conversion module's certified value; the clone route the float split search
    lam, val = conversion.dp_eps_of_bound("thm1", 10**5, parse_rational("0.5"), 1000, parse_rational("1e-6"))
    assert row["thm1_lambda"] == str(lam)
    assert ev.extra["ratio_clone_float"] == pytest.approx(
        fmt20.kov_split(10**5, Fraction(1, 2), 1000, Fraction(1, 10**6), "clone")[0] / float(val.mid()), rel=1e-12
    )
    # the closed form is looser than the exact clone pair, so its ratio is the larger one
    assert ev.extra["ratio_closed"] > ev.extra["ratio_clone_float"]


def test_check_rdp_better_single_shot_numbers():
    verdict, ev = figure_claims.check_rdp_better(256, 10**4, ("0.1",), "1e-6")
    assert verdict is Verdict.UNDECIDED
    row = ev.extra["rows"][0]
    # notes §3.4 Fig. 3: Thm 1 route 0.006158 with lambda capped at 2000; the wider search here finds a smaller one
    thm1_hi = float(row["thm1_route"].strip("[]").split(",")[1])
    assert 0.0055 < thm1_hi < 0.006158
    # the clone route (delta split with KOV15 at T = 1) is a little above the single-shot clone value 0.002871
    clone = float(row["fmt20_clone_kov15_float"])
    assert 0.002871 < clone < 0.00300
    assert "beats FMT20's closed form (certified): True" in ev.detail
    assert "beats FMT20's exact clone (float): False" in ev.detail


def test_check_fmt20_better_crossover_at_small_n():
    verdict, ev = figure_claims.check_fmt20_better(256, 10**5, "2", (1,), "1e-6", (1000,))
    assert verdict is Verdict.UNDECIDED
    rows = {r["point"]: r for r in ev.extra["rows"]}
    # T = 1: the clone route is the single-shot clone epsilon up to the split; T rounds cost more than one
    one = float(rows["T=1"]["fmt20_clone_kov15_float"])
    assert fmt20.clone_eps_float(10**5, 2.0, 1e-6) <= one
    assert float(rows["T=1000"]["fmt20_clone_kov15_float"]) > one


def test_claim_tables_are_consistent():
    ids = [c.id for c in figure_claims.FIGURE_CLAIMS]
    assert len(ids) == len(set(ids))
    assert figure_claims.CLAIMS is figure_claims.FIGURE_CLAIMS
    assert {q.name for q in figure_claims.QUANTITIES} == set(figure_claims.FIGURE_QUANTITIES)
