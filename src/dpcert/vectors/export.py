"""Certify golden vectors: each case's enclosure, its claim "quantity(inputs) lies in [lo, hi]", its certificate.

The enclosure is the quantity's rigorous enclosure at a relative width of 1e-22 (or its exact value), written with
:data:`~dpcert.vectors.format.DIGITS` significant digits rounded outward; the claim that the value lies in those
decimal ends is then checked like every claim (it must be CERTIFIED) and its certificate made with
:func:`dpcert.engine.certificate.make_certificate`. Re-certifying (:mod:`dpcert.vectors.check`) recomputes the
same enclosure with the same function, so a vector re-runs to the same strings.

A bracket quantity's case states a relative ``width`` (:attr:`~dpcert.vectors.cases.Case.width`): its enclosure is
the first of the ball path's grids (:meth:`~dpcert.core.quantity.Quantity.enclose` at rising precision, each
precision one grid resolution, a fixed sequence) at most that wide, so a re-run at the same width gives the same
ends; the vector records the width.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from dpcert._version import __version__
from dpcert.arith.ball import MAX_PREC
from dpcert.core.claim import QuantityClaim, Verdict, Within
from dpcert.errors import CertificateError, DpcertError, InvalidParameter, PrecisionExhausted
from dpcert.vectors.cases import CASES, TOPICS, Case
from dpcert.vectors.format import CSV_COLUMNS, DIGITS, FORMAT, VERSION, Vector

__all__ = ["enclosure_strings", "vector_claim", "certify", "export", "render", "claim_id"]

#: relative width the enclosure is computed to before it is rounded outward to DIGITS digits
_REL_TOL = 1e-22
_DESCRIPTION = (
    "dpcert golden vectors: lo <= quantity(inputs) <= hi, certified (lo rounded down, hi rounded up). "
    "Inputs are exact as written ('0.1' is 1/10). Schema: schema.json (JSON Schema Draft 2020-12)."
)


def claim_id(vector_id: str) -> str:
    """The claim id of a vector's certificate: ``vectors.<vector id>``."""
    return f"vectors.{vector_id}"


#: the precision a bracket quantity is tried at: enough for its closed forms, little lattice work elsewhere
BRACKET_MAX_PREC = 256


def _no_paths(q: Any, inputs: Mapping[str, Any]) -> None:
    """Refuse a table-valued input given as a path (a vector is data: its inputs never make dpcert read a file)."""
    for name, value in inputs.items():
        p = next((p for p in q.params if p.name == q.aliases.get(name, name)), None)
        if p is not None and p.table is not None and isinstance(value, str) and value not in p.choices:
            p.parse(value, files=False)


def enclose(q: Any, inputs: Mapping[str, Any], rel_tol: float, max_prec: int = MAX_PREC, width: str = "") -> Any:
    """``q.enclose(inputs, rel_tol=...)``; a bracket quantity at its case's stated ``width`` (a relative width), or
    without one only where it has a closed form (both tried at :data:`BRACKET_MAX_PREC` bits: its lattice narrows
    like 1/N and never reaches a vector's digits).

    Raises:
        InvalidParameter: for a bracket quantity outside its closed-form region (no ``width``) or whose ball path's
            grids do not reach ``width``; a ``width`` for a quantity that is not a bracket; a table-valued input
            given as a path.
        PrecisionExhausted: when ``max_prec`` bits do not reach ``rel_tol``.
    """
    _no_paths(q, inputs)
    if width and not q.bracket:
        raise InvalidParameter("width", width, f"no width: {q.name} is not a bracket quantity")
    if not q.bracket:
        return q.enclose(dict(inputs), rel_tol=rel_tol, max_prec=max_prec)
    tol = float(width) if width else rel_tol
    try:
        return q.enclose(dict(inputs), rel_tol=tol, max_prec=min(max_prec, BRACKET_MAX_PREC))
    except PrecisionExhausted:
        shown = " ".join(f"{k}={v}" for k, v in inputs.items())
        if width:
            raise InvalidParameter(
                "width", width, f"a relative width the ball path's grids of {q.name} reach at {shown}"
            ) from None
        raise InvalidParameter(
            "inputs", shown, f"inputs where the bracket quantity {q.name} has a closed form (see its reference)"
        ) from None


