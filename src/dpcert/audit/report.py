"""The audit as a plain-text table, a Markdown report (to paste into an issue) or JSON."""

from __future__ import annotations

from typing import Any

from dpcert.audit.run import FLOAT_NOISE, AuditReport, Row

__all__ = ["render_text", "render_markdown", "HEADER"]

HEADER = [
    "peer",
    "function",
    "quantity and inputs",
    "peer value",
    "certified enclosure",
    "verdict",
    "distance",
    "peer s",
]

_LEGEND = (
    "Verdicts: **inside** (in the certified enclosure; a bracket: holds it), **unsafe** (a value or upper bound "
    "below the enclosure: less privacy loss or less noise than the truth, proved), **loose** (an upper bound above "
    "it), **wrong** (a value claimed exact, or the lower end of a bracket, above it), **error** (the peer raised), "
    "**skipped** (not installed, or not run at that size). Distance: relative to the nearer end of the enclosure, "
    f"− below, + above; an unsafe or wrong answer at most {FLOAT_NOISE:g} away is marked (round-off) and counted as "
    "round-off in the headline, not as unsafe or wrong. The enclosure is dpcert's rigorous one at the "
    "inputs the peer was given (the doubles), so every placement is proved."
)


def _value(r: Row) -> str:
    if r.bracket is not None:
        lo, _, hi = r.bracket
        return f"[{lo:.10g}, {hi:.10g}]"
    return "" if r.value is None else repr(r.value)  # the shortest decimal that reads back as the same double


def _enclosure(r: Row) -> str:
    if r.enclosure is None:
        return ""
    lo, hi = r.enclosure.decimal(12)
    return lo if lo == hi else f"[{lo}, {hi}]"


def _distance(r: Row) -> str:
    if r.distance is None or r.direction is None:
        return "0" if r.verdict == "inside" else ""
    sign = "−" if r.direction == "below" else "+"
    d = r.distance
    if d == float("inf"):
        return sign + "inf"
    if 0.01 <= d <= 10:
        return f"{sign}{100 * d:.3g}%"
    return f"{sign}{d:.2e}"


def _case(r: Row) -> str:
    if r.quantity == "-":
        return ""
    return f"{r.quantity} " + " ".join(f"{k}={v}" for k, v in r.inputs.items())


def _verdict(r: Row) -> str:
    if r.verdict in ("unsafe", "wrong") and r.distance is not None and r.distance <= FLOAT_NOISE:
        return f"{r.verdict} (round-off)"
    return r.verdict


def rows_table(report: AuditReport) -> list[list[str]]:
    """The rows as table cells (``HEADER``'s columns)."""
    return [
        [
            r.peer,
            r.function,
            _case(r),
            _value(r),
            _enclosure(r),
            _verdict(r),
            _distance(r),
            "" if r.peer_seconds is None else f"{r.peer_seconds:.3f}",
        ]
        for r in report.rows
    ]


def _peers_line(report: AuditReport) -> str:
    seen: dict[str, str] = {}
    for r in report.rows:
        if r.peer not in seen:
            seen[r.peer] = r.version if r.version else r.note
    return "; ".join(f"{p} {v}" for p, v in seen.items())


def _findings(report: AuditReport) -> list[str]:
    """One line per (peer, function, verdict) outside the enclosure beyond round-off: how many cases, the
    worst one; then the monotonicity failures."""
    groups: dict[tuple[str, str, str], list[Row]] = {}
    for verdict in ("unsafe", "wrong"):
        for r in report.material(verdict):
            groups.setdefault((r.peer, r.function, verdict), []).append(r)
    out = []
    for (peer, function, verdict), rs in groups.items():
        worst = max(rs, key=lambda r: r.distance or 0)
        n = f"{len(rs)} cases, worst" if len(rs) > 1 else "at"
        tol = next((part for part in worst.note.split("; ") if "stated tolerance" in part), "")
        out.append(
            f"**{verdict}** {peer} `{function}`: {n} {_case(worst)}: {_value(worst)} against certified "
            f"{_enclosure(worst)} ({_distance(worst)})" + (f"; {tol}" if tol else "")
        )
    for m in report.monotonicity:
        if not m.ok:
            out.append(f"**not monotone** {m.peer} `{m.function}` ({m.series}): {m.detail}")
    return out


