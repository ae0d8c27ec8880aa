"""γ_opt (dpcert.darrm.optimize): the shipped γ is private by the exact certifier, its error is within the certified
gap of an LP over all of 𝒫 solved independently (every row materialised, rows in mpmath or exact rationals, the
objective from darrm.error), and the paper's statements (Lemma 3.2 at m = 1, Figure 7 at m ∈ {7, 9})."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcert.core.claim import Verdict
from dpcert.darrm.corners import corners
from dpcert.darrm.gamma import Gamma, gamma_sub
from dpcert.darrm.optimize import optimize
from dpcert.darrm.privacy import certify, problem
from dpcert.darrm.utility import error_iid

D5 = F(1, 100000)


# --------------------------------------------------------------------------------------------- the reference


def _objective(K: int, mu: F) -> tuple[list[F], F]:
    """c_j and E(0) from darrm.error alone: E(γ) is affine in γ, so c_j = E(0) − E(e_j)."""
    H = (K - 1) // 2
    zero = error_iid(Gamma("0", tuple(F(0) for _ in range(K + 1))), mu)
    c = []
    for j in range(H + 1):
        e = tuple(F(1) if min(l, K - l) == j else F(0) for l in range(K + 1))
        c.append(zero - error_iid(Gamma("e", e), mu))
    return c, zero


def _pmf(ps):
    out = [1]
    for p in ps:
        new = [0] * (len(out) + 1)
        for i, v in enumerate(out):
            new[i] += v * (1 - p)
            new[i + 1] += v * p
        out = new
    return out


def _all_rows(K, m, eps, Delta, delta, num):
    """Every row of 𝒫 (one per multiset of K corners) as (a_0..a_H, b) in the number type ``num``: Σ_j a_j g_j <= b
    is Lemma 3.4's condition for the symmetric γ with γ(j) = γ(K − j) = g_j."""
    x = num["exp"](eps)
    X = num["exp"](m * eps)
    H = (K - 1) // 2
    cs = [tuple(num["q"](c0) + num["q"](c1) * x for (c0, c1) in corner) for corner in corners(Delta)]
    cs = [(p / (x + 1), pp / (x + 1)) for p, pp in cs]
    out = []
    for combo in itertools.combinations_with_replacement(range(len(cs)), K):
        al = _pmf([cs[j][0] for j in combo])
        alp = _pmf([cs[j][1] for j in combo])
        d = [al[l] - X * alp[l] for l in range(K + 1)]
        out.append([d[K - j] - d[j] for j in range(H + 1)])
    return out, X - 1 + 2 * num["q"](delta)


MP = {
    "exp": lambda v: mpmath.exp(mpmath.mpf(v.numerator) / v.denominator),
    "q": lambda v: mpmath.mpf(v.numerator) / v.denominator,
}


def _reference_mp(K, m, eps, Delta, delta, mu):
    """[lo, hi] around the LP optimum over all of 𝒫 (error units), at 60 digits: HiGHS on every row, then weak
    duality (lo) and the HiGHS point scaled into feasibility (hi), both evaluated in mpmath."""
    from scipy.optimize import linprog

    with mpmath.workdps(60):
        rows, b = _all_rows(K, m, eps, Delta, delta, MP)
        c, E0 = _objective(K, mu)
        cm = [mpmath.mpf(v.numerator) / v.denominator for v in c]
        A = np.array([[float(v) for v in r] for r in rows])
        res = linprog(
            -np.array([float(v) for v in c]) / float(max(c)),
            A_ub=A,
            b_ub=np.full(len(rows), float(b)),
            bounds=[(0, 1)] * len(c),
            method="highs",
        )
        assert res.status == 0
        y = [mpmath.mpf(float(v)) * (mpmath.mpf(max(c).numerator) / max(c).denominator) for v in -res.ineqlin.marginals]
        y = [max(v, 0) for v in y]
        U = sum(yi * b for yi in y)
        for j in range(len(c)):
            U += max(0, cm[j] - sum(y[i] * rows[i][j] for i in range(len(rows)) if y[i]))
        lo = mpmath.mpf(E0.numerator) / E0.denominator - U
        g = [mpmath.mpf(float(v)) for v in res.x]
        worst = max(sum(r[j] * g[j] for j in range(len(g))) for r in rows)
        s = min(1, b / worst) if worst > 0 else 1
        hi = mpmath.mpf(E0.numerator) / E0.denominator - sum(cm[j] * s * g[j] for j in range(len(g)))
        return lo, hi


