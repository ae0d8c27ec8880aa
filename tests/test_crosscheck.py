"""The cross-check harness applied to every registered quantity with both a ball and a float evaluator."""

import pytest
from harness import assert_float_in_ball, inputs_strategy
from hypothesis import HealthCheck, given, settings

from dpcert.engine import registry

#: Practical input ranges per quantity, where the domain is wider than what the float path is meant for.
LIMITS = {
    # lambda well above lambda_min (<= 47 here): near lambda_min sigma^2 = lam/(a - c/(lam-1)) is ill-conditioned
    "darrm.gnmax.sigma": {"alpha": (100, 200), "eps_target": ("1/5", 1), "delta": ("1/10000", "1/1000")},
    "darrm.gnmax.lambda_argmin": {"eps_target": ("1/5", 1), "delta": ("1/10000", "1/100")},
    "darrm.gnmax.sigma_min": {"eps_target": ("1/5", 1), "delta": ("1/10000", "1/100")},
    "darrm.gnmax.grid_sigma": {"eps_target": ("1/5", 1), "delta": ("1/10000", "1/1000"), "j": (1, 900)},
    "darrm.gnmax.grid_lambda": {"eps_target": ("1/10", 2), "delta": ("1/10000", "1/2"), "j": (1, 1000)},
    "darrm.gnmax.lambda_min": {"eps_target": ("1/10", 2), "delta": ("1/10000", "1/2")},
    # a non-integer order is integrated by certified quadrature only up to (alpha^2 - alpha)/(2 sigma^2) <= a cap
    # (refused beyond it, before any work): the range the generic default "alpha" had before the vocabulary named it
    "sgm.rdp": {"alpha": ("11/10", 10)},
    # QM is defined only for bin lengths I meeting the validity rule (which depends on tau); I = 1 always does
    "sml.qm.distortion": {"I": (1, 1)},
    "sml.qm.sml": {"I": (1, 1)},
    "sml.qm.sml_bits": {"I": (1, 1)},
    # the generic strategies draw each parameter alone: keep m <= K, m an integer (sub/dsub/max need one) and
    # Delta <= delta; K <= 9 keeps the corner-multiset enumeration small
    "darrm.privacy.margin": {
        "K": (3, 9),
        "m": (1, 1),
        "eps": ("1/100", 2),
        "Delta": (0, "1/100000"),
        "delta": ("1/10000", "1/1000"),
    },
    "darrm.error": {"gamma": ("sub", "dsub", "max", "one"), "K": (3, 9), "m": (1, 1)},
    # orders=real is the bound at the real order found (a grid of 2^-10 and a float minimiser for the twin agree
    # to about 1e-9, not 1e-12): tested in tests/gaussian/test_gaussian_dpsgd_rdp_real.py
    "dpsgd.rdp.eps": {"orders": ("integer",)},
}

#: List parameters that must be as long as another list (or of length 1): quantity -> (list, paired list).
PAIRED_LISTS = {
    "gaussian.composed.delta": ("sigmas", "sensitivities"),
    "gaussian.composed.eps": ("sigmas", "sensitivities"),
}


def _strategy(name, q):
    strategy = inputs_strategy(q, LIMITS.get(name))
    if name in PAIRED_LISTS:
        main, paired = PAIRED_LISTS[name]
        strategy = strategy.filter(lambda d: len(d[paired]) in (1, len(d[main])))
    return strategy


#: Every quantity with a float evaluator (choice parameters are drawn from their names, never file paths).
FLOAT_QUANTITIES = sorted(n for n, q in registry.quantities().items() if q.float is not None)


#: Exact-only quantities: their value is a rational computed exactly, so a float of it would compare the code with
#: itself; they are exempt from the float cross-check, openly, and tested against independent exact values instead.
EXACT_ONLY = sorted(n for n, q in registry.quantities().items() if q.exact and q.float is None)


#: Bracket quantities: certified two-sided brackets narrowed by effort (a lattice), tested in their package's tests.
BRACKETS = sorted(n for n, q in registry.quantities().items() if q.bracket)


def test_every_quantity_has_an_independent_float_evaluator_or_is_exact_only():
    ball_only = sorted(n for n, q in registry.quantities().items() if q.float is None and not q.exact and not q.bracket)
    assert ball_only == []
    assert BRACKETS == [
        "accounting.delta",
        "accounting.eps",
        "br.adaptive.delta",
        "dpsgd.delta",
        "dpsgd.eps",
        "dpsgd.sigma",
        "laplace.delta",
        "laplace.eps",
    ]


@pytest.mark.parametrize("name", EXACT_ONLY)
def test_exact_only_quantities_are_exact(name):
    q = registry.quantities()[name]

    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
    @given(inputs_strategy(q, LIMITS.get(name)))
    def run(inputs):
        assert q.enclose(inputs).is_exact

    run()


@pytest.mark.parametrize("name", FLOAT_QUANTITIES)
def test_float_lies_in_ball(name):
    q = registry.quantities()[name]

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
    )
    @given(_strategy(name, q))
    def run(inputs):
        assert_float_in_ball(q, inputs)

    run()
