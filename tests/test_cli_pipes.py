"""`dpcert ... | head`: a reader that closes stdout early ends the command quietly with exit code 141 (128 + SIGPIPE),
not a traceback or an "error: Broken pipe"."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcert.cli import EXIT_BROKEN_PIPE

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.mark.parametrize("argv", [["list"], ["verify", "--select", "composition.mv.homogeneous_reduction", "--quiet"]])
def test_closed_stdout_exits_quietly(argv):
    r, w = os.pipe()
    os.close(r)  # the reader has gone before anything is written: every write fails with EPIPE
    proc = subprocess.Popen(
        [sys.executable, "-m", "dpcert.cli", *argv],
        stdout=w,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    os.close(w)
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err) == (EXIT_BROKEN_PIPE, "")
