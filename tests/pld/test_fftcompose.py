"""The PLD engine's float path (:mod:`dpcert.pld.fftcompose`): its round-off bounds hold against exact arithmetic,
and its enclosures agree with the arb path's and with closed forms.

Independent sources: an exact DFT (mpmath at 60 digits), the exact k-fold convolution of the same floats (rationals),
the arb path (:func:`dpcert.pld.compose`: ball products, no float), and the Gaussian mechanism's closed form
δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) at μ = √k/σ (q = 1), down to δ near 1e-250."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.laplace.loss import LaplaceLoss
from dpcert.pld import compose, compose_directions, delta_of, discretise, eps_enclosure
from dpcert.pld.fftcompose import (
    FloatComposed,
    _cyclic_power,
    _fft,
    _fft_factor,
    _twiddles,
    compose_fft,
    saddle_theta,
)


def _random(rng: np.random.Generator, length: int) -> np.ndarray:
    x = rng.random(length) ** 3  # uneven masses, as a privacy loss's are
    return x / x.sum()


@pytest.mark.parametrize("size", [2, 16, 256])
def test_the_fft_is_within_its_proved_bound_of_the_exact_dft(size: int) -> None:
    rng = np.random.default_rng(size)
    x = rng.random(size) + 1j * rng.random(size)
    got = _fft(x, _twiddles(size))
    mass = sum(abs(complex(v)) for v in x)
    bound = _fft_factor(size.bit_length() - 1) * mass
    with mpmath.workdps(60):
        for j in range(size):
            exact = mpmath.fsum(
                mpmath.mpc(float(x[c].real), float(x[c].imag)) * mpmath.expjpi(mpmath.mpf(-2 * j * c) / size)
                for c in range(size)
            )
            assert abs(mpmath.mpc(got[j].real, got[j].imag) - exact) <= bound


def _exact_power(x: np.ndarray, k: int) -> list[F]:
    """The k-fold convolution of the floats x, exactly (rationals)."""
    base = [F(float(v)) for v in x]
    out = [F(1)]
    for _ in range(k):
        nxt = [F(0)] * (len(out) + len(base) - 1)
        for i, a in enumerate(out):
            if a:
                for j, b in enumerate(base):
                    nxt[i + j] += a * b
        out = nxt
    return out


@pytest.mark.parametrize(("length", "k"), [(5, 1), (6, 7), (9, 12)])
def test_the_composed_floats_are_within_the_bound_of_the_exact_convolution(length: int, k: int) -> None:
    rng = np.random.default_rng(length * 100 + k)
    up, lo = _random(rng, length), _random(rng, length) * 0.9
    size = 1 << (k * (length - 1)).bit_length()  # the whole support: no aliasing
    y, bound = _cyclic_power(up, lo, k, size)
    assert 0 < bound < 1e-12
    for part, x in ((y.real, up), (y.imag, lo)):
        exact = _exact_power(x, k) + [F(0)] * size
        worst = max(abs(F(float(part[m])) - exact[m]) for m in range(size))
        assert worst <= F(bound)
        assert worst > 0 or k == 1  # the bound is about real round-off, not vacuous


def test_a_wrong_bound_would_be_caught() -> None:
    # the check above can fail: a tenth of the true error is exceeded somewhere (the bound is not 10x tight, but the
    # round-off is not zero)
    rng = np.random.default_rng(3)
    up = _random(rng, 9)
    y, bound = _cyclic_power(up, up, 12, 128)
    exact = _exact_power(up, 12) + [F(0)] * 128
    worst = max(abs(F(float(y.real[m])) - exact[m]) for m in range(128))
    assert worst > F(bound) / 10**5


CASES = [
    ("sgm remove", SubsampledGaussianLoss("remove", F(1, 100), F(1)), 10, 256, F(1, 10)),
    ("sgm add", SubsampledGaussianLoss("add", F(1, 10), F(1)), 50, 256, F(1, 2)),
    ("sgm remove k = 100", SubsampledGaussianLoss("remove", F(1, 10), F(1)), 100, 256, F(1)),
    ("gaussian", SubsampledGaussianLoss("remove", F(1), F(2)), 5, 128, F(1)),
    ("laplace", LaplaceLoss(F(2), F(1)), 20, 128, F(2)),
]


@pytest.mark.parametrize(("name", "loss", "k", "n", "eps"), CASES, ids=[c[0] for c in CASES])
def test_the_float_path_overlaps_the_arb_path_and_is_as_narrow(name, loss, k, n, eps) -> None:
    st = discretise(loss, n, 1e-25 / k)
    arb_enc = delta_of(compose(st, k, 1e-30), eps)
    fc = compose_fft(st, k, saddle_theta(st, k, eps))
    assert isinstance(fc, FloatComposed)
    enc = fc.delta(eps)
    # both are certified enclosures of one number: they overlap; the float one spends only its round-off
    assert enc.lo <= arb_enc.hi and arb_enc.lo <= enc.hi
    assert enc.width <= arb_enc.width * (1 + F(1, 10**6)) + F(1, 10**30)
    assert enc.lo >= arb_enc.lo * (1 - F(1, 10**8))


@pytest.mark.parametrize(("k", "eps"), [(4, F(10)), (4, F(60)), (25, F(100))])
def test_tiny_delta_of_the_composed_gaussian_has_relative_accuracy(k: int, eps: F) -> None:
    # q = 1: k steps of N(0, σ²) against N(1, σ²) are one Gaussian mechanism with μ = √k/σ
    sigma = F(1)
    loss = SubsampledGaussianLoss("remove", F(1), sigma)
    n = 1024
    [fc] = compose_directions([loss], k, n, 1e-300, method="fft", eps=eps)
    enc = fc.delta(eps)
    with mpmath.workdps(50):
        mu = mpmath.sqrt(k) / mpmath.mpf(1)
        e = mpmath.mpf(eps.numerator) / eps.denominator
        exact = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        assert mpmath.mpf(enc.lo.numerator) / enc.lo.denominator <= exact
        assert exact <= mpmath.mpf(enc.hi.numerator) / enc.hi.denominator
    assert exact < mpmath.mpf("1e-3")
    assert enc.rel_width() < 1e-3


def test_eps_from_one_float_composition_contains_the_arb_paths() -> None:
    loss = SubsampledGaussianLoss("remove", F(1, 10), F(1))
    k, n, delta = 30, 256, F(1, 10**5)
    st = discretise(loss, n, 1e-20 / k)
    by_arb = eps_enclosure([compose(st, k, 1e-30)], delta, 1e-5)
    [fc] = compose_directions([loss], k, n, 1e-20, method="fft", delta=delta)
    by_fft = eps_enclosure([fc], delta, 1e-5)
    assert by_fft.lo <= by_arb.hi and by_arb.lo <= by_fft.hi
    assert by_fft.width <= by_arb.width * F(11, 10)


def test_an_unknown_method_is_refused() -> None:
    with pytest.raises(ValueError, match="method"):
        compose_directions([LaplaceLoss(F(1), F(1))], 2, 64, 1e-10, method="float")


def test_combine_refuses_a_float_composition() -> None:
    from dpcert.pld import combine

    [fc] = compose_directions([LaplaceLoss(F(1), F(1))], 2, 64, 1e-10, method="fft", eps=F(1))
    with pytest.raises(TypeError, match="arb-path"):
        combine(fc, fc, 1e-20)


# --------------------------------------------------------------------------------------- different steps (§6)


@pytest.mark.parametrize(("lengths", "counts"), [((5, 3), (2, 3)), ((4, 6, 2), (3, 1, 4))])
def test_the_product_of_powers_is_within_its_bound_of_the_exact_convolution(lengths, counts) -> None:
    from dpcert.pld.fftcompose import _cyclic_product

    rng = np.random.default_rng(sum(lengths) * 10 + sum(counts))
    parts = [(_random(rng, m), _random(rng, m) * 0.8, k) for m, k in zip(lengths, counts, strict=True)]
    support = sum(k * (m - 1) for m, k in zip(lengths, counts, strict=True)) + 1
    size = 1 << (support - 1).bit_length()  # the whole support: no aliasing
    y, bound = _cyclic_product(parts, size)
    assert 0 < bound < 1e-12
    for part, which in ((y.real, 0), (y.imag, 1)):
        exact = [F(1)]
        for p in parts:
            power = _exact_power(p[which], p[2])
            nxt = [F(0)] * (len(exact) + len(power) - 1)
            for i, a in enumerate(exact):
                for j, b in enumerate(power):
                    nxt[i + j] += a * b
            exact = nxt
        exact += [F(0)] * size
        worst = max(abs(F(float(part[m])) - exact[m]) for m in range(size))
        assert worst <= F(bound)
        assert worst > F(bound) / 10**6  # the bound is about real round-off, not vacuous


MIXED = [
    (
        "sgm + gaussian + laplace",
        [
            (SubsampledGaussianLoss("remove", F(1, 20), F(1)), 20),
            (SubsampledGaussianLoss("remove", F(1), F(3)), 3),
            (LaplaceLoss(F(3), F(1)), 2),
        ],
        256,
        [F(1, 2), F(1), F(2)],
    ),
    (
        "sgm add + gaussian",
        [(SubsampledGaussianLoss("add", F(1, 10), F(1)), 30), (SubsampledGaussianLoss("remove", F(1), F(2)), 2)],
        256,
        [F(1, 2), F(3, 2)],
    ),
    (
        "gaussian + laplace",
        [(SubsampledGaussianLoss("remove", F(1), F(2)), 4), (LaplaceLoss(F(2), F(1)), 3)],
        128,
        [F(1), F(3)],
    ),  # fmt: skip
]


@pytest.mark.parametrize(("name", "parts", "n", "epss"), MIXED, ids=[c[0] for c in MIXED])
def test_a_mixed_float_composition_overlaps_the_arb_path_and_is_as_narrow(name, parts, n, epss) -> None:
    from dpcert.pld import combine
    from dpcert.pld.fftcompose import compose_fft_mixed, saddle_theta_mixed

    total = sum(k for _, k in parts)
    steps = [(discretise(loss, n, 1e-25 / total), k) for loss, k in parts]
    by_arb = None
    for st, k in steps:
        c = compose(st, k, 1e-30)
        by_arb = c if by_arb is None else combine(by_arb, c, 1e-30)
    for eps in epss:
        fc = compose_fft_mixed(steps, saddle_theta_mixed(steps, eps))
        assert isinstance(fc, FloatComposed) and fc.steps == total
        arb_enc, enc = delta_of(by_arb, eps), fc.delta(eps)
        # two certified enclosures of one number overlap; the float one spends only its round-off beyond the arb one
        assert enc.lo <= arb_enc.hi and arb_enc.lo <= enc.hi
        assert enc.width <= arb_enc.width * (1 + F(1, 10**6)) + F(1, 10**30)
        assert enc.lo >= arb_enc.lo * (1 - F(1, 10**8))


def _gaussian_delta(mu2: F, eps: F) -> mpmath.mpf:
    """δ(ε) of the Gaussian mechanism with μ² = mu2: Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)."""
    mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)


@pytest.mark.parametrize(("eps", "tail"), [(F(1, 2), 1e-30), (F(2), 1e-30), (F(30), 1e-100)])
def test_gaussians_of_different_sigmas_compose_to_the_closed_form(eps: F, tail: float) -> None:
    # q = 1: k_i steps at σ_i are one Gaussian mechanism with μ² = Σ k_i/σ_i²
    from dpcert.pld import compose_directions_mixed

    sigmas = [(F(1), 2), (F(2), 3), (F(3, 2), 1)]
    parts = [([SubsampledGaussianLoss("remove", F(1), s)], k) for s, k in sigmas]
    [fc] = compose_directions_mixed(parts, 512, tail, eps=eps)
    assert isinstance(fc, FloatComposed)
    enc = fc.delta(eps)
    with mpmath.workdps(50):
        exact = _gaussian_delta(sum((k / s**2 for s, k in sigmas), F(0)), eps)
        assert mpmath.mpf(enc.lo.numerator) / enc.lo.denominator <= exact
        assert exact <= mpmath.mpf(enc.hi.numerator) / enc.hi.denominator
        # and not the composition of any one σ alone: 6 steps at σ = 1 (wider) or at σ = 2 (narrower)
        assert _gaussian_delta(F(6, 4), eps) < mpmath.mpf(enc.lo.numerator) / enc.lo.denominator
        assert mpmath.mpf(enc.hi.numerator) / enc.hi.denominator < _gaussian_delta(F(6), eps)
    assert exact > mpmath.mpf(tail) * 10**10  # far above the dropped tails: the width is the grid's
    assert enc.rel_width() < 1e-3


def test_one_part_is_the_identical_composition_exactly() -> None:
    from dpcert.pld import compose_directions_mixed

    pair = [SubsampledGaussianLoss("remove", F(1, 10), F(1)), SubsampledGaussianLoss("add", F(1, 10), F(1))]
    delta = F(1, 10**5)
    one = compose_directions(pair, 30, 256, 1e-20, method="fft", delta=delta)
    mixed = compose_directions_mixed([(pair, 30)], 256, 1e-20, delta=delta)
    assert [c.delta(F(1)) for c in one] == [c.delta(F(1)) for c in mixed]


def test_a_one_direction_part_serves_both_directions_and_the_arb_fallback_overlaps(monkeypatch) -> None:
    import dpcert.pld.fftcompose as fftc
    from dpcert.pld import Composed, compose_directions_mixed

    pair = [SubsampledGaussianLoss("remove", F(1, 10), F(1)), SubsampledGaussianLoss("add", F(1, 10), F(1))]
    parts = [(pair, 10), ([LaplaceLoss(F(2), F(1))], 2)]
    eps = F(1)
    fast = compose_directions_mixed(parts, 128, 1e-20, eps=eps)
    assert len(fast) == 2 and all(isinstance(c, FloatComposed) for c in fast)
    monkeypatch.setattr(fftc, "MAX_WINDOW", 2)  # the float path declines: the arb path composes and combines
    slow = compose_directions_mixed(parts, 128, 1e-20, eps=eps)
    assert all(isinstance(c, Composed) for c in slow)
    for a, b in zip(fast, slow, strict=True):
        ea, eb = a.delta(eps), delta_of(b, eps)
        assert ea.lo <= eb.hi and eb.lo <= ea.hi
    with pytest.raises(ValueError, match="directions"):
        compose_directions_mixed([(pair, 1), ([pair[0]] * 3, 1)], 128, 1e-20)
    with pytest.raises(ValueError, match="steps"):
        compose_directions_mixed([(pair, 0)], 128, 1e-20)
