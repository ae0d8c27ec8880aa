"""dpcert.accounting.rdp: each certified RDP curve against an independent computation (closed forms, mpmath
quadrature and sums, a brute-force count of the tree's nodes, dp-accounting's RdpAccountant at the same orders), the
conversion against an mpmath minimisation and for monotonicity, and the refusals."""

from __future__ import annotations

import doctest
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import pytest

from dpcert.accounting import rdp
from dpcert.errors import InvalidParameter


@pytest.fixture(autouse=True)
def _forty_digits():
    """The mpmath references of this module at 40 digits (tests/conftest.py restores the precision after)."""
    mpmath.mp.dps = 40


# ------------------------------------------------------------------------------------------------ own events


@dataclass
class GaussianDpEvent:
    noise_multiplier: Any


@dataclass
class LaplaceDpEvent:
    noise_multiplier: Any


@dataclass
class RandomizedResponseDpEvent:
    noise_parameter: Any
    num_buckets: Any


@dataclass
class ZCDpEvent:
    rho: Any
    xi: Any = 0


@dataclass
class PoissonSampledDpEvent:
    sampling_probability: Any
    event: Any


@dataclass
class SingleEpochTreeAggregationDpEvent:
    noise_multiplier: Any
    step_counts: Any


@dataclass
class RepeatAndSelectDpEvent:
    event: Any
    mean: Any
    shape: Any


@dataclass
class SelfComposedDpEvent:
    event: Any
    count: Any


@dataclass
class ComposedDpEvent:
    events: list = field(default_factory=list)


@dataclass
class NoOpDpEvent:
    pass


@dataclass
class NonPrivateDpEvent:
    pass


@dataclass
class MixtureOfGaussiansDpEvent:
    standard_deviation: Any
    sensitivities: Any
    sampling_probs: Any


@dataclass
class DiscreteGaussianDpEvent:
    sigma: Any
    sensitivity: Any = 1


ORDERS = [Fraction(3, 2), Fraction(2), Fraction(5, 2), Fraction(4), Fraction(8), Fraction(17, 2), Fraction(32)]


def _enc(curve, a):
    return curve.enclosure(a)


def _close(enc, x, rel):
    """x (an mpmath or float value) lies in the enclosure widened by rel relative."""
    x = Fraction(mpmath.nstr(x, 35, strip_zeros=False)) if not isinstance(x, float) else Fraction(x)
    slack = abs(x) * Fraction(rel) + Fraction(1, 10**30)
    return enc.lo - slack <= x <= enc.hi + slack


# ------------------------------------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("nb, scale", [("add_remove", 1), ("replace_one", 2)])
def test_gaussian_curve_is_alpha_delta2_over_2sigma2_exactly(nb, scale):
    c = rdp.rdp_curve(GaussianDpEvent("1.1"), nb)
    for a in ORDERS:
        assert _enc(c, a).is_exact and _enc(c, a).lo == a * scale**2 / (2 * Fraction(11, 10) ** 2)


def test_float_fields_are_their_decimal_text():
    c = rdp.rdp_curve(GaussianDpEvent(1.1), "add_remove")
    assert _enc(c, 2).lo == Fraction(2) / (2 * Fraction(121, 100))


@pytest.mark.parametrize("nb", rdp.NEIGHBORING)
def test_zcdp_curve_is_xi_plus_rho_alpha_as_stated_under_either_relation(nb):
    c = rdp.rdp_curve(ZCDpEvent("0.3", "0.01"), nb)
    for a in ORDERS:
        assert _enc(c, a) == rdp.Enclosure.exact(Fraction(1, 100) + Fraction(3, 10) * a)


def test_discrete_gaussian_curve_is_its_zcdp_bound():
    c = rdp.rdp_curve(DiscreteGaussianDpEvent("2", 3), "add_remove")
    assert _enc(c, 5).lo == Fraction(5 * 9, 8)
    c = rdp.rdp_curve(DiscreteGaussianDpEvent("2", 3), "replace_one")
    assert _enc(c, 5).lo == Fraction(5 * 36, 8)


