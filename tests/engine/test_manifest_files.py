"""Manifests: each file read once, cycles refused, no silent empty run, bounded reading (issue 18 §3).

Before: 23 files of 40 bytes, each including the next one twice, made ``verify`` read 2^23 files (a hang); an
empty manifest verified nothing and exited 0; a FIFO blocked, a binary file was an internal error.
"""

import os

import pytest
from timeguard import time_limit

from dpcert.engine.manifest import load_manifest
from dpcert.errors import ManifestError

CLAIM = (
    '[[claims]]\nid = "t.m.{i}"\nreference = "r"\nquantity = "composition.simple.eps"\n'
    'inputs = {{ k = 2, eps = "0.1" }}\nat_most = "0.2"\n'
)


def test_a_diamond_chain_of_includes_is_read_once(tmp_path):
    n = 23
    for i in range(n):
        inc = f'include = ["f{i + 1}.toml", "f{i + 1}.toml"]\n' if i + 1 < n else ""
        (tmp_path / f"f{i}.toml").write_text(inc + CLAIM.format(i=i))
    reads = []
    import dpcert.core.files as files

    original = files.read_text

    def counting(path, **kw):
        reads.append(os.path.basename(path))
        return original(path, **kw)

    files.read_text = counting
    try:
        with time_limit(10):
            entries = load_manifest(tmp_path / "f0.toml")
    finally:
        files.read_text = original
    assert sorted(e.claim.id for e in entries) == sorted(f"t.m.{i}" for i in range(n))
    assert sorted(reads) == sorted(f"f{i}.toml" for i in range(n))  # each file once


def test_an_include_cycle_is_refused_with_its_chain(tmp_path):
    (tmp_path / "a.toml").write_text('include = ["b.toml"]\n' + CLAIM.format(i=0))
    (tmp_path / "b.toml").write_text('include = ["c.toml"]\n')
    (tmp_path / "c.toml").write_text('include = ["a.toml"]\n')
    with pytest.raises(ManifestError, match=r"include cycle \(a.toml -> b.toml -> c.toml -> a.toml\)"):
        load_manifest(tmp_path / "a.toml")


def test_a_self_include_is_a_cycle(tmp_path):
    (tmp_path / "a.toml").write_text('include = ["./a.toml"]\n' + CLAIM.format(i=0))
    with pytest.raises(ManifestError, match="include cycle"):
        load_manifest(tmp_path / "a.toml")


@pytest.mark.parametrize("text", ["", "# nothing\n", 'description = "x"\n', "claims = []\n"])
def test_a_manifest_without_claims_is_an_error(tmp_path, text):
    (tmp_path / "m.toml").write_text(text)
    with pytest.raises(ManifestError, match="no claims"):
        load_manifest(tmp_path / "m.toml")


def test_includes_of_empty_files_are_fine_when_some_claim_results(tmp_path):
    (tmp_path / "empty.toml").write_text("")
    (tmp_path / "m.toml").write_text('include = ["empty.toml"]\n' + CLAIM.format(i=0))
    assert [e.claim.id for e in load_manifest(tmp_path / "m.toml")] == ["t.m.0"]


def _bad_files(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.toml"
    os.symlink(loop, loop)
    (tmp_path / "bin.toml").write_bytes(b"a = 1\n\x00\x01")
    (tmp_path / "latin1.toml").write_bytes('description = "caf\xe9"\n'.encode("latin-1"))
    (tmp_path / "bom.toml").write_text("\ufeff" + CLAIM.format(i=0), encoding="utf-8")
    (tmp_path / "deep.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "include_fifo.toml").write_text('include = ["fifo.toml"]\n' + CLAIM.format(i=0))
    return {
        "fifo": (fifo, "FIFO"),
        "device": ("/dev/zero", "device"),
        "symlink loop": (loop, "symbolic links|unreadable path"),
        "binary": (tmp_path / "bin.toml", "binary"),
        "not UTF-8": (tmp_path / "latin1.toml", "not UTF-8"),
        "BOM": (tmp_path / "bom.toml", "byte-order mark"),
        "deep": (tmp_path / "deep.toml", "nested at most"),
        "directory": (tmp_path, "directory"),
        "missing": (tmp_path / "nope.toml", "No such file"),
        "included FIFO": (tmp_path / "include_fifo.toml", "FIFO"),
    }


def test_bad_manifest_files_are_one_manifest_error_each(tmp_path):
    for what, (path, message) in _bad_files(tmp_path).items():
        with time_limit(5), pytest.raises(ManifestError, match=message) as info:
            load_manifest(path)
        assert "\n" not in str(info.value), what