def _check(r, K, m, eps, Delta, delta):
    assert r.verdict == Verdict.CERTIFIED
    # the exact certifier again, on its own (not the optimiser's own call)
    pr = problem(Gamma("shipped", r.gamma), K, F(m), eps, Delta, delta)
    assert certify(pr).verdict == Verdict.CERTIFIED
    assert all(r.gamma[l] == r.gamma[K - l] and 0 <= r.gamma[l] <= 1 for l in range(K + 1))
    assert r.error == error_iid(Gamma("shipped", r.gamma), r.prior)
    assert r.gap == r.error - r.lower_bound and r.gap >= 0


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    K=st.sampled_from([3, 5, 7, 9]),
    m_frac=st.sampled_from([F(0), F(1, 4), F(1, 2), F(3, 4)]),
    eps=st.sampled_from([F(1, 10), F(1, 2), F(1)]),
    Delta=st.sampled_from([F(0), F(1, 1000)]),
    extra=st.sampled_from([F(0), F(1, 1000)]),
    mu=st.sampled_from([F(3, 4), F(17, 20), F(3, 5)]),
)
def test_property_private_and_within_the_gap_of_an_independent_lp(K, m_frac, eps, Delta, extra, mu):
    """Random small settings: the certified γ is private (exact certifier) and its error lies within the
    certified gap of the LP over all of 𝒫 solved independently (60-digit rows and duality check)."""
    if Delta > 0 and K > 7:
        K = 7  # C(K + 7, 7) rows in mpmath: keep the reference fast
    m = 1 + m_frac * (K - 1)
    delta = Delta + extra
    r = optimize(K, m, eps, Delta, delta, mu)
    _check(r, K, m, eps, Delta, delta)
    lo, hi = _reference_mp(K, m, eps, Delta, delta, mu)
    assert hi - lo < 1e-6  # the reference itself is tight
    err = mpmath.mpf(r.error.numerator) / r.error.denominator
    lb = mpmath.mpf(r.lower_bound.numerator) / r.lower_bound.denominator
    assert err >= lo - mpmath.mpf(10) ** -40  # no private γ beats the optimum
    assert lb <= hi + mpmath.mpf(10) ** -40  # the certified lower bound is below the optimum
    assert err - lo <= r.gap + (hi - lo) + mpmath.mpf(10) ** -40


@pytest.mark.parametrize(
    ("K", "Delta", "delta"), [(3, F(1, 10), F(1, 10)), (5, F(1, 10), F(1, 5)), (5, F(1, 20), F(1, 20))]
)
def test_eps_zero_against_an_exact_rational_lp(K, Delta, delta):
    """At ε = 0 every row of 𝒫 is rational: sympy's exact simplex over all of them gives the optimum exactly, and it
    lies in [lower bound, shipped error]."""
    import sympy
    from sympy.solvers.simplex import lpmax

    rows, b = _all_rows(K, 1, F(0), Delta, delta, {"exp": lambda v: F(1), "q": F})
    c, E0 = _objective(K, F(3, 4))
    g = sympy.symbols(f"g0:{len(c)}")
    cons = [
        sum(sympy.Rational(a.numerator, a.denominator) * gj for a, gj in zip(r, g, strict=True))
        <= sympy.Rational(b.numerator, b.denominator)
        for r in rows
    ]
    cons += [v >= 0 for v in g] + [v <= 1 for v in g]
    best, _ = lpmax(sum(sympy.Rational(cj.numerator, cj.denominator) * gj for cj, gj in zip(c, g, strict=True)), cons)
    opt = E0 - F(int(best.p), int(best.q))
    r = optimize(K, 1, 0, Delta, delta)
    _check(r, K, 1, F(0), Delta, delta)
    assert r.lower_bound <= opt <= r.error
    assert r.error - opt <= r.gap


