"""Claims about the numbers printed in DaRRM (Jiang–Zhang–Joshi [JZJ24]): Tables 2, 3, 4, 5, 7 and 9.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

Every printed entry is a claim "the quantity, rounded as printed, gives this string":

* Tables 2, 5, 7, 9 (Section 6.2, App. D.2.2): the per-query budget of m teachers, each (ε, Δ)-DP with
  (ε, Δ) = (0.0892, 1e-4) on MNIST and (0.0852, 1e-4) on Fashion-MNIST, is (mε, mΔ) by basic composition;
  the total over Q queries is the general composition ([KOV15, Thm 3.4] = [JZJ24, Thm 2.3]) of Q copies of the printed
  per-query pair with δ' = 1e-4. Inputs are the printed per-query values.
* Table 3 (App. D.1.1): K = 35, ε = 0.1, Δ = 1e-5, δ' = 0.1, M ∈ {10, 13, 15, 20}.
* Table 4 (App. D.2.1): the GNMax σ_min reproduces. The λ column does not: the printed λ is not the grid argmin
  of σ² (62.31 and 64.74), and σ at the printed λ is not the printed σ_min; the printed values equal λ_min + 3.
  These are errata, expected REFUTED, with the certified counterexample in the evidence.
"""

from __future__ import annotations

from dpcert.composition import QUANTITIES as COMP
from dpcert.core.claim import Claim, QuantityClaim, Rounds, Verdict
from dpcert.darrm import QUANTITIES as DARRM

__all__ = ["CLAIMS"]

_PAPER = "Jiang–Zhang–Joshi, DaRRM (TMLR)"

#: Per-teacher privacy of the DP-SGD teachers (Section 6.2).
TEACHER = {"mnist": ("0.0892", "0.0001"), "fmnist": ("0.0852", "0.0001")}
_NAMES = {"mnist": "MNIST", "fmnist": "Fashion-MNIST"}

#: Tables 2, 5, 7, 9: table -> m -> dataset -> (per-query (eps, delta), {Q: (eps_total, delta_total)}).
PRIVACY_TABLES: dict[int, tuple[int, dict[str, tuple[tuple[str, str], dict[int, tuple[str, str]]]]]] = {
    2: (
        3,
        {
            "mnist": (
                ("0.2676", "0.0003"),
                {20: ("5.352", "0.006"), 50: ("9.901", "0.015"), 100: ("15.044", "0.030")},
            ),
            "fmnist": (
                ("0.2556", "0.0003"),
                {20: ("5.112", "0.006"), 50: ("9.382", "0.015"), 100: ("14.219", "0.030")},
            ),
        },
    ),
    5: (
        1,
        {
            "mnist": (
                ("0.0892", "0.0001"),
                {20: ("1.704", "0.002"), 50: ("2.837", "0.005"), 100: ("4.202", "0.010")},
            ),
            "fmnist": (
                ("0.0852", "0.0001"),
                {20: ("1.620", "0.002"), 50: ("2.695", "0.005"), 100: ("3.988", "0.010")},
            ),
        },
    ),
    7: (
        5,
        {
            "mnist": (
                ("0.4460", "0.0005"),
                {20: ("8.920", "0.010"), 50: ("18.428", "0.025"), 100: ("28.926", "0.049")},
            ),
            "fmnist": (
                ("0.4260", "0.0005"),
                {20: ("8.520", "0.010"), 50: ("17.398", "0.025"), 100: ("27.223", "0.049")},
            ),
        },
    ),
    9: (
        7,
        {
            "mnist": (
                ("0.6244", "0.0007"),
                {20: ("12.488", "0.014"), 50: ("28.392", "0.035"), 100: ("45.683", "0.068")},
            ),
            "fmnist": (
                ("0.5964", "0.0007"),
                {20: ("11.928", "0.014"), 50: ("26.738", "0.035"), 100: ("42.873", "0.068")},
            ),
        },
    ),
}
DELTA_PRIME_62 = "0.0001"

#: Table 3 (K = 35, eps = 0.1, Delta = 1e-5, delta' = 0.1): M -> (m, tau, lambda, m*eps, delta).
TABLE3_K, TABLE3_EPS, TABLE3_DELTA, TABLE3_DP = 35, "0.1", "0.00001", "0.1"
TABLE3 = {
    10: ("6.4521", "14.0328", "0.1003", "0.6452", "0.1001"),
    13: ("7.5742", "14.0328", "0.1003", "0.7574", "0.1001"),
    15: ("8.2708", "14.0328", "0.1003", "0.8271", "0.1001"),
    20: ("9.8823", "14.0328", "0.1003", "0.9882", "0.1002"),
}

#: Table 4: dataset -> (per-query (m eps, m Delta), printed lambda, printed sigma_min).
TABLE4 = {
    "mnist": (("0.2676", "0.0003"), "34.31", "21.46"),
    "fmnist": (("0.2556", "0.0003"), "35.74", "22.46"),
}


_QUANTITIES = {**COMP, **DARRM}


def _rounds(cid: str, ref: str, statement: str, quantity: str, inputs: dict, printed: str, **kw) -> QuantityClaim:
    """The claim "quantity(inputs), rounded as printed, is `printed`"."""
    return QuantityClaim(
        cid, ref, statement, quantity=_QUANTITIES[quantity], inputs=inputs, comparison=Rounds(printed), **kw
    )


