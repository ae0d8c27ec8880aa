"""Benchmark: the certified accountant (issue 31's targets) beside dp-accounting and, where installed, Opacus.

**Composition** (the timing target): a heterogeneous ledger of three event kinds over 10^4 steps — 9,900 steps of
DP-SGD (``PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1))``), 50 ``GaussianDpEvent(20)`` releases and 50
``LaplaceDpEvent(50)`` releases, add/remove, δ = 1e-5 — certified by ``dpcert.Accountant`` to relative width
<= 1e-3, beside dp-accounting's ``PLDAccountant`` at its default grid, the two run alternately in one process
(median times over ``--runs``, at least 3; imports and the peer's event conversion outside the timing). Target:
width <= 1e-3 within 2x dp-accounting's PLD time in the same run; the row prints the ratio and met or MISSED.
Opacus' accountants take a history of (σ, q, steps) only and have no Laplace event, so a second row (without
``--quick``) drops the Laplace releases and adds Opacus' PRV and RDP answers (the 50 Gaussian releases are
50 steps at sample rate 1); it has no target.

**Events** (the coverage target): every dp-accounting 0.6 event kind (and dpcert's ``DiscreteGaussianDpEvent``),
one small representative each (the audit's ledgers, ``dpcert.audit.cases.LEDGERS``, and the kinds the audit does
not run), under both neighbouring relations: certified (by the PLD of tight pairs, of a proved pair that is not
tight, by certified RDP, or exactly) or refused with its one-line reason; and, where dp-accounting's
``PLDAccountant`` takes the event, its optimistic and pessimistic PLDs (``pessimistic_estimate`` False and True at
its default grid) and whether dpcert's certified enclosure lies within that bracket (``inside``), meets it
(``overlaps``) or misses it (``BELOW``/``ABOVE``: a disagreement, either side could be wrong). For a ledger whose
lower end is not the mechanism's (RDP, or a pair that is not tight; ``dpcert.audit.ledgers``), only the upper end
is compared: ``hi >= opt`` is consistent. dp-accounting's RDP answer is printed beside it.

Peers' values are floats and prove nothing. Exit status 1 if a target is missed.

    python benchmarks/bench_accounting.py [--quick] [--runs 3] [--json] [--seconds 120]

``--quick``: the target row only (three runs of each side), the events at width 1e-2 (about a minute).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from timing import median_time  # noqa: E402

DELTA = "1e-5"
#: dp-accounting's optimistic PLD of a mixture of Gaussians is built by privacy buckets over its grid: 20-80 s here.
SLOW_WITHOUT_QUICK = ("MixtureOfGaussians",)


def _g(s: str) -> dict[str, Any]:
    return {"type": "GaussianDpEvent", "noise_multiplier": s}


def _self(e: dict[str, Any], n: int) -> dict[str, Any]:
    return {"type": "SelfComposedDpEvent", "event": e, "count": n}


def _ps(q: str, e: dict[str, Any]) -> dict[str, Any]:
    return {"type": "PoissonSampledDpEvent", "sampling_probability": q, "event": e}


@dataclass(frozen=True)
class Ledger:
    """A composition row: the ledger as event-file JSON, Opacus' history when it has one, the target."""

    name: str
    events: dict[str, Any]
    opacus: tuple[tuple[float, float, int], ...] | None = None
    width: float = 1e-3
    target: str = ""
    vs_dpa: float | None = None  # the time target: at most this many times dp-accounting's PLD time


COMPOSITIONS = [
    Ledger(
        "3 kinds, 10^4 steps",
        {
            "type": "ComposedDpEvent",
            "events": [
                _self(_ps("0.01", _g("1.1")), 9900),
                _self(_g("20"), 50),
                _self({"type": "LaplaceDpEvent", "noise_multiplier": "50"}, 50),
            ],
        },
        target="width <= 1e-3, time <= 2x dp-accounting PLD",
        vs_dpa=2.0,
    ),  # fmt: skip
    Ledger(
        "2 kinds, 10^4 steps (Opacus)",
        {"type": "ComposedDpEvent", "events": [_self(_ps("0.01", _g("1.1")), 9950), _self(_g("20"), 50)]},
        opacus=((1.1, 0.01, 9950), (20.0, 1.0, 50)),
    ),
]


