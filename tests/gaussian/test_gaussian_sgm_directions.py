"""The remove direction's RDP (sgm.rdp, Mironov–Talwar–Zhang's A_α) bounds the add direction's (B_α): both Rényi
divergences by direct mpmath quadrature of their defining integrals, at integer and real orders."""

from fractions import Fraction

import mpmath as mp
import pytest
from test_gaussian_sgm import to_mp

from dpcert.arith.ball import fraction_of, workprec
from dpcert.gaussian.sgm import SGM_RDP, rdp_add_ball


def mp_both_directions(q, sigma, alpha):
    """(D_α(P‖Q), D_α(Q‖P)) for P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²), by quadrature at 30 digits.

    Remove: A_α = ∫ Q (P/Q)^α = E_Q[((1−q) + q e^{(2z−1)/(2σ²)})^α]; add: B_α = ∫ P (Q/P)^α = ∫ Q (Q/P)^{α−1}.
    """
    with mp.workdps(30):
        qq, s, a = to_mp(q), to_mp(sigma), to_mp(alpha)

        def ratio(z):  # P/Q
            return (1 - qq) + qq * mp.exp((2 * z - 1) / (2 * s * s))

        cuts = [-mp.inf, -8 * s, 0, mp.mpf(1) / 2, 1, a, a + 8 * s * max(1, a / 4), mp.inf]
        rem = mp.quad(lambda z: mp.npdf(z, 0, s) * ratio(z) ** a, cuts)
        add = mp.quad(lambda z: mp.npdf(z, 0, s) * ratio(z) ** (1 - a), [-mp.inf, -8 * s, 0, 1, 8 * s, mp.inf])
        return mp.log(rem) / (a - 1), mp.log(add) / (a - 1)


@pytest.mark.parametrize(
    "q,sigma,alpha",
    [
        ("0.01", "1", 4),
        ("0.2", "2", 8),
        ("0.5", "0.8", 3),
        ("0.9", "1.5", 2),
        ("0.01", "1", "2.5"),
        ("0.2", "2", "7.25"),
        ("0.5", "0.8", "1.5"),
        ("0.05", "3", "12.75"),
        ("0.3", "1", "1.01"),
    ],
)
def test_remove_direction_bounds_add_direction_by_quadrature(q, sigma, alpha):
    remove, add = mp_both_directions(q, sigma, alpha)
    assert add < remove  # MTZ's dominance, here at a real order too
    enc = SGM_RDP.enclose(q=q, sigma=sigma, alpha=alpha, rel_tol=1e-20)
    x = Fraction(mp.nstr(remove, 28))
    # sgm.rdp is the remove direction: the quadrature lies in its ball (to the quadrature's own 1e-20 accuracy)
    assert enc.lo - x * Fraction(1, 10**20) <= x <= enc.hi + x * Fraction(1, 10**20)
    y = Fraction(mp.nstr(add, 28))
    assert y < enc.lo
    # and the certified add direction (used at non-integer orders by dpsgd.rdp.eps orders=real) contains its
    # quadrature
    b = rdp_add_ball(Fraction(q), Fraction(sigma), Fraction(alpha), 80)
    with workprec(200):
        lo, hi = fraction_of(b.lower()), fraction_of(b.upper())
    assert lo - y * Fraction(1, 10**20) <= y <= hi + y * Fraction(1, 10**20) and hi - lo <= y * Fraction(1, 10**18)


@pytest.mark.peers
def test_prv_accountants_fractional_order_rdp_near_one_is_below_the_certified_value():
    """prv-accountant keeps the series' signs at fractional orders (its binomial series at real α): near α = 1 its RDP
    falls below the
    certified enclosure, an unsafe-side error (5e-6 relative here), while the enclosure contains mpmath's quadrature."""
    prv = pytest.importorskip("prv_accountant")
    peer = prv.PoissonSubsampledGaussianMechanism(noise_multiplier=1.0, sampling_probability=0.01).rdp(1.0001)
    enc = SGM_RDP.enclose(q="0.01", sigma="1", alpha="1.0001", rel_tol=1e-15)
    assert Fraction(peer) < enc.lo * (1 - Fraction(1, 10**6))
    remove, _ = mp_both_directions("0.01", "1", "1.0001")
    x = Fraction(mp.nstr(remove, 28))
    assert enc.lo - x * Fraction(1, 10**14) <= x <= enc.hi + x * Fraction(1, 10**14)
