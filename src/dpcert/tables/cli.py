"""``dpcert table …``: certify every row of a parameter table, or print an empty one.

``dpcert table check FILE [--certificates DIR] [--workers N] [--max-prec BITS] [--quiet] [--json]`` checks each row
(CSV, JSON or TOML; format in ``docs/tables.md``) and prints one line per row: CERTIFIED / REFUTED / UNDECIDED, or
ERROR with the row's line number for a malformed row, the enclosure beside the claim and, for a REFUTED ``digits``
row, the value as the table should have printed it. Exit codes are those of ``dpcert verify``: 0 when every row has
its expected verdict, 1 when a decided verdict differs, 2 for a malformed row, an unexpected UNDECIDED or a file
that is not a table.

``dpcert table template QUANTITY [--format csv|json|toml]`` prints the columns of a table of QUANTITY.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_commands", "MAX_WORKERS"]

#: Most worker processes ``--workers`` starts.
MAX_WORKERS = 256


def _shown_inputs(cells: dict[str, Any]) -> str:
    from dpcert.tables.check import _KNOWN

    parts = []
    for k, v in cells.items():
        if k not in _KNOWN:
            text = " ".join((",".join(v) if isinstance(v, tuple) else str(v)).split())  # a cell may hold a newline
            parts.append(f"{k}={text if len(text) <= 24 else text[:23] + '…'}")
    return " ".join(parts)


def _shown_claim(cells: dict[str, Any]) -> str:
    kind, value = " ".join(str(cells.get("claim", "?")).split()), " ".join(str(cells.get("value", "?")).split())[:30]
    if kind == "upper":
        return f"<= {value}"
    if kind == "lower":
        return f">= {value}"
    if kind == "digits":
        fig = cells.get("figures")
        how = " (truncated)" if fig == "truncated" else f" ({fig} fig.)" if fig else ""
        return f"digits {value}{how}"
    return f"{str(kind)[:20]} {value}"


def _cmd_check(a: argparse.Namespace) -> int:
    from dpcert.cli_support import print_json, table
    from dpcert.engine.certificate import write_certificate
    from dpcert.tables.check import check_table

    written: list[str] = []

    def keep(row: Any) -> None:  # each certificate as its batch finishes: an interrupted run keeps them
        if row.result is not None:
            row.certificate = str(write_certificate(row.result, a.certificates, option="--certificates"))
            written.append(row.certificate)

    progress = None if a.quiet else sys.stderr
    try:
        report = check_table(
            a.file,
            workers=a.workers,
            max_prec=a.max_prec,
            progress=progress,
            on_result=keep if a.certificates else None,
        )
    finally:
        if a.certificates and not a.quiet:
            sys.stderr.write(f"dpcert table: wrote {len(written)} certificate(s) into {a.certificates}\n")
    if a.json:
        print_json(report.to_json())
        return report.exit_code
    rows = []
    for r in report.rows:
        enc = r.enclosure
        shown = "" if enc is None else enc.short(10)
        if r.at_printed_precision is not None:
            shown += f"  (prints as {r.at_printed_precision})"
        rows.append(
            [
                str(r.line),
                " ".join(str(r.cells.get("quantity", "")).split())[:40],
                _shown_inputs(r.cells),
                _shown_claim(r.cells),
                r.verdict.value,
                "ok" if r.ok else f"UNEXPECTED (expected {r.expected.value})",
                shown,
            ]
        )
    print(table(rows, ["line", "quantity", "inputs", "claim", "verdict", "", "enclosure"]))
    c = report.counts()
    summary = ", ".join(f"{c.get(v, 0)} {v}" for v in ("CERTIFIED", "REFUTED", "UNDECIDED", "ERROR") if c.get(v))
    print(
        f"\n{len(report.rows)} rows: {summary or 'none'}; {c['as_expected']}/{len(report.rows)} as expected; "
        f"{report.seconds:.1f} s on {report.workers} worker(s)"
    )
    for r in report.rows:
        if not r.ok:
            print(f"  line {r.line}: {r.verdict.value} (expected {r.expected.value}): {r.detail}")
    return report.exit_code


def _cmd_template(a: argparse.Namespace) -> int:
    from dpcert.tables.template import template

    sys.stdout.write(template(a.quantity, a.format))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert table check`` and ``dpcert table template`` on the top-level subparsers."""
    from dpcert.arith.ball import MAX_PREC
    from dpcert.cli_support import int_option, max_prec_option, output_option

    p = sub.add_parser("table", help="certify every row of a parameter table (CSV, JSON or TOML)")
    inner = p.add_subparsers(dest="table_command", parser_class=type(p))

    c = inner.add_parser(
        "check",
        help="check each row: quantity, inputs, value and claim (upper, lower or digits)",
        description="Check each row of a table: CERTIFIED / REFUTED / UNDECIDED, or ERROR with its line number. "
        "Exit 0 when every row has its expected verdict, 1 when a decided verdict differs, 2 for a malformed row "
        "or a file that is not a table.",
    )
    c.add_argument("file", metavar="FILE", help="the table: a .csv, .json or .toml file")
    c.add_argument(
        "--certificates",
        metavar="DIR",
        type=output_option("--certificates", directory=True),
        help="write one certificate per row into DIR",
    )
    c.add_argument(
        "--workers",
        type=int_option("--workers", 1, MAX_WORKERS),
        default=None,
        help="processes to check rows in (default: every core)",
    )
    c.add_argument("--max-prec", type=max_prec_option(), default=MAX_PREC, help="maximum ball precision in bits")
    c.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    c.add_argument("--json", action="store_true", help="machine-readable output: one object with a list of rows")
    c.set_defaults(fn=_cmd_check)

    t = inner.add_parser("template", help="print an empty table with the columns of a quantity")
    t.add_argument("quantity")
    t.add_argument("--format", choices=("csv", "json", "toml"), default="csv", help="the table's format (csv)")
    t.set_defaults(fn=_cmd_template)
