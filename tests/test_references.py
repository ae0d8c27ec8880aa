"""Every reference in the project resolves inside the repository.

* No source, doc, test, benchmark, notebook, manifest or bundled certificate cites a notes file or a path outside
  the repository: the derivations the code relies on live in module docstrings or on ``docs/derivations/*.md``.
* Every bibliography key used in ``src/`` and ``docs/`` (``Theorem 3 [DDR20]``, ``[KOV15, Thm 3.3]``) is a key of
  ``docs/bibliography.md``.
* Every link to ``docs/derivations/<page>.md#<anchor>`` names an existing page and a heading of it (the anchor is
  the heading's slug, as MyST makes it with ``myst_heading_anchors``).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("src", "docs", "tests", "benchmarks", "proofs_notebooks", "verify")
SUFFIXES = {".py", ".md", ".rst", ".toml", ".ipynb", ".txt", ".cfg", ".json"}
THIS = Path(__file__).resolve()

#: a citation of a document that is not in the repository: the notes (``notes §3.4``, ``the notes' Figure``,
#: ``notes gaussian.md §4.6``) or a path into the shared folder outside the checkout
_OUTSIDE = re.compile(r"\bnotes\b|(?:\.\./|/)shared/|/work/", re.IGNORECASE)
#: a bibliography key in brackets: letters then a two-digit year (``[DDR20]``, ``[KOV15, Thm 3.3]``, ``[DDR20; Mir17]``)
_KEY = re.compile(r"(?<![\w\]])\[((?:[A-Z][A-Za-z]+\d{2}[a-z]?(?:,[^\]\[;]*)?(?:;\s*)?)+)\]")
_KEY_NAME = re.compile(r"[A-Z][A-Za-z]+\d{2}[a-z]?")
#: a link into the derivations pages, from docstrings (``docs/derivations/br.md#lattice``) or docs
# (``derivations/br.md#x``)
_LINK = re.compile(r"(?:docs/)?derivations/([a-z0-9_]+\.md)(?:#([A-Za-z0-9_-]+))?")


def _files(roots: tuple[str, ...]) -> list[Path]:
    out = []
    for name in roots:
        base = ROOT / name
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and "_build" not in path.parts and path != THIS:
                if ".ipynb_checkpoints" in path.parts or "__pycache__" in path.parts:
                    continue
                out.append(path)
    return out + [ROOT / "README.md"]


#: the tokens of a Python file that hold text (Python 3.12 splits an f-string into pieces; its text is FSTRING_MIDDLE)
_TEXT_TOKENS = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def _prose(path: Path) -> list[tuple[int, str]]:
    """The lines of a file a reader reads as text: every line of a document; the comments and string literals
    (docstrings, claim references, messages) of a Python file, not its identifiers (``notes = []`` names a list)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return list(enumerate(text.splitlines(), 1))
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in _TEXT_TOKENS:
            out += [(tok.start[0] + i, part) for i, part in enumerate(tok.string.splitlines())]
    return out


def _hits(pattern: re.Pattern[str], files: list[Path]) -> list[tuple[str, int, str]]:
    hits = []
    for path in files:
        for lineno, line in _prose(path):
            for m in pattern.finditer(line):
                hits.append((str(path.relative_to(ROOT)), lineno, m.group(0)))
    return hits


def _bibliography_keys() -> set[str]:
    text = (ROOT / "docs" / "bibliography.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\|\s*([A-Z][A-Za-z]+\d{2}[a-z]?)\s*\|", text, re.MULTILINE))


def _slug(heading: str) -> str:
    """MyST's heading anchor: lower case, punctuation dropped (``-`` and ``_`` kept), spaces become ``-``."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    heads = re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.MULTILINE)
    return {_slug(h) for h in heads}


def test_no_reference_leaves_the_repository() -> None:
    hits = _hits(_OUTSIDE, _files(SCANNED))
    assert not hits, f"{len(hits)} references to documents outside the repository, e.g. " + "; ".join(
        f"{f}:{n}: {m!r}" for f, n, m in hits[:15]
    )


def test_bibliography_lists_keys() -> None:
    keys = _bibliography_keys()
    assert {"DDR20", "GDDSK21", "WLF24", "JZJ24", "KOV15", "Mir17"} <= keys


def test_every_bibliography_key_resolves() -> None:
    keys = _bibliography_keys()
    used: list[tuple[str, int, str]] = []
    for f, n, m in _hits(_KEY, _files(("src", "docs"))):
        for part in m[1:-1].split(";"):
            key = part.split(",")[0].strip()
            if _KEY_NAME.fullmatch(key):
                used.append((f, n, key))
    assert used, "no bibliography keys found: the pattern is wrong"
    unknown = [(f, n, k) for f, n, k in used if k not in keys]
    assert not unknown, "keys not in docs/bibliography.md: " + "; ".join(f"{f}:{n}: {k}" for f, n, k in unknown[:15])


def test_papers_are_cited_by_key() -> None:
    """The sources use the keys: each of the four papers dpcert certifies is cited by its key in its package."""
    for package, key in (("br", "DDR20"), ("shuffle", "GDDSK21"), ("sml", "WLF24"), ("darrm", "JZJ24")):
        text = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "src" / "dpcert" / package).glob("*.py"))
        assert f"[{key}" in text, f"dpcert.{package} never cites [{key}]"


def test_every_derivation_link_resolves() -> None:
    pages = ROOT / "docs" / "derivations"
    bad = []
    links = _hits(_LINK, _files(SCANNED))
    for f, n, m in links:
        page, _, anchor = _LINK.fullmatch(m).group(1, 0, 2)  # type: ignore[union-attr]
        target = pages / page
        if not target.is_file():
            bad.append(f"{f}:{n}: {m} (no page)")
        elif anchor and anchor not in _anchors(target):
            bad.append(f"{f}:{n}: {m} (no heading with anchor #{anchor})")
    assert links, "no derivation links found: the pattern is wrong"
    assert not bad, "; ".join(bad[:15])


@pytest.mark.parametrize(
    "heading, slug", [("SGM directions", "sgm-directions"), ("U_red: the bound", "u_red-the-bound")]
)
def test_slug(heading: str, slug: str) -> None:
    assert _slug(heading) == slug
