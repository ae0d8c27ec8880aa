"""Certificates as files: one bounded reading, genuine ones always re-check, writes atomic, names never collide."""

import errno
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dpcert.cli import main
from dpcert.core.claim import AtMost, FunctionClaim, QuantityClaim, Verdict
from dpcert.engine.certificate import content_hash, load_certificate, recheck, write_certificate
from dpcert.engine.registry import claims, quantity
from dpcert.errors import CertificateError, InvalidParameter

# composition.drv.eps at k = 2, eps = 0.1, delta' = 0.5, rounded up at 100 significant digits (an mpmath-free
# check: the value is sqrt(4 ln 2)/10 + 2 (e^0.1 - 1)/10, and this bound is above it by less than 1e-100)
BOUND_100 = "0.1875451058466690762329744942770895431710272094003918895919384813350094803889917880276282653224845885"
DRV = {"k": 2, "eps": "0.1", "delta_prime": "0.5"}


def _drv_claim(bound=BOUND_100, cid="user.t.drv100"):
    return QuantityClaim(
        cid, "r", "s", quantity=quantity("composition.drv.eps"), inputs=DRV, comparison=AtMost.of(bound)
    )


def _rehash(path, mutate):
    cert = json.loads(Path(path).read_text())
    mutate(cert)
    cert["sha256"] = content_hash(cert)
    Path(path).write_text(json.dumps(cert))
    return path


# ------------------------------------------------------------------------------ a genuine certificate re-checks


def test_a_bound_that_needs_512_bits_rechecks(tmp_path):
    import math

    value = math.sqrt(4 * math.log(2)) / 10 + 2 * math.expm1(0.1) / 10  # float twin: the bound is the value
    assert abs(float(BOUND_100) - value) < 1e-15
    result = _drv_claim().check()
    assert result.verdict is Verdict.CERTIFIED and result.evidence.precision >= 256
    report = recheck(write_certificate(result, tmp_path))
    assert report.ok, report.detail  # the re-check floored its accuracy at 1e-60 and said MISMATCH


def test_an_undecided_certificate_rechecks_at_its_recorded_precision(tmp_path):
    result = _drv_claim().check(max_prec=128)
    assert result.verdict is Verdict.UNDECIDED
    path = write_certificate(result, tmp_path)
    assert load_certificate(path)["max_prec_bits"] == 128
    report = recheck(path)
    assert report.ok and report.now == "UNDECIDED", report.detail  # was re-run at 8192 bits: CERTIFIED, MISMATCH


# ------------------------------------------------------------------------------ ERROR is never expected


def test_error_is_never_an_expected_verdict_in_the_api():
    q = quantity("composition.simple.eps")
    with pytest.raises(InvalidParameter, match="ERROR"):
        QuantityClaim("t.a.b", "r", "s", expected=Verdict.ERROR, quantity=q, inputs={"k": 1, "eps": "1"},
                      comparison=AtMost.of(1))  # fmt: skip
    with pytest.raises(InvalidParameter, match="ERROR"):
        QuantityClaim("t.a.b", "r", "s", expected="ERROR", quantity=q, inputs={"k": 1, "eps": "1"},
                      comparison=AtMost.of(1))  # fmt: skip
    ok = QuantityClaim("t.a.b", "r", "s", quantity=q, inputs={"k": 1, "eps": "1"}, comparison=AtMost.of(1))
    with pytest.raises(InvalidParameter, match="ERROR"):
        ok.check(expected=Verdict.ERROR)


def test_error_is_never_an_expected_verdict_in_a_manifest(tmp_path):
    from dpcert.engine.manifest import load_manifest
    from dpcert.errors import ManifestError

    m = tmp_path / "m.toml"
    m.write_text('[[claims]]\nselect = "darrm.table2.mnist.q20.eps"\nexpect = "ERROR"\n')
    with pytest.raises(ManifestError, match="ERROR"):
        load_manifest(m)


