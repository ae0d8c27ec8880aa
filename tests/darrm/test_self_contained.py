"""A DaRRM γ given as a file is recorded in a certificate as its exact table: re-checking reads no file.

Before: the certificate held the path as given (relative to the directory of the run), so `check` from another
directory said MISMATCH, and a file swapped after the run was read by `check` instead of the certified table.
"""

import json
import os

import pytest

from dpcert.cli import main
from dpcert.engine.certificate import content_hash, recheck
from dpcert.errors import CertificateError, InvalidParameter

# gamma = (1, 1/2, 1/5, 1/5, 1/2, 1), K = 5 (symmetric, in [0, 1])
TABLE = "l,gamma\n0,1\n1,0.5\n2,0.2\n3,0.2\n4,0.5\n5,1\n"
RECORDED = ["1", "0.5", "0.2", "0.2", "0.5", "1"]


def _rewrite(path, edit):
    cert = json.loads(path.read_text())
    edit(cert)
    cert["sha256"] = content_hash(cert)  # as an attacker would
    path.write_text(json.dumps(cert))


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """A γ file in one directory, the certificate written in another, then the run's directory left."""
    work, certs, other = tmp_path / "work", tmp_path / "certs", tmp_path / "other"
    for d in (work, certs, other):
        d.mkdir()
    (work / "g.csv").write_text(TABLE)
    monkeypatch.chdir(work)
    return work, certs, other


def test_darrm_certify_records_the_table_and_rechecks_from_anywhere(elsewhere, capsys, monkeypatch):
    work, certs, other = elsewhere
    argv = ["darrm", "certify", "gamma=g.csv", "K=5", "m=1", "eps=0.5", "Delta=0.1", "delta=0.1", "-q"]
    assert main([*argv, "--certificate", str(certs)]) == 1  # REFUTED: margin 0.03276 > 0
    capsys.readouterr()
    (cert,) = certs.glob("*.json")
    claim = json.loads(cert.read_text())["claim"]
    assert claim["inputs"]["gamma"] == RECORDED
    assert "g.csv" not in json.dumps(claim["inputs"])
    # another directory, the file swapped for a table that is private there (gamma = 1/1000 everywhere) ...
    (work / "g.csv").write_text("l,gamma\n" + "".join(f"{l},0.001\n" for l in range(6)))
    monkeypatch.chdir(other)
    rep = recheck(cert)
    assert rep.ok and rep.now == "REFUTED", rep.detail
    # ... or deleted: the certificate alone decides
    (work / "g.csv").unlink()
    assert recheck(cert).ok


def test_an_edited_recorded_table_is_a_mismatch(elsewhere, capsys):
    work, certs, other = elsewhere
    argv = ["darrm", "certify", "gamma=g.csv", "K=5", "m=1", "eps=0.5", "Delta=0.1", "delta=0.1", "-q"]
    main([*argv, "--certificate", str(certs)])
    capsys.readouterr()
    (cert,) = certs.glob("*.json")

    def widen(c):  # a smaller γ in the middle: still REFUTED, but another maximum margin
        c["claim"]["inputs"]["gamma"] = ["1", "0.5", "0.1", "0.1", "0.5", "1"]
        # the statement a reader sees is derived from the content, so a forger rewrites it consistently too
        c["claim"]["statement"] = c["claim"]["statement"].replace("0.2, 0.2", "0.1, 0.1")

    _rewrite(cert, widen)
    rep = recheck(cert)
    assert not rep.ok and "does not contain" in rep.detail


def test_quantity_claim_records_the_table_and_refuses_a_recorded_path(elsewhere, capsys, monkeypatch):
    work, certs, other = elsewhere
    argv = ["claim", "darrm.privacy.margin", "gamma=g.csv", "K=5", "m=1", "eps=0.5", "Delta=0.1", "delta=0.1"]
    assert main([*argv, "--at-most", "0.1", "--certificate", str(certs)]) == 0
    capsys.readouterr()
    (cert,) = certs.glob("*.json")
    assert json.loads(cert.read_text())["claim"]["inputs"]["gamma"] == RECORDED
    monkeypatch.chdir(other)
    (work / "g.csv").unlink()
    assert recheck(cert).ok
    # a certificate naming a file (as certificates did before) is refused without reading it, even if it exists
    (other / "g.csv").write_text(TABLE)
    _rewrite(cert, lambda c: c["claim"]["inputs"].__setitem__("gamma", "g.csv"))
    with pytest.raises(CertificateError, match="not a path"):
        recheck(cert)


def test_check_functions_never_read_a_gamma_path(tmp_path, monkeypatch):
    from dpcert.darrm.privacy_claims import check_private

    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.csv").write_text(TABLE)
    with pytest.raises(InvalidParameter, match="a file is read by the CLI"):
        check_private(0, "g.csv", 5, "1", "0.5", "0.1", "0.1")
    v, ev = check_private(0, tuple(RECORDED), 5, "1", "0.5", "0.1", "0.1")
    assert v.value == "REFUTED"


def test_gamma_param_reads_a_path_once_and_takes_a_recorded_table(tmp_path):
    from dpcert.darrm.params import gamma_param

    p = gamma_param()
    f = tmp_path / "g.json"
    f.write_text('[1, 0.25, "1/4", 1]')
    assert p.parse(str(f)) == ("1", "0.25", "1/4", "1")
    assert p.parse(["1", "0.25", "1/4", "1"]) == ("1", "0.25", "1/4", "1")
    assert p.parse("sub") == "sub"
    with pytest.raises(InvalidParameter, match="not a path"):
        p.parse(str(f), files=False)
    with pytest.raises(InvalidParameter, match="symmetric"):
        p.parse(["1", "0.25", "0.3", "1"])
    with pytest.raises(InvalidParameter, match="string"):
        p.parse([1, "0.25", "1/4", 1])  # a recorded table holds exact strings only
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(InvalidParameter, match="FIFO"):
        p.parse(str(tmp_path / "fifo"))
