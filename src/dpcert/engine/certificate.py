"""Certificates: versioned JSON records of a checked claim that anyone can archive and re-check.

A certificate holds the claim (id, reference, statement, quantity or check function, inputs exactly as given,
comparison, expected verdict, erratum), the verdict with its evidence (enclosure as outward-rounded decimal strings,
method, precision), the maximum precision the check was allowed, the software versions, and a SHA-256 over the
canonical JSON of everything else. ``dpcert check CERT.json`` trusts none of it (the hash anyone can recompute):
a registered claim's certificate must state exactly the registry's claim, anything else is rebuilt from the
certificate alone with the command line's validation, re-run, and every verdict and evidence field compared; what a
reader is shown is bound to what was checked, or printed apart as a label that is not verified.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
import platform
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import flint

from dpcert._version import __version__
from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure
from dpcert.arith.exact import Exact, parse_int, parse_rational
from dpcert.core.claim import (
    EXECUTION_SETTINGS,
    Claim,
    ClaimResult,
    FunctionClaim,
    QuantityClaim,
    Verdict,
    check_claim_id,
    comparison_from_json,
    input_validator,
)
from dpcert.core.files import atomic_write_text, check_output, load_json
from dpcert.core.params import validate
from dpcert.engine import registry
from dpcert.errors import CertificateError, DpcertError, InvalidParameter

__all__ = [
    "FORMAT",
    "VERSION",
    "MAX_PREC_LIMIT",
    "make_certificate",
    "write_certificate",
    "load_certificate",
    "recheck",
    "RecheckReport",
    "certificate_path",
    "claim_record",
    "derived_statement",
    "default_claim_id",
    "derived_claim_id",
    "content_hash",
]

FORMAT = "dpcert-certificate"
VERSION = 1
#: the largest ``max_prec_bits`` a certificate may record: the command line's ``--max-prec`` limit
MAX_PREC_LIMIT = 1 << 20
#: the most significant digits written for an enclosure end (what :class:`Enclosure` reads back)
_MAX_ENCLOSURE_DIGITS = 4000

_TOP_KEYS = {
    "format",
    "version",
    "claim",
    "verdict",
    "evidence",
    "seconds",
    "software",
    "created",
    "error",
    "max_prec_bits",
    "sha256",
}
_CLAIM_KEYS = {
    "id",
    "reference",
    "statement",
    "quantity",
    "function",
    "inputs",
    "comparison",
    "expected",
    "erratum",
    "source",
}
_EVIDENCE_KEYS = {"enclosure", "method", "precision_bits", "detail", "worst_case", "counts", "extra"}
_EXPECTED = ("CERTIFIED", "REFUTED", "UNDECIDED")


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def content_hash(cert: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of everything but ``sha256`` (guards against accidents, not forgery)."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return hashlib.sha256(_canonical(body)).hexdigest()


def _as_json(obj: Any) -> Any:
    """``obj`` as it reads back from a JSON file (tuples become lists)."""
    return json.loads(json.dumps(obj, ensure_ascii=False))


def same_json(a: Any, b: Any) -> bool:
    """``a == b`` for JSON values with their types compared too: ``true`` is not ``1``, ``11.0`` is not ``11``.

    Python's ``==`` across JSON types would let an edited certificate pass (``True == 1``, ``11.0 == 11``).

    >>> same_json({"K": 11}, {"K": 11}), same_json({"K": 11}, {"K": 11.0}), same_json(1, True)
    (True, False, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


_ABSENT = object()


def _differ(want: dict[str, Any], have: dict[str, Any]) -> list[str]:
    """The keys on which two JSON objects differ, types compared (:func:`same_json`)."""
    return sorted(k for k in set(want) | set(have) if not same_json(want.get(k, _ABSENT), have.get(k, _ABSENT)))


def _shown(value: Any) -> str:
    """One recorded input as a reader sees it: the number as given, a choice, a list; long values cut."""
    if isinstance(value, dict) and set(value) == {"given", "type", "exact"}:
        text = str(value["given"])
    elif isinstance(value, list):
        text = "[" + ", ".join(_shown(v) for v in value) + "]"
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


def derived_statement(claim: Claim) -> str:
    """What a claim that is not registered states, derived from what is checked (never stored free text).

    ``composition.simple.eps(k=3, eps=0.1) <= 0.3`` for a quantity claim; ``<function> holds at (<inputs>)`` for a
    claim checked by a function.
    """
    spec = _as_json(claim.spec_json())
    inputs = ", ".join(f"{k}={_shown(v)}" for k, v in spec.get("inputs", {}).items())
    if isinstance(claim, QuantityClaim):
        assert claim.comparison is not None
        return f"{spec['quantity']}({inputs}) {claim.comparison.describe()}"
    return f"{spec['function']} holds at ({inputs})"


def default_claim_id(claim_spec: dict[str, Any], prefix: str) -> str:
    """``user.<prefix>.<12 hex digits>``: an id derived from what a claim checks, so that two different claims
    never share a certificate file name (and the same claim keeps its name)."""
    digest = hashlib.sha256(_canonical(_as_json(claim_spec))).hexdigest()[:12]
    return check_claim_id(f"user.{prefix}.{digest}")


def claim_record(claim: Claim, expected: Verdict | None = None) -> dict[str, Any]:
    """The ``claim`` object of a certificate: id, reference, statement, what is checked, expected, erratum.

    A claim that is not registered states :func:`derived_statement`, not its own text.
    """
    registered = registry.claims().get(claim.id)
    record: dict[str, Any] = {
        "id": claim.id,
        "reference": claim.reference,
        "statement": claim.statement if registered is not None else derived_statement(claim),
    }
    record.update(_as_json(claim.spec_json()))
    record["expected"] = (claim.expected if expected is None else expected).value
    if claim.erratum:
        record["erratum"] = claim.erratum
    source = getattr(claim, "source", None)  # a table row's claim: where the row was read
    if source is not None:
        record["source"] = _as_json(source)
    return record


def _enclosure_json(result: ClaimResult) -> dict[str, str] | None:
    """The enclosure as a certificate writes it: for a decided quantity claim, with enough digits that the
    recorded (outward-rounded) enclosure decides the comparison by itself."""
    enc = result.evidence.enclosure
    if enc is None:
        return None
    if not isinstance(result.claim, QuantityClaim) or result.claim.comparison is None:
        return enc.to_json()
    want = {Verdict.CERTIFIED: True, Verdict.REFUTED: False}.get(result.verdict)
    digits = 20
    while want is not None and digits < _MAX_ENCLOSURE_DIGITS:
        if result.claim.comparison.decide(Enclosure.from_json(enc.to_json(digits))) is want:
            break
        digits = min(2 * digits, _MAX_ENCLOSURE_DIGITS)
    return enc.to_json(digits)


def make_certificate(result: ClaimResult) -> dict[str, Any]:
    """The certificate of one result (a plain dict, ready for ``json.dump``)."""
    record = result.to_json()
    claim = claim_record(result.claim, result.expected)
    record["evidence"]["enclosure"] = _enclosure_json(result)
    cert: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "claim": claim,
        "verdict": record["verdict"],
        "evidence": _as_json(record["evidence"]),
        "max_prec_bits": result.max_prec,
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
    # belt and braces: the grammar already forbids separators (a link planted at the name is replaced, not followed)
    if Path(os.path.normpath(path)).parent != Path(os.path.normpath(d)):
        raise InvalidParameter("id", claim_id, f"a claim id whose certificate stays inside {d}")
    return path


def write_certificate(result: ClaimResult, directory: str | Path, *, option: str = "directory") -> Path:
    """Write ``<directory>/<claim id>.json`` atomically (never outside ``directory``) and return its path.

    ``directory`` is an existing writable directory or a new one in one (only that last component is created);
    an empty path, a symlink, a device, a FIFO or a read-only directory is refused
    (:func:`~dpcert.core.files.check_output`). The file is written to a temporary file in ``directory`` and
    renamed over the target: a reader, a killed run or a full disk leaves the old certificate or the new one,
    never a part; a hard link planted at the name is replaced, never written through, and anything there that is
    not a regular file (a symlink, a device) is refused, never replaced.

    Args:
        option: the option ``directory`` was given as, named in an error (``"--certificates"``).

    Raises:
        InvalidParameter: for a claim id that is not a safe file name, or a directory or file name refused as above.
        CertificateError: when the directory cannot be created or the file cannot be written.
    """
    check_output(directory, option=option, directory=True)
    d = Path(directory)
    path = certificate_path(d, result.claim.id)
    text = json.dumps(make_certificate(result), indent=2, ensure_ascii=False) + "\n"
    try:
        d.mkdir(exist_ok=True)
        atomic_write_text(path, text, what=option)
    except OSError as exc:
        raise CertificateError(f"cannot write the certificate {path}: {exc.strerror or exc}") from None
    return path


def load_certificate(path: str | Path) -> dict[str, Any]:
    """Read a certificate (bounded, strict JSON, one reading) and verify its format, its hash and its shape.

    Raises:
        CertificateError: unreadable (not a regular file, too large, not UTF-8, duplicate keys, ...), not a dpcert
            certificate, unknown version, hash mismatch or malformed.
    """
    p = Path(path)
    try:
        cert = load_json(p, what="certificate")
    except InvalidParameter as exc:
        raise CertificateError(f"{p}: not a readable JSON certificate ({exc})") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise CertificateError(f"{p}: not a dpcert certificate (format field missing or wrong)")
    if not same_json(cert.get("version"), VERSION):
        raise CertificateError(f"{p}: certificate version {str(cert.get('version'))[:20]!r} is not supported")
    if cert.get("sha256") != content_hash(cert):
        raise CertificateError(f"{p}: content hash mismatch: the certificate was modified after it was made")
    _check_shape(cert, p)
    return cert


def _check_shape(cert: dict[str, Any], p: Path) -> None:
    """Every key is known and has the right JSON type (a rehashed, edited file can lack or add any)."""
    claim, evidence = cert.get("claim"), cert.get("evidence")
    problems = []
    unknown = set(cert) - _TOP_KEYS
    if unknown:
        problems.append(f"unknown key(s) {sorted(unknown)[:5]}")
    if not isinstance(claim, dict):
        problems.append("claim is not an object")
    else:
        unknown = set(claim) - _CLAIM_KEYS
        if unknown:
            problems.append(f"unknown claim key(s) {sorted(unknown)[:5]}")
        for key in ("id", "reference", "statement", "expected"):
            if not isinstance(claim.get(key), str):
                problems.append(f"claim.{key} is missing or not a string")
        if isinstance(claim.get("id"), str):
            try:
                check_claim_id(claim["id"])
            except InvalidParameter:
                problems.append(f"claim.id {claim['id'][:60]!r} is not a claim id <paper>.<theorem>.<name>")
        if claim.get("expected") not in _EXPECTED:
            problems.append(f"claim.expected {str(claim.get('expected'))[:20]!r} is not one of {', '.join(_EXPECTED)}")
        if not isinstance(claim.get("erratum", ""), str):
            problems.append("claim.erratum is not a string")
        if ("quantity" in claim) == ("function" in claim):
            problems.append("the claim must name exactly one of a quantity or a check function")
        if "quantity" in claim and not isinstance(claim.get("comparison"), dict):
            problems.append("claim.comparison is missing")
        if "function" in claim and "comparison" in claim:
            problems.append("a function claim has no comparison")
        if not isinstance(claim.get("inputs", {}), dict):
            problems.append("claim.inputs is not an object")
        if "source" in claim:
            problems += _source_problems(claim["source"])
    if cert.get("verdict") not in [v.value for v in Verdict]:
        problems.append(f"verdict {str(cert.get('verdict'))[:20]!r} is not a verdict")
    mp = cert.get("max_prec_bits", MAX_PREC)
    if isinstance(mp, bool) or not isinstance(mp, int) or not START_PREC <= mp <= MAX_PREC_LIMIT:
        problems.append(f"max_prec_bits {str(mp)[:20]} is not an integer in [{START_PREC}, {MAX_PREC_LIMIT}]")
    sec = cert.get("seconds")
    if isinstance(sec, bool) or not isinstance(sec, (int, float)) or not math.isfinite(sec) or sec < 0:
        problems.append("seconds is not a number >= 0")
    sw = cert.get("software")
    if not isinstance(sw, dict) or not all(isinstance(v, str) for v in sw.values()):
        problems.append("software is not an object of version strings")
    if not isinstance(cert.get("created"), str):
        problems.append("created is not a string")
    if not isinstance(cert.get("error", ""), str):
        problems.append("error is not a string")
    if not isinstance(evidence, dict):
        problems.append("evidence is not an object")
    else:
        unknown = set(evidence) - _EVIDENCE_KEYS
        if unknown:
            problems.append(f"unknown evidence key(s) {sorted(unknown)[:5]}")
        if not isinstance(evidence.get("method"), str) or not isinstance(evidence.get("detail"), str):
            problems.append("evidence.method and evidence.detail must be strings")
        pb = evidence.get("precision_bits")
        if isinstance(pb, bool) or not isinstance(pb, int) or not 0 <= pb <= MAX_PREC_LIMIT:
            problems.append("evidence.precision_bits is not a precision")
        enc = evidence.get("enclosure")
        if enc is not None:
            try:
                Enclosure.from_json(enc)
            except (TypeError, KeyError, ValueError, ZeroDivisionError, AttributeError) as exc:
                problems.append(f"evidence.enclosure is not an enclosure with numeric ends ({str(exc)[:120]})")
    if problems:
        raise CertificateError(f"{p}: malformed certificate: {'; '.join(problems)}")


def _source_problems(source: Any) -> list[str]:
    """How ``claim.source`` (a table row's origin) is malformed: ``[]`` when it is well formed."""
    if not isinstance(source, dict) or set(source) != {"table", "sha256", "line", "row"}:
        return ["claim.source is not an object of table, sha256, line and row"]
    problems = []
    if not isinstance(source["table"], str) or not 0 < len(source["table"]) <= 1000:
        problems.append("claim.source.table is not a file name")
    if not isinstance(source["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", source["sha256"]):
        problems.append("claim.source.sha256 is not 64 hex digits")
    line = source["line"]
    if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= 10**9:
        problems.append("claim.source.line is not a line number")
    row = source["row"]
    cell_ok = lambda v: isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))  # noqa: E731
    if not isinstance(row, dict) or not all(cell_ok(v) for v in row.values()):
        problems.append("claim.source.row is not an object of text cells")
    return problems


