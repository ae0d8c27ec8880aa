"""The golden-vector file format (``format = "dpcert-vectors"``, version 1) and its bounded, strict reader.

A vectors file is JSON::

    {"format": "dpcert-vectors", "version": 1, "dpcert": "0.1.0", "digits": 20, "description": "…",
     "vectors": [
       {"id": "composition.kov.delta.k1", "topic": "composition", "quantity": "composition.kov.delta",
        "inputs": {"k": "1", "eps": "1", "eps_g": "0.5"},
        "lo": "0.28764913664496792492", "hi": "0.28764913664496792493", "exact": false,
        "why": "k = 1: delta(eps_g) of one eps-DP mechanism",
        "certificate": {"file": "certificates/vectors.composition.kov.delta.k1.json", "sha256": "…"},
        "dpcert": "0.1.0"}, …]}

A vector of a *bracket* quantity (a PLD enclosure, which narrows with a grid's resolution, not with the precision)
also states ``"width"``: the relative width its enclosure was asked for (``"1e-3"``); its [lo, hi] is the certified
bracket at that width, as wide as that, and a re-run at the same width gives the same ends. A peer's value is
judged against it as against any vector.

``lo`` and ``hi`` are decimal strings rounded outward (``lo`` down, ``hi`` up) from a rigorous enclosure, so the
true value lies in [lo, hi] and a consumer compares floats with them safely. ``schema.json`` (JSON Schema, Draft
2020-12, shipped in this package and in ``verify/vectors/``) states the same for readers without dpcert; this
module reads a file without the ``jsonschema`` package (not a dpcert dependency), refusing what the schema refuses.
The CSV form (``dpcert vectors export --format csv``) has one row per vector, the columns :data:`CSV_COLUMNS`,
the inputs written ``k=1 eps=1 eps_g=0.5`` as on the command line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from dpcert.core import files
from dpcert.errors import InvalidParameter

__all__ = [
    "FORMAT",
    "VERSION",
    "DIGITS",
    "CSV_COLUMNS",
    "Vector",
    "load",
    "loads",
    "schema_path",
    "bundled_path",
]

FORMAT = "dpcert-vectors"
VERSION = 1
#: significant digits of ``lo`` and ``hi`` (more than the 17 a float64 needs)
DIGITS = 20
CSV_COLUMNS = (
    "id",
    "topic",
    "quantity",
    "inputs",
    "lo",
    "hi",
    "exact",
    "why",
    "certificate_file",
    "certificate_sha256",
    "dpcert",
    "width",
)

_TOP = {"format", "version", "dpcert", "digits", "description", "vectors"}
_TOP_REQUIRED = _TOP - {"description"}
_KEYS = {"id", "topic", "quantity", "inputs", "lo", "hi", "exact", "why", "certificate", "dpcert"}
#: the keys a vector may have besides :data:`_KEYS`
_OPTIONAL_KEYS = {"width"}
_WIDTH = re.compile(r"[0-9]+(\.[0-9]+)?(e-?[0-9]{1,3})?")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?")
_NAME = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+")
_TOPIC = re.compile(r"[a-z0-9_]+")
_VERSION = re.compile(r"[0-9]+(\.[0-9]+)*([.+-][0-9A-Za-z.+-]+)?")
_CERT_FILE = re.compile(r"certificates/[A-Za-z0-9_.-]+\.json")
_SHA = re.compile(r"[0-9a-f]{64}")
#: the most vectors one file may hold, and the longest string in it (checked before any number is parsed)
MAX_VECTORS = 100_000
_MAX_TEXT = 4_000


def schema_path() -> Path:
    """The JSON Schema (Draft 2020-12) of a vectors file, shipped with the package."""
    return Path(__file__).with_name("schema.json")


def bundled_path() -> Path:
    """The bundled vectors, ``verify/vectors/vectors.json`` (a checkout) or its copy in the installed package."""
    from dpcert.engine.manifest import bundled_dir

    return bundled_dir() / "vectors" / "vectors.json"


@dataclass(frozen=True)
class Vector:
    """One golden vector: a quantity at exact inputs and a certified enclosure [lo, hi] of its value.

    Attributes:
        id: ``<quantity>.<case>``.
        topic: the quantity family (``composition``, ``rdp``, ``darrm``, ``br``, ``sml``, ``shuffle``, ``gaussian``).
        quantity: the quantity name.
        inputs: the inputs exactly as given (strings, as on the command line).
        lo, hi: outward-rounded decimal strings: lo <= value <= hi.
        exact: the value is rational and was computed exactly.
        why: the edge the case covers.
        certificate_file: the certificate's path relative to the vectors file.
        certificate_sha256: the certificate's ``sha256``.
        dpcert: the version that certified it.
        width: a bracket quantity's vector: the relative width its enclosure was made at (``"1e-3"``); ``""`` for
            the others (their enclosure is 1e-22 wide or exact).
    """

    id: str
    topic: str
    quantity: str
    inputs: Mapping[str, str]
    lo: str
    hi: str
    exact: bool
    why: str
    certificate_file: str
    certificate_sha256: str
    dpcert: str
    #: the file it was read from ("" when computed)
    source: str = field(default="", compare=False)
    width: str = ""

    @property
    def interval(self) -> tuple[Fraction, Fraction]:
        """``(lo, hi)`` as exact rationals."""
        return Fraction(_decimal_fraction(self.lo)), Fraction(_decimal_fraction(self.hi))

    def command(self) -> str:
        """The inputs as on the command line: ``k=1 eps=1 eps_g=0.5``."""
        return " ".join(f"{k}={v}" for k, v in self.inputs.items())

    def to_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "topic": self.topic,
            "quantity": self.quantity,
            "inputs": dict(self.inputs),
            "lo": self.lo,
            "hi": self.hi,
            "exact": self.exact,
            "why": self.why,
            "certificate": {"file": self.certificate_file, "sha256": self.certificate_sha256},
            "dpcert": self.dpcert,
        }
        if self.width:
            out["width"] = self.width
        return out

    def to_row(self) -> dict[str, str]:
        """The CSV row (:data:`CSV_COLUMNS`)."""
        return {
            "id": self.id,
            "topic": self.topic,
            "quantity": self.quantity,
            "inputs": self.command(),
            "lo": self.lo,
            "hi": self.hi,
            "exact": "true" if self.exact else "false",
            "why": self.why,
            "certificate_file": self.certificate_file,
            "certificate_sha256": self.certificate_sha256,
            "dpcert": self.dpcert,
            "width": self.width,
        }


def _decimal_fraction(text: str) -> Fraction:
    mant, _, exp = text.partition("e")
    value = Fraction(mant)
    return value * Fraction(10) ** int(exp) if exp else value


def _problem(where: str, what: str) -> InvalidParameter:
    return InvalidParameter("vectors", where, what)


def _vector(raw: Any, i: int, where: str) -> Vector:
    at = f"{where}: vectors[{i}]"
    if not isinstance(raw, dict):
        raise _problem(at, "an object")
    missing, unknown = _KEYS - set(raw), set(raw) - _KEYS - _OPTIONAL_KEYS
    if missing or unknown:
        detail = (f"missing {sorted(missing)}" if missing else "") + (
            f" unknown {sorted(unknown)[:5]}" if unknown else ""
        )
        raise _problem(at, f"the keys {sorted(_KEYS)}, and optionally width ({detail.strip()})")
    width = raw.get("width", "")
    if "width" in raw and (not isinstance(width, str) or not _WIDTH.fullmatch(width) or not 0 < float(width) < 1):
        raise _problem(f"{at}.width", "a relative width in (0, 1) as a decimal string such as 1e-3")
    for key in ("id", "topic", "quantity", "lo", "hi", "why", "dpcert"):
        if not isinstance(raw[key], str) or not raw[key] or len(raw[key]) > _MAX_TEXT:
            raise _problem(f"{at}.{key}", f"a non-empty string of at most {_MAX_TEXT} characters")
    checks = (
        ("id", _NAME, "a dotted name"),
        ("quantity", _NAME, "a quantity name"),
        ("topic", _TOPIC, "a topic of lower-case letters, digits and _"),
        ("lo", _DECIMAL, "a decimal string such as 0.25 or 1.5e-7"),
        ("hi", _DECIMAL, "a decimal string such as 0.25 or 1.5e-7"),
        ("dpcert", _VERSION, "a version string"),
    )
    for key, pattern, what in checks:
        if not pattern.fullmatch(raw[key]):
            raise _problem(f"{at}.{key}", f"{what}, got {raw[key][:40]!r}")
    for key in ("lo", "hi"):
        exp = raw[key].partition("e")[2]
        if exp and abs(int(exp)) > 100_000:
            raise _problem(f"{at}.{key}", "a decimal exponent within ±100000")
    inputs = raw["inputs"]
    if not isinstance(inputs, dict) or not all(
        isinstance(v, str) and v and len(v) <= _MAX_TEXT for v in inputs.values()
    ):
        raise _problem(f"{at}.inputs", "an object of non-empty strings (the inputs as given)")
    if not isinstance(raw["exact"], bool):
        raise _problem(f"{at}.exact", "true or false")
    cert = raw["certificate"]
    if (
        not isinstance(cert, dict)
        or set(cert) != {"file", "sha256"}
        or not isinstance(cert["file"], str)
        or not _CERT_FILE.fullmatch(cert["file"])
        or not isinstance(cert["sha256"], str)
        or not _SHA.fullmatch(cert["sha256"])
    ):
        raise _problem(f"{at}.certificate", "{file: certificates/<name>.json, sha256: 64 hex digits}")
    v = Vector(
        raw["id"],
        raw["topic"],
        raw["quantity"],
        dict(inputs),
        raw["lo"],
        raw["hi"],
        raw["exact"],
        raw["why"],
        cert["file"],
        cert["sha256"],
        raw["dpcert"],
        where,
        width,
    )
    lo, hi = v.interval
    if lo > hi:
        raise _problem(f"{at}", f"lo <= hi, got [{v.lo}, {v.hi}]")
    return v


def loads(data: Any, where: str = "<vectors>") -> list[Vector]:
    """The vectors of a parsed vectors document, checked as :func:`load` does."""
    if not isinstance(data, dict):
        raise _problem(where, "a JSON object with format 'dpcert-vectors'")
    if data.get("format") != FORMAT:
        raise _problem(where, f"a file with format {FORMAT!r}, got {str(data.get('format'))[:40]!r}")
    if data.get("version") != VERSION:
        raise _problem(where, f"format version {VERSION}, got {str(data.get('version'))[:20]!r}")
    missing, unknown = _TOP_REQUIRED - set(data), set(data) - _TOP
    if missing or unknown:
        raise _problem(
            where, f"top-level keys {sorted(_TOP)} (missing {sorted(missing)}, unknown {sorted(unknown)[:5]})"
        )
    digits = data["digits"]
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise _problem(f"{where}: digits", "an integer >= 1")
    if not isinstance(data["dpcert"], str) or not _VERSION.fullmatch(data["dpcert"]):
        raise _problem(f"{where}: dpcert", "a version string")
    if not isinstance(data.get("description", ""), str):
        raise _problem(f"{where}: description", "a string")
    raw = data["vectors"]
    if not isinstance(raw, list) or len(raw) > MAX_VECTORS:
        raise _problem(f"{where}: vectors", f"a list of at most {MAX_VECTORS} vectors")
    out = [_vector(r, i, where) for i, r in enumerate(raw)]
    seen: set[str] = set()
    for v in out:
        if v.id in seen:
            raise _problem(f"{where}: {v.id}", "a unique id (it appears twice)")
        seen.add(v.id)
    return out


def load(path: str | Path | None = None) -> list[Vector]:
    """Read a vectors file (the bundled one by default): bounded, strict JSON, every field checked.

    Raises:
        InvalidParameter: for a file that is not a readable vectors file, naming the first problem.
    """
    p = bundled_path() if path is None else Path(path)
    return loads(files.load_json(p, what="vectors"), str(p))
