"""``dpcert darrm ...``: certify a DaRRM γ's privacy, and its expected error.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

    dpcert darrm certify gamma=sub K=11 m=3 eps=0.1 Delta=1e-5 delta=0.00003 [--for-all-eps] [--iid]
        [--workers N] [--executor serial|processes|dask] [--scheduler ADDRESS] [--checkpoint FILE]
        [--certificate DIR] [--json]
    dpcert darrm error gamma=sub K=11 m=3 mu=0.75 [--json]
    dpcert darrm optimize K=11 m=3 eps=0.1 Delta=1e-5 delta=general [prior=0.75] [--out FILE] [--workers N] [--json]
    (prior=mc:grid(0.5,1,50):seed=0:samples=10000 or mc:uniform(0.5,1):...: the paper's Monte-Carlo objective)

``gamma`` is a name (sub, dsub, max, const, one) or a γ table file (CSV ``l,gamma`` or a JSON list): the file is
read once, here, and the claim and its certificate record the table itself, so ``dpcert check`` reads no file.

Every number shown says what it is: ``max margin (encloses the maximum)``, ``max margin (a bracket ...)``, ``max
margin <= ...`` (an upper bound), ``margin at the counterexample ...`` (a value at a point), ``worst multiset``;
``--json`` has the same under ``max_margin``, ``max_margin_bracket``, ``margin_upper_bound``,
``margin_at_counterexample`` and ``worst_multiset``, and ``enclosure`` always encloses the largest margin.

Exit codes as ``dpcert verify``: 0 certified, 1 refuted, 2 undecided or bad input.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from typing import Any

__all__ = ["add_commands"]

_EXIT = {"CERTIFIED": 0, "REFUTED": 1}

#: Most worker processes ``--workers`` starts (the same as :data:`dpcert.core.parallel.MAX_WORKERS`).
MAX_WORKERS = 256


def _parse_k(text: Any, cap: int, why: str) -> int:
    """K, an odd integer in [1, cap], refused before any work (the message says why the cap)."""
    from dpcert.core.params import integer
    from dpcert.errors import InvalidParameter

    try:
        return int(integer("K", 1, cap, odd=True).parse(text))
    except InvalidParameter:
        raise InvalidParameter("K", text, f"an odd integer with 1 <= K <= {cap} ({why})") from None


def add_commands(sub: Any) -> None:
    """Add the ``darrm`` command and its subcommands to dpcert's subparsers."""
    from dpcert.cli_support import add_run_options, max_prec_option, output_option

    p = sub.add_parser("darrm", help="DaRRM: certify a noise function gamma's privacy; its error")
    dsub = p.add_subparsers(dest="darrm_command", parser_class=type(p))
    c = dsub.add_parser(
        "certify",
        help="is DaRRM_gamma (m eps, delta)-DP for all K (eps, Delta)-DP mechanisms? "
        "e.g. `dpcert darrm certify gamma=sub K=11 m=3 eps=0.1 Delta=1e-5 delta=0.00003`",
    )
    c.add_argument("inputs", nargs="*", metavar="name=value", help="gamma, K, m, eps, Delta, delta")
    c.add_argument("--for-all-eps", action="store_true", help="certify for every eps > 0 at once (eps not needed)")
    c.add_argument("--iid", action="store_true", help="identical mechanisms only (Theorem 4.1's setting)")
    add_run_options(c)
    c.add_argument(
        "--certificate",
        metavar="DIR",
        type=output_option("--certificate", directory=True),
        help="write a certificate into DIR",
    )
    c.add_argument(
        "--id", default=None, help="claim id for the certificate (default: user.darrm.certify.<hash of the claim>)"
    )
    c.add_argument("--max-prec", type=max_prec_option(), default=None, help="maximum ball precision in bits")
    c.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    c.add_argument("--json", action="store_true", help="machine-readable output (top-level 'verdict')")
    c.set_defaults(fn=_cmd_certify)
    e = dsub.add_parser(
        "error",
        help="E(DaRRM_gamma) exactly: `dpcert darrm error gamma=sub K=11 m=3 mu=0.75` (i.i.d. p = mu, the "
        "surrogate under a product prior) or `... p=0.6,0.7,...` (K mechanisms)",
    )
    e.add_argument("inputs", nargs="*", metavar="name=value", help="gamma, K, m and mu or p (comma-separated)")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.set_defaults(fn=_cmd_error)
    o = dsub.add_parser(
        "optimize",
        help="the optimal gamma by LP over every corner multiset, shipped as exact rationals, proved private, with a "
        "certified optimality gap: `dpcert darrm optimize K=11 m=3 eps=0.1 Delta=1e-5 delta=general`",
    )
    o.add_argument(
        "inputs",
        nargs="*",
        metavar="name=value",
        help="K, m, eps, Delta, delta and optionally prior (mu, or mc:grid(LO,HI,TAU):seed=S:samples=T, "
        "mc:uniform(LO,HI):seed=S:samples=T)",
    )
    o.add_argument(
        "--out",
        metavar="FILE",
        type=output_option("--out", stream=True),
        help="write the table as CSV l,gamma with exact fractions (- : to stdout instead of the summary)",
    )
    add_run_options(o)
    o.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    o.add_argument("--json", action="store_true", help="machine-readable output (top-level 'verdict')")
    o.set_defaults(fn=_cmd_optimize)


