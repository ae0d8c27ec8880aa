"""The lower end of the PLD enclosure (:mod:`dpcert.pld.discretise`) against independent values, at an edge of the
law: the Poisson-subsampled Gaussian's Y >= 1 − q (remove) piles its mass into one grid cell when q is small
against the cell, which the construction before the convex minorant paid for with a first-order loss of mean.

Oracles: the exact potential u_Y(t) = E_Q[(Y − t)₊] and the one-step δ in closed form (mpmath), the two-step δ by
a 1-D mpmath quadrature of the closed form. Each test names what the previous construction gave.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from sgm_cases import mp_of, two_steps, u_remove

from dpcert.arith.ball import workprec
from dpcert.gaussian import pld as gpld
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.pld import compose, delta_of, discretise
from dpcert.pld.accountant import START_CELLS, delta_enclosure, eps_enclosure
from dpcert.pld.discretise import mean

Q, S = F(1, 100), F(1, 2)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_lower_measure_keeps_the_mean_at_an_edge(direction: str) -> None:
    # before: the bottom (remove) or top (add) group's slack was rounded down, 1.06e-3 (remove) and 7.1e-4 (add)
    # of mean lost per step at n = 256, which lowers u at every t below the edge
    n = 256
    st = discretise(SubsampledGaussianLoss(direction, Q, S), n, 1e-24)
    with workprec(200):
        lost = mean(st.upper, n) - mean(st.lower, n)
    assert lost < 1e-12, lost


def test_the_lower_potential_lies_below_the_exact_one() -> None:
    # the proof's claim u_lo(t) <= u_Y(t) for every t >= 0, checked at grid points, quarter points and far points
    # on a coarse grid (n = 64: the edge 1 − q and most of the mass in one cell), with the atoms' upper ends
    mpmath.mp.dps = 40
    n = 64
    loss = SubsampledGaussianLoss("remove", Q, S)
    st = discretise(loss, n, 1e-24)
    atoms = [(math.exp((st.lower.off + j) / n), float(w.upper())) for j, w in enumerate(st.lower.poly.coeffs())]
    assert sum(w for _, w in atoms) <= 1 + 1e-12
    q, s = mp_of(Q), mp_of(S)
    points = [F(i, 4 * n) for i in range(4 * (st.lower.off - 1), 4 * 40)] + [F(1, 2), F(1), F(2), F(4)]
    for lv in points:
        t = mpmath.exp(mp_of(lv))
        u_lo = mpmath.fsum(mpmath.mpf(w) * (y - t) for y, w in atoms if y > t)
        assert u_lo <= u_remove(q, s, t) * (1 + mpmath.mpf(10) ** -12), (lv, u_lo, u_remove(q, s, t))


def test_the_lower_end_is_second_order_at_an_edge_overtwo_steps() -> None:
    # before: the lower end's error was 4.9e-6 at n = 256 (245x the upper end's), now about 1.1e-7
    mpmath.mp.dps = 30
    eps = F(1, 2)
    truth = two_steps(mp_of(Q), mp_of(S), mp_of(eps))
    err_lo, err_hi = [], []
    for n in (256, 512):
        enc = delta_of(compose(discretise(SubsampledGaussianLoss("remove", Q, S), n, 1e-30), 2, 1e-32), eps)
        assert mp_of(enc.lo) <= truth <= mp_of(enc.hi), (n, enc, truth)
        err_lo.append(truth - mp_of(enc.lo))
        err_hi.append(mp_of(enc.hi) - truth)
    assert err_lo[0] < 3e-7
    assert err_lo[0] / err_lo[1] > 3  # second order: about 4 per halving of the step
    assert err_lo[1] < 20 * err_hi[1]


def _delta1_sgm(q: mpmath.mpf, s: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """max over both directions of the one-step δ(ε): remove in closed form; add is 0 once e^ε (1 − q) >= 1 (its
    loss is at most −log(1 − q)), which holds at every ε used here."""
    assert mpmath.exp(eps) * (1 - q) >= 1
    return u_remove(q, s, mpmath.exp(eps))


def test_a_tiny_q_with_a_small_sigma_is_answered_against_mpmath() -> None:
    # issue 30: q = 1e-6, σ = 0.5, one step was refused (the start grid needs 9.7 million cells and no coarser one
    # was tried); the coarser start grid answers it, here against the closed form, both δ(ε) and ε(δ)
    mpmath.mp.dps = 40
    q, s = F(1, 10**6), S
    n = gpld.fitting_start(q, s, 1, 1e-22, START_CELLS)
    comps = gpld.both_directions(q, s, 1, n, 1e-22)
    eps = F(1, 2)
    truth = _delta1_sgm(mp_of(q), mp_of(s), mp_of(eps))
    enc = delta_enclosure(comps, eps)
    assert mp_of(enc.lo) <= truth <= mp_of(enc.hi), (enc, truth)
    assert enc.rel_width() < 1e-5
    # ε(δ) at δ = 1e-9 from the same compositions: the root of the closed form lies in the certified bracket
    delta = F(1, 10**9)
    a, b = mpmath.mpf(1) / 10**5, mpmath.mpf(1) / 2  # δ_1 is decreasing: bisect its root
    for _ in range(80):
        mid = (a + b) / 2
        a, b = (mid, b) if _delta1_sgm(mp_of(q), mp_of(s), mid) > mp_of(delta) else (a, mid)
    root = (a + b) / 2
    e_enc = eps_enclosure(comps, delta, 1e-4)
    assert mp_of(e_enc.lo) <= root <= mp_of(e_enc.hi), (e_enc, root)
