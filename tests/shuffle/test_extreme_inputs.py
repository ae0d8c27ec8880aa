"""Valid extreme inputs of the shuffle quantities (issue 18 §3): large ε0, tiny δ, tiny ε0.

Each case failed before (OverflowError, math domain error, or a ball with no correct digit) and is checked here
against an independent computation (mpmath sums over the binomial law, closed forms, KOV15 by hand).
"""

from fractions import Fraction

import mpmath
import pytest

from dpcert.arith.exact import parse_rational
from dpcert.core.quantity import Quantity
from dpcert.engine import registry
from dpcert.shuffle import pair


def _q(name: str) -> Quantity:
    return registry.quantity(name)


def _pair_mp(n: int, eps0: str, a, dps: int = 40):
    """log E_{k~Bin(n,p)}[r_k^a] by a direct mpmath sum over k (independent of the window and tail bounds)."""
    with mpmath.workdps(dps):
        e = mpmath.mpf(eps0)
        p = 1 / (mpmath.exp(e) + 1)
        total = mpmath.fsum(
            mpmath.binomial(n, k)
            * p**k
            * (1 - p) ** (n - k)
            * ((k * mpmath.exp(e) + (n - k) * mpmath.exp(-e)) / n) ** a
            for k in range(n + 1)
        )
        return mpmath.log(total)


def _contains(enc, x, rel=1e-12) -> bool:
    lo, hi = float(enc.lo), float(enc.hi)
    return lo <= float(x) * (1 + rel) and hi >= float(x) * (1 - rel) and hi - lo <= rel * abs(float(x))


@pytest.mark.parametrize("n,eps0,lam", [(1000, "1000", 2), (1000, "355", 7), (50, "710", "1.5")])
def test_pair_ball_and_float_at_large_eps0(n, eps0, lam):
    """eps0 >= 355 raised OverflowError in the ball path (float planning), eps0 > 710 in the float path."""
    enc = _q("shuffle.rdp.pair").enclose(n=n, eps0=eps0, lam=str(lam), rel_tol=1e-14)
    lam_mp = mpmath.mpf(Fraction(str(lam)).numerator) / Fraction(str(lam)).denominator
    fwd = _pair_mp(n, eps0, lam_mp) / (lam_mp - 1)
    rev = _pair_mp(n, eps0, 1 - lam_mp) / (lam_mp - 1)
    want = max(fwd, rev)
    assert _contains(enc, want)
    got = _q("shuffle.rdp.pair").evaluate_float(n=n, eps0=eps0, lam=str(lam))
    assert got == pytest.approx(float(want), rel=1e-10)


def test_thm3_float_twin_at_eps0_1000():
    """shuffle.rdp.thm3 n=1000000 eps0=1000 lam=256 crashed in the float twin (math.sinh overflow); n = 1000 is the
    same code path, and the float (a direct sum over k) is compared with the ball (the moment recurrence)."""
    q = _q("shuffle.rdp.thm3")
    enc = q.enclose(n=1000, eps0="1000", lam=256, rel_tol=1e-14)
    want = _pair_mp(1000, "1000", 256) / 255
    assert _contains(enc, want)
    assert q.evaluate_float(n=1000, eps0="1000", lam=256) == pytest.approx(float(want), rel=1e-12)


@pytest.mark.parametrize(
    "n,eps0,a",
    [(10, 301.0, -1e-4), (10, 40.0, -99.0), (200, 20.0, 1.0001), (3, 1000.0, -5e4), (3, 500.0, 1e5), (7, 3.0, -6.0)],
)
def test_pair_log_excess_float_against_mpmath(n, eps0, a):
    """log(S_n(a) − 1) in float64 where r_k rounds to 0 (log1p(−1)) or r_k − 1 overflows."""
    with mpmath.workdps(40):
        e = mpmath.mpf(eps0)
        p = 1 / (mpmath.exp(e) + 1)
        want = mpmath.log(
            mpmath.fsum(
                mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k) * (r**a - 1 - a * (r - 1))
                for k in range(n + 1)
                for r in [(k * mpmath.exp(e) + (n - k) * mpmath.exp(-e)) / n]
            )
        )
    got = pair.pair_log_excess_float(n, eps0, a)
    assert got == pytest.approx(float(want), rel=1e-11, abs=1e-11)


