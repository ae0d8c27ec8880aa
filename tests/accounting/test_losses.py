"""The dominating pairs of dpcert.accounting.losses through the PLD engine, against independent values: exact sums
over finite supports (mpmath, written from the output laws, not from the loss's survival formulas), quadrature of
the densities, the optimal composition of pure DP (Kairouz–Oh–Viswanath) for randomized response, and
dp-accounting's pessimistic and optimistic PLDs at many steps."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction as F
from typing import Any

import mpmath
import pytest

from dpcert.accounting.losses import directions, dominating_pairs, why_none
from dpcert.accounting.subsample import PoissonLoss
from dpcert.errors import InvalidParameter
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld import PrivacyLoss, compose_directions, delta_enclosure


# events with dp-accounting's class and field names (the module reads only those)
@dataclass
class RandomizedResponseDpEvent:
    noise_parameter: Any
    num_buckets: Any


@dataclass
class GaussianDpEvent:
    noise_multiplier: Any


@dataclass
class LaplaceDpEvent:
    noise_multiplier: Any


@dataclass
class DiscreteLaplaceDpEvent:
    noise_parameter: Any
    sensitivity: Any


@dataclass
class DiscreteGaussianDpEvent:
    sigma: Any
    sensitivity: Any


@dataclass
class MixtureOfGaussiansDpEvent:
    standard_deviation: Any
    sensitivities: Any
    sampling_probs: Any


@dataclass
class NonPrivateDpEvent:
    pass


@dataclass
class PoissonSampledDpEvent:
    sampling_probability: Any
    event: Any


@dataclass
class SampledWithoutReplacementDpEvent:
    source_dataset_size: Any
    sample_size: Any
    event: Any


@dataclass
class SampledWithReplacementDpEvent:
    source_dataset_size: Any
    sample_size: Any
    event: Any


@dataclass
class TruncatedSubsampledGaussianDpEvent:
    dataset_size: Any
    sampling_probability: Any
    truncated_batch_size: Any
    noise_multiplier: Any


def _delta(event: Any, neighboring: str, eps: F, steps: int = 1, n: int = 1024):
    return delta_enclosure(compose_directions(directions(event, neighboring), steps, n, 1e-22), eps)


def _holds(enc, truth, rel: float = 1e-9) -> None:
    """The certified enclosure holds the independent value (up to the independent value's own round-off)."""
    t = float(truth)
    assert float(enc.lo) <= t * (1 + rel) + 1e-300, (enc.short(12), t)
    assert t * (1 - rel) <= float(enc.hi), (enc.short(12), t)


def _mp(x: Any) -> mpmath.mpf:
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _finite_delta(pairs: list[tuple[Any, Any]], eps: Any) -> mpmath.mpf:
    """Σ (p − e^ε q)₊ over a finite list of (p, q) masses."""
    e = mpmath.exp(_mp(eps))
    return mpmath.fsum(max(p - e * q, 0) for p, q in pairs)


def _product(a: list, b: list) -> list:
    return [(p1 * p2, q1 * q2) for p1, q1 in a for p2, q2 in b]


def _in_bracket(enc, opt: float, pess: float) -> None:
    assert opt <= pess * (1 + 1e-12)
    assert float(enc.lo) <= pess * (1 + 1e-9) and opt * (1 - 1e-9) <= float(enc.hi), (enc.short(10), opt, pess)


# ---------------------------------------------------------------------------------------------- randomized response


def _rr_laws(p: mpmath.mpf, k: int) -> list:
    """(P, Q) masses on {x, x′, other} from the mechanism's definition."""
    keep, other = 1 - p + p / k, p / k
    return [(keep, other), (other, keep), ((k - 2) * other, (k - 2) * other)]


@pytest.mark.parametrize(("p", "k", "eps"), [(F(3, 10), 4, F(1, 2)), (F(1, 10), 2, F(1)), (F(1, 2), 10, F(0))])
def test_randomized_response_one_and_two_steps_are_the_finite_sums(p: F, k: int, eps: F) -> None:
    mpmath.mp.dps = 30
    laws = _rr_laws(mpmath.mpf(p.numerator) / p.denominator, k)
    ev = RandomizedResponseDpEvent(p, k)
    one = _delta(ev, "replace_one", eps, 1, 2048)
    _holds(one, _finite_delta(laws, eps))
    two = _delta(ev, "replace_one", eps, 2, 2048)
    _holds(two, _finite_delta(_product(laws, laws), eps))
    assert float(two.hi - two.lo) <= 2e-3 * float(two.hi)


def _kov(k: int, e0: mpmath.mpf, eg: mpmath.mpf) -> mpmath.mpf:
    """Kairouz–Oh–Viswanath's optimal δ(ε_g) of k ε0-DP mechanisms, written from the theorem."""
    total = mpmath.mpf(0)
    for i in range(k + 1):
        term = mpmath.exp((k - i) * e0) - mpmath.exp(eg + i * e0)
        if term > 0:
            total += mpmath.binomial(k, i) * term
    return total / (1 + mpmath.exp(e0)) ** k


def test_k_fold_binary_randomized_response_is_the_optimal_composition_of_pure_dp() -> None:
    """Two buckets: P = (1 − p/2, p/2), Q its swap, the ε0-DP randomized response with e^ε0 = (2 − p)/p, whose
    k-fold composition is exactly the optimal composition of ε0-DP mechanisms."""
    from dpcert.composition.kov import kov_delta_float

    mpmath.mp.dps = 30
    p, k, eg = F(1, 5), 8, F(3, 2)
    e0 = mpmath.log(_mp((2 - p) / p))
    truth = _kov(k, e0, _mp(eg))
    assert abs(truth - kov_delta_float(k, float(e0), float(eg))) <= 1e-12  # dpcert's own KOV agrees
    enc = _delta(RandomizedResponseDpEvent(p, 2), "replace_one", eg, k, 2048)
    _holds(enc, truth)
    assert float(enc.hi - enc.lo) <= 1e-2 * float(truth)


def test_randomized_response_many_steps_inside_dp_accountings_bracket() -> None:
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    k, eps = 30, 3.0
    vals = [
        pldm.from_randomized_response(0.3, 4, pessimistic_estimate=pe, value_discretization_interval=1e-4)
        .self_compose(k)
        .get_delta_for_epsilon(eps)
        for pe in (True, False)
    ]
    enc = _delta(RandomizedResponseDpEvent(F(3, 10), 4), "replace_one", F(3), k, 256)
    _in_bracket(enc, vals[1], vals[0])


def test_randomized_response_under_add_remove_has_no_pair_and_says_why() -> None:
    ev = RandomizedResponseDpEvent(F(1, 2), 3)
    assert directions(ev, "add_remove") is None
    assert "use replace_one" in why_none(ev, "add_remove") and why_none(ev, "replace_one") == ""


def test_randomized_response_without_noise_is_non_private_and_with_full_noise_reveals_nothing() -> None:
    assert _delta(RandomizedResponseDpEvent(0, 3), "replace_one", F(5)).lo == 1
    assert _delta(RandomizedResponseDpEvent(1, 3), "replace_one", F(0)).hi == 0


# ----------------------------------------------------------------------------------------------- discrete Laplace


def _dlap_laws(a: mpmath.mpf, s: int, lo: int = -400, hi: int = 400) -> list:
    """(P, Q) pmf pairs, P = DLap(a) at 0, Q at s, on [lo, hi] (the rest is below e^{-a·400})."""
    c = mpmath.tanh(a / 2)
    return [(c * mpmath.exp(-a * abs(x)), c * mpmath.exp(-a * abs(x - s))) for x in range(lo, hi + 1)]


@pytest.mark.parametrize(("a", "delta", "eps"), [(F(4, 5), 1, F(3, 10)), (F(1, 2), 3, F(1)), (F(2), 1, F(0))])
def test_discrete_laplace_one_and_two_steps_are_the_sums(a: F, delta: int, eps: F) -> None:
    mpmath.mp.dps = 30
    am = mpmath.mpf(a.numerator) / a.denominator
    ev = DiscreteLaplaceDpEvent(a, delta)
    n = 256 * a.denominator  # the atoms (multiples of a) on grid points: the enclosure is tight
    one = _delta(ev, "add_remove", eps, 1, n)
    _holds(one, _finite_delta(_dlap_laws(am, delta), eps))
    assert float(one.hi - one.lo) <= 1e-12
    small = _dlap_laws(am, delta, -60, 60)
    two = _delta(ev, "add_remove", eps, 2, n)
    _holds(two, _finite_delta(_product(small, small), eps), rel=1e-8)


def test_discrete_laplace_under_replace_one_moves_by_twice_the_sensitivity() -> None:
    mpmath.mp.dps = 30
    enc = _delta(DiscreteLaplaceDpEvent(F(1, 2), 1), "replace_one", F(1, 2), 1, 512)
    _holds(enc, _finite_delta(_dlap_laws(mpmath.mpf(1) / 2, 2), F(1, 2)))
    assert enc.lo > _delta(DiscreteLaplaceDpEvent(F(1, 2), 1), "add_remove", F(1, 2), 1, 512).hi


def test_discrete_laplace_many_steps_inside_dp_accountings_bracket() -> None:
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    k, eps = 40, 2.0
    vals = [
        pldm.from_discrete_laplace_mechanism(0.25, 1, pessimistic_estimate=pe, value_discretization_interval=1e-4)
        .self_compose(k)
        .get_delta_for_epsilon(eps)
        for pe in (True, False)
    ]
    enc = _delta(DiscreteLaplaceDpEvent(F(1, 4), 1), "add_remove", F(2), k, 1024)
    _in_bracket(enc, vals[1], vals[0])


# ----------------------------------------------------------------------------------------------- discrete Gaussian


def _dgauss_laws(sigma: mpmath.mpf, s: int, half: int) -> list:
    """(P, Q) pmf pairs, P = N_Z(0, σ²), Q = N_Z(s, σ²), on [−half, half + s]; the normaliser summed by mpmath
    over all of ℤ (nsum)."""
    w = lambda y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * sigma**2))  # noqa: E731
    z = 1 + 2 * mpmath.nsum(w, [1, mpmath.inf])
    return [(w(y) / z, w(y - s) / z) for y in range(-half, half + s + 1)]


