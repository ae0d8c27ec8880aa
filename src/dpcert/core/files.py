"""Reading untrusted files with bounded work, and writing files atomically.

Every file dpcert reads (a certificate, a manifest, a mechanism, a γ table) comes through :func:`read_text`,
:func:`load_json` or :func:`load_toml`; every file it writes goes through :func:`atomic_write_text`.

Reading refuses, in one line (:class:`~dpcert.errors.InvalidParameter` naming what the file was for):

* anything that is not a regular file (a FIFO, a device such as ``/dev/zero``, a directory, a socket), checked
  on the opened descriptor so that a file swapped after the check cannot slip through, and opened non-blocking so
  that a FIFO never blocks the open;
* a symlink loop or any other OS error;
* a file larger than its limit (read up to the limit plus one byte, never further);
* bytes that are not UTF-8, a NUL byte (a binary file), a UTF-8 byte-order mark;
* JSON with duplicate keys (one file, one reading: ``json`` would otherwise keep the last), ``NaN``/``Infinity``,
  or nesting deeper than a bound (checked by a linear scan before the parser recurses).

Writing goes to a temporary file in the target's directory, is flushed and synced, then renamed over the target
with :func:`os.replace`: a reader sees the old file or the new one, never a part; a killed or failing write
leaves the old file intact; a hard link planted at the target's name is replaced, never written through.

What dpcert writes over, and where (:func:`check_output`, checked before any work and again at the write):

* a file option (``--out``, ``--markdown``, ``--checkpoint``) names a new file in an existing writable directory
  or an existing regular file, which is replaced; ``-`` means standard output where a command offers it;
* a directory option (``--certificate``, ``--certificates``) names an existing writable directory or a new one
  in an existing writable directory (only that last component is created); dpcert writes its own file names
  inside it, each by the rule above;
* refused, in one line naming the option, the path and what it is: an empty path; a FIFO, a character or block
  device, a socket (or a directory where a file is meant, a file where a directory is meant); a **symlink as the
  last component** (never followed, never replaced; the message names the real path it points to, to be given
  instead); a directory without write permission — also for root, who could write it: a directory whose mode
  has no write bit is read-only by intent.

Symlinks *inside* the path (``/tmp`` -> ``/private/tmp``) are followed as the system follows them.

A writer killed between creating its temporary file and renaming it (``kill -9``) leaves
``.NAME.dpcert-HOST-PID-XXXX.tmp`` behind; the next dpcert writer in that directory removes the temporary files
of writers on this host whose process is gone (and those of another host a day old).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dpcert.errors import InvalidParameter, ManifestError

__all__ = [
    "bundled_dir",
    "MAX_FILE_BYTES",
    "MAX_DEPTH",
    "read_text",
    "load_json",
    "loads_json",
    "load_toml",
    "loads_toml",
    "atomic_write_text",
    "check_output",
    "remove_stale_temporaries",
    "STALE_SECONDS",
]

#: default size limit of a file dpcert reads (certificates, manifests, mechanisms, tables)
MAX_FILE_BYTES = 16 * 1024 * 1024
#: default nesting limit of a JSON or TOML document
MAX_DEPTH = 64

_BOM = "\ufeff"


def _short(text: Any, limit: int = 80) -> str:
    s = str(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def read_text(path: str | os.PathLike[str], *, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` bytes.

    Raises:
        InvalidParameter: (named ``what``) for anything but a readable regular UTF-8 text file within the limit.
    """
    p = os.fspath(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InvalidParameter(what, _short(p), f"a readable file ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = (
                "a FIFO"
                if stat.S_ISFIFO(st.st_mode)
                else "a directory"
                if stat.S_ISDIR(st.st_mode)
                else "a device"
                if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "not a regular file"
            )
            raise InvalidParameter(what, _short(p), f"a regular file (this is {kind})")
        if st.st_size > max_bytes:
            raise InvalidParameter(what, _short(p), f"a file of at most {max_bytes} bytes (it has {st.st_size})")
        chunks = []
        left = max_bytes + 1
        while left > 0:
            try:
                b = os.read(fd, min(left, 1 << 20))
            except OSError as exc:
                raise InvalidParameter(what, _short(p), f"a readable file ({exc.strerror or exc})") from None
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise InvalidParameter(what, _short(p), f"a file of at most {max_bytes} bytes (it grew while read)")
    if b"\x00" in data:
        raise InvalidParameter(what, _short(p), "a UTF-8 text file (this one is binary: it holds a NUL byte)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidParameter(what, _short(p), f"a UTF-8 text file (byte {exc.start} is not UTF-8)") from None
    if text.startswith(_BOM):
        raise InvalidParameter(what, _short(p), "UTF-8 without a byte-order mark (the file starts with U+FEFF)")
    return text


def _nesting_exceeds(text: str, limit: int, *, quotes: str = '"', comment: str = "") -> int | None:
    """The position where bracket/brace nesting first exceeds ``limit``, skipping quoted strings (a backslash
    escapes inside double quotes only) and, when ``comment`` is given, comments to the end of the line; or ``None``.

    A linear scan before a recursive parser sees the text: JSON with ``quotes='"'``, TOML with ``quotes="\"'"`` and
    ``comment="#"`` (conservative for TOML: it may count a bracket a TOML parser would not, never the reverse).
    """
    depth = 0
    quote = ""
    esc = in_comment = False
    for i, ch in enumerate(text):
        if in_comment:
            in_comment = ch != "\n"
        elif quote:
            if esc:
                esc = False
            elif ch == "\\" and quote == '"':
                esc = True
            elif ch == quote:
                quote = ""
        elif ch in quotes:
            quote = ch
        elif comment and ch == comment:
            in_comment = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return i
        elif ch in "]}":
            depth = max(0, depth - 1)
    return None


def _no_duplicates(where: str, what: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out:
                raise InvalidParameter(what, where, f"JSON without duplicate keys (key {_short(k, 40)!r} repeats)")
            out[k] = v
        return out

    return hook


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads_json(text: str, *, where: str = "<text>", what: str = "file", max_depth: int = MAX_DEPTH, **kw: Any) -> Any:
    """Parse JSON strictly: duplicate keys, ``NaN``/``Infinity`` and nesting deeper than ``max_depth`` are refused.

    ``kw`` goes to :func:`json.loads` (e.g. ``parse_float=str``).
    """
    pos = _nesting_exceeds(text, max_depth)
    if pos is not None:
        raise InvalidParameter(what, _short(where), f"JSON nested at most {max_depth} deep (deeper at character {pos})")
    try:
        return json.loads(
            text, object_pairs_hook=_no_duplicates(_short(where), what), parse_constant=_no_constant, **kw
        )
    except InvalidParameter:
        raise
    except json.JSONDecodeError as exc:
        raise InvalidParameter(
            what, _short(where), f"valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except (ValueError, RecursionError) as exc:  # an int past Python's digit limit, NaN, ...
        raise InvalidParameter(what, _short(where), f"valid JSON ({_short(exc)})") from None


def load_json(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    max_bytes: int = MAX_FILE_BYTES,
    max_depth: int = MAX_DEPTH,
    **kw: Any,
) -> Any:
    """:func:`read_text` then :func:`loads_json`."""
    return loads_json(
        read_text(path, what=what, max_bytes=max_bytes), where=os.fspath(path), what=what, max_depth=max_depth, **kw
    )


def _toml_module() -> Any:
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def loads_toml(
    text: str,
    *,
    where: str = "<text>",
    what: str = "manifest",
    max_depth: int = MAX_DEPTH,
    parse_float: Callable[[str], Any] = float,
) -> Any:
    """Parse TOML with bounded nesting; any parse error is one line.

    ``parse_float`` goes to ``tomllib.loads`` (``str`` keeps a float as written, e.g. ``0.030``).
    """
    tomllib = _toml_module()
    pos = _nesting_exceeds(text, max_depth, quotes="\"'", comment="#")
    if pos is not None:
        raise InvalidParameter(what, _short(where), f"TOML nested at most {max_depth} deep (deeper at character {pos})")
    try:
        return tomllib.loads(text, parse_float=parse_float)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        raise InvalidParameter(what, _short(where), f"valid TOML ({_short(exc, 120)})") from None


def load_toml(
    path: str | os.PathLike[str], *, what: str = "manifest", max_bytes: int = MAX_FILE_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """:func:`read_text` then :func:`loads_toml`."""
    return loads_toml(
        read_text(path, what=what, max_bytes=max_bytes), where=os.fspath(path), what=what, max_depth=max_depth
    )


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "not a regular file"


def _writable_dir(d: str, option: str, shown: str, error: type[InvalidParameter]) -> None:
    """Refuse a directory that does not exist or that dpcert must not write into (see the module docstring)."""
    try:
        st = os.stat(d)
    except OSError as exc:
        raise error(option, shown, f"a path in an existing directory ({d}: {exc.strerror or exc})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise error(option, shown, f"a path in an existing directory ({d} is {_kind(st.st_mode)})")
    if not st.st_mode & 0o222 or not os.access(d, os.W_OK | os.X_OK):
        raise error(option, shown, f"a path in a writable directory ({d} is read-only)")


def check_output(
    path: str | os.PathLike[str],
    *,
    option: str,
    directory: bool = False,
    stream: bool = False,
    error: type[InvalidParameter] = InvalidParameter,
) -> str:
    """Refuse an output path dpcert must not write (the rules are in the module docstring); return it as text.

    Args:
        option: the option or parameter the path was given as (``"--out"``), named in the message.
        directory: the path names a directory dpcert writes its own files into (else a file).
        stream: ``-`` (standard output) is accepted and returned as is.
        error: the exception class (a subclass of :class:`InvalidParameter`) to raise.

    Raises:
        InvalidParameter: (``error``) one line naming ``option``, the path and what it is.
    """
    p = os.fspath(path)
    shown = _short(p)
    if p == "":
        raise error(option, p, "a non-empty path" + (" (or - for standard output)" if stream else ""))
    if p == "-" and stream:
        return p
    want = "a directory or a new name" if directory else "a regular file or a new name"
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        bare = p.rstrip("/" + os.sep) or p  # "certs/" is the new directory certs, in "."
        if not directory and bare != p:
            raise error(option, shown, f"{want} (a name ending in / is a directory)") from None
        _writable_dir(os.path.dirname(bare) or ".", option, shown, error)
        return p
    except OSError as exc:
        raise error(option, shown, f"{want} in an existing directory ({exc.strerror or exc})") from None
    if stat.S_ISLNK(st.st_mode):
        real = _short(os.path.realpath(p), 200)
        raise error(option, shown, f"{want}, not a symlink (it points to {real}: give that path instead)")
    if directory and stat.S_ISDIR(st.st_mode):
        _writable_dir(p, option, shown, error)
        return p
    if not directory and stat.S_ISREG(st.st_mode):
        _writable_dir(os.path.dirname(p) or ".", option, shown, error)
        return p
    hint = "; - writes to standard output" if stream and not stat.S_ISDIR(st.st_mode) else ""
    raise error(option, shown, f"{want} (it is {_kind(st.st_mode)}{hint})")


#: The hash of this host in the names of temporary files (a dead writer's file is recognised as this host's).
_HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]
_TMP = re.compile(r"\..+\.dpcert-([0-9a-f]{8})-([0-9]+)-[^.]+\.tmp")
#: Seconds after which a temporary file of another host is removed (its writer cannot still be writing).
STALE_SECONDS = 86400.0
_swept: set[str] = set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def remove_stale_temporaries(directory: str | os.PathLike[str]) -> list[str]:
    """Remove the temporary files dead dpcert writers left in ``directory`` and return their names.

    A temporary file's name holds its writer's host and process id: one of this host whose process is gone is
    removed, one of another host when it is :data:`STALE_SECONDS` old. Other files are never touched.
    """
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    now = time.time()
    for e in entries:
        m = _TMP.fullmatch(e.name)
        if m is None:
            continue
        host, pid = m.group(1), int(m.group(2))
        try:
            if host == _HOST:
                if pid == os.getpid() or _alive(pid):
                    continue
            elif now - e.stat(follow_symlinks=False).st_mtime < STALE_SECONDS:
                continue
            os.unlink(e.path)
            removed.append(e.name)
        except OSError:
            pass
    return removed


def atomic_write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    encoding: str = "utf-8",
    what: str = "file",
    error: type[InvalidParameter] = InvalidParameter,
) -> Path:
    """Write ``text`` to ``path`` atomically (temporary file in the same directory, fsync, :func:`os.replace`).

    The directory must exist. ``path`` is checked by :func:`check_output` (a device, FIFO, socket, symlink or
    read-only directory is refused, never replaced). On any failure (ENOSPC, a signal) the temporary file is
    removed and an existing file at ``path`` is left as it was; the temporary files of dead writers in the
    directory are removed first (once per directory and process). Returns the path written.

    Raises:
        InvalidParameter: (``error``, naming ``what``) for a path :func:`check_output` refuses.
        OSError: when the file cannot be written (the caller turns it into its own one-line error).
    """
    check_output(path, option=what, error=error)
    target = Path(path)
    directory = target.parent
    if str(directory) not in _swept:
        _swept.add(str(directory))
        remove_stale_temporaries(directory)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.dpcert-{_HOST}-{os.getpid()}-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename durable; not every filesystem allows fsync on a directory
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
    return target


def bundled_dir() -> Path:
    """The directory of the bundled manifests (``verify/`` in a checkout, packaged data in a wheel)."""
    here = Path(__file__).resolve()
    checkout = here.parents[3] / "verify"
    if (checkout / "certificates").is_dir():
        return checkout
    packaged = here.parents[1] / "_bundled" / "verify"
    if (packaged / "certificates").is_dir():
        return packaged
    raise ManifestError(str(checkout), "the bundled manifests are missing from this installation")