def _need(inputs: dict[str, str], names: list[str]) -> None:
    from dpcert.errors import InvalidParameter, MissingInput

    allowed = set(names)
    for k in inputs:
        if k not in allowed:
            raise InvalidParameter(k, inputs[k], f"one of the inputs {names}")
    for n in names:
        if n not in inputs:
            raise MissingInput(n, f"a value; required: {', '.join(names)}")


def _cmd_certify(a: argparse.Namespace) -> int:
    from dpcert.arith.ball import MAX_PREC
    from dpcert.cli_support import parse_kv, print_json
    from dpcert.core.claim import FunctionClaim
    from dpcert.darrm import privacy_claims as pc
    from dpcert.errors import InvalidParameter

    inputs = parse_kv(a.inputs)
    if a.for_all_eps and a.iid:
        raise InvalidParameter("--iid", True, "not together with --for-all-eps")
    names = ["gamma", "K", "m", "Delta", "delta"] + ([] if a.for_all_eps else ["eps"])
    if a.for_all_eps and "eps" in inputs:
        # the command line gives eps with --for-all-eps: it is checked like any eps and covered by the
        # certificate, which holds for every eps > 0
        from dpcert.core.params import real

        real("eps", 0, lo_open=True).parse(inputs.pop("eps"))
    _need(inputs, names)
    kw: dict[str, Any] = {k: inputs[k] for k in names}
    from dpcert.darrm.kernel import MAX_K

    # the float kernel's error analysis covers K <= MAX_K (201); the benchmarks run K = 101 (Δ = 0), 41 (Δ > 0)
    kw["K"] = _parse_k(inputs["K"], MAX_K, "darrm certify: the float kernel's error analysis")
    # a γ file is read once, here: the claim (and its certificate) holds the table itself, never the path
    kw["gamma"] = _gamma_input(inputs["gamma"])
    settings: dict[str, Any] = {}
    if a.for_all_eps:
        fn, mode = pc.check_private_all_eps, "for every eps > 0"
    elif a.iid:
        fn, mode = pc.check_private_iid, "i.i.d. mechanisms"
    else:
        fn, mode = pc.check_private, "all corner multisets"
    _validate_early(kw)
    from dpcert.engine import registry
    from dpcert.engine.certificate import default_claim_id, derived_statement

    if a.id is not None and a.id in registry.claims():
        raise InvalidParameter("--id", a.id, "an id that is not a registered claim's (see `dpcert list`)")
    reference = "Jiang–Zhang–Joshi, DaRRM (TMLR), Lemma 3.4 and Lemma 5.1"
    draft = FunctionClaim("user.darrm.certify", reference, "", fn=fn, inputs=kw)
    claim = FunctionClaim(
        a.id if a.id is not None else default_claim_id(draft.spec_json(), "darrm.certify"),
        reference,
        derived_statement(draft),
        fn=fn,
        inputs=kw,
        settings=settings,
    )
    import json

    from dpcert.cli_support import run_options

    max_prec = a.max_prec or MAX_PREC
    # the checkpoint is of these inputs only (the claim as drafted: its id does not matter)
    key = "darrm certify " + json.dumps([max_prec, draft.spec_json()], sort_keys=True, default=str)
    # how to run, never recorded in the certificate
    settings["run"] = run_options(a, key=key, progress=None if a.quiet else "dpcert darrm certify")
    claim = replace(claim, settings=settings)
    t0 = time.perf_counter()
    result = claim.check(max_prec=max_prec)
    seconds = time.perf_counter() - t0
    if result.error:
        raise InvalidParameter("inputs", inputs, result.error)
    written = None
    if a.certificate:
        from dpcert.engine.certificate import write_certificate

        written = str(write_certificate(result, a.certificate, option="--certificate"))
    ev = result.evidence
    if a.json:
        out = {"verdict": result.verdict.value, "mode": mode, **{k: v for k, v in kw.items()}}
        if isinstance(kw["gamma"], tuple):
            out["gamma_file"] = inputs["gamma"]  # informational: the table itself is "gamma"
        out.update(ev.to_json())
        # the labelled numbers, at the top level too (``enclosure`` always encloses the largest margin)
        out.update({k: ev.extra[k] for k in _LABELLED if k in ev.extra})
        out["seconds"] = round(seconds, 4)
        if written:
            out["certificate"] = written
        print_json(out)
    else:
        print(f"{result.verdict.value}: {ev.detail}")
        for line in _labelled_lines(ev.extra):
            print(f"  {line}")
        if ev.counts:
            print(f"  decided by path: {ev.counts}")
        for k, v in ev.extra.items():
            if k not in _LABELLED:
                print(f"  {k}: {v}")
        print(f"  time: {seconds:.3f} s")
        if written:
            print(f"  certificate: {written}")
    return _EXIT.get(result.verdict.value, 2)