@pytest.mark.parametrize(("sigma", "delta", "eps"), [(F(3, 2), 1, F(1, 2)), (F(1, 3), 1, F(2)), (F(5), 2, F(0))])
def test_discrete_gaussian_one_and_two_steps_are_the_sums(sigma: F, delta: int, eps: F) -> None:
    mpmath.mp.dps = 30
    sm = mpmath.mpf(sigma.numerator) / sigma.denominator
    ev = DiscreteGaussianDpEvent(sigma, delta)
    lat = F(delta) / (2 * sigma**2)  # atoms on multiples of it
    n = lat.denominator * 64
    one = _delta(ev, "add_remove", eps, 1, n)
    _holds(one, _finite_delta(_dgauss_laws(sm, delta, int(40 * sm) + 10), eps))
    assert float(one.hi - one.lo) <= 1e-12
    small = _dgauss_laws(sm, delta, int(12 * sm) + 6)
    two = _delta(ev, "add_remove", eps, 2, n)
    _holds(two, _finite_delta(_product(small, small), eps), rel=1e-8)


def test_discrete_gaussian_many_steps_inside_dp_accountings_bracket() -> None:
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    k, eps = 20, 2.0
    vals = [
        pldm.from_discrete_gaussian_mechanism(2.0, 1, pessimistic_estimate=pe, value_discretization_interval=1e-4)
        .self_compose(k)
        .get_delta_for_epsilon(eps)
        for pe in (True, False)
    ]
    enc = _delta(DiscreteGaussianDpEvent(F(2), 1), "add_remove", F(2), k, 64)  # atoms on multiples of 1/8
    # dp-accounting truncates N_Z at |y| <= 11.6σ (mass ~1e-30 moved): far below the bracket's width
    _in_bracket(enc, vals[1], vals[0])