def _released_nodes_holding(steps: int) -> int:
    """Brute force: the most completed dyadic nodes of an online tree over ``steps`` leaves holding one leaf."""
    best = 0
    for t in range(1, steps + 1):
        n = 0
        size = 1
        while size <= steps:
            start = (t - 1) // size * size + 1  # the block of this size holding t
            if start + size - 1 <= steps:
                n += 1
            size *= 2
        best = max(best, n)
    return best


@pytest.mark.parametrize("steps", [0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 127, 128, [3, 8], [0, 5, 2]])
def test_tree_depth_is_the_brute_force_count_of_nodes(steps):
    d = _released_nodes_holding(max(steps) if isinstance(steps, list) else steps)
    sigma = Fraction(3, 2)
    for nb, scale in (("add_remove", 1), ("replace_one", 2)):
        c = rdp.rdp_curve(SingleEpochTreeAggregationDpEvent("1.5", steps), nb)
        for a in (Fraction(3, 2), Fraction(7)):
            assert _enc(c, a) == rdp.Enclosure.exact(a * d * scale**2 / (2 * sigma**2))
    if not isinstance(steps, list) and steps:
        assert d == math.ceil(math.log2(steps + 1))  # dp-accounting's formula, checked where floats are exact


def _laplace_mp(alpha, t):
    """D_α(Lap(0,1)‖Lap(t,1)) by mpmath quadrature split at the kinks 0 and t."""
    a = mpmath.mpf(alpha)

    def f(x):
        return mpmath.exp(-(a * abs(x) + (1 - a) * abs(x - t))) / 2

    v = mpmath.quad(f, [-mpmath.inf, 0, t, mpmath.inf])
    return mpmath.log(v) / (a - 1)


@pytest.mark.parametrize("b", ["0.5", "2", "30"])
def test_laplace_curve_against_mpmath_quadrature(b):
    for nb, scale in (("add_remove", 1), ("replace_one", 2)):
        c = rdp.rdp_curve(LaplaceDpEvent(b), nb)
        for a in ORDERS:
            ref = _laplace_mp(mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(scale) / mpmath.mpf(b))
            e = _enc(c, a)
            assert _close(e, ref, Fraction(1, 10**25)), (b, nb, a)
            assert e.width <= abs(e.hi) * Fraction(1, 10**30)


def _rr_mp(alpha, p, k):
    """Rényi divergence of the replace-one RR pair, summed over the k outputs in mpmath."""
    p, a = mpmath.mpf(p), mpmath.mpf(alpha)
    P = [1 - p + p / k, p / k] + [p / k] * (k - 2)
    Q = [p / k, 1 - p + p / k] + [p / k] * (k - 2)
    return mpmath.log(sum(x**a * y ** (1 - a) for x, y in zip(P, Q, strict=True))) / (a - 1)


@pytest.mark.parametrize("p, k", [("0.3", 4), ("0.9", 2), ("0.01", 10), ("0.999", 3)])
def test_randomized_response_curve_against_the_sum_over_outputs(p, k):
    c = rdp.rdp_curve(RandomizedResponseDpEvent(p, k), "replace_one")
    for a in ORDERS:
        pp = Fraction(p)
        ref = _rr_mp(mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(pp.numerator) / pp.denominator, k)
        assert _close(_enc(c, a), ref, Fraction(1, 10**25)), (p, k, a)


def test_trivial_events():
    assert _enc(rdp.rdp_curve(RandomizedResponseDpEvent(1, 5), "replace_one"), 3) == rdp.Enclosure.exact(0)
    assert _enc(rdp.rdp_curve(RandomizedResponseDpEvent(0, 5), "replace_one"), 3).hi is None
    assert rdp.rdp_epsilon([(NoOpDpEvent(), 5)], "1e-5", "add_remove") == rdp.Enclosure.exact(0)
    assert rdp.rdp_delta([(NoOpDpEvent(), 5)], "0", "add_remove") == rdp.Enclosure.exact(0)
    assert rdp.rdp_epsilon([(NonPrivateDpEvent(), 1)], "1e-5", "add_remove").hi is None
    assert rdp.rdp_delta([(NonPrivateDpEvent(), 1)], "3", "add_remove").hi == 1
    assert rdp.rdp_epsilon([(GaussianDpEvent(0), 1)], "1e-5", "add_remove").hi is None


