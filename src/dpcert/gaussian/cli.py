"""``dpcert dpsgd …``: DP-SGD's certified ε and the certified noise calibration.

``dpcert dpsgd eps q=0.01 sigma=1 steps=1000 delta=1e-5 [--method pld|rdp] [--json]`` prints the tight ε: by
default (``--method pld``) the certified enclosure from the privacy loss distribution of both neighbouring
directions (:mod:`dpcert.gaussian.pld`), narrowed to ``--rel-tol`` (default 1 %) within ``--seconds`` (default
300), with progress on stderr. ``--method rdp`` prints the RDP ε over every integer order 2..max_order (default
10^4; ``conversion=mironov`` and ``max_order=N`` may be given as inputs), with the optimal order.

``dpcert dpsgd sigma q=… steps=… eps=… delta=…`` prints [σ_lo, σ_hi] around the least noise multiplier making the
run (ε, δ)-DP: δ(σ_hi) <= δ and δ(σ_lo) > δ are both proved. The Gaussian mechanism's quantities are
``dpcert eval gaussian.delta|gaussian.eps|gaussian.sigma …``; the tight δ(ε) is ``dpcert eval dpsgd.delta …``.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_commands"]

_NEIGHBOURS = "add/remove one, Poisson sampling (both directions, the max)"

_RELATIONS = {
    ("poisson", "add_remove"): _NEIGHBOURS,
    ("poisson", "replace_one"): "replace one, Poisson sampling (the mirror pair, realised and proved to dominate)",
    ("fixed", "replace_one"): "replace one, fixed-size batches without replacement (lower end: the realised pair; "
    "upper end: its proved symmetrisation)",
    ("shuffle", "replace_one"): "replace one, shuffled disjoint batches (bracket: realised epoch-sum lower bound, "
    "no-amplification upper bound; closed form)",
}


def _relation_text(parsed: dict) -> str:
    return _RELATIONS[(str(parsed["sampling"]), str(parsed["neighboring"]))]


def _relation_json(parsed: dict, kv: dict) -> dict:
    """The relation keys of every JSON result (and the run as trained, when it was given so)."""
    out = {
        "neighbours": _relation_text(parsed),
        "neighboring": str(parsed["neighboring"]),
        "sampling": str(parsed["sampling"]),
    }
    if "epochs" in kv:
        out["as_trained"] = {k: int(kv[k]) for k in ("epochs", "batch_size", "n")}
    return out


#: progress lines start once a run has taken this long, then come at most once per this many seconds
_PROGRESS_AFTER = 2.0


def _progress(quiet: bool):  # noqa: ANN202 - a callback or None
    """A progress callback for stderr: silent for a run of under two seconds, then at most a line a second (a round
    of the composition is fast; a line per round would flood the terminal), each result line always shown."""
    if quiet:
        return None
    import time

    start = time.monotonic()
    last = [start]

    def say(msg: str) -> None:
        now = time.monotonic()
        if now - start < _PROGRESS_AFTER:
            return
        if now - last[0] < 1.0 and not msg.startswith("resolution"):
            return
        last[0] = now
        print(f"dpcert: [{now - start:.0f} s] {msg}", file=sys.stderr, flush=True)

    return say


def _cmd_eps(a: argparse.Namespace) -> int:
    from dpcert.cli_support import parse_kv
    from dpcert.errors import InvalidParameter

    kv = parse_kv(a.inputs)
    if a.method == "rdp":
        return _eps_rdp(a, kv)
    if a.method != "pld":
        raise InvalidParameter("--method", a.method, "pld (the tight PLD enclosure, default) or rdp")
    return _eps_pld(a, kv)


def _eps_pld(a: argparse.Namespace, kv: dict[str, str]) -> int:
    from dpcert.cli_support import print_json
    from dpcert.core.params import inputs_to_json
    from dpcert.core.vocabulary import resolve_aliases
    from dpcert.gaussian.pld import DPSGD_EPS, dpsgd_eps

    parsed = DPSGD_EPS.parse(kv)  # every input checked before any work
    res = dpsgd_eps(
        **resolve_aliases(kv, DPSGD_EPS.aliases), rel_tol=a.rel_tol, seconds=a.seconds, progress=_progress(a.quiet)
    )
    enc = res.enclosure
    if a.json:
        print_json(
            {
                "quantity": DPSGD_EPS.name,
                "method": "pld",
                "inputs": inputs_to_json(parsed),
                "enclosure": enc.to_json(20),
                "rel_width": 0.0 if enc.is_exact else enc.rel_width(),
                "width": 0.0 if enc.is_exact else float(enc.rel_width()),
                "rel_tol": a.rel_tol,
                "reached": res.reached,
                "limited_by": res.limited_by,
                "resolution": res.resolution,
                "resolutions_tried": list(res.runs),
                "seconds": res.seconds,
                **_relation_json(parsed, kv),
                "reference": DPSGD_EPS.reference,
            }
        )
        return 0
    lo, hi = enc.decimal(12)
    print(
        f"DP-SGD eps by PLD (Poisson q = {parsed['q'].given}, sigma = {parsed['sigma'].given}, "
        f"steps = {parsed['steps']}, delta = {parsed['delta'].given}; {_relation_text(parsed)})"
    )
    print(f"eps <= {hi}   (certified enclosure [{lo}, {hi}])")
    width = "exact" if enc.is_exact else f"relative width {enc.rel_width():.2e}"
    if not res.runs and str(parsed["sampling"]) == "shuffle":
        print("closed form: both ends are Gaussian profiles (no grid)")
    elif not res.runs:  # no grid was needed (steps·q <= delta)
        print("exact with no grid: steps*q <= delta bounds delta(0), the total variation of the composition")
    else:
        print(f"{width} at resolution {res.resolution} cells per unit loss, {res.seconds:.1f} s")
    if not res.reached:
        print(_not_reached(res.limited_by, a.rel_tol))
    return 0


def _not_reached(limited_by: str, rel_tol: float) -> str:
    if limited_by == "grid":
        return f"the largest grid was reached before relative width {rel_tol:g}: the grid limited it"
    return f"the time budget ran out before relative width {rel_tol:g}: give more --seconds"


def _eps_rdp(a: argparse.Namespace, kv: dict[str, str]) -> int:
    from dpcert.cli_support import print_json
    from dpcert.core.params import inputs_to_json
    from dpcert.core.vocabulary import resolve_aliases
    from dpcert.errors import InvalidParameter
    from dpcert.gaussian.dpsgd_rdp import DPSGD_RDP_EPS, dpsgd_rdp_eps
    from dpcert.gaussian.sampling import as_steps

    for name, default in (("sampling", "poisson"), ("neighboring", "add_remove")):
        if kv.get(name, default) != default:
            raise InvalidParameter(name, kv[name], f"{default} with --method rdp (or --method pld)")
        kv.pop(name, None)
    kv = as_steps(kv, DPSGD_RDP_EPS.aliases)
    parsed = DPSGD_RDP_EPS.parse(kv)  # every input checked before any work
    res = dpsgd_rdp_eps(**resolve_aliases(kv, DPSGD_RDP_EPS.aliases))
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


def _cmd_sigma(a: argparse.Namespace) -> int:
    from dpcert.cli_support import parse_kv, print_json
    from dpcert.core.params import inputs_to_json
    from dpcert.core.vocabulary import resolve_aliases
    from dpcert.errors import InvalidParameter
    from dpcert.gaussian.pld import DPSGD_SIGMA, dpsgd_sigma

    kv = parse_kv(a.inputs)
    if a.method == "rdp":
        return _sigma_rdp(a, kv)
    if a.method != "pld":
        raise InvalidParameter("--method", a.method, "pld (the tight PLD calibration, default) or rdp")
    parsed = DPSGD_SIGMA.parse(kv)  # every input checked before any work
    res = dpsgd_sigma(
        **resolve_aliases(kv, DPSGD_SIGMA.aliases), rel_tol=a.rel_tol, seconds=a.seconds, progress=_progress(a.quiet)
    )
    enc = res.enclosure
    if a.json:
        print_json(
            {
                "quantity": DPSGD_SIGMA.name,
                "method": "pld",
                "inputs": inputs_to_json(parsed),
                "enclosure": enc.to_json(20),
                "safe_sigma": enc.to_json(20)["hi"],
                "rel_width": enc.rel_width(),
                "width": float(enc.rel_width()),
                "rel_tol": a.rel_tol,
                "reached": res.reached,
                "limited_by": res.limited_by,
                "resolution": res.resolution,
                "seconds": res.seconds,
                **_relation_json(parsed, kv),
                "reference": DPSGD_SIGMA.reference,
            }
        )
        return 0
    lo, hi = enc.decimal(12)
    print(
        f"DP-SGD noise calibration by PLD (Poisson q = {parsed['q'].given}, steps = {parsed['steps']}, "
        f"eps = {parsed['eps'].given}, delta = {parsed['delta'].given}; {_relation_text(parsed)})"
    )
    print(f"sigma = {hi} is (eps, delta)-DP (certified); the least such sigma lies in [{lo}, {hi}]")
    print(f"relative width {enc.rel_width():.2e} at resolution {res.resolution}, {res.seconds:.1f} s")
    if not res.reached:
        print(_not_reached(res.limited_by, a.rel_tol))
    return 0


def _cmd_delta(a: argparse.Namespace) -> int:
    from dpcert.cli_support import parse_kv, print_json
    from dpcert.core.params import inputs_to_json
    from dpcert.core.vocabulary import resolve_aliases
    from dpcert.gaussian.pld import DPSGD_DELTA, dpsgd_delta

    kv = parse_kv(a.inputs)
    parsed = DPSGD_DELTA.parse(kv)  # every input checked before any work
    res = dpsgd_delta(
        **resolve_aliases(kv, DPSGD_DELTA.aliases), rel_tol=a.rel_tol, seconds=a.seconds, progress=_progress(a.quiet)
    )
    enc = res.enclosure
    if a.json:
        print_json(
            {
                "quantity": DPSGD_DELTA.name,
                "method": "pld",
                "inputs": inputs_to_json(parsed),
                "enclosure": enc.to_json(20),
                "rel_width": 0.0 if enc.is_exact or not enc.hi else enc.rel_width(),
                "rel_tol": a.rel_tol,
                "reached": res.reached,
                "limited_by": res.limited_by,
                "resolution": res.resolution,
                "seconds": res.seconds,
                **_relation_json(parsed, kv),
                "reference": DPSGD_DELTA.reference,
            }
        )
        return 0
    lo, hi = enc.decimal(12)
    print(
        f"DP-SGD delta by PLD (q = {parsed['q'].given}, sigma = {parsed['sigma'].given}, steps = {parsed['steps']}, "
        f"eps = {parsed['eps'].given}; {_relation_text(parsed)})"
    )
    print(f"delta <= {hi}   (certified enclosure [{lo}, {hi}])")
    if res.runs:
        print(f"at resolution {res.resolution} cells per unit loss, {res.seconds:.1f} s")
    if not res.reached:
        print(_not_reached(res.limited_by, a.rel_tol))
    return 0


def _sigma_rdp(a: argparse.Namespace, kv: dict[str, str]) -> int:
    from dpcert.cli_support import print_json
    from dpcert.core.params import choice, inputs_to_json, validate
    from dpcert.gaussian.dpsgd_rdp import DPSGD_RDP_EPS, dpsgd_rdp_sigma
    from dpcert.gaussian.pld import DPSGD_SIGMA

    rdp = {k: kv.pop(k) for k in ("conversion", "max_order") if k in kv}
    parsed = DPSGD_SIGMA.parse(kv)  # every input checked before any work
    if (str(parsed["sampling"]), str(parsed["neighboring"])) != ("poisson", "add_remove"):
        from dpcert.errors import InvalidParameter

        raise InvalidParameter("--method", "rdp", "pld for sampling or neighboring other than poisson, add_remove")
    extra = validate(
        (choice("conversion", ("cks", "mironov"), default="cks"), DPSGD_RDP_EPS.params[5]), rdp, where=" (rdp)"
    )
    enc = dpsgd_rdp_sigma(
        parsed["q"],
        parsed["steps"],
        parsed["eps"],
        parsed["delta"],
        conversion=str(extra["conversion"]),
        max_order=extra["max_order"],
        rel_tol=a.rel_tol,
    )
    if a.json:
        print_json(
            {
                "quantity": "dpsgd.rdp.sigma",
                "method": "rdp",
                "inputs": inputs_to_json({**parsed, **extra}),
                "enclosure": enc.to_json(20),
                "safe_sigma": enc.to_json(20)["hi"],
                "rel_tol": a.rel_tol,
                **_relation_json(parsed, kv),
                "reference": DPSGD_RDP_EPS.reference,
            }
        )
        return 0
    lo, hi = enc.decimal(12)
    print(
        f"DP-SGD noise calibration by RDP (Poisson q = {parsed['q'].given}, steps = {parsed['steps']}, "
        f"eps = {parsed['eps'].given}, delta = {parsed['delta'].given}; {extra['conversion']} conversion, every "
        f"integer order <= {extra['max_order']})"
    )
    print(f"sigma = {hi} is (eps, delta)-DP by RDP (certified); the least such sigma by RDP lies in [{lo}, {hi}]")
    return 0


def _common(p: argparse.ArgumentParser, seconds: float) -> None:
    from dpcert.cli_support import real_option, seconds_option

    p.add_argument("--rel-tol", type=real_option("--rel-tol", "1e-6", "0.5"), default=0.01, help="relative width")
    p.add_argument(
        "--seconds", type=seconds_option("--seconds"), default=seconds, help=f"time budget (default {seconds:g})"
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="machine-readable output")


_INPUTS = (
    "q=<rate in (0,1]> sigma=<noise multiplier> steps=<int> delta=<(0,1)> (or epochs=<int> batch_size=<int> n=<int> "
    "instead of q and steps) [sampling=poisson|fixed|shuffle] [neighboring=add_remove|replace_one]"
)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert dpsgd`` and its subcommands on the top-level subparsers."""
    p = sub.add_parser("dpsgd", help="DP-SGD accounting (Poisson-subsampled Gaussian), certified")
    inner = p.add_subparsers(dest="dpsgd_command", parser_class=type(p))
    e = inner.add_parser(
        "eps",
        help="certified eps of DP-SGD, e.g. `dpcert dpsgd eps q=0.01 sigma=1 steps=1000 delta=1e-5`",
        description="The tight eps of DP-SGD (PLD, both neighbouring directions), or with --method rdp the RDP "
        "eps minimised over every integer order up to max_order (default 10000).",
    )
    e.add_argument(
        "inputs",
        nargs="*",
        metavar="name=value",
        help=_INPUTS + " [rdp only: conversion=cks|mironov max_order=<int> orders=integer|real]",
    )
    e.add_argument("--method", default="pld", help="pld (default: tight, certified both ends) or rdp")
    _common(e, 300.0)
    e.set_defaults(fn=_cmd_eps)
    dl = inner.add_parser(
        "delta",
        help="certified delta(eps) of DP-SGD, e.g. `dpcert dpsgd delta q=0.01 sigma=1 steps=1000 eps=2`",
        description="The tight delta(eps) of DP-SGD (PLD), for the sampler and neighbouring relation given.",
    )
    dl.add_argument("inputs", nargs="*", metavar="name=value", help=_INPUTS.replace("delta=<(0,1)>", "eps=<>=0>"))
    _common(dl, 300.0)
    dl.set_defaults(fn=_cmd_delta)
    s = inner.add_parser(
        "sigma",
        help="certified noise calibration, e.g. `dpcert dpsgd sigma q=0.01 steps=1000 eps=2 delta=1e-5`",
        description="The least noise multiplier making DP-SGD (eps, delta)-DP, bracketed by two proofs (PLD).",
    )
    s.add_argument(
        "inputs",
        nargs="*",
        metavar="name=value",
        help=_INPUTS.replace("sigma=<noise multiplier> ", "").replace("delta=", "eps=<>=0> delta="),
    )
    s.add_argument(
        "--method", default="pld", help="pld (default: tight, both ends proved) or rdp (RDP calibration, certified)"
    )
    _common(s, 600.0)
    s.set_defaults(fn=_cmd_sigma)
    p.set_defaults(fn=lambda a: (p.print_help(), 2)[1])
