"""What ``dpcert audit`` leads with: nothing audited is a failure that says how to install the peers; float
round-off is counted apart from findings; a calibrator's tolerance on another quantity is stated beside its verdict.

The reference values are the Gaussian mechanism's privacy profile evaluated with mpmath (Balle–Wang's formula, not
dpcert's code).
"""

import dataclasses

import mpmath as mp
import pytest

import dpcert.audit.peers as peers_module
from dpcert.audit.cases import Case
from dpcert.audit.peers import Call, Peer
from dpcert.audit.report import render_markdown, render_text
from dpcert.audit.run import FLOAT_NOISE, run_audit
from dpcert.cli import main

GAUSS = Case("gaussian.delta", {"eps": "1", "sigma": "1", "sensitivity": "1", "k": "1"})
SIGMA = Case("gaussian.sigma", {"eps": "1", "delta": "1e-15", "sensitivity": "1", "k": "1"})


def _gauss_delta(eps, sigma):
    """δ(ε) of the Gaussian mechanism (sensitivity 1), Balle–Wang Thm 8, in mpmath at 50 digits."""
    with mp.workdps(50):
        eps, sigma = mp.mpf(eps), mp.mpf(sigma)
        return mp.ncdf(-eps * sigma + 1 / (2 * sigma)) - mp.exp(eps) * mp.ncdf(-eps * sigma - 1 / (2 * sigma))


def _none_installed(monkeypatch):
    """Every peer as after a plain ``pip install .``: its module cannot be imported."""
    missing = [
        dataclasses.replace(p, module=f"dpcert_no_such_module_{i}", _status=None)
        for i, p in enumerate(peers_module.PEERS)
    ]
    monkeypatch.setattr(peers_module, "PEERS", missing)


@pytest.mark.parametrize("argv", [["audit", "--quiet"], ["audit", "--quiet", "--json"], ["audit", "--markdown"]])
def test_no_peer_installed_says_so_and_exits_2(monkeypatch, capsys, argv):
    _none_installed(monkeypatch)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "no peer is installed, so nothing was audited" in err
    assert "dpcert[peers]" in err and "pip install" in err


def test_one_installed_peer_is_an_audit_that_ran(monkeypatch, capsys):
    _none_installed(monkeypatch)
    monkeypatch.setattr(peers_module, "PEERS", [*peers_module.PEERS, Peer("fake", "dpcert", "math", lambda c: [])])
    assert main(["audit", "--quiet"]) == 0
    assert "no peer is installed" not in capsys.readouterr().err


def test_the_headline_counts_round_off_apart_from_unsafe():
    truth = float(_gauss_delta(1, 1))  # 0.126936737506...

    def calls(case):
        return [
            Call("rounded", "upper", lambda: truth * (1 - 1e-13)),  # below by ~1e-13: round-off
            Call("edge", "upper", lambda: truth * (1 - FLOAT_NOISE / 2)),  # still round-off by the stated bound
            Call("too_small", "upper", lambda: truth * (1 - 1e-6)),  # unsafe beyond round-off
        ]

    report = run_audit(cases=[GAUSS], adapters=[Peer("fake", "dpcert", "math", calls)])
    assert [r.verdict for r in report.rows] == ["unsafe"] * 3  # each row keeps its proved verdict
    assert report.headline() == {"unsafe": 1, "round-off": 2}
    text = render_text(report)
    summary = next(line for line in text.splitlines() if line.startswith("3 rows:"))
    assert summary.startswith("3 rows: 1 unsafe, 2 round-off (unsafe or wrong by at most 1e-09 relative)")
    assert "unsafe (round-off)" in text
    md = render_markdown(report)
    assert "1 unsafe" in md and "55 unsafe" not in md and "### Findings (beyond round-off" in md
    assert md.count("| **unsafe** |") == 1 and md.count("| unsafe (round-off) |") == 2


def _calibrator(value):
    accuracy = ("gaussian.delta", "sigma", "delta", 1e-12)
    return lambda case: [Call("calibrate", "value", lambda: value, accuracy_on=accuracy)]


def test_a_calibrator_within_its_tolerance_on_delta_says_so_beside_unsafe():
    sigma = 7.0  # below the least safe sigma 7.487...; its delta is within 1e-12 of the target 1e-15
    assert abs(_gauss_delta(1, sigma) - mp.mpf(1e-15)) <= 1e-12
    (row,) = run_audit(cases=[SIGMA], adapters=[Peer("fake", "dpcert", "math", _calibrator(sigma))]).rows
    assert row.verdict == "unsafe"
    assert "within its stated tolerance 1e-12 on delta" in row.note


def test_a_calibrator_beyond_its_tolerance_on_delta_says_so():
    sigma = 1.0  # delta(1) = 0.127: far from 1e-15
    assert abs(_gauss_delta(1, sigma) - mp.mpf(1e-15)) > 1e-12
    (row,) = run_audit(cases=[SIGMA], adapters=[Peer("fake", "dpcert", "math", _calibrator(sigma))]).rows
    assert row.verdict == "unsafe" and "beyond its stated tolerance 1e-12 on delta" in row.note


@pytest.mark.peers
def test_autodp_calibrator_row_states_its_tolerance():
    pytest.importorskip("autodp")
    report = run_audit(["autodp"], [SIGMA])
    (row,) = [r for r in report.rows if r.function.startswith("calibrator_zoo.ana_gaussian_calibrator")]
    assert row.verdict == "unsafe"
    assert abs(_gauss_delta(1, row.value) - mp.mpf(1e-15)) <= 1e-12  # autodp's documented tol, independently
    assert "within its stated tolerance 1e-12 on delta" in row.note
    assert "within its stated tolerance" in render_markdown(report)
