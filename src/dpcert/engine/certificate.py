"""Certificates: versioned JSON records of a checked claim that anyone can archive and re-check.

A certificate holds the claim (id, reference, statement, quantity, inputs exactly as given, comparison, expected
verdict), the verdict with its evidence (enclosure as outward-rounded decimal strings, method, precision), the
software versions, and a SHA-256 over the canonical JSON of everything else. ``dpcert check CERT.json``
verifies the hash, rebuilds the claim from the certificate alone where it can (quantity claims) or from the
registry (other claims), re-runs it and compares verdicts and enclosures.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import flint

from dpcert._version import __version__
from dpcert.arith.ball import Enclosure
from dpcert.core.claim import ClaimResult, FunctionClaim, QuantityClaim, Verdict, comparison_from_json
from dpcert.engine import registry
from dpcert.errors import CertificateError, DpcertError

__all__ = [
    "FORMAT",
    "VERSION",
    "make_certificate",
    "write_certificate",
    "load_certificate",
    "recheck",
    "RecheckReport",
]

FORMAT = "dpcert-certificate"
VERSION = 1


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def content_hash(cert: dict[str, Any]) -> str:
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return hashlib.sha256(_canonical(body)).hexdigest()


def make_certificate(result: ClaimResult) -> dict[str, Any]:
    """The certificate of one result (a plain dict, ready for ``json.dump``)."""
    record = result.to_json()
    claim = {k: record[k] for k in ("id", "reference", "statement") if k in record}
    for k in ("quantity", "function", "inputs", "comparison"):
        if k in record:
            claim[k] = record[k]
    claim["expected"] = record["expected"]
    if result.claim.erratum:
        claim["erratum"] = result.claim.erratum
    cert: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "claim": claim,
        "verdict": record["verdict"],
        "evidence": record["evidence"],
        "seconds": record["seconds"],
        "software": {
            "dpcert": __version__,
            "python-flint": flint.__version__,
            "python": platform.python_version(),
        },
        "created": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
    }
    if result.error:
        cert["error"] = result.error
    cert["sha256"] = content_hash(cert)
    return cert


def write_certificate(result: ClaimResult, directory: str | Path) -> Path:
    """Write ``<directory>/<claim id>.json`` and return its path."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{result.claim.id}.json"
    path.write_text(json.dumps(make_certificate(result), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load_certificate(path: str | Path) -> dict[str, Any]:
    """Read a certificate and verify its format and hash.

    Raises:
        CertificateError: unreadable, not a dpcert certificate, unknown version, or hash mismatch.
    """
    p = Path(path)
    try:
        cert = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CertificateError(f"{p}: not a readable JSON certificate ({exc})") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise CertificateError(f"{p}: not a dpcert certificate (format field missing or wrong)")
    if cert.get("version") != VERSION:
        raise CertificateError(f"{p}: certificate version {cert.get('version')!r} is not supported")
    if cert.get("sha256") != content_hash(cert):
        raise CertificateError(f"{p}: content hash mismatch: the certificate was modified after it was made")
    return cert


def _inputs_from_json(inputs: dict[str, Any]) -> dict[str, Any]:
    def one(v: Any) -> Any:
        if isinstance(v, list):
            return [one(x) for x in v]
        if isinstance(v, dict):
            return v["exact"]  # the exact rational as a fraction string
        return v

    return {k: one(v) for k, v in inputs.items()}


@dataclass
class RecheckReport:
    path: str
    claim_id: str
    recorded: str
    now: str
    enclosures_agree: bool
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def recheck(path: str | Path) -> RecheckReport:
    """Re-run the claim a certificate records and compare.

    ``ok`` is true when the hash verifies, the verdict is the recorded one and the new enclosure intersects the
    recorded one (two rigorous enclosures of one number must intersect).
    """
    cert = load_certificate(path)
    c = cert["claim"]
    try:
        if "quantity" in c:
            claim = QuantityClaim(
                c["id"],
                c.get("reference", ""),
                c.get("statement", ""),
                expected=Verdict(c.get("expected", "CERTIFIED")),
                erratum=c.get("erratum", ""),
                quantity=registry.quantity(c["quantity"]),
                inputs=_inputs_from_json(c.get("inputs", {})),
                comparison=comparison_from_json(c["comparison"]),
            )
        elif "function" in c:
            claim = FunctionClaim.from_spec(
                c,
                id=c["id"],
                reference=c.get("reference", ""),
                statement=c.get("statement", ""),
                expected=Verdict(c.get("expected", "CERTIFIED")),
                erratum=c.get("erratum", ""),
            )
        else:
            raise CertificateError(f"{path}: the claim names neither a quantity nor a check function")
    except (DpcertError, KeyError) as exc:
        raise CertificateError(f"{path}: cannot rebuild the claim ({exc})") from None
    result = claim.check()
    old_enc, new_enc = cert["evidence"].get("enclosure"), result.evidence.enclosure
    agree = True
    if old_enc is not None and new_enc is not None:
        agree = Enclosure.from_json(old_enc).overlaps(new_enc)
    ok = result.verdict.value == cert["verdict"] and agree
    detail = (
        "verdict and enclosure reproduced"
        if ok
        else (
            f"verdict now {result.verdict.value}, recorded {cert['verdict']}"
            if result.verdict.value != cert["verdict"]
            else "the new enclosure does not intersect the recorded one"
        )
    )
    return RecheckReport(str(path), claim.id, cert["verdict"], result.verdict.value, agree, ok, detail)