def _sgm_mp(q, sigma, alpha):
    """The sampled Gaussian's RDP of both directions by mpmath quadrature (max of the two)."""
    q, s, a = (mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in (q, sigma, alpha))

    def phi(z, mu):
        return mpmath.npdf(z, mu, s)

    def mix(z):
        return (1 - q) * phi(z, 0) + q * phi(z, 1)

    rem = mpmath.quad(lambda z: mix(z) ** a * phi(z, 0) ** (1 - a), [-mpmath.inf, 0, 1, mpmath.inf])
    add = mpmath.quad(lambda z: phi(z, 0) ** a * mix(z) ** (1 - a), [-mpmath.inf, 0, 1, mpmath.inf])
    return max(mpmath.log(rem), mpmath.log(add)) / (a - 1)


def test_poisson_gaussian_curve_against_mpmath_quadrature():
    ev = PoissonSampledDpEvent("0.01", GaussianDpEvent("0.8"))
    c = rdp.rdp_curve(ev, "add_remove")
    for a in (Fraction(3, 2), Fraction(2), Fraction(5, 2), Fraction(6)):
        assert _close(_enc(c, a), _sgm_mp("0.01", "0.8", a), Fraction(1, 10**15)), a


# ------------------------------------------------------------------------------------------------ repeat and select


def _tnb_mean_brute(gamma, eta):
    """E[K] of the truncated negative binomial law from its pmf, summed term by term in mpmath."""
    g, e = mpmath.mpf(gamma.numerator) / gamma.denominator, mpmath.mpf(eta.numerator) / eta.denominator
    x = 1 - g
    if e == 0:
        return mpmath.nsum(lambda k: x**k / mpmath.log(1 / g), [1, mpmath.inf])
    norm = g ** (-e) - 1
    return mpmath.nsum(lambda k: k * mpmath.rf(e, k) / mpmath.factorial(k) * x**k / norm, [1, mpmath.inf])


@pytest.mark.parametrize("shape, mean", [("0", "10"), ("0.5", "10"), ("2", "7.5"), ("1", "4"), ("3", "1.5")])
def test_tnb_gamma_is_a_certified_lower_bound(shape, mean):
    s, m = Fraction(shape), Fraction(mean)
    g = rdp._gamma_lower(s, m)
    at_g = _tnb_mean_brute(g, s)
    assert at_g >= mpmath.mpf(m.numerator) / m.denominator  # mean at gamma_lo >= m, so gamma_lo <= gamma
    assert at_g <= mpmath.mpf(m.numerator) / m.denominator * (1 + mpmath.mpf(10) ** -15)  # and tight


def test_repeat_and_select_with_mean_one_truncated_is_the_base_mechanism():
    base = GaussianDpEvent("2")
    c = rdp.rdp_curve(RepeatAndSelectDpEvent(base, 1, "0.5"), "add_remove")
    assert _enc(c, 7) == _enc(rdp.rdp_curve(base, "add_remove"), 7)


def test_repeat_and_select_geometric_against_the_theorem_by_hand():
    # Gaussian sigma = 3, geometric (shape 1) mean 10: gamma = 1/10 exactly; orders {2, 4, 8}
    orders = [Fraction(2), Fraction(4), Fraction(8)]
    c = rdp.rdp_curve(RepeatAndSelectDpEvent(GaussianDpEvent(3), 10, 1), "add_remove", orders)
    r = [mpmath.mpf(a) / 18 for a in (2, 4, 8)]
    const = 2 * min((1 - mpmath.mpf(1) / a) * ri + mpmath.log(10) / a for a, ri in zip((2, 4, 8), r, strict=True))
    raw = [ri + mpmath.log(10) / (a - 1) + const for a, ri in zip((2, 4, 8), r, strict=True)]
    mono = [min(raw[i:]) for i in range(3)]
    for a, ref in zip(orders, mono, strict=True):
        assert _close(_enc(c, a), ref, Fraction(1, 10**25))


