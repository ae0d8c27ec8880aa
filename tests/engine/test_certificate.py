"""Certificates: written, hashed, re-checked; tampering is detected; the committed ones re-check."""

import json
from pathlib import Path

import pytest

from dpcert.engine.certificate import load_certificate, recheck, write_certificate
from dpcert.engine.manifest import bundled_dir, default_entries
from dpcert.engine.registry import select
from dpcert.errors import CertificateError


def test_round_trip_and_tamper_detection(tmp_path):
    (claim,) = select("darrm.table2.mnist.q50.eps")
    path = write_certificate(claim.check(), tmp_path)
    cert = load_certificate(path)
    assert cert["verdict"] == "CERTIFIED"
    assert cert["claim"]["inputs"]["eps"]["exact"] == "669/2500"
    assert recheck(path).ok
    cert["evidence"]["enclosure"]["lo"] = "9.9"  # tamper
    path.write_text(json.dumps(cert))
    with pytest.raises(CertificateError, match="hash"):
        load_certificate(path)


def test_refuted_erratum_certificate_rechecks(tmp_path):
    (claim,) = select("darrm.table4.mnist.lambda")
    path = write_certificate(claim.check(), tmp_path)
    report = recheck(path)
    assert report.ok and report.recorded == "REFUTED"


def test_not_a_certificate(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    with pytest.raises(CertificateError):
        load_certificate(p)


def _committed(slow: bool) -> list[Path]:
    """The committed certificates of the bundled claims that are (not) slow (``full = true`` in a manifest)."""
    full = {e.claim.id: e.full for e in default_entries()}
    certs = sorted((bundled_dir() / "certificates").glob("*.json"))
    assert {c.stem for c in certs} <= set(full), "a certificate of no bundled claim"
    return [c for c in certs if full[c.stem] == slow]


def test_every_bundled_claim_has_a_committed_certificate():
    full = {e.claim.id for e in default_entries()}
    certs = {c.stem for c in (bundled_dir() / "certificates").glob("*.json")}
    assert full == certs, (sorted(full - certs)[:5], sorted(certs - full)[:5])


def test_committed_certificates_recheck():
    certs = _committed(slow=False)
    assert len(certs) >= 90
    bad = [r for r in map(recheck, certs) if not r.ok]
    assert not bad, [(r.claim_id, r.detail) for r in bad]


@pytest.mark.slow
def test_committed_certificates_of_slow_claims_recheck():
    bad = [r for r in map(recheck, _committed(slow=True)) if not r.ok]
    assert not bad, [(r.claim_id, r.detail) for r in bad]


def test_certificate_paths_are_inside_the_repo_layout():
    assert (bundled_dir() / "certificates").is_dir()
    assert Path(bundled_dir()).name == "verify"
