"""Optimal composition of k ε-DP mechanisms, δ(ε_g) and ε_g(δ) (KOV Thm 3.3 / MV Thm 1.4).

Each test checks a value from an independent source: float code, mpmath with the naive formula, KOV's own
parametrisation, closed forms, or independently computed numbers.
"""

import doctest
import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from harness import assert_float_in_ball, inputs_strategy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcert.arith.ball import Enclosure
from dpcert.arith.context import BallContext
from dpcert.composition import QUANTITIES, kov
from dpcert.composition.kov import (
    KOV_MAX_EPS,
    KOV_MAX_K,
    kov_delta,
    kov_delta_ball,
    kov_delta_float,
    kov_eps,
    kov_eps_float,
)
from dpcert.core.claim import Rounds
from dpcert.errors import InvalidParameter, PrecisionExhausted

KOV_DELTA = QUANTITIES["composition.kov.delta"]
KOV_EPS = QUANTITIES["composition.kov.eps"]

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------------------- independent references


def _mpf(x):
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def _frac(v):
    man, exp = v.man_exp
    return Fraction(man) * Fraction(2) ** exp


def mp_naive_delta(k, eps, eps_g):
    """MV Thm 1.4 exactly as printed: (1+e^ε)^-k Σ C(k,i) max{e^{iε} − e^{ε_g} e^{(k−i)ε}, 0}, 60 digits."""
    with mp.workdps(60):
        x, eg = mp.exp(_mpf(eps)), mp.exp(_mpf(eps_g))
        s = mp.fsum(math.comb(k, i) * max(x**i - eg * x ** (k - i), 0) for i in range(k + 1))
        return s / (1 + x) ** k


def mp_kov_parametrisation(k, i, eps):
    """KOV Thm 3.3: δ at ε_g = (k−2i)ε is Σ_{l<i} C(k,l)(e^{(k−l)ε} − e^{(k−2i+l)ε}) / (1+e^ε)^k."""
    with mp.workdps(60):
        x = mp.exp(_mpf(eps))
        s = mp.fsum(math.comb(k, ell) * (x ** (k - ell) - x ** (k - 2 * i + ell)) for ell in range(i))
        return s / (1 + x) ** k


def assert_in(enc: Enclosure, v, rel=Fraction(1, 10**45)):
    """The 60-digit value v lies in the enclosure, up to mpmath's own rounding.

    The absolute 1e-58 covers the naive formula at an exact tie e^{iε} = e^{ε_g + (k−i)ε}, where 60-digit
    rounding leaves ~1e-60 of a normalised term (≤ 1) instead of 0.
    """
    fv = _frac(v)
    slack = rel * abs(fv) + Fraction(1, 10**58)
    assert enc.lo - slack <= fv <= enc.hi + slack, (enc.decimal(25), mp.nstr(v, 30))


# ------------------------------------------------------------------------------- (i) float inside the ball


@SETTINGS
@given(inputs_strategy(KOV_DELTA))
def test_kov_delta_float_in_ball(inputs):
    assert_float_in_ball(KOV_DELTA, inputs)


@SETTINGS
@given(st.integers(1, 300), st.integers(1, 30000), st.integers(0, 10**4))
def test_kov_delta_float_in_ball_across_the_whole_curve(k, eps_num, frac):
    # ε_g spread over [0, kε], where δ runs from δ(0) down to 0 (the default limits stop ε_g at 10)
    eps = Fraction(eps_num, 10**4)
    assert_float_in_ball(KOV_DELTA, {"k": k, "eps": eps, "eps_g": k * eps * Fraction(frac, 10**4)})


@SETTINGS
@given(inputs_strategy(KOV_EPS, {"delta": ("1/10000", "1/10")}))
def test_kov_eps_float_in_ball(inputs):
    assert_float_in_ball(KOV_EPS, inputs)