# --------------------------------------------------------------------------------------------- the paper


@pytest.mark.parametrize(("Delta", "delta"), [(D5, D5), (F(0), F(0))])
def test_m1_gamma_sub_is_optimal(Delta, delta):
    """Lemma 3.2 / §6.1: at m = 1 γ_opt = γ_Sub. The optimiser ships γ_Sub itself, proved private, and the dual bound
    certifies that nothing private does better (to 1e-40)."""
    r = optimize(11, 1, F(1, 10), Delta, delta)
    _check(r, 11, 1, F(1, 10), Delta, delta)
    assert r.source == "sub" and r.gamma == gamma_sub(11, 1).table
    assert r.gap < F(1, 10**40)


@pytest.mark.parametrize("m", [7, 9])
def test_pure_dp_k11_m7_m9_gamma_one_error_zero(m):
    """Figure 7 (App. D.1.2): for m ∈ {7, 9} at K = 11, pure DP, γ_opt = γ_DSub ≡ 1 with error 0."""
    r = optimize(11, m, F(1, 10), 0, 0)
    _check(r, 11, m, F(1, 10), F(0), F(0))
    assert r.gamma == tuple(F(1) for _ in range(12))
    assert r.error == 0 and r.gap == 0


@pytest.mark.parametrize(
    ("m", "Delta", "printed"),
    [(3, D5, "0.04127"), (5, D5, "0.00246"), (3, F(0), "0.04131"), (5, F(0), "0.00252")],
)
def test_errors_match_the_notes_float_lp(m, Delta, printed):
    """An independent float HiGHS LP (5 digits, a different code) gives these errors of γ_opt at K = 11, ε = 0.1."""
    delta = 1 - (1 - Delta) ** m
    r = optimize(11, m, F(1, 10), Delta, delta)
    assert f"{float(r.error):.5f}" == printed
    assert r.gap < F(1, 10**8)


def test_eps_zero_pure_dp_every_gamma_is_private():
    """ε = Δ = δ = 0: every mechanism has p = p', every γ is private, so γ ≡ 1 (error 0) is optimal — the setting
    where only γ ≡ 0 would be private (b = 0) does not occur in the paper's domain."""
    r = optimize(5, 1, 0, 0, 0)
    assert r.gamma == tuple(F(1) for _ in range(6)) and r.error == 0 and r.status == "optimal"


def test_deterministic():
    a = optimize(7, 2, F(1, 2), F(1, 1000), F(1, 500))
    b = optimize(7, 2, F(1, 2), F(1, 1000), F(1, 500), workers=2)
    assert (a.gamma, a.error, a.lower_bound, a.rounds) == (b.gamma, b.error, b.lower_bound, b.rounds)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"K": 10}, "K"),
        ({"m": 12}, "m"),
        ({"m": F(1, 2)}, "m"),
        ({"Delta": F(1, 10), "delta": F(1, 100)}, "Delta"),
        ({"eps": -1}, "eps"),
        ({"prior": F(3, 2)}, "prior"),
    ],
)
def test_bad_inputs_as_darrm_certify(kw, name):
    from dpcert.errors import InvalidParameter

    args = {"K": 11, "m": 3, "eps": F(1, 10), "Delta": D5, "delta": F(3, 100000), **kw}
    with pytest.raises(InvalidParameter) as e:
        optimize(**args)
    assert e.value.name == name


