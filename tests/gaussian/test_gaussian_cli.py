"""``dpcert dpsgd eps`` and the bundled Gaussian claims through the engine."""

import json
from fractions import Fraction

from dpcert.cli import main
from dpcert.engine.certificate import recheck, write_certificate
from dpcert.engine.registry import select


def test_dpsgd_eps_json_has_the_enclosure_the_method_and_the_order(capsys):
    assert main(["dpsgd", "eps", "q=0.01", "sigma=1", "steps=1000", "delta=1e-5", "--method", "rdp", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "rdp" and out["order"] == 8
    lo, hi = Fraction(out["enclosure"]["lo"]), Fraction(out["enclosure"]["hi"])
    # dp_accounting 0.6.0's RdpAccountant over orders 2..256 gives 2.1077530754515745 (at order 8), a float
    # within 1e-14 of the certified value (tests/gaussian/test_gaussian_peers.py checks it live)
    assert abs(lo - Fraction("2.1077530754515745")) < Fraction(1, 10**14) and hi - lo < Fraction(1, 10**15)
    assert out["inputs"]["steps"] == 1000 and out["inputs"]["max_order"] == 10000


def test_dpsgd_eps_text(capsys):
    assert main(["dpsgd", "eps", "q=1", "sigma=5", "steps=1", "delta=0.9", "--method", "rdp"]) == 0
    assert "eps <= 0 " in capsys.readouterr().out


def test_dpsgd_eps_pld_is_the_default_and_contains_the_gaussian_eps(capsys):
    # q = 1: k Gaussian steps compose exactly into one with sigma/sqrt(k) (gaussian.eps with k = steps)
    from dpcert.gaussian.mechanism import GAUSSIAN_EPS

    assert main(["dpsgd", "eps", "q=1", "sigma=2", "steps=4", "delta=1e-4", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "pld" and out["reached"] and out["quantity"] == "dpsgd.eps"
    lo, hi = Fraction(out["enclosure"]["lo"]), Fraction(out["enclosure"]["hi"])
    g = GAUSSIAN_EPS.enclose(delta=Fraction(1, 10**4), sigma=2, k=4, rel_tol=1e-12)
    assert lo <= g.lo and g.hi <= hi and (hi - lo) / hi <= Fraction(1, 100)


def test_dpsgd_eps_pld_progress_on_stderr(capsys, monkeypatch):
    import dpcert.gaussian.cli as gcli

    assert main(["dpsgd", "eps", "q=1", "sigma=2", "steps=4", "delta=1e-4"]) == 0
    cap = capsys.readouterr()
    assert "eps <= " in cap.out and cap.err == ""  # a run of under two seconds shows no progress
    monkeypatch.setattr(gcli, "_PROGRESS_AFTER", 0.0)  # as a long run does after two seconds
    assert main(["dpsgd", "eps", "q=1", "sigma=2", "steps=4", "delta=1e-4"]) == 0
    cap = capsys.readouterr()
    assert "eps <= " in cap.out and "resolution" in cap.err
    assert len(cap.err.splitlines()) <= 4  # throttled: not a line per round


def test_dpsgd_sigma_json_brackets_the_gaussian_calibration(capsys):
    from dpcert.gaussian.mechanism import GAUSSIAN_SIGMA

    assert main(["dpsgd", "sigma", "q=1", "steps=4", "eps=1", "delta=1e-3", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    lo, hi = Fraction(out["enclosure"]["lo"]), Fraction(out["enclosure"]["hi"])
    g = GAUSSIAN_SIGMA.enclose(eps=1, delta=Fraction(1, 1000), k=4, rel_tol=1e-12)
    assert lo <= g.lo and g.hi <= hi and out["safe_sigma"] == out["enclosure"]["hi"]


def test_bad_input_and_unbuilt_method_are_one_line_exit_2(capsys):
    cases = [
        ["dpsgd", "eps", "q=0.01", "sigma=1", "steps=1000", "delta=1e-5", "--method", "gdp"],
        ["dpsgd", "eps", "q=0.01", "sigma=1", "steps=1000", "delta=1e-5", "conversion=cks"],
        ["dpsgd", "sigma", "q=0.01", "steps=1000", "eps=1", "delta=1e-5", "sigma=1"],
        ["dpsgd", "sigma", "q=0.01", "steps=1000", "eps=-1", "delta=1e-5"],
        ["dpsgd", "sigma", "q=0.01", "steps=10.5", "eps=1", "delta=1e-5"],
        ["dpsgd", "eps", "q=0", "sigma=1", "steps=1000", "delta=1e-5"],
        ["dpsgd", "eps", "q=0.01", "sigma=0", "steps=1000", "delta=1e-5"],
        ["dpsgd", "eps", "q=0.01", "sigma=1", "steps=10.5", "delta=1e-5"],
        ["dpsgd", "eps", "q=0.01", "sigma=1", "steps=10", "delta=1"],
        ["dpsgd", "eps", "q=0.01", "sigma=1", "steps=10"],
        ["eval", "sgm.rdp", "q=0.01", "sigma=1", "alpha=1"],
    ]
    for argv in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("dpcert: error:")
    main(cases[0])
    assert "pld" in capsys.readouterr().err


def test_bundled_claims_have_their_expected_verdicts_and_certificates_recheck(tmp_path):
    claims = select("gaussian.*")
    # the MNIST PLD claims run under --full; the shuffled-MNIST claim (closed form) runs here and re-checks with its
    # sampling and neighboring inputs
    assert len(claims) == 18 and sum(c.slow for c in claims) == 4
    for c in (c for c in claims if not c.slow):
        r = c.check()
        assert r.ok, (c.id, r.verdict, r.evidence.detail, r.error)
        path = write_certificate(r, tmp_path)
        assert recheck(path).ok