def _summary(report: AuditReport) -> str:
    """The headline: what lies beyond round-off first, then the rows outside the enclosure by round-off only."""
    c = report.headline()
    parts = [f"{c[v]} {v}" for v in ("inside", "unsafe", "loose", "wrong") if c.get(v)]
    if c.get("round-off"):
        parts.append(f"{c['round-off']} round-off (unsafe or wrong by at most {FLOAT_NOISE:g} relative)")
    parts += [f"{c[v]} {v}" for v in ("error", "skipped") if c.get(v)]
    bad_mono = sum(1 for m in report.monotonicity if not m.ok)
    return (
        f"{len(report.rows)} rows: {', '.join(parts)}; "
        f"{len(report.monotonicity)} monotone series checked, {bad_mono} not monotone; {report.seconds:.1f} s"
    )


def render_text(report: AuditReport) -> str:
    """A plain-text table, the monotonicity checks and the findings."""
    from dpcert._text import text_table

    cells = rows_table(report)
    for r, row in zip(report.rows, cells, strict=True):
        if r.note:
            row[5] += f" ({r.note})"
    lines = [text_table(cells, HEADER), ""]
    if report.monotonicity:
        lines.append(
            text_table(
                [
                    [m.peer, m.function, m.series, "ok" if m.ok else "NOT MONOTONE", m.detail]
                    for m in report.monotonicity
                ],
                ["peer", "function", "series", "", "values"],
            )
        )
        lines.append("")
    lines.append(_summary(report))
    findings = _findings(report)
    if findings:
        lines.append("findings beyond round-off:")
        lines += ["  " + f.replace("**", "").replace("`", "") for f in findings]
    return "\n".join(lines)


def _md_cell(text: Any) -> str:
    return str(text).replace("|", "\\|")


def render_markdown(report: AuditReport, dpcert_version: str = "") -> str:
    """A Markdown report a maintainer can paste into an issue."""
    out = [f"## dpcert audit{' ' + dpcert_version if dpcert_version else ''}: peers against certified enclosures", ""]
    out.append(f"Peers: {_peers_line(report)}.")
    out.append("")
    out.append(_summary(report) + ".")
    out.append("")
    findings = _findings(report)
    if findings:
        out.append(f"### Findings (beyond round-off, {FLOAT_NOISE:g} relative)")
        out.append("")
        out += [f"- {f}" for f in findings]
        out.append("")
    out.append("### Every row")
    out.append("")
    out.append("| " + " | ".join(HEADER) + " |")
    out.append("|" + "---|" * len(HEADER))
    for r, cells in zip(report.rows, rows_table(report), strict=True):
        cells = [_md_cell(c) for c in cells]
        cells[1] = f"`{cells[1]}`" if cells[1] not in ("", "-") else cells[1]
        if r.verdict in ("unsafe", "wrong") and r.distance is not None and r.distance > FLOAT_NOISE:
            cells[5] = f"**{cells[5]}**"
        if r.note:
            cells[5] += f" ({_md_cell(r.note)})"
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    if report.monotonicity:
        out.append("### Monotone series")
        out.append("")
        out.append("| peer | function | series | monotone | values |")
        out.append("|---|---|---|---|---|")
        for m in report.monotonicity:
            out.append(
                f"| {m.peer} | `{_md_cell(m.function)}` | {m.series} | {'yes' if m.ok else '**no**'} | "
                f"{_md_cell(m.detail)} |"
            )
        out.append("")
    out.append(_LEGEND)
    out.append("")
    return "\n".join(out)
