"""The lower end at one to a few steps is never wider than the equal-mean groups' (:mod:`dpcert.pld.discretise`).

Next to a pile of mass (the subsampled Gaussian's remove direction at q = 1e-3, σ = 1/2, whose pile fills the cell
just below loss 0) the convex minorant's lower end at ε = 0 was 17 times wider than the groups' at one step and 2.5
times at three. Up to :data:`~dpcert.pld.accountant.GROUPS_STEPS` steps the composition is also run with the groups'
lower measures and the larger lower end is kept. The groups' own lower end is computed here by forcing the
fallback (the minorant declined), and the truth by mpmath: the one-step δ in closed form, the two-step δ by a 1-D
quadrature, a Gaussian's δ by its closed form.
"""

from __future__ import annotations

import importlib
from fractions import Fraction as F

import mpmath
import pytest
from sgm_cases import mp_of, two_steps, u_remove

import dpcert
from dpcert.events import GaussianDpEvent
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.pld.accountant import GROUPS_STEPS, compose_directions, delta_enclosure, delta_of

# the module (``dpcert.pld.discretise`` as an attribute is the function of that name)
dmod = importlib.import_module("dpcert.pld.discretise")
fmod = importlib.import_module("dpcert.pld.floatdisc")
Q, S, N = F(1, 1000), F(1, 2), 2048


def _remove() -> list:
    return [SubsampledGaussianLoss("remove", Q, S)]


def _groups_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dmod, "_lower_minorant", lambda *args, **kw: None)
    monkeypatch.setattr(fmod, "_lower", lambda *args, **kw: None)  # the float path's minorant (method="fft")


@pytest.mark.parametrize("method", ["fft", "arb"])
def test_the_lower_end_at_a_pile_is_at_least_the_groups_and_below_the_truth(monkeypatch, method: str) -> None:
    mpmath.mp.dps = 30
    eps = F(0)
    got = {
        k: delta_enclosure(compose_directions(_remove(), k, N, 1e-24, method=method, eps=eps), eps) for k in (1, 2, 3)
    }
    with monkeypatch.context() as mp:
        _groups_only(mp)
        old = {
            k: delta_enclosure(compose_directions(_remove(), k, N, 1e-24, method=method, eps=eps), eps)
            for k in (1, 2, 3)
        }
    q, s = mp_of(Q), mp_of(S)
    truth = {1: u_remove(q, s, mpmath.mpf(1)), 2: two_steps(q, s, mpmath.mpf(0))}
    for k in (1, 2, 3):
        assert got[k].lo >= old[k].lo, (k, float(got[k].lo), float(old[k].lo))
        assert got[k].lo <= got[k].hi
        if k in truth:
            assert mp_of(got[k].lo) <= truth[k] <= mp_of(got[k].hi), (k, got[k], truth[k])
    # before: 0.000570 at one step (the groups' 0.000676, the truth 0.000683)
    assert float(got[1].lo) > 0.000676


def test_a_gaussian_through_the_accountant_keeps_the_groups_lower_end(monkeypatch) -> None:
    # before: 0.0068190620075 at resolution 64, where the groups gave 0.0068190701719
    mpmath.mp.dps = 30
    res = dpcert.Accountant().compose(GaussianDpEvent(2)).delta(1)
    with monkeypatch.context() as mp:
        _groups_only(mp)
        old = dpcert.Accountant().compose(GaussianDpEvent(2)).delta(1)
    assert res.resolution == old.resolution
    mu, e = mpmath.mpf(1) / 2, mpmath.mpf(1)
    truth = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
    assert res.enclosure.lo >= old.enclosure.lo * (1 - F(1, 10**12)), (res.enclosure, old.enclosure)
    assert mp_of(res.enclosure.lo) <= truth <= mp_of(res.enclosure.hi)
    assert float(res.enclosure.lo) > 0.00681907


def test_past_the_threshold_the_groups_are_not_composed(monkeypatch) -> None:
    calls = []
    real, real_float = dmod._lower_groups, fmod._groups
    monkeypatch.setattr(dmod, "_lower_groups", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(fmod, "_groups", lambda *a: calls.append(1) or real_float(*a))
    loss = [SubsampledGaussianLoss("remove", F(1, 100), S)]
    (many,) = compose_directions(loss, GROUPS_STEPS + 1, 64, 1e-24, method="fft", eps=F(1))
    assert many.alt is None and not calls  # no extra work past the threshold
    (few,) = compose_directions(loss, GROUPS_STEPS, 64, 1e-24, method="fft", eps=F(1))
    assert few.alt is not None and calls
    assert delta_of(few, F(1)).lo >= delta_of(few.alt, F(1)).lo