def _inputs_from_json(inputs: dict[str, Any]) -> dict[str, Any]:
    """Recorded quantity inputs for the quantity's own parameters; each exact record's ``given`` must parse to
    its ``exact``.

    An exact-number record ``{given, type, exact}`` becomes an :class:`Exact` (lists element by element); anything
    else (an integer, a choice such as ``gamma=sub``, a recorded table) is handed as it is to the quantity's
    parameters, which validate it when the claim is rebuilt exactly as they validate every other input.
    """

    def one(name: str, v: Any) -> Any:
        if isinstance(v, list):
            return [one(name, x) for x in v]
        if isinstance(v, dict) and set(v) == {"given", "type", "exact"}:
            return Exact.from_json(v, f"inputs.{name}")
        return v

    return {k: one(k, v) for k, v in inputs.items()}


#: bounds on a function claim's inputs read from a file, before its validator runs
_MAX_INPUT_ITEMS = 100_000
_MAX_INPUT_TEXT = 10_000


def _screen_function_inputs(inputs: dict[str, Any]) -> None:
    """Bounded parsing of a function claim's recorded inputs: no execution setting, numbers within the exact
    parser's limits, strings and lists of bounded size.

    Raises:
        InvalidParameter: for the first input outside these bounds.
    """
    count = 0

    def one(name: str, v: Any) -> None:
        nonlocal count
        count += 1
        if count > _MAX_INPUT_ITEMS:
            raise InvalidParameter("inputs", "…", f"at most {_MAX_INPUT_ITEMS} values in all")
        if isinstance(v, list):
            for x in v:
                one(name, x)
        elif isinstance(v, bool) or v is None:
            return
        elif isinstance(v, int):
            parse_int(v, f"inputs.{name}")
        elif isinstance(v, str):
            if len(v) > _MAX_INPUT_TEXT:
                raise InvalidParameter(f"inputs.{name}", v[:40] + "…", f"at most {_MAX_INPUT_TEXT} characters")
            if v[:1].isdigit() or v[:1] in "+-.":
                parse_rational(v, f"inputs.{name}")  # a number: within the exact parser's digit limits
        else:
            raise InvalidParameter(f"inputs.{name}", str(v)[:40], "an int, a string or a list of them")

    for k, v in inputs.items():
        if k in EXECUTION_SETTINGS:
            raise InvalidParameter(f"inputs.{k}", v, "no execution setting (a certificate cannot choose how to run)")
        one(k, v)