def _repeat_select_exact(p0, p0_prime, mean, shape, alpha):
    """The exact Rényi divergence, both directions, of 'run K times, output the largest' for a base with outputs
    {0, 1} (P[0] = p0 on one input, p0_prime on its neighbour): P[max <= 0] = f(P[0]) with f the law of K's
    generating function, an output ⊥ (K = 0) only for the Poisson law. Brute force from the pmf, in mpmath."""

    def mp(x):
        x = Fraction(x)
        return mpmath.mpf(x.numerator) / x.denominator

    m = mp(mean)
    if shape == math.inf:

        def f(t):
            return mpmath.exp(m * (t - 1))

        def law(q0):
            none = mpmath.exp(-m)
            return [none, f(q0) - none, 1 - f(q0)]

    else:
        eta = mp(shape)
        if eta == 1:
            g = 1 / m
        elif eta == 0:
            g = mpmath.findroot(
                lambda g: (1 - g) / (g * mpmath.log(1 / g)) - m,
                (mpmath.mpf(1e-12), 1 - mpmath.mpf(1e-12)),
                solver="bisect",
            )
        else:
            g = mpmath.findroot(
                lambda g: eta * (1 - g) / (g * (1 - g**eta)) - m,
                (mpmath.mpf(1e-12), 1 - mpmath.mpf(1e-12)),
                solver="bisect",
            )

        def f(t):
            x = (1 - g) * t
            if eta == 0:
                return mpmath.log(1 - x) / mpmath.log(g)
            return ((1 - x) ** (-eta) - 1) / (g ** (-eta) - 1)

        def law(q0):
            return [f(q0), 1 - f(q0)]

    a = mp(alpha)
    P, Q = law(mp(p0)), law(mp(p0_prime))

    def div(P, Q):
        return mpmath.log(sum(x**a * y ** (1 - a) for x, y in zip(P, Q, strict=True))) / (a - 1)

    return max(div(P, Q), div(Q, P))


@pytest.mark.parametrize("shape", [0, "0.5", 1, 2, math.inf])
@pytest.mark.parametrize("mean", [2, 10])
def test_repeat_and_select_bound_is_above_the_exact_divergence(shape, mean):
    # base: binary randomized response (p = 1/2) under replace-one: P = (3/4, 1/4) against (1/4, 3/4)
    base = RandomizedResponseDpEvent("0.5", 2)
    orders = [Fraction(3, 2), Fraction(2), Fraction(3), Fraction(4), Fraction(8), Fraction(16)]
    c = rdp.rdp_curve(RepeatAndSelectDpEvent(base, mean, shape), "replace_one", orders)
    sh = shape if shape == math.inf else Fraction(shape)
    for a in orders:
        exact = _repeat_select_exact("0.75", "0.25", mean, sh, a)
        assert _enc(c, a).lo >= Fraction(mpmath.nstr(exact, 30)) * (1 + Fraction(1, 10**20)), (a, exact, _enc(c, a))


# ------------------------------------------------------------------------------------------------ conversion


def _cks_eps_mp(curve_mp, orders, delta):
    best = mpmath.inf
    for a in orders:
        a = mpmath.mpf(a.numerator) / a.denominator
        r = curve_mp(a)
        best = min(best, r + mpmath.log1p(-1 / a) - (mpmath.log(delta) + mpmath.log(a)) / (a - 1))
    return max(best, 0)


def test_epsilon_of_a_heterogeneous_composition_against_mpmath():
    parts = [(GaussianDpEvent("4"), 3), (ZCDpEvent("0.01"), 2), (SingleEpochTreeAggregationDpEvent("5", 7), 1)]
    got = rdp.rdp_epsilon_bound(parts, "1e-6", "add_remove")

    def curve(a):
        return 3 * a / 32 + 2 * mpmath.mpf("0.01") * a + a * 3 / 50

    ref = _cks_eps_mp(curve, rdp.DEFAULT_ORDERS, mpmath.mpf("1e-6"))
    assert got.enclosure.lo == 0
    assert _close(got.bound, ref, Fraction(1, 10**25))
    assert got.enclosure.hi == got.bound.hi and got.bound.width < got.bound.hi * Fraction(1, 10**14)