def test_error_is_never_an_expected_verdict_in_a_certificate(tmp_path):
    # a certificate of a check that failed (verdict ERROR) with expected ERROR re-checked "ok"
    q = quantity("composition.simple.eps")
    claim = QuantityClaim("user.t.err", "r", "s", quantity=q, inputs={"k": 1, "eps": "1"}, comparison=AtMost.of(1))
    path = write_certificate(claim.check(), tmp_path)
    _rehash(path, lambda c: (c.update(verdict="ERROR"), c["claim"].update(expected="ERROR")))
    with pytest.raises(CertificateError, match="expected"):
        recheck(path)


# ------------------------------------------------------------------------------ bounded untrusted input


def _darrm_certify_cert(tmp_path):
    from dpcert.darrm.privacy_claims import check_private

    inputs = {"gamma": "sub", "K": 3, "m": "1", "eps": "0.1", "Delta": "0", "delta": "0"}
    claim = FunctionClaim("user.t.darrm", "r", "s", fn=check_private, inputs=inputs)
    return write_certificate(claim.check(), tmp_path)


def test_a_darrm_certify_certificate_rechecks_and_takes_no_workers_from_the_file(tmp_path):
    path = _darrm_certify_cert(tmp_path)
    assert recheck(path).ok
    _rehash(path, lambda c: c["claim"]["inputs"].update(workers=64))
    with pytest.raises(CertificateError, match="workers"):
        recheck(path)  # the file chose the number of processes


def test_execution_settings_are_not_claim_inputs():
    from dpcert.darrm.privacy_claims import check_private

    inputs = {"gamma": "sub", "K": 3, "m": "1", "eps": "0.1", "Delta": "0", "delta": "0"}
    with pytest.raises(InvalidParameter, match="workers"):
        FunctionClaim("user.t.x", "r", "s", fn=check_private, inputs={**inputs, "workers": 2})
    claim = FunctionClaim("user.t.x", "r", "s", fn=check_private, inputs=inputs, settings={"workers": 2})
    assert "workers" not in json.dumps(claim.spec_json())


def test_function_inputs_from_a_file_are_validated_before_the_check(tmp_path):
    path = _darrm_certify_cert(tmp_path)
    _rehash(path, lambda c: c["claim"]["inputs"].update(eps="1e-99999999"))
    t0 = time.perf_counter()
    with pytest.raises(CertificateError, match="eps"):
        recheck(path)
    _rehash(path, lambda c: c["claim"]["inputs"].update(eps="0.1", K=4))  # K even: Problem 1.1 refuses it
    with pytest.raises(CertificateError, match="K"):
        recheck(path)
    assert time.perf_counter() - t0 < 5


def test_a_function_without_input_validation_runs_only_as_registered(tmp_path):
    # an unregistered claim naming a check that does not validate its inputs is refused, not run with them
    (claim,) = [claims()["shuffle.cor1.follows_from_thm1"]]
    cert = {
        "format": "dpcert-certificate",
        "version": 1,
        "claim": {
            "id": "user.shuffle.hang",
            "reference": "r",
            "statement": "s",
            "function": claim.function_name,
            "inputs": {**{k: v for k, v in claim.spec_json()["inputs"].items()}, "eps0": "1e-3"},
            "expected": "CERTIFIED",
        },
        "verdict": "CERTIFIED",
        "evidence": {"enclosure": None, "method": "m", "precision_bits": 0, "detail": "d"},
        "seconds": 0.1,
        "software": {},
        "created": "now",
    }
    cert["sha256"] = content_hash(cert)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    with pytest.raises(CertificateError, match="validates its inputs"):
        recheck(path)


def _env():
    """The environment of a subprocess running the dpcert this test imports."""
    import dpcert

    return {**os.environ, "PYTHONPATH": str(Path(dpcert.__file__).resolve().parents[1])}