def _cmd_error(a: argparse.Namespace) -> int:
    from dpcert.arith.exact import fraction_to_decimal, parse_rational
    from dpcert.cli_support import parse_kv, print_json
    from dpcert.darrm import utility
    from dpcert.errors import InvalidParameter

    inputs = parse_kv(a.inputs)
    which = "p" if "p" in inputs else "mu"
    _need(inputs, ["gamma", "K", "m", which])
    K = _parse_k(inputs["K"], utility.ERROR_MAX_K, "darrm error: an exact sum of K + 1 terms of O(K) digits")
    if which == "p" and inputs["p"].count(",") + 1 != K:  # counted on the text, before any item is parsed
        raise InvalidParameter("p", inputs["p"], f"K = {K} comma-separated probabilities")
    g = utility._gamma(_gamma_input(inputs["gamma"]), K, parse_rational(inputs["m"], "m"))
    if which == "mu":
        mu = parse_rational(inputs["mu"], "mu").value
        if not 0 <= mu <= 1:
            raise InvalidParameter("mu", inputs["mu"], "a probability in [0, 1]")
        val = utility.error_iid(g, mu)
    else:
        ps = [parse_rational(v, f"p[{i}]").value for i, v in enumerate(inputs["p"].split(","))]
        val = utility.error(g, ps)
    dec = fraction_to_decimal(val, 15, "nearest")
    if a.json:
        print_json({"verdict": "CERTIFIED", "error": {"exact": _exact_text(val), "decimal": dec}, **inputs})
    else:
        print(f"E(DaRRM_{inputs['gamma']}) = {dec}  (exact: {_exact_text(val)})")
    return 0