def test_float_rtol_holds_up_to_k_10000():
    # the measured worst case behind float_rtol = 1e-12 (4e-13 over 3000 random inputs up to k = 10^4)
    cases = [
        (10000, "1.262", "10257.1581"),
        (3000, "0.82", "1816.5619"),
        (10000, "0.1", "60"),
        (10000, "0.01", "3"),
        (1000, "0.0478", "39.5389"),
        (5000, "2", "100"),
        # δ below 1e-280, where the masses underflow and the scaled fallback takes over
        (2200, "1", "2190"),
        (1000, "1", 1000 - Fraction(1, 10**154)),
        # e^ε/(1 + e^ε) rounds to 1.0 from ε ≈ 37 on; 1/(1 + e^ε) underflows past ε ≈ 745
        (3, "50", "100"),
        (20, "40", "700"),
        (5, "800", "3999"),
    ]
    for k, e, g in cases:
        assert_float_in_ball(KOV_DELTA, {"k": k, "eps": e, "eps_g": g})


# ------------------------------------------------------------------------------- (ii) independent derivations


@pytest.mark.parametrize(
    "k, eps, eps_g",
    [
        (1, "1", "0"),
        (1, "1", "1/2"),
        (2, "0.5", "0.25"),
        (10, "0.1", "0.5"),
        (10, "0.1", "0.99937"),
        (100, "0.1", "4.77457"),
        (100, "3", "250"),
        (1000, "0.1", "19.34467"),
        (1000, "0.01", "1.36545"),
        (1000, "0.5", "0"),
        (57, "0.0001", "0.001"),
    ],
)
def test_kov_delta_against_mpmath_naive_formula(k, eps, eps_g):
    assert_in(kov_delta(k, eps, eps_g, rel_tol=1e-40), mp_naive_delta(k, Fraction(eps), Fraction(eps_g)))


@SETTINGS
@given(st.integers(1, 120), st.integers(1, 20000), st.integers(0, 10**4))
def test_kov_delta_against_mpmath_naive_formula_random(k, eps_num, frac):
    eps = Fraction(eps_num, 10**4)
    eps_g = k * eps * Fraction(frac, 10**4)
    assert_in(kov_delta(k, eps, eps_g, rel_tol=1e-40), mp_naive_delta(k, eps, eps_g))


@pytest.mark.parametrize(
    "k, i, eps",
    [
        (1, 0, "1"),
        (2, 1, "1"),
        (10, 3, "0.1"),
        (10, 5, "0.1"),
        (37, 11, "0.7"),
        (200, 80, "0.05"),
        (1000, 480, "0.01"),
    ],
)
def test_kov_delta_at_lattice_points_equals_kov_parametrisation(k, i, eps):
    e = Fraction(eps)
    g = (k - 2 * i) * e  # KOV's i runs over 0..k/2, so g >= 0
    assert_in(kov_delta(k, e, g, rel_tol=1e-40), mp_kov_parametrisation(k, i, e))


@pytest.mark.parametrize("k, eps", [(1, "0.1"), (7, "2"), (1000, "0.01"), (10000, "0.1")])
def test_delta_is_exactly_zero_from_k_eps_on(k, eps):
    e = Fraction(eps)
    assert kov_delta(k, e, k * e) == Enclosure.exact(0)
    assert kov_delta(k, e, k * e + Fraction(1, 10**30)) == Enclosure.exact(0)
    assert kov_delta_float(k, e, k * e) == 0.0
    # just below kε only the i = k term is left: δ = (e^ε/(1+e^ε))^k (1 − e^{ε_g − kε}) > 0
    below = kov_delta(k, e, k * e - Fraction(1, 10**6))
    assert below.lo > 0
    if k <= 1000:
        assert_in(below, mp_naive_delta(k, e, k * e - Fraction(1, 10**6)), rel=Fraction(1, 10**14))


@pytest.mark.parametrize("eps", ["0.001", "0.1", "1", "7.5"])
def test_delta_at_zero_for_one_mechanism_is_tanh(eps):
    with mp.workdps(60):
        x = mp.exp(_mpf(eps))
        assert_in(kov_delta(1, eps, 0, rel_tol=1e-40), (x - 1) / (x + 1))


def test_eps_zero_reveals_nothing():
    assert kov_delta(5, 0, 0) == Enclosure.exact(0)
    assert kov_delta_float(5, 0.0, 0.0) == 0.0
    assert kov_eps(5, 0, "1e-6") == Enclosure.exact(0)