# --------------------------------------------------------------------------------------------- mixture of Gaussians


def _mog_delta1(cs: list, ps: list, direction: str, e: mpmath.mpf) -> mpmath.mpf:
    """One step of the remove pair (Σ p_i N(c_i, 1), N(0, 1)) or of its swap, for any real e, from the densities:
    the crossing point by findroot, then δ = P(S) − e^e Q(S) on the half-line S where P > e^e Q."""
    phi = lambda x: mpmath.ncdf(x)  # noqa: E731
    y = lambda x: mpmath.fsum(p * mpmath.exp(c * x - c * c / 2) for c, p in zip(cs, ps, strict=True))  # noqa: E731
    p0 = mpmath.fsum(p for c, p in zip(cs, ps, strict=True) if c == 0)
    if direction == "remove":  # P = Σ p_i N(c_i), Q = N(0); P > e^e Q iff Y(x) > e^e iff x > x*
        if mpmath.exp(e) <= p0:
            return 1 - mpmath.exp(e)
        x = mpmath.findroot(lambda t: mpmath.log(y(t)) - e, 0)
        return mpmath.fsum(p * (1 - phi(x - c)) for c, p in zip(cs, ps, strict=True)) - mpmath.exp(e) * (1 - phi(x))
    # P = N(0), Q = Σ p_i N(c_i): P > e^e Q iff Y(x) < e^{-e} iff x < x*
    if mpmath.exp(-e) <= p0:
        return mpmath.mpf(0)
    x = mpmath.findroot(lambda t: mpmath.log(y(t)) + e, 0)
    return phi(x) - mpmath.exp(e) * mpmath.fsum(p * phi(x - c) for c, p in zip(cs, ps, strict=True))


