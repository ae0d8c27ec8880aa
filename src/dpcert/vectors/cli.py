"""``dpcert vectors export`` (certify and write golden vectors) and ``dpcert vectors check`` (re-certify a file)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_commands"]


def _cmd_export(a: argparse.Namespace) -> int:
    from dpcert.cli_support import print_json
    from dpcert.errors import InvalidParameter
    from dpcert.vectors.export import export

    fmt = a.format or "json"
    a.out = None if a.out == "-" else a.out  # standard output, as without --out
    if a.json and a.out is None and fmt != "json":
        raise InvalidParameter("--json", "--format csv", "--json without --out writes JSON vectors (drop one of them)")
    progress = None if a.quiet else (lambda line: sys.stderr.write(line + "\n"))
    text, vectors, seconds = export(
        a.topic, fmt=fmt, out=a.out, certificates=a.certificates, max_prec=a.max_prec, progress=progress
    )
    if a.out is None:
        sys.stdout.write(text)
        return 0
    summary = {
        "vectors": len(vectors),
        "out": str(a.out),
        "format": fmt,
        "certificates": str(a.certificates or Path(a.out).parent / "certificates"),
        "seconds": round(seconds, 3),
        "topics": sorted({v.topic for v in vectors}),
    }
    if a.json:
        print_json(summary)
    else:
        print(
            f"wrote {len(vectors)} vectors ({', '.join(summary['topics'])}) to {a.out} and one certificate each "
            f"into {summary['certificates']} in {seconds:.1f} s"
        )
    return 0


def _cmd_check(a: argparse.Namespace) -> int:
    from dpcert.cli_support import print_json, table
    from dpcert.vectors.check import check
    from dpcert.vectors.format import bundled_path

    report = check(a.file, max_prec=a.max_prec, progress=None if a.quiet else sys.stderr)
    if a.json:
        out = report.to_json()
        out["file"] = str(a.file or bundled_path())
        print_json(out)
        return report.exit_code
    rows = [
        [r.claim.id.removeprefix("vectors."), r.verdict.value, "ok" if r.ok else "FAILED", f"{r.seconds:.3f}"]
        for r in report.results
    ]
    print(table(rows, ["vector", "verdict", "", "s"]))
    bad = [r for r in report.results if not r.ok]
    n = len(report.results)
    print(
        f"\n{n} vectors of {a.file or bundled_path()}: {n - len(bad)} re-certified, {len(bad)} failed; "
        f"{report.seconds:.1f} s"
    )
    for r in bad:
        print(f"  {r.claim.id}: {r.verdict.value}: {r.error or r.evidence.detail}")
    return report.exit_code


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert vectors export`` and ``dpcert vectors check`` on the top-level subparsers."""
    from dpcert.arith.ball import MAX_PREC
    from dpcert.cli_support import max_prec_option, output_option, path_option
    from dpcert.vectors.cases import TOPICS

    p = sub.add_parser("vectors", help="golden vectors: certified enclosures to test other implementations against")
    inner = p.add_subparsers(dest="vectors_command", parser_class=type(p))
    e = inner.add_parser(
        "export",
        help="certify and write the golden vectors (JSON or CSV)",
        description="Certify the golden vectors (every quantity family, edge cases on purpose) and write them: "
        "inputs exactly as given, the certified enclosure [lo, hi] rounded outward, the certificate hash. Format: "
        "see docs/vectors.md and the JSON Schema `python -c 'import dpcert.vectors as v; print(v.schema_path())'`.",
    )
    e.add_argument(
        "--topic", action="append", default=[], choices=TOPICS, help="only this family (repeatable; default: all)"
    )
    e.add_argument("--format", choices=("json", "csv"), default=None, help="output format (default json)")
    e.add_argument(
        "--out",
        metavar="FILE",
        type=output_option("--out", stream=True),
        help="write to FILE (atomically; - for stdout)",
    )
    e.add_argument(
        "--certificates",
        metavar="DIR",
        type=output_option("--certificates", directory=True),
        help="write one certificate per vector into DIR (default with --out: certificates/ next to FILE)",
    )
    e.add_argument("--max-prec", type=max_prec_option(), default=MAX_PREC, help="maximum ball precision in bits")
    e.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    e.add_argument("--json", action="store_true", help="with --out: a JSON summary; without: JSON vectors")
    e.set_defaults(fn=_cmd_export)
    c = inner.add_parser(
        "check",
        help="re-certify a vectors file (default: the bundled one), as `dpcert verify --full` does",
    )
    c.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        type=path_option("FILE"),
        help="a vectors JSON file (default: the bundled vectors)",
    )
    c.add_argument("--max-prec", type=max_prec_option(), default=MAX_PREC, help="maximum ball precision in bits")
    c.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(fn=_cmd_check)
    p.set_defaults(fn=lambda a: (p.print_help(), 2)[1])