@SETTINGS
@given(st.integers(1, 200), st.integers(1, 30000), st.integers(0, 10**4), st.integers(0, 10**4))
def test_delta_nonincreasing_in_eps_g(k, eps_num, f1, f2):
    eps = Fraction(eps_num, 10**4)
    g1, g2 = sorted((k * eps * Fraction(f1, 10**4), k * eps * Fraction(f2, 10**4)))
    d1, d2 = kov_delta(k, eps, g1), kov_delta(k, eps, g2)
    assert not d1.hi < d2.lo
    with mp.workdps(60):
        m1, m2 = mp_naive_delta(k, eps, g1), mp_naive_delta(k, eps, g2)
        if m1 - m2 > mp.mpf("1e-10") * m1:
            # a decrease visible at 60 digits must be certified by the enclosures
            assert d1.lo > d2.hi


@SETTINGS
@given(st.integers(1, 200), st.integers(1, 30000), st.integers(0, 50000))
def test_delta_nondecreasing_in_k(k, eps_num, g_num):
    # one more mechanism can always be ignored, so the optimal δ cannot drop
    eps, eps_g = Fraction(eps_num, 10**4), Fraction(g_num, 10**4)
    assert not kov_delta(k + 1, eps, eps_g).hi < kov_delta(k, eps, eps_g).lo


@SETTINGS
@given(st.integers(1, 300), st.integers(1, 20000), st.integers(2, 14))
def test_kov_eps_bracket_checked_with_mpmath(k, eps_num, m):
    eps, delta = Fraction(eps_num, 10**4), Fraction(1, 10**m)
    enc = kov_eps(k, eps, delta)
    assert enc.lo is not None and enc.hi is not None
    assert enc.width <= Fraction(1, 10**12) * max(1, enc.hi)
    with mp.workdps(60):
        assert mp_naive_delta(k, eps, enc.hi) <= _mpf(delta)
        if enc.lo > 0:
            assert mp_naive_delta(k, eps, enc.lo) > _mpf(delta)
        else:
            assert mp_naive_delta(k, eps, 0) <= _mpf(delta) or enc.hi <= Fraction(1, 10**12)


def test_kov_eps_edge_cases():
    assert kov_eps(7, "0.3", 0) == Enclosure.exact(Fraction(21, 10))
    # δ(0) at k = 1 is tanh(ε/2) = 0.46211715726000974…: at or above it the answer is exactly 0
    assert kov_eps(1, 1, "0.4621171572600098") == Enclosure.exact(0)
    assert kov_eps(1, 1, "0.9") == Enclosure.exact(0)
    just_below = kov_eps(1, 1, "0.4621171572600097")
    assert just_below.lo == 0 and 0 < just_below.hi <= Fraction(1, 10**12)
    # far tail: δ = q^k (1 − e^{ε_g − kε}) near kε; the answer is kε − 6e-273, so hi = kε is the best
    # safe value with a short bracket
    tail = kov_eps(100, "0.1", "1e-300")
    assert tail.hi == 10 and 10 - tail.lo <= Fraction(1, 10**11)
    with mp.workdps(400):
        assert mp_naive_delta(100, Fraction(1, 10), tail.lo) > mp.mpf("1e-300")


def test_kov_eps_float_matches_certified():
    for k, e, d in [(100, "0.1", "1e-6"), (1000, "0.01", "1e-9"), (10, "5", "1e-9"), (300, "3", "0.9")]:
        enc = kov_eps(k, e, d)
        f = kov_eps_float(k, e, float(Fraction(d)))
        assert abs(Fraction(f) - enc.hi) <= Fraction(1, 10**12) * enc.hi