def _extra_ledgers() -> dict[str, str]:
    """The kinds the audit does not run, as event-file JSON text."""
    return {
        k: json.dumps(v, separators=(",", ":"))
        for k, v in {
            "SampledWithReplacement": {
                "type": "SampledWithReplacementDpEvent",
                "source_dataset_size": 1024,
                "sample_size": 16,
                "event": _g("1"),
            },
            "TruncatedSubsampledGaussian": {
                "type": "TruncatedSubsampledGaussianDpEvent",
                "dataset_size": 1000,
                "sampling_probability": "0.015625",
                "truncated_batch_size": 32,
                "noise_multiplier": "1",
            },
            "SelfComposed(Gaussian)": _self(_g("4"), 16),
            "NoOp": {"type": "NoOpDpEvent"},
            "NonPrivate": {"type": "NonPrivateDpEvent"},
            "DiscreteGaussian (dpcert only)": {"type": "DiscreteGaussianDpEvent", "sigma": "2", "sensitivity": 1},
        }.items()
    }


def _timed(fn: Any, runs: int) -> dict[str, Any]:
    """A peer's value and median time, or its refusal."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t, v = median_time(fn, max(1, runs))
    except ImportError as exc:
        return {"error": f"not installed ({exc.name})"}
    except Exception as exc:  # noqa: BLE001 - a peer's refusal is a result, not a failure of the benchmark
        return {"error": " ".join(f"{type(exc).__name__}: {exc}".split())[:100]}
    return {"value": v, "seconds": t}


def _import_peers() -> None:
    """Import the peers once before any timing (their import is not their accounting time); silence absl's log
    (dp-accounting's RDP logs every order its series does not converge at)."""
    import logging

    logging.getLogger("absl").setLevel(logging.ERROR)
    for name in ("dp_accounting", "dp_accounting.pld.pld_privacy_accountant", "opacus.accountants"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                __import__(name)
        except ImportError:
            pass


def run_composition(led: Ledger, runs: int, budget: float) -> dict[str, Any]:
    """One composition row: dpcert's certified run and dp-accounting's PLD, run alternately ``runs`` times in this
    process (medians; the ledger is converted for the peer before any timing, and both packages are imported
    first, so that neither side's time holds an import), then Opacus where it takes the ledger."""
    import statistics

    import dpcert
    from dpcert.accounting.eventfile import loads_events

    text = json.dumps(led.events)

    def ours() -> Any:
        return (
            dpcert.Accountant("add_remove")
            .compose(loads_events(text))
            .epsilon(DELTA, rel_tol=led.width, seconds=budget)
        )

    peer_event: Any = None
    peer_error = ""
    try:
        from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

        from dpcert.audit.peers.dp_accounting_events import to_dp_accounting

        peer_event, _, _ = to_dp_accounting(text)
    except ImportError as exc:
        peer_error = f"not installed ({exc.name})"

    def dpa_pld() -> float:
        return float(PLDAccountant().compose(peer_event).get_epsilon(float(DELTA)))

    import dpcert.accounting.losses  # noqa: F401 - dpcert's lazy imports, outside the timing
    import dpcert.gaussian.sgm_loss  # noqa: F401

    mine: list[float] = []
    peer_runs: list[dict[str, Any]] = []
    res = None
    for _ in range(max(1, runs)):
        t0 = time.perf_counter()
        res = ours()
        mine.append(time.perf_counter() - t0)
        peer_runs.append(_timed(dpa_pld, 1) if peer_event is not None else {"error": peer_error})
    assert res is not None
    took = statistics.median(mine)
    rec: dict[str, Any] = {
        "ledger": led.name,
        "events": led.events,
        "delta": DELTA,
        "neighboring": "add_remove",
        "enclosure": res.enclosure.to_json(12),
        "rel_width": res.enclosure.rel_width(),
        "method": res.method,
        "resolution": res.resolution,
        "limited_by": res.limited_by,
        "seconds": took,
        "runs": len(mine),
        "target": led.target,
        "peers": {},
    }
    done = [p for p in peer_runs if "seconds" in p]
    if done:
        med = statistics.median(p["seconds"] for p in done)
        rec["peers"]["dp_accounting_pld"] = {"value": done[-1]["value"], "seconds": med}
    else:
        rec["peers"]["dp_accounting_pld"] = peer_runs[-1]
    if led.opacus is not None:
        for name in ("prv", "rdp"):

            def opacus(name: str = name) -> float:
                from opacus.accountants import PRVAccountant, RDPAccountant

                acc = PRVAccountant() if name == "prv" else RDPAccountant()
                acc.history = list(led.opacus or ())
                return float(acc.get_epsilon(delta=float(DELTA)))

            rec["peers"][f"opacus_{name}"] = _timed(opacus, runs)
    else:
        rec["peers"]["opacus"] = {"error": "n/a: Opacus' accountants take (sigma, q, steps) only, no Laplace"}
    dpa = rec["peers"]["dp_accounting_pld"]
    rec["ratio"] = took / dpa["seconds"] if "seconds" in dpa and dpa["seconds"] > 0 else None
    met = None
    if led.target:
        met = rec["rel_width"] <= led.width
        if led.vs_dpa is not None:
            met = met and rec["ratio"] is not None and rec["ratio"] <= led.vs_dpa
    rec["met"] = met
    return rec


def run_event(kind: str, text: str, rel: str, width: float, budget: float, quick: bool) -> dict[str, Any]:
    """One event kind under one relation: dpcert certified or refused, dp-accounting's PLD bracket and RDP."""
    import dpcert
    from dpcert.accounting.eventfile import loads_events
    from dpcert.audit.ledgers import lower_end_proved
    from dpcert.errors import InvalidParameter

    rec: dict[str, Any] = {"kind": kind, "events": text, "neighboring": rel}
    t0 = time.perf_counter()
    try:
        res = dpcert.Accountant(rel).compose(loads_events(text)).epsilon(DELTA, rel_tol=width, seconds=budget)
    except InvalidParameter as exc:
        rec.update(dpcert="refused", reason=" ".join(str(exc).split()), seconds=time.perf_counter() - t0)
    else:
        tight = res.method == "exact" or lower_end_proved("accounting.eps", {"events": (text,), "neighboring": rel})
        how = {"pld": "PLD, tight" if tight else "PLD, proved pair", "rdp": "RDP", "exact": "exact"}[res.method]
        rec.update(dpcert=how, tight=tight, enclosure=res.enclosure.to_json(12),
                   rel_width=res.enclosure.rel_width(), seconds=time.perf_counter() - t0)  # fmt: skip
    rec["dp_accounting"] = _dpa(text, rel, quick and any(k in kind for k in SLOW_WITHOUT_QUICK))
    rec["within"] = _within(rec)
    return rec


def _dpa(text: str, rel: str, skip_bracket: bool) -> dict[str, Any]:
    try:
        import dp_accounting as dpa
        from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
        from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant
    except ImportError as exc:
        return {"error": f"not installed ({exc.name})"}
    from dpcert.audit.peers.dp_accounting_events import pld_bracket, relation_for, to_dp_accounting

    try:
        event, _, _ = to_dp_accounting(text)
    except ValueError as exc:
        return {"error": str(exc)}
    out: dict[str, Any] = {}
    name = relation_for("PLDAccountant", event, rel)
    r = getattr(dpa.NeighboringRelation, name)
    if not PLDAccountant(r).supports(event):
        out["pld"] = {"error": "not supported"}
    else:
        if not skip_bracket:
            out["pld"] = _timed(lambda: pld_bracket(event, r, "epsilon", float(DELTA)), 1)
        if skip_bracket or "error" in out["pld"]:  # its pessimistic PLD alone (the accountant's answer)
            why = "optimistic PLD not run with --quick (20-80 s)" if skip_bracket else out["pld"]["error"]
            out["pld"] = _timed(lambda: float(PLDAccountant(r).compose(event).get_epsilon(float(DELTA))), 1)
            out["pld"]["note"] = why
    name = relation_for("RdpAccountant", event, rel)
    r = getattr(dpa.NeighboringRelation, name)
    if not RdpAccountant(neighboring_relation=r).supports(event):
        out["rdp"] = {"error": "not supported"}
    else:
        out["rdp"] = _timed(lambda: float(RdpAccountant(neighboring_relation=r).compose(event).get_epsilon(1e-5)), 1)
        if name != RELATIONS_DPA[rel]:
            out["rdp"]["relation"] = name
    return out


RELATIONS_DPA = {"add_remove": "ADD_OR_REMOVE_ONE", "replace_one": "REPLACE_ONE"}


def _within(rec: dict[str, Any]) -> str:
    """dpcert's enclosure against dp-accounting's [optimistic, pessimistic] PLD bracket."""
    pld = rec.get("dp_accounting", {}).get("pld", {})
    if "enclosure" not in rec or "value" not in pld:
        return "-"
    v = pld["value"]
    opt, pess = (v[0], v[1]) if isinstance(v, tuple) else (None, v)
    lo, hi = float(rec["enclosure"]["lo"]), float(rec["enclosure"]["hi"])
    if not rec.get("tight"):
        if opt is None:
            return "-"
        return "consistent (hi >= opt)" if hi >= opt else "BELOW its optimistic"
    if opt is None:
        return "lo <= pess" if lo <= pess else "ABOVE its pessimistic"
    if hi < opt:
        return "BELOW"
    if lo > pess:
        return "ABOVE"
    return "inside" if opt <= lo and hi <= pess else "overlaps"


def _fmt(p: dict[str, Any]) -> tuple[str, str]:
    if "error" in p:
        return p["error"], ""
    v = p["value"]
    text = f"[{v[0]:.6g}, {v[1]:.6g}]" if isinstance(v, tuple) else f"{v:.6g}"
    return text, f"{p['seconds']:.2f}"


def print_compositions(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'ledger':30s} {'dpcert (certified eps)':26s} {'width':>8s} {'time s':>7s}  {'dp-acc. PLD':>11s} "
        f"{'time s':>7s} {'ratio':>7s}  {'Opacus':>22s}  target"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        enc = f"[{float(r['enclosure']['lo']):.6g}, {float(r['enclosure']['hi']):.6g}]"
        dv, dt = _fmt(r["peers"]["dp_accounting_pld"])
        if "opacus" in r["peers"]:
            op = "n/a (no Laplace)"
        else:
            op = " ".join(
                f"{k[7:]} {_fmt(p)[0]} ({_fmt(p)[1]} s)" for k, p in r["peers"].items() if k.startswith("opacus_")
            )
        ratio = f"{r['ratio']:.1f}x" if r["ratio"] is not None else "-"
        verdict = "" if r["met"] is None else ("met" if r["met"] else "MISSED")
        target = f"{r['target']}: {verdict}" if r["target"] else ""
        print(
            f"{r['ledger']:30s} {enc:26s} {r['rel_width']:8.1e} {r['seconds']:7.1f}  {dv:>11s} {dt:>7s} "
            f"{ratio:>7s}  {op:>22s}  {target}"
        )
    print("width: dpcert's relative width; ratio: dpcert time / dp-accounting PLD time; peers' values are floats.")


def print_events(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'event':30s} {'relation':11s} {'dpcert':17s} {'certified eps':26s} {'dp-accounting PLD [opt, pess]':30s} "
        f"{'within':22s} {'dp-accounting RDP':26s}"
    )
    print(head)
    print("-" * len(head))
    refused = []
    for r in rows:
        enc = f"[{float(r['enclosure']['lo']):.6g}, {float(r['enclosure']['hi']):.6g}]" if "enclosure" in r else "-"
        d = r["dp_accounting"]
        pld = _fmt(d["pld"])[0] if "pld" in d else d.get("error", "-")
        rdp = _fmt(d["rdp"])[0] if "rdp" in d else "-"
        if "rdp" in d and "relation" in d["rdp"]:
            rdp += f" ({d['rdp']['relation']})"
        print(f"{r['kind'][:30]:30s} {r['neighboring']:11s} {r['dpcert']:17s} {enc:26s} {pld[:30]:30s} "
              f"{r['within']:22s} {rdp[:26]:26s}")  # fmt: skip
        if r["dpcert"] == "refused":
            refused.append(f"  {r['kind']} ({r['neighboring']}): {r['reason']}")
    if refused:
        print("refused, with dpcert's reason:")
        print("\n".join(refused))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the target row only, events at width 1e-2")
    ap.add_argument("--runs", type=int, default=3, help="runs of each side of a composition row (median; at least 3)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--seconds", type=float, default=120.0, help="dpcert's budget per composition row")
    a = ap.parse_args(argv)
    _import_peers()
    from dpcert.audit.cases import LEDGERS

    comps = [run_composition(c, max(3, a.runs), a.seconds) for c in COMPOSITIONS[: 1 if a.quick else None]]
    width, budget = (1e-2, 5.0) if a.quick else (1e-4, 20.0)
    events = {**{k: text for k, (text, _) in LEDGERS.items()}, **_extra_ledgers()}
    rows = [
        run_event(kind, text, rel, width, budget, a.quick)
        for kind, text in events.items()
        for rel in ("add_remove", "replace_one")
    ]
    missed = [r for r in comps if r["met"] is False]
    disagree = [r for r in rows if r["within"].startswith(("BELOW", "ABOVE"))]
    if a.json:
        print(json.dumps({"compositions": comps, "events": rows}, indent=2, default=str))
    else:
        print_compositions(comps)
        print()
        print_events(rows)
        if disagree:
            print(f"\n{len(disagree)} certified enclosure(s) outside dp-accounting's PLD bracket")
    return 1 if missed or disagree else 0


if __name__ == "__main__":
    sys.exit(main())