def test_composed_event_equals_the_list_of_parts():
    evs = [GaussianDpEvent("4"), ZCDpEvent("0.01"), LaplaceDpEvent("10")]
    a = rdp.rdp_epsilon_bound([(ComposedDpEvent(evs), 2)], "1e-6", "replace_one")
    b = rdp.rdp_epsilon_bound([(SelfComposedDpEvent(e, 2), 1) for e in evs], "1e-6", "replace_one")
    # the same number, summed in another order: the balls overlap and the upper ends agree to the balls' width
    assert a.order == b.order and a.bound.overlaps(b.bound)
    assert abs(a.enclosure.hi - b.enclosure.hi) <= a.enclosure.hi * Fraction(1, 10**30)


def test_curves_can_be_passed_instead_of_events():
    c = rdp.rdp_curve(GaussianDpEvent("4"), "add_remove")
    assert rdp.rdp_epsilon([(c, 5)], "1e-5", "add_remove") == rdp.rdp_epsilon(
        [(GaussianDpEvent("4"), 5)], "1e-5", "add_remove"
    )


def test_a_curve_of_another_relation_is_refused():
    c = rdp.rdp_curve(GaussianDpEvent("4"), "add_remove")
    with pytest.raises(InvalidParameter, match="relation"):
        rdp.rdp_epsilon([(c, 1)], "1e-5", "replace_one")


def test_epsilon_is_monotone_in_delta_and_delta_in_epsilon():
    parts = [(PoissonSampledDpEvent("0.02", GaussianDpEvent("1")), 300), (ZCDpEvent("0.05"), 1)]
    deltas = ["1e-12", "1e-9", "1e-6", "1e-4", "1e-2", "0.3"]
    eps = [rdp.rdp_epsilon(parts, d, "add_remove").hi for d in deltas]
    assert all(x > y for x, y in zip(eps, eps[1:], strict=False)), eps
    ds = [rdp.rdp_delta(parts, e, "add_remove").hi for e in ("0", "0.5", "1", "2", "4", "8")]
    assert all(x >= y for x, y in zip(ds, ds[1:], strict=False)) and ds[-1] < ds[1] < 1, ds


def test_delta_at_the_certified_epsilon_is_at_most_the_target():
    parts = [(GaussianDpEvent("3"), 10), (RepeatAndSelectDpEvent(ZCDpEvent("0.02"), 5, 1), 1)]
    for d in ("1e-8", "1e-5", "1e-3"):
        e = rdp.rdp_epsilon(parts, d, "add_remove").hi
        back = rdp.rdp_delta(parts, e, "add_remove").hi
        assert back <= Fraction(d) * (1 + Fraction(1, 10**12))


@pytest.mark.parametrize("sigma, k", [("2", 1), ("2", 10), ("0.7", 3)])
def test_rdp_upper_end_is_above_the_exact_gaussian_eps_under_both_relations(sigma, k):
    # the k-fold Gaussian's exact eps (dpcert.gaussian.mechanism, GDP mu = Delta*sqrt(k)/sigma) is a lower bound of
    # every valid upper bound; under replace-one Delta = 2 (dp-accounting's RDP accountant keeps 1 and lands below)
    from dpcert.gaussian.mechanism import gaussian_eps

    for nb, delta_rel in (("add_remove", 1), ("replace_one", 2)):
        exact = gaussian_eps("1e-5", sigma, str(delta_rel), k)
        ours = rdp.rdp_epsilon([(GaussianDpEvent(sigma), k)], "1e-5", nb)
        assert ours.hi >= exact.hi and ours.hi <= exact.hi * Fraction(3, 2), (nb, ours, exact)


