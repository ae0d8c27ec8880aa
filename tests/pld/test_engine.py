"""The PLD engine's own machinery: windows past the float range, an infinite loss, composition of different
distributions, the refinement's intersection and grid limit, the coarser start grid, and the bracket budget of
``dpcert.enclose``. Each test names the defect of the code before the engine that it would have caught."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from flint import arb, arb_poly

import dpcert
from dpcert.arith.ball import Enclosure, ball, workprec
from dpcert.gaussian import pld as gpld
from dpcert.gaussian.sgm_loss import directions
from dpcert.pld import (
    MAX_CELLS,
    EmptyIntersection,
    GridTooLarge,
    Measure,
    PrivacyLoss,
    combine,
    compose,
    delta_of,
    discretise,
    refining,
)
from dpcert.pld.accountant import START_CELLS
from dpcert.pld.compose import _truncate
from dpcert.pld.discretise import cells_needed


def test_a_window_past_float_exp_range_is_cut_without_overflow() -> None:
    # before: math.exp((off + b)/n) raised OverflowError once the composed loss passed about 709
    # (`dpcert dpsgd eps q=1 sigma=1 steps=1000 delta=1e-5` ended in an internal error)
    n = 64
    with workprec(200):
        meas = Measure(800 * n, arb_poly([arb(1) / 2, arb(1) / 4, arb(1) / 4, arb("1e-300")]))
        kept, err = _truncate(meas, n, 1e-30, upper=True)
    # every atom's y-mass is astronomically above tau: nothing is dropped on the bottom, the last atom's
    # y-mass 1e-300·e^{800.05} ≈ 1e47 is above tau too, so the window keeps all
    assert kept.length == 4 and err == 0


def test_the_q_one_case_past_loss_709_is_certified_from_the_command_line(capsys: pytest.CaptureFixture) -> None:
    from dpcert.cli import main

    # q = 1 at k steps is the Gaussian mechanism with σ/√k; at σ = 1/16, 4 steps the composed loss passes 709 and
    # the command crashed with OverflowError before (the loss range past 200 was not searched either)
    assert main(["dpsgd", "eps", "q=1", "sigma=1/16", "steps=4", "delta=1e-5", "--json"]) == 0
    out = capsys.readouterr().out
    import json

    got = json.loads(out)
    lo, hi = F(got["enclosure"]["lo"]), F(got["enclosure"]["hi"])
    exact = dpcert.enclose("gaussian.eps", delta="1e-5", sigma="1/16", k=4, rel_tol=1e-12)
    assert lo <= exact.lo and exact.hi <= hi
    # the contract's keys: the relative width and the resolution
    assert got["width"] == pytest.approx(float((hi - lo) / hi), rel=1e-6) and got["resolution"] >= 1
    assert got["limited_by"] in ("width", "time", "grid")


class _Toxic(PrivacyLoss):
    """With probability p an infinite loss, else no information (L = log(1 − p) on P's other part): δ_k(ε) =
    1 − (1 − p)^k for every ε >= 0."""

    name = "toxic"

    def __init__(self, p: F) -> None:
        self.p = p
        self.lv = math.log1p(-float(p))

    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list[arb], list[arb]]:
        sq, sp = [], []
        for i in range(i_lo, i_hi + 1):
            below = (arb(i) / n).exp() <= 1 - ball(self.p)  # L = log(1 − p) >= i/n
            sq.append(arb(1) if below else arb(0))
            sp.append(1 - ball(self.p) if below else arb(0))
        return sq, sp

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        return math.floor(self.lv * n) - 2, math.ceil(self.lv * n) + 2

    def infinite_mass(self) -> F:
        return self.p


def test_an_infinite_loss_atom_enters_delta_at_both_ends() -> None:
    p, k = F(1, 1000), 7
    exact = 1 - (1 - p) ** k
    enc = delta_of(compose(discretise(_Toxic(p), 64, 1e-22), k, 1e-24), F(1, 2))
    assert enc.lo <= exact <= enc.hi and enc.lo > 0


def test_combining_two_powers_is_the_power_of_their_sum() -> None:
    # composition of different distributions, checked on identical ones: X^2 * X^3 against X^5 (both valid)
    st = discretise(directions(F(1, 10), F(1))[0], 128, 1e-22 / 5)
    five = delta_of(compose(st, 5, 1e-24), F(1, 2))
    two_three = delta_of(combine(compose(st, 2, 1e-24), compose(st, 3, 1e-24), 1e-24), F(1, 2))
    assert two_three.overlaps(five)
    assert float(two_three.hi - two_three.lo) <= 2 * float(five.hi - five.lo) + 1e-15


def test_an_empty_intersection_of_runs_is_an_error() -> None:
    # before: two disjoint enclosures were intersected into lo > hi and returned
    runs = iter([Enclosure(F(0), F(1)), Enclosure(F(2), F(3))])
    with pytest.raises(EmptyIntersection):
        refining(lambda n, tail: next(runs), 64, 1e-9, 1e9, None, lambda e, t: t)


def test_the_refinement_stops_at_the_grid_limit_and_says_so() -> None:
    def solve(n: int, tail: float) -> Enclosure:
        if n > 64:
            raise GridTooLarge(n, MAX_CELLS + 1)
        return Enclosure(F(1), F(2))

    r = refining(solve, 64, 1e-9, 1e9, None, lambda e, t: t)
    assert not r.reached and r.limited_by == "grid" and r.resolution == 64


def test_a_tiny_q_with_a_small_sigma_starts_on_a_coarser_grid() -> None:
    # before: q = 1e-6, σ = 0.5, one step was refused (its start grid needs 9.7 million cells), no coarser tried
    q, s = F(1, 10**6), F(1, 2)
    assert max(cells_needed(d, gpld.start_resolution(q, s, 1), 1e-22) for d in directions(q, s)) > MAX_CELLS
    n = gpld.fitting_start(q, s, 1, 1e-22, START_CELLS)
    assert max(cells_needed(d, n, 1e-22) for d in directions(q, s)) <= START_CELLS


@pytest.mark.slow
def test_a_tiny_q_with_a_small_sigma_is_certified() -> None:
    from dpcert.gaussian.sgm import SGM_DELTA

    r = gpld.dpsgd_delta("1e-6", "0.5", 1, "0.5", rel_tol=1e-3)
    exact = SGM_DELTA.enclose(q="1e-6", sigma="0.5", eps="0.5", rel_tol=1e-12)
    assert r.enclosure.lo <= exact.lo and exact.hi <= r.enclosure.hi


def test_enclose_of_a_bracket_honours_a_width_and_a_budget_by_default() -> None:
    # before: the default rel_tol = 1e-15 sent a grid bracket up the precision ladder to PrecisionExhausted
    enc = dpcert.enclose("dpsgd.eps", q="0.01", sigma="1", steps=10, delta="1e-3")
    assert enc.rel_width() <= 1e-2
    with pytest.raises(dpcert.BudgetExhausted) as err:
        dpcert.enclose("dpsgd.eps", q="0.01", sigma="1", steps=10, delta="1e-3", rel_tol=1e-14, seconds=0.5)
    msg = str(err.value)
    assert "grid resolution" in msg and "bits" not in msg
    assert err.value.enclosure.lo <= enc.hi and enc.lo <= err.value.enclosure.hi
    assert isinstance(err.value, dpcert.PrecisionExhausted)  # callers catching the old error still do


def test_seconds_is_refused_for_a_quantity_that_is_not_a_bracket() -> None:
    with pytest.raises(dpcert.InvalidParameter) as err:
        dpcert.enclose("gaussian.delta", eps="1", sigma="1", seconds=3)
    assert err.value.name == "seconds"