def test_kov_eps_ball_narrows_with_precision():
    inputs = KOV_EPS.parse({"k": 1000, "eps": "0.1", "delta": "1e-6"})
    encs = [Enclosure.from_ball(KOV_EPS.ball_at(prec, inputs)) for prec in (64, 128, 256, 512)]
    for enc, prec in zip(encs, (64, 128, 256, 512), strict=True):
        assert enc.rel_width() < 2.0 ** -(prec // 2 - 2)
    assert all(a.overlaps(b) for a, b in itertools.pairwise(encs))
    # the narrowest one, ~1e-77 wide, checked at 120 digits with the naive formula
    with mp.workdps(120):
        x, eg_lo, eg_hi = mp.exp(mp.mpf(1) / 10), mp.exp(_mpf(encs[-1].lo)), mp.exp(_mpf(encs[-1].hi))

        def naive(eg):
            return (
                mp.fsum(math.comb(1000, i) * max(x**i - eg * x ** (1000 - i), 0) for i in range(1001)) / (1 + x) ** 1000
            )

        assert naive(eg_hi) <= mp.mpf("1e-6") < naive(eg_lo)


def test_ball_is_narrow_at_k_10000():
    with BallContext(128) as ctx:
        b = kov_delta_ball(ctx, 10000, Fraction(1, 10), Fraction(60))
    assert Enclosure.from_ball(b).rel_width() < 2**-120


# ------------------------------------------------------------------------------- (iii) printed numbers

NOTES = [
    ("0.1", 10, "0.99937"),
    ("0.1", 100, "4.77457"),
    ("0.1", 1000, "19.34467"),
    ("1", 50, "47.64940"),
    ("1", 100, "83.53070"),
    ("0.01", 1000, "1.36545"),
]


@pytest.mark.parametrize("eps, k, printed", NOTES)
def test_notes_dp_optcomp_column(eps, k, printed):
    enc = kov_eps(k, eps, "1e-6")
    assert Rounds(printed).decide(enc) is True
    # independently: the naive formula at the ends of the rounding interval sits on the right sides of 1e-6
    lo, hi = Rounds(printed).interval
    assert mp_naive_delta(k, Fraction(eps), lo) > mp.mpf("1e-6") > mp_naive_delta(k, Fraction(eps), hi)


# ------------------------------------------------------------------------------- bad input


BAD_INPUTS = [
    (kov_delta, (3, "-0.1", 1)),
    (kov_delta, (0, "0.1", 1)),
    (kov_delta, (2.0, "0.1", 1)),
    (kov_delta, (3, "0.1", "-1")),
    (kov_delta, (True, "0.1", 1)),
    (kov_delta_float, (3, -0.1, 1.0)),
    (kov_delta_float, (0, 0.1, 1.0)),
    (kov_delta_float, (2.0, 0.1, 1.0)),
    (kov_delta_float, (3, 0.1, -1.0)),
    (kov_delta_float, (3, float("nan"), 1.0)),
    (kov_eps, (3, "-0.1", "1e-6")),
    (kov_eps, (0, "0.1", "1e-6")),
    (kov_eps, (2.0, "0.1", "1e-6")),
    (kov_eps, (3, "0.1", 1)),
    (kov_eps, (3, "0.1", "-0.1")),
    (kov_eps, (3, "0.1", "1e-6", 0)),
    (kov_eps_float, (3, 0.1, 1.0)),
    (kov_eps_float, (3, 0.1, -0.1)),
    (kov_eps_float, (0, 0.1, 0.5)),
]


@pytest.mark.parametrize("func, args", BAD_INPUTS, ids=[f"{f.__name__}{a!r}"[:60] for f, a in BAD_INPUTS])
def test_bad_input_raises(func, args):
    if func is kov_eps and len(args) == 4:
        args, kwargs = args[:3], {"rel_tol": args[3]}
    else:
        kwargs = {}
    with pytest.raises(InvalidParameter):
        func(*args, **kwargs)


def test_docstring_examples():
    failures, tried = doctest.testmod(kov, optionflags=doctest.ELLIPSIS)
    assert tried >= 3 and failures == 0


def test_float_exact_inputs_are_their_binary_values():
    # 0.1 as a float is 0.1000000000000000055…, so kε for k = 10 is just above 1 and δ(1) > 0 there
    assert kov_delta(10, 0.1, 1).lo > 0
    assert kov_delta(10, "0.1", 1) == Enclosure.exact(0)
    assert math.isclose(kov_delta_float(10, 0.1, 1.0), float(kov_delta(10, 0.1, 1).hi), rel_tol=1e-6)


# ------------------------------------------------------------------------------- huge inputs, max_prec, truncation


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: kov_delta(99999999999999999999, "0.1", 1), "k"),
        (lambda: kov_delta_float(99999999999999999999, "0.1", 1), "k"),
        (lambda: kov_eps(99999999999999999999, "0.1", "1e-6"), "k"),
        (lambda: kov_eps_float(99999999999999999999, "0.1", "1e-6"), "k"),
        (lambda: KOV_DELTA.enclose(k=KOV_MAX_K + 1, eps="0.1", eps_g=1), "k"),
        (lambda: kov_delta(10, "1e400", 1), "eps"),
        (lambda: kov_delta_float(10, "1e400", 1), "eps"),
        (lambda: kov_eps(10, "1e400", "1e-6"), "eps"),
        (lambda: KOV_EPS.evaluate_float(k=10, eps="1e400", delta="1e-6"), "eps"),
        (lambda: kov_eps(10, "0.1", "1e-6", max_prec=0), "max_prec"),
    ],
)
def test_huge_inputs_are_refused_at_once_naming_the_parameter(call, name):
    # these raised OverflowError (or ran out of time) before the caps
    with pytest.raises(InvalidParameter) as err:
        call()
    assert err.value.name == name


