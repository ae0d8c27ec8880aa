"""Where dpcert writes: every writer, on the command line and in Python, refuses a FIFO, a device, a symlink and a
read-only directory before any work, leaves the node as it was and creates nothing anywhere else; ``-`` is
standard output where a stream makes sense; an empty path is refused; dead writers' temporary files are removed.

Each test here failed on f3737cd: there ``--out FIFO`` (or a device) was replaced by a regular file after the
work, a symlinked ``--certificates`` directory was written through, a symlink ``--out`` was replaced and the
vector certificates went beside its target, root wrote into a read-only directory, ``--certificate ''`` wrote
nothing and exited 0, and a killed writer's ``.NAME.XXXX.tmp`` stayed forever.
"""

from __future__ import annotations

import hashlib
import io
import os
import signal
import stat
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from pathlib import Path

import pytest

import dpcert
from dpcert.cli import main
from dpcert.core.files import atomic_write_text
from dpcert.core.parallel import Checkpoint
from dpcert.darrm.optimize import write_table
from dpcert.engine.certificate import write_certificate
from dpcert.engine.registry import claims
from dpcert.errors import InvalidParameter, RunOptionError
from dpcert.vectors.export import export

ROOT = Path(__file__).resolve().parents[2]
SRC = Path(dpcert.__file__).resolve().parents[1]  # the dpcert under test, for its subprocesses
TABLE = ROOT / "verify" / "tables" / "examples" / "darrm_table2.csv"

#: every writer of the command line: (name, option, argv builder given the path, the option's kind)
_OPTIMIZE = ["darrm", "optimize", "K=3", "m=1", "eps=1", "Delta=0", "delta=general", "-q"]
_CERTIFY = ["darrm", "certify", "gamma=one", "K=3", "m=1", "eps=1", "Delta=0", "delta=0", "-q"]
_CLAIM = ["claim", "composition.drv.eps", "k=2", "eps=0.1", "delta_prime=0.5", "--at-most", "1"]
_VERIFY = ["verify", "-s", "darrm.table2.mnist.q20.eps", "-q"]
_EXPORT = ["vectors", "export", "--topic", "darrm", "-q"]
CLI_WRITERS = {
    "vectors export --out": ("--out", "file", lambda p, d: ["vectors", "export", "--topic", "darrm", "-q", "--out", p]),
    "vectors export --certificates": (
        "--certificates",
        "dir",
        lambda p, d: [*_EXPORT, "--out", str(d / "ok" / "v.json"), "--certificates", p],
    ),
    "darrm optimize --out": ("--out", "file", lambda p, d: [*_OPTIMIZE, "--out", p]),
    "darrm optimize --checkpoint": ("--checkpoint", "file", lambda p, d: [*_OPTIMIZE, "--checkpoint", p]),
    "darrm certify --certificate": ("--certificate", "dir", lambda p, d: [*_CERTIFY, "--certificate", p]),
    "verify --certificates": ("--certificates", "dir", lambda p, d: [*_VERIFY, "--certificates", p]),
    "verify --checkpoint": ("--checkpoint", "file", lambda p, d: [*_VERIFY, "--checkpoint", p]),
    "claim --certificate": ("--certificate", "dir", lambda p, d: [*_CLAIM, "--certificate", p]),
    "table check --certificates": (
        "--certificates",
        "dir",
        lambda p, d: ["table", "check", str(TABLE), "-q", "--workers", "1", "--certificates", p],
    ),
    "check --markdown": ("--markdown", "file", lambda p, d: ["check", str(d / "genuine.json"), "--markdown", p]),
}
KINDS = ("fifo", "device", "symlink", "read-only directory")


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def snapshot(root: Path) -> dict[str, tuple[int, int, int, str]]:
    """Every node under ``root`` (not following symlinks): its type, inode, device number and content."""
    nodes = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                content = hashlib.sha256(p.read_bytes()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                content = os.readlink(p)
            else:
                content = ""
            nodes[str(p.relative_to(root))] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_rdev, content)
    return nodes