def test_mixture_of_gaussians_one_and_two_steps_against_quadrature() -> None:
    mpmath.mp.dps = 20
    cs, ps = [0, 1, 2], [F(1, 2), F(3, 10), F(1, 5)]
    ev = MixtureOfGaussiansDpEvent(1, cs, ps)
    psm = [mpmath.mpf(p.numerator) / p.denominator for p in ps]
    eps = F(1, 2)
    losses = directions(ev, "add_remove")
    assert [x.name for x in losses] == ["remove", "add"]
    comps = compose_directions(losses, 1, 512, 1e-22)
    from dpcert.pld import delta_of

    for comp, d in zip(comps, ("remove", "add"), strict=True):
        _holds(delta_of(comp, eps), _mog_delta1(cs, psm, d, _mp(eps)), rel=1e-12)
    # two steps of the remove pair: δ2(ε) = E_{x~P}[δ1(ε − L1(x))], L1 = log Y (the first step's loss)
    y = lambda x: mpmath.fsum(p * mpmath.exp(c * x - c * c / 2) for c, p in zip(cs, psm, strict=True))  # noqa: E731
    dens = lambda x: mpmath.fsum(p * mpmath.npdf(x - c) for c, p in zip(cs, psm, strict=True))  # noqa: E731
    mpmath.mp.dps = 15
    truth = mpmath.quad(
        lambda x: dens(x) * _mog_delta1(cs, psm, "remove", mpmath.mpf(0.5) - mpmath.log(y(x))),
        [-mpmath.inf, -2, 0, 2, 4, mpmath.inf],
    )
    two = delta_of(compose_directions(losses[:1], 2, 512, 1e-22)[0], eps)
    _holds(two, truth, rel=1e-7)


def test_mixture_of_gaussians_many_steps_inside_dp_accountings_bracket() -> None:
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    k, eps = 10, 2.0
    vals = [
        pldm.from_mixture_gaussian_mechanism(
            2.0, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2], pessimistic_estimate=pe, value_discretization_interval=1e-3
        )
        .self_compose(k)
        .get_delta_for_epsilon(eps)
        for pe in (True, False)
    ]
    enc = _delta(MixtureOfGaussiansDpEvent(2, [0, 1, 2], [F(1, 2), F(3, 10), F(1, 5)]), "add_remove", F(2), k, 256)
    _in_bracket(enc, vals[1], vals[0])