def _privacy_table_claims() -> list[Claim]:
    out: list[Claim] = []
    for table, (m, rows) in PRIVACY_TABLES.items():
        ref = f"{_PAPER}, Table {table} (m = {m})"
        for ds, ((eq, dq), totals) in rows.items():
            eps_t, delta_t = TEACHER[ds]
            base, name = f"darrm.table{table}.{ds}", _NAMES[ds]
            out += [
                _rounds(
                    f"{base}.per_query.eps",
                    ref,
                    f"{name}: m = {m} teachers of eps = {eps_t} compose to eps_query = {eq}",
                    "composition.simple.eps",
                    {"k": m, "eps": eps_t},
                    eq,
                ),
                _rounds(
                    f"{base}.per_query.delta",
                    ref,
                    f"{name}: m = {m} teachers of Delta = {delta_t} compose to delta_query = {dq}",
                    "composition.simple.delta",
                    {"k": m, "delta": delta_t},
                    dq,
                ),
            ]
            for q, (et, dt) in totals.items():
                what = f"{name}, Q = {q}: general composition of ({eq}, {dq}) with delta' = 1e-4 gives"
                out += [
                    _rounds(
                        f"{base}.q{q}.eps",
                        ref,
                        f"{what} eps_total = {et}",
                        "composition.general.eps",
                        {"k": q, "eps": eq, "delta_prime": DELTA_PRIME_62},
                        et,
                    ),
                    _rounds(
                        f"{base}.q{q}.delta",
                        ref,
                        f"{what} delta_total = {dt}",
                        "composition.general.delta",
                        {"k": q, "delta": dq, "delta_prime": DELTA_PRIME_62},
                        dt,
                    ),
                ]
    return out


def _table3_claims() -> list[Claim]:
    ref = f"{_PAPER}, Table 3 (App. D.1.1)"
    out: list[Claim] = []
    for big_m, (m, tau, lam, m_eps, delta) in TABLE3.items():
        eps_m = {"k": big_m, "eps": TABLE3_EPS, "delta_prime": TABLE3_DP}
        eps_k = {**eps_m, "k": TABLE3_K}
        delta_m = {"k": big_m, "delta": TABLE3_DELTA, "delta_prime": TABLE3_DP}
        delta_k = {**delta_m, "k": TABLE3_K}
        rows = [  # (entry, statement, quantity, inputs, printed)
            (
                "m",
                f"privacy allowance m = eps'/eps of {big_m}-fold general composition",
                "darrm.general.allowance",
                eps_m,
                m,
            ),
            (
                "m_eps",
                f"overall privacy loss m*eps = eps' of {big_m}-fold composition",
                "composition.general.eps",
                eps_m,
                m_eps,
            ),
            (
                "delta",
                f"overall failure probability 1 - (1-Delta)^{big_m} (1-delta')",
                "composition.general.delta",
                delta_m,
                delta,
            ),
            (
                "tau",
                f"RR parameter tau = eps'/eps of K = {TABLE3_K}-fold composition",
                "darrm.general.allowance",
                eps_k,
                tau,
            ),
            (
                "lambda",
                f"RR parameter lambda = 1 - (1-Delta)^{TABLE3_K} (1-delta')",
                "composition.general.delta",
                delta_k,
                lam,
            ),
        ]
        out += [_rounds(f"darrm.table3.M{big_m}.{entry}", ref, *rest) for entry, *rest in rows]
    return out


def _table4_claims() -> list[Claim]:
    ref = f"{_PAPER}, Table 4 (App. D.2.1)"
    out: list[Claim] = []
    for ds, ((eq, dq), lam, sigma) in TABLE4.items():
        budget = {"eps_target": eq, "delta": dq}
        base, name = f"darrm.table4.{ds}", _NAMES[ds]
        out += [
            _rounds(
                f"{base}.sigma_min",
                ref,
                f"{name}: the grid minimum of sigma over lambda = lambda_min + j/2 <= 500 is sigma_min = {sigma}",
                "darrm.gnmax.sigma_min",
                budget,
                sigma,
            ),
            _rounds(
                f"{base}.lambda",
                ref,
                f"{name}: the printed lambda = {lam} is the grid argmin of sigma^2",
                "darrm.gnmax.lambda_argmin",
                budget,
                lam,
                expected=Verdict.REFUTED,
                erratum=f"The argmin of sigma^2 on the grid is not {lam}; the printed lambda equals "
                f"lambda_min + 3 (claim {base}.lambda_is_lambda_min_plus_3).",
            ),
            _rounds(
                f"{base}.sigma_at_printed_lambda",
                ref,
                f"{name}: sigma at the printed lambda = {lam} is the printed sigma_min = {sigma}",
                "darrm.gnmax.sigma",
                {**budget, "lam": lam},
                sigma,
                expected=Verdict.REFUTED,
                erratum=f"At lambda = {lam} the noise needed is far larger than sigma_min = {sigma}: "
                "the row (lambda, sigma_min) is inconsistent.",
            ),
            _rounds(
                f"{base}.lambda_is_lambda_min_plus_3",
                ref,
                f"{name}: the printed lambda = {lam} equals lambda_min + 3 (grid point j = 6)",
                "darrm.gnmax.grid_lambda",
                {**budget, "j": 6},
                lam,
            ),
        ]
    return out


CLAIMS: list[Claim] = _privacy_table_claims() + _table3_claims() + _table4_claims()
