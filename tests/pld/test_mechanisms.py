"""One suite for every mechanism of the PLD engine: what :class:`dpcert.pld.PrivacyLoss` promises, checked on each.

A new mechanism joins by one line in ``MECHANISMS``."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from dpcert.arith.ball import workprec
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld import PrivacyLoss, compose, delta_of, discretise
from dpcert.pld.discretise import mean

MECHANISMS = {
    "sgm remove": SubsampledGaussianLoss("remove", F(1, 10), F(1)),
    "sgm add": SubsampledGaussianLoss("add", F(1, 10), F(1)),
    "gaussian (q = 1)": SubsampledGaussianLoss("remove", F(1), F(2)),
    "laplace": LaplaceLoss(F(1), F(1)),
    "laplace r = 1/3": LaplaceLoss(F(3), F(1)),
}
#: resolutions putting each mechanism's atoms on grid points (an atom off the grid costs the lower end first order)
GRIDS = {"laplace r = 1/3": (3 * 64, 3 * 128)}


@pytest.fixture(params=sorted(MECHANISMS), name="named")
def _named(request: pytest.FixtureRequest) -> tuple[str, PrivacyLoss]:
    return request.param, MECHANISMS[request.param]


@pytest.fixture(name="loss")
def _loss(named: tuple[str, PrivacyLoss]) -> PrivacyLoss:
    return named[1]


def test_survivals_are_probabilities_non_increasing_with_p_above_e_l_q(loss: PrivacyLoss) -> None:
    n = 32
    i_lo, i_hi = loss.grid_range(n, 1e-12)
    with workprec(128):
        sq, sp = loss.survivals(n, i_lo, i_hi)
    assert len(sq) == len(sp) == i_hi - i_lo + 1
    for a, b in zip(sq, sq[1:], strict=False):
        assert not a < b  # non-increasing (not certainly increasing)
    for x in sq + sp:
        assert not x < 0 and not x > 1
    # on {L >= l}, dP_ac = e^L dQ >= e^l dQ
    for i, (q, p) in enumerate(zip(sq, sp, strict=True)):
        assert not p.upper() < q.lower() * math.exp(float(F(i_lo + i, n))) * (1 - 1e-12)


def test_the_two_discretisations_keep_mass_and_order_the_mean(loss: PrivacyLoss) -> None:
    st = discretise(loss, 64, 1e-20)
    with workprec(128):
        up_mass, lo_mass = st.upper.poly(1), st.lower.poly(1)
        # the upper measure carries all of Q's mass below L_max; the lower one at most all of it
        assert not up_mass > 1 and not lo_mass > up_mass + st.tail
        assert not mean(st.lower, 64) > mean(st.upper, 64) + st.tail  # the icx order raises the mean


def test_the_enclosure_narrows_like_the_square_of_the_grid_step(named: tuple[str, PrivacyLoss]) -> None:
    name, loss = named
    eps = F(1, 4)
    w = []
    for n in GRIDS.get(name, (64, 128)):
        enc = delta_of(compose(discretise(loss, n, 1e-22 / 3), 3, 1e-24), eps)
        assert enc.lo <= enc.hi
        w.append(float(enc.hi - enc.lo))
    assert w[1] <= w[0] / 2.5 or w[1] <= 1e-15
