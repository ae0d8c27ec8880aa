"""The located σ calibration (float evidence places two certified probes) against independent computations.

Oracles: the certified ε(δ) path (``dpsgd_eps``, its own grids and search) at the bracket's two ends, the bisection
calibration (``route="bisect"``, the previous algorithm), the certified enclosure at the same grid for the float
twin, and Arb's survival balls for the float survival masses. Small settings keep each test to about a second.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from dpcert.arith.ball import workprec
from dpcert.errors import InvalidParameter
from dpcert.gaussian import pld
from dpcert.gaussian.sampling import MirrorLoss, SymmetrisedLoss
from dpcert.gaussian.sgm_estimate import survivals
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.pld.accountant import calibrate_located
from dpcert.pld.estimate import delta_estimate


@pytest.mark.parametrize(
    ("q", "steps", "eps", "delta"),
    [("0.02", 50, "1", "1e-5"), ("0.1", 10, "1", "1e-3"), ("1", 4, "1", "1e-3")],
)
def test_calibration_bracket_is_confirmed_by_the_eps_path(q: str, steps: int, eps: str, delta: str) -> None:
    r = pld.dpsgd_sigma(q, steps, eps, delta, rel_tol=1e-3)
    lo, hi = r.enclosure.lo, r.enclosure.hi
    assert r.reached and r.limited_by == "width" and 0 < lo < hi
    assert r.enclosure.rel_width() <= 1e-3
    # the certified ε at σ_hi is within the target, and the certified lower end of ε at σ_lo is above it
    assert pld.dpsgd_eps(q, hi, steps, delta, rel_tol=1e-4).enclosure.hi <= F(eps)
    assert pld.dpsgd_eps(q, lo, steps, delta, rel_tol=1e-4).enclosure.lo > F(eps)


def test_located_and_bisected_brackets_overlap() -> None:
    # two valid brackets of one least σ must overlap; the located one is at least as narrow as asked
    args = ("0.1", 10, "1", "1e-3")
    a = pld.dpsgd_sigma(*args, rel_tol=1e-3).enclosure
    b = pld.dpsgd_sigma(*args, rel_tol=1e-3, route="bisect").enclosure
    assert a.overlaps(b), (a, b)


def test_unknown_route_is_refused() -> None:
    with pytest.raises(InvalidParameter) as err:
        pld.dpsgd_sigma("0.1", 10, "1", "1e-3", route="guess")
    assert err.value.name == "route"


def _at(q: F, k: int, eps: F, tail: float):
    return lambda s, n: pld.both_directions(q, s, k, n, tail, None, method="fft", eps=eps)


@pytest.mark.parametrize("bias", [0.5, 3.0])
def test_a_biased_twin_costs_retries_not_validity(bias: float) -> None:
    # the float evidence scaled by a constant: the first probe of one end fails, the retry measures the error
    q, k, eps, d = F(1, 10), 10, F(1), F(1, 1000)
    twin = pld._twin(q, k, eps, 1e-9, "poisson", "add_remove")
    probes: list[str] = []
    r = calibrate_located(
        _at(q, k, eps, 1e-9), lambda s, n: bias * twin(s, n), eps, d, 1.2, 128, 1e-3, 60, probes.append, "sigma"
    )
    assert r is not None and r.reached
    assert sum("delta in" in p for p in probes) > 2  # a failed probe was retried
    lo, hi = r.enclosure.lo, r.enclosure.hi
    fine = 4 * r.resolution
    assert pld.delta_enclosure(pld.both_directions(q, hi, k, fine, 1e-22), eps).hi <= d
    assert pld.delta_enclosure(pld.both_directions(q, lo, k, fine, 1e-22), eps).lo > d


def test_useless_evidence_gives_none_and_the_driver_still_answers() -> None:
    q, k, eps, d = F(1, 10), 10, F(1), F(1, 1000)
    r = calibrate_located(_at(q, k, eps, 1e-9), lambda s, n: math.nan, eps, d, 1.2, 128, 1e-2, 60)
    assert r is None


@pytest.mark.parametrize(("q", "sigma", "steps"), [(F(1, 10), F(6, 5), 10), (F(256, 60000), F(97, 100), 1000)])
def test_the_twin_tracks_the_certified_upper_end(q: F, sigma: F, steps: int) -> None:
    eps, n, tail = F(1), 1024, 1e-12
    est = delta_estimate(pld.directions(q, sigma), steps, n, tail, float(eps), survivals)
    enc = pld.delta_enclosure(pld.both_directions(q, sigma, steps, n, tail, method="fft", eps=eps), eps)
    assert abs(est / float(enc.hi) - 1) < 1e-6, (est, enc)
    assert float(enc.lo) < est  # the twin is of the upper end, not a bound of anything


@pytest.mark.parametrize(
    "loss",
    [
        SubsampledGaussianLoss("remove", F(1, 100), F(7, 10)),
        SubsampledGaussianLoss("add", F(1, 100), F(7, 10)),
        SubsampledGaussianLoss("remove", F(1), F(2)),
        MirrorLoss(F(1, 20), F(1)),
        SymmetrisedLoss(SubsampledGaussianLoss("remove", F(1, 20), F(1, 2))),
    ],
)
def test_float_survivals_are_inside_the_balls(loss) -> None:
    n = 64
    i_lo, i_hi = loss.grid_range(n, 1e-12)
    sq, sp = survivals(loss, n, i_lo, i_hi)
    with workprec(128):
        bq, bp = loss.survivals(n, i_lo, i_hi)
    for floats, balls in ((sq, bq), (sp, bp)):
        mids = np.array([float(b.mid()) for b in balls])
        assert np.all(np.abs(floats - mids) <= 1e-9 * mids + 1e-15)


def test_fixed_size_calibration_is_confirmed_by_the_eps_path() -> None:
    # two pairs: σ_hi from the dominating pair's proof, σ_lo from the realised pair's; dpsgd_eps's enclosure is
    # [the realised pair's lower end, the dominating pair's upper end] of the same relation
    q, k, eps, d = "0.05", 50, "2", "1e-5"
    kw = {"sampling": "fixed", "neighboring": "replace_one"}
    r = pld.dpsgd_sigma(q, k, eps, d, rel_tol=1e-3, **kw)
    lo, hi = r.enclosure.lo, r.enclosure.hi
    assert r.reached and 0 < lo < hi
    assert pld.dpsgd_eps(q, hi, k, d, rel_tol=1e-4, **kw).enclosure.hi <= F(eps)
    assert pld.dpsgd_eps(q, lo, k, d, rel_tol=1e-4, **kw).enclosure.lo > F(eps)
