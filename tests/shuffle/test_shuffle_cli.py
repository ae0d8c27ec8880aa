"""``dpcert shuffle``: the table and JSON carry the certified values; bad input exits 2 with one line."""

import json
from fractions import Fraction

import pytest

from dpcert.cli import main


def _run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr()


def test_rdp_json_matches_reference_values(capsys):
    code, out = _run(capsys, "shuffle", "rdp", "n=200", "eps0=3", "lam=20", "--json")
    assert code == 0
    row = json.loads(out.out)["rows"][0]
    # independent mpmath (50 digits): Thm 1 = 3.0930438652006051, Thm 3 = 0.50244493853824599, exact pair =
    # 2.4885541943783287
    assert Fraction(row["thm1"]["lo"]) <= Fraction("3.09304386520060510201") <= Fraction(row["thm1"]["hi"])
    assert Fraction(row["thm3"]["lo"]) <= Fraction("0.502444938538245987078") <= Fraction(row["thm3"]["hi"])
    assert (
        Fraction(row["pair_reverse"]["lo"]) <= Fraction("2.48855419437832865938") <= Fraction(row["pair_reverse"]["hi"])
    )
    assert row["cor1_condition_holds"] is False


def test_rdp_table_and_real_orders(capsys):
    code, out = _run(capsys, "shuffle", "rdp", "n=100", "eps0=1", "lam=1.5,2..3")
    assert code == 0
    lines = out.out.splitlines()
    assert lines[0].startswith("shuffle-model RDP") and "n-bar = 19" in lines[0]  # floor(99/(2e)) + 1 = 19
    assert any(line.startswith("1.5 ") and "n/a (integer lam)" in line for line in lines)


def test_dp_matches_notes(capsys):
    # independent reproduction of Fig. 4a: Thm 1 route at T = 10^5 is 1.36841991876479976607 (mp30) at lam = 17
    code, out = _run(capsys, "shuffle", "dp", "n=1000000", "eps0=0.5", "T=100000", "delta=0.000001", "--json")
    rec = json.loads(out.out)
    assert code == 0 and rec["lam"] == "17"
    assert Fraction(rec["eps"]["lo"]) <= Fraction("1.36841991876479976607") <= Fraction(rec["eps"]["hi"])
    per = {o["bound"]: o for o in rec["per_bound"]}
    # Theorem 1 alone is the minimum here (lam = 17); its upper endpoint is rounded up
    assert per["thm1"]["lam"] == "17" and Fraction(per["thm1"]["eps_upper_endpoint"]) >= Fraction(
        "1.36841991876479976607"
    )
    assert Fraction(per["thm2"]["eps_upper_endpoint"]) > Fraction(per["thm1"]["eps_upper_endpoint"])


@pytest.mark.parametrize(
    "argv",
    [
        ("rdp", "n=0", "eps0=1", "lam=2"),
        ("rdp", "n=10", "eps0=-0.5", "lam=2"),
        ("rdp", "n=10", "eps0=1", "lam=1"),
        ("rdp", "n=10", "eps0=1"),
        ("dp", "n=10", "eps0=1", "T=3", "delta=1"),
        ("dp", "n=10", "eps0=1", "T=0", "delta=0.1"),
    ],
)
def test_bad_input_exits_2(capsys, argv):
    code, out = _run(capsys, "shuffle", *argv)
    assert code == 2 and "invalid" in out.err and len(out.err.strip().splitlines()) == 1


def test_eval_refuses_real_order_for_theorem1(capsys):
    code, out = _run(capsys, "eval", "shuffle.rdp.thm1", "n=10", "eps0=1", "lam=2.5")
    assert code == 2 and "lam" in out.err


def test_rdp_reduction_is_labelled_derived_here(capsys):
    code, out = _run(capsys, "shuffle", "rdp", "n=1000", "eps0=3", "lam=100", "--reduction")
    assert code == 0 and "U_red (up, derived here)" in out.out and "derived here (dpcert)" in out.out
    assert "2.509218856" in out.out  # independent mpmath: U_red = 2.50921885527, rounded up
    # above n = 10^4: integer lam by the moment expansion, a real lam is shown as n/a; above 10^6 refused
    code, out = _run(capsys, "shuffle", "rdp", "n=100000", "eps0=3", "lam=2.5,3", "--reduction", "--json")
    assert code == 0
    rows = json.loads(out.out)["rows"]
    assert "reduction_derived_here" not in rows[0] and "reduction_derived_here" in rows[1]
    red = Fraction(rows[1]["reduction_derived_here"]["hi"])
    assert Fraction(rows[1]["pair_reverse"]["lo"]) <= red <= Fraction(rows[1]["upper"]["lo"])
    code, out = _run(capsys, "shuffle", "rdp", "n=2000000", "eps0=3", "lam=100", "--reduction")
    assert code == 2
