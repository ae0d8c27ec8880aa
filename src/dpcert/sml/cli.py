"""``dpcert sml …``: exact statistic maximal leakage of a mechanism file.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

``dpcert sml mechanism FILE [--json] [--node-limit N]`` reads a channel matrix with secret labels (JSON or CSV,
format in :mod:`dpcert.sml.fileformat`) and prints exp Π exactly, Π in nats and in bits (enclosures), the selection
of one input per secret that attains it, and the search-free bounds (Property IV.1). Exit 0 on success, 2 on bad
input (the error names the row or field) or when the node limit stops the search before the optimum is proved.
``--workers N``, ``--executor``, ``--scheduler`` and ``--checkpoint FILE`` run the branch and bound's subtrees in
parallel and resume them (:func:`dpcert.sml.mechanism.sml` with ``run``); value, selection and node count are the
same for each.
"""

from __future__ import annotations

import argparse

__all__ = ["add_commands"]


def _cmd_mechanism(a: argparse.Namespace) -> int:
    from dpcert.cli_support import print_json, run_options, table
    from dpcert.sml.fileformat import read_mechanism
    from dpcert.sml.mechanism import sml, sml_bounds

    mech = read_mechanism(a.file)
    # the checkpoint is of this mechanism (its exact rows and labels) and node limit
    key = f"sml mechanism {a.node_limit} {mech!r}"
    res = sml(mech, node_limit=a.node_limit, run=run_options(a, key=key))
    nats, bits = res.nats(1e-20), res.bits(1e-20)
    bounds = sml_bounds(mech)
    record = {
        "file": str(a.file),
        "inputs": mech.n_inputs,
        "outputs": mech.n_outputs,
        "secrets": len(mech.secret_values),
        "exp_sml": str(res.exp_value),
        "sml_nats": nats.to_json(25),
        "sml_bits": bits.to_json(25),
        "selection": dict(res.selection),
        "method": res.method,
        "nodes": res.nodes,
        "bounds": {k: str(v) for k, v in bounds.items()},
        "reference": "Wang–Lin–Fanti, Statistic Maximal Leakage, Proposition IV.1",
    }
    if a.json:
        print_json(record)
        return 0
    print(f"exp SML = {res.exp_value}  (exact; {res.method}, {res.nodes} nodes)")
    print(f"SML     = {nats.short(15)} nats = {bits.short(15)} bits")
    print(f"  nats enclosure: [{', '.join(nats.decimal(20))}]")
    print(f"  bits enclosure: [{', '.join(bits.decimal(20))}]")
    print(
        f"  |Theta| = {mech.n_inputs}, |Theta'| = {mech.n_outputs}, s = {len(mech.secret_values)}; "
        f"exp bounds: {bounds['lower']} <= exp SML <= {bounds['upper']} (MEL {bounds['mel']})"
    )
    print(table([[g, t] for g, t in res.selection.items()], ["secret", "chosen input"]))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert sml`` and its subcommands on the top-level subparsers."""
    from dpcert.cli_support import int_option

    p = sub.add_parser("sml", help="statistic maximal leakage (Wang–Lin–Fanti)")
    inner = p.add_subparsers(dest="sml_command", parser_class=type(p))
    m = inner.add_parser(
        "mechanism",
        help="exact SML of a channel matrix with secret labels (JSON or CSV of exact values)",
        description="Exact SML (Proposition IV.1) of a finite mechanism: exp SML as an exact rational, SML in nats "
        "and bits, and the maximising selection. File format: see `python -m pydoc dpcert.sml.fileformat`.",
    )
    m.add_argument("file", metavar="FILE", help="mechanism file (.json or .csv)")
    m.add_argument(
        "--node-limit",
        type=int_option("--node-limit", 0, 10**12),
        default=None,
        help="stop the branch and bound after N nodes (exit 2)",
    )
    m.add_argument("--json", action="store_true", help="machine-readable output")
    from dpcert.cli_support import add_run_options

    # default one process: the split search pays for worker processes only on instances of seconds (s = 13 dense:
    # 2.7 s on 1 worker, 1.5 s on 2) while most files take milliseconds
    add_run_options(m, workers_default=1)
    m.set_defaults(fn=_cmd_mechanism)
    p.set_defaults(fn=lambda a: (p.print_help(), 2)[1])