# --------------------------------------------------------------------------------------------- the CLI


def test_cli_json_out_and_read_back(tmp_path, capsys):
    from dpcert.cli import main

    out = tmp_path / "g.csv"
    code = main(
        ["darrm", "optimize", "K=11", "m=3", "eps=0.1", "Delta=1e-5", "delta=general", "--out", str(out), "--json"]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "CERTIFIED" and len(data["gamma"]) == 12 and data["rounds"] >= 1
    assert set(data["error"]) == {"lo", "hi"} and set(data["gap"]) == {"lo", "hi"}
    text = out.read_text().splitlines()
    assert text[0] == "l,gamma" and [line.split(",")[1] for line in text[1:]] == data["gamma"]
    # the table file is read back by darrm certify and by the margin quantity
    assert (
        main(["darrm", "certify", f"gamma={out}", "K=11", "m=3", "eps=0.1", "Delta=1e-5", "delta=general", "--json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["verdict"] == "CERTIFIED"
    d = str(1 - (1 - F(1, 100000)) ** 3)
    assert (
        main(
            [
                "eval",
                "darrm.privacy.margin",
                f"gamma={out}",
                "K=11",
                "m=3",
                "eps=0.1",
                "Delta=1e-5",
                f"delta={d}",
                "--json",
            ]
        )
        == 0
    )
    margin = json.loads(capsys.readouterr().out)
    hi = margin["enclosure"]["hi"] if "enclosure" in margin else margin["value"]["hi"]
    assert F(hi) <= 0


@pytest.mark.parametrize(
    "argv",
    [
        ["K=11", "m=3", "eps=0.1", "Delta=1e-3", "delta=1e-4"],
        ["K=10", "m=3", "eps=0.1", "Delta=0", "delta=0"],
        ["K=11", "m=13", "eps=0.1", "Delta=0", "delta=0"],
        ["K=11", "m=3", "eps=0.1", "Delta=0"],
        ["K=11", "m=3", "eps=0.1", "Delta=0", "delta=0", "prior=2"],
        ["K=11", "m=3", "eps=0.1", "Delta=0", "delta=0", "gamma=sub"],
    ],
)
def test_cli_bad_input_one_line_exit_2(argv, capsys):
    from dpcert.cli import main

    assert main(["darrm", "optimize", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dpcert: error:")


def test_cli_out_into_a_missing_directory_is_refused_before_the_work(tmp_path, capsys):
    from dpcert.cli import main

    argv = [
        "darrm",
        "optimize",
        "K=101",
        "m=10",
        "eps=0.1",
        "Delta=0",
        "delta=0",
        "--out",
        str(tmp_path / "no" / "g.csv"),
    ]
    try:
        code = main(argv)
    except SystemExit as exc:  # refused when the arguments are parsed, as every bad output path is
        code = exc.code
    assert code == 2
    assert "--out" in capsys.readouterr().err


def test_optimize_cli_same_result_on_every_executor_and_after_a_checkpoint(tmp_path, capsys):
    """Issue 21: `darrm optimize` takes the run options; the answer does not depend on where the chunks ran, and a
    run resumed from its checkpoint gives what an uninterrupted one gives."""
    import json

    from dpcert.cli import main

    argv = ["darrm", "optimize", "K=9", "m=3", "eps=0.1", "Delta=1e-5", "delta=general", "--json", "--quiet"]
    outs = []
    ckpt = str(tmp_path / "opt.ckpt")
    for extra in (["--executor", "serial"], ["--workers", "2"], ["--checkpoint", ckpt], ["--checkpoint", ckpt]):
        assert main(argv + extra) == 0
        out = json.loads(capsys.readouterr().out)
        out.pop("seconds", None)
        outs.append(out)
    assert all(o == outs[0] for o in outs[1:])
    assert main(argv[:3] + ["m=5", *argv[4:], "--checkpoint", ckpt]) == 2  # a checkpoint of other inputs
