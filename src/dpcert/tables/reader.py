"""Reading a parameter table (CSV, JSON or TOML) into rows of text cells, each with its line number.

Everything is read through :mod:`dpcert.core.files` (bounded, UTF-8, no FIFOs or devices, duplicate JSON keys
refused). Numbers are kept as they are written: a CSV cell is text; a JSON or TOML number is read as its literal
text (``0.030`` stays ``"0.030"``, never the binary double 0.03), so the three formats give the same rows.

A file that cannot be read as a table (unreadable, not CSV/JSON/TOML, no ``quantity``/``value``/``claim``
columns, more than :data:`MAX_ROWS` rows) raises :class:`~dpcert.errors.InvalidParameter`: the command exits 2.
A row whose cells are malformed is still returned, with the problem in :attr:`RawRow.problem`, so that one bad
row never stops the others.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpcert.core import files
from dpcert.errors import InvalidParameter

__all__ = ["RawRow", "read_table", "read_table_hashed", "FORMATS", "MAX_ROWS", "MAX_COLUMNS", "REQUIRED", "OPTIONAL"]

#: The table formats, by file suffix.
FORMATS = {".csv": "csv", ".json": "json", ".toml": "toml"}
#: The most rows a table may have (counted before any row is checked).
MAX_ROWS = 10_000
#: The most columns (cells of a row) a table may have.
MAX_COLUMNS = 64
#: The columns every table has.
REQUIRED = ("quantity", "value", "claim")
#: The optional columns that are not inputs of a quantity.
OPTIONAL = ("figures", "expected", "note")
#: The most characters of one cell.
MAX_CELL = 10_000
#: A cell is text, or (a JSON/TOML list, for a list parameter such as ``eps_list``) a list of texts.
Cell = str | tuple[str, ...]


@dataclass(frozen=True)
class RawRow:
    """One row of a table, as text.

    Attributes:
        line: the line of the file the row starts on (1-based).
        cells: column name -> text (empty cells left out).
        problem: why the row cannot be read (a cell that is neither a number nor a string, a CSV row with too
            many cells); ``""`` when it can.
    """

    line: int
    cells: Mapping[str, Cell] = field(default_factory=dict)
    problem: str = ""


def table_format(path: str | Path) -> str:
    """``"csv"``, ``"json"`` or ``"toml"`` from the file's suffix.

    Raises:
        InvalidParameter: for any other suffix.
    """
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise InvalidParameter("table", str(path), "a table file whose name ends in .csv, .json or .toml")
    return fmt


def read_table(path: str | Path) -> tuple[str, list[RawRow]]:
    """The format and rows of the table file ``path``.

    Raises:
        InvalidParameter: when the file cannot be read as a table (the message names the file and the problem),
            or holds no row.
    """
    fmt, _, rows = read_table_hashed(path)
    return fmt, rows


def read_table_hashed(path: str | Path) -> tuple[str, str, list[RawRow]]:
    """The format, the SHA-256 of the text (UTF-8) and the rows of the table file ``path``, from one reading.

    Raises:
        InvalidParameter: when the file cannot be read as a table (the message names the file and the problem),
            or holds no row.
    """
    fmt = table_format(path)
    text = files.read_text(path, what="table")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    rows = {"csv": _csv_rows, "json": _json_rows, "toml": _toml_rows}[fmt](text, str(path))
    if not rows:  # a header alone, [] or no [[rows]]: nothing would be checked, and "0 rows, exit 0" says all is well
        raise _bad(str(path), "a table with at least one row (it has none)")
    return fmt, digest, rows


def _bad(where: str, problem: str) -> InvalidParameter:
    return InvalidParameter("table", _clip(where, 120), problem)


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------------------------- CSV


def _csv_rows(text: str, where: str) -> list[RawRow]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[RawRow] = []
    last = 0  # the line the previous record ended on: the next one starts after it
    try:
        for record in reader:
            start, last = last + 1, reader.line_num
            cells = [c.strip() for c in record]
            if not any(cells) or cells[0].startswith("#"):  # a blank line or a comment
                continue
            if header is None:
                header = _header(cells, where, start)
                continue
            if len(rows) >= MAX_ROWS:
                raise _bad(where, f"a table of at most {MAX_ROWS} rows")
            if len(cells) != len(header):
                rows.append(RawRow(start, {}, f"{len(cells)} cells, but the header names {len(header)} columns"))
                continue
            rows.append(_row(start, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        raise _bad(where, f"valid CSV ({exc} at line {reader.line_num})") from None
    if header is None:
        raise _bad(where, f"a CSV table: a header line naming the columns {', '.join(REQUIRED)} and the inputs")
    return rows


def _header(cells: list[str], where: str, line: int) -> list[str]:
    if len(cells) > MAX_COLUMNS:
        raise _bad(where, f"at most {MAX_COLUMNS} columns (the header on line {line} has {len(cells)})")
    seen: set[str] = set()
    for c in cells:
        if not c:
            raise _bad(where, f"a header naming every column (line {line} has an empty column name)")
        if c in seen:
            raise _bad(where, f"a header naming each column once (line {line} names {_clip(c)!r} twice)")
        seen.add(c)
    missing = [c for c in REQUIRED if c not in seen]
    if missing:
        raise _bad(where, f"a header with the columns {', '.join(REQUIRED)} (line {line} lacks {', '.join(missing)})")
    return cells


# --------------------------------------------------------------------------------------------- JSON, TOML


class _Number:
    """A JSON or TOML number kept as the text it is written as (``0.030``, ``1e-5``, ``12``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _json_rows(text: str, where: str) -> list[RawRow]:
    # numbers as their literal text: a float is not rounded to binary, an integer past Python's digit limit is a bad
    # cell of one row (refused by the exact parser), not an unreadable file
    data = files.loads_json(text, where=where, what="table", parse_float=_Number, parse_int=_Number)
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        _keys(data, where, "JSON")
        items = data["rows"]
        if not isinstance(items, list):
            raise _bad(where, 'a JSON table {"rows": [...]} whose rows are a list')
    else:
        raise _bad(where, 'a JSON table: {"rows": [{"quantity": ..., "value": ..., "claim": ...}, ...]}')
    _count(items, where)
    lines = _json_element_lines(text, top_list=isinstance(data, list))
    if len(lines) != len(items):  # cannot happen for JSON the parser accepted; never report a wrong line
        raise _bad(where, "a JSON table whose rows can be located (internal: line scan disagrees)")
    return [_structured_row(line, item) for line, item in zip(lines, items, strict=True)]


#: the header of one row of a TOML table (outside strings; a count check catches any header inside one)
_TOML_ROW = re.compile(r"[ \t]*\[\[[ \t]*rows[ \t]*\]\][ \t]*(#.*)?")


def _toml_rows(text: str, where: str) -> list[RawRow]:
    data = files.loads_toml(text, where=where, what="table", parse_float=_Number)
    if "rows" not in data:
        raise _bad(where, "a TOML table with its rows as [[rows]] tables")
    _keys(data, where, "TOML")
    items = data["rows"]
    if not isinstance(items, list):
        raise _bad(where, "a TOML table with its rows as [[rows]] tables")
    _count(items, where)
    lines = [i for i, line in enumerate(text.splitlines(), 1) if _TOML_ROW.fullmatch(line)]
    if len(lines) != len(items):
        raise _bad(where, "a TOML table with each row written as a [[rows]] table (not an inline array)")
    return [_structured_row(line, item) for line, item in zip(lines, items, strict=True)]


def _keys(data: dict[str, Any], where: str, fmt: str) -> None:
    allowed = {"rows", "description", "$schema"} if fmt == "JSON" else {"rows", "description"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise _bad(where, f"a {fmt} table with the keys {', '.join(sorted(allowed))} (not {_clip(str(unknown))})")
    if "rows" not in data:
        raise _bad(where, f"a {fmt} table with a rows list")
    for key in ("description", "$schema"):
        if key in data and not isinstance(data[key], str):
            raise _bad(where, f"a {fmt} table whose {key} is a string")


def _count(items: list[Any], where: str) -> None:
    if len(items) > MAX_ROWS:
        raise _bad(where, f"a table of at most {MAX_ROWS} rows (it has {len(items)})")


def _structured_row(line: int, item: Any) -> RawRow:
    """A JSON object or TOML table as a row of text cells (numbers as their literal text)."""
    if not isinstance(item, dict):
        what = "a list" if isinstance(item, list) else _kind(item)
        return RawRow(line, {}, f"a row must be an object of column: value pairs, not {what}")
    if len(item) > MAX_COLUMNS:
        return RawRow(line, {}, f"at most {MAX_COLUMNS} columns (this row has {len(item)})")
    cells: dict[str, Cell] = {}
    for name, value in item.items():
        cell = _cell(value)
        if cell is None:
            what = "a number, a string or a list of them"
            return RawRow(line, {}, f"column {_clip(name)!r}: {what}, not {_kind(value)}")
        cells[name] = cell
    return _row(line, cells)


def _cell(value: Any) -> Cell | None:
    """A JSON/TOML value as a cell: a string or number as its text, a list of them as a tuple; else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, _Number):
        return value.text
    if isinstance(value, int):  # a TOML integer (JSON numbers are _Number)
        return str(value)
    if isinstance(value, list):
        out = [_cell(v) for v in value]
        if any(not isinstance(v, str) for v in out):
            return None
        return tuple(v for v in out if isinstance(v, str))
    return None  # an object, a TOML date


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list holding other than numbers and strings"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float, _Number)):
        return "a number"
    return type(value).__name__


def _row(line: int, cells: Mapping[str, Cell]) -> RawRow:
    """A row with its empty cells left out, refused when a cell is longer than :data:`MAX_CELL`."""
    kept: dict[str, Cell] = {}
    for name, cell in cells.items():
        size = len(cell) if isinstance(cell, str) else sum(len(c) for c in cell)
        if size > MAX_CELL:
            return RawRow(line, {}, f"column {_clip(name)!r}: at most {MAX_CELL} characters (it has {size})")
        if cell != "" and cell != ():
            kept[name] = cell
    return RawRow(line, kept)


def _json_element_lines(text: str, *, top_list: bool) -> list[int]:
    """The line on which each element of the rows array starts (the top-level array, or the only array directly
    inside the top-level object: ``rows``, the other keys being strings), by a linear scan of valid JSON."""
    lines: list[int] = []
    stack: list[str] = []
    line = 1
    in_string = escaped = False
    expect = False  # the next value starts an element of the rows array
    rows_depth = 1 if top_list else 2
    for ch in text:
        if ch == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch in " \t\r\n":
            continue
        if expect and ch != "]":
            lines.append(line)
        expect = False
        if ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append(ch)
            if ch == "[" and len(stack) == rows_depth and (top_list or stack[0] == "{"):
                expect = True
        elif ch in "]}":
            stack.pop()
        elif ch == "," and len(stack) == rows_depth and stack[-1] == "[":
            expect = True
    return lines
