"""Re-check a certificate of any kind: :func:`dpcert.engine.certificate.recheck` with the claim kinds only the
user layer knows joined from above.

A table row's certificate (``table.*``) is re-derived from the row it records by :mod:`dpcert.tables`, a golden
vector's (``vectors.*``) from the bundled case of its id by :mod:`dpcert.vectors`; the engine knows neither (the
layers point down: the engine is below tables and vectors), so it refuses such a certificate unless the rebuild
of its kind is handed to it. This is what ``dpcert check`` and :func:`dpcert.recheck` run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dpcert.engine.certificate import ClaimKind, RecheckReport
from dpcert.engine.certificate import recheck as _engine_recheck
from dpcert.tables.check import certificate_claim as _table_row
from dpcert.vectors.export import certificate_claim as _golden_vector

__all__ = ["KINDS", "recheck"]

#: The reserved claim kinds, by id prefix: the function that rebuilds a certificate's claim of that kind.
KINDS: Mapping[str, ClaimKind] = {"table.": _table_row, "vectors.": _golden_vector}


def recheck(path: str | Path) -> RecheckReport:
    """Accept a certificate of any kind only when every statement in it is true and consistent
    (:func:`dpcert.engine.certificate.recheck`, with :data:`KINDS`).

    Raises:
        CertificateError: for an unreadable, tampered-with or malformed certificate.
    """
    return _engine_recheck(path, kinds=KINDS)