def test_fmt20_kov_at_delta_1e_300():
    """shuffle.fmt20_kov.eps n=100 eps0=1 T=2 delta=1e-300 raised a math domain error. Here the closed form is out
    of its regime (16 e log(4/δ) > n), so each round is ε0 = 1-DP and KOV15 for k = 2 gives, for ε_g < 2, δ(ε_g) =
    (e² − e^{ε_g})/(1+e)² (the l = 0 term; the l = 1 term vanishes at ε_g >= 0): ε_g = log(e² − δ_g(1+e)²)."""
    enc = _q("shuffle.fmt20_kov.eps").enclose(n=100, eps0="1", T=2, delta="1e-300", rel_tol=1e-14)
    want = mpmath.log(mpmath.e**2 - mpmath.mpf("1e-300") * (1 + mpmath.e) ** 2)  # = 2 − 1.9e-300, δ_g <= δ
    assert float(enc.lo) <= float(want) <= float(enc.hi) and float(enc.hi) - float(enc.lo) <= 1e-14
    assert _q("shuffle.fmt20_kov.eps").evaluate_float(n=100, eps0="1", T=2, delta="1e-300") == pytest.approx(2.0)


def test_fmt20_closed_form_float_at_delta_1e_3999():
    """float(1e-3999) is 0.0: the float closed form divided by zero. Compared with the formula in mpmath."""
    with mpmath.workdps(30):
        e0, n = mpmath.mpf(1), 10**6
        big_l = mpmath.log(4) + 3999 * mpmath.log(10)
        a = 8 * mpmath.sqrt(mpmath.exp(e0) * big_l / n)
        c = 8 * mpmath.exp(e0) / n
        e = mpmath.log1p(a + c)
        want = mpmath.log1p(-mpmath.expm1(-e0) / (1 + mpmath.exp(-e0 - e)) * (a + c))
    q = _q("shuffle.fmt20.eps")
    assert q.evaluate_float(n=n, eps0="1", delta="1e-3999") == pytest.approx(float(want), rel=1e-13)
    assert _contains(q.enclose(n=n, eps0="1", delta="1e-3999", rel_tol=1e-14), want)


def test_fmt20_kov_delta_below_kov_range_is_refused_at_parse():
    """δ < 10^-3000 cannot be handed to KOV15's certified composition (4000-digit inputs): refused at parse."""
    from dpcert.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="delta"):
        _q("shuffle.fmt20_kov.eps").parse({"n": 100, "eps0": "1", "T": 2, "delta": "1e-3999"})


def test_dp_eps_objective_at_delta_1e_3999():
    """The float objective of shuffle.dp.eps took log(float(δ)) = log(0): now log δ from the exact rational."""
    import numpy as np

    from dpcert.shuffle import bounds, conversion
    from dpcert.shuffle._floats import log_pos

    lam = np.array([2.0, 64.0, 4096.0])
    got = conversion._objective_eps(1000, 1.0, 3, log_pos("1e-3999"), lam, "thm2")
    conv = (3999 * np.log(10) + (lam - 1) * np.log1p(-1 / lam) - np.log(lam)) / (lam - 1)
    want = 3 * bounds.thm2_float(1000, 1.0, lam) + conv
    assert np.all(np.isfinite(got)) and np.allclose(got, want, rtol=1e-13)


@pytest.mark.slow
def test_dp_eps_at_delta_1e_3999():
    """shuffle.dp.eps with δ = 1e-3999 raised a math domain error (log of float(δ) = 0). The certified ε(δ) at the
    chosen λ uses min(Thm 1, Thm 2, RR_1) <= RR_1, so it is at most Lemma 1 with RR_1 at that λ (mpmath)."""
    from dpcert.shuffle import conversion

    q = _q("shuffle.dp.eps")
    enc = q.enclose(n=1000, eps0="1", T=1, delta="1e-3999", rel_tol=1e-12)
    lam = conversion.best_lambda(1000, Fraction(1), 1, parse_rational("1e-3999").value, "eps")
    with mpmath.workdps(40):
        lm = mpmath.mpf(lam.numerator) / lam.denominator
        e = mpmath.mpf(1)
        rr1 = mpmath.log((mpmath.exp(e * lm) + mpmath.exp(-e * (lm - 1))) / (mpmath.exp(e) + 1)) / (lm - 1)
        log_d = -3999 * mpmath.log(10)
        bound = rr1 + (-log_d + (lm - 1) * mpmath.log1p(-1 / lm) - mpmath.log(lm)) / (lm - 1)
    assert 0 < float(enc.lo) and float(enc.hi) <= float(bound) * (1 + 1e-15)
    # a smaller δ needs a larger ε
    assert enc.lo > q.enclose(n=1000, eps0="1", T=1, delta="1e-300", rel_tol=1e-12).hi
    assert q.evaluate_float(n=1000, eps0="1", T=1, delta="1e-3999") == pytest.approx(float(enc.lo), rel=1e-9)


