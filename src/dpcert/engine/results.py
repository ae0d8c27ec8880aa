"""The verdict table of a directory of certificates, as Markdown (``dpcert check DIR --markdown FILE``).

``verify/RESULTS.md`` is made this way: it is read off the certificates after every one of them re-checked, so the
table says nothing the certificates do not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from dpcert._text import text_table
from dpcert.arith.ball import Enclosure
from dpcert.engine import registry
from dpcert.engine.certificate import load_certificate

__all__ = ["results_markdown"]

_VERDICTS = ("CERTIFIED", "REFUTED", "UNDECIDED", "ERROR")


def results_markdown(paths: Sequence[str | Path]) -> str:
    """A Markdown page: how the certificates were made, the counts, and one row per certificate.

    Rows follow the registry's claim order (the order ``dpcert verify`` runs them); certificates of claims that are
    not registered follow, by id. A claim that only ``dpcert verify --full`` runs is marked ``full``.
    """
    certs = [load_certificate(p) for p in paths]
    order = {cid: i for i, cid in enumerate(registry.claims())}
    certs.sort(key=lambda c: (order.get(c["claim"]["id"], len(order)), c["claim"]["id"]))
    claims = registry.claims()
    rows = []
    for c in certs:
        cid = c["claim"]["id"]
        enc = c["evidence"].get("enclosure")
        rows.append(
            [
                cid,
                c["verdict"],
                c["claim"]["expected"],
                "ok" if c["verdict"] == c["claim"]["expected"] else "UNEXPECTED",
                "" if enc is None else Enclosure.from_json(enc).short(10),
                f"{c['seconds']:.3f}",
                "full" if cid in claims and claims[cid].slow else "",
            ]
        )
    counts = Counter(c["verdict"] for c in certs)
    as_expected = sum(r[3] == "ok" for r in rows)
    software = sorted({" ".join(f"{k} {v}" for k, v in c["software"].items()) for c in certs})
    summary = ", ".join(f"{counts[v]} {v}" for v in _VERDICTS if counts[v])
    return "\n".join(
        [
            "# Verdicts of the bundled claims",
            "",
            "One certificate per claim is in `certificates/` (made with `dpcert verify --full --certificates "
            "verify/certificates`;",
            f"software: {'; '.join(software)}). This table is read off those certificates after every one re-checked",
            "(`dpcert check verify/certificates --markdown verify/RESULTS.md`). Claims marked `full` run with",
            "`dpcert verify --full`; an erratum is expected REFUTED, an open question (a bracket only) expected "
            "UNDECIDED.",
            "",
            f"{len(certs)} claims: {summary}; {as_expected}/{len(certs)} as expected.",
            "",
            "```",
            text_table(rows, ["claim", "verdict", "expected", "", "enclosure", "s", ""]),
            "```",
            "",
        ]
    )
