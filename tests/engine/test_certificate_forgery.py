"""Forged certificates: every edit of what a reader is told is refused by ``recheck``, even with the hash recomputed.

An attacker edits one field of a genuine certificate at a time and recomputes ``sha256`` (``content_hash``), as
anyone can. A registered claim's certificate must state exactly the registry's claim; every verdict and evidence
field is re-derived. Only ``seconds``, ``created`` and ``software`` (how and when it was made) are not bound.
"""

import copy
import json

import pytest

from dpcert.cli import main
from dpcert.engine.certificate import content_hash, recheck, write_certificate
from dpcert.engine.registry import claims
from dpcert.errors import CertificateError

#: cheap registered claims of each kind: a quantity claim (ball arithmetic), a function claim, an erratum
#: (a quantity claim expected REFUTED) and a function erratum
KINDS = {
    "quantity": "composition.kov.eps.brnotes_eps1_k2",
    "function": "sml.thm_v4.qm_beats_rr.d2_tau10",
    "erratum": "shuffle.fig2.saturates_near_eps0",
    "function_erratum": "sml.thm_v4.qm_beats_rr.sml0_d3",
}


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    d = tmp_path_factory.mktemp("genuine")
    out = {}
    for kind, cid in KINDS.items():
        path = write_certificate(claims()[cid].check(), d)
        out[kind] = json.loads(path.read_text())
    return out


def _other_verdicts(v):
    return [x for x in ("CERTIFIED", "REFUTED", "UNDECIDED", "ERROR") if x != v]


def _edits(kind, cert):
    """(name, mutate) for every field a reader is shown."""
    c = cert["claim"]
    same_kind = "quantity" if "quantity" in c else "function"
    other_registered = next(
        cid for cid, cl in claims().items() if cid != c["id"] and same_kind in cl.spec_json() and not cl.slow
    )
    edits = [
        ("id -> another registered claim", lambda x: x["claim"].update(id=other_registered)),
        ("id -> an unregistered id", lambda x: x["claim"].update(id="user.forged.claim")),
        ("statement", lambda x: x["claim"].update(statement=c["statement"] + " (and more)")),
        ("reference", lambda x: x["claim"].update(reference="Another paper, Table 9")),
        ("erratum added or changed", lambda x: x["claim"].update(erratum="the printed value is right after all")),
        ("unknown claim key", lambda x: x["claim"].update(note="reviewed and approved")),
        ("unknown top-level key", lambda x: x.update(note="reviewed and approved")),
        ("unknown evidence key", lambda x: x["evidence"].update(note="reviewed")),
        ("method", lambda x: x["evidence"].update(method="exact rational arithmetic (a proof)")),
        ("precision", lambda x: x["evidence"].update(precision_bits=x["evidence"]["precision_bits"] + 64)),
        ("detail", lambda x: x["evidence"].update(detail="trust me")),
        ("worst case", lambda x: x["evidence"].update(worst_case={"at": "nowhere"})),
        ("counts", lambda x: x["evidence"].update(counts={"exact": 12345})),
        ("extra", lambda x: x["evidence"].update(extra={"checked_by": "hand"})),
        ("error added", lambda x: x.update(error="RuntimeError: nothing")),
    ]
    if c.get("erratum"):
        edits.append(("erratum removed", lambda x: x["claim"].pop("erratum")))
    for v in _other_verdicts(c["expected"]):
        edits.append((f"expected -> {v}", lambda x, v=v: x["claim"].update(expected=v)))
    for v in _other_verdicts(cert["verdict"]):
        edits.append((f"verdict -> {v}", lambda x, v=v: x.update(verdict=v)))
    # verdict and expected together: the issue's "CERTIFIED CERTIFIED ok"
    edits.append(("verdict and expected -> ?", lambda x: _flip_both(x)))
    enc = cert["evidence"].get("enclosure")
    if enc is not None:
        lo, hi = enc["lo"], enc["hi"]
        edits += [
            ("enclosure widened", lambda x: x["evidence"].update(enclosure={"lo": f"{lo}0", "hi": _wider_hi(hi)})),
            ("enclosure moved", lambda x: x["evidence"].update(enclosure={"lo": "1000", "hi": "1001"})),
            ("enclosure removed", lambda x: x["evidence"].update(enclosure=None)),
        ]
    else:
        edits.append(("enclosure added", lambda x: x["evidence"].update(enclosure={"lo": "0", "hi": "1"})))
    if "quantity" in c:
        name = next(k for k, v in c["inputs"].items() if isinstance(v, dict))
        rec = c["inputs"][name]
        edits += [
            ("quantity", lambda x: x["claim"].update(quantity="composition.drv.eps")),
            ("input given (same exact)", lambda x: _set_input(x, name, {**rec, "given": rec["given"] + "0"})),
            ("input given and exact", lambda x: _set_input(x, name, {"given": "0.5", "type": "str", "exact": "1/2"})),
            ("input exact only", lambda x: _set_input(x, name, {**rec, "exact": "1/3"})),
            ("input removed", lambda x: x["claim"]["inputs"].pop(name)),
            ("comparison", lambda x: x["claim"].update(comparison={**c["comparison"], "value": _other_value(c)})),
        ]
    else:
        edits += [
            ("function", lambda x: x["claim"].update(function="dpcert.sml.claims:check_qm_sml")),
            ("inputs", lambda x: x["claim"].update(inputs={**c["inputs"], "extra_input": 1})),
        ]
    return edits


