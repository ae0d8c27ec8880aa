"""Sphinx configuration of dpcert's documentation (Sphinx + MyST; API reference by autodoc + napoleon).

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (``pip install ".[docs]"``); the tests build
it so (``tests/test_docs.py``), so a broken reference fails them. The command-line reference, each topic's table of
quantities and the errata are generated from the code at build time (``docs/_ext/dpcert_docs.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
if not (HERE.parent / "src" / "dpcert").is_dir():  # pragma: no cover - docs outside a checkout
    raise RuntimeError("build the documentation from a dpcert checkout")
sys.path.insert(0, str(HERE.parent / "src"))  # document this tree's dpcert, not an installed one

import dpcert  # noqa: E402

project = "dpcert"
author = "dpcert developers"
copyright = "dpcert developers"
release = version = dpcert.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "dpcert_docs",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "README.md"]

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "substitution"]  # counts: dpcert_docs.counts
myst_heading_anchors = 3

# every cross-reference must resolve (with -W a broken one fails the build): names from outside dpcert (base
# classes, docstrings naming a library's type) are not documented here and are ignored by module; a dpcert name
# that exists but is not documented is accepted as text, one that does not exist fails (docs/_ext/dpcert_docs.py)
nitpicky = True

# no typographic quotes or dashes: the pages show commands (``--executor``, ``pip install "dpcert[distributed]"``)
# that must paste into a shell as written
smartquotes = False
nitpick_ignore_regex = [
    (r"py:.*", r"(fractions|decimal|collections|typing|pathlib|enum|numpy|scipy|mpmath|sympy|flint)(\..*)?"),
]

autodoc_default_options: dict[str, object] = {}  # each page says :members: where it wants them
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the docstrings say what each argument is; annotations name many outside types
autodoc_preserve_defaults = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

html_theme = "alabaster"
html_title = f"dpcert {release}"
html_theme_options = {
    "description": "certified numbers for differential privacy",
    "fixed_sidebar": True,
    "page_width": "1180px",
    "body_max_width": "none",
}
