"""``dpcert audit``: the peers' numbers placed against dpcert's certified enclosures.

``dpcert audit [--peer NAME]... [--vectors FILE] [--call-seconds S] [--json | --markdown] [--quiet]``.
Exit 0 when the audit ran, whatever it found (a finding is the peer's, not a failure of the run); 2 on bad input
and when no selected peer is installed (nothing could be audited: one line says how to install them). The findings
are in the output.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_commands"]


def _cmd_audit(a: argparse.Namespace) -> int:
    from dpcert._version import __version__
    from dpcert.audit.cases import CASES, cases_from_vectors
    from dpcert.audit.report import render_markdown, render_text
    from dpcert.audit.run import run_audit
    from dpcert.cli_support import print_json

    cases = CASES
    if a.vectors:
        from dpcert.core.files import load_json

        cases = cases_from_vectors(load_json(a.vectors, what="vectors"), where=a.vectors)
    report = run_audit(a.peer or None, cases, progress=None if a.quiet else sys.stderr, call_seconds=a.call_seconds)
    if a.json:
        print_json({"dpcert": __version__, **report.to_json()})
    elif a.markdown:
        sys.stdout.write(render_markdown(report, __version__))
    else:
        print(render_text(report))
    if report.nothing_audited():
        sys.stderr.write(f"dpcert audit: {report.nothing_audited()}\n")
        return 2
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert audit`` on the top-level subparsers."""
    from dpcert.audit import CALL_SECONDS  # nothing of the audit itself: --help stays cheap
    from dpcert.cli_support import real_option

    p = sub.add_parser(
        "audit",
        help="run peer accountants (dp-accounting, prv-accountant, autodp, OpenDP, ...) against certified values",
        description="Place each peer's answer against dpcert's certified enclosure of the same quantity: inside, "
        "unsafe (below: less privacy loss than the truth), loose or wrong (above), with the relative distance "
        "and the peer's time. Exit 0 when it ran; findings are in the output. Exit 2 when no selected peer is "
        'installed (pip install "dpcert[peers]").',
    )
    p.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="NAME",
        help="only this peer (repeatable): dp-accounting, prv-accountant, autodp, opendp, tensorflow-privacy, opacus",
    )
    p.add_argument(
        "--vectors",
        metavar="FILE",
        help="run the cases of a golden-vector file (dpcert vectors export) instead of the audit's own list",
    )
    p.add_argument(
        "--call-seconds",
        type=real_option("--call-seconds", 0, 3600, lo_open=True),
        default=CALL_SECONDS,
        help=f"stop a peer call after this many seconds and report it as an error (default {CALL_SECONDS:g})",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="the rows as JSON")
    out.add_argument("--markdown", action="store_true", help="a Markdown report to paste into an issue")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    p.set_defaults(fn=_cmd_audit)
