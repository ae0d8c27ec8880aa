"""The peers' values and faults at the Gaussian mechanism, the SGM's RDP and DP-SGD's RDP epsilon (peers extra)."""

from fractions import Fraction

import pytest

pytest.importorskip("autodp")
pytest.importorskip("dp_accounting")

from dpcert.gaussian.dpsgd_rdp import dpsgd_rdp_eps  # noqa: E402
from dpcert.gaussian.mechanism import gaussian_delta, gaussian_eps, gaussian_sigma  # noqa: E402
from dpcert.gaussian.sgm import SGM_RDP  # noqa: E402

pytestmark = pytest.mark.peers


def test_autodp39_calibration_is_unsafe_and_dpcerts_is_safe():
    from autodp.calibrator_zoo import ana_gaussian_calibrator
    from autodp.mechanism_zoo import ExactGaussianMechanism

    peer = ana_gaussian_calibrator()(ExactGaussianMechanism, 1, 1e-15).params["sigma"]
    at_peer = gaussian_delta("1", peer)  # the peer's double, exactly
    target = Fraction(1, 10**15)
    assert at_peer.lo > target  # the peer's sigma is not (1, 1e-15)-DP: a proved fault
    assert 41 < at_peer.lo / target and at_peer.hi / target < 42  # about 41.5x (independent mpmath)
    ours = gaussian_sigma("1", "1e-15")
    assert gaussian_delta("1", ours.hi).hi <= target and ours.lo > Fraction(peer)


def test_dp_accounting_gaussian_inverse_is_a_rounding_error_below_the_exact_eps():
    from dp_accounting import gaussian_mechanism as gm

    peer = gm.get_epsilon_gaussian(1.0, 1e-5)
    assert gaussian_delta(peer, "1").lo > Fraction(1, 10**5)  # delta at the peer's eps exceeds the target
    ours = gaussian_eps("1e-5", "1", rel_tol=Fraction(1, 10**20))
    assert Fraction(peer) < ours.lo and (ours.lo - Fraction(peer)) / ours.lo < Fraction(1, 10**12)
    # its sigma calibration agrees with ours to 1e-13 (within 1.1e-13 at 8/8 points independently checked)
    s = gaussian_sigma("1", "1e-15", rel_tol=Fraction(1, 10**20))
    assert abs(Fraction(gm.get_sigma_gaussian(1.0, 1e-15)) - s.hi) / s.hi < Fraction(1, 10**13)


def test_rdp_agrees_with_dp_accounting_at_integer_orders():
    from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian as peer

    orders = [2, 3, 5, 8, 16, 32, 64, 128, 256]
    for q, sigma in (("0.01", "1"), ("256/60000", "1.1"), ("0.2", "3")):
        values = peer(float(Fraction(q)), float(Fraction(sigma)), orders)
        for a, v in zip(orders, values, strict=True):
            enc = SGM_RDP.enclose(q=float(Fraction(q)), sigma=float(Fraction(sigma)), alpha=a)  # the peer's doubles
            assert abs(Fraction(v) - enc.mid()) <= Fraction(1, 10**12) * enc.mid()


@pytest.mark.parametrize(
    "q,sigma,steps,delta", [(0.01, 1.0, 1000, 1e-5), (256 / 60000, 1.1, 14040, 1e-5), (0.2, 3.0, 50, 1 / 48000)]
)
def test_agrees_with_dp_accounting_at_its_integer_orders(q, sigma, steps, delta):
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdpa

    acc = rdpa.RdpAccountant(list(range(2, 257)))
    acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
    peer, peer_order = acc.get_epsilon_and_optimal_order(delta)
    got = dpsgd_rdp_eps(q, sigma, steps, delta)  # the peer's doubles, exactly
    assert got.order == peer_order
    assert abs(Fraction(peer) - got.enclosure.mid()) <= Fraction(1, 10**11) * got.enclosure.mid()


def test_dp_accounting_default_grid_is_valid_but_misses_the_best_order():
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdpa

    acc = rdpa.RdpAccountant()  # its default orders: ..., 63, 128, 256, 512, 1024
    acc.compose(dp_event.PoissonSampledDpEvent(0.0005, dp_event.GaussianDpEvent(3.0)), 5000)
    peer, peer_order = acc.get_epsilon_and_optimal_order(1e-8)
    got = dpsgd_rdp_eps(0.0005, 3.0, 5000, 1e-8)
    assert peer_order == 128 and got.order == 136
    assert Fraction(peer) > got.enclosure.hi * Fraction(105, 100)  # 5 % looser, and not refuted


def test_dp_accounting_fractional_orders_are_upper_bounds_loose_near_one_or_missing():
    import logging

    from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian as peer

    # its fractional-order series sums |terms| (an upper bound): never below dpcert's certified value, and
    # 8 % above it at alpha = 1.0001 (q = 0.01, sigma = 1)
    for q, sigma, alpha, loose in (("0.01", "1", "2.5", "1.0009"), ("0.01", "1", "1.0001", "1.08")):
        enc = SGM_RDP.enclose(q=float(Fraction(q)), sigma=float(Fraction(sigma)), alpha=float(Fraction(alpha)))
        v = Fraction(peer(float(Fraction(q)), float(Fraction(sigma)), [float(Fraction(alpha))])[0])
        assert enc.hi < v and v > enc.hi * Fraction(loose)
    # and at q = 0.1, sigma = 1, alpha = 1.5 its series does not converge: it returns inf (order dropped)
    logging.getLogger("absl").setLevel(logging.ERROR)
    assert peer(0.1, 1.0, [1.5])[0] == float("inf")
    assert SGM_RDP.enclose(q="0.1", sigma="1", alpha="1.5").short(12) == "[0.0117345921966, 0.0117345921967]"