def enclosure_strings(
    quantity: str, inputs: Mapping[str, str], *, max_prec: int = MAX_PREC, width: str = ""
) -> tuple[str, str, bool]:
    """``(lo, hi, exact)``: the certified enclosure of a quantity at exact inputs, as outward-rounded decimals (a
    bracket quantity's at the relative ``width`` its case states).

    Raises:
        InvalidParameter: for an unknown quantity, bad inputs, or a bracket quantity outside its closed form
            (a lattice bracket cannot reach the accuracy a vector records).
        PrecisionExhausted: when ``max_prec`` bits do not reach a relative width of 1e-22.
    """
    from dpcert.engine import registry

    q = registry.quantity(quantity)
    enc = enclose(q, inputs, _REL_TOL, max_prec, width)
    if enc.lo is None or enc.hi is None:
        raise InvalidParameter("inputs", " ".join(f"{k}={v}" for k, v in inputs.items()), "inputs with a finite value")
    lo, hi = enc.decimal(DIGITS)
    return lo, hi, enc.is_exact


def vector_claim(quantity: str, inputs: Mapping[str, str], lo: str, hi: str, vector_id: str, why: str) -> QuantityClaim:
    """The claim a vector's certificate states: ``quantity(inputs) lies in [lo, hi]``."""
    from dpcert.engine import registry
    from dpcert.engine.certificate import derived_statement

    q = registry.quantity(quantity)
    draft = QuantityClaim(claim_id(vector_id), "", "", quantity=q, inputs=dict(inputs), comparison=Within(lo, hi))
    return QuantityClaim(
        claim_id(vector_id),
        f"dpcert golden vector {vector_id} ({why})",
        derived_statement(draft),
        quantity=q,
        inputs=dict(inputs),
        comparison=Within(lo, hi),
    )


def certify(case: Case, *, max_prec: int = MAX_PREC) -> tuple[Vector, dict[str, Any]]:
    """The vector of one case and its certificate (a dict, as written to a file).

    Raises:
        DpcertError: when the case cannot be certified (bad inputs, precision exhausted, a claim not CERTIFIED).
    """
    from dpcert.engine.certificate import certificate_path, make_certificate

    lo, hi, exact = enclosure_strings(case.quantity, case.inputs, max_prec=max_prec, width=case.width)
    claim = vector_claim(case.quantity, case.inputs, lo, hi, case.id, case.why)
    result = claim.check(max_prec=max_prec)
    if result.verdict is not Verdict.CERTIFIED:
        raise CertificateError(f"{case.id}: {result.verdict.value}: {result.error or result.evidence.detail}")
    cert = make_certificate(result)
    name = certificate_path(".", claim.id).name
    vector = Vector(
        case.id,
        case.topic,
        case.quantity,
        dict(case.inputs),
        lo,
        hi,
        exact,
        case.why,
        f"certificates/{name}",
        cert["sha256"],
        __version__,
        width=case.width,
    )
    return vector, cert


def select(topics: Iterable[str] = (), cases: Iterable[Case] = CASES) -> list[Case]:
    """The cases of the given topics (all when none).

    Raises:
        InvalidParameter: for an unknown topic.
    """
    chosen = list(topics)
    for t in chosen:
        if t not in TOPICS:
            raise InvalidParameter("--topic", t, f"one of {', '.join(TOPICS)}")
    return [c for c in cases if not chosen or c.topic in chosen]


def render(vectors: list[Vector], fmt: str = "json") -> str:
    """The text of a vectors file: JSON (the format of :mod:`dpcert.vectors.format`) or CSV."""
    if fmt == "json":
        doc = {
            "format": FORMAT,
            "version": VERSION,
            "dpcert": __version__,
            "digits": DIGITS,
            "description": _DESCRIPTION,
            "vectors": [v.to_json() for v in vectors],
        }
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
        w.writeheader()
        for v in vectors:
            w.writerow(v.to_row())
        return buf.getvalue()
    raise InvalidParameter("--format", fmt, "json or csv")


