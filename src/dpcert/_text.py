"""Plain-text tables (standard library only: the CLI imports this at start-up)."""

from __future__ import annotations

__all__ = ["text_table"]


def text_table(rows: list[list[str]], header: list[str]) -> str:
    """A plain-text table with a header rule; columns left-aligned, trailing blanks stripped."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])
