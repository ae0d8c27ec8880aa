"""``dpcert br``: bounded-range composition commands (Dong–Durfee–Rogers ICML 2020) [DDR20].

Theorem, lemma, section and equation numbers in this module are those of [DDR20] unless another key is given.

* ``dpcert br compare k=1000 eps=0.1 delta=1e-6 [--json]``: every ε_g(δ) bound of Figure 1 side by side, each a
  certified enclosure (the ε/2-DP optimum is a lower bound on BR OptComp, not a privacy guarantee).
* ``dpcert br optimum k=10 eps=1 eps_g=0 [--json]``: the certified nonadaptive δ_OPT with its maximising t.
* ``dpcert br adaptive k=4 eps=1 eps_g=0 [--n N | --seconds T] [--json]``: the certified adaptive bracket (lattice
  method); with ``--seconds`` the lattice is refined (N doubled) while the time lasts. ``--n`` is at most 100,000 and
  ``--seconds`` a finite budget of at most a day, both checked when the command line is parsed. ``--workers N``,
  ``--executor``, ``--scheduler`` and ``--checkpoint FILE`` run the lattice's independent tasks in parallel and
  resume them (:func:`dpcert.br.adaptive.lattice_run`); the bracket is identical for each.

Only argparse/stdlib at import time (``dpcert --help`` stays fast).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

__all__ = ["add_commands"]

#: (row label, quantity name, whether ε is halved, note)
_CURVES: tuple[tuple[str, str, bool, str], ...] = (
    ("BR OptComp (nonadaptive, Thm 3)", "br.nonadaptive.eps", False, "optimal, nonadaptive only"),
    ("eps/2-DP OptComp", "composition.kov.eps", True, "lower bound on BR OptComp (not a guarantee)"),
    ("eps-DP OptComp", "composition.kov.eps", False, "adaptive, valid (eps-BR => eps-DP)"),
    ("MGF (Thm 5)", "br.mgf.eps", False, "adaptive upper bound"),
    ("OptKL (Cor 3.1)", "br.optkl.eps", False, "adaptive upper bound"),
    ("zCDP eps^2/8", "br.zcdp.eps", False, "adaptive upper bound"),
    ("DR19", "br.dr19.eps", False, "adaptive upper bound"),
    ("improved DRV10", "br.drv10.eps", False, "adaptive upper bound"),
)


#: Largest lattice resolution ``--n`` accepted: the lattice costs O(k² N²) time and O(k N) memory (N = 27,314 at
#: k = 20 took 207 s, benchmarks/README.md); N = 10^9 would take gigabytes before the first step.
MAX_N = 100_000
#: Largest ``--seconds`` budget accepted (one day): a budget is finite, or the refinement never stops.
MAX_SECONDS = 86_400


def add_commands(sub: Any) -> None:
    """Add ``dpcert br {compare, optimum}`` to dpcert's subparsers."""
    from dpcert.cli_support import int_option, real_option

    p = sub.add_parser("br", help="bounded-range (exponential mechanism) composition, Dong–Durfee–Rogers")
    bsub = p.add_subparsers(dest="br_command")
    c = bsub.add_parser("compare", help="every eps_g(delta) bound of Figure 1, certified, side by side")
    c.add_argument("inputs", nargs="+", help="k=<int> eps=<real> delta=<real>")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(fn=_compare)
    o = bsub.add_parser("optimum", help="certified nonadaptive delta_OPT and its maximising t (Theorem 3)")
    o.add_argument("inputs", nargs="+", help="k=<int> eps=<real> eps_g=<real>")
    o.add_argument("--json", action="store_true", help="print JSON")
    o.set_defaults(fn=_optimum)
    a = bsub.add_parser("adaptive", help="certified bracket of the adaptive optimum (lattice method)")
    a.add_argument("inputs", nargs="+", help="k=<int> eps=<real> eps_g=<real>")
    a.add_argument(
        "--n",
        type=int_option("--n", 1, MAX_N),
        default=None,
        help=f"lattice resolution N (h = eps/N), 1 to {MAX_N}",
    )
    a.add_argument(
        "--seconds",
        type=real_option("--seconds", 0, MAX_SECONDS, lo_open=True),
        default=None,
        help=f"refine (double N from 100) while time remains; more than 0, at most {MAX_SECONDS}",
    )
    a.add_argument("--json", action="store_true", help="print JSON")
    from dpcert.cli_support import add_run_options

    # default one process: on the shared 2-core machine (load 2.5-3.5) 2 workers were no faster (k = 20, N = 4000:
    # 7.2 s vs 7.6-7.9 s), so parallel runs are asked for with --workers N (the bracket is identical either way)
    add_run_options(a, workers_default=1)
    a.set_defaults(fn=_adaptive)
    p.set_defaults(fn=lambda args: (p.print_help(), 2)[1])


def _inputs(args: argparse.Namespace, names: tuple[str, ...]) -> dict[str, str]:
    from dpcert.cli_support import parse_kv
    from dpcert.errors import InvalidParameter, MissingInput

    kv = parse_kv(args.inputs)
    for key in kv:
        if key not in names:
            raise InvalidParameter(key, kv[key], f"one of {list(names)}")
    for name in names:
        if name not in kv:
            raise MissingInput(name, f"required: {' '.join(n + '=<value>' for n in names)}")
    return kv