@dataclass
class RecheckReport:
    """The outcome of re-checking one certificate; what a reader is shown comes from here, not from the file.

    Attributes:
        claim_id: the registered id, a table row's or golden vector's id re-derived from what it records, or for any
            other claim the id derived from what is checked (:func:`derived_claim_id`).
        statement, expected: the registry's claim for a registered id, else derived from what was checked (a
            table row's expected verdict is its row's; another claim's is part of its label).
        label: what the certificate says that the check cannot bind (a free-text reference, an id chosen by hand,
            the table a row was read from), shown apart as not verified; ``""`` when everything shown is bound.
        enclosure: the recorded enclosure, checked to contain the fresh one ("" when none).
        seconds: how long the re-check took.
        slow: a registered claim that only ``dpcert verify --full`` runs.
    """

    path: str
    claim_id: str
    recorded: str
    now: str
    enclosures_agree: bool
    ok: bool
    detail: str
    expected: str = ""
    statement: str = ""
    enclosure: str = ""
    seconds: float = 0.0
    slow: bool = False
    label: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def line(self) -> str:
        """The line ``dpcert check`` prints: OK or MISMATCH, the id re-derived from what was checked, the detail,
        the file, and apart from them, marked so, what the certificate says that the check could not bind."""
        unbound = f"  (label, not verified: {self.label})" if self.label else ""
        return f"{'OK' if self.ok else 'MISMATCH'}  {self.claim_id}: {self.detail}  ({self.path}){unbound}"


