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
from dpcert.arith.exact import Exact
from dpcert.core.claim import (
    Claim,
    ClaimResult,
    FunctionClaim,
    QuantityClaim,
    Verdict,
    check_claim_id,
    comparison_from_json,
)
from dpcert.core.params import validate
from dpcert.engine import registry
from dpcert.errors import CertificateError, DpcertError, InvalidParameter

__all__ = [
    "FORMAT",
    "VERSION",
    "make_certificate",
    "write_certificate",
    "load_certificate",
    "recheck",
    "RecheckReport",
    "certificate_path",
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
    enc = result.evidence.enclosure
    if enc is not None and isinstance(result.claim, QuantityClaim) and result.claim.comparison is not None:
        # enough digits that the recorded (outward-rounded) enclosure decides the comparison by itself
        want = {Verdict.CERTIFIED: True, Verdict.REFUTED: False}.get(result.verdict)
        digits = 20
        while want is not None and digits < 5000:
            if result.claim.comparison.decide(Enclosure.from_json(enc.to_json(digits))) is want:
                break
            digits *= 2
        record["evidence"]["enclosure"] = enc.to_json(digits)
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


def certificate_path(directory: str | Path, claim_id: str) -> Path:
    """``<directory>/<claim id>.json``, refusing any id that could name a file outside ``directory``.

    Raises:
        InvalidParameter: for an id outside the claim-id grammar (a path separator, ``..``, an absolute path).
    """
    d = Path(directory)
    path = d / f"{check_claim_id(claim_id)}.json"
    if path.resolve().parent != d.resolve():  # belt and braces: the grammar already forbids separators
        raise InvalidParameter("id", claim_id, f"a claim id whose certificate stays inside {d}")
    return path


def write_certificate(result: ClaimResult, directory: str | Path) -> Path:
    """Write ``<directory>/<claim id>.json`` (never outside ``directory``) and return its path.

    Raises:
        InvalidParameter: for a claim id that is not a safe file name.
        CertificateError: when the directory cannot be created or the file cannot be written.
    """
    d = Path(directory)
    path = certificate_path(d, result.claim.id)
    if d.exists() and not d.is_dir():
        raise CertificateError(f"cannot write the certificate: {d} exists and is not a directory")
    try:
        d.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(make_certificate(result), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CertificateError(f"cannot write the certificate {path}: {exc.strerror or exc}") from None
    return path


def load_certificate(path: str | Path) -> dict[str, Any]:
    """Read a certificate and verify its format, its hash and its shape.

    Raises:
        CertificateError: unreadable, not a dpcert certificate, unknown version, hash mismatch or malformed.
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
    _check_shape(cert, p)
    return cert


def _check_shape(cert: dict[str, Any], p: Path) -> None:
    """Every key recheck reads is present with the right JSON type (a rehashed, edited file can lack any)."""
    claim, evidence = cert.get("claim"), cert.get("evidence")
    problems = []
    if not isinstance(claim, dict):
        problems.append("claim is not an object")
    else:
        for key in ("id", "reference", "statement", "expected"):
            if not isinstance(claim.get(key), str):
                problems.append(f"claim.{key} is missing or not a string")
        if ("quantity" in claim) == ("function" in claim):
            problems.append("the claim must name exactly one of a quantity or a check function")
        if "quantity" in claim and not isinstance(claim.get("comparison"), dict):
            problems.append("claim.comparison is missing")
        if not isinstance(claim.get("inputs", {}), dict):
            problems.append("claim.inputs is not an object")
    if cert.get("verdict") not in [v.value for v in Verdict]:
        problems.append(f"verdict {cert.get('verdict')!r} is not a verdict")
    if not isinstance(evidence, dict):
        problems.append("evidence is not an object")
    else:
        enc = evidence.get("enclosure")
        if enc is not None:
            try:
                Enclosure.from_json(enc)
            except (TypeError, KeyError, ValueError, ZeroDivisionError, AttributeError):
                problems.append(f"evidence.enclosure {enc!r} is not an enclosure with numeric ends")
    if problems:
        raise CertificateError(f"{p}: malformed certificate: {'; '.join(problems)}")


def _inputs_from_json(inputs: dict[str, Any]) -> dict[str, Any]:
    """Recorded quantity inputs as exact values; each ``given`` must parse to its ``exact``.

    Strings are choice parameters (a name such as ``gamma=sub``); the quantity's parameters validate them when the
    claim is rebuilt, exactly as they validate every other input.
    """

    def one(name: str, v: Any) -> Any:
        if isinstance(v, list):
            return [one(name, x) for x in v]
        if isinstance(v, dict):
            return Exact.from_json(v, f"inputs.{name}")
        if (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, str):
            return v
        raise InvalidParameter(
            f"inputs.{name}", v, "an integer, a choice (string) or an exact-number record {given, type, exact}"
        )

    return {k: one(k, v) for k, v in inputs.items()}


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


def _rebuild(cert: dict[str, Any], path: str | Path) -> Claim:
    c = cert["claim"]
    fields = {
        "id": c["id"],
        "reference": c["reference"],
        "statement": c["statement"],
        "expected": Verdict(c["expected"]),
        "erratum": c.get("erratum", ""),
    }
    try:
        if "quantity" in c:
            quantity = registry.quantity(c["quantity"])
            inputs = _inputs_from_json(c.get("inputs", {}))
            # refused here, not run as an ERROR; a table must be recorded as its values (check reads no file)
            validate(quantity.params, inputs, where=f" of {quantity.name}", files=False)
            return QuantityClaim(
                **fields,
                quantity=quantity,
                inputs=inputs,
                comparison=comparison_from_json(c["comparison"]),
            )
        return FunctionClaim.from_spec(c, **fields)
    except (DpcertError, ValueError, TypeError) as exc:
        raise CertificateError(f"{path}: cannot rebuild the claim: {exc}") from None


def recheck(path: str | Path) -> RecheckReport:
    """Accept a certificate only when every statement in it is true and consistent.

    A hash anyone can recompute guards against accidents only, so the content is checked, not trusted:

    * every ``given`` parses to its ``exact`` (inputs and comparison bounds);
    * the claim is rebuilt from the certificate alone and re-run now; its verdict must be the recorded one;
    * the recorded enclosure must contain the fresh one (for quantity claims computed at least a thousand times
      narrower), so the recorded enclosure is rigorous;
    * the recorded enclosure by itself must decide the comparison the way the recorded verdict says;
    * the detail shown is the fresh run's, never the certificate's text.

    Raises:
        CertificateError: for an unreadable, tampered-with or malformed certificate.
    """
    cert = load_certificate(path)
    claim = _rebuild(cert, path)
    recorded_verdict = cert["verdict"]
    old_json = cert["evidence"].get("enclosure")
    old = None if old_json is None else Enclosure.from_json(old_json)
    result = claim.check()
    problems: list[str] = []
    if result.verdict.value != recorded_verdict:
        problems.append(f"verdict now {result.verdict.value}, recorded {recorded_verdict}")
    fresh = result.evidence.enclosure
    if isinstance(claim, QuantityClaim) and old is not None and result.verdict.value in ("CERTIFIED", "REFUTED"):
        fresh = _narrower(claim, old, fresh)
    agree = True
    if old is not None:
        if fresh is None or not _contains(old, fresh):
            agree = False
            problems.append(
                f"the recorded enclosure {old.short(12)} does not contain the fresh one "
                f"{'none' if fresh is None else fresh.short(12)}"
            )
        if isinstance(claim, QuantityClaim) and claim.comparison is not None:
            decided = claim.comparison.decide(old)
            said = {"CERTIFIED": True, "REFUTED": False}.get(recorded_verdict)
            if decided is not said:
                as_verdict = {True: "CERTIFIED", False: "REFUTED", None: "UNDECIDED"}[decided]
                problems.append(
                    f"the recorded enclosure decides '{claim.comparison.describe()}' as {as_verdict}, "
                    f"recorded {recorded_verdict}"
                )
    elif isinstance(claim, QuantityClaim) and recorded_verdict in ("CERTIFIED", "REFUTED"):
        problems.append("a decided quantity claim records no enclosure")
    ok = not problems
    detail = "verdict and enclosure reproduced: " + result.evidence.detail if ok else "; ".join(problems)
    return RecheckReport(str(path), claim.id, recorded_verdict, result.verdict.value, agree, ok, detail)


def _contains(outer: Enclosure, inner: Enclosure) -> bool:
    lo_ok = outer.lo is None or (inner.lo is not None and outer.lo <= inner.lo)
    hi_ok = outer.hi is None or (inner.hi is not None and inner.hi <= outer.hi)
    return lo_ok and hi_ok


def _narrower(claim: QuantityClaim, old: Enclosure, fresh: Enclosure | None) -> Enclosure | None:
    """A fresh enclosure of the claim's quantity at least 1000 times narrower than ``old`` (exact stays exact)."""
    assert claim.quantity is not None
    if old.width is None or old.width == 0 or old.lo is None or old.hi is None:
        return fresh
    mag = max(abs(old.lo), abs(old.hi))
    rel = float(old.width / mag) / 1000 if mag else 1e-30
    try:
        return claim.quantity.enclose(claim.inputs, rel_tol=max(rel, 1e-60))
    except DpcertError:
        return fresh
