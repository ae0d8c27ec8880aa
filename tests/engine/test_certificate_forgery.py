"""Forged certificates: every edit of what a reader is told is refused by ``recheck``, even with the hash recomputed.

An attacker edits one field of a genuine certificate at a time and recomputes ``sha256`` (``content_hash``), as
anyone can. A registered claim's certificate must state exactly the registry's claim; every verdict and evidence
field is re-derived. Only ``seconds``, ``created`` and ``software`` (how and when it was made) are not bound.
"""

import copy
import json
import re
from pathlib import Path

import pytest

from dpcert.certificates import recheck
from dpcert.cli import main
from dpcert.engine.certificate import content_hash, write_certificate
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


# ------------------------------------------------------------------ table, vector and user certificates: relabelling
#
# A claim that is not registered is bound by what it records: a table row's certificate records the row and where it
# was read (claim.source) and its id, reference, statement and expected verdict are re-derived from that row; a
# golden vector's certificate must state the bundled case of its id; any other claim is shown under an id derived
# from what is checked, with its own id, reference, expected verdict and erratum printed apart as a label that is
# not verified. A relabelling edit (rehashed) must fail `dpcert check` or appear only in that label.

TABLE2 = Path(__file__).resolve().parents[2] / "verify" / "tables" / "examples" / "darrm_table2.csv"
VECTOR_CERTS = Path(__file__).resolve().parents[2] / "verify" / "vectors" / "certificates"


@pytest.fixture(scope="module")
def table_certs(tmp_path_factory):
    """The certificates of darrm_table2.csv, by line, as `dpcert table check --certificates` writes them."""
    d = tmp_path_factory.mktemp("table2")
    assert main(["table", "check", str(TABLE2), "--certificates", str(d), "-q"]) == 0
    out = {}
    for p in d.glob("*.json"):
        cert = json.loads(p.read_text())
        out[int(re.search(r", line (\d+)", cert["claim"]["reference"]).group(1))] = cert
    return out


@pytest.fixture(scope="module")
def unbound(table_certs, tmp_path_factory):
    """A genuine certificate of each unregistered kind: a table row, a golden vector, a user claim."""
    from dpcert.core.claim import AtMost, QuantityClaim
    from dpcert.engine.certificate import default_claim_id
    from dpcert.engine.registry import quantity

    q = quantity("composition.simple.eps")
    draft = QuantityClaim("user.claim", "my own reference", "", quantity=q, inputs={"k": 3, "eps": "0.1"},
                          comparison=AtMost.of("0.3"))  # fmt: skip
    user = QuantityClaim(default_claim_id(draft.spec_json(), q.name), "my own reference", "", quantity=q,
                         inputs={"k": 3, "eps": "0.1"}, comparison=AtMost.of("0.3"))  # fmt: skip
    d = tmp_path_factory.mktemp("user")
    return {
        "table": table_certs[24],
        "vector": json.loads((VECTOR_CERTS / "vectors.composition.simple.eps.k1.json").read_text()),
        "user": json.loads(write_certificate(user.check(), d).read_text()),
    }


def _relabellings(kind, cert, table_certs):
    """(name, mutate, text) for each relabelling: rename, swap reference, swap expected, swap erratum; ``text`` is
    what an accepted edit must show only as a label."""
    c = cert["claim"]
    other = {
        "table": table_certs[25]["claim"],
        "vector": json.loads((VECTOR_CERTS / "vectors.composition.simple.eps.huge_k.json").read_text())["claim"],
        "user": {"id": "user.composition.simple.eps.000000000000", "reference": "Another paper, Table 9"},
    }[kind]
    edits = [
        ("id -> another of its kind", lambda x: x["claim"].update(id=other["id"]), other["id"]),
        ("id -> a user id", lambda x: x["claim"].update(id="user.forged.claim"), "user.forged.claim"),
        ("id -> a registered id", lambda x: x["claim"].update(id=KINDS["quantity"]), KINDS["quantity"]),
        ("id -> a table row's id", lambda x: x["claim"].update(id="table.darrm_table2.line25"), None),
        ("id -> a vector's id", lambda x: x["claim"].update(id="vectors.composition.simple.eps.huge_k"), None),
        ("reference swapped", lambda x: x["claim"].update(reference=other["reference"]), other["reference"]),
        (
            "id and reference swapped",
            lambda x: x["claim"].update(id=other["id"], reference=other["reference"]),
            other["reference"],
        ),
        ("erratum added", lambda x: x["claim"].update(erratum="the printed value is right"), "the printed value"),
    ]
    for v in ("REFUTED", "UNDECIDED"):
        edits.append((f"expected -> {v}", lambda x, v=v: x["claim"].update(expected=v), f"expected {v}"))
    if "source" in c:
        edits += [
            ("source line -> 25", lambda x: x["claim"]["source"].update(line=25), None),
            ("source row swapped", lambda x: x["claim"]["source"].update(row=other["source"]["row"]), None),
            ("source removed", lambda x: x["claim"].pop("source"), None),
        ]
    else:
        row = {"table": "darrm_table2.csv", "sha256": "0" * 64, "line": 25, "row": {"quantity": "x"}}
        edits.append(("source added", lambda x: x["claim"].update(source=row), None))
    return edits


