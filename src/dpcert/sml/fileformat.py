"""The channel-matrix file of ``dpcert sml mechanism``: a finite mechanism with secret labels, exact entries.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

Two encodings, chosen by the file extension (``.json`` / ``.csv``; anything else is sniffed: a file starting with
``{`` is JSON). Entries are exact: strings such as ``"1/3"`` or ``"0.25"`` (= 1/4 exactly) or integers. Every row
must be nonnegative and sum to exactly 1.

**JSON**::

    {
      "secrets": ["g1", "g2"],                      # optional: the declared secret values
      "outputs": ["y1", "y2", "y3"],                # optional: column labels (default "0", "1", ...)
      "rows": [
        {"input": "a", "secret": "g1", "p": ["1/2", "1/2", "0"]},
        {"input": "b", "secret": "g1", "p": ["0", "1", "0"]},
        {"input": "c", "secret": "g2", "p": ["1/3", "1/3", "1/3"]}
      ]
    }

``input`` is optional (default: the row number). Labels (``secret``, ``input``, the declared ``secrets`` and the
``outputs``) are JSON strings: a number or ``null`` is refused rather than turned into text, so that a secret ``1``
and a secret ``"1"`` can never silently become one secret. A JSON number that is not an integer (``0.1``) is taken at
its binary value, so such a row does not sum to 1; write decimals as strings.

**CSV** (``#`` starts a comment line; blank lines are ignored)::

    secrets,g1,g2                 # optional first line: the declared secret values
    secret,input,y1,y2,y3         # header: the output labels follow "secret,input"
    g1,a,1/2,1/2,0
    g1,b,0,1,0
    g2,c,1/3,1/3,1/3

When secret values are declared, a row naming another secret is rejected, and so is a declared secret that no
row attains (its Θ_g would be empty, and Proposition IV.1 takes one θ per *attained* secret value;
docs/derivations/sml.md#attained-secrets-only).

Errors raise :class:`~dpcert.errors.InvalidParameter` naming the row (``row[2] (c)``) or the field. The file is read
through :mod:`dpcert.core.files` (a regular UTF-8 file of bounded size; duplicate JSON keys refused), and a CSV
field longer than the csv module's limit (128 KiB) is refused in the same way.

References:
    Wang–Lin–Fanti [WLF24], §III (mechanism ℳ = P_{Θ'|Θ}, secret function 𝔤), Proposition IV.1.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dpcert.core import files
from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import FiniteMechanism

__all__ = ["read_mechanism", "parse_json", "parse_csv"]


_LABEL = 'a label written as a JSON string (e.g. "1", not 1 or null)'


def _check_secrets(declared: Sequence[str] | None, secrets: Sequence[str], inputs: Sequence[str]) -> None:
    if declared is None:
        return
    if len(set(declared)) != len(declared) or not declared:
        raise InvalidParameter("secrets", list(declared), "a non-empty list of distinct secret labels")
    known = set(declared)
    for i, g in enumerate(secrets):
        if g not in known:
            raise InvalidParameter(f"row[{i}] ({inputs[i]}).secret", g, f"one of the declared secrets {list(declared)}")
    unused = [g for g in declared if g not in set(secrets)]
    if unused:
        raise InvalidParameter("secrets", unused, "declared secret values each attained by at least one row")


def parse_json(data: Any) -> FiniteMechanism:
    """A mechanism from the JSON object described in the module docstring.

    Raises:
        InvalidParameter: naming the field or row at fault.
    """
    if not isinstance(data, dict):
        raise InvalidParameter("file", type(data).__name__, "a JSON object with a 'rows' list")
    extra = set(data) - {"secrets", "outputs", "rows", "description"}
    if extra:
        raise InvalidParameter("file", sorted(extra), "only the keys secrets, outputs, rows, description")
    rows = data.get("rows")
    if not isinstance(rows, list) or not rows:
        raise InvalidParameter("rows", rows, "a non-empty list of {input, secret, p} objects")
    matrix, secrets, inputs = [], [], []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "secret" not in row or "p" not in row:
            raise InvalidParameter(f"row[{i}]", row, "an object with 'secret' and 'p' (and optionally 'input')")
        if not isinstance(row["p"], list):
            raise InvalidParameter(f"row[{i}].p", row["p"], "a list of exact probabilities")
        if not isinstance(row["secret"], str):
            raise InvalidParameter(f"row[{i}].secret", row["secret"], _LABEL)
        if "input" in row and not isinstance(row["input"], str):
            raise InvalidParameter(f"row[{i}].input", row["input"], _LABEL)
        matrix.append(row["p"])
        secrets.append(row["secret"])
        inputs.append(row.get("input", str(i)))
    declared = data.get("secrets")
    if declared is not None:
        if not isinstance(declared, list):
            raise InvalidParameter("secrets", declared, "a list of secret labels")
        for j, g in enumerate(declared):
            if not isinstance(g, str):
                raise InvalidParameter(f"secrets[{j}]", g, _LABEL)
    _check_secrets(declared, secrets, inputs)
    outputs = data.get("outputs")
    if outputs is not None and not isinstance(outputs, list):
        raise InvalidParameter("outputs", outputs, "a list of column labels")
    for j, o in enumerate(outputs or []):
        if not isinstance(o, str):
            raise InvalidParameter(f"outputs[{j}]", o, _LABEL)
    return FiniteMechanism.from_rows(matrix, secrets, inputs=inputs, outputs=outputs)


def parse_csv(text: str) -> FiniteMechanism:
    """A mechanism from the CSV text described in the module docstring.

    Raises:
        InvalidParameter: naming the line or row at fault.
    """
    try:
        lines = [r for r in csv.reader(io.StringIO(text)) if r and any(c.strip() for c in r)]
    except csv.Error as exc:  # a field over the csv module's limit (128 KiB), a NUL, ...
        raise InvalidParameter("FILE", "<CSV text>", f"well-formed CSV ({exc})") from None
    lines = [[c.strip() for c in r] for r in lines if not r[0].strip().startswith("#")]
    declared = None
    if lines and lines[0][0] == "secrets":
        declared = [c for c in lines[0][1:] if c]
        lines = lines[1:]
    if not lines or lines[0][:2] != ["secret", "input"] or len(lines[0]) < 3:
        got = lines[0] if lines else None
        raise InvalidParameter("header", got, "a header line 'secret,input,<output labels...>'")
    outputs = lines[0][2:]
    matrix, secrets, inputs = [], [], []
    for i, r in enumerate(lines[1:]):
        if len(r) != len(outputs) + 2:
            raise InvalidParameter(f"row[{i}]", r, f"secret, input and {len(outputs)} probabilities")
        secrets.append(r[0])
        inputs.append(r[1])
        matrix.append(r[2:])
    if not matrix:
        raise InvalidParameter("rows", 0, "at least one row after the header")
    _check_secrets(declared, secrets, inputs)
    return FiniteMechanism.from_rows(matrix, secrets, inputs=inputs, outputs=outputs)


def read_mechanism(path: str | Path) -> FiniteMechanism:
    """Read a mechanism file (JSON or CSV, see the module docstring).

    Raises:
        InvalidParameter: for an unreadable file or malformed content.
    """
    p = Path(path)
    text = files.read_text(p, what="FILE")
    is_json = p.suffix.lower() == ".json" or (p.suffix.lower() != ".csv" and text.lstrip().startswith("{"))
    if is_json:
        return parse_json(files.loads_json(text, where=str(path), what="FILE"))
    return parse_csv(text)