def _cmd_optimize(a: argparse.Namespace) -> int:
    from dpcert.arith.exact import fraction_to_decimal, parse_rational
    from dpcert.cli_support import parse_kv, print_json, run_options
    from dpcert.darrm.kernel import MAX_K
    from dpcert.darrm.optimize import PRIOR_DEFAULT, optimize, write_table
    from dpcert.darrm.privacy_claims import parse_delta
    from dpcert.errors import InvalidParameter

    inputs = parse_kv(a.inputs)
    names = ["K", "m", "eps", "Delta", "delta"]
    for k in inputs:
        if k not in [*names, "prior"]:
            raise InvalidParameter(k, inputs[k], f"one of the inputs {[*names, 'prior']}")
    _need({k: v for k, v in inputs.items() if k != "prior"}, names)
    K = _parse_k(inputs["K"], MAX_K, "darrm optimize: the float kernel's error analysis")
    m = parse_rational(inputs["m"], "m").value
    eps = parse_rational(inputs["eps"], "eps").value
    D = parse_rational(inputs["Delta"], "Delta").value
    try:
        d = parse_delta(inputs["delta"], D, m)
    except ValueError as exc:
        raise InvalidParameter("delta", inputs["delta"], str(exc)) from None
    if "prior" in inputs and inputs["prior"].strip().startswith("mc:"):
        from dpcert.darrm.mc_prior import parse_prior

        mu = parse_prior(inputs["prior"])  # the paper's Monte-Carlo objective (Algorithms 4/5), seeded
    else:
        mu = parse_rational(inputs["prior"], "prior").value if "prior" in inputs else PRIOR_DEFAULT
    if a.out == "-" and a.json:  # the path itself was checked when the arguments were parsed
        raise InvalidParameter("--out", a.out, "a file with --json (both would write to standard output)")
    t0 = time.perf_counter()

    def progress(info: dict[str, Any]) -> None:
        if not a.quiet and time.perf_counter() - t0 > 1:
            sys.stderr.write(
                f"dpcert darrm optimize: round {info['round']}: {info['violated']} rows violated "
                f"(largest {info['max_violation']:.3g}), working rows {info['rows']}, "
                f"LP error {info['lp_error']:.12g}, "
                f"gap estimate {info['gap_estimate']:.3g}, {time.perf_counter() - t0:.1f} s\n"
            )

    key = "darrm optimize " + " ".join(f"{k}={inputs[k]}" for k in sorted(inputs))
    run = run_options(a, key=key, progress=None if a.quiet else "dpcert darrm optimize")
    res = optimize(K, m, eps, D, d, mu, workers=a.workers, progress=progress, run=run)  # workers None: every core
    if a.out is not None:
        try:
            write_table(a.out, res.gamma)
        except OSError as exc:
            raise InvalidParameter("--out", a.out, f"a writable file path ({exc.strerror})") from None
        if a.out == "-":  # the table instead of the summary; the verdict on stderr and in the exit code
            sys.stderr.write(f"dpcert darrm optimize: {res.verdict.value}\n")
            return _EXIT.get(res.verdict.value, 2)
    if a.json:
        out_json = res.to_json()
        if a.out is not None:
            out_json["out"] = a.out
        print_json(out_json)
    else:
        print(
            f"{res.verdict.value}: the shipped gamma is ({m}*eps, {d})-DP for all K = {K} ({eps}, {D})-DP mechanisms"
            if res.verdict.value == "CERTIFIED"
            else f"{res.verdict.value}: the shipped gamma's privacy"
        )
        print(f"  gamma(0..K): {', '.join(_exact_text(v) for v in res.gamma)}")
        err = fraction_to_decimal(res.error, 15, "nearest")
        what = f"prior mu = {mu}" if not hasattr(mu, "coefficients") else f"estimated objective, prior {mu}"
        print(f"  error ({what}): {err} (exact: {_exact_text(res.error)})")
        gap = fraction_to_decimal(res.gap, 6, "up") if res.gap else "0"
        low = fraction_to_decimal(res.lower_bound, 15, "down")
        print(f"  certified optimality gap <= {gap} (a lower bound on the optimum: {low})")
        print(f"  source: {res.source}; status: {res.status}; shrink t = {fraction_to_decimal(res.shrink, 6, 'up')}")
        print(f"  rounds: {res.rounds}; working rows: {res.rows}; time: {res.seconds:.3f} s")
        if a.out is not None:
            print(f"  table: {a.out}")
    return _EXIT.get(res.verdict.value, 2)