# A reserved claim kind's rebuild: (claim record, path) -> (claim, label), the claim the certificate must state,
# re-derived from what it records, and the text it records that cannot be bound ("" when none).
ClaimKind = Callable[[dict[str, Any], "str | Path"], "tuple[Claim, str]"]

#: The id prefixes of claim kinds whose certificates only their own package can rebuild (``recheck``'s ``kinds``).
_RESERVED = ("table.", "vectors.")


def _rebuild(
    cert: dict[str, Any], path: str | Path, kinds: Mapping[str, ClaimKind] | None = None
) -> tuple[Claim, list[str], str, str]:
    """The claim a certificate is about, how its record differs from what that claim states, the id a reader is
    shown and the label it cannot bind (``""`` when everything it shows is bound).

    A registered id is the registry's claim: its record must be exactly the registry's (statement, reference,
    what is checked, expected, erratum); the inputs in the file never reach a check. A certificate of a reserved
    kind (``table.*``: a table row; ``vectors.*``: a golden vector) is rebuilt by that kind's function in ``kinds``
    (they join from above: :mod:`dpcert.tables` and :mod:`dpcert.vectors` know their rows and cases, the engine
    does not), which returns the claim and the label it cannot bind; without it the certificate is refused. Any
    other claim is rebuilt from the certificate with the command line's validation and must state
    :func:`derived_statement`; its id is shown as derived from what is checked (:func:`default_claim_id`), and its
    own id, reference, expected verdict and erratum are a label.
    """
    c = cert["claim"]
    registered = registry.claims().get(c["id"])
    if registered is not None:
        want = claim_record(registered)
        differ = _differ(want, c)
        if differ:
            problems = [f"{c['id']} is a registered claim and the certificate's {', '.join(differ)} differ"]
            return registered, problems, c["id"], ""
        return registered, [], c["id"], ""
    kind = next((k for k in _RESERVED if c["id"].startswith(k)), None)
    if kind is not None:
        rebuild = (kinds or {}).get(kind)
        if rebuild is None:  # never judged as a user claim: its id and source would then be unbound text
            raise CertificateError(
                f"{path}: {c['id']} is a {kind}* certificate, re-checked only with that kind's rebuild "
                "(dpcert.recheck or `dpcert check`)"
            )
        claim, label = rebuild(c, path)
        return claim, _claim_differs(claim, c), claim.id, label
    if "source" in c:
        raise CertificateError(f"{path}: claim.source belongs to a table row's certificate (an id table.…)")
    fields = {
        "id": c["id"],
        "reference": c["reference"],
        "statement": c["statement"],
        "expected": Verdict.parse(c["expected"]),
        "erratum": c.get("erratum", ""),
    }
    try:
        if "quantity" in c:
            if not isinstance(c["quantity"], str):
                raise InvalidParameter("quantity", str(c["quantity"])[:40], "a quantity name")
            quantity = registry.quantity(c["quantity"])
            inputs = _inputs_from_json(c.get("inputs", {}))
            # refused here, not run as an ERROR; a table must be recorded as its values (check reads no file)
            validate(quantity.params, inputs, where=f" of {quantity.name}", files=False, aliases=quantity.aliases)
            claim = QuantityClaim(
                **fields,
                quantity=quantity,
                inputs=inputs,
                comparison=comparison_from_json(c["comparison"]),
            )
        else:
            inputs = c.get("inputs", {})
            _screen_function_inputs(inputs)
            claim = FunctionClaim.from_spec(c, **fields)
            assert isinstance(claim, FunctionClaim) and claim.fn is not None
            check = input_validator(claim.fn)
            if check is None:
                raise InvalidParameter(
                    "function",
                    c["function"],
                    "a check that validates its inputs (this one re-checks only as the registered claims that use it)",
                )
            check(**claim.inputs)
    except (DpcertError, ValueError, TypeError) as exc:
        raise CertificateError(f"{path}: cannot rebuild the claim: {exc}") from None
    shown = derived_claim_id(claim)
    label = []
    if c["id"] != shown:
        label.append(f"id {_quoted(c['id'])}")
    label.append(f"reference {_quoted(c['reference'])}")
    if c["expected"] != cert["verdict"]:
        label.append(f"expected {c['expected']}")
    if c.get("erratum"):
        label.append(f"erratum {_quoted(c['erratum'])}")
    return claim, _claim_differs(claim, c), shown, "; ".join(label)


