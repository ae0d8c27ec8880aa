"""dpsgd.rdp.eps with orders=real: the certified search over real orders near the best integer, against mpmath's
continuous minimum (q = 1, where the RDP curve is α/(2σ²) exactly), mpmath quadrature of the RDP at the order found,
and dp_accounting's RDP accountant on a fine order grid (peers)."""

from fractions import Fraction

import mpmath as mp
import pytest
from test_gaussian_sgm import mp_rdp_quad, to_mp

from dpcert.gaussian.dpsgd_rdp import DPSGD_RDP_EPS, REAL_ORDER_BITS, dpsgd_rdp_eps


def mp_cks(rdp_total, alpha, delta):
    a, d = to_mp(alpha) if not isinstance(alpha, mp.mpf) else alpha, to_mp(delta)
    return rdp_total + mp.log(1 - 1 / a) - (mp.log(d) + mp.log(a)) / (a - 1)


def test_gaussian_case_matches_the_continuous_minimum_in_mpmath():
    # q = 1: the step is the Gaussian mechanism, rho(alpha) = alpha/(2 sigma^2) for every real alpha; the continuous
    # minimum of the CKS bound is found by mpmath's root finder on its derivative (no grid, no dpcert code)
    sigma, steps, delta = "5", 10, "1e-5"
    with mp.workdps(40):
        s2 = to_mp(sigma) ** 2

        def f(a):
            return mp_cks(steps * a / (2 * s2), a, delta)

        a_star = mp.findroot(lambda a: mp.diff(f, a), 7.9)
        f_star = f(a_star)
    got = dpsgd_rdp_eps("1", sigma, steps, delta, orders="real", rel_tol=1e-20)
    integer = dpsgd_rdp_eps("1", sigma, steps, delta)
    x = Fraction(mp.nstr(f_star, 35))
    assert isinstance(got.order, Fraction) and got.order.denominator > 1
    assert abs(got.order - Fraction(mp.nstr(a_star, 20))) <= Fraction(4, 2**REAL_ORDER_BITS)
    # the upper end is a valid bound (>= the minimum) within the grid's second-order error of it
    assert x <= got.enclosure.hi <= x * (1 + Fraction(1, 10**6))
    assert got.searched == (7, 9) and got.searched_lower <= x  # the certified lower bound holds
    assert got.enclosure.hi < integer.enclosure.lo  # strictly better than the best integer order (8)


def test_sampled_case_is_strictly_better_than_integers_and_matches_quadrature_at_its_order():
    q, sigma, steps, delta = "0.25", "3", 50, Fraction(1, 2**15)  # doubles exactly, as the peer test's
    integer = dpsgd_rdp_eps(q, sigma, steps, delta)
    got = dpsgd_rdp_eps(q, sigma, steps, delta, orders="real", rel_tol=1e-15)
    assert integer.order == 7 and got.order != 7 and 6 < got.order < 8
    assert got.enclosure.hi < integer.enclosure.lo  # 2.698625 < 2.699109
    # epsilon at the order found, from mpmath quadrature of the defining expectation (independent of acb.integral)
    with mp.workdps(30):
        want = mp_cks(steps * mp_rdp_quad(q, sigma, got.order), to_mp(got.order), delta)
    x = Fraction(mp.nstr(want, 25))
    assert got.enclosure.lo - x * Fraction(1, 10**14) <= x <= got.enclosure.hi + x * Fraction(1, 10**14)
    # the certified lower bound over [6, 8] is below the value and within 1 % of it (refined to that)
    assert got.searched == (6, 8) and got.enclosure.lo * Fraction(989, 1000) < got.searched_lower < got.enclosure.lo


def test_real_orders_are_never_worse_and_zero_stays_exact():
    enc = DPSGD_RDP_EPS.enclose(q="0.01", sigma="1", steps=100, delta="0.5", orders="real")
    assert enc.is_exact and enc.lo == 0  # the TV branch, as for integers (opacus#585's setting)
    # at q = 1 and a huge sigma every order beyond the cap of the real quadrature is integer-only: nothing to search
    big = dpsgd_rdp_eps("1", "0.05", 1, "1e-5", orders="real")
    ints = dpsgd_rdp_eps("1", "0.05", 1, "1e-5")
    assert big.enclosure.hi <= ints.enclosure.hi


def test_float_twin_of_the_real_search_agrees_to_1e_8():
    inputs = {"q": "1", "sigma": "5", "steps": 10, "delta": "1e-5", "orders": "real"}
    enc = DPSGD_RDP_EPS.enclose(inputs, rel_tol=1e-15)
    f = DPSGD_RDP_EPS.evaluate_float(inputs)
    assert abs(Fraction(f) - enc.hi) <= Fraction(1, 10**8) * enc.hi


@pytest.mark.peers
def test_dp_accounting_on_a_fine_order_grid_agrees_and_is_not_below_the_lower_bound():
    rdpa = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    q, sigma, steps, delta = 0.25, 3.0, 50, 2.0**-15
    orders = [6 + i / 512 for i in range(1, 1024)]  # 1/512 steps inside (6, 8)
    acc = rdpa.RdpAccountant(orders)
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
    peer, peer_order = acc.get_epsilon_and_optimal_order(delta)
    got = dpsgd_rdp_eps(q, sigma, steps, delta, orders="real")  # the peer's doubles, exactly
    assert abs(Fraction(peer_order) - got.order) <= Fraction(4, 512)
    assert got.searched_lower <= Fraction(peer)
    # the peer's fractional-order RDP sums the series' |terms| : an upper bound, slightly loose, so its
    # best eps on the finer grid is still 2e-5 relative above the certified value at the order found here
    assert got.enclosure.hi < Fraction(peer) <= got.enclosure.hi * (1 + Fraction(1, 10**4))
