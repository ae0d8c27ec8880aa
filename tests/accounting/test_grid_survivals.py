"""The grid survivals of the losses with a fast grid path (a finite pair's step functions, Poisson subsampling of
Laplace through ``survivals_exp``) against mpmath: brute-force sums over the atoms, and the subsampled pair's masses
from the Laplace CDF at the boundary point found by bisection on the transformed loss itself."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from dpcert.accounting.losses import FiniteLoss, randomized_response
from dpcert.accounting.subsample import PoissonLoss
from dpcert.arith.ball import workprec
from dpcert.laplace.loss import LaplaceLoss

DPS = 60
SLACK = mpmath.mpf(10) ** -40  # mpmath's own error here is far below this; a wrong formula is far above it


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _inside(b, x) -> bool:
    lo, hi = mpmath.mpf(b.lower().str(50, radius=False)), mpmath.mpf(b.upper().str(50, radius=False))
    return lo - SLACK <= x <= hi + SLACK


FINITE = [
    randomized_response(F(1, 2), 4),
    randomized_response(F(1, 10), 2),
    FiniteLoss([(F(1, 3), F(1, 3)), (F(1, 6), F(1, 2)), (F(1, 2), F(1, 6))], "with_zero_loss"),
    FiniteLoss([(F(0), F(1, 4)), (F(1, 4), F(0)), (F(3, 4), F(3, 4))], "with_singular_parts"),
]


@pytest.mark.parametrize("loss", FINITE, ids=lambda x: x.name)
@pytest.mark.parametrize("n", [1, 7, 300])
def test_a_finite_pairs_grid_survivals_are_the_atoms_above_each_point(loss, n):
    lo, hi = loss.grid_range(n, 1e-10)
    with workprec(192):
        sq, sp = loss.survivals(n, lo - 3, hi + 3)
    with mpmath.workdps(DPS):
        for k, i in enumerate(range(lo - 3, hi + 4)):
            t = mpmath.mpf(i) / n
            above = [(qm, pm) for qm, pm in loss.atoms if mpmath.log(_mp(pm) / _mp(qm)) >= t]
            assert _inside(sq[k], _mp(sum((a for a, _ in above), F(0))))
            assert _inside(sp[k], _mp(sum((b for _, b in above), F(0)))), (i, n)
            assert sq[k].rad() == 0 or float(sq[k].rad()) < 1e-40


def _laplace_cdf(x, mu, b):
    return mpmath.mpf(1) / 2 * mpmath.exp((x - mu) / b) if x < mu else 1 - mpmath.exp(-(x - mu) / b) / 2


def _subsampled_survivals(scale, q, form, l):
    """(Q'(L' >= l), P'(L' >= l)) of Poisson subsampling's pair for LaplaceLoss(scale, 1): its P = Lap(0, b), Q =
    Lap(1, b) (L = log p/q, non-increasing in x), first form ((1 − q)Q + qP, Q), second (P, (1 − q)P + qQ). The
    transformed loss is non-increasing in x too, so {L' >= l} = (−inf, x*], x* found by bisection on L' itself."""
    b, q = _mp(scale), _mp(q)

    def loss(x):  # log p/q
        return (abs(x - 1) - abs(x)) / b

    def outer(x):
        y = mpmath.exp(loss(x))
        return mpmath.log(1 - q + q * y) if form == "first" else -mpmath.log(1 - q + q / y)

    def masses(x):  # (Q'(X <= x), P'(X <= x)) of the outer pair
        qc, pc = _laplace_cdf(x, 1, b), _laplace_cdf(x, 0, b)
        return (qc, (1 - q) * qc + q * pc) if form == "first" else ((1 - q) * pc + q * qc, pc)

    far = 200 * b + 10
    if outer(far) >= l:  # everything
        return masses(mpmath.inf)
    if outer(-far) < l:  # nothing
        return mpmath.mpf(0), mpmath.mpf(0)
    a, c = -far, far  # outer(a) >= l > outer(c)
    for _ in range(240):
        m = (a + c) / 2
        if outer(m) >= l:
            a = m
        else:
            c = m
    return masses(a)


@pytest.mark.parametrize("form", ["first", "second"])
@pytest.mark.parametrize("scale, q", [(F(1), F(1, 8)), (F(1, 3), F(9, 10)), (F(10), F(1, 1000))])
def test_poisson_subsampled_laplace_grid_survivals_by_bisection(form, scale, q):
    loss = PoissonLoss(LaplaceLoss(scale, F(1)), q, form, form)
    n = 16
    lo, hi = loss.grid_range(n, 1e-10)
    with workprec(192):
        sq, sp = loss.survivals(n, lo - 2, hi + 2)
    with mpmath.workdps(DPS):
        for k, i in enumerate(range(lo - 2, hi + 3)):
            eq, ep = _subsampled_survivals(scale, q, form, mpmath.mpf(i) / n)
            assert _inside(sq[k], eq) and _inside(sp[k], ep), (form, i, n, sq[k], eq, sp[k], ep)
            assert float(sq[k].rad()) < 1e-40 and float(sp[k].rad()) < 1e-40  # tight, not merely valid


def test_the_laplace_exp_thresholds_refuse_a_ball_not_certainly_positive():
    from flint import arb

    with pytest.raises(ValueError, match="e\\^l > 0"):
        LaplaceLoss(F(1), F(1)).survivals_exp([arb(0, 1)])
