"""Optimal composition of ε-DP mechanisms against peers (dp-accounting 0.6.0, prv-accountant 0.2.0).

dpcert's certified enclosures are the oracle; each peer is asserted only to do what it documents, and where it
does not, the discrepancy itself is asserted (with the numbers) so that a change in the peer shows up here.
All peers compute with binary doubles, so the inputs given to dpcert here are the same doubles (exact binary
values), not the decimals they print as.
"""

import math
import warnings
from fractions import Fraction

import mpmath as mp
import pytest

from dpcert.composition.kov import kov_delta, kov_eps

pytestmark = pytest.mark.peers


@pytest.fixture(scope="module")
def dpa():
    accountant = pytest.importorskip("dp_accounting.pld.accountant")
    common = pytest.importorskip("dp_accounting.pld.common")
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    return accountant, common, pld


@pytest.fixture(scope="module")
def prv():
    accountant = pytest.importorskip("prv_accountant")
    mechanisms = pytest.importorskip("prv_accountant.privacy_random_variables")
    return accountant.PRVAccountant, mechanisms.PureDPMechanism


# ------------------------------------------------------------------------ dp-accounting: advanced_composition

LATTICE_CASES = [
    (10, 0.1, 1e-6),
    (100, 0.1, 1e-6),
    (900, 0.1, 1e-6),
    (50, 1.0, 1e-6),
    (100, 1.0, 1e-6),
    (1016, 0.01, 1e-6),
    (20, 0.5, 1e-3),
]


@pytest.mark.parametrize("k, eps, delta", LATTICE_CASES)
def test_advanced_composition_is_our_eps_g_rounded_up_to_the_kov_lattice(dpa, k, eps, delta):
    # advanced_composition(DifferentialPrivacyParameters(ε, 0), k, δ) scans KOV Thm 3.3's points (k − 2i)ε
    # only, so it returns the least lattice point whose δ_i <= δ: safe, but up to 2ε above the optimal ε_g.
    accountant, common, _ = dpa
    theirs = accountant.advanced_composition(common.DifferentialPrivacyParameters(eps, 0.0), k, delta)
    e = Fraction(eps)
    i = round((k - theirs / eps) / 2)
    point = (k - 2 * i) * e
    assert math.isclose(theirs, float(point), rel_tol=1e-12)
    ours = kov_eps(k, eps, delta)
    assert ours.hi <= point < ours.lo + 2 * e
    # and that lattice point is certified safe, the one below it certified unsafe
    assert kov_delta(k, eps, point).hi <= Fraction(delta)
    if point >= 2 * e:
        assert kov_delta(k, eps, point - 2 * e).lo > Fraction(delta)


def test_advanced_composition_overflows_where_we_do_not(dpa):
    # (1 + e^ε)^k is formed in float: OverflowError once k·ln(1 + e^ε) > 709.78 (k = 1017 at ε = 0.01)
    accountant, common, _ = dpa
    params = common.DifferentialPrivacyParameters(0.01, 0.0)
    assert 1016 * math.log1p(math.exp(0.01)) < 709.78 < 1017 * math.log1p(math.exp(0.01))
    assert accountant.advanced_composition(params, 1016, 1e-6) == pytest.approx(1.38)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(OverflowError):
            accountant.advanced_composition(params, 1017, 1e-6)
    ours = kov_eps(1017, 0.01, 1e-6)
    assert ours.width <= Fraction(1, 10**12) * ours.hi
    # checked independently with the naive formula at 50 digits: δ(hi) <= 1e-6 < δ(lo)
    with mp.workdps(50):
        x = mp.exp(mp.mpf(Fraction(0.01).numerator) / Fraction(0.01).denominator)  # the double the peer used

        def naive(eg):
            eg = mp.exp(mp.mpf(eg.numerator) / eg.denominator)
            return (
                mp.fsum(math.comb(1017, i) * max(x**i - eg * x ** (1017 - i), 0) for i in range(1018)) / (1 + x) ** 1017
            )

        assert naive(ours.hi) <= mp.mpf(1e-6) < naive(ours.lo)


# ------------------------------------------------------------------------ dp-accounting: PLD of the RR pair


def _rr_pld(pld, eps, pessimistic):
    log_q, log_1mq = -math.log1p(math.exp(-eps)), -math.log1p(math.exp(eps))
    return pld.from_two_probability_mass_functions(
        {0: log_q, 1: log_1mq}, {0: log_1mq, 1: log_q}, pessimistic_estimate=pessimistic
    )


PLD_CASES = [
    (10, 0.1, 0.99937),
    (100, 0.1, 4.77457),
    (100, 0.1, 2.0),
    (1000, 0.1, 19.34467),
    (1000, 0.01, 1.36545),
    (50, 1.0, 47.6494),
    (10, 1.0, 5.0),
]

#: FFT round-off of dp-accounting's composition, in absolute terms; measured ≤ 1.1e-15 on PLD_CASES.
FFT_NOISE = Fraction(2, 10**15)