def _flip_both(x):
    v = "CERTIFIED" if x["verdict"] != "CERTIFIED" else "REFUTED"
    x["verdict"] = v
    x["claim"]["expected"] = v


def _wider_hi(hi):
    return str(float(hi) * 2 + 1)


def _set_input(x, name, rec):
    x["claim"]["inputs"][name] = rec


def _other_value(c):
    v = c["comparison"]["value"]
    return "62.31" if isinstance(v, str) else {"given": "7", "type": "str", "exact": "7"}


def _forge(tmp_path, cert, mutate):
    forged = copy.deepcopy(cert)
    mutate(forged)
    forged["sha256"] = content_hash(forged)
    path = tmp_path / f"{cert['claim']['id']}.json"
    path.write_text(json.dumps(forged, indent=1))
    return path


def _refused(path):
    try:
        report = recheck(path)
    except CertificateError:
        return True
    return not report.ok


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_edit_a_reader_would_see_is_refused(genuine, tmp_path, kind):
    cert = genuine[kind]
    path = _forge(tmp_path, cert, lambda x: None)
    assert recheck(path).ok, "the genuine certificate re-checks"
    accepted = [name for name, mutate in _edits(kind, cert) if not _refused(_forge(tmp_path, cert, mutate))]
    assert not accepted, f"{kind}: forged edits accepted: {accepted}"


@pytest.mark.parametrize("kind", list(KINDS))
def test_how_and_when_it_was_made_is_not_bound(genuine, tmp_path, kind):
    # seconds, created and software describe the run that made it; they are shown as recorded, never checked
    cert = genuine[kind]
    path = _forge(
        tmp_path, cert, lambda x: x.update(seconds=12.5, created="2020-01-01T00:00:00+00:00", software={"x": "1"})
    )
    assert recheck(path).ok


def test_the_issue_forgery_of_an_erratum_is_a_mismatch(tmp_path, capsys):
    # darrm.table4.mnist.lambda (expected REFUTED) with comparison 62.31 and verdict/expected CERTIFIED passed
    # `dpcert check` (exit 0) and showed "CERTIFIED CERTIFIED ok" in --markdown
    (claim,) = [claims()["darrm.table4.mnist.lambda"]]
    cert = json.loads(write_certificate(claim.check(), tmp_path / "made").read_text())

    def forge(x):
        x["claim"]["comparison"] = {"kind": "rounds_to", "value": "62.31"}
        x["verdict"] = "CERTIFIED"
        x["claim"]["expected"] = "CERTIFIED"

    d = tmp_path / "forged"
    d.mkdir()
    _forge(d, cert, forge)
    md = tmp_path / "RESULTS.md"
    code = main(["check", str(d), "--markdown", str(md)])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("MISMATCH") and not md.exists()
    # a genuine certificate renamed to another registered id fails too
    for f in d.iterdir():
        f.unlink()
    _forge(d, cert, lambda x: x["claim"].update(id="darrm.table4.fmnist.lambda"))
    assert main(["check", str(d)]) == 1


def test_a_duplicate_key_is_refused_without_any_rehash(genuine, tmp_path):
    # today the last "verdict" wins: a REFUTED file can show CERTIFIED on its first line and still pass
    cert = genuine["erratum"]
    assert cert["verdict"] == "REFUTED"
    text = json.dumps(cert, indent=1)
    path = tmp_path / "dup.json"
    path.write_text('{"verdict": "CERTIFIED",' + text[1:])
    with pytest.raises(CertificateError, match="duplicate"):
        recheck(path)


def test_an_unregistered_claim_states_what_its_content_says(tmp_path):
    from dpcert.core.claim import AtMost, QuantityClaim
    from dpcert.engine.registry import quantity

    claim = QuantityClaim(
        "user.mine.k3",
        "my own reference",
        "k-fold composition is tiny",  # free text: the certificate states the derived statement instead
        quantity=quantity("composition.simple.eps"),
        inputs={"k": 3, "eps": "0.1"},
        comparison=AtMost.of("0.3"),
    )
    path = write_certificate(claim.check(), tmp_path)
    cert = json.loads(path.read_text())
    assert cert["claim"]["statement"] == "composition.simple.eps(k=3, eps=0.1) <= 0.3"
    report = recheck(path)
    assert report.ok and report.statement == cert["claim"]["statement"]
    one = {"given": "1", "type": "str", "exact": "1"}
    for mutate in (
        lambda x: x["claim"].update(statement="composition.simple.eps(k=3, eps=0.1) <= 0.2"),
        # comparison edited, statement left: what the reader reads is no longer what is checked
        lambda x: x["claim"].update(comparison={"kind": "at_most", "value": one}),
        lambda x: x["claim"].update(expected="REFUTED", statement="anything"),
    ):
        assert _refused(_forge(tmp_path, cert, mutate))
