"""``dpcert audit`` against the installed peers and against fake adapters.

The numbers the peers are held to come from independent sources: PEERS.md's printed values for dp-accounting's
randomized-response defect, and the Gaussian mechanism's privacy profile evaluated with mpmath (Balle–Wang's
formula, not dpcert's code).
"""

import json
import math
from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.audit.cases import Case, Series
from dpcert.audit.peers import Call, Peer
from dpcert.audit.run import run_audit
from dpcert.cli import main
from dpcert.errors import InvalidParameter

pytestmark = pytest.mark.peers


def _by_function(report):
    return {r.function: r for r in report.rows}


def _gauss_delta(eps, sigma):
    """δ(ε) of the Gaussian mechanism (sensitivity 1), Balle–Wang Thm 8, in mpmath at 50 digits."""
    with mp.workdps(50):
        eps = mp.mpf(eps.numerator) / eps.denominator if isinstance(eps, Fraction) else mp.mpf(eps)
        sigma = mp.mpf(sigma)
        return mp.ncdf(-eps * sigma + 1 / (2 * sigma)) - mp.exp(eps) * mp.ncdf(-eps * sigma - 1 / (2 * sigma))


COUNT_EPS = "PLDAccountant.compose(RR, count=k).get_epsilon(delta)"
LOOP_EPS = "PLDAccountant: k x compose(RR); get_epsilon(delta)"


def test_dp_accounting_count_k_defect_for_randomized_response_is_found():
    # PEERS.md: RR(0.5, 2) (ε = ln 3), δ = 1e-6, k = 10: count=10 gives 1.0987, ten separate calls 10.9870, the
    # exact ten-fold value is 10.9861. ln 3 is given as its double; the adapter forms p = 2/(1 + e^ε) = 0.5.
    pytest.importorskip("dp_accounting")
    case = Case("composition.kov.eps", {"k": "10", "eps": repr(math.log(3)), "delta": "1e-6"}, "k-fold")
    rows = _by_function(run_audit(["dp-accounting"], [case]))
    count, loop = rows[COUNT_EPS], rows[LOOP_EPS]
    assert count.value == pytest.approx(1.0987, abs=1e-4) and loop.value == pytest.approx(10.9870, abs=1e-4)
    assert float(count.enclosure.lo) == pytest.approx(10.9861, abs=1e-4)
    assert (count.verdict, count.direction) == ("unsafe", "below") and count.distance > 0.89
    assert loop.verdict == "loose"  # ten separate calls: a valid bound, one PLD grid cell above
    self_composed = rows["PLDAccountant.compose(SelfComposedDpEvent(RR, k)).get_epsilon(delta)"]
    assert self_composed.verdict == "unsafe" and self_composed.value == count.value


def test_dp_accounting_count_k_returns_the_one_fold_delta_zero():
    # PEERS.md: asked for δ at the k-fold ε_g it returns the one-fold δ, 0 for RR(ε = 0.1) at k = 10, where the
    # exact value is about 1e-6 (tests/peers: 1.00143926994361e-6 at ε_g = 0.99937)
    pytest.importorskip("dp_accounting")
    case = Case("composition.kov.delta", {"k": "10", "eps": "0.1", "eps_g": "0.99937"}, "k-fold")
    rows = _by_function(run_audit(["dp-accounting"], [case]))
    count = rows["PLDAccountant.compose(RR, count=k).get_delta(eps_g)"]
    assert count.value == 0.0 and count.verdict == "unsafe" and count.distance == 1.0
    assert float(count.enclosure.hi) == pytest.approx(1.00143926994361e-6, rel=1e-9)
    assert rows["PLDAccountant: k x compose(RR); get_delta(eps_g)"].verdict == "loose"


def test_count_k_is_flagged_not_monotone_in_k():
    pytest.importorskip("dp_accounting")
    series = Series("kov.eps increasing in k", "k", +1)
    cases = [Case("composition.kov.eps", {"k": k, "eps": "0.1", "delta": "1e-6"}, "k-fold", series) for k in "25"]
    mono = {m.function: m for m in run_audit(["dp-accounting"], cases).monotonicity}
    assert not mono[COUNT_EPS].ok and "the same value" in mono[COUNT_EPS].detail
    assert mono[LOOP_EPS].ok