def _hostile_dir(tmp_path):
    """A directory of hostile certificates, each of which hung or crashed `dpcert check` before."""
    d = tmp_path / "hostile"
    d.mkdir()
    good = write_certificate(claims()["darrm.table2.mnist.q20.eps"].check(), d)
    cert = json.loads(good.read_text())
    cert["evidence"]["enclosure"] = {"lo": "1e-999999999", "hi": "6"}  # 10^999999999 was computed
    cert["sha256"] = content_hash(cert)
    (d / "a.huge_exponent.json").write_text(json.dumps(cert))
    fn = claims()["shuffle.cor1.follows_from_thm1"]
    hang = {
        "format": "dpcert-certificate",
        "version": 1,
        "claim": {"id": "user.shuffle.hang", "reference": "r", "statement": "s", "function": fn.function_name,
                  "inputs": {**fn.spec_json()["inputs"], "eps0": "1e-99999999"}, "expected": "CERTIFIED"},
        "verdict": "CERTIFIED",
        "evidence": {"enclosure": None, "method": "m", "precision_bits": 0, "detail": "d"},
        "seconds": 0.1, "software": {}, "created": "now",
    }  # fmt: skip
    hang["sha256"] = content_hash(hang)
    (d / "b.eps0.json").write_text(json.dumps(hang))
    os.mkfifo(d / "c.fifo.json")  # reading a FIFO blocked for ever
    (d / "d.big.json").write_text(" " * (17 * 1024 * 1024) + "{}")
    return d


def test_hostile_certificates_are_one_line_each_and_the_good_one_still_rechecks(tmp_path):
    d = _hostile_dir(tmp_path)
    env = _env()
    proc = subprocess.run(
        [sys.executable, "-m", "dpcert.cli", "check", str(d)], capture_output=True, text=True, timeout=60, env=env
    )
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(err) == 4 and all(line.startswith("dpcert: error:") for line in err), err
    assert "exponent" in err[0] and "eps0" in err[1]
    assert "FIFO" in err[2] and "bytes" in err[3]
    assert proc.stdout.startswith("OK  darrm.table2.mnist.q20.eps")  # reported although others failed


def test_checking_an_empty_directory_is_an_error(tmp_path, capsys):
    assert main(["check", str(tmp_path)]) == 2
    assert "none" in capsys.readouterr().err


# ------------------------------------------------------------------------------ atomic writes


@pytest.fixture
def result():
    return claims()["darrm.table2.mnist.q20.eps"].check()


def test_a_planted_hard_link_is_not_written_through(tmp_path, result):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    d = tmp_path / "certs"
    d.mkdir()
    os.link(outside, d / f"{result.claim.id}.json")
    path = write_certificate(result, d)
    assert outside.read_text() == "precious"
    assert load_certificate(path)["claim"]["id"] == result.claim.id