def _quoted(text: str, limit: int = 120) -> str:
    """Free text from a file as one quoted line (control characters escaped, long text cut)."""
    return json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)


def _claim_differs(claim: Claim, c: dict[str, Any]) -> list[str]:
    """How the certificate's claim record ``c`` differs from what ``claim`` states (``[]`` when it does not)."""
    want = claim_record(claim)
    differ = _differ(want, c)
    if differ:
        return [f"the certificate's {', '.join(differ)} differ from what its content states ({want['statement']})"]
    return []


def derived_claim_id(claim: Claim) -> str:
    """The id ``dpcert check`` shows for a claim that is neither registered, a table row nor a golden vector:
    ``user.<quantity>.<12 hex digits>`` for a quantity claim, ``user.<paper>.certify.<12 hex digits>`` for a claim
    checked by a function of ``dpcert.<paper>`` (the ids ``dpcert claim`` and ``dpcert darrm certify`` give by
    default; :func:`default_claim_id`), derived from what is checked."""
    spec = claim.spec_json()
    if "quantity" in spec:
        prefix = str(spec["quantity"])
    else:
        module = str(spec.get("function", "")).split(":")[0].split(".")
        prefix = f"{module[1] if len(module) > 1 and module[0] == 'dpcert' else 'function'}.certify"
    prefix = re.sub(r"[^A-Za-z0-9_-]+", ".", prefix).strip(".")[:80] or "claim"
    return default_claim_id(spec, prefix)


