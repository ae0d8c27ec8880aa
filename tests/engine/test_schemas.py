"""The JSON Schemas of certificates and manifests (``src/dpcert/schemas/``) against the readers and the bundled files.

Every committed certificate and manifest validates; each schema names exactly the keys its reader accepts; and what
the reader refuses (an edited certificate, a malformed manifest entry) the schema refuses too.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

import dpcert  # noqa: E402
from dpcert.engine import certificate, manifest  # noqa: E402
from dpcert.errors import CertificateError, DpcertError  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(dpcert.__file__).resolve().parent / "schemas"
CERTIFICATES = sorted((ROOT / "verify" / "certificates").glob("*.json"))
MANIFESTS = sorted((ROOT / "verify").glob("*.toml"))


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


CERT = _validator("certificate.schema.json")
MANIFEST = _validator("manifest.schema.json")


def test_bundled_certificates_validate() -> None:
    assert len(CERTIFICATES) >= 400
    for path in CERTIFICATES:
        errors = list(CERT.iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        assert not errors, (path.name, errors[0].message[:300])


def test_bundled_manifests_validate() -> None:
    assert {p.name for p in MANIFESTS} >= {"darrm.toml", "composition.toml"}
    for path in MANIFESTS:
        errors = list(MANIFEST.iter_errors(tomllib.loads(path.read_text(encoding="utf-8"))))
        assert not errors, (path.name, errors[0].message[:300])


def test_schema_keys_are_the_readers_keys() -> None:
    """The schemas cannot drift from the readers: the same top-level, claim, evidence and entry keys."""
    cert = CERT.schema
    assert set(cert["properties"]) == certificate._TOP_KEYS
    assert set(cert["$defs"]["claim"]["properties"]) == certificate._CLAIM_KEYS
    assert set(cert["$defs"]["evidence"]["properties"]) == certificate._EVIDENCE_KEYS
    assert cert["properties"]["format"]["const"] == certificate.FORMAT
    assert cert["properties"]["version"]["const"] == certificate.VERSION
    assert cert["properties"]["max_prec_bits"]["maximum"] == certificate.MAX_PREC_LIMIT
    assert set(cert["properties"]["verdict"]["enum"]) == {v.value for v in dpcert.Verdict}
    man = MANIFEST.schema
    assert set(man["properties"]) == manifest._TOP_KEYS
    assert set(man["$defs"]["entry"]["properties"]) == manifest._ENTRY_KEYS


def test_fresh_certificates_validate(tmp_path: Path) -> None:
    """Certificates written now, with each kind of comparison (an exact bound too), validate."""
    q = dpcert.quantity("composition.simple.eps")
    comparisons = [dpcert.Rounds("0.3"), dpcert.Rounds("0.30", figures=2), dpcert.Truncates("0.3")]
    comparisons += [dpcert.AtMost.of("0.3"), dpcert.AtLeast.of(0.25)]
    for i, comparison in enumerate(comparisons):
        claim = dpcert.QuantityClaim(
            f"user.schema.c{i}", "test", "k eps", quantity=q, inputs={"k": 3, "eps": "0.1"}, comparison=comparison
        )
        path = dpcert.write_certificate(claim.check(), tmp_path)
        cert = json.loads(path.read_text(encoding="utf-8"))
        assert not list(CERT.iter_errors(cert)), comparison
        certificate.load_certificate(path)  # and the reader accepts it


def _rehashed(cert: dict) -> dict:
    cert["sha256"] = certificate.content_hash(cert)
    return cert


EDITS = {
    "unknown top-level key": lambda c: c.update(comment="x"),
    "unknown claim key": lambda c: c["claim"].update(note="x"),
    "unknown evidence key": lambda c: c["evidence"].update(note="x"),
    "verdict not a verdict": lambda c: c.update(verdict="MAYBE"),
    "expected not a verdict": lambda c: c["claim"].update(expected="ERROR"),
    "missing statement": lambda c: c["claim"].pop("statement"),
    "bad claim id": lambda c: c["claim"].update(id="../escape"),
    "quantity and function": lambda c: c["claim"].update(function="dpcert.x:y"),
    "precision too large": lambda c: c.update(max_prec_bits=1 << 21),
    "negative seconds": lambda c: c.update(seconds=-1),
    "enclosure end not a number": lambda c: c["evidence"].update(enclosure={"lo": "abc", "hi": "1"}),
    "software not strings": lambda c: c.update(software={"dpcert": 1}),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_schema_refuses_what_the_reader_refuses(edit: str, tmp_path: Path) -> None:
    original = json.loads((ROOT / "verify" / "certificates" / "darrm.table4.mnist.lambda.json").read_text())
    cert = copy.deepcopy(original)
    EDITS[edit](cert)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_rehashed(cert)), encoding="utf-8")
    with pytest.raises(CertificateError):
        certificate.load_certificate(path)
    assert list(CERT.iter_errors(cert)), f"the schema accepts a certificate with {edit}"


MANIFEST_EDITS = {
    "unknown top-level key": {"format": 1, "claims": [{"select": "darrm.table2.*"}], "extra": 1},
    "unknown entry key": {"claims": [{"select": "darrm.table2.*", "expected": "CERTIFIED"}]},
    "format 2": {"format": 2, "claims": [{"select": "darrm.table2.*"}]},
    "select and quantity": {"claims": [{"select": "darrm.table2.*", "quantity": "composition.simple.eps"}]},
    "neither select nor quantity": {"claims": [{"id": "a.b.c"}]},
    "two comparisons": {
        "claims": [
            {
                "id": "a.b.c",
                "reference": "r",
                "quantity": "composition.simple.eps",
                "inputs": {"k": 1, "eps": "1"},
                "rounds_to": "1",
                "at_most": "1",
            }
        ]
    },
    "no comparison": {
        "claims": [{"id": "a.b.c", "reference": "r", "quantity": "composition.simple.eps", "inputs": {"k": 1}}]
    },
    "figures with at_most": {
        "claims": [
            {
                "id": "a.b.c",
                "reference": "r",
                "quantity": "composition.simple.eps",
                "inputs": {"k": 1, "eps": "1"},
                "at_most": "1",
                "figures": 1,
            }
        ]
    },
    "full not a boolean": {"claims": [{"select": "darrm.table2.*", "full": "yes"}]},
    "bad expect": {"claims": [{"select": "darrm.table2.*", "expect": "OK"}]},
    "include not a list": {"include": "darrm.toml", "claims": [{"select": "darrm.table2.*"}]},
    "inputs override without id": {"claims": [{"select": "composition.kov.eps.brnotes_eps1_k1", "inputs": {"k": 2}}]},
    "quantity claim without reference": {
        "claims": [
            {"id": "a.b.c", "quantity": "composition.simple.eps", "inputs": {"k": 1, "eps": "1"}, "at_most": "1"}
        ]
    },
}


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"


def _write_manifest(data: dict, path: Path) -> None:
    lines = [f"{k} = {_toml(v)}" for k, v in data.items() if k != "claims"]
    for entry in data.get("claims", []):
        lines += ["", "[[claims]]", *(f"{k} = {_toml(v)}" for k, v in entry.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("edit", sorted(MANIFEST_EDITS))
def test_manifest_schema_refuses_what_the_loader_refuses(edit: str, tmp_path: Path) -> None:
    data = MANIFEST_EDITS[edit]
    path = tmp_path / "m.toml"
    _write_manifest(data, path)
    assert tomllib.loads(path.read_text(encoding="utf-8")) == data  # the file says what the case says
    with pytest.raises(DpcertError):
        manifest.load_manifest(path)
    assert list(MANIFEST.iter_errors(data)), f"the schema accepts a manifest with {edit}"


def test_a_valid_new_claim_manifest_passes_both(tmp_path: Path) -> None:
    data = {
        "format": 1,
        "description": "one new claim",
        "claims": [
            {
                "id": "mypaper.table1.row3",
                "reference": "My paper, Table 1",
                "quantity": "composition.general.eps",
                "inputs": {"k": 20, "eps": "0.2676", "delta_prime": "0.0001"},
                "rounds_to": "5.352",
                "expect": "CERTIFIED",
            }
        ],
    }
    path = tmp_path / "m.toml"
    _write_manifest(data, path)
    assert len(manifest.load_manifest(path)) == 1
    assert not list(MANIFEST.iter_errors(data))


def test_table_and_vector_certificates_validate_and_a_bad_source_is_refused_by_both(tmp_path) -> None:
    from dpcert.cli import main

    certs = tmp_path / "certs"
    table = ROOT / "verify" / "tables" / "examples" / "darrm_table2.csv"
    assert main(["table", "check", str(table), "--certificates", str(certs), "-q"]) == 0
    paths = sorted(certs.glob("*.json")) + sorted((ROOT / "verify" / "vectors" / "certificates").glob("*.json"))
    for path in paths:
        errors = list(CERT.iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        assert not errors, (path.name, errors[0].message[:300])
    cert = json.loads(paths[0].read_text(encoding="utf-8"))
    for bad in ({"line": 0}, {"sha256": "XYZ"}, {"row": {"k": 3}}, {"extra": 1}):
        forged = copy.deepcopy(cert)
        forged["claim"]["source"].update(bad)
        forged["sha256"] = certificate.content_hash(forged)
        assert list(CERT.iter_errors(forged)), bad
        path = tmp_path / "forged.json"
        path.write_text(json.dumps(forged))
        with pytest.raises(CertificateError, match="claim.source"):
            certificate.load_certificate(path)