def _refused_or_labelled(path, genuine_id, forged_id, text):
    """The forged file fails check, or it passes under the id re-derived from its content, with ``text`` shown
    only in the label after the file name, marked as not verified."""
    try:
        report = recheck(path)
    except CertificateError:
        return True
    if not report.ok:
        return True
    label_text = getattr(report, "label", "")  # a report without one shows everything as verified
    line = f"OK  {report.claim_id}: {report.detail}" + (f"  (label, not verified: {label_text})" if label_text else "")
    head, _, label = line.partition("  (label, not verified: ")
    if text is None or text not in label or (forged_id != report.claim_id and forged_id in head):
        return False
    return report.claim_id == genuine_id or report.claim_id != forged_id  # the id shown is not the edited one


@pytest.mark.parametrize("kind", ["table", "vector", "user"])
def test_every_relabelling_of_an_unregistered_certificate_fails_or_is_a_label(unbound, table_certs, tmp_path, kind):
    cert = unbound[kind]
    assert recheck(_forge(tmp_path, cert, lambda x: None)).ok, "the genuine certificate re-checks"
    accepted = []
    for name, mutate, text in _relabellings(kind, cert, table_certs):
        forged = copy.deepcopy(cert)
        mutate(forged)
        if not _refused_or_labelled(_forge(tmp_path, cert, mutate), cert["claim"]["id"], forged["claim"]["id"], text):
            accepted.append(name)
    assert not accepted, f"{kind}: relabellings shown as verified: {accepted}"


def test_the_issue_relabelling_of_table_line_24_as_line_25_fails(table_certs, tmp_path, capsys):
    # line 24 (eps <= 5.352, CERTIFIED) renamed to line 25 with line 25's reference and rehashed passed
    # `dpcert check` ("OK table.darrm_table2.line25 ... satisfies '<= 5.352'") while line 25 is REFUTED
    line24, line25 = table_certs[24], table_certs[25]
    assert line25["verdict"] == "REFUTED" and line24["verdict"] == "CERTIFIED"
    d = tmp_path / "forged"
    d.mkdir()
    for forged_id in ("table.darrm_table2.line25", line25["claim"]["id"]):
        for f in d.iterdir():
            f.unlink()
        _forge(d, line24, lambda x, i=forged_id: x["claim"].update(id=i, reference=line25["claim"]["reference"]))
        assert main(["check", str(d)]) == 1
        assert capsys.readouterr().out.startswith("MISMATCH")
    # relabelled all through (the recorded row's line, the id and reference re-derived from it): what it shows as
    # verified is the row's own claim under an id that is not line 25's, and the line only as a label
    from dpcert.tables.check import row_claim_id

    def relabel(x):
        x["claim"]["source"]["line"] = 25
        x["claim"]["id"] = row_claim_id(x["claim"]["source"])
        x["claim"]["reference"] = x["claim"]["reference"].replace("line 24", "line 25")

    for f in d.iterdir():
        f.unlink()
    _forge(d, line24, relabel)
    assert main(["check", str(d)]) == 0
    out = capsys.readouterr().out
    head, _, label = out.partition("(label, not verified: ")
    assert line25["claim"]["id"] not in out and "<= 5.352" not in label
    assert 'row read from table "darrm_table2.csv"' in label and "line 25)" in label and "line25" not in label


def test_a_user_claim_shows_its_derived_id_and_its_label_apart(unbound, tmp_path, capsys):
    cert = unbound["user"]
    d = tmp_path / "u"
    d.mkdir()
    _forge(d, cert, lambda x: x["claim"].update(id="darrm.table9.reviewed", reference="Table 9, reviewed"))
    assert main(["check", str(d)]) == 0
    out, summary = capsys.readouterr().out.strip().splitlines()
    assert summary == "1 certificate: 1 OK, 0 MISMATCH"
    assert out.startswith(f"OK  {cert['claim']['id']}: ")  # the id derived from what is checked
    head, _, label = out.partition("  (label, not verified: ")
    assert "darrm.table9.reviewed" not in head and "Table 9" not in head
    assert label == 'id "darrm.table9.reviewed"; reference "Table 9, reviewed")'