def recheck(path: str | Path, *, kinds: Mapping[str, ClaimKind] | None = None) -> RecheckReport:
    """Accept a certificate only when every statement in it is true and consistent.

    A hash anyone can recompute guards against accidents only, so the content is checked, not trusted:

    * the file is read once, bounded and strictly (duplicate keys refused); every ``given`` parses to its ``exact``;
    * a registered claim's certificate states exactly the registry's claim (id, statement, reference, inputs,
      comparison, expected, erratum) and the registry's claim is re-run; a table row's claim is re-derived from the
      row it records and a golden vector's must be the bundled case of its id; any other claim is rebuilt from the
      certificate with the command line's validation and states what its content says (:func:`derived_statement`);
    * the report's id is bound (registered, or re-derived from what the certificate records and checks); what cannot
      be bound (a free-text reference, a hand-chosen id, the table a row was read from) is the report's ``label``,
      which ``dpcert check`` prints apart, marked as not verified;
    * the claim is re-run with the recorded maximum precision; the verdict, the evidence's method, precision,
      detail, worst case, counts and extra facts, and the error if any, must be the recorded ones;
    * the recorded enclosure must contain the fresh one (for decided quantity claims computed at least a thousand
      times narrower), so the recorded enclosure is rigorous, and must by itself decide the comparison as the
      recorded verdict says.

    Raises:
        CertificateError: for an unreadable, tampered-with or malformed certificate.
    """
    cert = load_certificate(path)
    claim, problems, shown_id, label = _rebuild(cert, path, kinds)
    registered = registry.claims().get(cert["claim"]["id"])
    expected = cert["claim"]["expected"] if registered is None else registered.expected.value
    statement = claim.statement if registered is not None else derived_statement(claim)
    recorded_verdict = cert["verdict"]
    old_json = cert["evidence"].get("enclosure")
    old = None if old_json is None else Enclosure.from_json(old_json)
    base = dict(
        expected=expected,
        statement=statement,
        enclosure="" if old is None else old.short(10),
        slow=registered is not None and registered.slow,
        label=label,
    )
    if problems:  # what the file states is not the claim: nothing from it is run
        return RecheckReport(str(path), shown_id, recorded_verdict, "", False, False, "; ".join(problems), **base)
    max_prec = cert.get("max_prec_bits", MAX_PREC)
    result = claim.check(max_prec=max_prec)
    if result.verdict.value != recorded_verdict:
        problems.append(f"verdict now {result.verdict.value}, recorded {recorded_verdict}")
    fresh_json = _as_json(result.evidence.to_json())
    fresh_json["enclosure"] = _enclosure_json(result)
    for key in ("enclosure", "method", "precision_bits", "detail", "worst_case", "counts", "extra"):
        if not same_json(cert["evidence"].get(key, _ABSENT), fresh_json.get(key, _ABSENT)):
            problems.append(f"evidence.{key} is not the re-check's")
    if not same_json(cert.get("error"), result.error):
        problems.append("the recorded error is not the re-check's")
    fresh = result.evidence.enclosure
    if isinstance(claim, QuantityClaim) and old is not None and result.verdict.value in ("CERTIFIED", "REFUTED"):
        fresh = _narrower(claim, old, fresh, max_prec)
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
    elif result.evidence.enclosure is not None:
        agree = False
        problems.append("the certificate records no enclosure; the re-check has one")
    ok = not problems
    detail = "verdict and evidence reproduced: " + result.evidence.detail if ok else "; ".join(problems)
    base["seconds"] = round(result.seconds, 6)
    return RecheckReport(str(path), shown_id, recorded_verdict, result.verdict.value, agree, ok, detail, **base)


def _contains(outer: Enclosure, inner: Enclosure) -> bool:
    lo_ok = outer.lo is None or (inner.lo is not None and outer.lo <= inner.lo)
    hi_ok = outer.hi is None or (inner.hi is not None and inner.hi <= outer.hi)
    return lo_ok and hi_ok


def _narrower(claim: QuantityClaim, old: Enclosure, fresh: Enclosure | None, max_prec: int) -> Enclosure | None:
    """A fresh enclosure of the claim's quantity at least 1000 times narrower than ``old`` (exact stays exact).

    No floor on the accuracy asked (a claim decided at 512 bits records an enclosure narrower than 1e-60): the
    precision is bounded by ``max_prec``, and when that does not reach it the fresh run's own enclosure is used.
    """
    assert claim.quantity is not None
    if old.width is None or old.width == 0 or old.lo is None or old.hi is None:
        return fresh
    try:
        return claim.quantity.enclose(claim.inputs, rel_tol=0.0, abs_tol=old.width / 1000, max_prec=max_prec)
    except DpcertError:
        return fresh
