"""``dpcert account FILE --delta D | --eps E [--neighboring add_remove|replace_one] [--json]``.

Reads an event file (:mod:`dpcert.accounting.eventfile`: dp-accounting's event names and fields, exact numbers),
composes its events in a certified accountant (:class:`dpcert.accounting.accountant.Accountant`) and prints the
certified ε(δ) (``--delta``) or δ(ε) (``--eps``) with the neighbouring relation and the method. ``--json`` holds
``"enclosure": {"lo", "hi"}`` (outward-rounded decimal strings), ``"safe"`` (the upper end as a float),
``"neighboring"``, ``"method"`` and ``"lower_end_bounds_mechanism"`` (whether the lower end bounds the mechanism's
value, not only the dominating pairs':
:attr:`dpcert.accounting.accountant.AccountingResult.lower_end_bounds_mechanism`; the text output says so in a line
when it does not). Bad input (an unreadable or invalid file, an event no certified method covers) prints one line on
stderr and exits 2, as every command.
"""

from __future__ import annotations

import argparse
import sys

from dpcert.core.vocabulary import NEIGHBORING

__all__ = ["add_commands"]


def _progress(quiet: bool):  # noqa: ANN202 - a callback or None
    """Progress lines on stderr after two seconds, at most one a second (result lines always)."""
    if quiet:
        return None
    import time

    start = time.monotonic()
    last = [start]

    def say(msg: str) -> None:
        now = time.monotonic()
        if now - start < 2.0 or (now - last[0] < 1.0 and not msg.startswith("resolution")):
            return
        last[0] = now
        print(f"dpcert: [{now - start:.0f} s] {msg}", file=sys.stderr, flush=True)

    return say


def _cmd_account(a: argparse.Namespace) -> int:
    from dpcert.accounting.accountant import Accountant
    from dpcert.accounting.eventfile import read_events
    from dpcert.cli_support import print_json

    event = read_events(a.file)
    acc = Accountant(a.neighboring, rel_tol=a.rel_tol, seconds=a.seconds, progress=_progress(a.quiet or a.json))
    acc.compose(event)
    res = acc.epsilon(a.delta) if a.delta is not None else acc.delta(a.eps)
    if a.json:
        out = res.to_json()
        out["file"] = a.file
        print_json(out)
        return 0
    lo, hi = res.enclosure.decimal(12)
    name, given, value = ("eps", "delta", a.delta) if a.delta is not None else ("delta", "eps", a.eps)
    print(f"{name} <= {hi}   (certified enclosure [{lo}, {hi}] at {given} = {value})")
    how = {"pld": "PLD (proved dominating pairs)", "rdp": "certified RDP", "exact": "exact (no grid needed)"}
    line = f"{a.neighboring} neighbours; {how.get(res.method, res.method)}"
    if res.method == "pld":
        width = "exact" if res.enclosure.is_exact else f"relative width {res.enclosure.rel_width():.2e}"
        line += f"; {width} at resolution {res.resolution}"
    print(line)
    if not res.lower_end_bounds_mechanism and res.method in ("pld", "rdp"):
        print("upper end only: the lower end is not proved to bound the mechanism's value (RDP, or a proved pair "
              "that is not tight)")  # fmt: skip
    if not res.reached:
        why = "the largest grid" if res.limited_by == "grid" else "the time budget (give more --seconds)"
        print(f"relative width {a.rel_tol:g} not reached: limited by {why}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert account`` on the top-level subparsers."""
    from dpcert.cli_support import path_option, real_option, seconds_option

    p = sub.add_parser(
        "account",
        help="certified eps or delta of an event file (dp-accounting's events), e.g. `dpcert account run.json "
        "--delta 1e-5`",
        description="Compose the events of FILE (JSON: dp-accounting's event names and fields, numbers exact) and "
        "print the certified eps(delta) or delta(eps) under the neighbouring relation.",
    )
    p.add_argument("file", metavar="FILE", type=path_option("FILE"), help="the event file (JSON)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--delta", default=None, help="the target delta in (0, 1): print the certified eps")
    target.add_argument("--eps", default=None, help="the target eps >= 0: print the certified delta")
    p.add_argument(
        "--neighboring",
        choices=NEIGHBORING,
        default="add_remove",
        help="the neighbouring relation (default add_remove)",
    )
    p.add_argument("--rel-tol", type=real_option("--rel-tol", "1e-9", "0.5"), default=0.01, help="relative width")
    p.add_argument("--seconds", type=seconds_option("--seconds"), default=60.0, help="time budget (default 60)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(fn=_cmd_account)