@pytest.mark.parametrize("k, eps, eps_g", PLD_CASES)
def test_pld_pessimistic_and_optimistic_bracket_the_exact_delta(dpa, k, eps, eps_g):
    _, _, pld = dpa
    ours = kov_delta(k, eps, eps_g)
    upper = _rr_pld(pld, eps, True).self_compose(k).get_delta_for_epsilon(eps_g)
    lower = _rr_pld(pld, eps, False).self_compose(k).get_delta_for_epsilon(eps_g)
    assert Fraction(upper) >= ours.hi
    # the optimistic estimate is a lower bound only up to float noise: at (10, 0.1, 0.99937) it exceeds the
    # exact 1.00143926994361e-6 by 1.0e-15 (relative 1e-9)
    assert Fraction(lower) <= ours.hi + FFT_NOISE


def test_pld_optimistic_exceeds_exact_delta_by_float_noise(dpa):
    _, _, pld = dpa
    ours = kov_delta(10, 0.1, 0.99937)
    lower = _rr_pld(pld, 0.1, False).self_compose(10).get_delta_for_epsilon(0.99937)
    assert ours.hi < Fraction(lower) < ours.hi + FFT_NOISE


def test_pld_rounds_the_loss_of_eps_0_1_a_whole_grid_cell_up(dpa):
    # log q − log(1 − q) for ε = 0.1 comes out 6 ulps above 0.1, and pessimistic rounding moves it to 0.1001
    # on the default 1e-4 grid: the pessimistic δ at (10, 0.1, 0.99937) is 2.59e-6, 2.6 times the exact
    # 1.0014e-6 (a valid bound, but a loose one)
    _, _, pld = dpa
    loss = -math.log1p(math.exp(-0.1)) + math.log1p(math.exp(0.1))
    assert Fraction(loss) - Fraction(0.1) == Fraction(6, 2**56) and math.ceil(loss / 1e-4) == 1001  # the double
    upper = _rr_pld(pld, 0.1, True).self_compose(10).get_delta_for_epsilon(0.99937)
    ours = kov_delta(10, 0.1, 0.99937)
    assert 2.5 < upper / float(ours.hi) < 2.7
    # where the loss lies on the grid (ε = 1), pessimistic and optimistic agree with each other and with us
    up1 = _rr_pld(pld, 1.0, True).self_compose(50).get_delta_for_epsilon(47.6494)
    lo1 = _rr_pld(pld, 1.0, False).self_compose(50).get_delta_for_epsilon(47.6494)
    assert up1 == lo1 and abs(Fraction(up1) - kov_delta(50, 1.0, 47.6494).hi) < FFT_NOISE


# ------------------------------------------------------------------------ prv-accountant


def _prv_delta(prv, eps, k, eps_g, **kw):
    accountant_cls, pure_dp = prv
    acc = accountant_cls(prvs=pure_dp(eps), eps_error=0.01, delta_error=1e-10, max_self_compositions=k, **kw)
    return acc.compute_delta(eps_g, [k])


@pytest.mark.parametrize(
    "k, eps, eps_g",
    [(10, 0.1, 0.5), (10, 0.1, 0.99937), (100, 0.1, 4.77457), (100, 0.1, 2.0), (1000, 0.01, 1.36545)],
)
def test_prv_bounds_contain_the_exact_delta(prv, k, eps, eps_g):
    lower, _, upper = _prv_delta(prv, eps, k, eps_g)
    ours = kov_delta(k, eps, eps_g)
    assert Fraction(lower) <= ours.lo and ours.hi <= Fraction(upper)


def test_prv_pure_dp_domain_is_too_small_and_its_upper_bound_is_wrong(prv):
    # PureDPMechanism.rdp(α) = (α − 1)ε/α is below the Rényi divergence of randomized response (at α = 2,
    # ε = 1: 0.5 < 0.7353), so compute_safe_domain_size picks L = 47.57 < kε = 50 for k = 50 and the
    # truncated tail is lost: the returned "upper" bound is below the exact δ, the unsafe direction.
    _, pure_dp = prv
    with mp.workdps(30):
        p = mp.e / (1 + mp.e)
        renyi2 = mp.log(p**2 / (1 - p) + (1 - p) ** 2 / p)
    assert pure_dp(1.0).rdp(2) == 0.5 < renyi2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, upper45 = _prv_delta(prv, 1.0, 50, 45.0)
        lower, est, upper = _prv_delta(prv, 1.0, 50, 47.6494)
    exact45 = kov_delta(50, 1.0, 45.0)  # 1.9429e-5
    assert Fraction(upper45) < exact45.lo and upper45 == pytest.approx(1.6578e-5, rel=1e-3)
    exact = kov_delta(50, 1.0, 47.6494)  # 1.0000022e-6
    assert (lower, est, upper) == pytest.approx((-1e-10, 0.0, 1e-10), abs=1e-16)
    assert Fraction(upper) < exact.lo
    # with the domain given explicitly (eps_max = kε) the bracket is right again
    with pytest.warns(UserWarning, match="Assuming that true epsilon"):
        lower, _, upper = _prv_delta(prv, 1.0, 50, 47.6494, eps_max=50.0)
    assert Fraction(lower) <= exact.lo and exact.hi <= Fraction(upper)