def _compare(args: argparse.Namespace) -> int:

    from dpcert.arith.exact import parse_rational
    from dpcert.cli_support import print_json, table
    from dpcert.engine import registry
    from dpcert.errors import PrecisionExhausted

    kv = _inputs(args, ("k", "eps", "delta"))
    # validate once through the BR quantity (k, eps > 0, delta in (0, 1)) before anything runs
    registry.quantity("br.nonadaptive.eps").parse(kv)
    half = str(parse_rational(kv["eps"], "eps").value / 2)
    rows, records, code = [], [], 0
    for label, name, halved, note in _CURVES:
        q = registry.quantity(name)
        inputs = {**kv, "eps": half} if halved else kv
        start = time.perf_counter()
        try:
            enc = q.enclose(inputs, rel_tol=1e-10)
            value, text, verdict = enc.to_json(15), enc.short(10), "CERTIFIED"
        except PrecisionExhausted as exc:
            value, text, verdict, code = None, f"undecided: {exc}", "UNDECIDED", 2
        seconds = time.perf_counter() - start
        rows.append([label, text, f"{seconds:.2f}", note])
        records.append(
            {
                "curve": label,
                "quantity": name,
                "inputs": inputs,
                "verdict": verdict,
                "enclosure": value,
                "seconds": seconds,
                "note": note,
            }
        )
    if args.json:
        print_json({"k": kv["k"], "eps": kv["eps"], "delta": kv["delta"], "bounds": records})
    else:
        print(f"eps_g at delta = {kv['delta']} for k = {kv['k']} mechanisms, each eps = {kv['eps']}-BR")
        print(table(rows, ["curve", "eps_g (certified enclosure)", "s", "note"]))
    return code


def _optimum(args: argparse.Namespace) -> int:
    from dpcert.br.nonadaptive import nonadaptive_optimum
    from dpcert.cli_support import print_json
    from dpcert.errors import PrecisionExhausted

    kv = _inputs(args, ("k", "eps", "eps_g"))
    try:
        opt = nonadaptive_optimum(kv["k"], kv["eps"], kv["eps_g"])
    except PrecisionExhausted as exc:
        print(f"UNDECIDED: {exc}")
        return 2
    record = {
        "delta_opt": opt.enclosure.to_json(20),
        "maximisers": [{"l": ell, "t": str(t)} for ell, t in zip(opt.maximisers, opt.t, strict=True)],
        "exact_tie": opt.exact_tie,
        "interior_candidates": opt.interior,
        "summed_candidates": opt.summed,
        "precision": opt.precision,
    }
    if args.json:
        print_json(record)
    else:
        print(f"delta_OPT = {opt.enclosure.short(20)}")
        for ell, t in zip(opt.maximisers, opt.t, strict=True):
            print(f"  maximiser l = {ell}, t = {t} (= {float(t):.12g})")
        if opt.exact_tie:
            print("  (an exact tie, proved by the symmetry delta^k(t, 0) = delta^k(eps - t, 0))")
        print(f"  {opt.summed} of {opt.interior} interior candidates summed; the rest bounded by Chernoff blocks")
    return 0


def _adaptive(args: argparse.Namespace) -> int:
    from dpcert.br.adaptive import adaptive_bracket
    from dpcert.cli_support import print_json
    from dpcert.errors import InvalidParameter

    kv = _inputs(args, ("k", "eps", "eps_g"))
    if args.n is not None and args.seconds is not None:
        raise InvalidParameter("--n", args.n, "either --n or --seconds, not both")
    if args.seconds is not None and not args.seconds > 0:
        raise InvalidParameter("--seconds", args.seconds, "a positive number of seconds")
    from dpcert.br.nonadaptive import _EPS, _EPS_G, _K
    from dpcert.cli_support import run_options

    k = _K.parse(kv["k"])
    e, g = _EPS.exact(kv["eps"]), _EPS_G.exact(kv["eps_g"])
    run = run_options(args, key=f"br adaptive {k} {e} {g}")
    start = time.perf_counter()

    def bracket(n: int) -> Any:
        return adaptive_bracket(k, e, g, n=n, run=run)

    if args.seconds is None:
        br = bracket(200 if args.n is None else args.n)
    else:
        n, br = 100, bracket(100)
        # the cost grows like N^2: stop doubling when the next run would not fit in the time left
        while br.n and 4.5 * br.seconds < args.seconds - (time.perf_counter() - start):
            n *= 2
            br = bracket(n)
    record = {
        "bracket": br.enclosure.to_json(15),
        "n": br.n,
        "relative_width": float(br.width / br.hi) if br.hi else 0.0,
        "nonadaptive": br.nonadaptive.to_json(15),
        "seconds": time.perf_counter() - start,
    }
    if args.json:
        print_json(record)
    else:
        print(f"adaptive delta_OPT in {br.enclosure.short(12)}  (lattice N = {br.n}; N = 0: exact, Lemma 6.10)")
        print(f"  relative width {record['relative_width']:.3g}; nonadaptive (Theorem 3) {br.nonadaptive.short(12)}")
    return 0