#: The evidence keys that say what a number is (see :mod:`dpcert.darrm.privacy_claims`).
_LABELLED = ("max_margin", "max_margin_bracket", "margin_upper_bound", "margin_at_counterexample", "worst_multiset")


def _labelled_lines(extra: dict[str, Any]) -> list[str]:
    """One line per labelled number: the maximum, a bracket of it, an upper bound, a value at a point."""

    def ends(rec: dict[str, str]) -> str:
        return f"[{rec['lo']}, {rec['hi']}]"

    out = []
    if "max_margin" in extra:
        out.append(f"max margin (encloses the maximum): {ends(extra['max_margin'])}")
    if "max_margin_bracket" in extra:
        out.append(f"max margin (a bracket of the maximum, not tight): {ends(extra['max_margin_bracket'])}")
    if "margin_upper_bound" in extra:
        ub = extra["margin_upper_bound"]
        out.append(f"max margin <= {ub['hi']} ({ub['is']})")
    if "margin_at_counterexample" in extra:
        ce = extra["margin_at_counterexample"]
        at = f"(p, p') = ({ce['p']}, {ce['p_prime']})" if "p" in ce else ce["corner"]
        out.append(f"margin at the counterexample {at}: {ends(ce['margin'])} (a value at that point)")
    if "worst_multiset" in extra:
        w = extra["worst_multiset"]
        out.append(f"worst multiset: {', '.join(w['corners'])}, its margin {ends(w['margin'])}")
    return out


def _gamma_input(value: str) -> Any:
    """γ as a claim records it: a name, or a table file read (bounded) into the tuple of its exact values."""
    from dpcert.darrm.params import gamma_param

    return gamma_param().parse(value)


def _exact_text(value: Any) -> str:
    """A rational written in full, also past Python's 4300-digit limit on int-to-string conversion (through FLINT)."""
    from flint import fmpq

    return str(fmpq(value.numerator, value.denominator))


def _validate_early(kw: dict[str, Any]) -> None:
    """Bad inputs raise InvalidParameter here (one CLI line, exit 2) rather than inside the check."""
    from fractions import Fraction

    from dpcert.arith.exact import parse_rational
    from dpcert.darrm.gamma import named_gamma
    from dpcert.darrm.params import gamma_param
    from dpcert.darrm.privacy import problem
    from dpcert.darrm.privacy_claims import parse_delta

    gamma_param().parse(kw["gamma"])
    m = parse_rational(kw["m"], "m").value
    eps = parse_rational(kw.get("eps", "1"), "eps").value
    D = parse_rational(kw["Delta"], "Delta").value
    try:
        d = parse_delta(kw["delta"], D, m)
    except ValueError as exc:
        from dpcert.errors import InvalidParameter

        raise InvalidParameter("delta", kw["delta"], str(exc)) from None
    from dpcert.darrm.gamma import check_k

    K = check_k(kw["K"])
    if not 1 <= m <= K:
        problem(named_gamma("one", K, Fraction(1), eps, D, d), K, m, eps, D, d)
    problem(named_gamma(kw["gamma"], K, m, eps, D, d), K, m, eps, D, d)