@pytest.mark.parametrize("b", ["0.5", "2", "10"])
def test_rdp_upper_end_is_above_the_exact_laplace_eps(b):
    # one Laplace mechanism: delta(eps) = 1 - e^{(eps - eps0)/2} on [0, eps0], so eps(delta) = eps0 + 2 log(1 - delta)
    for nb, scale in (("add_remove", 1), ("replace_one", 2)):
        eps0 = mpmath.mpf(scale) / mpmath.mpf(Fraction(b).numerator) * Fraction(b).denominator
        exact = max(eps0 + 2 * mpmath.log1p(-mpmath.mpf("1e-3")), 0)
        ours = rdp.rdp_epsilon([(LaplaceDpEvent(b), 1)], "1e-3", nb)
        assert ours.hi >= Fraction(mpmath.nstr(exact, 30)) * (1 - Fraction(1, 10**25)), (b, nb, ours, exact)


def test_tv_branch_gives_exactly_zero():
    # KL of one Gaussian at sigma = 100 is tiny: delta^2 >= 1 - e^{-rho} at delta = 0.1
    assert rdp.rdp_epsilon([(GaussianDpEvent(100), 1)], "0.1", "add_remove") == rdp.Enclosure.exact(0)


@pytest.mark.parametrize("delta", ["1e-10", "1e-5", "0.2"])
def test_skipping_orders_of_a_monotone_curve_never_changes_the_bound(delta):
    ev = PoissonSampledDpEvent("0.02", GaussianDpEvent("0.9"))
    c = rdp.rdp_curve(ev, "add_remove")
    plain = rdp.RdpCurve("the same values, not declared monotone", c.value)
    for conv in (rdp.rdp_epsilon_bound, rdp.rdp_delta_bound):
        arg = delta if conv is rdp.rdp_epsilon_bound else str(-2 * math.log(float(delta)) / 5)
        fast, full = conv([(c, 200)], arg, "add_remove"), conv([(plain, 200)], arg, "add_remove")
        assert fast.enclosure == full.enclosure and fast.order == full.order
        assert full.evaluated == len(rdp.DEFAULT_ORDERS) and fast.evaluated < full.evaluated


def test_skipping_orders_with_repeat_and_select_inside_never_changes_the_bound():
    parts = [
        (PoissonSampledDpEvent("0.02", GaussianDpEvent("0.9")), 100),
        (RepeatAndSelectDpEvent(ZCDpEvent("0.01"), 20, "0.5"), 1),
    ]
    fast = rdp.rdp_epsilon_bound(parts, "1e-6", "add_remove")
    curves = [(rdp.rdp_curve(e, "add_remove"), n) for e, n in parts]
    plain = [(rdp.RdpCurve("not declared monotone", c.value), n) for c, n in curves]
    full = rdp.rdp_epsilon_bound(plain, "1e-6", "add_remove")
    assert fast.enclosure == full.enclosure and fast.evaluated < full.evaluated


def test_any_order_set_is_valid_and_more_orders_never_hurt():
    parts = [(PoissonSampledDpEvent("0.01", GaussianDpEvent("1.1")), 1000)]
    few = rdp.rdp_epsilon(parts, "1e-5", "add_remove", orders=[2, 64])
    many = rdp.rdp_epsilon(parts, "1e-5", "add_remove", orders=[2, 8, 16, 64])
    assert many.hi <= few.hi


# ------------------------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    "event, nb, words",
    [
        (RandomizedResponseDpEvent("0.5", 2), "add_remove", "replace_one only"),
        (PoissonSampledDpEvent("0.1", GaussianDpEvent(1)), "replace_one", "replace_one"),
        (PoissonSampledDpEvent("0.1", LaplaceDpEvent(1)), "add_remove", "one GaussianDpEvent"),
        (PoissonSampledDpEvent("0.1", SelfComposedDpEvent(GaussianDpEvent(1), 2)), "add_remove", "non-adaptive"),
        (RepeatAndSelectDpEvent(GaussianDpEvent(1), 5, "-0.5"), "add_remove", "shape"),
        (RepeatAndSelectDpEvent(GaussianDpEvent(1), "0.5", math.inf), "add_remove", "mean"),
        (RepeatAndSelectDpEvent(MixtureOfGaussiansDpEvent(1, [1], [1]), 5, 1), "add_remove", "MixtureOfGaussians"),
        (ComposedDpEvent([GaussianDpEvent(1), MixtureOfGaussiansDpEvent(1, [1], [1])]), "add_remove", "PLD"),
    ],
)
def test_refusals_are_one_line_and_name_the_event(event, nb, words):
    assert rdp.rdp_curve(event, nb) is None
    why = rdp.rdp_refusal(event, nb)
    assert words in why and "\n" not in why
    with pytest.raises(InvalidParameter, match="certified RDP"):
        rdp.rdp_epsilon([(event, 1)], "1e-5", nb)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(InvalidParameter, match="neighboring"):
        rdp.rdp_curve(GaussianDpEvent(1), "replace_special")
    with pytest.raises(InvalidParameter, match="delta"):
        rdp.rdp_epsilon([(GaussianDpEvent(1), 1)], "1", "add_remove")
    with pytest.raises(InvalidParameter, match="orders"):
        rdp.rdp_epsilon([(GaussianDpEvent(1), 1)], "1e-5", "add_remove", orders=[1])
    with pytest.raises(InvalidParameter, match="noise_multiplier"):
        rdp.rdp_curve(GaussianDpEvent(-1), "add_remove")
    with pytest.raises(InvalidParameter, match="count"):
        rdp.rdp_epsilon([(GaussianDpEvent(1), -1)], "1e-5", "add_remove")