def test_a_two_point_mixture_is_the_poisson_subsampled_gaussian() -> None:
    """Sensitivities (0, 1) with probabilities (1 − q, q) are the subsampled Gaussian's remove and add pairs: the
    certified root-finding construction and the subsampled Gaussian's closed-form thresholds must overlap."""
    q, sigma, k, eps = F(1, 5), F(1), 5, F(1, 2)
    mix = directions(MixtureOfGaussiansDpEvent(sigma, [0, 1], [1 - q, q]), "add_remove")
    own = [SubsampledGaussianLoss(d, q, sigma) for d in ("remove", "add")]
    from dpcert.pld import delta_of

    for a_loss, b_loss in zip(mix, own, strict=True):
        a = delta_of(compose_directions([a_loss], k, 256, 1e-22)[0], eps)
        b = delta_of(compose_directions([b_loss], k, 256, 1e-22)[0], eps)
        assert a.lo <= b.hi and b.lo <= a.hi
        assert float(a.hi - a.lo) <= 1e-2 * float(a.hi)


def test_poisson_sampling_of_a_one_point_mixture_is_the_subsampled_gaussian() -> None:
    """A mixture with one sensitivity 1 is the Gaussian; Poisson-sampled, its general construction (ball
    thresholds into the mixture's certified roots) must overlap the subsampled Gaussian."""
    q, k, eps = F(1, 10), 4, F(1, 2)
    a = _delta(PoissonSampledDpEvent(q, MixtureOfGaussiansDpEvent(1, [1], [1])), "add_remove", eps, k, 128)
    b = _delta(PoissonSampledDpEvent(q, GaussianDpEvent(1)), "add_remove", eps, k, 128)
    assert a.lo <= b.hi and b.lo <= a.hi
    assert float(a.hi - a.lo) <= 5e-2 * float(a.hi)


def test_mixture_of_gaussians_has_no_replace_one_pair_and_refuses_negative_sensitivities() -> None:
    assert directions(MixtureOfGaussiansDpEvent(1, [1], [1]), "replace_one") is None
    with pytest.raises(InvalidParameter, match="sensitivities"):
        directions(MixtureOfGaussiansDpEvent(1, [-1, 1], [F(1, 2), F(1, 2)]), "add_remove")


# ---------------------------------------------------------------------------------------------- Poisson subsampling


def _poisson_laplace_delta1(q: mpmath.mpf, e: mpmath.mpf, direction: str) -> mpmath.mpf:
    """One step of Poisson-subsampled Laplace (b = 1, sensitivity 1) by quadrature of the densities, split at the
    kinks 0, 1 and at the crossing point (P − e^e Q changes sign once on [0, 1], both being exponentials there)."""
    lp = lambda x: mpmath.exp(-abs(x)) / 2  # noqa: E731
    lq = lambda x: mpmath.exp(-abs(x - 1)) / 2  # noqa: E731
    if direction == "remove":  # ((1 − q)Q + qP, Q)
        f = lambda x: (1 - q) * lq(x) + q * lp(x) - mpmath.exp(e) * lq(x)  # noqa: E731
    else:  # (P, (1 − q)P + qQ)
        f = lambda x: lp(x) - mpmath.exp(e) * ((1 - q) * lp(x) + q * lq(x))  # noqa: E731
    pts = [-mpmath.inf, 0, 1, mpmath.inf]
    if f(mpmath.mpf(0)) * f(mpmath.mpf(1)) < 0:
        pts = [-mpmath.inf, 0, mpmath.findroot(f, (0, 1), solver="anderson"), 1, mpmath.inf]
    return mpmath.quad(lambda x: max(f(x), 0), pts)


def test_poisson_sampled_laplace_one_step_against_quadrature() -> None:
    mpmath.mp.dps = 25
    q, eps = F(1, 5), F(1, 10)
    losses = directions(PoissonSampledDpEvent(q, LaplaceDpEvent(1)), "add_remove")
    assert [x.name for x in losses] == ["remove", "add"] and all(isinstance(x, PoissonLoss) for x in losses)
    from dpcert.pld import delta_of

    comps = compose_directions(losses, 1, 2048, 1e-22)
    for comp, d in zip(comps, ("remove", "add"), strict=True):
        truth = _poisson_laplace_delta1(mpmath.mpf(1) / 5, mpmath.mpf(1) / 10, d)
        enc = delta_of(comp, eps)
        _holds(enc, truth, rel=1e-12)
        # the two atoms land off the grid (at log(1 − q + q·e^{±1})): an atom at the end of the range costs the
        # lower end a first-order loss
        assert float(enc.hi - enc.lo) <= 2e-2 * float(truth)