def test_a_failing_write_leaves_the_existing_certificate_intact(tmp_path, result, monkeypatch):
    path = write_certificate(result, tmp_path)
    before = path.read_bytes()
    real_open = io.open

    def full_disk(file, mode="r", *a, **kw):
        f = real_open(file, mode, *a, **kw)
        if "w" in mode:

            def write(_text):
                raise OSError(errno.ENOSPC, "No space left on device")

            f.write = write
        return f

    monkeypatch.setattr(io, "open", full_disk)
    with pytest.raises(CertificateError, match="space"):
        write_certificate(result, tmp_path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind


def test_concurrent_writers_and_a_reader_never_see_a_partial_certificate(tmp_path):
    q = quantity("composition.simple.eps")
    # one id, two contents of different lengths
    results = [
        QuantityClaim("user.t.race", "r", "s", quantity=q, inputs={"k": k, "eps": eps}, comparison=AtMost.of(100))
        .check()
        for k, eps in ((1, "0.1"), (3, "0.123456789012345678901234567890"))
    ]  # fmt: skip
    write_certificate(results[0], tmp_path)
    path = tmp_path / "user.t.race.json"
    stop = threading.Event()

    def writer(r):
        while not stop.is_set():
            write_certificate(r, tmp_path)

    threads = [threading.Thread(target=writer, args=(r,)) for r in results]
    for t in threads:
        t.start()
    bad = 0
    try:
        for _ in range(300):
            try:
                json.loads(path.read_text())
            except (json.JSONDecodeError, FileNotFoundError):
                bad += 1
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert bad == 0
    load_certificate(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["user.t.race.json"]


MANIFEST = """
[[claims]]
select = "darrm.table2.mnist.q20.eps"
[[claims]]
select = "shuffle.pairs.rr_reverse_is_max"
[[claims]]
select = "shuffle.lemma8.special_moment_decreasing"
"""


def test_kill_9_during_verify_keeps_the_finished_certificates_whole(tmp_path):
    # certificates are written as each claim finishes (not all at the end), each atomically
    m = tmp_path / "m.toml"
    m.write_text(MANIFEST)
    d = tmp_path / "certs"
    env = _env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dpcert.cli", "verify", str(m), "--full", "-q", "--certificates", str(d)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (d.is_dir() and list(d.glob("*.json"))):
            time.sleep(0.01)
        time.sleep(0.3)  # all at the end: the other two would be written (and the run over) by now
        running = proc.poll() is None and len(list(d.glob("*.json"))) < 3
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert running, "the first certificate appeared only when the run had ended"
    written = list(d.glob("*.json"))
    assert written and all(p.stat().st_size > 0 for p in written)
    for p in written:
        load_certificate(p)


def test_verify_reports_the_certificates_it_wrote(tmp_path, capsys):
    d = tmp_path / "certs"
    code = main(["verify", "-s", "darrm.table2.mnist.q20.*", "-q", "--json", "--certificates", str(d)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert sorted(out["certificates_written"]) == sorted(str(p) for p in d.glob("*.json"))
    assert len(out["certificates_written"]) == 2
    code = main(["verify", "-s", "darrm.table2.mnist.q20.*", "-q", "--certificates", str(d)])
    assert code == 0 and f"wrote 2 certificate(s) into {d}" in capsys.readouterr().err


def test_verify_calls_on_result_as_each_claim_finishes():
    from dpcert.engine.verify import verify

    seen = []
    report = verify(selectors=["darrm.table2.mnist.q20.*"], on_result=lambda r: seen.append(r.claim.id))
    assert seen == [r.claim.id for r in report.results] and len(seen) == 2


# ------------------------------------------------------------------------------ default names never collide


def test_two_user_claims_into_one_directory_give_two_certificates(tmp_path, capsys):
    d = tmp_path / "certs"
    for eps in ("0.1", "0.2"):
        assert main(["claim", "composition.simple.eps", "k=3", f"eps={eps}", "--at-most", "1", "--certificate",
                     str(d)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    files = sorted(d.glob("*.json"))
    assert len(files) == 2 and all(f"certificate: {f}" in out for f in files)
    assert all(f.name.startswith("user.composition.simple.eps.") for f in files)
    assert main(["check", str(d)]) == 0
    # an id naming a registered claim is refused: its certificate would have to state the registry's claim
    code = main(["claim", "composition.simple.eps", "k=3", "eps=0.1", "--at-most", "1", "--id",
                 "darrm.table2.mnist.q20.eps"])  # fmt: skip
    assert code == 2 and "registered" in capsys.readouterr().err


def test_two_darrm_certify_runs_into_one_directory_give_two_certificates(tmp_path, capsys):
    d = tmp_path / "certs"
    base = ["darrm", "certify", "gamma=sub", "K=3", "m=1", "Delta=0", "delta=0"]
    opts = ["-q", "--certificate", str(d)]
    for eps in ("0.1", "0.2"):
        assert main([*base, f"eps={eps}", *opts]) == 0
    assert main([*base, "eps=0.3", *opts, "--id", "user.mine.eps03"]) == 0
    out = capsys.readouterr().out
    files = sorted(d.glob("*.json"))
    assert len(files) == 3 and (d / "user.mine.eps03.json") in files
    assert all(f"certificate: {f}" in out for f in files)
    assert main(["check", str(d)]) == 0
