"""Claim manifests (TOML): which claims ``dpcert verify`` runs, with what inputs and what expected verdicts.

Format (``format = 1``)::

    description = "what this manifest checks"
    include = ["darrm.toml"]            # other manifests, relative to this file

    [[claims]]                           # registered claims, by id or glob
    select = "darrm.table2.*"
    expect = "CERTIFIED"                 # optional; defaults to each claim's own expectation
    full = false                         # true: only with `dpcert verify --full`

    [[claims]]                           # a registered quantity claim with other inputs
    select = "composition.kov.eps.brnotes_eps0p1_k100"
    id = "mine.kov.k200"
    inputs = { k = 200 }

    [[claims]]                           # a new claim: quantity + exact inputs + comparison
    id = "mypaper.table1.row3"
    reference = "My paper, Table 1"
    quantity = "composition.general.eps"
    inputs = { k = 20, eps = "0.2676", delta_prime = "0.0001" }
    rounds_to = "5.352"                  # printed digits ("1.2E-6" too); or truncates_to = "5.351",
                                         # or at_most = "…" / at_least = "…"
    # figures = 2                        # with rounds_to: rounded to 2 significant figures ("1200")
    expect = "CERTIFIED"

Reals should be written as strings ("0.1" means exactly 1/10); a TOML float is taken at its binary value and
the certificate says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dpcert.core import files
from dpcert.core.claim import AtLeast, AtMost, Claim, Comparison, QuantityClaim, Rounds, Truncates, Verdict
from dpcert.core.files import bundled_dir
from dpcert.engine import registry
from dpcert.errors import InvalidParameter, ManifestError, UnknownClaim

__all__ = ["Entry", "load_manifest", "bundled_dir", "default_manifests", "default_entries", "entries_for_selectors"]

_ENTRY_KEYS = {
    "select",
    "id",
    "expect",
    "full",
    "inputs",
    "quantity",
    "reference",
    "statement",
    "rounds_to",
    "truncates_to",
    "figures",
    "at_most",
    "at_least",
    "erratum",
}
_TOP_KEYS = {"format", "description", "include", "claims"}


@dataclass(frozen=True)
class Entry:
    """One claim to run, with the verdict the manifest expects."""

    claim: Claim
    expected: Verdict
    full: bool = False
    source: str = ""


def default_manifests() -> list[Path]:
    """The bundled manifests ``dpcert verify`` runs by default: each package's, as its declaration lists them
    (:attr:`~dpcert.core.packages.PackageDeclaration.manifests`), in the order of the packages' ranks."""
    folder = bundled_dir()
    return [folder / name for decl in registry.declarations() for name in decl.manifests]


def default_entries() -> list[Entry]:
    """The entries of the default run: the :func:`default_manifests` read as one manifest that includes them all.

    Raises:
        ManifestError, UnknownClaim, InvalidParameter: as :func:`load_manifest`.
    """
    done: set[Path] = set()
    out: list[Entry] = []
    for p in default_manifests():
        out += _load(p, (), done)
    return _dedupe(out)


def _comparison(raw: dict[str, Any], where: str) -> Comparison:
    kinds = ("rounds_to", "truncates_to", "at_most", "at_least")
    given = [k for k in kinds if k in raw]
    if len(given) != 1:
        raise ManifestError(where, "a quantity claim needs exactly one of " + ", ".join(kinds))
    key = given[0]
    value = raw[key]
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise ManifestError(where, f'{key} must be a string such as "5.352" (got {value!r})')
    if "figures" in raw and key != "rounds_to":
        raise ManifestError(where, "figures (significant figures) goes with rounds_to only")
    try:
        if key == "rounds_to":
            return Rounds(str(value), raw.get("figures"))
        if key == "truncates_to":
            return Truncates(str(value))
        return AtMost.of(str(value)) if key == "at_most" else AtLeast.of(str(value))
    except InvalidParameter as exc:
        raise ManifestError(where, str(exc)) from None


