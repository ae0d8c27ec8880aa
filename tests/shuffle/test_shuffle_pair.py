"""The exact RDP of the shuffled 2RR pair: brute force from the definition, independent values, the sandwich."""

import itertools
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.shuffle import QUANTITIES, bounds, pair

PAIR = QUANTITIES["shuffle.rdp.pair"]
THM1 = QUANTITIES["shuffle.rdp.thm1"]
THM2 = QUANTITIES["shuffle.rdp.thm2"]
THM3 = QUANTITIES["shuffle.rdp.thm3"]


def _brute(n, eps0, lam):
    """Both orders by enumerating all 2^n output vectors of the n randomizers, then shuffling (counting ones)."""
    with mpmath.workdps(40):
        e = mpmath.exp(mpmath.mpf(eps0))
        keep = e / (e + 1)
        law = {}
        for data in ((0,) * n, (0,) * (n - 1) + (1,)):
            hist = [mpmath.mpf(0)] * (n + 1)
            for out in itertools.product((0, 1), repeat=n):
                pr = mpmath.mpf(1)
                for d, o in zip(data, out, strict=True):
                    pr *= keep if d == o else 1 - keep
                hist[sum(out)] += pr
            law[data[-1]] = hist
        p, q = law[0], law[1]
        lam = mpmath.mpf(lam.numerator) / lam.denominator
        fwd = mpmath.log(mpmath.fsum(qk**lam * pk ** (1 - lam) for pk, qk in zip(p, q, strict=True))) / (lam - 1)
        rev = mpmath.log(mpmath.fsum(pk**lam * qk ** (1 - lam) for pk, qk in zip(p, q, strict=True))) / (lam - 1)
        return fwd, rev


@pytest.mark.parametrize(
    "n,eps0,lam", [(1, "1", "3"), (3, "0.7", "2.5"), (5, "2", "7"), (6, "0.1", "1.25"), (4, "3", "40")]
)
def test_both_orders_against_brute_force(n, eps0, lam):
    fwd, rev = _brute(n, eps0, Fraction(lam))
    for order, ref in (("forward", fwd), ("reverse", rev)):
        enc = PAIR.enclose(n=n, eps0=eps0, lam=lam, order=order, rel_tol=1e-25)
        r = Fraction(mpmath.nstr(ref, 35))
        assert abs(r - enc.lo) <= r * Fraction(1, 10**24), (order, enc, ref)
        assert pair.pair_float(n, float(Fraction(eps0)), float(Fraction(lam)), order) == pytest.approx(
            float(ref), rel=1e-12
        )


#: independent mpmath values (50 digits): n, eps0, lam -> forward, reverse (= exact pair)
NOTES = [
    (100, "1", 10, "0.0511412230705", "0.0587645400682"),
    (200, "3", 10, "0.317287622459", "1.92033854017"),
    (1000, "3", 100, "0.494017222138", "2.50921867097"),
    (200, "3", 20, "0.502444938538245987078013958896", "2.48855419437832865938349585944"),
    (200, "1", 50, "0.116329455509102780743985812728", "0.168148126108078175239771849758"),
]


@pytest.mark.parametrize("n,eps0,lam,fwd,rev", NOTES)
def test_notes_values_and_reverse_exceeds_forward(n, eps0, lam, fwd, rev):
    digits = len(fwd.split(".")[1])
    tol = Fraction(1, 10 ** min(digits - 1, 14))
    f = PAIR.enclose(n=n, eps0=eps0, lam=lam, order="forward")
    r = PAIR.enclose(n=n, eps0=eps0, lam=lam, order="reverse")
    assert abs(f.lo - Fraction(fwd)) < tol and abs(r.lo - Fraction(rev)) < tol
    assert r.lo > f.hi  # erratum E1: Theorem 3's order is not the larger one
    m = PAIR.enclose(n=n, eps0=eps0, lam=lam, order="max")
    assert m.overlaps(r)


def test_forward_order_is_theorem3_at_large_n():
    # independent mpmath: Thm 3 at (10^6, 0.5, 8) = 1.02100654888806373023767533770e-6 (moments) = the direct sum
    f = PAIR.enclose(n=10**6, eps0="0.5", lam=8, order="forward", rel_tol=1e-20)
    t = THM3.enclose(n=10**6, eps0="0.5", lam=8, rel_tol=1e-20)
    ref = Fraction("1.02100654888806373023767533770e-6")
    assert f.overlaps(t) and abs(f.lo - ref) < ref * Fraction(1, 10**24)


@settings(max_examples=30)
@given(
    st.integers(1, 400),
    st.integers(1, 3000).map(lambda k: Fraction(k, 1000)),
    st.integers(2, 24),
)
def test_sandwich_thm3_pair_upper_bounds(n, eps0, lam):
    """Thm 3 = forward <= pair <= min(Thm 1, Thm 2), in balls and in float64."""
    inputs = {"n": n, "eps0": eps0, "lam": lam}
    t3 = THM3.enclose(inputs)
    fwd = PAIR.enclose({**inputs, "order": "forward"})
    mx = PAIR.enclose({**inputs, "order": "max"})
    assert t3.overlaps(fwd)
    assert t3.lo <= mx.hi
    assert mx.lo <= THM1.enclose(inputs).hi and mx.lo <= THM2.enclose(inputs).hi
    e = float(eps0)
    fp = pair.pair_float(n, e, lam)
    assert pair.pair_float(n, e, lam, "forward") <= fp * (1 + 1e-12)
    assert fp <= min(float(bounds.thm1_float(n, e, lam)), float(bounds.thm2_float(n, e, lam)))