def test_doctests():
    failures, tried = doctest.testmod(rdp)
    assert tried > 0 and failures == 0


# ------------------------------------------------------------------------------------------------ dp-accounting


def _peer_rdp(event, relation, orders):
    pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant as R

    acc = R.RdpAccountant([float(a) for a in orders], relation)
    acc.compose(event)
    return acc


def _assert_brackets(curve, orders, peer_rdp, rel=1e-9):
    """dp-accounting's value at each order is <= our certified upper end (plus float slack) and not far below our
    lower end: the two computations agree to ``rel``."""
    for a, theirs in zip(orders, peer_rdp, strict=True):
        e = _enc(curve, a)
        slack = Fraction(abs(theirs)) * Fraction(rel) + Fraction(1, 10**14)
        assert Fraction(theirs) <= e.hi + slack, (a, theirs, e)
        assert e.lo - slack <= Fraction(theirs), (a, theirs, e)


@pytest.mark.peers
def test_peer_basic_events_at_the_same_orders():
    dpa = pytest.importorskip("dp_accounting")
    E, NR = dpa.dp_event, dpa.NeighboringRelation
    cases = [
        (E.GaussianDpEvent(1.1), GaussianDpEvent(1.1)),
        (E.LaplaceDpEvent(2.0), LaplaceDpEvent(2.0)),
        (E.ZCDpEvent(0.3, 0.01), ZCDpEvent(0.3, 0.01)),
    ]
    for theirs, ours in cases:
        acc = _peer_rdp(theirs, NR.ADD_OR_REMOVE_ONE, ORDERS)
        _assert_brackets(rdp.rdp_curve(ours, "add_remove"), ORDERS, acc._rdp)
    # the sampled Gaussian: at integer orders both are the same finite sum; at non-integer orders dp-accounting sums
    # the absolute values of an alternating series (log|C(alpha, k)|), an upper bound above the true value, which
    # mpmath's quadrature of both directions confirms for ours
    sgm = rdp.rdp_curve(PoissonSampledDpEvent(0.01, GaussianDpEvent(0.9)), "add_remove")
    acc = _peer_rdp(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(0.9)), NR.ADD_OR_REMOVE_ONE, ORDERS)
    integer = [(a, r) for a, r in zip(ORDERS, acc._rdp, strict=True) if a.denominator == 1]
    _assert_brackets(sgm, [a for a, _ in integer], [r for _, r in integer])
    for a, theirs in zip(ORDERS, acc._rdp, strict=True):
        if a.denominator != 1:
            assert _enc(sgm, a).hi <= Fraction(theirs) * (1 + Fraction(1, 10**9))
            assert _close(_enc(sgm, a), _sgm_mp("0.01", "0.9", a), Fraction(1, 10**15))
    for p, k in ((0.3, 4), (0.9, 2)):
        acc = _peer_rdp(E.RandomizedResponseDpEvent(p, k), NR.REPLACE_ONE, ORDERS)
        _assert_brackets(rdp.rdp_curve(RandomizedResponseDpEvent(p, k), "replace_one"), ORDERS, acc._rdp)


