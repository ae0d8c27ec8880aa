"""The ``dpcert`` command line.

Commands: ``verify`` (run claim manifests), ``check`` (re-check certificates), ``list`` (claims),
``quantities``, ``eval`` (enclose one quantity), ``claim`` (check one ad-hoc claim). Every command takes
``--json``. Bad input prints one line on stderr and exits 2; nothing prints a traceback on purpose.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dpcert._version import __version__
from dpcert.cli_support import (
    EXIT_USAGE,
    CommandParser,
    add_run_options,
    fitted_table,
    int_option,
    max_prec_option,
    one_line,
    parse_kv,
    print_json,
    run_options,
    seconds_option,
)
from dpcert.errors import DpcertError, InvalidParameter

__all__ = ["main"]


# ------------------------------------------------------------------------------------------------ commands


class _VerifyRows:
    """``dpcert verify``'s table, each row written as soon as the rows before it are done (``dpcert verify | head``
    shows the first claims without waiting for the last). The widths come from the plan: the claim ids, and the
    expected verdicts for the verdict columns; the enclosure column is at least 26 characters (``[lo, hi]`` at ten
    digits). A longer cell (``UNEXPECTED``, a wider enclosure) pushes the rest of its row to the right."""

    HEADER = ["claim", "verdict", "expected", "", "enclosure", "s"]

    def __init__(self) -> None:
        self.widths = [len(h) for h in self.HEADER]

    def plan(self, entries: Sequence[Any]) -> None:
        ids = [len(e.claim.id) for e in entries]
        expected = [len(e.expected.value) for e in entries]
        self.widths = [max([5, *ids]), max([7, *expected]), max([8, *expected]), 2, 26, 5]
        self._line(self.HEADER)
        self._line(["-" * w for w in self.widths])

    def row(self, r: Any) -> None:
        enc = r.evidence.enclosure
        short = "" if enc is None else enc.short(10)
        ok = "ok" if r.ok else "UNEXPECTED"
        self._line([r.claim.id, r.verdict.value, r.expected.value, ok, short, f"{r.seconds:.3f}"])

    def _line(self, cells: list[str]) -> None:
        print("  ".join(c.ljust(w) for c, w in zip(cells, self.widths, strict=True)).rstrip(), flush=True)


def _cmd_verify(a: argparse.Namespace) -> int:
    from dpcert.engine.certificate import write_certificate
    from dpcert.engine.verify import verify

    progress = None if a.quiet else sys.stderr
    written: list[str] = []

    def keep(result: Any) -> None:  # each certificate as its claim finishes: an interrupted run keeps them
        from dpcert.vectors.check import VectorClaim

        if isinstance(result.claim, VectorClaim):  # a golden vector has its certificate (verify/vectors/certificates)
            return
        written.append(str(write_certificate(result, a.certificates, option="--certificates")))

    extra = None
    if a.full and not a.manifest and not a.select:  # the bundled run with --full re-certifies the golden vectors too
        from dpcert.vectors.check import entries as vector_entries

        extra = vector_entries
    key = json.dumps(["verify", a.manifest, a.select, a.full, a.max_prec])  # what a checkpoint is of
    run = run_options(a, key=key)
    rows = None if a.json else _VerifyRows()
    try:
        report = verify(
            a.manifest, a.select, full=a.full, max_prec=a.max_prec, progress=progress,
            on_result=keep if a.certificates else None, run=run, extra=extra,
            on_plan=None if rows is None else rows.plan, in_order=None if rows is None else rows.row,
        )  # fmt: skip
    finally:
        if a.certificates and not a.json:
            sys.stderr.write(f"dpcert verify: wrote {len(written)} certificate(s) into {a.certificates}\n")
    if a.json:
        out = report.to_json()
        if a.certificates:
            out["certificates_written"] = written
        print_json(out)
        return report.exit_code
    c = report.counts()
    summary = ", ".join(f"{c.get(v, 0)} {v}" for v in ("CERTIFIED", "REFUTED", "UNDECIDED", "ERROR") if c.get(v))
    skipped = f"; {report.skipped_slow} slow claim(s) skipped (use --full)" if report.skipped_slow else ""
    print(
        f"\n{len(report.results)} claims: {summary}; {c['as_expected']}/{len(report.results)} as expected"
        f"{skipped}; {report.seconds:.1f} s"
    )
    for r in report.results:
        if not r.ok:
            print(f"  {r.claim.id}: {r.verdict.value} (expected {r.expected.value}): {r.error or r.evidence.detail}")
    return report.exit_code


def _cmd_check(a: argparse.Namespace) -> int:
    from dpcert.certificates import recheck

    paths: list[Path] = []
    for given in a.certificates:  # a directory means every certificate in it
        p = Path(given)
        if p.is_dir():
            found = sorted(p.glob("*.json"))
            if not found:
                raise InvalidParameter("certificates", given, "a directory holding certificates (*.json); it has none")
            paths += found
        else:
            paths.append(p)
    reports = []
    unreadable: list[tuple[Path, str]] = []
    for p in paths:  # one unreadable certificate is reported and does not stop the others
        try:
            reports.append(recheck(p))
        except DpcertError as exc:
            unreadable.append((p, one_line(exc)))
            sys.stderr.write(f"dpcert: error: {one_line(exc)}\n")
    every_ok = not unreadable and all(r.ok for r in reports)
    if a.markdown and every_ok:
        from dpcert.core.files import atomic_write_text
        from dpcert.engine.results import results_markdown

        atomic_write_text(a.markdown, results_markdown(reports), what="--markdown")
    if a.json:
        print_json([r.to_json() for r in reports] + [{"path": str(p), "ok": False, "error": e} for p, e in unreadable])
    else:
        for r in reports:
            print(r.line())
        if reports:  # when none could be read, the errors on stderr say it all and stdout stays empty
            n, ok = len(reports) + len(unreadable), sum(r.ok for r in reports)
            unread = f", {len(unreadable)} unreadable" if unreadable else ""
            print(f"{n} certificate{'' if n == 1 else 's'}: {ok} OK, {len(reports) - ok} MISMATCH{unread}")
    if unreadable:
        return EXIT_USAGE
    return 0 if every_ok else 1


def _cmd_list(a: argparse.Namespace) -> int:
    from dpcert.engine import registry

    claims = registry.select(a.glob) if a.glob else list(registry.claims().values())
    if a.json:
        print_json(
            [
                {
                    "id": c.id,
                    "reference": c.reference,
                    "statement": c.statement,
                    "expected": c.expected.value,
                    "slow": c.slow,
                }
                for c in claims
            ]
        )
    else:
        rows = [[c.id, c.expected.value, c.reference] for c in claims]
        print(fitted_table(rows, ["claim", "expected", "reference"]))
    return 0


def _cmd_quantities(a: argparse.Namespace) -> int:
    from dpcert.engine import registry

    qs = list(registry.quantities().values())
    if a.json:
        print_json(
            [
                {
                    "name": q.name,
                    "params": [{"name": p.name, "kind": p.kind, "allowed": p.allowed()} for p in q.params],
                    "reference": q.reference,
                    "summary": q.summary,
                    "float": q.float is not None,
                }
                for q in qs
            ]
        )
    else:
        rows = [[q.name, ", ".join(p.name for p in q.params), q.summary] for q in qs]
        print(fitted_table(rows, ["quantity", "parameters", "what"]))
    return 0


def _cmd_eval(a: argparse.Namespace) -> int:
    from dpcert.core.params import inputs_to_json
    from dpcert.engine import registry

    q = registry.quantity(a.quantity)
    inputs = parse_kv(a.inputs)
    parsed = q.parse(inputs)
    if q.bracket:
        # a bracket narrows with effort, not precision: the narrowest one within the time budget, said to be one
        br = q.bracket_within(inputs, seconds=a.seconds)
        enc = br.enclosure
    else:
        enc = q.enclose(inputs, rel_tol=10.0 ** (-a.digits), max_prec=a.max_prec)
    fl, fl_missing = q.float_evidence(inputs) if q.float is not None else (None, None)
    if a.json:
        print_json(
            {
                "quantity": q.name,
                "inputs": inputs_to_json(parsed),
                "enclosure": enc.to_json(a.digits + 5),
                "float64": fl,
                **({"float64_unavailable": fl_missing} if fl_missing else {}),
                "reference": q.reference,
                "bracket": q.bracket,
                **({"resolution": br.resolution, "seconds": br.seconds, "hint": br.hint} if q.bracket else {}),
            }
        )
    else:
        lo, hi = enc.decimal(a.digits + 3)
        print(f"{q.name} = {enc.short(a.digits)}")
        if q.bracket and br.resolution:
            rel = f", relative width {enc.rel_width():.3g}" if enc.hi else ""
            print(f"  certified bracket at lattice resolution N = {br.resolution} ({br.seconds:.1f} s{rel}):")
            print(f"    [{lo}, {hi}]")
            print(f"  narrow it further: {br.hint}")
        elif q.bracket:
            print(f"  certified enclosure (closed form, no lattice needed): [{lo}, {hi}]")
        else:
            print(f"  certified enclosure: [{lo}, {hi}]")
        if fl is not None:
            print(f"  float64 (evidence):  {fl!r}")
        elif fl_missing:
            print(f"  float64 (evidence):  unavailable ({fl_missing})")
        print(f"  reference: {q.reference}")
    return 0


def _cmd_claim(a: argparse.Namespace) -> int:
    from dpcert.core.claim import AtLeast, AtMost, QuantityClaim, Rounds, Truncates
    from dpcert.engine import registry
    from dpcert.engine.certificate import default_claim_id, derived_statement, write_certificate

    q = registry.quantity(a.quantity)
    inputs = parse_kv(a.inputs)
    q.parse(inputs)
    if a.figures is not None and a.rounds_to is None:
        raise InvalidParameter("--figures", a.figures, "to go with --rounds-to")
    if a.rounds_to is not None:
        cmp: Any = Rounds(a.rounds_to, a.figures)
    elif a.truncates_to is not None:
        cmp = Truncates(a.truncates_to)
    elif a.at_most is not None:
        cmp = AtMost.of(a.at_most)
    else:
        cmp = AtLeast.of(a.at_least)
    if a.id is not None and (a.id in registry.claims() or a.id.startswith(("table.", "vectors."))):
        raise InvalidParameter(
            "--id", a.id, "an id that is not a registered claim's (see `dpcert list`) nor a table row's or vector's"
        )
    draft = QuantityClaim("user.claim", a.reference, "", quantity=q, inputs=inputs, comparison=cmp)
    # an id derived from what is checked: two different claims never share a certificate's file name
    cid = a.id if a.id is not None else default_claim_id(draft.spec_json(), q.name)
    claim = QuantityClaim(cid, a.reference, derived_statement(draft), quantity=q, inputs=inputs, comparison=cmp)
    result = claim.check(max_prec=a.max_prec)
    written = str(write_certificate(result, a.certificate, option="--certificate")) if a.certificate else None
    if a.json:
        out = result.to_json()
        if written:
            out["certificate"] = written
        print_json(out)
    else:
        print(f"{result.verdict.value}: {result.evidence.detail or result.error}")
        if written:
            print(f"  certificate: {written}")
    return {"CERTIFIED": 0, "REFUTED": 1}.get(result.verdict.value, 2)


# ------------------------------------------------------------------------------------------------ parser


def _parser() -> argparse.ArgumentParser:
    from dpcert.arith.ball import MAX_PREC
    from dpcert.cli_support import output_option, path_option

    max_prec = max_prec_option()
    digits = int_option("--digits", 1, 1000)
    p = CommandParser(
        prog="dpcert",
        description="Certify differential-privacy numbers: exact and rigorous ball "
        "arithmetic, verdicts CERTIFIED / REFUTED / UNDECIDED.",
    )
    p.add_argument("--version", action="version", version=f"dpcert {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=CommandParser)

    v = sub.add_parser("verify", help="run claim manifests (default: the bundled claims)")
    v.add_argument("manifest", nargs="*", help="manifest TOML files (default: every package's bundled manifests)")
    v.add_argument(
        "--select",
        "-s",
        action="append",
        default=[],
        metavar="GLOB",
        help="only claims whose id matches (repeatable), e.g. 'darrm.table2.*'",
    )
    v.add_argument(
        "--full", action="store_true", help="include the slow claims and re-certify the bundled golden vectors"
    )
    v.add_argument(
        "--certificates",
        metavar="DIR",
        type=output_option("--certificates", directory=True),
        help="write one certificate per claim into DIR (the golden vectors keep theirs in verify/vectors/certificates)",
    )
    v.add_argument("--max-prec", type=max_prec, default=MAX_PREC, help="maximum ball precision in bits")
    # claims in parallel (results in manifest order); by default on every core once the run has taken
    # HEAD_START_SECONDS here (a shorter run starts no pool), with --workers N on N processes from the start
    add_run_options(v, default_help="every core, once the claims run here have taken 0.25 s")
    v.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    v.add_argument("--json", action="store_true", help="machine-readable output")
    v.set_defaults(fn=_cmd_verify)

    c = sub.add_parser("check", help="re-check certificates")
    c.add_argument("certificates", nargs="+", metavar="CERT.json|DIR", type=path_option("certificates"))
    c.add_argument("--json", action="store_true")
    c.add_argument(
        "--markdown",
        metavar="FILE",
        type=output_option("--markdown"),
        help="when every certificate re-checks, write their verdict table to FILE (verify/RESULTS.md is made so)",
    )
    c.set_defaults(fn=_cmd_check)

    ls = sub.add_parser("list", help="list the registered claims")
    ls.add_argument("glob", nargs="?")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(fn=_cmd_list)

    qs = sub.add_parser("quantities", help="list the named quantities")
    qs.add_argument("--json", action="store_true")
    qs.set_defaults(fn=_cmd_quantities)

    e = sub.add_parser(
        "eval",
        help="certified enclosure of a quantity, e.g. `dpcert eval composition.kov.delta k=100 eps=0.1 eps_g=2`",
    )
    e.add_argument("quantity")
    e.add_argument("inputs", nargs="*", metavar="name=value")
    e.add_argument("--digits", type=digits, default=15, help="relative accuracy in decimal digits (1 to 1000)")
    e.add_argument("--max-prec", type=max_prec, default=MAX_PREC, help="maximum ball precision in bits")
    e.add_argument(
        "--seconds",
        type=seconds_option("--seconds"),
        default=10.0,
        help="bracket quantities (a lattice): the time budget for the narrowest certified bracket (default 10)",
    )
    e.add_argument("--json", action="store_true")
    e.set_defaults(fn=_cmd_eval)

    cl = sub.add_parser("claim", help="check one claim about a quantity")
    cl.add_argument("quantity")
    cl.add_argument("inputs", nargs="*", metavar="name=value")
    g = cl.add_mutually_exclusive_group(required=True)
    g.add_argument("--rounds-to", metavar="DECIMAL", help="printed digits, e.g. 5.352 or 1.2E-6")
    g.add_argument("--truncates-to", metavar="DECIMAL", help="the value truncated after the last printed digit")
    g.add_argument("--at-most", metavar="BOUND")
    g.add_argument("--at-least", metavar="BOUND")
    cl.add_argument(
        "--figures", type=int_option("--figures", 1, 1000), help="with --rounds-to: significant figures printed"
    )
    cl.add_argument(
        "--id", default=None, help="claim id for the certificate (default: user.<quantity>.<hash of the claim>)"
    )
    cl.add_argument("--reference", default="user claim")
    cl.add_argument(
        "--certificate",
        metavar="DIR",
        type=output_option("--certificate", directory=True),
        help="write the certificate into DIR",
    )
    cl.add_argument("--max-prec", type=max_prec, default=MAX_PREC, help="maximum ball precision in bits")
    cl.add_argument("--json", action="store_true")
    cl.set_defaults(fn=_cmd_claim)

    # Paper packages add their own commands (``dpcert darrm certify ...``) through ``<package>.cli.add_commands``.
    import importlib
    import importlib.util

    from dpcert.engine.registry import PACKAGES

    for pkg in PACKAGES:
        # look for <pkg>/cli.py without importing the package itself (a paper package imports scipy & co.)
        spec = importlib.util.find_spec(pkg)
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        if any((Path(loc) / "cli.py").is_file() for loc in locations):
            importlib.import_module(pkg + ".cli").add_commands(sub)
    # commands over every quantity (not a paper's): ``dpcert table check FILE``, ``dpcert table template Q``
    importlib.import_module("dpcert.tables.cli").add_commands(sub)
    importlib.import_module("dpcert.vectors.cli").add_commands(sub)  # golden vectors span every package
    importlib.import_module("dpcert.audit.cli").add_commands(sub)  # the peers against certified enclosures
    return p


#: Exit code when stdout is closed early (``dpcert verify | head``): 128 + SIGPIPE, what a shell reports for a
#: command killed by SIGPIPE, so a pipeline under ``set -o pipefail`` sees that the output was cut.
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpcert`` console script; returns the exit code.

    A reader that closes stdout early (``dpcert verify | head``) ends the command quietly with
    :data:`EXIT_BROKEN_PIPE`; Ctrl-C prints one line and returns 130.
    """
    try:
        code = _main(argv)
        sys.stdout.flush()  # a pipe's buffered output fails here, not at interpreter exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        sys.stderr.write("dpcert: interrupted\n")
        return 130


def _silence_stdout() -> None:
    # the interpreter flushes stdout again at exit: point it at /dev/null so that flush cannot fail and print
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "fn", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.fn(args))
    except DpcertError as exc:
        sys.stderr.write(f"dpcert: error: {one_line(exc)}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        raise
    except OSError as exc:  # a file that cannot be read or written
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        sys.stderr.write(f"dpcert: error:{where} {exc.strerror or exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("dpcert: interrupted\n")
        return 130
    except Exception as exc:  # a bug: still one line for the user, and the exit code of a failed check
        sys.stderr.write(f"dpcert: internal error ({type(exc).__name__}): {one_line(exc)}; please report it\n")
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
