"""dpsgd.rdp.eps: brute force over every order in mpmath, the peers (valid but grid-limited), the clamp, bad input."""

from fractions import Fraction

import mpmath as mp
import pytest
from test_gaussian_sgm import mp_rdp_sum, to_mp

from dpcert.errors import InvalidParameter
from dpcert.gaussian.conversion import RDP_TO_DP_CKS
from dpcert.gaussian.dpsgd_rdp import DPSGD_RDP_EPS, dpsgd_rdp_eps


def mp_eps_all_orders(q, sigma, steps, delta, max_order, conversion="cks"):
    """min over every integer order 2..N of the conversion, each order's RDP from the binomial sum in mpmath."""
    best = None
    with mp.workdps(60):
        d = to_mp(delta)
        for a in range(2, max_order + 1):
            r = steps * mp_rdp_sum(q, sigma, a)
            if conversion == "cks":
                e = r + mp.log(1 - mp.mpf(1) / a) - (mp.log(d) + mp.log(a)) / (a - 1)
            else:
                e = r - mp.log(d) / (a - 1)
            if best is None or e < best[0]:
                best = (e, a)
    return max(best[0], 0), best[1]


@pytest.mark.parametrize(
    "q,sigma,steps,delta,conversion",
    [
        ("0.01", "1", 1000, "1e-5", "cks"),
        ("256/60000", "1.1", 14040, "1e-5", "mironov"),
        ("0.2", "3", 50, "1/48000", "cks"),
    ],
)
def test_matches_brute_force_over_every_order_in_mpmath(q, sigma, steps, delta, conversion):
    want, order = mp_eps_all_orders(q, sigma, steps, delta, 48, conversion)
    got = dpsgd_rdp_eps(q, sigma, steps, delta, conversion=conversion, max_order=48, rel_tol=1e-30)
    x = Fraction(mp.nstr(want, 50))
    assert got.enclosure.lo - x * Fraction(1, 10**40) <= x <= got.enclosure.hi + x * Fraction(1, 10**40)
    assert got.order == order and got.enclosure.rel_width() <= 1e-30


def test_every_order_is_searched_not_a_grid():
    # q = 0.0005, sigma = 3, 5000 steps, delta = 1e-8: the best order is 136, between dp_accounting's default grid
    # points 128 and 256; the default grid's eps is valid but 5 % looser
    got = dpsgd_rdp_eps("0.0005", "3", 5000, "1e-8")
    assert got.order == 136
    assert got.enclosure.short(10) == "[0.1027952501, 0.1027952502]"
    # the order bound is honoured: with N = 128 the answer is the value at 128 exactly as brute force over 2..128
    capped = dpsgd_rdp_eps("0.0005", "3", 5000, "1e-8", max_order=128)
    assert capped.order == 128 and capped.enclosure.lo > got.enclosure.hi


def test_optimum_at_the_order_bound_is_reported_there():
    got = dpsgd_rdp_eps("0.00033", "4", 10000, "1.13e-18", max_order=256)
    assert got.order == 256 and got.enclosure.short(5) == "[0.14565, 0.14566]"  # an independent 0.14565 (prv#17)


def test_never_negative_and_zero_only_when_proved():
    # opacus#585: q = 0.01, sigma = 1, 100 steps, delta = 0.5 prints -0.676; q = 1, sigma = 5, delta = 0.9: -2.275
    for args in (("0.01", "1", 100, "0.5"), ("1", "5", 1, "0.9")):
        enc = DPSGD_RDP_EPS.enclose(q=args[0], sigma=args[1], steps=args[2], delta=args[3])
        assert enc.is_exact and enc.lo == 0
    # and independently, for q = 1 the exact Gaussian delta(0) at sigma = 5 is below 0.9: eps = 0 is right
    from dpcert.gaussian.mechanism import gaussian_delta

    assert gaussian_delta("0", "5").hi < Fraction(9, 10)


def test_cks_conversion_quantity_against_mpmath_and_its_clamp():
    with mp.workdps(50):
        want = mp.mpf(3) + mp.log(1 - mp.mpf(1) / 8) - (mp.log(mp.mpf(10) ** -5) + mp.log(8)) / 7
    enc = RDP_TO_DP_CKS.enclose(lam=8, eps_rdp=3, delta="1e-5", rel_tol=1e-40)
    x = Fraction(mp.nstr(want, 45))
    assert abs(enc.mid() - x) <= x * Fraction(1, 10**40)
    zero = RDP_TO_DP_CKS.enclose(lam=2, eps_rdp="0.01", delta="0.9")  # the formula is negative here
    assert zero.is_exact and zero.lo == 0


@pytest.mark.parametrize(
    "inputs",
    [
        {"steps": "1.5"},
        {"steps": 0},
        {"delta": "1"},
        {"delta": "0"},
        {"q": "0"},
        {"q": "1.01"},
        {"sigma": "0"},
        {"conversion": "optimal"},
        {"max_order": 1},
    ],
)
def test_bad_input_is_refused(inputs):
    base = {"q": "0.01", "sigma": "1", "steps": 10, "delta": "1e-5"}
    with pytest.raises(InvalidParameter):
        DPSGD_RDP_EPS.parse({**base, **inputs})