def make_target(tmp: Path, kind: str, option_kind: str) -> tuple[Path, str]:
    """A node of ``kind`` to be given as the path of an option (``file`` or ``dir``), and the word naming it."""
    if kind == "fifo":
        p = tmp / "fifo"
        os.mkfifo(p)
        return p, "a FIFO"
    if kind == "device":
        p = tmp / "null"
        try:  # the device numbers of /dev/null, made here: nothing of the machine's is at stake
            os.mknod(p, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("mknod is not permitted here (not root, or a restricted container)")
        return p, "a character device"
    if kind == "symlink":
        elsewhere = tmp / "elsewhere"
        elsewhere.mkdir()
        if option_kind == "dir":
            real = elsewhere / "real_dir"
            real.mkdir()
        else:
            real = elsewhere / "real.txt"
            real.write_text("precious\n")
        p = tmp / "link"
        p.symlink_to(real)
        return p, "symlink"
    ro = tmp / "ro"
    ro.mkdir()
    (ro / "kept.txt").write_text("kept\n")
    ro.chmod(0o555)
    return (ro if option_kind == "dir" else ro / "out.txt"), "read-only"


@pytest.fixture
def place(tmp_path):
    """A directory for the test's nodes, plus a genuine certificate and a writable directory beside it."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "ok").mkdir()
    write_certificate(claims()["darrm.table2.mnist.q20.eps"].check(), work / "certs")
    os.replace(work / "certs" / "darrm.table2.mnist.q20.eps.json", work / "genuine.json")
    (work / "certs").rmdir()
    yield work
    for dirpath, _, _ in os.walk(work):
        os.chmod(dirpath, 0o755)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("writer", sorted(CLI_WRITERS))
def test_every_command_line_writer_refuses_the_node_before_any_work_and_leaves_it_as_it_was(
    place, writer, kind, monkeypatch
):
    option, option_kind, argv = CLI_WRITERS[writer]
    target, word = make_target(place, kind, option_kind)
    before = snapshot(place)
    monkeypatch.chdir(place)  # short relative paths: a message quotes at most 80 characters of a value
    target = target.relative_to(place)
    t0 = time.monotonic()
    code, out, err = run(argv(str(target), place))
    assert code == 2, (writer, kind, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpcert: error:"), err
    assert option in lines[0] and str(target) in lines[0] and word in lines[0], lines[0]
    if kind == "symlink":  # the message names the real path the link points to
        assert str(Path(os.path.realpath(target))) in lines[0], lines[0]
    assert snapshot(place) == before  # the node is what it was (type, inode, device), nothing appeared anywhere
    assert time.monotonic() - t0 < 5  # refused when the arguments are parsed, not after the work


def test_the_python_writers_refuse_the_same_nodes(place):
    result = claims()["darrm.table2.mnist.q20.eps"].check()
    for kind in KINDS:
        sub = place / kind.replace(" ", "_")
        sub.mkdir()
        for option_kind, write in (
            ("dir", lambda p: write_certificate(result, p)),
            ("file", lambda p: export(["darrm"], out=p)),
            ("file", lambda p: write_table(p, (Fraction(1), Fraction(1, 3), Fraction(1)))),
            ("file", lambda p: Checkpoint(p, "key").flush()),
            ("file", lambda p: atomic_write_text(p, "text")),
        ):
            d = sub / f"{option_kind}_{len(list(sub.iterdir()))}"
            d.mkdir()
            target, word = make_target(d, kind, option_kind)
            before = snapshot(place)
            with pytest.raises(InvalidParameter, match=word):
                write(target)
            assert snapshot(place) == before, (kind, option_kind)


def test_a_checkpoint_on_a_symlink_is_a_run_option_error(tmp_path):
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "ck").symlink_to(tmp_path / "real.json")
    with pytest.raises(RunOptionError, match="--checkpoint.*symlink"):
        Checkpoint(tmp_path / "ck", "key")


def test_vectors_export_writes_its_certificates_in_the_directory_named_not_a_links_target(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "v.json").write_text("old\n")
    (tmp_path / "named").mkdir()
    (tmp_path / "named" / "v.json").symlink_to(target / "v.json")
    code, _, err = run(["vectors", "export", "--topic", "darrm", "-q", "--out", str(tmp_path / "named" / "v.json")])
    assert code == 2 and str(target / "v.json") in err
    assert sorted(os.listdir(target)) == ["v.json"] and (target / "v.json").read_text() == "old\n"
    # a plain path: the certificates go to certificates/ beside it, as the message says
    code, out, _ = run(["vectors", "export", "--topic", "darrm", "-q", "--out", str(tmp_path / "named" / "w.json")])
    assert code == 0 and f"into {tmp_path / 'named' / 'certificates'}" in out
    assert len(list((tmp_path / "named" / "certificates").glob("vectors.darrm.*.json"))) == 14


def test_dash_is_standard_output_where_a_stream_makes_sense(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run([*_OPTIMIZE, "--out", "-"])
    assert code == 0 and out == "l,gamma\n0,1\n1,1/3\n2,1/3\n3,1\n"  # the table alone (K = 3: gamma = 1, 1/3, 1/3, 1)
    assert "CERTIFIED" in err
    code, out, _ = run([*_EXPORT, "--out", "-", "--format", "csv"])
    assert code == 0 and out.splitlines()[0].startswith("id,topic,quantity,") and len(out.splitlines()) == 15
    assert os.listdir(tmp_path) == []  # no file named "-", no certificates/
    code, _, err = run([*_OPTIMIZE, "--out", "-", "--json"])
    assert code == 2 and "--out" in err


@pytest.mark.parametrize(
    "argv",
    [
        [*_CLAIM, "--certificate", ""],
        [*_VERIFY, "--certificates", ""],
        [*_VERIFY, "--checkpoint", ""],
        [*_CERTIFY, "--certificate", ""],
        [*_OPTIMIZE, "--out", ""],
        ["vectors", "export", "--topic", "darrm", "--out", ""],
        ["vectors", "export", "--topic", "darrm", "--out", "x.json", "--certificates", ""],
        ["table", "check", str(TABLE), "--certificates", ""],
        ["check", str(TABLE), "--markdown", ""],
        ["check", ""],
        ["vectors", "check", ""],
    ],
    ids=lambda argv: " ".join(a for a in argv if a.startswith("-") or a.isalpha())[:60],
)
def test_an_empty_path_is_refused_in_one_line(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.json").write_text("{}")  # `check ''` must not mean "the current directory"
    code, out, err = run(argv)
    assert code == 2 and out == "", (argv, out)
    assert len(err.strip().splitlines()) == 1 and "non-empty path" in err, err
    assert sorted(os.listdir(tmp_path)) == ["a.json"]


def test_check_output_accepts_a_new_name_an_existing_file_and_an_existing_directory(tmp_path):
    from dpcert.core.files import check_output

    (tmp_path / "f").write_text("x")
    assert check_output(tmp_path / "new", option="--out") == str(tmp_path / "new")
    assert check_output(tmp_path / "f", option="--out") == str(tmp_path / "f")
    assert check_output(tmp_path, option="--certificates", directory=True) == str(tmp_path)
    assert check_output(tmp_path / "newdir", option="--certificates", directory=True)
    with pytest.raises(InvalidParameter, match="it is a directory"):
        check_output(tmp_path, option="--out")
    with pytest.raises(InvalidParameter, match="it is a regular file"):
        check_output(tmp_path / "f", option="--certificates", directory=True)
    with pytest.raises(InvalidParameter, match="existing directory"):  # only the last component is ever created
        check_output(tmp_path / "no" / "certs", option="--certificates", directory=True)


# ------------------------------------------------------------------------------ temporary files of dead writers

_STUCK_WRITER = """
import os, sys, time
from dpcert.core import files
os.fsync = lambda fd: time.sleep(600)  # stop between creating the temporary file and renaming it
files.atomic_write_text(sys.argv[1], "x" * 1000)
"""


def _killed_writer(target: Path) -> list[str]:
    """Start a real writer of ``target``, kill -9 it mid-write, return the temporary files it left."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.Popen([sys.executable, "-c", _STUCK_WRITER, str(target)], env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            left = [n for n in os.listdir(target.parent) if n.endswith(".tmp")]
            if left:
                break
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return left


def test_the_next_writer_removes_what_a_killed_writer_left(tmp_path):
    d = tmp_path / "certs"
    d.mkdir()
    left = _killed_writer(d / "a.json")
    assert len(left) == 1 and left[0].startswith(".a.json.")
    (d / ".mine.tmp").write_text("a user's file")  # not a dpcert temporary file: never touched
    (d / ".x.json.1234.tmp").write_text("a name like ours, but not ours")
    write_certificate(claims()["darrm.table2.mnist.q20.eps"].check(), d)
    assert sorted(os.listdir(d)) == [".mine.tmp", ".x.json.1234.tmp", "darrm.table2.mnist.q20.eps.json"]


def test_a_live_writers_temporary_file_is_kept(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.Popen([sys.executable, "-c", _STUCK_WRITER, str(d / "b.json")], env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(n.endswith(".tmp") for n in os.listdir(d)):
            time.sleep(0.02)
        live = [n for n in os.listdir(d) if n.endswith(".tmp")]
        assert len(live) == 1
        atomic_write_text(d / "c.json", "y")
        assert sorted(os.listdir(d)) == sorted([*live, "c.json"])  # its writer is alive: kept
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_a_new_directory_named_with_a_trailing_slash_is_accepted(tmp_path, monkeypatch):
    """``--certificate certs/`` (the README's form) names the new directory ``certs`` in the working directory; a
    file option given a name ending in / is refused (it names a directory)."""
    from dpcert.core.files import check_output
    from dpcert.errors import InvalidParameter

    monkeypatch.chdir(tmp_path)
    assert check_output("certs/", option="--certificate", directory=True) == "certs/"
    assert check_output(str(tmp_path / "a") + "/", option="--certificates", directory=True)
    with pytest.raises(InvalidParameter, match="a name ending in / is a directory"):
        check_output("out.csv/", option="--out")
    assert not any(tmp_path.iterdir())
