"""Benchmark (optional): the peer DPBayes/PLD-Accountant ``girgis_upper.py`` beside dpcert's Theorem 1.

The peer script (folder ``fourier_accountant/experimental_shufflers/clones_girgis_comparison_fig3`` at commit
690c243; removed from the repository's HEAD) is NOT Theorem 1 of Girgis et al. (CCS 2021): it evaluates the
subsampled shuffle bound of the companion paper (Girgis, Data, Diggavi, arXiv 2107.08763 [GDD21]), with a sampling rate
γ
(claim ``shuffle.peer.girgis_upper_is_thm1`` in dpcert.shuffle.figure_claims). This script runs it beside dpcert and
prints the ratio, so the difference is
measured rather than asserted:

* RDP at γ = 1 (no subsampling) against Theorem 1 (certified) at four points: ratio peer / Theorem 1;
* the peer's own composed ε at n = 10^5, γ = 0.01, ε0 = 3, δ = 1e-5, T = 10 against the value it pickled
  (0.7307678940458819), to show the peer is run as published;
* times of both;
* if autodp is installed (``peers`` extra): autodp's ``rdp_acct.general_upperbound`` (Zhu–Wang's general Poisson
  bound) over Theorem 1 against dpcert's certified ``shuffle.rdp.poisson`` (same formula) — agreement and times.

The peer file is not shipped or copied: pass its path (``--peer-file``; e.g. from a clone of the repository,
``git show 690c243:<folder>/girgis_upper.py > girgis_upper.py``). Only its function definitions are executed (its
module-level script, which loops for minutes and writes a pickle, is skipped); without the file the script says so
and exits 0.

Usage::

    python benchmarks/bench_shuffle_peer.py --peer-file girgis_upper.py [--json] [--runs N]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from timing import median_time  # benchmarks/timing.py (the script's folder is on sys.path)

from dpcert import enclose

POINTS = [(10**4, "0.5", 10), (10**6, "0.5", 10), (10**4, "3", 10), (10**3, "1", 5)]
PICKLED_T10 = 0.7307678940458819  # the peer's pickle eps_fig1_girgis_upper.p, first entry (T = 10)


def load_peer(path: Path) -> dict[str, Any]:
    """The peer's imports and function definitions, executed in a fresh namespace (no module-level script)."""
    tree = ast.parse(path.read_text(), str(path))
    keep = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef))]
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
    return namespace


def peer_eps(peer: dict[str, Any], n: int, gamma: float, eps0: float, delta: float, T: int) -> float:
    """The peer's composed ε, driven as its own script drives it (λ = 2..1000, Lemma 1's ε-form)."""
    lambdas = np.linspace(2, 1000, 999)
    k = int(gamma * n)
    rdps = [T * peer["eval_RDP_upper"](gamma, eps0, k, int(lam)) for lam in lambdas]
    return float(peer["eps_given_delta"](rdps, lambdas, delta))


def run(peer_file: Path, runs: int) -> dict[str, Any]:
    peer = load_peer(peer_file)
    rows = []
    for n, e0, lam in POINTS:
        thm1 = float(enclose("shuffle.rdp.thm1", n=n, eps0=e0, lam=lam).mid())
        p = float(peer["eval_RDP_upper"](1.0, float(e0), n, lam))
        t_peer, _ = median_time(lambda n=n, e0=e0, lam=lam: peer["eval_RDP_upper"](1.0, float(e0), n, lam), runs)
        t_ours, _ = median_time(lambda n=n, e0=e0, lam=lam: enclose("shuffle.rdp.thm1", n=n, eps0=e0, lam=lam), runs)
        rows.append(
            {
                "n": n,
                "eps0": e0,
                "lam": lam,
                "peer_gamma1": p,
                "thm1": thm1,
                "ratio": p / thm1,
                "peer_s": t_peer,
                "dpcert_certified_s": t_ours,
            }
        )
    pickled = peer_eps(peer, 10**5, 0.01, 3.0, 1e-5, 10)
    return {
        "rows": rows,
        "peer_T10": pickled,
        "peer_T10_pickled": PICKLED_T10,
        "peer_reproduces_pickle": abs(pickled - PICKLED_T10) <= 1e-12 * PICKLED_T10,
    }


def run_autodp(runs: int) -> list[dict[str, Any]] | None:
    """autodp's general Poisson-subsampling bound over Theorem 1 beside dpcert's certified one (None without autodp)."""
    try:
        from autodp import rdp_acct
    except ImportError:
        return None
    from dpcert.shuffle import bounds

    rows = []
    for n, e0, lam, gamma in [(1000, 3.0, 10, 0.001), (1000, 3.0, 50, 0.001), (10**4, 1.0, 32, 0.01)]:

        def base(a: float, n: int = n, e0: float = e0) -> float:
            return float(bounds.thm1_float(n, e0, np.array([max(float(a), 2.0)]))[0])

        t_peer, ref = median_time(
            lambda base=base, lam=lam, gamma=gamma: rdp_acct.general_upperbound(base, lam, gamma) / (lam - 1), runs
        )
        inputs = {"n": n, "eps0": str(e0), "lam": lam, "gamma": str(gamma)}
        t_ours, enc = median_time(lambda inputs=inputs: enclose("shuffle.rdp.poisson", **inputs), runs)
        rows.append(
            {
                **inputs,
                "autodp": ref,
                "dpcert": float(enc.mid()),
                "rel_diff": ref / float(enc.mid()) - 1,
                "autodp_s": t_peer,
                "dpcert_certified_s": t_ours,
            }
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-file", type=Path, default=None, help="path to the peer's girgis_upper.py")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if args.peer_file is None or not args.peer_file.is_file():
        print("peer file not given or not found (see --help); nothing to compare", file=sys.stderr)
        return 0
    out = run(args.peer_file, args.runs)
    out["autodp"] = run_autodp(args.runs)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print("girgis_upper.py (DPBayes/PLD-Accountant) at gamma = 1 vs Theorem 1 (dpcert, certified): it is not Theorem 1")
    print(f"{'n':>8} {'eps0':>5} {'lam':>4} {'peer':>12} {'Thm 1':>12} {'ratio':>7} {'peer s':>9} {'dpcert s':>9}")
    for r in out["rows"]:
        print(
            f"{r['n']:>8} {r['eps0']:>5} {r['lam']:>4} {r['peer_gamma1']:>12.5g} {r['thm1']:>12.5g} "
            f"{r['ratio']:>7.3g} {r['peer_s']:>9.2e} {r['dpcert_certified_s']:>9.2e}"
        )
    print(
        f"peer composed eps (n=1e5, gamma=0.01, eps0=3, delta=1e-5, T=10): {out['peer_T10']!r} "
        f"(pickled {out['peer_T10_pickled']!r}; reproduced: {out['peer_reproduces_pickle']})"
    )
    if out["autodp"] is None:
        print("autodp not installed: Zhu-Wang comparison skipped")
        return 0
    print("Zhu-Wang general Poisson bound over Theorem 1: autodp general_upperbound vs dpcert shuffle.rdp.poisson")
    for r in out["autodp"]:
        print(
            f"  n={r['n']} eps0={r['eps0']} lam={r['lam']} gamma={r['gamma']}: autodp {r['autodp']:.12g}, "
            f"dpcert {r['dpcert']:.12g} (rel. diff {r['rel_diff']:.1e}); "
            f"{r['autodp_s']:.2e} s vs {r['dpcert_certified_s']:.2e} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
