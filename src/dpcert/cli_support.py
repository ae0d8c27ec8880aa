"""What every ``dpcert`` command module shares: its parser class, its option types and its output helpers.

This module sits below every command module (``dpcert/cli.py`` and each ``<package>/cli.py``) and above the rest
of dpcert: command modules import it, nothing else does. It turns command-line text into plain values (the
``name=value`` inputs, integer, real and time options, the run options) and writes the answers (JSON, tables);
the computation below never sees argparse.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from dpcert._text import text_table
from dpcert.core.files import check_output
from dpcert.errors import InvalidParameter

__all__ = [
    "EXIT_USAGE",
    "MAX_INPUTS",
    "MAX_PREC_LIMIT",
    "CommandParser",
    "DEFAULT_WIDTH",
    "add_run_options",
    "fitted_table",
    "int_option",
    "max_prec_option",
    "one_line",
    "parse_kv",
    "print_json",
    "quote",
    "real_option",
    "run_options",
    "seconds_option",
    "table",
]

#: Exit code of bad input (a usage error, an invalid parameter, an unreadable file).
EXIT_USAGE = 2
#: The largest ``--max-prec`` any command accepts (bits); a ball of 2^20 bits already costs seconds per operation.
MAX_PREC_LIMIT = 1 << 20
#: The most ``name=value`` inputs a command takes (every quantity has a handful of parameters).
MAX_INPUTS = 64


class CommandParser(argparse.ArgumentParser):
    """The parser of ``dpcert`` and of every subcommand (``add_subparsers`` hands its class down).

    - A usage error is one line on stderr naming the command's own help (``see `dpcert br adaptive --help```),
      exit 2.
    - No abbreviated options: ``--q 0.01`` is refused, not read as ``--quiet``.
    - A command without subcommands takes its ``name=value`` inputs before, between and after its options
      (``dpcert dpsgd eps q=0.01 --method rdp steps=1000``): its arguments are parsed intermixed, and an
      argument it does not know is refused by it (the hint names its help, not ``dpcert --help``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)
        self._intermixing = False

    def error(self, message: str) -> None:
        """Write the usage error as one line (not argparse's usage block) naming this command's help; exit 2."""
        message = " ".join(message.split())  # an argument holding a newline still makes one line
        if len(message) > 300:
            message = message[:280] + f"… ({len(message)} characters)"
        sys.stderr.write(f"dpcert: error: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(EXIT_USAGE)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Parse a command's arguments intermixed (a parser with subcommands parses plainly and hands the rest to
        the subcommand); an argument the command does not know is a usage error here."""
        # argparse's intermixed parsing calls this method twice (options, then positionals): the flag sends those
        # calls to the plain parser.
        if self._intermixing or any(isinstance(a, argparse._SubParsersAction) for a in self._actions):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            parsed, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False
        if extras:  # said here, so that the hint names this command's help and not dpcert's
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (what a command prints on stderr)."""
    return " ".join(str(exc).split())


def quote(text: str, limit: int = 80) -> str:
    """``repr(text)`` cut to about ``limit`` characters (an error message never echoes a whole bad input)."""
    r = repr(text)
    return r if len(r) <= limit else r[: limit - 20] + f"… ({len(text)} characters)"


def parse_kv(items: Sequence[str]) -> dict[str, str]:
    """``["k=10", "eps=0.1"]`` -> ``{"k": "10", "eps": "0.1"}`` (the ``name=value`` inputs of every command).

    Raises:
        InvalidParameter: more than :data:`MAX_INPUTS` inputs, an item without ``=`` or a name, a name given twice.
    """
    if len(items) > MAX_INPUTS:
        raise InvalidParameter("inputs", f"<{len(items)} items>", f"at most {MAX_INPUTS} name=value inputs")
    out: dict[str, str] = {}
    for it in items:
        if "=" not in it:
            raise InvalidParameter("input", it, "name=value")
        k, v = it.split("=", 1)
        k = k.strip()
        if not k:
            raise InvalidParameter("input", it, "name=value with a non-empty name")
        if k in out:
            first = quote(out[k], 40)
            raise InvalidParameter(k, v.strip(), f"one value for {quote(k)} (it is given twice, {first} first)")
        out[k] = v.strip()
    return out


