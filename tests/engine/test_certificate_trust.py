"""Regression tests for the audit's certificate defects: what a certificate says must be true, and checked."""

import json

import numpy as np
import pytest

from dpcert.composition import QUANTITIES as Q
from dpcert.core.claim import AtLeast, AtMost, FunctionClaim, QuantityClaim, Verdict
from dpcert.engine.certificate import content_hash, load_certificate, recheck, write_certificate
from dpcert.engine.manifest import load_manifest
from dpcert.engine.registry import select
from dpcert.errors import CertificateError, InvalidParameter, ManifestError


def _simple(bound, cls=AtMost):
    return QuantityClaim(
        "t.float.bound",
        "ref",
        "s",
        quantity=Q["composition.simple.eps"],
        inputs={"k": 1, "eps": 0.1},
        comparison=cls.of(bound),
    )


@pytest.mark.parametrize("bound", [0.1, np.float64(0.1)], ids=["float", "np.float64"])
def test_a_float_bound_rechecks_as_the_claim_that_was_checked(tmp_path, bound):
    # k*eps is the double 0.1 exactly, so "<= the double 0.1" holds; recording the bound as the text "0.1"
    # made recheck test "<= 1/10", which is false (the double is above 1/10)
    result = _simple(bound).check()
    assert result.verdict is Verdict.CERTIFIED
    report = recheck(write_certificate(result, tmp_path))
    assert report.ok, report.detail
    assert report.now == "CERTIFIED"


def test_function_claim_certificates_are_self_contained(tmp_path):
    (claim,) = select("composition.mv.homogeneous_reduction")
    cert = load_certificate(write_certificate(claim.check(), tmp_path))
    assert cert["claim"]["function"] == "dpcert.composition.identities:check_mv_homogeneous"
    assert cert["claim"]["inputs"] == {"k": [1, 2, 3, 5, 8]}  # integers, not the string "1,2,3,5,8"
    # a certificate naming a function that is not a marked dpcert check is refused, not called
    for evil in ("os:system", "dpcert.engine.certificate:write_certificate", "dpcert.nowhere:f"):
        forged = dict(cert, claim={**cert["claim"], "function": evil})
        forged["sha256"] = content_hash(forged)
        path = tmp_path / "forged.json"
        path.write_text(json.dumps(forged))
        _assert_refused(path, "function")
        # as an unregistered claim, the named function is resolved (and refused) before anything runs
        forged["claim"]["id"] = "user.forged.fn"
        forged["sha256"] = content_hash(forged)
        path.write_text(json.dumps(forged))
        with pytest.raises(CertificateError, match="function"):
            recheck(path)


def _assert_refused(path, needle):
    """Refused: a malformed certificate raises; a registered claim's certificate that differs is a MISMATCH."""
    try:
        report = recheck(path)
    except CertificateError as exc:
        assert needle in str(exc)
        return
    assert not report.ok and needle in report.detail, report.detail


def _rehash(path, mutate):
    cert = json.loads(path.read_text())
    mutate(cert)
    cert["sha256"] = content_hash(cert)
    path.write_text(json.dumps(cert))
    return path


@pytest.fixture
def cert_path(tmp_path):
    (claim,) = select("darrm.table2.mnist.q50.eps")
    return write_certificate(claim.check(), tmp_path)


def test_a_widened_enclosure_is_not_accepted_even_when_rehashed(cert_path):
    _rehash(cert_path, lambda c: c["evidence"].update(enclosure={"lo": "0", "hi": "1e300"}))
    report = recheck(cert_path)
    assert not report.ok and "decides" in report.detail


def test_an_enclosure_that_misses_the_value_is_not_accepted(cert_path):
    _rehash(cert_path, lambda c: c["evidence"].update(enclosure={"lo": "9.9005", "hi": "9.9006"}))
    report = recheck(cert_path)
    assert not report.ok and "does not contain" in report.detail