def test_the_claim_command_refuses_a_table_or_vector_id(tmp_path, capsys):
    for given in ("table.darrm_table2.line25", "vectors.composition.simple.eps.k1"):
        code = main(["claim", "composition.simple.eps", "k=3", "eps=0.1", "--at-most", "0.3", "--id", given,
                     "--certificate", str(tmp_path)])  # fmt: skip
        assert code == 2 and not list(tmp_path.iterdir())
        assert "--id" in capsys.readouterr().err


def _table_ids(path, certs):
    assert main(["table", "check", str(path), "--certificates", str(certs), "-q"]) == 0
    return {json.loads(p.read_text())["claim"]["id"] for p in certs.glob("*.json")}


def test_table_certificate_ids_of_two_files_never_collide(tmp_path):
    text = "quantity,k,eps,value,claim\ncomposition.simple.eps,3,0.1,0.3,upper\n"
    other = "quantity,k,eps,value,claim\ncomposition.simple.eps,4,0.1,0.4,upper\n"
    certs = tmp_path / "certs"
    # the same file name in two directories, different tables
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    (tmp_path / "x" / "t.csv").write_text(text)
    (tmp_path / "y" / "t.csv").write_text(other)
    first = _table_ids(tmp_path / "x" / "t.csv", certs)
    second = _table_ids(tmp_path / "y" / "t.csv", certs) - first
    assert len(first) == 1 and len(second) == 1 and len(list(certs.glob("*.json"))) == 2
    # two names that gave the same id segment (a_b), the same table
    certs2 = tmp_path / "certs2"
    (tmp_path / "a..b.csv").write_text(text)
    (tmp_path / "a\nb.csv").write_text(text)
    one = _table_ids(tmp_path / "a..b.csv", certs2)
    two = _table_ids(tmp_path / "a\nb.csv", certs2) - one
    assert len(one) == 1 and len(two) == 1 and len(list(certs2.glob("*.json"))) == 2
    for d in (certs, certs2):
        assert main(["check", str(d)]) == 0


def test_the_markdown_table_lists_labels_apart(unbound, tmp_path):
    d = tmp_path / "u"
    d.mkdir()
    _forge(d, unbound["user"], lambda x: x["claim"].update(reference="Table 9, reviewed"))
    md = tmp_path / "R.md"
    assert main(["check", str(d), "--markdown", str(md)]) == 0
    table, _, labels = md.read_text().partition("Labels, not verified")
    assert "Table 9" not in table and f'- `{unbound["user"]["claim"]["id"]}`: reference "Table 9, reviewed"' in labels


def test_a_function_claims_default_id_is_the_derived_one(tmp_path):
    # `dpcert darrm certify` names its certificate user.darrm.certify.<hash>: check derives the same id
    d = tmp_path / "made"
    args = ["darrm", "certify", "gamma=sub", "K=3", "m=1", "eps=0.1", "Delta=1e-5", "delta=general"]
    assert main([*args, "--certificate", str(d), "-q"]) == 0
    (path,) = d.glob("*.json")
    cert = json.loads(path.read_text())
    report = recheck(path)
    assert report.ok and report.claim_id == cert["claim"]["id"] and report.claim_id.startswith("user.darrm.certify.")
    assert report.label == f"reference {json.dumps(cert['claim']['reference'], ensure_ascii=False)}"
    forged = recheck(_forge(tmp_path, cert, lambda x: x["claim"].update(id="user.darrm.certify.000000000000")))
    assert forged.ok and forged.claim_id == cert["claim"]["id"]
    assert forged.label.startswith('id "user.darrm.certify.000000000000"; reference ')


@pytest.mark.parametrize("kind", ["table", "vector"])
def test_the_engine_alone_refuses_a_kind_it_cannot_rebuild(unbound, kind, tmp_path):
    """The engine knows no table row or golden vector (those layers are above it): without their rebuild a genuine
    certificate of either kind is refused, never judged as a user claim with its id as unbound text."""
    from dpcert.engine.certificate import recheck as engine_recheck

    path = _forge(tmp_path, unbound[kind], lambda x: None)
    assert recheck(path).ok
    with pytest.raises(CertificateError, match="re-checked only with that kind's rebuild"):
        engine_recheck(path)
