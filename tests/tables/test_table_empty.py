"""A table without a row is refused in one line (exit 2): on f3737cd a header alone, ``[]`` or ``{"rows": []}``
printed "0 rows" and exited 0, as if every row had been certified."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from dpcert.cli import main
from dpcert.errors import InvalidParameter
from dpcert.tables import check_table, read_table

EMPTY = {
    "header.csv": "quantity,value,claim\n",
    "header_and_comments.csv": "# a table\nquantity,k,eps,value,claim\n\n# nothing else\n",
    "list.json": "[]\n",
    "object.json": '{"description": "none", "rows": []}\n',
    "rows.toml": 'description = "none"\nrows = []\n',
}


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_a_table_without_rows_is_refused(tmp_path, name, monkeypatch):
    path = tmp_path / name
    path.write_text(EMPTY[name])
    with pytest.raises(InvalidParameter, match="at least one row"):
        read_table(path)
    with pytest.raises(InvalidParameter, match="at least one row"):
        check_table(path, workers=1)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        monkeypatch.chdir(tmp_path)  # a relative path: the message quotes at most 80 characters of it
        code = main(["table", "check", name, "-q", "--workers", "1"])
    assert code == 2 and out.getvalue() == ""
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and "at least one row (it has none)" in lines[0], lines