def test_an_edited_given_with_the_old_exact_is_refused(cert_path):
    def edit(c):
        c["claim"]["inputs"]["eps"]["given"] = "0.3"

    _rehash(cert_path, edit)
    _assert_refused(cert_path, "inputs")  # a registered claim: its inputs must be the registry's
    _rehash(cert_path, lambda c: c["claim"].update(id="user.edited.given"))
    with pytest.raises(CertificateError, match="given"):
        recheck(cert_path)


def test_an_edited_detail_is_refused_and_the_shown_detail_is_regenerated(cert_path):
    report = recheck(cert_path)
    assert report.ok and "satisfies" in report.detail
    _rehash(cert_path, lambda c: c["evidence"].update(detail="trust me"))
    report = recheck(cert_path)
    assert not report.ok and "evidence.detail" in report.detail


@pytest.mark.parametrize(
    "mutate",
    [
        lambda c: c["evidence"].update(enclosure={"lo": "x", "hi": "1"}),
        lambda c: c["evidence"].update(enclosure={"lo": "1"}),
        lambda c: c.pop("evidence"),
        lambda c: c["claim"].pop("statement"),
        lambda c: c.update(verdict="MAYBE"),
        lambda c: c["claim"].update(comparison={"kind": "at_most", "value": "1"}),
        lambda c: c["claim"].update(id="../../evil"),
    ],
    ids=["non-numeric end", "missing end", "no evidence", "no statement", "bad verdict", "bare bound", "bad id"],
)
def test_a_malformed_rehashed_certificate_is_a_certificate_error(cert_path, mutate):
    _rehash(cert_path, mutate)
    try:
        report = recheck(cert_path)
    except CertificateError:
        return
    # a well-formed record that is not the registered claim's is refused as a MISMATCH
    assert not report.ok and "registered claim" in report.detail


@pytest.mark.parametrize("bad_id", ["../x", "/tmp/abs", "a/b.c", "..", "x", "a..b", "a.b/../c", "a.b c"])
def test_claim_ids_cannot_become_paths(bad_id):
    with pytest.raises(InvalidParameter, match="claim id"):
        QuantityClaim(
            bad_id,
            "r",
            "s",
            quantity=Q["composition.simple.eps"],
            inputs={"k": 1, "eps": "1"},
            comparison=AtLeast.of(0),
        )


def test_a_manifest_id_cannot_write_outside_the_certificate_directory(tmp_path):
    manifest = tmp_path / "m.toml"
    manifest.write_text(
        '[[claims]]\nid = "../../y"\nreference = "r"\nquantity = "composition.simple.eps"\n'
        'inputs = { k = 1, eps = "1" }\nat_most = "1"\n'
    )
    with pytest.raises(ManifestError, match="claim id"):
        load_manifest(manifest)


def test_function_claim_inputs_must_be_exact():
    (claim,) = select("composition.mv.homogeneous_reduction")
    with pytest.raises(InvalidParameter):
        FunctionClaim("t.x.y", "r", "s", fn=claim.fn, inputs={"k": 0.5})


def test_a_claim_with_a_choice_input_rechecks_and_the_choice_is_validated(tmp_path):
    # a certificate of a quantity with a choice parameter (DaRRM's gamma) re-checks; an edited, invalid choice is
    # refused by the quantity's own parameter, rehashed or not
    from dpcert.engine.registry import quantities

    claim = QuantityClaim(
        "t.darrm.margin",
        "ref",
        "gamma_Sub is private at K = 5, m = 1 (Lemma 3.1: subsampling one mechanism)",
        quantity=quantities()["darrm.privacy.margin"],
        inputs={"gamma": "sub", "K": 5, "m": 1, "eps": "0.1", "Delta": 0, "delta": 0},
        comparison=AtMost.of(0),
    )
    path = write_certificate(claim.check(), tmp_path)
    assert load_certificate(path)["claim"]["inputs"]["gamma"] == "sub"
    report = recheck(path)
    assert report.ok and report.now == "CERTIFIED", report.detail
    _rehash(path, lambda c: c["claim"]["inputs"].update(gamma="os.system"))
    with pytest.raises((CertificateError, InvalidParameter), match="gamma"):
        recheck(path)
