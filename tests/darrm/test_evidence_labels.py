"""Every number `darrm certify` shows is labelled for what it is, and an enclosure called the maximum encloses it.

Before: `--iid gamma=one K=9 m=4 eps=0.37` printed the margin at its counterexample (0.0037663) as "max margin"
(the i.i.d. maximum is 0.0062874); the multiset fallback printed the all-multiset maximum (an upper bound) as the
i.i.d. maximum; and at eps = 40 the multiset mode printed the maximum as [0.0328, 30105] (a float error bound
proportional to e^{m eps}) with a worst multiset chosen by float noise. The references here are independent:
margins by mpmath at 40 to 120 digits (e^{m eps} up to 10^52 cancels 52 of them) from the binomial and
Poisson-binomial laws, never dpcert's kernel or polynomials.
"""

import json
from fractions import Fraction
from itertools import combinations_with_replacement

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.cli import main
from dpcert.core.claim import Verdict
from dpcert.darrm import QUANTITIES
from dpcert.darrm.corners import corners
from dpcert.darrm.gamma import validate_table
from dpcert.darrm.privacy import certify, problem

mp = mpmath.mp


def _mpf(q):
    return mpmath.mpf(q.numerator) / q.denominator


def _weights(table):
    K = len(table) - 1
    return [(-1 if l <= (K - 1) // 2 else 1) * _mpf(Fraction(g)) for l, g in enumerate(table)]


def _margin_mp(table, m, eps, delta, alpha, alpha2):
    w = _weights(table)
    X = mpmath.exp(_mpf(Fraction(m)) * _mpf(Fraction(eps)))
    phi = mpmath.fsum(a * b for a, b in zip(w, alpha, strict=True))
    phi2 = mpmath.fsum(a * b for a, b in zip(w, alpha2, strict=True))
    return phi - X * phi2 - (X - 1 + 2 * _mpf(Fraction(delta)))


def _pmf(ps):
    out = [mpmath.mpf(1)]
    for p in ps:
        new = [mpmath.mpf(0)] * (len(out) + 1)
        for i, a in enumerate(out):
            new[i] += a * (1 - p)
            new[i + 1] += a * p
        out = new
    return out


def _iid_margin_mp(table, m, eps, delta, p, pp):
    K = len(table) - 1
    return _margin_mp(table, m, eps, delta, _pmf([p] * K), _pmf([pp] * K))


def _brute_force(table, m, eps, Delta, delta):
    """Every corner multiset's margin (Lemma 5.1) by mpmath: {counts: margin}."""
    K = len(table) - 1
    x = mpmath.exp(_mpf(Fraction(eps)))
    cs = corners(Fraction(Delta))
    pts = [tuple((_mpf(c0) + _mpf(c1) * x) / (x + 1) for c0, c1 in corner) for corner in cs]
    out = {}
    for combo in combinations_with_replacement(range(len(cs)), K):
        counts = tuple(combo.count(j) for j in range(len(cs)))
        out[counts] = _margin_mp(
            table, m, eps, delta, _pmf([pts[j][0] for j in combo]), _pmf([pts[j][1] for j in combo])
        )
    return out


def _frac(s):
    return Fraction(s)


def _fr(v):
    """An mpf as the exact Fraction it holds (the 60-digit reference, good to ~1e-40)."""
    sign, man, exp, _ = v._mpf_
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)


TOL = Fraction(1, 10**30)


def _run(argv, capsys):
    rc = main(argv)
    return rc, capsys.readouterr().out


def test_iid_refuted_reports_the_maximum_and_labels_the_counterexample_value(capsys):
    argv = ["darrm", "certify", "--iid", "gamma=one", "K=9", "m=4", "eps=0.37", "Delta=0", "delta=0"]
    rc, out = _run([*argv, "--json"], capsys)
    d = json.loads(out)
    assert rc == 1 and d["verdict"] == "REFUTED"
    lo, hi = _frac(d["max_margin"]["lo"]), _frac(d["max_margin"]["hi"])
    assert d["enclosure"] == d["max_margin"]
    ce = d["margin_at_counterexample"]
    p, pp = _frac(ce["p"]), _frac(ce["p_prime"])
    with mp.workdps(60):
        table = [1] * 10
        # the margin at the counterexample point, independently
        at = _iid_margin_mp(table, 4, Fraction(37, 100), 0, _mpf(p), _mpf(pp))
        assert _frac(ce["margin"]["lo"]) - TOL <= _fr(at) <= _frac(ce["margin"]["hi"]) + TOL
        # the maximum over F: on the lower edge p = e^eps t (gamma = 1 is monotone), found by a dense search
        x = mpmath.exp(mpmath.mpf("0.37"))
        T = 1 / (x + 1)

        def h(t):
            return _iid_margin_mp(table, 4, Fraction(37, 100), 0, x * t, t)

        a, b = mpmath.mpf(0), T
        for _ in range(4):  # a grid, then finer grids around its best point
            grid = [a + (b - a) * k / 200 for k in range(201)]
            i = max(range(201), key=lambda k: h(grid[k]))
            best = h(grid[i])
            a, b = grid[max(i - 1, 0)], grid[min(i + 1, 200)]
    assert lo <= _fr(best) + Fraction(1, 10**12) and _fr(best) <= hi
    assert hi - lo < Fraction(1, 10**8)
    assert _fr(at) < lo  # the value at the counterexample is not the maximum
    rc, text = _run(argv, capsys)
    line = next(ln for ln in text.splitlines() if "max margin (encloses the maximum)" in ln)
    assert "0.006287" in line and "0.0037663" not in line
    assert any("margin at the counterexample" in ln and "0.0037663" in ln for ln in text.splitlines())


def test_iid_fallback_labels_the_all_multiset_maximum_an_upper_bound(tmp_path, capsys):
    # gamma(0) = 1/2 < gamma(1) = 1: phi is not non-decreasing, the i.i.d. mode falls back to the multisets
    f = tmp_path / "nm.json"
    f.write_text('["0.5", "1", "1", "0.5"]')
    argv = ["darrm", "certify", "--iid", f"gamma={f}", "K=3", "m=1", "eps=1", "Delta=0", "delta=0", "--json"]
    rc, out = _run(argv, capsys)
    d = json.loads(out)
    assert rc == 0 and "max_margin" not in d
    fin = certify(problem(validate_table(["0.5", "1", "1", "0.5"]), 3, 1, 1, 0, 0))
    assert _frac(d["margin_upper_bound"]["hi"]) >= fin.margin.hi and "upper bound" in d["margin_upper_bound"]["is"]
    hi = _frac(d["max_margin_bracket"]["hi"])
    # the bracket encloses the largest i.i.d. margin, here found on a grid of F (p, p' <= e p' ...)
    with mp.workdps(40):
        x = mpmath.e
        best = max(
            _iid_margin_mp([0.5, 1, 1, 0.5], 1, 1, 0, mpmath.mpf(i) / 60, mpmath.mpf(j) / 60)
            for i in range(61)
            for j in range(61)
            if i <= x * j and j <= x * i and 60 - i <= x * (60 - j) and 60 - j <= x * (60 - i)
        )
    assert _fr(best) <= hi + TOL
    assert d.get("worst_case") is None  # no multiset of non-identical mechanisms shown as the i.i.d. worst


def test_iid_fallback_refuted_shows_an_iid_counterexample(tmp_path, capsys):
    # not monotone (gamma(1) > gamma(0)) and gamma(H) = 1: not private for identical mechanisms either
    f = tmp_path / "nm.json"
    f.write_text('["0", "1", "1", "1", "1", "0"]')
    argv = ["darrm", "certify", "--iid", f"gamma={f}", "K=5", "m=1", "eps=1", "Delta=0", "delta=0", "--json"]
    rc, out = _run(argv, capsys)
    d = json.loads(out)
    assert rc == 1 and "max_margin" not in d
    ce = d["margin_at_counterexample"]
    table = [0, 1, 1, 1, 1, 0]
    with mp.workdps(40):
        if "corner" in ce:  # all K mechanisms at one corner of F: i.i.d.; its (p, p') named, evaluated here
            x = mpmath.e
            cand = [((c0 + c1 * x) / (x + 1), (d0 + d1 * x) / (x + 1)) for (c0, c1), (d0, d1) in corners(Fraction(0))]
            vals = [_iid_margin_mp(table, 1, 1, 0, p, pp) for p, pp in cand]
            assert any(_frac(ce["margin"]["lo"]) - TOL <= _fr(v) <= _frac(ce["margin"]["hi"]) + TOL for v in vals)
            assert "counts" not in (d["worst_case"] or {})
        else:
            v = _iid_margin_mp(table, 1, 1, 0, _mpf(_frac(ce["p"])), _mpf(_frac(ce["p_prime"])))
            assert _frac(ce["margin"]["lo"]) - TOL <= _fr(v) <= _frac(ce["margin"]["hi"]) + TOL
    assert _frac(ce["margin"]["lo"]) > 0


TABLES = {
    "g5": ["1", "0.5", "0.2", "0.2", "0.5", "1"],
    "g5b": ["1", "0.6", "0.3", "0.3", "0.6", "1"],
}


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("Delta", ["0", "0.1"])
def test_multiset_maximum_at_eps_40_is_tight_and_the_worst_is_the_worst(name, Delta, tmp_path, capsys):
    f = tmp_path / f"{name}.json"
    f.write_text(json.dumps(TABLES[name]))
    argv = ["darrm", "certify", f"gamma={f}", "K=5", "m=1", "eps=40", f"Delta={Delta}", f"delta={Delta}", "--json"]
    rc, out = _run(argv, capsys)
    d = json.loads(out)
    with mp.workdps(120):
        bf = _brute_force(TABLES[name], 1, 40, Fraction(Delta), Fraction(Delta))
        top = max(bf.values())
        worst = tuple(d["worst_multiset"]["counts"])
        lo, hi = _frac(d["max_margin"]["lo"]), _frac(d["max_margin"]["hi"])
        assert lo - TOL <= _fr(top) <= hi + TOL
        assert hi - lo <= Fraction(1, 10**9) * max(abs(lo), Fraction(1, 10**30)) or lo == hi
        # the multiset shown is one attaining the maximum
        assert abs(bf[worst] - top) <= mpmath.mpf(10) ** -40
        w = d["worst_multiset"]["margin"]
        assert _frac(w["lo"]) - TOL <= _fr(bf[worst]) <= _frac(w["hi"]) + TOL
    # the quantity agrees (its evaluator narrows the contenders at any precision)
    enc = QUANTITIES["darrm.privacy.margin"].enclose(
        gamma=TABLES[name], K=5, m=1, eps="40", Delta=Delta, delta=Delta, rel_tol=1e-20
    )
    assert enc.lo - TOL <= _fr(top) <= enc.hi + TOL
    # and its float twin (evidence: the plain per-multiset loop) no longer cancels e^{m eps}: it was 32.0 here
    f = QUANTITIES["darrm.privacy.margin"].evaluate_float(
        gamma=TABLES[name], K=5, m=1, eps="40", Delta=Delta, delta=Delta
    )
    assert abs(Fraction(f) - _fr(top)) <= Fraction(1, 10**9)


@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.sampled_from(["0", "1", "1/2", "1/3", "0.9", "0.99"]), min_size=2, max_size=3),
    st.sampled_from(["0.5", "5", "20", "40"]),
    st.sampled_from(["0", "0.01"]),
    st.integers(1, 3),
)
def test_multiset_maximum_encloses_the_brute_force_maximum(half, eps, Delta, m):
    table = half + half[::-1]
    K = len(table) - 1
    m = min(m, K)
    pr = problem(validate_table(table), K, m, Fraction(eps), Fraction(Delta), Fraction(Delta))
    res = certify(pr)
    with mp.workdps(120):
        bf = _brute_force(table, m, Fraction(eps), Fraction(Delta), Fraction(Delta))
        top = max(bf.values())
        assert res.margin.lo - TOL <= _fr(top) <= res.margin.hi + TOL
        assert abs(bf[res.worst] - top) <= max(
            mpmath.mpf(10) ** -40, _mpf(res.margin.hi - res.margin.lo) * (1 + mpmath.mpf(10) ** -9)
        )
    assert (res.verdict == Verdict.REFUTED) == (top > 0)


def test_float_kernel_per_row_bound_holds_and_stays_small_at_eps_40():
    """The cancellation-free form: |float − margin| <= the row's proved bound, and that bound is of order 1e-13
    wherever the margin is of order 1 (the old single bound, proportional to e^{m eps}, was 1e4 here)."""
    from dpcert.darrm.kernel import block_margins_bounds
    from dpcert.darrm.privacy import _float_setting

    table = TABLES["g5"]
    pr = problem(validate_table(table), 5, 1, 40, Fraction(1, 10), Fraction(1, 10))
    fs = _float_setting(pr)
    with mp.workdps(120):
        bf = _brute_force(table, 1, 40, Fraction(1, 10), Fraction(1, 10))
        n_small = 0
        for a in range(6):
            vA, vB, M, E = block_margins_bounds(fs, a)
            for i, va in enumerate(vA.tolist()):
                for j, vb in enumerate(vB.tolist()):
                    ref = bf[tuple(va) + tuple(vb)]
                    assert abs(_fr(ref) - Fraction(float(M[i, j]))) <= Fraction(float(E[i, j]))
                    if abs(ref) <= 1:
                        assert E[i, j] < 1e-12
                        n_small += 1
    assert n_small >= 20
