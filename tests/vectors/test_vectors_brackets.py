"""Golden vectors of the PLD brackets (``dpsgd.*``, the calibration ``dpsgd.sigma`` included, ``laplace.*``,
``accounting.*``): each holds the certified enclosure at its stated relative width, re-certifies, and contains the
value independent computations give."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import mpmath
import pytest

from dpcert.core.claim import Verdict
from dpcert.errors import InvalidParameter
from dpcert.vectors import CASES, load, loads
from dpcert.vectors.check import entries
from dpcert.vectors.export import certify, enclosure_strings

BRACKETS = {
    "dpsgd.eps",
    "dpsgd.delta",
    "dpsgd.sigma",
    "laplace.eps",
    "laplace.delta",
    "accounting.eps",
    "accounting.delta",
}


@pytest.fixture(scope="module")
def by_id():
    return {v.id: v for v in load()}


def test_every_pld_bracket_has_vectors_at_a_stated_width(by_id):
    bracket = [v for v in by_id.values() if v.width]
    assert {v.quantity for v in bracket} == BRACKETS
    for v in bracket:
        lo, hi = v.interval
        assert 0 < lo < hi, v.id  # a bracket, not a point
        assert (hi - lo) / hi <= Fraction(v.width) * Fraction(101, 100), v.id  # as wide as stated (outward rounding)
    assert not any(v.width for v in by_id.values() if v.quantity not in BRACKETS)


def test_the_bracket_vectors_recertify(by_id):
    """As ``dpcert vectors check`` does: certificate intact, claim proved, a re-run at the width gives the ends."""
    chosen = [e for e in entries() if e.claim.vector.width]
    assert len(chosen) == len([c for c in CASES if c.width])
    for e in chosen:
        result = e.claim.check()
        assert result.verdict is Verdict.CERTIFIED, result.evidence.detail


def test_values_against_independent_computations(by_id):
    with mpmath.workdps(30):
        # one Laplace mechanism (sensitivity/scale 1): delta(eps) = 1 - exp((eps - 1)/2), so eps = 1 + 2 ln(1 - delta)
        truth = 1 + 2 * mpmath.log(1 - mpmath.mpf("1e-5"))
    lo, hi = by_id["laplace.eps.k1"].interval
    assert lo <= Fraction(str(truth)) <= hi
    # 10 Laplace mechanisms are pure 10-DP, and delta = 1e-5 buys little below that
    lo10, hi10 = by_id["laplace.eps.k10"].interval
    assert hi10 <= 10 and lo10 > 9.9


def test_the_sigma_vector_at_q1_holds_the_analytic_gaussians_calibration(by_id):
    """At q = 1, four steps at sigma are one Gaussian at sigma/2 (mu = 2/sigma): the least sigma solves the analytic
    Gaussian's delta(1; mu) = 1e-5 (Balle-Wang), here by bisection in mpmath."""
    with mpmath.workdps(40):

        def delta(mu):
            return mpmath.ncdf(-1 / mu + mu / 2) - mpmath.e * mpmath.ncdf(-1 / mu - mu / 2)

        mu = mpmath.findroot(lambda m: delta(m) - mpmath.mpf("1e-5"), (mpmath.mpf("0.1"), mpmath.mpf(1)),
                             solver="bisect")  # fmt: skip
        sigma = 2 / mu
    lo, hi = by_id["dpsgd.sigma.gaussian_q1"].interval
    assert lo <= Fraction(mpmath.nstr(sigma, 30)) <= hi
    assert abs(float(sigma) - 7.46126) < 1e-4  # the independent value itself


def test_the_sigma_vector_holds_dp_accountings_plds_at_its_ends(by_id):
    """The bracket claims delta(sigma_hi) <= 1e-5 < delta(sigma_lo); dp-accounting's pessimistic PLD (>= the truth)
    at sigma_hi and its optimistic one (<= the truth) at sigma_lo, at a fine grid, say the same."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    lo, hi = by_id["dpsgd.sigma.poisson"].interval

    def delta(sigma, pessimistic):
        d = pld.from_gaussian_mechanism(float(sigma), sampling_prob=0.1, value_discretization_interval=1e-4,
                                        pessimistic_estimate=pessimistic, use_connect_dots=pessimistic)  # fmt: skip
        return d.self_compose(10).get_delta_for_epsilon(1.0)

    assert delta(hi, True) <= 1e-5 < delta(lo, False)
    assert (hi - lo) / hi < Fraction(1, 100)  # a bracket narrower than its stated 2 %: the coarsest grid's own


def test_the_dpsgd_vectors_hold_dp_accountings_pessimistic_pld(by_id):
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    d = pld.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=1e-4).self_compose(100)
    eps, delta = d.get_epsilon_for_delta(1e-5), d.get_delta_for_epsilon(1.0)
    lo, hi = by_id["dpsgd.eps.poisson"].interval
    assert lo <= Fraction(eps) <= hi  # pessimistic (>= the tight value) yet inside the 1e-3 bracket
    lo, hi = by_id["dpsgd.delta.poisson"].interval
    assert lo <= Fraction(delta) <= hi


def test_a_width_is_refused_where_it_means_nothing_and_read_strictly(by_id):
    with pytest.raises(InvalidParameter, match="not a bracket quantity"):
        enclosure_strings("composition.simple.eps", {"k": "1", "eps": "1"}, width="1e-3")
    doc = json.loads(json.dumps({"format": "dpcert-vectors", "version": 1, "dpcert": "0", "digits": 20,
                                 "vectors": [by_id["laplace.eps.k10"].to_json()]}))  # fmt: skip
    for bad in ("0", "2", "-1e-3", "abc", 0.001):
        doc["vectors"][0]["width"] = bad
        with pytest.raises(InvalidParameter, match="width"):
            loads(doc)
    doc["vectors"][0]["width"] = "1e-4"
    assert loads(doc)[0].width == "1e-4"


def test_a_vector_naming_a_file_reads_none(tmp_path):
    (tmp_path / "run.json").write_text('{"type": "GaussianDpEvent", "noise_multiplier": 1}', encoding="utf-8")
    case = dataclasses.replace(
        next(c for c in CASES if c.id == "accounting.eps.example"),
        inputs={"events": str(tmp_path / "run.json"), "delta": "1e-5"},
    )
    with pytest.raises(InvalidParameter, match="not a path"):
        certify(case)


def test_the_bracket_width_is_where_a_peer_is_judged(by_id):
    """A peer's estimate inside the recorded bracket passes at a tolerance the bracket supports, a value outside
    the bracket by more than that fails, whatever it is."""
    from dpcert.testing import assert_within_certified

    v = by_id["dpsgd.eps.poisson"]
    lo, hi = v.interval
    mid = float((lo + hi) / 2)
    assert_within_certified(mid, v, rel_tol=1e-3)
    with pytest.raises(AssertionError, match="below the certified bracket") as info:
        assert_within_certified(mid * (1 - 0.01), v, rel_tol=1e-3)
    assert "the recorded bracket of the vector decided it" in str(info.value)
