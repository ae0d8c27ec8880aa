"""``dpcert shuffle …``: the shuffle-model RDP bounds side by side, and the composed (ε, δ)-DP.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

``dpcert shuffle rdp n=1000000 eps0=1 lam=2..256 [--pair] [--json]`` prints, for every order λ (comma-separated
values and integer ranges ``a..b``: ``1.5,2..8``), Theorem 1 (eq. 8 between integers), Theorem 2, eq. (10), Corollary 1
(with its condition decided exactly), Theorem 3 and Corollary 2 (integer λ), the exact 2RR pair (both orders;
n <= 10^6), the default certified upper bound min(Thm 1, Thm 2, RR_1) and, with ``--reduction``, U_red (derived
here, not in the paper; any λ for n <= 10^4, integer λ <= 1024 up to n = 10^6).
Upper bounds are shown rounded up and lower bounds rounded down, from certified enclosures.

``dpcert shuffle dp n= eps0= T= delta= [--json]`` prints ε(δ) of T rounds for each upper bound (and the Theorem 3
curve, which is not a bound), each certified at its float-chosen λ.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_commands"]


#: The most orders one ``dpcert shuffle rdp`` table shows (each order evaluates up to nine certified bounds).
MAX_ORDERS = 10_000


def _orders(text: str) -> list[str]:
    """``"2..4,7.5"`` -> ``["2", "3", "4", "7.5"]``: a comma list of values and integer ranges a..b.

    The number of orders is counted from the text (ranges by their ends) and refused above :data:`MAX_ORDERS`
    before any list is built; an empty list is refused too.
    """
    from dpcert.arith.exact import parse_int
    from dpcert.errors import InvalidParameter

    allowed = f"values and integer ranges a..b, comma-separated, at most {MAX_ORDERS} orders in all"
    if text.count(",") >= MAX_ORDERS:
        raise InvalidParameter("lam", text, allowed)
    ranges: list[tuple[int, int] | str] = []
    count = 0
    for item in (t.strip() for t in text.split(",")):
        if ".." in item:
            a, _, b = item.partition("..")
            try:
                lo, hi = parse_int(a, "lam"), parse_int(b, "lam")
            except InvalidParameter:
                raise InvalidParameter("lam", text, allowed) from None
            if lo > hi:
                raise InvalidParameter("lam", text, "ranges a..b with a <= b")
            count += hi - lo + 1
            ranges.append((lo, hi))
        elif item:
            count += 1
            ranges.append(item)
        if count > MAX_ORDERS:
            raise InvalidParameter("lam", text, allowed)
    if not ranges:
        raise InvalidParameter("lam", text, "at least one order (a value, a list or a range a..b)")
    out: list[str] = []
    for r in ranges:
        out += [str(v) for v in range(r[0], r[1] + 1)] if isinstance(r, tuple) else [r]
    return out


def _cmd_rdp(a: argparse.Namespace) -> int:

    from dpcert.cli_support import parse_kv, print_json, table
    from dpcert.errors import InvalidParameter
    from dpcert.shuffle import QUANTITIES, bounds
    from dpcert.shuffle.reduction import LABEL

    kv = parse_kv(a.inputs)
    if "alpha" in kv:  # the vocabulary's name of the Rényi order; lam is its legacy name
        if "lam" in kv:
            raise InvalidParameter("alpha", kv["alpha"], "only one of lam and alpha: both name the Renyi order")
        kv["lam"] = kv.pop("alpha")
    unknown = set(kv) - {"n", "eps0", "lam"}
    if unknown or "lam" not in kv:
        what = "n=<int> eps0=<real> alpha=<value, list or a..b> (or lam=; and nothing else)"
        raise InvalidParameter("inputs", a.inputs, what)
    base = QUANTITIES["shuffle.rdp.thm2"].parse({"n": kv.get("n"), "eps0": kv.get("eps0"), "lam": 2})
    n, eps0 = base["n"], base["eps0"]
    if a.reduction and n > 10**6:
        raise InvalidParameter("n", n, "n <= 10^6 with --reduction (U_red is evaluated exactly)")
    show_pair = a.pair or n <= 10**6
    rows, records = [], []
    # every order is parsed before the first is computed: a bad one is refused before any work
    orders = [
        (lam_text, QUANTITIES["shuffle.rdp.thm2"].parse({"n": n, "eps0": kv["eps0"], "lam": lam_text})["alpha"])
        for lam_text in _orders(kv["lam"])
    ]
    for lam_text, lam in orders:
        integer = lam.value.denominator == 1
        inputs = {"n": n, "eps0": kv["eps0"], "lam": lam_text}
        rec: dict[str, Any] = {"lam": lam.to_json()}

        def put(
            key: str, name: str, extra: dict[str, Any] | None = None, *, inp: dict[str, Any] = inputs, rec=rec
        ) -> Any:
            enc = QUANTITIES[name].enclose({**inp, **(extra or {})}, rel_tol=1e-12)
            rec[key] = enc.to_json(20)
            return enc

        if integer:
            int_inputs = {**inputs, "lam": int(lam.value)}
            t1 = put("thm1", "shuffle.rdp.thm1", inp=int_inputs)
        else:
            t1 = put("thm1_eq8", "shuffle.rdp.thm1_real")
        t2 = put("thm2", "shuffle.rdp.thm2")
        ef = put("efm19", "shuffle.rdp.efm19")
        up = put("upper", "shuffle.rdp.upper", {"bound": "default"})
        cells = [lam.given, _up(t1), _up(t2), _up(ef), _up(up)]
        if integer:
            lam_i = int(lam.value)
            c1 = put("cor1", "shuffle.rdp.cor1", inp=int_inputs)
            applies = bounds.cor1_applies(n, eps0, lam_i)
            rec["cor1_condition_holds"] = applies
            cells.append(_up(c1) + ("" if applies else " (cond. fails)"))
            if lam_i <= 4096 and n <= 10**6:
                cells.append(_down(put("thm3", "shuffle.rdp.thm3", inp=int_inputs)))
            else:
                cells.append("n/a")
            cells.append(_down(put("cor2", "shuffle.rdp.cor2", inp=int_inputs)))
        else:
            cells += ["n/a (integer lam)"] * 3
        if a.reduction:
            if n <= 10**4 or (integer and lam.value <= 1024):
                cells.append(_up(put("reduction_derived_here", "shuffle.rdp.reduction")))
            else:
                cells.append("n/a (n > 10^4 needs integer lam <= 1024)")
        if show_pair:
            fwd = put("pair_forward", "shuffle.rdp.pair", {"order": "forward"})
            rev = put("pair_reverse", "shuffle.rdp.pair", {"order": "reverse"})
            cells += [_down(fwd), _down(rev)]
        rows.append(cells)
        records.append(rec)
    header = ["lam", "Thm1 (up)", "Thm2 (up)", "eq10 (up)", "upper=min(T1,T2,RR1)", "Cor1", "Thm3 (low)", "Cor2 (low)"]
    if a.reduction:
        header.append("U_red (up, derived here)")
    if show_pair:
        header += ["pair fwd (low)", "pair rev (low)"]
    if a.json:
        print_json(
            {
                "n": n,
                "eps0": eps0.to_json(),
                "rows": records,
                "units": "nats",
                "reference": "Girgis-Data-Diggavi-Suresh-Kairouz, CCS 2021, Theorems 1-3, Corollaries 1-2, eqs. (8), "
                "(10); RR_1: Steinke 2024; pair: the exact 2RR pair",
                **({"reduction_derived_here": LABEL} if a.reduction else {}),
            }
        )
        return 0
    print(f"shuffle-model RDP (nats), n = {n}, eps0 = {eps0.given} (n-bar = {bounds.nbar(n, eps0)})")
    print(table(rows, header))
    print("upper bounds rounded up, lower bounds rounded down, from certified enclosures; Cor 1 is a bound only")
    print("where lam^4 e^{5 eps0} < n/9 (and its derivation from Thm 1 has a gap at tiny eps0: erratum E2)")
    if a.reduction:
        print(f"U_red: {LABEL}")
    return 0


def _up(enc: Any) -> str:
    return enc.decimal(10)[1] if enc.hi is not None else "inf"


def _down(enc: Any) -> str:
    return enc.decimal(10)[0] if enc.lo is not None else "-inf"


def _cmd_dp(a: argparse.Namespace) -> int:
    from dpcert.cli_support import parse_kv, print_json, table
    from dpcert.core.quantity import enclosure_of
    from dpcert.shuffle import QUANTITIES, conversion

    kv = parse_kv(a.inputs)
    q = QUANTITIES["shuffle.dp.eps"]
    parsed = q.parse(kv)
    enc = q.enclose(kv, rel_tol=1e-12)
    lam = conversion.best_lambda(parsed["n"], parsed["eps0"].value, parsed["k"], parsed["delta"].value, "eps")
    record = {
        "inputs": {k: (v.to_json() if hasattr(v, "to_json") else v) for k, v in parsed.items()},
        "eps": enc.to_json(20),
        "lam": str(lam),
        "bound": "min(Thm 1 via eq. (8), Thm 2, RR_1) composed over T rounds (Lemma 2), Lemma 1 at lam",
        "reference": "Girgis-Data-Diggavi-Suresh-Kairouz, CCS 2021, Lemmas 1-2; Steinke 2024",
    }
    others = []
    for bound, label in (("thm1", "Thm 1 via eq. (8)"), ("thm2", "Thm 2"), ("efm19", "EFM+19 eq. (10)")):
        lam_b, val = conversion.dp_eps_of_bound(bound, parsed["n"], parsed["eps0"], parsed["k"], parsed["delta"])
        hi = "inf" if not val.is_finite() else enclosure_of(val).decimal(12)[1]  # rounded up
        others.append({"bound": bound, "label": label, "lam": str(lam_b), "eps_upper_endpoint": hi})
    record["per_bound"] = others
    if a.json:
        print_json(record)
        return 0
    rows = [["min(Thm 1, Thm 2, RR_1) (shuffle.dp.eps)", enc.decimal(12)[1], str(lam)]]
    rows += [[o["label"], o["eps_upper_endpoint"], o["lam"]] for o in others]
    print(
        f"(eps, delta)-DP of T = {parsed['k']} shuffled rounds, n = {parsed['n']}, eps0 = {parsed['eps0'].given}, "
        f"delta = {parsed['delta'].given} (Lemma 1 at the best lam, certified at it)"
    )
    print(table(rows, ["RDP bound", "eps (rounded up)", "lam"]))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``dpcert shuffle`` and its subcommands on the top-level subparsers."""
    p = sub.add_parser("shuffle", help="shuffle-model RDP bounds (Girgis et al., CCS 2021)")
    inner = p.add_subparsers(dest="shuffle_command", parser_class=type(p))
    r = inner.add_parser(
        "rdp",
        help="every RDP bound side by side, e.g. `dpcert shuffle rdp n=1000000 eps0=1 lam=2..256`",
        description="The paper's RDP bounds and the exact 2RR pair at each lam, from certified enclosures.",
    )
    r.add_argument("inputs", nargs="*", metavar="name=value", help="n=<int> eps0=<real> lam=<value | list | a..b>")
    r.add_argument("--pair", action="store_true", help="the exact pair (shown by default: n <= 10^6)")
    r.add_argument("--reduction", action="store_true", help="also U_red, derived here (n <= 10^6; real lam: n <= 10^4)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.set_defaults(fn=_cmd_rdp)
    d = inner.add_parser(
        "dp",
        help="(eps, delta)-DP of T shuffled rounds, e.g. `dpcert shuffle dp n=1000000 eps0=0.5 T=1000 delta=1e-6`",
        description="eps(delta) of T rounds from the default certified RDP upper bound, at the best lam.",
    )
    d.add_argument("inputs", nargs="*", metavar="name=value", help="n=<int> eps0=<real> T=<int> delta=<real>")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.set_defaults(fn=_cmd_dp)
    p.set_defaults(fn=lambda a: (p.print_help(), 2)[1])
