"""Schedules and Opacus histories start on the engine's width model: the first grid of ε(δ) reaches the width asked
in one run, the enclosure holds dp-accounting's PLD value, and a width no budget can buy stops on time.

The setting is the MNIST schedule (q = 256/60000, σ = 1.1 then 0.9) at a tenth of its steps: the model's relative
width c·K/(6n²V) does not depend on the step count (V grows like K), so the cheap setting starts on the same grid.
The expected resolution is computed here from the model's formula (n = ⌈√(c·K/(6·V·w))⌉, V = Σ k_i q²(e^{1/σ_i²} − 1),
w the width asked clamped to [1e-4, 1e-3]), not read back from the code under test.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import pytest

from dpcert.gaussian.pld import dpsgd_eps
from dpcert.gaussian.schedule import dpsgd_schedule_eps
from dpcert.opacus import history_eps

Q = Fraction(256, 60000)
STAGES = [("256/60000", "1.1", 702), ("256/60000", "0.9", 702)]


def _model_resolution(stages: list[tuple[float, float, int]], rel_tol: float) -> int:
    """The width model's first grid, from its formula (c = 2.5; the remove direction's Var_Q(Y) is the larger)."""
    k = sum(s[2] for s in stages)
    v = sum(steps * q * q * math.expm1(1 / (sigma * sigma)) for q, sigma, steps in stages)
    aim = min(max(rel_tol, 1e-4), 1e-3)
    return math.ceil(math.sqrt(2.5 * k / (6 * v * aim)))


FLOAT_STAGES = [(float(Q), 1.1, 702), (float(Q), 0.9, 702)]


def _peer_pld_eps(stages: list[tuple[float, float, int]], delta: float) -> float:
    """dp-accounting's PLDAccountant at its default grid (a float estimate of the tight ε, no proof)."""
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    for q, sigma, steps in stages:
        acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
    return float(acc.get_epsilon(delta))


def test_a_schedules_first_grid_reaches_the_width_asked_in_one_run():
    """One run (the refinement's resolutions are the model's first one alone), at no less than a tenth of the
    width asked (a first grid several times finer than needed costs time like n); a start too coarse would take two
    runs, one too fine would overshoot the width tenfold."""
    for rel in (1e-2, 1e-3, 3e-4):
        r = dpsgd_schedule_eps(STAGES, "1e-5", rel_tol=rel, seconds=60)
        assert r.runs == (_model_resolution(FLOAT_STAGES, rel),), (rel, r.runs)
        assert r.reached and r.limited_by == "width"
        assert min(rel, 1e-3) / 10 <= r.enclosure.rel_width() <= rel, (rel, r.enclosure.rel_width())
    peer = _peer_pld_eps(FLOAT_STAGES, 1e-5)  # 0.939384
    assert r.enclosure.lo <= Fraction(peer) <= r.enclosure.hi


def test_a_multi_segment_history_starts_on_the_same_grid_and_holds_the_peers_value():
    history = [(1.1, float(Q), 702), (0.9, float(Q), 702)]
    r = history_eps(history, "1e-5", rel_tol=1e-3)
    assert r.runs == (_model_resolution(FLOAT_STAGES, 1e-3),) and r.reached
    assert r.enclosure.rel_width() <= 1e-3
    assert r.enclosure.lo <= Fraction(_peer_pld_eps(FLOAT_STAGES, 1e-5)) <= r.enclosure.hi


def test_a_one_segment_history_is_dpsgd_eps_itself():
    r = history_eps([(1.1, float(Q), 300), (1.1, float(Q), 200)], "1e-5", rel_tol=1e-3)
    ref = dpsgd_eps(float(Q), 1.1, 500, "1e-5", rel_tol=1e-3)
    assert r.enclosure == ref.enclosure and r.runs == ref.runs


def test_a_width_no_budget_buys_stops_on_time_from_the_clamped_first_grid():
    """rel_tol = 1e-6 starts at the model's grid for 1e-4 (the clamp; unclamped it would be ten times finer and
    take ten times longer) and stops before a run the budget cannot pay for."""
    seconds = 5.0
    t0 = time.perf_counter()
    r = dpsgd_schedule_eps(STAGES, "1e-5", rel_tol=1e-6, seconds=seconds)
    took = time.perf_counter() - t0
    assert r.runs[0] == _model_resolution(FLOAT_STAGES, 1e-4)
    assert not r.reached and r.limited_by == "time"
    assert took <= 3 * seconds  # the budget, and one first run's overshoot on a shared machine