def print_json(obj: Any) -> None:
    """Write ``obj`` as indented JSON on stdout (every command's ``--json``)."""
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain-text table with a header rule."""
    return text_table(rows, header)


#: The width :func:`fitted_table` keeps to when stdout is not a terminal and ``COLUMNS`` is not set.
DEFAULT_WIDTH = 100
#: The narrowest a wrapped column of :func:`fitted_table` gets.
MIN_WRAPPED = 10


def fitted_table(rows: list[list[str]], header: list[str], width: int | None = None) -> str:
    """A plain-text table whose lines fit in ``width`` columns (default: ``$COLUMNS``, else the terminal's, else
    :data:`DEFAULT_WIDTH`). The first column (an id to copy) keeps its width; the widest of the others is narrowed
    and wrapped onto continuation lines until the table fits (no column below :data:`MIN_WRAPPED` characters)."""
    import shutil
    import textwrap

    if width is None:
        width = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    while sum(widths) + 2 * (len(widths) - 1) > width and len(widths) > 1:
        j = max(range(1, len(widths)), key=lambda i: widths[i])
        if widths[j] <= MIN_WRAPPED:
            break
        widths[j] -= 1

    def lines(r: list[str]) -> list[str]:
        cells = [[str(r[0])]] + [textwrap.wrap(str(c), w) or [""] for c, w in zip(r[1:], widths[1:], strict=True)]
        out = []
        for k in range(max(len(c) for c in cells)):
            parts = [c[k] if k < len(c) else "" for c in cells]
            out.append("  ".join(p.ljust(w) for p, w in zip(parts, widths, strict=True)).rstrip())
        return out

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([*lines(header), rule, *(line for r in rows for line in lines(r))])


def int_option(name: str, lo: int, hi: int) -> Any:
    """An argparse type: an integer option in [lo, hi] (ASCII digits), refused with one line naming it otherwise."""

    def parse(text: str) -> int:
        t = text.strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,40}", t):
            raise argparse.ArgumentTypeError(
                f"{name} must be an integer in [{lo}, {hi}] (ASCII digits), got {quote(text)}"
            )
        value = int(t)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{name} must be an integer in [{lo}, {hi}], got {value}")
        return value

    return parse


def real_option(name: str, lo: Any, hi: Any, *, lo_open: bool = False) -> Any:
    """An argparse type: a finite real option in [lo, hi] (or (lo, hi] with ``lo_open``), parsed exactly
    (ASCII digits; ``inf`` and ``nan`` are refused), returned as a float."""
    from fractions import Fraction

    lo_f, hi_f = Fraction(lo), Fraction(hi)
    what = f"a number in {'(' if lo_open else '['}{lo}, {hi}]"

    def parse(text: str) -> float:
        from dpcert.arith.exact import parse_rational

        try:
            value = parse_rational(text, name).value
        except InvalidParameter:
            raise argparse.ArgumentTypeError(f"{name} must be {what}, got {quote(text)}") from None
        if not (lo_f < value if lo_open else lo_f <= value) or value > hi_f:
            raise argparse.ArgumentTypeError(f"{name} must be {what}, got {quote(text)}")
        return float(value)

    return parse


def seconds_option(name: str, hi: float = 86400.0) -> Any:
    """An argparse type: a time budget in (0, hi] seconds, parsed like every number (ASCII digits; inf and nan
    refused), refused with one line otherwise."""
    return real_option(name, 0, int(hi), lo_open=True)


def max_prec_option() -> Any:
    """The argparse type of every command's ``--max-prec``: an integer number of bits in [START_PREC, 2^20]."""
    from dpcert.arith.ball import START_PREC

    return int_option("--max-prec", START_PREC, MAX_PREC_LIMIT)


def output_option(option: str, *, directory: bool = False, stream: bool = False) -> Callable[[str], str]:
    """The argparse type of an output option: :func:`~dpcert.core.files.check_output` at parse time, before any work."""

    def parse(text: str) -> str:
        try:
            return check_output(text, option=option, directory=directory, stream=stream)
        except InvalidParameter as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def path_option(option: str) -> Callable[[str], str]:
    """The argparse type of an input path: refuses the empty path (which would mean the current directory)."""

    def parse(text: str) -> str:
        if text == "":
            raise argparse.ArgumentTypeError(str(InvalidParameter(option, text, "a non-empty path")))
        return text

    return parse


def add_run_options(
    parser: argparse.ArgumentParser,
    *,
    checkpoint: bool = True,
    workers_default: int | None = None,
    default_help: str | None = None,
) -> None:
    """Add ``--workers N``, ``--executor serial|processes|dask``, ``--scheduler ADDRESS``, ``--wait-for-workers
    SECONDS`` and (with ``checkpoint``) ``--checkpoint FILE`` to a command's parser; :func:`run_options` turns the
    parsed arguments into :class:`~dpcert.core.parallel.RunOptions`. ``workers_default``: the default of
    ``--workers`` (``None``: every core); ``default_help``: how ``--workers`` help states that default (``None``:
    "every core" or the number)."""
    from dpcert.core.parallel import EXECUTORS, MAX_WAIT_FOR_WORKERS, MAX_WORKERS, SCHEDULER_ENV, WAIT_FOR_WORKERS

    cores = default_help or ("every core" if workers_default is None else str(workers_default))
    parser.add_argument(
        "--workers",
        type=int_option("--workers", 1, MAX_WORKERS),
        default=workers_default,
        help=f"worker processes, 1 to {MAX_WORKERS} (default: {cores}; results identical for any number)",
    )
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="processes",
        help="where chunks run: serial (this process), processes (local, the default) or dask "
        '(pip install "dpcert[distributed]"); results identical for each',
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help=f"with --executor dask: the scheduler (tcp://HOST:PORT; default ${SCHEDULER_ENV}, else a LocalCluster)",
    )
    parser.add_argument(
        "--wait-for-workers",
        metavar="SECONDS",
        type=seconds_option("--wait-for-workers", MAX_WAIT_FOR_WORKERS),
        default=None,
        help=f"with --executor dask: how long to wait for the scheduler to have a worker, at the start or when all "
        f"left, before the run ends (default {WAIT_FOR_WORKERS:g})",
    )
    if checkpoint:
        parser.add_argument(
            "--checkpoint",
            metavar="FILE",
            default=None,
            type=output_option("--checkpoint"),
            help="record finished chunks in FILE and resume from it (refused if it is of other inputs or edited; "
            "entries of other code are computed again)",
        )


def run_options(args: argparse.Namespace, *, key: str | None = None, progress: str | None = None) -> Any:
    """:class:`~dpcert.core.parallel.RunOptions` from arguments parsed with :func:`add_run_options` (through
    :func:`~dpcert.core.parallel.make_run_options`, which checks them).

    Args:
        key: what the command computes (its inputs as text); keys the checkpoint with the dpcert version.
        progress: the label of progress lines on stderr (``None``: silent).
    """
    from dpcert.core.parallel import make_run_options

    return make_run_options(
        executor=args.executor,
        workers=args.workers,
        scheduler=args.scheduler,
        checkpoint=getattr(args, "checkpoint", None),
        key=key,
        progress=progress,
        wait_for_workers=getattr(args, "wait_for_workers", None),
    )
