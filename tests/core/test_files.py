"""dpcert.core.files: bounded reading of untrusted files and atomic writes, tested on the module itself (the
certificate, manifest, mechanism and γ-table readers that use it have their own tests)."""

import os

import pytest

from dpcert.core.files import atomic_write_text, load_json, loads_json, loads_toml, read_text
from dpcert.errors import InvalidParameter


def test_json_duplicate_keys_nan_and_deep_nesting_are_refused():
    with pytest.raises(InvalidParameter, match="duplicate keys"):
        loads_json('{"verdict": "REFUTED", "verdict": "CERTIFIED"}')
    with pytest.raises(InvalidParameter, match="NaN"):
        loads_json('{"lo": NaN}')
    with pytest.raises(InvalidParameter, match="nested at most 64"):
        loads_json("[" * 65 + "]" * 65)
    nested: list = []
    for _ in range(63):
        nested = [nested]
    assert loads_json("[" * 64 + "]" * 64) == nested  # the limit itself is allowed


def test_json_brackets_inside_strings_do_not_count():
    text = '{"a": "' + "[{" * 1000 + '\\" [[[["}'
    assert loads_json(text) == {"a": "[{" * 1000 + '" [[[['}


def test_toml_nesting_skips_strings_and_comments_but_counts_arrays():
    text = "a = \"[[[[[[\" # [[[[[[[[\nb = '[[[['\nc = [[1], [2]]\n"
    assert loads_toml(text, max_depth=2) == {"a": "[[[[[[", "b": "[[[[", "c": [[1], [2]]}
    with pytest.raises(InvalidParameter, match="nested at most 2"):
        loads_toml("c = [[[1]]]\n", max_depth=2)
    with pytest.raises(InvalidParameter, match="nested at most 64"):
        loads_toml("a = " + "[" * 5000 + "]" * 5000)


@pytest.mark.parametrize(
    ("data", "message"),
    [(b'\xef\xbb\xbf{"a": 1}', "byte-order mark"), (b'{"a": 1}\x00', "NUL"), (b"\xff\xfe{}", "not UTF-8")],
)
def test_text_that_is_not_plain_utf8_is_refused(tmp_path, data, message):
    p = tmp_path / "x.json"
    p.write_bytes(data)
    with pytest.raises(InvalidParameter, match=message):
        load_json(p)


def test_only_regular_files_within_the_size_limit_are_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InvalidParameter, match="FIFO"):  # refused without blocking on the open
        read_text(fifo)
    with pytest.raises(InvalidParameter, match="device"):
        read_text("/dev/zero")
    with pytest.raises(InvalidParameter, match="directory"):
        read_text(tmp_path)
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(InvalidParameter, match="symbolic links"):
        read_text(tmp_path / "a")
    big = tmp_path / "big"
    big.write_text("x" * 100)
    with pytest.raises(InvalidParameter, match="at most 10 bytes"):
        read_text(big, max_bytes=10)
    assert read_text(big, max_bytes=100) == "x" * 100


def test_atomic_write_replaces_a_planted_hard_link_and_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    target = tmp_path / "cert.json"
    os.link(outside, target)
    atomic_write_text(target, "new")
    assert target.read_text() == "new" and outside.read_text() == "not yours"

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        atomic_write_text(target, "half")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cert.json", "outside.txt"]  # no temporary file left
