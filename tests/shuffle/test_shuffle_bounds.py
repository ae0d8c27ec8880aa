"""The paper's bounds: reference values (independent mpmath, 50 digits), brute force and the two arithmetics."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcert.errors import InvalidParameter
from dpcert.shuffle import QUANTITIES, bounds

THM1 = QUANTITIES["shuffle.rdp.thm1"]
THM2 = QUANTITIES["shuffle.rdp.thm2"]
THM3 = QUANTITIES["shuffle.rdp.thm3"]
COR1 = QUANTITIES["shuffle.rdp.cor1"]
COR2 = QUANTITIES["shuffle.rdp.cor2"]
EFM = QUANTITIES["shuffle.rdp.efm19"]
EQ8 = QUANTITIES["shuffle.rdp.thm1_real"]

#: reference triples computed independently with mpmath (50 digits, 30 shown): n, eps0, lam -> Thm 1, Thm 3
TRIPLES = [
    (10, "0.5", 5, "0.594981144232843067856177442396", "0.0599756546849495254016166010061"),
    (100, "1", 10, "0.63258282016962363803151155531", "0.0511412230705165234162444005597"),
    (200, "3", 20, "3.09304386520060510201321234217", "0.502444938538245987078013958896"),
    (30, "0.1", 2, "0.0456160843164668137931116506756", "0.000333555567876099445192563492415"),
    (50, "0.25", 3, "0.0141622234514369061388201086044", "0.0018820289378027766305218509965"),
    (1, "1", 3, "1.79933107077498836278927283413", "0.846726830485447617283710596382"),
    (200, "1", 50, "0.833653040142394816460890037619", "0.116329455509102780743985812728"),
    (10**4, "3", 100, "2.40174129215874802291610503272", "0.0815802542252152317843325485617"),
    (10**6, "0.5", 8, "3.41776476216831238518984664314e-6", "1.0210065488880637302376753377e-6"),
    (10**6, "0.5", 256, "1.82363514400215722495621892287e-4", "3.26708307557586697753109912334e-5"),
]


def _close(enc, ref: str, rel=Fraction(1, 10**27)):
    r = Fraction(ref)
    assert enc.lo - rel * r <= r <= enc.hi + rel * r, (enc, ref)


@pytest.mark.parametrize("n,eps0,lam,t1,t3", TRIPLES)
def test_reference_triples(n, eps0, lam, t1, t3):
    _close(THM1.enclose(n=n, eps0=eps0, lam=lam, rel_tol=1e-30), t1)
    _close(THM3.enclose(n=n, eps0=eps0, lam=lam, rel_tol=1e-30), t3)
    f1 = float(bounds.thm1_float(n, float(Fraction(eps0)), lam))
    assert f1 == pytest.approx(float(Fraction(t1)), rel=1e-11)


def _mp_thm1(n, eps0, lam):
    """Theorem 1 straight from eq. (6) in mpmath (50 digits), Γ and binomials by mpmath."""
    with mpmath.workdps(50):
        e = mpmath.mpf(eps0)
        nb = mpmath.floor((n - 1) / (2 * mpmath.exp(e))) + 1
        x = (mpmath.exp(2 * e) - 1) ** 2 / (2 * mpmath.exp(2 * e) * nb)
        s = mpmath.binomial(lam, 2) * mpmath.expm1(e) ** 2 / (nb * mpmath.exp(e))
        for i in range(3, lam + 1):
            s += mpmath.binomial(lam, i) * i * mpmath.gamma(mpmath.mpf(i) / 2) * x ** (mpmath.mpf(i) / 2)
        s += mpmath.exp(e * lam - (n - 1) / (8 * mpmath.exp(e)))
        return mpmath.log1p(s) / (lam - 1)


def _mp_thm3(n, eps0, lam):
    """Theorem 3 from eq. (11) with central moments by direct summation over k (mpmath, 50 digits)."""
    with mpmath.workdps(50):
        e = mpmath.mpf(eps0)
        p = 1 / (mpmath.exp(e) + 1)
        pmf = [mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
        c = (mpmath.exp(2 * e) - 1) / (n * mpmath.exp(e))
        s = mpmath.binomial(lam, 2) * mpmath.expm1(e) ** 2 / (n * mpmath.exp(e))
        for i in range(3, lam + 1):
            mu = mpmath.fsum(w * (k - n * p) ** i for k, w in enumerate(pmf))
            s += mpmath.binomial(lam, i) * c**i * mu
        return mpmath.log1p(s) / (lam - 1)


@pytest.mark.parametrize("n,eps0,lam", [(7, "0.3", 6), (40, "2", 9), (3, "4", 12), (120, "0.05", 5)])
def test_against_mpmath_from_the_printed_formulas(n, eps0, lam):
    _close(
        THM1.enclose(n=n, eps0=eps0, lam=lam, rel_tol=1e-30),
        mpmath.nstr(_mp_thm1(n, eps0, lam), 40),
        Fraction(1, 10**35),
    )
    _close(
        THM3.enclose(n=n, eps0=eps0, lam=lam, rel_tol=1e-30),
        mpmath.nstr(_mp_thm3(n, eps0, lam), 40),
        Fraction(1, 10**35),
    )


def test_nbar_is_the_exact_floor():
    # e^{1/2} = 1.6487212707..., (10^6 − 1)/(2e^{1/2}) = 303265.0...
    assert bounds.nbar(10**6, Fraction(1, 2)) == 303266
    assert bounds.nbar(1, 3) == 1 and bounds.nbar(9, 0) == 5
    # n − 1 = 2e^{eps0}·m just above/below an integer: 2e·10^6 = 5436563.656...
    assert bounds.nbar(5436564 + 1, 1) == 1_000_000 + 1
    assert bounds.nbar(5436563 + 1, 1) == 999_999 + 1
    with pytest.raises(InvalidParameter):
        bounds.nbar(0, 1)


def test_thm2_and_eq10_reference_points():
    # independent reproduction of Fig. 2a Thm 2 = 9.7798e-6 > (10) = 6.6004e-6 at (10^4, 0.1, 2)
    assert THM2.enclose(n=10**4, eps0="0.1", lam=2).hi < Fraction("9.78e-6")
    assert THM2.enclose(n=10**4, eps0="0.1", lam=2).lo > Fraction("9.7797e-6")
    assert EFM.enclose(n=10**4, eps0="0.1", lam=2).lo > Fraction("6.6003e-6")
    # independent mpmath, real λ: Thm 2 (100, 1, 1.5) = 0.7647930404; Thm 1 via (8) (200, 2, 7.3) = 1.7899912798
    _close(THM2.enclose(n=100, eps0=1, lam="1.5"), "0.7647930404", Fraction(1, 10**9))
    _close(EQ8.enclose(n=200, eps0=2, lam="7.3"), "1.7899912798", Fraction(1, 10**9))
    _close(EQ8.enclose(n=30, eps0=3, lam="3.5"), "4.4545023978", Fraction(1, 10**9))


def test_eq8_is_theorem1_at_integers_and_eps2_below_2():
    assert EQ8.enclose(n=50, eps0="0.5", lam=4).overlaps(THM1.enclose(n=50, eps0="0.5", lam=4))
    assert EQ8.enclose(n=50, eps0="0.5", lam="1.5").overlaps(THM1.enclose(n=50, eps0="0.5", lam=2))


def test_corollary1_condition_and_counterexample():
    # docs/derivations/shuffle.md#corollary-1s-last-step: at (150, 5e-4, 2) the condition holds (16.04 < 16.67) and Thm
    # 1 > Cor 1
    assert bounds.cor1_applies(150, Fraction(5, 10000), 2)
    assert not bounds.cor1_applies(144, Fraction(5, 10000), 2)  # 16e^{0.0025} > 16 = 144/9
    assert bounds.cor1_applies(145, 0, 2)  # 16 < 145/9 exactly
    assert not bounds.cor1_applies(144, 0, 2)  # 16 = 144/9: not strict
    _close(THM1.enclose(n=150, eps0="0.0005", lam=2), "1.15698375595624e-8", Fraction(1, 10**13))
    _close(COR1.enclose(n=150, eps0="0.0005", lam=2), "6.67000095018614e-9", Fraction(1, 10**13))


def test_eps0_zero():
    # all exact quantities are 0; Thm 1 keeps its Chernoff artefact log(1 + e^{-(n-1)/8})/(lam-1)
    for q in (THM3, COR1, COR2, EFM):
        assert q.enclose(n=9, eps0=0, lam=3).is_exact and q.enclose(n=9, eps0=0, lam=3).lo == 0
    with mpmath.workdps(40):
        ref = mpmath.nstr(mpmath.log1p(mpmath.exp(-1)) / 2, 35)
    _close(THM1.enclose(n=9, eps0=0, lam=3, rel_tol=1e-30), ref, Fraction(1, 10**30))


def test_bad_inputs():
    with pytest.raises(InvalidParameter):
        THM1.parse({"n": 10, "eps0": "1", "lam": "2.5"})  # Theorem 1 needs an integer order
    with pytest.raises(InvalidParameter):
        THM2.parse({"n": 10, "eps0": "1", "lam": 1})
    with pytest.raises(InvalidParameter):
        THM2.parse({"n": 0, "eps0": "1", "lam": 2})
    with pytest.raises(InvalidParameter):
        THM2.parse({"n": 10, "eps0": "-0.1", "lam": 2})


@given(
    st.integers(1, 10**6),
    st.integers(0, 4000).map(lambda k: Fraction(k, 1000)),
    st.integers(2, 60),
)
def test_float_vectorised_matches_scalar_balls(n, eps0, lam):
    """The vectorised float kernels agree with the ball evaluators (both arithmetics), and Cor 2 <= Thm 3 <= Thm 1."""
    inputs = {"n": n, "eps0": eps0, "lam": lam}
    ns = np.array([n, n]).reshape(2, 1)
    lams = np.array([lam, 2]).reshape(1, 2)
    f1 = bounds.thm1_float(ns, float(eps0), lams)
    enc1 = THM1.enclose(inputs, rel_tol=1e-20)
    assert float(enc1.lo) * (1 - 1e-9) <= f1[0, 0] <= float(enc1.hi) * (1 + 1e-9)
    assert f1[1, 1] == f1[0, 1]
    if eps0 > 0 and lam <= 30:
        t3 = THM3.enclose(inputs, rel_tol=1e-20)
        assert COR2.enclose(inputs).lo <= t3.hi and t3.lo <= enc1.hi
