"""Re-certifying vectors (``dpcert vectors check``, ``dpcert verify --full``): a faithful copy passes; an edited
enclosure, a missing or altered certificate, a value outside the recorded ends each fail with a clear message."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout

import pytest

import dpcert.engine.verify as verify_module
from dpcert.cli import main
from dpcert.engine.verify import VerifyReport, verify
from dpcert.vectors import bundled_path
from dpcert.vectors.check import check

IDS = ["composition.kov.delta.k1", "gaussian.delta.sigma1", "composition.simple.eps.double_eps"]


def copy_of(tmp_path, ids=IDS, edit=None):
    """A vectors file in tmp_path with the bundled vectors ``ids`` and their certificates; ``edit(doc)`` first."""
    doc = json.loads(bundled_path().read_text())
    doc["vectors"] = [v for v in doc["vectors"] if v["id"] in ids]
    (tmp_path / "certificates").mkdir()
    for v in doc["vectors"]:
        shutil.copy(bundled_path().parent / v["certificate"]["file"], tmp_path / v["certificate"]["file"])
    if edit is not None:
        edit(doc)
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps(doc))
    return path


def failures(report):
    return {r.claim.id.removeprefix("vectors."): r.evidence.detail for r in report.results if not r.ok}


def test_a_faithful_copy_recertifies(tmp_path):
    report = check(copy_of(tmp_path))
    assert report.exit_code == 0 and [r.verdict.value for r in report.results] == ["CERTIFIED"] * len(IDS)


def _vector(doc, vid):
    return next(v for v in doc["vectors"] if v["id"] == vid)


def test_a_wider_enclosure_than_the_rerun_is_a_mismatch(tmp_path):
    """Still true (0.3 <= 0.28764913… is false, so widen upwards), but not what a re-run gives."""

    def widen(doc):
        _vector(doc, "composition.kov.delta.k1")["hi"] = "0.3"

    report = check(copy_of(tmp_path, edit=widen))
    bad = failures(report)
    assert set(bad) == {"composition.kov.delta.k1"} and report.exit_code == 1
    detail = bad["composition.kov.delta.k1"]
    assert "the file records [0.28764913664496792492, 0.3], a re-run gives" in detail
    assert "0.28764913664496792493]" in detail
    assert "certificate's comparison" in detail  # the certificate states the claim with the original ends


def test_an_enclosure_missing_the_value_is_refuted(tmp_path):
    def shift(doc):
        v = _vector(doc, "gaussian.delta.sigma1")
        v["lo"], v["hi"] = "0.2", "0.3"

    bad = failures(check(copy_of(tmp_path, edit=shift)))
    assert "the recorded enclosure is wrong" in bad["gaussian.delta.sigma1"]
    assert "violates 'lies in [0.2, 0.3]'" in bad["gaussian.delta.sigma1"]


def test_a_missing_or_altered_certificate_fails(tmp_path):
    path = copy_of(tmp_path)
    (tmp_path / "certificates" / "vectors.gaussian.delta.sigma1.json").unlink()
    cert = tmp_path / "certificates" / "vectors.composition.kov.delta.k1.json"
    cert.write_text(cert.read_text().replace('"seconds": ', '"seconds": 1'))
    bad = failures(check(path))
    assert "is missing" in bad["gaussian.delta.sigma1"]
    assert "content hash mismatch" in bad["composition.kov.delta.k1"]
    assert "composition.simple.eps.double_eps" not in bad


def test_a_recorded_hash_that_is_not_the_certificates_fails(tmp_path):
    def rehash(doc):
        _vector(doc, "composition.simple.eps.double_eps")["certificate"]["sha256"] = "0" * 64

    bad = failures(check(copy_of(tmp_path, edit=rehash)))
    assert "is not the recorded 000000000000" in bad["composition.simple.eps.double_eps"]


def test_cli_check_prints_the_mismatch_and_exits_1(tmp_path):
    def widen(doc):
        _vector(doc, "composition.kov.delta.k1")["hi"] = "0.3"

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["vectors", "check", str(copy_of(tmp_path, edit=widen)), "-q"])
    assert code == 1
    assert "2 re-certified, 1 failed" in out.getvalue()
    assert "vectors.composition.kov.delta.k1: REFUTED: vector composition.kov.delta.k1" in out.getvalue()


def test_verify_full_runs_the_bundled_vectors(monkeypatch):
    """`dpcert verify --full` (the bundled run) adds one entry per bundled vector; without --full, or with a
    manifest or a selection, it adds none. The vectors join from the command line: the engine's `verify` adds
    nothing of its own."""
    seen = {}

    def fake(entries, **kw):
        seen["ids"] = [e.claim.id for e in entries]
        return VerifyReport([])

    def vectors_in(argv):
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            assert main(argv) == 0
        return [i for i in seen["ids"] if i.startswith("vectors.")]

    monkeypatch.setattr(verify_module, "run_entries", fake)
    n_vectors = len(json.loads(bundled_path().read_text())["vectors"])
    assert len(vectors_in(["verify", "--full", "-q"])) == n_vectors
    assert not vectors_in(["verify", "-q"])
    assert not vectors_in(["verify", "-s", "darrm.table2.*", "--full", "-q"])
    verify(full=True)  # the library call: the bundled manifest only
    assert not [i for i in seen["ids"] if i.startswith("vectors.")]
    from dpcert.vectors.check import entries

    verify(full=True, extra=entries)  # the caller adds them
    assert len([i for i in seen["ids"] if i.startswith("vectors.")]) == n_vectors


@pytest.mark.slow
def test_the_whole_bundle_recertifies():
    """Every bundled vector (about 2.5 s; the default run checks a copy of three and `verify --full` all)."""
    report = check()
    assert report.exit_code == 0, failures(report)


def test_verify_full_writes_no_certificate_for_a_vector(monkeypatch, tmp_path):
    """The vectors have their own certificates: `verify --full --certificates verify/certificates` must not add
    104 files there that are no bundled claim's (test_every_bundled_claim_has_a_committed_certificate)."""
    from dpcert.vectors.check import entries

    chosen = [e for e in entries() if e.claim.id in {f"vectors.{i}" for i in IDS}]
    monkeypatch.setattr(verify_module, "default_entries", lambda: [])
    monkeypatch.setattr("dpcert.vectors.check.entries", lambda path=None: chosen)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["verify", "--full", "-q", "--certificates", str(tmp_path / "certs")])
    assert code == 0 and "3 claims: 3 CERTIFIED" in out.getvalue()
    assert not (tmp_path / "certs").exists() or not list((tmp_path / "certs").iterdir())


def test_three_bundled_certificates_recheck_from_the_files_alone():
    from dpcert.certificates import recheck

    for vid in IDS:
        report = recheck(bundled_path().parent / "certificates" / f"vectors.{vid}.json")
        assert report.ok, report.detail
