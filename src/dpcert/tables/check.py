"""Checking a parameter table: each row becomes a claim, and every claim runs on every core.

A row names a quantity (column ``quantity``), its exact inputs (one column per parameter of the quantity), the
value the table prints (``value``) and how it is meant (``claim``):

* ``upper``: the value is an upper bound of the quantity (:class:`~dpcert.core.claim.AtMost`);
* ``lower``: a lower bound (:class:`~dpcert.core.claim.AtLeast`);
* ``digits``: the printed digits of the quantity, rounded at the last printed digit
  (:class:`~dpcert.core.claim.Rounds`); with ``figures = N`` rounded to N significant figures, with
  ``figures = truncated`` truncated instead (:class:`~dpcert.core.claim.Truncates`).

Optional columns: ``expected`` (CERTIFIED, REFUTED for a known erratum, UNDECIDED; default CERTIFIED) and
``note`` (free text, shown and recorded as part of the reference).

A row holds values, never paths, with one exception, :data:`FILE_INPUTS`: ``events`` of ``accounting.*`` may name an
event file, resolved relative to the table file (in its directory or below it) and read by the reader
``dpcert account`` uses (:func:`dpcert.accounting.eventfile.read_events`); the row's claim and its certificate hold
the events as their canonical JSON text, never the path, so re-checking a certificate reads no file. A quantity
whose own parser takes another form of its inputs (``dpsgd.*``: ``epochs``, ``batch_size`` and ``n`` instead of
``q`` and ``steps``) takes that form in a table too. A malformed row (unknown quantity, missing or
unknown input, a value that is not a number, an unknown claim kind) gets the verdict ERROR with its line number;
the other rows run as usual.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from dpcert.arith.ball import MAX_PREC, Enclosure
from dpcert.arith.exact import parse_rational
from dpcert.core.claim import (
    AtLeast,
    AtMost,
    Claim,
    ClaimResult,
    Comparison,
    QuantityClaim,
    Rounds,
    Truncates,
    Verdict,
)
from dpcert.core.parallel import Summary, default_workers, map_chunks
from dpcert.core.quantity import Quantity
from dpcert.errors import CertificateError, DpcertError, InvalidParameter
from dpcert.tables.reader import OPTIONAL, REQUIRED, RawRow, read_table_hashed

__all__ = [
    "CLAIM_KINDS",
    "FILE_INPUTS",
    "TableRowClaim",
    "row_source",
    "row_claim_id",
    "RowClaim",
    "RowResult",
    "TableReport",
    "row_claim",
    "row_claims",
    "check_table",
]

#: How a printed value is meant (the ``claim`` column).
CLAIM_KINDS = ("upper", "lower", "digits")
_KNOWN = set(REQUIRED) | set(OPTIONAL)
#: The inputs a row may give as a file (its path relative to the table file), read once and recorded as content.
FILE_INPUTS = frozenset({"events"})


@dataclass(frozen=True)
class TableRowClaim(QuantityClaim):
    """The claim of one table row, bound to where it was read (see :func:`row_source`).

    Attributes:
        source: ``{"table": file name, "sha256": the table's SHA-256, "line": N, "row": the row's cells}``; the
            certificate records it, and ``dpcert check`` re-derives the claim, its id and its reference from it.
    """

    source: dict[str, Any] | None = None


def row_source(table: str, sha256: str, line: int, cells: Mapping[str, Any]) -> dict[str, Any]:
    """What a row's certificate records of where the row comes from: the table's file name and SHA-256, the row's
    line and its cells as given (a list cell as a list)."""
    row = {k: (list(v) if isinstance(v, (tuple, list)) else v) for k, v in cells.items()}
    return {"table": table, "sha256": sha256, "line": line, "row": row}


def row_claim_id(source: Mapping[str, Any]) -> str:
    """``table.<file name>.line<N>.<32 hex digits>``: the digits are the SHA-256 of the whole source record (the
    file name, the table's SHA-256, the line and the row's cells), so that two rows of different files, or
    different rows claimed for the same line, never share an id (nor a certificate file).

    >>> row_claim_id({"table": "a..b.csv", "sha256": "0" * 64, "line": 2, "row": {}})[:22]
    'table.a_b.line2.a1fdc7'
    """
    digest = hashlib.sha256(
        json.dumps(dict(source), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    ).hexdigest()[:32]
    return f"table.{_stem(Path(str(source['table'])))}.line{source['line']}.{digest}"


@dataclass(frozen=True)
class RowClaim:
    """A row read as a claim, or the reason it cannot be one.

    Attributes:
        line: the row's line in the file.
        cells: the row's cells as given.
        claim: the claim (``None`` for a malformed row).
        problem: why the row is malformed (``""`` otherwise).
    """

    line: int
    cells: dict[str, Any]
    claim: QuantityClaim | None = None
    problem: str = ""


def _stem(path: Path) -> str:
    """The file name as a claim-id segment (letters, digits, ``_``, ``-``)."""
    s = re.sub(r"[^A-Za-z0-9_-]+", "_", path.stem).strip("_")[:80]
    return s or "table"


def _comparison(cells: dict[str, Any]) -> Comparison:
    kind, value, figures = cells.get("claim"), cells.get("value"), cells.get("figures")
    if not isinstance(kind, str) or kind not in CLAIM_KINDS:
        raise InvalidParameter("claim", kind, "one of upper (an upper bound), lower (a lower bound), digits (printed)")
    if not isinstance(value, str):
        raise InvalidParameter("value", value, "the number the table prints (a decimal such as 5.352 or 1.2E-6)")
    if figures is not None and kind != "digits":
        raise InvalidParameter("figures", figures, "no figures with claim = upper or lower (figures go with digits)")
    if kind == "upper":
        return AtMost(parse_rational(value, "value"))
    if kind == "lower":
        return AtLeast(parse_rational(value, "value"))
    if figures == "truncated":
        return Truncates(value)
    if figures is None:
        return Rounds(value)
    if not isinstance(figures, str) or not re.fullmatch(r"[0-9]{1,4}", figures):
        raise InvalidParameter("figures", figures, "a number of significant figures such as 3, or truncated")
    return Rounds(value, int(figures))


def _beside(table: Path, name: str, value: str) -> Path:
    """The file a row names for ``name``, relative to the table file: in the table's directory or below it.

    Raises:
        InvalidParameter: for an absolute path, a ``..`` component, or a path (a symlink) leading out of it.
    """
    what = "a file in the table's directory or below it, named relative to the table file (no absolute path, no ..)"
    rel = Path(value)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise InvalidParameter(name, value, what)
    base = table.resolve().parent
    target = base / rel
    if not target.resolve().is_relative_to(base):
        raise InvalidParameter(name, value, what)
    return target


def _read_files(q: Quantity, inputs: dict[str, Any], table: Path | None) -> dict[str, Any]:
    """``inputs`` with every table-valued input given as a path replaced by its recorded content.

    An input of :data:`FILE_INPUTS` is read beside ``table`` by the parameter's own reader (``None``: a certificate's
    row, which must hold the content); any other path (a γ table) is refused: a row holds values, never paths.
    """
    out = dict(inputs)
    for cell, value in inputs.items():
        p = next((p for p in q.params if p.name == q.aliases.get(cell, cell)), None)
        if p is None or p.table is None or not isinstance(value, str) or value in p.choices:
            continue
        if p.name not in FILE_INPUTS or table is None:
            p.parse(value, files=False)  # refuses the path, naming what the input takes
        out[cell] = p.table(str(_beside(table, cell, value)))
    return out


def row_claim(row: RawRow, source: str | Path, table_sha256: str, *, files: bool = True) -> RowClaim:
    """The claim a row states (id :func:`row_claim_id`), or the row's problem (never raises).

    Args:
        row: the row as read.
        source: the table's path (only its file name is recorded; a file a row names is read beside it).
        table_sha256: the SHA-256 of the table's text (:func:`~dpcert.tables.reader.read_table_hashed`).
        files: whether a file input (:data:`FILE_INPUTS`) may be read; ``False`` for a row recorded in a
            certificate, which holds the file's content.
    """
    from dpcert.engine import registry
    from dpcert.engine.certificate import derived_statement

    cells = dict(row.cells)
    if row.problem:
        return RowClaim(row.line, cells, problem=row.problem)
    try:
        name = cells.get("quantity")
        if not isinstance(name, str):
            raise InvalidParameter("quantity", name, "the name of a quantity (see `dpcert quantities`)")
        q = registry.quantity(name)
        params = [p.name for p in q.params]
        aliases = q.aliases  # the vocabulary's other names of its inputs (dpcert.core.vocabulary)
        # a quantity with its own parser may take another form of its inputs (dpsgd.*: epochs, batch_size, n): its
        # parser names what is unknown or missing
        translates = type(q).parse is not Quantity.parse
        unknown = [c for c in cells if c not in _KNOWN and c not in params and c not in aliases]
        if unknown and not translates:
            what = f"unknown input {unknown[0][:40]!r} of {q.name} (its inputs: {', '.join(params)})"
            return RowClaim(row.line, cells, problem=what)
        given = {c: v for c, v in cells.items() if c not in _KNOWN}
        named = {aliases.get(c, c) for c in given}
        missing = [p for p in q.params if p.default is None and p.name not in named]
        if missing and not translates:
            p = missing[0]
            return RowClaim(row.line, cells, problem=f"missing input {p.name} of {q.name}: {p.allowed()}")
        # tables hold values, never paths, but for a file input read beside the table and recorded as its content
        inputs = _read_files(q, given, Path(source) if files else None)
        q.parse(inputs)
        comparison = _comparison(cells)
        expected = Verdict.parse(cells.get("expected", "CERTIFIED"), "expected")
        note = cells.get("note", "")
        if not isinstance(note, str):
            raise InvalidParameter("note", note, "free text")
        where = Path(source).name
        bound = row_source(where, table_sha256, row.line, {**cells, **inputs})
        reference = f"table {where}, line {row.line}" + (f": {note[:200]}" if note else "")
        draft = QuantityClaim("table.row.draft", reference, "", quantity=q, inputs=inputs, comparison=comparison)
        claim = TableRowClaim(
            row_claim_id(bound),
            reference,
            derived_statement(draft),
            expected=expected,
            quantity=q,
            inputs=inputs,
            comparison=comparison,
            source=bound,
        )
    except DpcertError as exc:
        return RowClaim(row.line, cells, problem=" ".join(str(exc).split()))
    return RowClaim(row.line, cells, claim)


def row_claims(path: str | Path) -> tuple[str, list[RowClaim]]:
    """The format of the table ``path`` and each of its rows as a claim (or its problem).

    Raises:
        InvalidParameter: when the file cannot be read as a table.
    """
    fmt, digest, rows = read_table_hashed(path)
    return fmt, [row_claim(r, path, digest) for r in rows]


@dataclass
class RowResult:
    """The outcome of one row.

    Attributes:
        line, cells: where the row is and what it says.
        result: the claim's result (``None`` for a malformed row).
        problem: why a malformed row could not be checked.
        certificate: the path of its certificate, when one was written.
    """

    line: int
    cells: dict[str, Any]
    result: ClaimResult | None = None
    problem: str = ""
    certificate: str | None = None

    @property
    def verdict(self) -> Verdict:
        return Verdict.ERROR if self.result is None else self.result.verdict

    @property
    def expected(self) -> Verdict:
        if self.result is not None:
            return self.result.expected
        try:
            return Verdict.parse(self.cells.get("expected", "CERTIFIED"))
        except InvalidParameter:
            return Verdict.CERTIFIED

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.ok

    @property
    def enclosure(self) -> Enclosure | None:
        return None if self.result is None else self.result.evidence.enclosure

    @property
    def detail(self) -> str:
        if self.result is None:
            return self.problem
        return self.result.error or self.result.evidence.detail

    @property
    def at_printed_precision(self) -> str | None:
        """For a digits row that is REFUTED: the value written as the table prints it (``9.901``)."""
        r = self.result
        if r is None or r.verdict is not Verdict.REFUTED or r.evidence.enclosure is None:
            return None
        cmp = r.claim.comparison if isinstance(r.claim, QuantityClaim) else None
        if isinstance(cmp, (Rounds, Truncates)):
            return cmp.at_printed_precision(r.evidence.enclosure)
        return None

    def to_json(self) -> dict[str, Any]:
        cells = self.cells
        inputs = {k: (list(v) if isinstance(v, tuple) else v) for k, v in cells.items() if k not in _KNOWN}
        claim: dict[str, Any] = {"kind": cells.get("claim"), "value": cells.get("value")}
        if "figures" in cells:
            claim["figures"] = cells["figures"]
        enc = self.enclosure
        out: dict[str, Any] = {
            "line": self.line,
            "quantity": cells.get("quantity"),
            "inputs": inputs,
            "claim": claim,
            "verdict": self.verdict.value,
            "expected": self.expected.value,
            "ok": self.ok,
            "enclosure": None if enc is None else enc.to_json(20),
            "detail": self.detail,
        }
        if self.at_printed_precision is not None:
            out["at_printed_precision"] = self.at_printed_precision
        if "note" in cells:
            out["note"] = cells["note"]
        if self.result is not None:
            out["id"] = self.result.claim.id
            out["comparison"] = self.result.claim.comparison.describe() if self.result.claim.comparison else None
            out["seconds"] = round(self.result.seconds, 6)
            if self.result.error:
                out["error"] = self.result.error
        if self.certificate is not None:
            out["certificate"] = self.certificate
        return out


@dataclass
class TableReport:
    """The rows of a checked table.

    ``exit_code`` is the one ``dpcert verify`` gives (:class:`~dpcert.engine.verify.VerifyReport`): 0 when every
    row has its expected verdict (CERTIFIED unless the ``expected`` column says otherwise), 1 when a decided verdict
    differs from the expected one, 2 when a row is malformed or failed (ERROR) or is undecided though expected
    decided.
    """

    path: str
    format: str
    rows: list[RowResult]
    seconds: float = 0.0
    workers: int = 1

    @property
    def exit_code(self) -> int:
        if any(r.verdict is Verdict.ERROR or (r.verdict is Verdict.UNDECIDED and not r.ok) for r in self.rows):
            return 2
        if any(not r.ok for r in self.rows):
            return 1
        return 0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.verdict.value] = out.get(r.verdict.value, 0) + 1
        out["as_expected"] = sum(r.ok for r in self.rows)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "format": self.format,
            "exit_code": self.exit_code,
            "counts": self.counts(),
            "seconds": round(self.seconds, 3),
            "workers": self.workers,
            "rows": [r.to_json() for r in self.rows],
        }


# --------------------------------------------------------------------------------------------- running


def _check_one(task: tuple[int, str, dict[str, Any], dict[str, Any], str, int]) -> Summary:
    """Check one row's claim (a pure function of the task, for :func:`~dpcert.core.parallel.map_chunks`).

    The task holds the claim as plain data (quantity name, inputs, comparison record, expected verdict) so that it
    pickles whatever the quantity's functions are; the claim is rebuilt from the registry in the worker. The
    outcome (verdict, evidence, seconds, error) travels back in the summary's ``undecided`` list, the one list
    ``map_chunks`` concatenates in chunk order that this run does not otherwise use (a one-row summary; its
    ``counts`` say which verdict it is).
    """
    from dpcert.core.claim import comparison_from_json
    from dpcert.engine import registry

    index, name, inputs, comparison, expected, max_prec = task
    claim = QuantityClaim(
        "table.row.check",
        "",
        "",
        quantity=registry.quantity(name),
        inputs=inputs,
        comparison=comparison_from_json(comparison),
    )
    result = claim.check(max_prec=max_prec, expected=Verdict(expected))
    out = Summary()
    out.add(result.verdict.value)
    out.undecided.append((index, result.verdict, result.evidence, result.seconds, result.error))
    return out


def check_table(
    path: str | Path,
    *,
    workers: int | None = None,
    max_prec: int = MAX_PREC,
    progress: TextIO | None = None,
    on_result: Callable[[RowResult], None] | None = None,
) -> TableReport:
    """Check every row of the table ``path``: its rows run in ``workers`` processes (default: every core), in
    batches, so that ``progress`` (a stream, e.g. stderr) shows how far the run is. ``on_result`` is
    called for each row in order as its batch finishes (``dpcert table check --certificates`` writes there).

    Raises:
        InvalidParameter: when the file cannot be read as a table, or for ``workers < 1``.
    """
    t0 = time.perf_counter()
    n = default_workers() if workers is None else workers
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameter("workers", workers, "an integer >= 1")
    fmt, claims = row_claims(path)
    results: list[RowResult] = [RowResult(rc.line, rc.cells, problem=rc.problem) for rc in claims]
    tasks = []
    for i, rc in enumerate(claims):
        if rc.claim is not None:
            spec = rc.claim.spec_json()
            assert rc.claim.quantity is not None
            inputs = {k: v for k, v in rc.claim.inputs.items()}
            tasks.append((i, rc.claim.quantity.name, inputs, spec["comparison"], rc.claim.expected.value, max_prec))
    if progress is not None:
        bad = len(claims) - len(tasks)
        progress.write(
            f"dpcert table: {len(claims)} rows in {Path(path).name} ({bad} malformed); "
            f"checking {len(tasks)} on {min(n, max(len(tasks), 1))} worker(s)\n"
        )
        progress.flush()
    done = 0
    # a pool per batch: about 20 progress lines at most, and 4 rows per worker in a batch so that the pool's start
    # (tens of ms) is paid rarely and a slow row leaves its neighbours' workers something to do
    batch = max(4 * n, -(-len(tasks) // 20))
    reported = 0
    for start in range(0, len(tasks), batch):
        part = tasks[start : start + batch]
        summary = map_chunks(_check_one, part, workers=n)
        for index, verdict, evidence, seconds, error in summary.undecided:
            claim = claims[index].claim
            assert claim is not None
            results[index].result = ClaimResult(claim, verdict, evidence, seconds, claim.expected, error, max_prec)
        done += len(part)
        last = part[-1][0]
        if on_result is not None:
            for r in results[reported : last + 1]:
                on_result(r)
            reported = last + 1
        if progress is not None:
            progress.write(f"  [{done}/{len(tasks)}] rows checked, {time.perf_counter() - t0:.1f} s\n")
            progress.flush()
    if on_result is not None:
        for r in results[reported:]:
            on_result(r)
    return TableReport(str(path), fmt, results, time.perf_counter() - t0, n)


def certificate_claim(c: dict[str, Any], path: str | Path) -> tuple[Claim, str]:
    """The claim of the table row a ``table.*`` certificate records in ``claim.source``, derived as ``dpcert table
    check`` derives it (its id from the file name, the table's SHA-256, the line and the row's cells), and the label
    ``dpcert check`` cannot bind: where the row was read (it reads no table).

    Raises:
        CertificateError: when no row is recorded, or the recorded row is not a claim.
    """
    src = c.get("source")
    if not isinstance(src, dict) or not isinstance(src.get("row"), dict):
        raise CertificateError(
            f"{path}: {c['id']} is a table row's id and the certificate records no claim.source (the row it states)"
        )
    cells = {k: (tuple(v) if isinstance(v, list) else v) for k, v in src["row"].items()}
    rc = row_claim(RawRow(src["line"], cells), src["table"], src["sha256"], files=False)
    if rc.claim is None:
        raise CertificateError(f"{path}: the recorded table row is not a claim: {rc.problem}")
    label = (
        f"row read from table {json.dumps(str(src['table'])[:120], ensure_ascii=False)} "
        f"(sha256 {str(src['sha256'])[:16]}…), line {src['line']}"
    )
    return rc.claim, label