def test_poisson_sampled_laplace_many_steps_inside_dp_accountings_bracket() -> None:
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    k, eps = 100, 1.0
    vals = [
        pldm.from_laplace_mechanism(2.0, pessimistic_estimate=pe, value_discretization_interval=1e-4, sampling_prob=0.1)
        .self_compose(k)
        .get_delta_for_epsilon(eps)
        for pe in (True, False)
    ]
    enc = _delta(PoissonSampledDpEvent(F(1, 10), LaplaceDpEvent(2)), "add_remove", F(1), k, 1024)
    _in_bracket(enc, vals[1], vals[0])


def test_poisson_sampled_discrete_laplace_many_steps_inside_dp_accountings_bracket() -> None:
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    k, eps = 50, 1.0
    vals = [
        pldm.from_discrete_laplace_mechanism(
            0.5, 1, pessimistic_estimate=pe, value_discretization_interval=1e-4, sampling_prob=0.2
        )
        .self_compose(k)
        .get_delta_for_epsilon(eps)
        for pe in (True, False)
    ]
    enc = _delta(PoissonSampledDpEvent(F(1, 5), DiscreteLaplaceDpEvent(F(1, 2), 1)), "add_remove", F(1), k, 1024)
    _in_bracket(enc, vals[1], vals[0])


def test_general_subsampling_of_the_gaussian_agrees_with_the_subsampled_gaussian() -> None:
    """The transformed-threshold construction over the Gaussian's survivals and the subsampled Gaussian's own
    formulas are two computations of one number: their certified enclosures must overlap, and both be narrow."""
    q, sigma, k, eps = F(1, 10), F(1), 20, F(1)
    inner = SubsampledGaussianLoss("remove", F(1), sigma)
    general = [PoissonLoss(inner, q, "first", "remove"), PoissonLoss(inner, q, "second", "add")]
    own = directions(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), "add_remove")
    assert all(isinstance(x, SubsampledGaussianLoss) for x in own)
    a = delta_enclosure(compose_directions(general, k, 512, 1e-22), eps)
    b = delta_enclosure(compose_directions(own, k, 512, 1e-22), eps)
    assert a.lo <= b.hi and b.lo <= a.hi
    assert float(a.hi - a.lo) <= 1e-3 * float(a.hi)


def test_nested_poisson_sampling_is_sampling_at_the_product_rate() -> None:
    """A record enters both samples with probability q1·q2: the nested event is the single one at q1·q2 (ball
    thresholds through two transforms against one transform)."""
    inner = LaplaceDpEvent(1)
    nested = PoissonSampledDpEvent(F(1, 2), PoissonSampledDpEvent(F(2, 5), inner))
    single = PoissonSampledDpEvent(F(1, 5), inner)
    a = _delta(nested, "add_remove", F(1, 10), 3, 1024)
    b = _delta(single, "add_remove", F(1, 10), 3, 1024)
    assert a.lo <= b.hi and b.lo <= a.hi
    assert float(a.hi - a.lo) <= 1e-2 * float(a.hi)


def test_poisson_rate_zero_reveals_nothing_and_rate_one_is_the_inner_event() -> None:
    assert _delta(PoissonSampledDpEvent(0, GaussianDpEvent(F(1, 10))), "add_remove", F(0)).hi == 0
    a = _delta(PoissonSampledDpEvent(1, LaplaceDpEvent(1)), "add_remove", F(1, 2))
    _holds(a, 1 - math.exp((0.5 - 1) / 2))


def test_poisson_sampling_of_a_non_private_event_keeps_its_infinite_loss_in_both_forms() -> None:
    """Inner P ⟂ Q: remove is ((1 − q)Q + qP, Q), δ = q at ε >= 0; add is (P, (1 − q)P + qQ), δ = (1 − e^ε(1 −
    q))₊ (P against the part of its own mass the mixture keeps), from the laws directly."""
    from dpcert.pld import delta_of

    q, eps = F(1, 4), F(1, 10)
    comps = compose_directions(directions(PoissonSampledDpEvent(q, NonPrivateDpEvent()), "add_remove"), 1, 256, 1e-22)
    _holds(delta_of(comps[0], eps), 0.25, rel=1e-12)
    _holds(delta_of(comps[1], eps), 1 - math.exp(0.1) * 0.75, rel=1e-12)
    _holds(delta_of(comps[0], F(0)), 0.25, rel=1e-12)


