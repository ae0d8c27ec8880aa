"""Golden vectors: certified enclosures of every quantity family at chosen (edge) inputs, for testing other
implementations against.

``dpcert vectors export`` writes them (JSON or CSV), ``dpcert vectors check`` and ``dpcert verify --full``
re-certify them, :func:`load` reads a vectors file and :func:`schema_path` is its JSON Schema (Draft 2020-12),
which lets another project read the file without importing dpcert. :mod:`dpcert.testing` asserts a float
implementation against them.

>>> from dpcert.vectors import load
>>> v = next(v for v in load() if v.id == "composition.simple.eps.k1")
>>> v.quantity, dict(v.inputs), v.lo, v.hi
('composition.simple.eps', {'k': '1', 'eps': '0.1'}, '0.1', '0.1')
"""

from typing import Any

from dpcert.vectors.cases import CASES, NOT_COVERED, TOPICS, Case, topic_of

#: names resolved on first use (reading the format imports the claim machinery; `dpcert --help` needs none of it)
_LAZY = {
    "DIGITS",
    "FORMAT",
    "VERSION",
    "Vector",
    "bundled_path",
    "load",
    "loads",
    "schema_path",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from dpcert.vectors import format as _format

        return getattr(_format, name)
    raise AttributeError(f"module 'dpcert.vectors' has no attribute {name!r}")


__all__ = [
    "CASES",
    "NOT_COVERED",
    "TOPICS",
    "Case",
    "topic_of",
    "DIGITS",
    "FORMAT",
    "VERSION",
    "Vector",
    "bundled_path",
    "load",
    "loads",
    "schema_path",
    "export",
    "check",
]


def export(*args, **kwargs):
    """Certify and write golden vectors (see :func:`dpcert.vectors.export.export`)."""
    from dpcert.vectors.export import export as _export

    return _export(*args, **kwargs)


def check(*args, **kwargs):
    """Re-certify a vectors file (see :func:`dpcert.vectors.check.check`)."""
    from dpcert.vectors.check import check as _check

    return _check(*args, **kwargs)
