"""The verdict table of re-checked certificates, as Markdown (``dpcert check DIR --markdown FILE``).

``verify/RESULTS.md`` is made this way: it is read off the re-check reports after every certificate re-checked, so
the table shows what was re-derived (the registry's expectation, the re-checked verdict, the recorded enclosure
that was checked to contain a fresh one), never a certificate's stored text.
"""

from __future__ import annotations

import platform
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import flint

from dpcert._text import text_table
from dpcert._version import __version__
from dpcert.engine import registry

if TYPE_CHECKING:
    from dpcert.engine.certificate import RecheckReport

__all__ = ["results_markdown"]

_VERDICTS = ("CERTIFIED", "REFUTED", "UNDECIDED", "ERROR")


def results_markdown(reports: Sequence[RecheckReport]) -> str:
    """A Markdown page: how the table was made, the counts, and one row per re-checked certificate.

    Rows follow the registry's claim order (the order ``dpcert verify`` runs them); certificates of claims that are
    not registered follow, by id. A claim that only ``dpcert verify --full`` runs is marked ``full``.

    Raises:
        ValueError: when a report did not re-check (the table shows only what was re-derived).
    """
    bad = [r.claim_id for r in reports if not r.ok]
    if bad:
        raise ValueError(f"certificates that did not re-check: {', '.join(bad[:5])}")
    order = {cid: i for i, cid in enumerate(registry.claims())}
    reports = sorted(reports, key=lambda r: (order.get(r.claim_id, len(order)), r.claim_id))
    rows = []
    for r in reports:
        rows.append(
            [
                r.claim_id,
                r.now,
                r.expected,
                "ok" if r.now == r.expected else "UNEXPECTED",
                r.enclosure,
                f"{r.seconds:.3f}",
                "full" if r.slow else "",
            ]
        )
    counts = Counter(r.now for r in reports)
    as_expected = sum(row[3] == "ok" for row in rows)
    software = f"dpcert {__version__} python-flint {flint.__version__} python {platform.python_version()}"
    summary = ", ".join(f"{counts[v]} {v}" for v in _VERDICTS if counts[v])
    return "\n".join(
        [
            "# Verdicts of the bundled claims",
            "",
            "One certificate per claim is in `certificates/` (made with `dpcert verify --full --certificates "
            "verify/certificates`).",
            "This table is read off their re-check (`dpcert check verify/certificates --markdown verify/RESULTS.md`,",
            f"{software}): every row is a certificate that re-checked, with the re-checked verdict, the expected",
            "verdict and the recorded enclosure (checked to contain a fresh one) and the seconds the re-check took.",
            "Claims marked `full` run with `dpcert verify --full`; an erratum is expected REFUTED, an open question",
            "(a bracket only) expected UNDECIDED.",
            "",
            f"{len(reports)} claims: {summary}; {as_expected}/{len(reports)} as expected.",
            "",
            "```",
            text_table(rows, ["claim", "verdict", "expected", "", "enclosure", "s", ""]),
            "```",
            "",
        ]
        + _labels(reports)
    )


def _labels(reports: Sequence[RecheckReport]) -> list[str]:
    """What certificates said that the re-check could not bind (a free-text reference, a hand-chosen id, an expected
    verdict of a claim that is not registered), listed apart from the table, marked as not verified."""
    labelled = [r for r in reports if r.label]
    if not labelled:
        return []
    lines = ["Labels, not verified (what the certificates say that the re-check cannot bind):", ""]
    return lines + [f"- `{r.claim_id}`: {r.label}" for r in labelled] + [""]