# ---------------------------------------------------------------------------- replace-one subsampling (loose pairs)


def _gauss_delta(mu: float, eps: float) -> float:
    """δ of N(μ, 1) against N(0, 1) at ε (Balle–Wang)."""
    return float(mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2))


def test_replace_one_subsampling_is_the_mixture_with_a_silent_branch() -> None:
    """One step, ε >= 0: the pair (1 − γ)(⊥, ⊥) ⊕ γ(N(2), N(0)) has δ = γ·δ_{N(2)}(ε) (σ = 1, shift 2)."""
    mpmath.mp.dps = 20
    ev = SampledWithoutReplacementDpEvent(100, 25, GaussianDpEvent(1))
    _holds(_delta(ev, "replace_one", F(1, 2), 1, 512), 0.25 * _gauss_delta(2.0, 0.5), rel=1e-6)


def _mirror_delta(q: float, eps: float) -> float:
    """δ(ε) of ((1 − q)N(0, 1) + qN(1, 1), (1 − q)N(0, 1) + qN(−1, 1)) by mpmath: the density ratio is increasing
    in x, so δ = P(X > x*) − e^ε Q(X > x*) at the x* where the densities' ratio is e^ε."""
    q, c = mpmath.mpf(q), mpmath.exp(eps)

    def log_ratio(t):  # log of ((1 − q) + q e^{t − 1/2}) / ((1 − q) + q e^{−t − 1/2}), increasing in t
        return mpmath.log((1 - q) + q * mpmath.exp(t - 0.5)) - mpmath.log((1 - q) + q * mpmath.exp(-t - 0.5))

    def surv(x, m):
        return (1 - q) * mpmath.ncdf(-x) + q * mpmath.ncdf(m - x)

    x = mpmath.findroot(lambda t: log_ratio(t) - eps, (-60, 60), solver="illinois")
    return float(surv(x, 1) - c * surv(x, -1))


@pytest.mark.parametrize("q, eps", [(F(1, 4), F(1, 2)), (F(1, 10), F(0)), (F(1, 100), F(1, 10))])
def test_poisson_sampled_gaussian_under_replace_one_is_the_tight_mirror_pair(q: F, eps: F) -> None:
    """The mirror pair, not the silent-branch mixture: δ at one step against mpmath, and the lower end is the
    mechanism's (the pair is attained)."""
    mpmath.mp.dps = 30
    ev = PoissonSampledDpEvent(q, GaussianDpEvent(1))
    truth = _mirror_delta(float(q), float(eps))
    _holds(_delta(ev, "replace_one", eps, 1, 512), truth, rel=1e-6)
    assert dominating_pairs(ev, "replace_one").tight
    mixture = float(q) * _gauss_delta(2.0, float(eps)) if eps > 0 else None
    if mixture is not None:
        assert truth < mixture  # the proved mixture (the former pair) is strictly looser


def test_sampling_with_replacement_mixes_the_copy_counts() -> None:
    """K ~ Bin(m, 1/n) copies of the record: δ = Σ_k P[K = k]·δ_{N(2k)}(ε) + P[K > k_max] (one step)."""
    mpmath.mp.dps = 20
    n, m = 10, 3
    truth = sum(math.comb(m, k) * (1 / n) ** k * (1 - 1 / n) ** (m - k) * _gauss_delta(2.0 * k, 1.0) for k in (1, 2, 3))
    enc = _delta(SampledWithReplacementDpEvent(n, m, GaussianDpEvent(1)), "replace_one", F(1), 1, 128)
    _holds(enc, truth, rel=1e-6)