def _writable(out: str | Path | None, certificates: str | Path | None) -> None:
    """Refuse, before any work, an output file or certificate directory dpcert must not write
    (:func:`~dpcert.core.files.check_output`: a device, FIFO, socket, symlink, read-only or missing directory).

    Raises:
        InvalidParameter: naming ``--out`` or ``--certificates``, the path and what it is.
    """
    from dpcert.core.files import check_output

    if out is not None:
        check_output(out, option="--out")
    if certificates is not None:
        check_output(certificates, option="--certificates", directory=True)


def export(
    topics: Iterable[str] = (),
    *,
    fmt: str = "json",
    out: str | Path | None = None,
    certificates: str | Path | None = None,
    max_prec: int = MAX_PREC,
    cases: Iterable[Case] = CASES,
    progress: Callable[[str], None] | None = None,
) -> tuple[str, list[Vector], float]:
    """Certify the cases of ``topics`` and write them.

    Args:
        topics: the families to export (all when empty).
        fmt: ``"json"`` or ``"csv"``.
        out: the file to write (atomically); ``None``: only return the text.
        certificates: a directory for one certificate per vector (``<dir>/vectors.<id>.json``); by default
            ``certificates/`` in the directory ``out`` names (none written when ``out`` is ``None``).
        progress: called with a line for each case slower than a second.

    Returns:
        ``(text, vectors, seconds)``.

    Raises:
        InvalidParameter: for an unknown topic or format, or a path dpcert must not write (a device, a FIFO, a
            symlink, a read-only directory; checked before any work).
        DpcertError: when a case cannot be certified.
    """
    from dpcert.core.files import atomic_write_text

    if fmt not in ("json", "csv"):
        raise InvalidParameter("--format", fmt, "json or csv")
    chosen = select(topics, cases)
    if certificates is None and out is not None:
        certificates = Path(out).parent / "certificates"  # where the user pointed, never a symlink's target
    _writable(out, certificates)  # before the work, not after it
    t0 = time.perf_counter()
    vectors: list[Vector] = []
    certs: list[dict[str, Any]] = []
    for i, case in enumerate(chosen, 1):
        t = time.perf_counter()
        try:
            v, cert = certify(case, max_prec=max_prec)
        except CertificateError:
            raise
        except DpcertError as exc:
            raise CertificateError(f"vector {case.id}: {exc}") from None
        vectors.append(v)
        certs.append(cert)
        if progress is not None and time.perf_counter() - t > 1.0:
            progress(f"  [{i}/{len(chosen)}] {case.id}: {time.perf_counter() - t:.1f} s")
    text = render(vectors, fmt)
    try:
        if certificates is not None:
            d = Path(certificates)
            d.mkdir(exist_ok=True)
            for v, cert in zip(vectors, certs, strict=True):
                atomic_write_text(
                    d / Path(v.certificate_file).name,
                    json.dumps(cert, indent=2, ensure_ascii=False) + "\n",
                    what="--certificates",
                )
        if out is not None:
            atomic_write_text(out, text, what="--out")
    except OSError as exc:
        where = getattr(exc, "filename", None) or out
        raise InvalidParameter("--out", str(where), f"a file that can be written ({exc.strerror or exc})") from None
    return text, vectors, time.perf_counter() - t0


def certificate_claim(c: dict[str, Any], path: str | Path) -> tuple[QuantityClaim, str]:
    """The claim of the bundled golden-vector case a ``vectors.*`` certificate names, with its recorded ends (every
    part of it is bound: there is no label).

    Raises:
        CertificateError: for an id that names no case of this dpcert, or a comparison that is not an interval.
    """
    from dpcert.core.claim import comparison_from_json

    case = next((k for k in CASES if claim_id(k.id) == c["id"]), None)
    if case is None:
        raise CertificateError(f"{path}: {c['id']} names no golden vector of dpcert {__version__}")
    try:
        cmp = comparison_from_json(c.get("comparison"))
        if not isinstance(cmp, Within):
            raise InvalidParameter("comparison", str(c.get("comparison"))[:60], "an interval [lo, hi]")
        return vector_claim(case.quantity, case.inputs, cmp.lo, cmp.hi, case.id, case.why), ""
    except (DpcertError, ValueError, TypeError) as exc:
        raise CertificateError(f"{path}: cannot rebuild the golden vector's claim: {exc}") from None