def test_inputs_at_the_caps_work():
    # ε at its cap: q = 1 − 1/(1 + e^10000), so δ(ε_g) = q^3 (1 − e^{ε_g − 3ε}) + ... ≈ 1 − e^{ε_g − 3ε}
    enc = kov_delta(3, KOV_MAX_EPS, 3 * KOV_MAX_EPS - 1)
    with mp.workdps(60):
        assert_in(enc, mp_naive_delta(3, Fraction(KOV_MAX_EPS), Fraction(3 * KOV_MAX_EPS - 1)), rel=Fraction(1, 10**14))
    # ε_g huge: exactly 0 without any work
    assert kov_delta(KOV_MAX_K, "0.1", "1e400") == Enclosure.exact(0)
    assert kov_delta_float(KOV_MAX_K, "0.1", "1e400") == 0.0
    # k at its cap, ε tiny: the sum has ~10^5 terms of the 5·10^7 that qualify
    enc = kov_delta(KOV_MAX_K, "1e-9", 0)
    assert enc.rel_width() < 1e-14
    assert math.isclose(float(enc.mid()), kov_delta_float(KOV_MAX_K, "1e-9", 0), rel_tol=1e-9)


def full_float_sum(k, eps, eps_g):
    """δ(ε_g) by summing every qualifying term with scipy's binomial pmf (the pre-truncation float algorithm)."""
    from scipy import stats

    e, g = Fraction(eps), Fraction(eps_g)
    i0 = math.floor((k + g / e) / 2) + 1
    i = np.arange(i0, k + 1)
    fac = -np.expm1(float(g - (2 * i0 - k) * e) - 2.0 * float(e) * (i - i0))
    return float(np.dot(stats.binom.pmf(k - i, k, 1 / (1 + math.exp(float(e)))), fac))


@pytest.mark.parametrize(
    "k, eps, eps_g",
    [
        (10**5, "0.01", "3"),  # from the peak forward (i0 past the mode)
        (10**5, "0.01", "0"),  # i0 below the mode: forward and backward from the peak
        (10**5, "1", "30000"),  # mode far above i0: the head bound cuts ~10^4 increasing terms
        (10**6, "5", "0"),  # q ≈ 0.9933: the mode is near k, i0 near k/2
        (10**6, "0.001", "0.5"),
        (3 * 10**5, "0.3", "9000"),
    ],
)
def test_truncated_sums_agree_with_summing_every_term(k, eps, eps_g):
    full = full_float_sum(k, eps, eps_g)
    enc = kov_delta(k, eps, eps_g)
    assert math.isclose(float(enc.mid()), full, rel_tol=1e-10)
    assert math.isclose(kov_delta_float(k, eps, eps_g), full, rel_tol=1e-10)


def test_kov_eps_honours_max_prec(monkeypatch):
    seen = []
    original = kov._kov_sum

    def recording(k, e, g, prec, **kw):
        seen.append(prec)
        return original(k, e, g, prec, **kw)

    monkeypatch.setattr(kov, "_kov_sum", recording)
    # a bracket 1e-40 wide needs probes that 80 bits cannot tell apart
    with pytest.raises(PrecisionExhausted):
        kov_eps(100, "0.1", "1e-6", rel_tol=Fraction(1, 10**40), max_prec=80)
    assert seen and max(seen) <= 80
    seen.clear()
    with pytest.raises(PrecisionExhausted):
        KOV_EPS.enclose(k=100, eps="0.1", delta="1e-6", rel_tol=1e-60, max_prec=128)
    assert seen and max(seen) <= 128
    seen.clear()
    enc = kov_eps(100, "0.1", "1e-6", rel_tol=Fraction(1, 10**40))
    assert enc.width <= Fraction(1, 10**40) * enc.hi and max(seen) <= 256