@pytest.mark.parametrize("cls", [SampledWithoutReplacementDpEvent, SampledWithReplacementDpEvent])
def test_fixed_size_sampling_under_add_remove_has_no_pair_and_says_why(cls: type) -> None:
    ev = cls(100, 10, GaussianDpEvent(1))
    assert directions(ev, "add_remove") is None
    assert "replace_one only" in why_none(ev, "add_remove")
    assert "\n" not in why_none(ev, "add_remove")


# ------------------------------------------------------------------------------------------------- sensitivities


def test_gaussian_and_laplace_under_replace_one_move_by_twice_the_norm_bound() -> None:
    """dp-accounting's PLD convention: σ = 2, replace-one is the Gaussian at shift 2 (μ = 1)."""
    enc = _delta(GaussianDpEvent(2), "replace_one", F(1, 2), 1, 2048)
    _holds(enc, _gauss_delta(1.0, 0.5), rel=1e-6)
    lap = directions(LaplaceDpEvent(2), "replace_one")
    assert isinstance(lap[0], LaplaceLoss) and lap[0].r == 1


def test_events_without_a_proved_pair_answer_none_and_bad_relations_are_refused() -> None:
    assert directions(TruncatedSubsampledGaussianDpEvent(1000, F(1, 10), 120, 1), "add_remove") is None
    assert "truncated" in why_none(TruncatedSubsampledGaussianDpEvent(1000, F(1, 10), 120, 1), "add_remove")
    # a sampled event without a pair says its inner event's reason
    poisson_rr = PoissonSampledDpEvent(F(1, 2), RandomizedResponseDpEvent(F(1, 2), 3))
    assert directions(poisson_rr, "add_remove") is None and "randomized response" in why_none(poisson_rr, "add_remove")
    with pytest.raises(InvalidParameter, match="neighboring"):
        directions(GaussianDpEvent(1), "replace_special")
    with pytest.raises(InvalidParameter, match="noise_parameter"):
        directions(DiscreteLaplaceDpEvent(-1, 1), "add_remove")


# ------------------------------------------------------------------------------------- the seam's survivals_at


def test_survivals_at_exact_thresholds_are_the_grid_survivals_and_balls_hold_both_sides_of_an_atom() -> None:
    from flint import arb

    from dpcert.pld.loss import has_survivals_at

    losses = [
        SubsampledGaussianLoss("remove", F(1, 10), F(1)),
        SubsampledGaussianLoss("add", F(1, 10), F(1)),
        LaplaceLoss(F(1), F(1)),
        *directions(DiscreteGaussianDpEvent(F(3, 2), 1), "add_remove"),
        *directions(RandomizedResponseDpEvent(F(3, 10), 4), "replace_one"),
    ]
    for loss in losses:
        assert has_survivals_at(loss)
        grid = loss.survivals(8, -3, 3)
        at = loss.survivals_at([F(i, 8) for i in range(-3, 4)])
        for g, a in zip(grid[0] + grid[1], at[0] + at[1], strict=True):
            assert g.overlaps(a)
    # Laplace r = 1: an atom of P-mass 1/2 at L = 1; a ball around 1 holds the survival on both sides of it
    (q,), (p,) = LaplaceLoss(F(1), F(1)).survivals_at([arb(1, 2.0**-7)])
    assert p.contains(arb(0)) and p.contains(arb(1) / 2)
    assert not has_survivals_at(_GridOnly())


class _GridOnly(PrivacyLoss):  # gives grid points only
    def survivals(self, n: int, i_lo: int, i_hi: int) -> tuple[list, list]:
        raise NotImplementedError

    def grid_range(self, n: int, tail: float) -> tuple[int, int]:
        return 0, 1


def test_dp_accountings_own_event_objects_are_read_by_their_names() -> None:
    dpe = pytest.importorskip("dp_accounting.dp_event")
    ours = _delta(PoissonSampledDpEvent(F(1, 10), LaplaceDpEvent(2)), "add_remove", F(1, 4), 2, 256)
    # 0.1 and 2.0 as floats mean their binary values: 2.0 is exact, 0.1 is not 1/10 (a nearby rate)
    theirs = _delta(dpe.PoissonSampledDpEvent(0.1, dpe.LaplaceDpEvent(2.0)), "add_remove", F(1, 4), 2, 256)
    assert ours.lo <= theirs.hi and theirs.lo <= ours.hi
