"""dpcert table check: verdicts of whole tables against independent sources.

Sources: DaRRM's printed Table 2 (the registered claims darrm.table2.* reproduce every printed digit), exact
rational arithmetic for delta_total = 1 - (1 - delta)^k (1 - delta'), and mpmath at 50 digits for KOV Theorem 3.4's
eps_total (the registered quantity evaluates it with Arb balls).
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from dpcert.core.claim import Verdict
from dpcert.engine import registry
from dpcert.tables.check import check_table

EXAMPLES = Path(__file__).resolve().parents[2] / "verify" / "tables" / "examples"

#: DaRRM Table 2 as printed (Jiang-Zhang-Joshi, TMLR, Section 6.2): dataset -> (eps_query, {Q: (eps, delta)})
TABLE2 = {
    "mnist": ("0.2676", {20: ("5.352", "0.006"), 50: ("9.901", "0.015"), 100: ("15.044", "0.030")}),
    "fmnist": ("0.2556", {20: ("5.112", "0.006"), 50: ("9.382", "0.015"), 100: ("14.219", "0.030")}),
}
HEADER = "quantity,k,eps,delta,delta_prime,value,claim\n"


def table2_rows(change: dict[tuple[str, int, str], str] | None = None) -> list[str]:
    """The 12 printed totals of Table 2 as digits rows, with some printed values replaced."""
    change = change or {}
    rows = []
    for ds, (eq, totals) in TABLE2.items():
        for q, (et, dt) in totals.items():
            et, dt = change.get((ds, q, "eps"), et), change.get((ds, q, "delta"), dt)
            rows.append(f"composition.general.eps,{q},{eq},,0.0001,{et},digits\n")
            rows.append(f"composition.general.delta,{q},,0.0003,0.0001,{dt},digits\n")
    return rows


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_the_printed_table_is_certified_row_by_row_as_the_registered_claims_are(tmp_path):
    path = _write(tmp_path, "t2.csv", HEADER + "".join(table2_rows()))
    report = check_table(path, workers=1)
    assert [r.verdict for r in report.rows] == [Verdict.CERTIFIED] * 12
    assert [r.line for r in report.rows] == list(range(2, 14))
    assert report.exit_code == 0
    # the registered claims of the same printed numbers say the same
    for ds, (_, totals) in TABLE2.items():
        for q in totals:
            for what in ("eps", "delta"):
                assert registry.claims()[f"darrm.table2.{ds}.q{q}.{what}"].check().verdict is Verdict.CERTIFIED


def test_one_deliberately_wrong_row_is_refuted_on_that_row_only(tmp_path):
    # MNIST Q = 50 printed as 9.900 instead of 9.901 (the value is 9.9009067...)
    path = _write(tmp_path, "wrong.csv", HEADER + "".join(table2_rows({("mnist", 50, "eps"): "9.900"})))
    report = check_table(path, workers=2)
    verdicts = {r.line: r.verdict for r in report.rows}
    assert verdicts.pop(4) is Verdict.REFUTED  # line 4: header, Q = 20 eps, Q = 20 delta, Q = 50 eps
    assert set(verdicts.values()) == {Verdict.CERTIFIED}
    wrong = next(r for r in report.rows if r.line == 4)
    assert wrong.at_printed_precision == "9.901"
    with mpmath.workdps(50):
        assert (
            abs(
                mpmath.mpf(wrong.enclosure.lo.numerator) / wrong.enclosure.lo.denominator
                - _kov34_eps(50, "0.2676", "0.0001")
            )
            < mpmath.mpf(10) ** -15
        )
    assert report.exit_code == 1  # a decided verdict differs from the expected CERTIFIED
    assert [r.at_printed_precision for r in report.rows if r.line != 4] == [None] * 11


def _kov34_eps(k: int, eps: str, delta_prime: str) -> mpmath.mpf:
    """KOV Thm 3.4 / DaRRM Thm 2.3 eps_total, at 50 digits with mpmath (independent of the Arb evaluation)."""
    with mpmath.workdps(50):
        e, dp = mpmath.mpf(eps), mpmath.mpf(delta_prime)
        head = k * e * (mpmath.e**e - 1) / (mpmath.e**e + 1)
        return min(
            k * e,
            head + e * mpmath.sqrt(2 * k * mpmath.log(mpmath.e + mpmath.sqrt(k * e**2) / dp)),
            head + e * mpmath.sqrt(2 * k * mpmath.log(1 / dp)),
        )


def test_the_shipped_darrm_table2_marks_exactly_the_understated_totals_refuted():
    report = check_table(EXAMPLES / "darrm_table2.csv", workers=2)
    assert report.exit_code == 0 and len(report.rows) == 28
    refuted = [r for r in report.rows if r.verdict is Verdict.REFUTED]
    assert all(r.expected is Verdict.REFUTED for r in refuted)
    # independently: which printed totals, read as upper bounds, are below the true value
    below = set()
    for eq, totals in TABLE2.values():
        for q, (et, dt) in totals.items():
            delta_total = 1 - (1 - Fraction("0.0003")) ** q * (1 - Fraction("0.0001"))
            if delta_total > Fraction(dt):
                below.add(("composition.general.delta", str(q), dt))
            eps_total = _kov34_eps(q, eq, "0.0001")
            if eps_total > mpmath.mpf(et) * (1 + mpmath.mpf(10) ** -30):
                below.add(("composition.general.eps", str(q), et))
    assert len(below) == 3  # delta at Q = 20 (both datasets: the same row), eps at Q = 100 for each dataset
    got = {(r.cells["quantity"], r.cells["k"], r.cells["value"]) for r in refuted}
    assert got == below
    assert len(refuted) == 4 and all(r.cells["claim"] == "upper" for r in refuted)


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("darrm_table4_gnmax.toml", {"CERTIFIED": 4, "REFUTED": 4}),
        ("gaussian_rdp.json", {"CERTIFIED": 7, "REFUTED": 2}),
    ],
)
def test_the_other_shipped_tables_come_out_as_expected(name, counts):
    report = check_table(EXAMPLES / name, workers=1)
    assert report.exit_code == 0
    c = report.counts()
    assert {k: c[k] for k in counts} == counts and c["as_expected"] == len(report.rows)


def test_table4_refuted_rows_agree_with_the_registered_errata():
    report = check_table(EXAMPLES / "darrm_table4_gnmax.toml", workers=1)
    errata = {c.id: c for c in registry.select("darrm.table4.*")}
    for r in report.rows:
        ds = "mnist" if r.cells["eps_target"] == "0.2676" else "fmnist"
        entry = {
            "darrm.gnmax.sigma_min": "sigma_min",
            "darrm.gnmax.lambda_argmin": "lambda",
            "darrm.gnmax.sigma": "sigma_at_printed_lambda",
            "darrm.gnmax.grid_lambda": "lambda_is_lambda_min_plus_3",
        }[r.cells["quantity"]]
        assert r.verdict is errata[f"darrm.table4.{ds}.{entry}"].expected


def test_an_expected_refuted_row_that_is_certified_is_not_as_expected(tmp_path):
    text = HEADER.replace("claim\n", "claim,expected\n") + "composition.simple.eps,3,0.1,,,0.3,upper,REFUTED\n"
    report = check_table(_write(tmp_path, "e.csv", text), workers=1)
    assert report.rows[0].verdict is Verdict.CERTIFIED and not report.rows[0].ok
    assert report.exit_code == 1


def test_an_undecided_row_exits_2_unless_expected(tmp_path):
    # k * eps = 7 * 0.05 = 0.35 exactly, the end of the values that round to 0.3: never decided
    text = HEADER.replace("claim\n", "claim,expected\n")
    text += "composition.simple.eps,7,0.05,,,0.3,digits,\ncomposition.simple.eps,7,0.05,,,0.3,digits,UNDECIDED\n"
    report = check_table(_write(tmp_path, "u.csv", text), workers=1)
    assert [r.verdict for r in report.rows] == [Verdict.UNDECIDED] * 2
    assert [r.ok for r in report.rows] == [False, True]
    assert report.exit_code == 2


def test_workers_do_not_change_the_result(tmp_path):
    path = _write(tmp_path, "t2.csv", HEADER + "".join(table2_rows({("fmnist", 100, "delta"): "0.031"})))
    one, two = check_table(path, workers=1), check_table(path, workers=2)
    strip = lambda rep: [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in rep.rows]  # noqa: E731
    assert strip(one) == strip(two)
    assert [r.line for r in one.rows if r.verdict is Verdict.REFUTED] == [13]


def test_progress_goes_to_the_stream(tmp_path):
    path = _write(tmp_path, "t2.csv", HEADER + "".join(table2_rows()))
    out = io.StringIO()
    check_table(path, workers=2, progress=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("dpcert table: 12 rows in t2.csv (0 malformed); checking 12 on 2 worker(s)")
    assert lines[-1].lstrip().startswith("[12/12] rows checked")


def test_the_csv_reader_is_the_standard_one(tmp_path):
    """Quoted cells with commas (a note) are read by the csv module as one cell."""
    text = 'quantity,k,eps,value,claim,note\ncomposition.simple.eps,2,0.1,0.2,digits,"a, b"\n'
    report = check_table(_write(tmp_path, "q.csv", text), workers=1)
    assert report.rows[0].verdict is Verdict.CERTIFIED
    assert report.rows[0].to_json()["note"] == next(csv.reader(['x,"a, b"']))[1]
