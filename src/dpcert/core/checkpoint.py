"""Checkpoints of parallel runs: finished chunks on disk, each entry authenticated under the user's key.

:func:`dpcert.core.parallel.map_chunks` records each finished chunk's :class:`~dpcert.core.summary.Summary` in a
:class:`Checkpoint` and resumes from it; the trust model is in the documentation's page on parallel runs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dpcert.core.summary import Summary, _decode, _encode
from dpcert.core.workers import code_fingerprint
from dpcert.errors import RunOptionError

__all__ = ["Checkpoint", "checkpoint_key_path", "CHECKPOINT_KEY_ENV"]

#: Environment variable naming the file of the checkpoint key, instead of the one :func:`checkpoint_key_path` names.
CHECKPOINT_KEY_ENV = "DPCERT_CHECKPOINT_KEY"


def checkpoint_key_path() -> Path:
    """Where this user's checkpoint key is: ``$DPCERT_CHECKPOINT_KEY``, else ``dpcert/checkpoint.key`` under
    ``$XDG_CONFIG_HOME`` (default ``~/.config``)."""
    named = os.environ.get(CHECKPOINT_KEY_ENV)
    if named:
        return Path(named)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "dpcert" / "checkpoint.key"


def _checkpoint_secret() -> bytes:
    """This user's checkpoint key (32 random bytes in a file only the user may read, created on first use)."""
    import secrets

    path = checkpoint_key_path()
    bad = RunOptionError(
        "checkpoint key file", str(path), "a file of 64 hex digits that only you can read and write (mode 0600)"
    )
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
            try:
                os.link(tmp, path)  # atomic, and never over a key another process made meanwhile
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
        except OSError:
            raise bad from None
    try:
        st = path.stat()
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        raise bad from None
    private = os.name != "posix" or (st.st_uid == os.getuid() and not st.st_mode & 0o077)  # POSIX modes only
    if not private or len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise bad
    return bytes.fromhex(text)


#: checkpoint files of other code this process has already reported
_REPORTED: set[str] = set()