def _entries(raw: dict[str, Any], where: str) -> list[Entry]:
    unknown = set(raw) - _ENTRY_KEYS
    if unknown:
        raise ManifestError(where, f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_ENTRY_KEYS)}")
    full = raw.get("full", False)
    if not isinstance(full, bool):
        raise ManifestError(where, f"full must be true or false (got {full!r})")
    inputs = raw.get("inputs", {})
    if not isinstance(inputs, dict):
        raise ManifestError(where, 'inputs must be a table such as { k = 20, eps = "0.1" }')
    try:
        expect = Verdict.parse(raw["expect"]) if "expect" in raw else None
    except InvalidParameter as exc:
        raise ManifestError(where, str(exc)) from None

    if "select" in raw and "quantity" in raw:
        raise ManifestError(where, "use either select (registered claims) or quantity (a new claim), not both")
    if "select" in raw:
        if not isinstance(raw["select"], str):
            raise ManifestError(where, "select must be a claim id or glob string")
        claims = registry.select(raw["select"])
        if inputs or "id" in raw:
            if len(claims) != 1 or not isinstance(claims[0], QuantityClaim):
                raise ManifestError(where, "inputs/id overrides need a select naming exactly one quantity claim")
            base = claims[0]
            if "id" not in raw:
                raise ManifestError(where, "an inputs override needs its own id (the certificate's file name)")
            new_id = raw["id"]
            claims = [replace(base.with_inputs(inputs), id=new_id)]
        return [Entry(c, expect or c.expected, full or c.slow, where) for c in claims]
    if "quantity" in raw:
        for key in ("id", "reference"):
            if not isinstance(raw.get(key), str):
                raise ManifestError(where, f"a quantity claim needs a string {key}")
        q = registry.quantity(str(raw["quantity"]))
        comparison = _comparison(raw, where)
        q.parse(inputs)  # validate now: a bad input is a manifest error, not a failed claim
        claim = QuantityClaim(
            raw["id"],
            raw["reference"],
            raw.get("statement", f"{q.name}({inputs}) {comparison.describe()}"),
            expected=expect or Verdict.CERTIFIED,
            erratum=raw.get("erratum", ""),
            quantity=q,
            inputs=inputs,
            comparison=comparison,
        )
        return [Entry(claim, claim.expected, full, where)]
    raise ManifestError(where, "each [[claims]] entry needs select or quantity")


#: The most manifest files one ``load_manifest`` reads (itself and every include, each read once).
MAX_MANIFEST_FILES = 1000


def load_manifest(path: str | Path) -> list[Entry]:
    """Read a manifest (and its includes) into entries; duplicate ids keep their first occurrence.

    Each file is read once: an include reached a second time (a diamond, ``a`` and ``b`` both including ``c``)
    adds nothing more, an include of a file that is still being read (a cycle) is refused, and so is a manifest
    from which no claim results (an empty manifest would otherwise "verify" nothing and succeed).

    Raises:
        ManifestError: for unreadable TOML, unknown keys, bad values, include cycles or no claims at all.
        UnknownClaim: for unknown claim ids.
        InvalidParameter: for unknown quantities or bad inputs.
    """
    done: set[Path] = set()
    out = _load(Path(path), (), done)
    if not out:
        raise ManifestError(str(path), "no claims: a manifest (with its includes) must name at least one claim")
    return _dedupe(out)


def _load(p: Path, stack: tuple[Path, ...], done: set[Path]) -> list[Entry]:
    """The entries of ``p`` and its includes; ``stack`` holds the files being read, ``done`` those already read."""
    try:
        rp = p.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise ManifestError(_short(p), f"an unreadable path ({exc})") from None
    if rp in stack:
        chain = " -> ".join(q.name for q in (*stack[stack.index(rp) :], rp))
        raise ManifestError(_short(p), f"include cycle ({_clip(chain)})")
    if rp in done:
        return []
    if len(done) >= MAX_MANIFEST_FILES:
        raise ManifestError(_short(p), f"at most {MAX_MANIFEST_FILES} manifest files (with includes)")
    done.add(rp)
    try:
        data = files.load_toml(p, what="manifest")
    except ManifestError:
        raise
    except InvalidParameter as exc:  # not a regular UTF-8 file, too large, not TOML, nested too deep
        raise ManifestError(_short(p), f"expected {exc.allowed}" if exc.name == "manifest" else str(exc)) from None
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ManifestError(str(p), f"unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(_TOP_KEYS)}")
    if data.get("format", 1) != 1:
        raise ManifestError(str(p), f"format {data.get('format')!r} is not supported (expected 1)")
    out: list[Entry] = []
    includes = data.get("include", [])
    if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
        raise ManifestError(str(p), "include must be a list of file names")
    for inc in includes:
        out += _load(p.parent / inc, (*stack, rp), done)
    raw_claims = data.get("claims", [])
    if not isinstance(raw_claims, list) or not all(isinstance(c, dict) for c in raw_claims):
        raise ManifestError(str(p), "claims must be an array of tables ([[claims]])")
    for i, raw in enumerate(raw_claims):
        where = f"{p}: claims[{i}]"
        try:
            out += _entries(raw, where)
        except (ManifestError, UnknownClaim):
            raise
        except InvalidParameter as exc:  # a bad id, input or selector: say where in the manifest it is
            raise ManifestError(where, str(exc)) from None
    return _dedupe(out)


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(p: Path) -> str:
    return _clip(str(p), 120)


def _dedupe(entries: Iterable[Entry]) -> list[Entry]:
    seen: set[str] = set()
    out = []
    for e in entries:
        if e.claim.id not in seen:
            seen.add(e.claim.id)
            out.append(e)
    return out


def entries_for_selectors(selectors: Iterable[str]) -> list[Entry]:
    """Entries for registered claims chosen by id or glob on the command line."""
    out: list[Entry] = []
    for s in selectors:
        out += [Entry(c, c.expected, c.slow, "command line") for c in registry.select(s)]
    return _dedupe(out)