@pytest.mark.peers
def test_peer_replace_one_gaussian_is_a_quarter_of_the_certified_curve():
    # dp-accounting's RDP accountant keeps sensitivity 1 under REPLACE_ONE (google/differential-privacy#378)
    dpa = pytest.importorskip("dp_accounting")
    acc = _peer_rdp(dpa.dp_event.GaussianDpEvent(2.0), dpa.NeighboringRelation.REPLACE_ONE, ORDERS)
    ours = rdp.rdp_curve(GaussianDpEvent(2), "replace_one")
    for a, theirs in zip(ORDERS, acc._rdp, strict=True):
        assert _enc(ours, a).lo == 4 * Fraction(theirs)
    assert Fraction(acc.get_epsilon(1e-5)) < rdp.rdp_epsilon([(GaussianDpEvent(2), 1)], "1e-5", "replace_one").hi


@pytest.mark.peers
@pytest.mark.parametrize("steps", [1, 3, 8, 1000, [4, 9]])
def test_peer_tree_aggregation(steps):
    dpa = pytest.importorskip("dp_accounting")
    ev = dpa.dp_event.SingleEpochTreeAggregationDpEvent(0.7, steps)
    acc = _peer_rdp(ev, dpa.NeighboringRelation.REPLACE_SPECIAL, ORDERS)
    _assert_brackets(rdp.rdp_curve(SingleEpochTreeAggregationDpEvent(0.7, steps), "add_remove"), ORDERS, acc._rdp)


@pytest.mark.peers
@pytest.mark.parametrize("shape", [0, 0.5, 1, 3, math.inf])
@pytest.mark.parametrize("mean", [1.5, 10, 300])
def test_peer_repeat_and_select(shape, mean):
    dpa = pytest.importorskip("dp_accounting")
    E, NR = dpa.dp_event, dpa.NeighboringRelation
    orders = list(rdp.DEFAULT_ORDERS[::3])
    base_theirs = E.ComposedDpEvent([E.GaussianDpEvent(4.0), E.ZCDpEvent(0.02)])
    base_ours = ComposedDpEvent([GaussianDpEvent(4.0), ZCDpEvent(0.02)])
    acc = _peer_rdp(E.RepeatAndSelectDpEvent(base_theirs, mean, shape), NR.ADD_OR_REMOVE_ONE, orders)
    ours = rdp.rdp_curve(RepeatAndSelectDpEvent(base_ours, mean, shape), "add_remove", orders)
    # dp-accounting's gamma is a bisection to 1e-9 relative (rounded down): its value is up to ~1e-8 above ours
    _assert_brackets(ours, orders, acc._rdp, rel=1e-7)
    eps_theirs = acc.get_epsilon(1e-6)
    eps_ours = rdp.rdp_epsilon([(RepeatAndSelectDpEvent(base_ours, mean, shape), 1)], "1e-6", "add_remove", orders)
    assert abs(Fraction(eps_theirs) - eps_ours.hi) <= eps_ours.hi * Fraction(1, 10**6)


@pytest.mark.peers
def test_peer_dpsgd_mnist_epsilon_by_rdp():
    # TF Privacy's MNIST setting: q = 256/60000, sigma = 1.1, 60 epochs, delta = 1e-5, Poisson add/remove
    dpa = pytest.importorskip("dp_accounting")
    E = dpa.dp_event
    steps = 60 * 60000 // 256
    ev = E.SelfComposedDpEvent(E.PoissonSampledDpEvent(256 / 60000, E.GaussianDpEvent(1.1)), steps)
    acc = _peer_rdp(ev, dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, rdp.DEFAULT_ORDERS)
    ours = rdp.rdp_epsilon(
        [(PoissonSampledDpEvent(Fraction(256, 60000), GaussianDpEvent("1.1")), steps)], "1e-5", "add_remove"
    )
    theirs = Fraction(acc.get_epsilon(1e-5))
    assert theirs <= ours.hi * (1 + Fraction(1, 10**9)) and ours.hi - theirs <= theirs * Fraction(1, 10**6)
