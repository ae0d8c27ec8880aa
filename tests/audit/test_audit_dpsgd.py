"""``dpcert audit``'s DP-SGD rows (dp-accounting's PLD and RDP accountants, Opacus' three accountants and its
``get_noise_multiplier``) and dp-accounting's ``REPLACE_ONE`` sensitivity question, and the bundled claim on Opacus'
GDP ε at the MNIST setting.

Independent sources: the Gaussian mechanism's ε(δ) from Balle–Wang's formula in mpmath (μ = 1 for replace-one at
noise multiplier 2, μ = 1/2 for add/remove), the Laplace mechanism's pure-DP ε = Δ/b, and Opacus' own printed value.
Each peer part is skipped where that peer is not installed (Opacus needs PyTorch: ``pip install "dpcert[opacus]"``).
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.audit.cases import CASES, Case
from dpcert.audit.run import run_audit
from dpcert.engine import registry

pytestmark = pytest.mark.peers

SMALL_EPS = Case("dpsgd.eps", {"q": "0.01", "sigma": "1.1", "steps": "300", "delta": "1e-5"})
SMALL_SIGMA = Case("dpsgd.sigma", {"q": "0.01", "steps": "50", "eps": "1", "delta": "1e-5"})
GAUSS_R1 = Case("gaussian.eps", {"delta": "1e-5", "sigma": "2", "sensitivity": "2", "k": "1"})
GAUSS_AR = Case("gaussian.eps", {"delta": "1e-5", "sigma": "2", "sensitivity": "1", "k": "1"})
LAPLACE_R1 = Case("laplace.eps", {"delta": "1e-5", "scale": "2", "sensitivity": "2", "k": "1"})
MNIST_GDP = "gaussian.opacus_gdp.mnist_eps_2p3222"


def _rows(report, quantity, function_start):
    return [r for r in report.rows if r.quantity == quantity and r.function.startswith(function_start)]


def _one(report, case, function_start):
    rows = [r for r in _rows(report, case.quantity, function_start) if r.inputs == dict(case.inputs)]
    assert len(rows) == 1, [r.function for r in report.rows]
    return rows[0]


def _gaussian_eps_mp(mu: mp.mpf, delta: str) -> mp.mpf:
    """ε(δ) of a μ-GDP Gaussian (Balle–Wang Thm 8) by bisection in mpmath at 40 digits."""
    with mp.workdps(40):
        target = mp.mpf(delta)

        def dlt(e):
            return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)

        lo, hi = mp.mpf(0), mp.mpf(40)
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if dlt(mid) > target else (lo, mid)
        return lo


def test_the_audit_has_the_mnist_and_replace_one_cases():
    inputs = [(c.quantity, dict(c.inputs)) for c in CASES]
    assert ("dpsgd.eps", {"q": "256/60000", "sigma": "1.1", "steps": "14040", "delta": "1e-5"}) in inputs
    assert (GAUSS_R1.quantity, dict(GAUSS_R1.inputs)) in inputs
    assert (LAPLACE_R1.quantity, dict(LAPLACE_R1.inputs)) in inputs


def _installed(module):
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def report():
    """One audit of both peers (dpcert's enclosures computed once), with those that are installed."""
    peers = [name for name, module in (("dp-accounting", "dp_accounting"), ("opacus", "opacus")) if _installed(module)]
    if not peers:
        pytest.skip("neither dp-accounting nor opacus is installed")
    return run_audit(peers, [SMALL_EPS, SMALL_SIGMA, GAUSS_AR, GAUSS_R1, LAPLACE_R1])


@pytest.fixture(scope="module")
def dpa_report(report):
    pytest.importorskip("dp_accounting")
    return report


def test_dp_accounting_dpsgd_rows(dpa_report):
    pld = _one(dpa_report, SMALL_EPS, "PLDAccountant(ADD_OR_REMOVE_ONE)")
    rdp = _one(dpa_report, SMALL_EPS, "RdpAccountant(ADD_OR_REMOVE_ONE)")
    assert pld.verdict in ("inside", "loose") and (pld.distance or 0) < 0.01  # its pessimistic PLD: tight
    assert rdp.verdict == "loose" and rdp.distance > 0.02  # RDP: valid, several per cent above
    assert "certified bracket" in pld.note


def test_dp_accounting_calibration_rows(dpa_report):
    pld = _one(dpa_report, SMALL_SIGMA, "calibrate_dp_mechanism(PLDAccountant")
    rdp = _one(dpa_report, SMALL_SIGMA, "calibrate_dp_mechanism(RdpAccountant")
    assert (pld.distance or 0) < 0.01 and rdp.verdict == "loose" and rdp.distance > 0.05


def test_replace_one_gaussian_settles_dp_accountings_two_answers(dpa_report):
    truth = _gaussian_eps_mp(mp.mpf(1), "1e-5")  # sensitivity 2 at noise 2: mu = 1
    add_remove = _gaussian_eps_mp(mp.mpf(1) / 2, "1e-5")  # sensitivity 1: mu = 1/2
    pld = _one(dpa_report, GAUSS_R1, "PLDAccountant(REPLACE_ONE)")
    rdp = _one(dpa_report, GAUSS_R1, "RdpAccountant(REPLACE_ONE)")
    assert float(pld.enclosure.lo) == pytest.approx(float(truth), rel=1e-14)  # dpcert's enclosure is the truth
    assert pld.verdict in ("inside", "loose") and pld.distance < 1e-6  # the PLD accountant is right
    assert rdp.verdict == "unsafe" and rdp.direction == "below"  # the RDP accountant is not ...
    assert rdp.distance == pytest.approx(1 - rdp.value / float(truth), rel=1e-9) and rdp.distance > 0.5
    # ... because it answers the add/remove question: the same number as its own add/remove row
    rdp_ar = _one(dpa_report, GAUSS_AR, "RdpAccountant().compose(Gaussian")
    assert rdp.value == rdp_ar.value and rdp_ar.verdict == "loose"
    assert float(rdp_ar.enclosure.lo) == pytest.approx(float(add_remove), rel=1e-12)


def test_replace_one_laplace_rdp_is_unsafe_and_pld_refuses(dpa_report):
    rdp = _one(dpa_report, LAPLACE_R1, "RdpAccountant(REPLACE_ONE)")
    pld = _one(dpa_report, LAPLACE_R1, "PLDAccountant(REPLACE_ONE)")
    # the Laplace mechanism of scale 2 at sensitivity 2 is exactly 1-DP, so its eps at delta = 1e-5 is at most 1
    # and, its delta(eps) being 1 - e^{(eps-1)/2}... far above 1e-5 for eps < 0.99, close below 1
    assert Fraction(99, 100) < rdp.enclosure.lo <= rdp.enclosure.hi <= 1
    assert rdp.verdict == "unsafe" and rdp.value < 0.51
    assert pld.verdict == "skipped" and "does not support" in pld.note


@pytest.fixture(scope="module")
def opacus_report(report):
    pytest.importorskip("opacus")
    return report


def test_opacus_accountant_rows(opacus_report):
    gdp = _one(opacus_report, SMALL_EPS, "GaussianAccountant")
    prv = _one(opacus_report, SMALL_EPS, "PRVAccountant")
    rdp = _one(opacus_report, SMALL_EPS, "RDPAccountant")
    assert gdp.verdict == "unsafe" and gdp.distance > 0.05
    assert prv.verdict in ("inside", "loose") and rdp.verdict == "loose"
    assert "underestimate" in gdp.note  # Opacus' own warning travels with the row


def test_opacus_get_noise_multiplier_rows(opacus_report):
    by = {
        m: _one(opacus_report, SMALL_SIGMA, f"get_noise_multiplier(eps, delta, q, steps, accountant='{m}')")
        for m in ("rdp", "prv", "gdp")
    }
    assert by["gdp"].verdict == "unsafe"
    assert by["rdp"].verdict == "loose" and by["prv"].verdict in ("inside", "loose")


def test_the_gdp_claim_holds_opacus_printed_number():
    """The claim's ε is the number Opacus prints, recomputed live."""
    pytest.importorskip("opacus")
    from opacus.accountants import GaussianAccountant

    claim = registry.claims()[MNIST_GDP]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = GaussianAccountant()
    acc.history = [(1.1, 256 / 60000, 14040)]
    assert repr(acc.get_epsilon(delta=1e-5)) == claim.inputs["eps"]


@pytest.mark.slow
def test_the_gdp_claim_is_refuted():
    from dpcert.engine.verify import verify

    report = verify(selectors=[MNIST_GDP], progress=None, full=True)
    (result,) = report.results
    assert result.verdict.value == "REFUTED"
    assert result.evidence.enclosure.lo > Fraction(14, 10**6)  # at least 1.4x the target delta