class Checkpoint:
    """A file of finished chunks: ``{"format", "dpcert", "key", "code", "sections": {call: {chunk index: entry}}}``.

    ``key`` hashes what the run computes; ``code`` is the :func:`~dpcert.core.workers.code_fingerprint` of the
    code that wrote it; each :func:`~dpcert.core.parallel.map_chunks` call of the run is a section keyed by its
    function and chunks. Each entry is ``{"v": value, "mac": ...}``, the value authenticated by an HMAC-SHA256 under
    this user's checkpoint key (:func:`checkpoint_key_path`, a key the file does not carry) over the inputs' key, the
    code fingerprint, the section, the index and the value. A file written by other code (another code fingerprint)
    is not used: its chunks are computed again, and one line on stderr says so; a file of this code with an entry
    that does not prove itself (damaged, edited, or written by another user) is refused.

    Written atomically (a temporary file renamed over it), so a kill at any moment leaves the previous or the next
    state, never a torn file: at the first finished chunk, then at most once every :attr:`WRITE_EVERY` seconds, and
    by :meth:`flush` when the run ends, fails or is interrupted (Ctrl-C, SIGTERM). A SIGKILL loses at most the last
    second's chunks, which a resumed run computes again. (Rewriting the whole file after each chunk cost 12 ms per
    chunk at 1,725 chunks, K = 101: serial work in the main process.)

    Raises:
        RunOptionError: the file is not a dpcert checkpoint, is damaged, or is of other inputs or another dpcert
            version; the checkpoint key file is unusable.
    """

    FORMAT = "dpcert-checkpoint"
    #: Seconds between two writes of the file at most while chunks finish.
    WRITE_EVERY = 1.0

    def __init__(self, path: str | os.PathLike[str], key: str) -> None:
        from dpcert._version import __version__
        from dpcert.core.files import check_output

        check_output(path, option="--checkpoint", error=RunOptionError)  # no device, FIFO, symlink, read-only dir
        self.path = Path(path)
        self.version = __version__
        self.key = hashlib.sha256(f"{__version__}\0{key}".encode()).hexdigest()
        self.code = code_fingerprint()
        self._secret = _checkpoint_secret()
        self.data: dict[str, Any] = {
            "format": self.FORMAT,
            "dpcert": __version__,
            "key": self.key,
            "code": self.code,
            "sections": {},
        }
        self._dirty = False
        self._written: float | None = None
        if self.path.exists():
            self._load()

    def _mac(self, section: str, i: int, encoded: Any) -> str:
        msg = json.dumps([self.FORMAT, self.key, self.code, section, i, encoded], separators=(",", ":"))
        return hmac.new(self._secret, msg.encode(), hashlib.sha256).hexdigest()

    def _load(self) -> None:
        from dpcert.core.files import load_json

        data = load_json(self.path, what="checkpoint")
        ok = isinstance(data, dict) and data.get("format") == self.FORMAT and isinstance(data.get("sections"), dict)
        if not ok or not set(self.data) - {"code"} <= set(data) <= set(self.data):
            raise RunOptionError("--checkpoint", str(self.path), "a dpcert checkpoint file (this is not one)")
        if data["dpcert"] != self.version:
            raise RunOptionError(
                "--checkpoint",
                str(self.path),
                f"a checkpoint written by this dpcert {self.version} (it was written by dpcert {data['dpcert']})",
            )
        if data["key"] != self.key:
            raise RunOptionError(
                "--checkpoint", str(self.path), "a checkpoint of these inputs (it was written for other inputs)"
            )
        sections: dict[str, dict[str, Any]] = {}
        untrusted = 0
        for section, entries in data["sections"].items():
            if not isinstance(entries, dict) or not all(k.isdigit() and len(k) < 10 for k in entries):
                raise self._damaged()
            kept = sections[section] = {}
            for k, entry in entries.items():
                good = isinstance(entry, dict) and set(entry) == {"v", "mac"} and isinstance(entry["mac"], str)
                if good and hmac.compare_digest(entry["mac"], self._mac(section, int(k), entry["v"])):
                    kept[k] = entry
                else:
                    untrusted += 1
        if untrusted and data.get("code") == self.code:
            raise RunOptionError(
                "--checkpoint",
                str(self.path),
                f"a dpcert checkpoint whose entries prove themselves under this user's checkpoint key ({untrusted} "
                "do not: damaged, edited, or written by another user; remove the file to start afresh)",
            )
        if untrusted:  # written by other code: nothing in it is used, and the file is rewritten by this code
            self._dirty = True
            if str(self.path) not in _REPORTED:
                _REPORTED.add(str(self.path))
                sys.stderr.write(
                    f"dpcert: --checkpoint {self.path} was written by other dpcert code (its sources differ from "
                    f"this one's): its {untrusted} finished chunk(s) are computed again\n"
                )
                sys.stderr.flush()
        self.data["sections"] = sections

    def finished(self, section: str) -> dict[int, Summary]:
        """The chunks of ``section`` already finished, by index."""
        try:
            return {i: Summary.from_json(v) for i, v in self._raw(section).items()}
        except (ValueError, TypeError, ArithmeticError):
            raise self._damaged() from None

    def record(self, section: str, i: int, summary: Summary) -> None:
        """Add chunk ``i`` of ``section`` and write the file (atomically)."""
        self._put(section, i, summary.to_json())

    def values(self, section: str) -> dict[int, Any]:
        """The values recorded by :meth:`put` in ``section``, by index (tuples, floats and fractions restored)."""
        try:
            return {i: _decode(v) for i, v in self._raw(section).items()}
        except (ValueError, TypeError, ArithmeticError):
            raise self._damaged() from None

    def put(self, section: str, i: int, value: Any) -> None:
        """Record any value of None, bool, int, float, str, Fraction, tuple, list and dict with str keys.

        Raises:
            TypeError: for a value of another type (nothing is written).
        """
        self._put(section, i, _encode(value))

    def _raw(self, section: str) -> dict[int, Any]:
        """The authenticated values of ``section`` (entries that did not prove themselves were dropped on load)."""
        return {int(k): e["v"] for k, e in self.data["sections"].get(section, {}).items()}

    def _put(self, section: str, i: int, encoded: Any) -> None:
        entry = {"v": encoded, "mac": self._mac(section, i, encoded)}
        self.data["sections"].setdefault(section, {})[str(i)] = entry
        self._dirty = True
        if self._written is None or time.monotonic() - self._written >= self.WRITE_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write what was recorded since the last write (atomically); nothing when nothing was."""
        from dpcert.core.files import atomic_write_text

        if self._dirty:
            text = json.dumps(self.data, separators=(",", ":")) + "\n"
            atomic_write_text(self.path, text, what="--checkpoint", error=RunOptionError)
            self._dirty = False
            self._written = time.monotonic()

    def _damaged(self) -> RunOptionError:
        return RunOptionError("--checkpoint", str(self.path), "a dpcert checkpoint file (it is damaged)")


def _section(fn: Callable[..., Any], chunks: list[Any]) -> str:
    """The identity of one :func:`map_chunks` call: its function and its chunks (their ``repr``)."""
    h = hashlib.sha256(f"{fn.__module__}:{fn.__qualname__}".encode())
    for c in chunks:
        h.update(b"\0" + repr(c).encode())
    return h.hexdigest()