def test_a_gaussian_case_is_inside_for_dp_accounting():
    pytest.importorskip("dp_accounting")
    case = Case("gaussian.eps", {"delta": "1e-5", "sigma": "1", "sensitivity": "1", "k": "1"})
    row = _by_function(run_audit(["dp-accounting"], [case]))["gaussian_mechanism.get_epsilon_gaussian(sigma, delta)"]
    assert row.verdict == "inside"
    # the enclosure, checked with the mpmath profile: δ(lo) >= 1e-5 >= δ(hi)
    lo, hi = row.enclosure.lo, row.enclosure.hi
    with mp.workdps(50):
        assert _gauss_delta(lo, 1) >= mp.mpf(1e-5) >= _gauss_delta(hi, 1)
    assert abs(row.value - 4.3771780956812246) <= 1e-12  # within its stated tol, as the row says
    assert "stated tolerance" in row.note or row.direction is None


# ------------------------------------------------------------------------------------------------ fake peers

GAUSS = Case("gaussian.delta", {"eps": "1", "sigma": "1", "sensitivity": "1", "k": "1"})


def _fake(calls, name="fake", module="math"):
    return Peer(name, "dpcert", module, calls)


def test_a_too_small_delta_is_unsafe_and_a_too_large_upper_bound_is_loose():
    truth = float(_gauss_delta(1, 1))  # 0.126936737506...

    def calls(case):
        return [
            Call("too_small", "value", lambda: truth * (1 - 1e-6)),
            Call("too_large_bound", "upper", lambda: truth * 1.01),
            Call("too_large_value", "value", lambda: truth * 1.01),
        ]

    rows = _by_function(run_audit(cases=[GAUSS], adapters=[_fake(calls)]))
    small, loose, wrong = rows["too_small"], rows["too_large_bound"], rows["too_large_value"]
    assert (small.verdict, small.direction) == ("unsafe", "below")
    assert small.distance == pytest.approx(1e-6, rel=1e-6)
    assert (loose.verdict, loose.direction) == ("loose", "above") and loose.distance == pytest.approx(0.01, rel=1e-6)
    assert wrong.verdict == "wrong"
    assert all(r.peer_seconds is not None and r.version for r in rows.values())


def test_a_missing_peer_is_a_row_with_a_note():
    rows = run_audit(cases=[GAUSS], adapters=[_fake(lambda case: [], "ghost", "dpcert_no_such_module_for_audit")]).rows
    assert len(rows) == 1
    (row,) = rows
    assert row.verdict == "skipped" and row.peer == "ghost"
    assert "not installed" in row.note and "ModuleNotFoundError" in row.note


def test_a_peer_raising_is_a_row_with_its_one_line_message():
    def calls(case):
        def boom():
            raise OverflowError("math range\nerror")

        return [Call("boom", "upper", boom)]

    (row,) = run_audit(cases=[GAUSS], adapters=[_fake(calls)]).rows
    assert row.verdict == "error" and row.note == "OverflowError: math range error"


def test_an_unknown_peer_is_refused():
    with pytest.raises(InvalidParameter, match="--peer"):
        run_audit(["no-such-peer"])