def test_dp_delta_float_saturates_at_one():
    """The float δ(ε) overflowed (math.exp of a large log δ) where the certified δ is clamped to 1."""
    q = _q("shuffle.dp.delta")
    from dpcert.shuffle import conversion

    # the float twin at the λ the search chose (the search itself is the slow part and is not under test here)
    conversion.best_lambda.cache_clear()
    lam = Fraction(64)
    log_delta = conversion._objective_log_delta(10, 5.0, 1000, 1.0, __import__("numpy").array([64.0]))[0]
    assert log_delta > 710  # exp overflows float64: the δ of Lemma 1 is far above 1 there
    orig = conversion.best_lambda
    try:
        conversion.best_lambda = lambda *a, **k: lam  # type: ignore[assignment]
        assert q.evaluate_float(n=10, eps0="5", T=1000, eps="1") == 1.0
        assert q.enclose(n=10, eps0="5", T=1000, eps="1").lo == 1
    finally:
        conversion.best_lambda = orig  # type: ignore[assignment]


def test_poisson_float_at_large_eps0():
    """The float Zhu–Wang bound overflowed to inf (log1p(exp(x))) where the value is about 406."""
    q = _q("shuffle.rdp.poisson")
    enc = q.enclose(n=1, eps0="355", lam=7, gamma="0.001", rel_tol=1e-14)
    assert q.evaluate_float(n=1, eps0="355", lam=7, gamma="0.001") == pytest.approx(float(enc.lo), rel=1e-12)


def _relative(rel: float):
    """A decider asking for a positive lower end and a relative width of at most ``rel`` (no absolute floor)."""

    def decide(enc):
        if enc.lo is not None and enc.hi is not None and enc.lo > 0 and enc.hi - enc.lo <= Fraction(rel) * enc.lo:
            return True
        return None

    return decide


@pytest.mark.parametrize(
    "name,extra,want",
    [
        # RR_1(2) = log1p(expm1(2ε)(−expm1(−ε))/(e^ε+1)) = ε² (1 + O(ε)): Theorems 1-2 are ~5.9e-55 here (their
        # Chernoff term), so the minimum is RR_1
        ("shuffle.rdp.upper", {}, Fraction(1, 10**7998)),
        # U_red at λ = 2 in closed form (docs/derivations/shuffle.md#u_red): log[1 + (e^ε−1)²(1 − (1−e^{−ε})^n)/n] =
        # ε²/n (1 + O(ε))
        ("shuffle.rdp.reduction", {}, Fraction(1, 1000 * 10**7998)),
        ("shuffle.rdp.upper", {"bound": "reduction"}, Fraction(1, 1000 * 10**7998)),
    ],
)
def test_tiny_eps0_keeps_relative_accuracy(name, extra, want):
    """eval shuffle.rdp.upper n=1000 eps0=1e-3999 lam=2 printed [-2.0e-3999, 2.0e-3999]: no correct digit, and a
    negative RDP. The ball must narrow relatively (10 digits, lo > 0), decided without any absolute floor."""
    q = _q(name)
    parsed = q.parse({"n": 1000, "eps0": "1e-3999", "lam": 2, **extra})
    _, enc, _ = q.decide(parsed, _relative(1e-10), max_prec=1024)
    assert enc.lo > 0
    assert abs(enc.lo - want) <= Fraction(1, 10**10) * want and abs(enc.hi - want) <= Fraction(1, 10**10) * want


def test_reduction_above_direct_limit_with_few_clones_finishes():
    """shuffle.rdp.reduction n=10001 eps0=7 lam=512 did not finish in 300 s (the moment expansion cancels with ~9
    clones); it is now summed directly. Checked against the float64 double sum of the definition (independent code)
    and the sandwich 2RR pair <= U_red <= RR_1."""
    import signal

    def _stop(*_a):
        raise TimeoutError("U_red at n=10001, eps0=7, lam=512 took more than 20 s")

    old = signal.signal(signal.SIGALRM, _stop)
    signal.alarm(20)
    try:
        enc = _q("shuffle.rdp.reduction").enclose(n=10001, eps0="7", lam=512, rel_tol=1e-14)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    from dpcert.shuffle import reduction

    assert float(enc.lo) == pytest.approx(reduction.reduction_float(10001, 7.0, 512.0), rel=1e-9)
    rr1 = _q("shuffle.rdp.upper").enclose(n=10001, eps0="7", lam=512, rel_tol=1e-14)
    assert enc.hi <= rr1.hi
