"""`dpcert darrm certify` / `dpcert darrm error` and the quantity darrm.privacy.margin."""

import json
from fractions import Fraction

import pytest

from dpcert.cli import main
from dpcert.darrm import QUANTITIES


def test_certify_json_and_exit_codes(capsys):
    rc = main(["darrm", "certify", "gamma=sub", "K=11", "m=3", "eps=0.1", "Delta=1e-5", "delta=0.00003", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["verdict"] == "CERTIFIED" and out["counts"]["float"] == 31824
    rc = main(["darrm", "certify", "gamma=one", "K=11", "m=5", "eps=0.1", "Delta=0", "delta=0", "--json"])
    out = json.loads(capsys.readouterr().out)
    # two multisets violate, with equal margins (K = 11, m = 5 = (K-1)/2: gamma = 1 is not 5 eps-DP)
    assert rc == 1 and out["verdict"] == "REFUTED" and out["worst_case"]["counts"] in ([5, 0, 6, 0], [4, 0, 7, 0])
    assert out["counts"]["violating"] == 2 and float(out["enclosure"]["lo"]) > 0.00398
    rc = main(["darrm", "certify", "gamma=max", "K=11", "m=3", "Delta=0", "delta=0", "--for-all-eps", "--json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["verdict"] == "CERTIFIED"
    # the command line gives eps too: accepted (checked, and covered by the every-eps certificate)
    argv = ["darrm", "certify", "gamma=max", "K=11", "m=3", "eps=0.1", "Delta=0", "delta=0", "--for-all-eps", "--json"]
    assert main(argv) == 0 and json.loads(capsys.readouterr().out)["verdict"] == "CERTIFIED"
    assert main([*argv[:5], "eps=-1", *argv[6:]]) == 2  # a bad eps is still refused


def test_certify_writes_certificate(tmp_path, capsys):
    rc = main(
        [
            "darrm",
            "certify",
            "gamma=max",
            "K=5",
            "m=2",
            "eps=0.5",
            "Delta=0",
            "delta=0",
            "-q",
            "--certificate",
            str(tmp_path),
        ]
    )
    assert rc == 0
    files = list(tmp_path.glob("*.json"))
    assert len(files) == 1 and json.loads(files[0].read_text())


@pytest.mark.parametrize(
    "args",
    [
        ["gamma=sub", "K=10", "m=3", "eps=0.1", "Delta=0", "delta=0"],
        ["gamma=sub", "K=11", "m=12", "eps=0.1", "Delta=0", "delta=0"],
        ["gamma=sub", "K=11", "m=3", "eps=-0.1", "Delta=0", "delta=0"],
        ["gamma=sub", "K=11", "m=3", "eps=0.1", "Delta=0.1", "delta=0.01"],
        ["gamma=sub", "K=11", "m=3", "eps=0.1", "Delta=0", "delta=1"],
        ["gamma=nope", "K=11", "m=3", "eps=0.1", "Delta=0", "delta=0"],
        ["gamma=sub", "K=11", "m=3", "Delta=0", "delta=0"],
    ],
)
def test_bad_inputs_exit_2_one_line(args, capsys):
    assert main(["darrm", "certify", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_table_file(tmp_path, capsys):
    f = tmp_path / "g.csv"
    f.write_text("l,gamma\n0,1\n1,0.3\n2,1\n")  # K = 2 is even
    assert main(["darrm", "certify", f"gamma={f}", "K=3", "m=1", "eps=0.1", "Delta=0", "delta=0"]) == 2
    assert "length" in capsys.readouterr().err


def test_table_file_equals_named_gamma(tmp_path, capsys):
    from dpcert.darrm.gamma import gamma_sub

    f = tmp_path / "g.json"
    f.write_text(json.dumps([str(v) for v in gamma_sub(7, 3).table]))
    q = QUANTITIES["darrm.privacy.margin"]
    a = q.enclose(gamma=str(f), K=7, m=3, eps="0.1", Delta="0", delta="0")
    b = q.enclose(gamma="sub", K=7, m=3, eps="0.1", Delta="0", delta="0")
    assert a == b


def test_margin_quantity_exact_zero_and_refinable_negative():
    q = QUANTITIES["darrm.privacy.margin"]
    assert q.enclose(gamma="sub", K=11, m=1, eps="0.1", Delta="0", delta="0").lo == 0
    enc = q.enclose(gamma="sub", K=11, m=3, eps="0.1", Delta="0.00001", delta="0.00003")
    assert enc.hi < 0 and enc.rel_width() < 1e-14
    # float evaluator: the independent plain per-multiset loop
    f = q.evaluate_float(gamma="sub", K=11, m=3, eps="0.1", Delta="0.00001", delta="0.00003")
    assert abs(f - float(enc.lo)) < 1e-12
    assert enc.contains(Fraction(f)) or abs(f - float(enc.lo)) < 1e-12


def test_error_cli(capsys):
    assert main(["darrm", "error", "gamma=dsub", "K=11", "m=3", "mu=0.75", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["error"]["exact"] == "72549/1048576"
    assert main(["darrm", "error", "gamma=const", "K=11", "m=3", "mu=0.75"]) == 2
