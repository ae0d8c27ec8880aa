"""``dpcert dpsgd …``: DP-SGD's certified ε.

``dpcert dpsgd eps q=0.01 sigma=1 steps=1000 delta=1e-5 [--method rdp] [--json]`` prints the RDP ε over every
integer order 2..max_order (default 10^4; ``conversion=mironov`` and ``max_order=N`` may be given as inputs), with the
optimal order. ``--method pld`` (the tight PLD enclosure) and ``dpcert dpsgd sigma`` are not built yet. The Gaussian
mechanism's quantities are ``dpcert eval gaussian.delta|gaussian.eps|gaussian.sigma …``.
"""

from __future__ import annotations

import argparse

__all__ = ["add_commands"]


def _cmd_eps(a: argparse.Namespace) -> int:
    from dpcert.cli import parse_kv, print_json
    from dpcert.core.params import inputs_to_json
    from dpcert.errors import InvalidParameter
    from dpcert.gaussian.dpsgd_rdp import DPSGD_RDP_EPS, dpsgd_rdp_eps

    if a.method != "rdp":
        raise InvalidParameter("--method", a.method, "rdp (the tight PLD accounting, --method pld, is not built yet)")
    kv = parse_kv(a.inputs)
    parsed = DPSGD_RDP_EPS.parse(kv)  # every input checked before any work
    res = dpsgd_rdp_eps(**kv)
    enc = res.enclosure
    if a.json:
        print_json(
            {
                "quantity": DPSGD_RDP_EPS.name,
                "method": "rdp",
                "inputs": inputs_to_json(parsed),
                "enclosure": enc.to_json(20),
                "order": res.order if isinstance(res.order, int) else str(res.order),
                "orders_bounded": f"every integer order 2..{res.max_order}",
                **({} if res.searched is None else _real_json(res)),
                "orders_evaluated": res.evaluations,
                "kl_branch": res.kl_branch,
                "neighbours": "add/remove one, Poisson sampling",
                "reference": DPSGD_RDP_EPS.reference,
            }
        )
        return 0
    lo, hi = enc.decimal(12)
    conv = parsed["conversion"]
    where = "delta^2 >= 1 - exp(-steps*rho(2)) (TV <= sqrt(1 - e^-KL))" if res.kl_branch else f"order {res.order}"
    print(
        f"DP-SGD eps by RDP (Poisson q = {parsed['q'].given}, sigma = {parsed['sigma'].given}, "
        f"steps = {parsed['steps']}, delta = {parsed['delta'].given}; {conv} conversion)"
    )
    print(f"eps <= {hi}   (certified enclosure [{lo}, {hi}], at {where})")
    print(f"every integer order 2..{res.max_order} bounded ({res.evaluations} evaluated in balls, the rest by blocks)")
    if res.searched is not None:
        a, b = res.searched
        print(f"real orders searched in [{a}, {b}]: eps(alpha) >= {float(res.searched_lower):.12g} for every one")
    return 0


def _real_json(res: object) -> dict:
    a, b = res.searched  # type: ignore[attr-defined]
    return {"real_orders_searched": [str(a), str(b)], "real_orders_lower": str(res.searched_lower)}  # type: ignore


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert dpsgd`` and its subcommands on the top-level subparsers."""
    p = sub.add_parser("dpsgd", help="DP-SGD accounting (Poisson-subsampled Gaussian), certified")
    inner = p.add_subparsers(dest="dpsgd_command", parser_class=type(p))
    e = inner.add_parser(
        "eps",
        help="certified eps of DP-SGD, e.g. `dpcert dpsgd eps q=0.01 sigma=1 steps=1000 delta=1e-5`",
        description="The RDP eps of DP-SGD, minimised over every integer order up to max_order (default 10000).",
    )
    e.add_argument(
        "inputs",
        nargs="*",
        metavar="name=value",
        help="q=<rate in (0,1]> sigma=<noise multiplier> steps=<int> delta=<(0,1)> [conversion=cks|mironov] "
        "[max_order=<int>] [orders=integer|real]",
    )
    e.add_argument("--method", default="rdp", help="rdp (default); pld is not built yet")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.set_defaults(fn=_cmd_eps)
    p.set_defaults(fn=lambda a: (p.print_help(), 2)[1])
