"""``dpcert br``: compare and optimum, values and exit codes."""

import json

from dpcert.cli import main


def test_compare_json(capsys):
    assert main(["br", "compare", "k=100", "eps=0.1", "delta=1e-6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by = {b["curve"]: b for b in out["bounds"]}
    # values of an independent Figure 1 reproduction (ε = 0.1, k = 100)
    for curve, printed in [
        ("BR OptComp (nonadaptive, Thm 3)", 2.24603),
        ("eps-DP OptComp", 4.77457),
        ("eps/2-DP OptComp", 2.20753),
        ("MGF (Thm 5)", 2.72863),
        ("DR19", 3.12826),
    ]:
        lo = float(by[curve]["enclosure"]["lo"])
        assert round(lo, 5) == printed
        assert by[curve]["verdict"] == "CERTIFIED"


def test_compare_bad_input(capsys):
    assert main(["br", "compare", "k=10", "eps=-1", "delta=1e-6"]) == 2
    assert main(["br", "compare", "k=2.5", "eps=1", "delta=1e-6"]) == 2
    assert main(["br", "compare", "k=10", "eps=1"]) == 2


def test_optimum(capsys):
    assert main(["br", "optimum", "k=2", "eps=1", "eps_g=0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["t"] for m in out["maximisers"]] == ["1/3", "2/3"] and out["exact_tie"]


def test_adaptive(capsys):
    assert main(["br", "adaptive", "k=2", "eps=1", "eps_g=0", "--n", "200", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert float(out["bracket"]["lo"]) <= 0.3033654964832 <= float(out["bracket"]["hi"]) and out["n"] == 200
    assert main(["br", "adaptive", "k=2", "eps=1", "eps_g=0", "--n", "10", "--seconds", "1"]) == 2
