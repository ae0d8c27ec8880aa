"""An empty table for one quantity: the columns ``dpcert table check`` reads, in CSV, JSON or TOML."""

from __future__ import annotations

import csv
import io
import json

from dpcert.errors import InvalidParameter

__all__ = ["template", "TEMPLATE_FORMATS"]

#: The formats a template is written in.
TEMPLATE_FORMATS = ("csv", "json", "toml")


def template(quantity: str, fmt: str = "csv") -> str:
    """The columns of a table of ``quantity`` (quantity, each input, value, claim, figures) and one row to fill:
    the quantity named, an input's default filled in where it has one, every other cell empty.

    Raises:
        InvalidParameter: for an unknown quantity or format.
    """
    from dpcert.engine import registry

    if fmt not in TEMPLATE_FORMATS:
        raise InvalidParameter("--format", fmt, "one of " + ", ".join(TEMPLATE_FORMATS))
    q = registry.quantity(quantity)
    row = {"quantity": q.name, **{p.name: p.default or "" for p in q.params}, "value": "", "claim": "", "figures": ""}
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(list(row))
        w.writerow(list(row.values()))
        return out.getvalue()
    if fmt == "json":
        return json.dumps({"rows": [row]}, indent=2, ensure_ascii=False) + "\n"
    lines = [
        f"# A table of {q.name}: {q.summary}",
        "# claim: upper (value is an upper bound), lower (a lower bound) or digits (the printed digits;",
        "#   figures = N: rounded to N significant figures, figures = truncated: truncated, not rounded).",
        '# Numbers are read as written ("0.1" or 0.1 is exactly 1/10); a row left empty is refused when checked.',
        "",
        "[[rows]]",
    ]
    params = {p.name: p for p in q.params}
    for name, value in row.items():
        note = f"  # {params[name].allowed()}" if name in params else ""
        lines.append(f"{name} = {json.dumps(value, ensure_ascii=False)}{note}")
    return "\n".join(lines) + "\n"