def test_cli_json_and_markdown(capsys):
    pytest.importorskip("opendp")
    assert main(["audit", "--peer", "opendp", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    simple = [r for r in out["rows"] if r["quantity"] == "composition.simple.eps" and r["inputs"]["k"] == "1000"]
    # 1000 Laplace mechanisms of scale 1 compose to exactly 1000 (OpenDP's directed rounding keeps it exact)
    assert simple[0]["verdict"] == "inside" and simple[0]["value"] == 1000.0
    assert main(["audit", "--peer", "opendp", "--markdown", "--quiet"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("## dpcert audit") and "| peer | function |" in md


def test_the_docs_example_runs_and_says_what_it_prints(capsys):
    # docs/audit.md audits the classical sqrt(2 ln(1.25/δ))/σ: below the exact ε at σ = 0.25 (24.38 > 19.38),
    # above it at σ = 1 (4.377 < 4.845)
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "audit.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "docs/audit.md", "exec"), {})
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "[('0.25', 'unsafe'), ('1', 'loose')]"


def test_a_peer_that_never_returns_is_stopped_and_reported():
    # autodp's analytic-Gaussian calibrator loops forever at eps = 0; a fake peer does the same here
    def calls(case):
        def forever():
            while True:
                pass

        return [Call("forever", "value", forever)]

    (row,) = run_audit(cases=[GAUSS], adapters=[_fake(calls)], call_seconds=0.2).rows
    assert row.verdict == "error" and row.note == "no answer within 0.2 s (stopped)"


# ------------------------------------------------------------------------------------------------ golden vectors

VECTORS = {
    "format": "dpcert-vectors",
    "version": 1,
    "vectors": [
        {"id": "g1", "quantity": "gaussian.delta", "inputs": {"eps": "1", "sigma": "1"}, "lo": "0", "hi": "1"},
        {"id": "s1", "quantity": "composition.simple.eps", "inputs": {"k": "3", "eps": "0.1"}},
    ],
}


def test_cases_are_read_from_golden_vectors_and_defaults_are_filled():
    from dpcert.audit.cases import cases_from_vectors

    cases = cases_from_vectors(VECTORS)
    assert [(c.quantity, c.pattern) for c in cases] == [("gaussian.delta", "g1"), ("composition.simple.eps", "s1")]
    truth = float(_gauss_delta(1, 1))

    def calls(case):  # sensitivity and k are absent from the vector: the quantity's defaults (1, 1) apply
        if case.quantity != "gaussian.delta":
            return []
        return [Call("exact", "value", lambda: truth)]

    (row,) = run_audit(cases=cases, adapters=[_fake(calls)]).rows
    assert row.verdict == "inside"


@pytest.mark.parametrize(
    "document, match",
    [
        ({"vectors": {}}, "dpcert-vectors document"),
        ({"vectors": [{"id": "x", "quantity": "no.such", "inputs": {}}]}, r"vector 0 \(x\)"),
        ({"vectors": [{"quantity": "composition.simple.eps", "inputs": {"k": "3"}}]}, "vector 0"),
        ({"vectors": [{"quantity": "composition.simple.eps", "inputs": {"k": 3, "eps": "0.1"}}]}, "as strings"),
    ],
)
def test_malformed_vectors_are_refused_by_index(document, match):
    from dpcert.audit.cases import cases_from_vectors

    with pytest.raises(InvalidParameter, match=match):
        cases_from_vectors(document)


def test_cli_vectors_file(tmp_path, capsys):
    path = tmp_path / "v.json"
    path.write_text(json.dumps(VECTORS), encoding="utf-8")
    assert main(["audit", "--peer", "opendp", "--vectors", str(path), "--json", "--quiet"]) in (0,)
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[0]["peer"] == "opendp"
    assert main(["audit", "--vectors", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_advanced_composition_below_1e_16_returns_an_unsafe_lattice_point():
    # found by this audit: advanced_composition tests 1 - (1 - δ)^k (1 - δ_i) <= total_δ in float, which is 0 once
    # δ_i < 1.1e-16, so at total_δ = 1e-20 it accepts the lattice point 8.0 for k = 100, ε = 0.1, whose δ is
    # 1.77e-17 (mpmath, KOV Thm 3.3's sum at 60 digits), not <= 1e-20
    pytest.importorskip("dp_accounting")
    case = Case("composition.kov.eps", {"k": "100", "eps": "0.1", "delta": "1e-20"}, "extreme")
    row = _by_function(run_audit(["dp-accounting"], [case]))[
        "advanced_composition(DifferentialPrivacyParameters(eps, 0), k, delta)"
    ]
    assert row.value == 8.0 and row.verdict == "unsafe"
    k, e = 100, Fraction(0.1)  # the double 0.1, deliberately: it is the ε the peer was given and computed with
    with mp.workdps(60):
        x = mp.exp(mp.mpf(e.numerator) / e.denominator)
        delta8 = mp.fsum(math.comb(k, i) * max(x**i - mp.exp(8) * x ** (k - i), 0) for i in range(k + 1)) / (1 + x) ** k
    assert delta8 > mp.mpf("1.7e-17") > mp.mpf(1e-20)
