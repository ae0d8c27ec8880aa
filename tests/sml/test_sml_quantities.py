"""The named quantities against the exact closed forms, brute force and the paper's printed numbers."""

import math
from fractions import Fraction as F

import mpmath
import pytest

from dpcert.errors import InvalidParameter
from dpcert.sml import QUANTITIES as Q
from dpcert.sml.mechanism import log_enclosure, sml
from dpcert.sml.tabular import qm_mechanism

NAMES = {"sml.qm.distortion", "sml.qm.sml", "sml.rr.distortion", "sml.rr.sml", "sml.qm.sml_bits", "sml.rr.sml_bits"}


def test_names_are_the_contract():
    assert set(Q) == NAMES
    assert [p.name for p in Q["sml.qm.sml"].params] == ["tau", "d", "I"]
    assert [p.name for p in Q["sml.rr.sml"].params] == ["tau", "d", "eps"]


def test_qm_exact_values():
    assert Q["sml.qm.distortion"].enclose(tau=4, d=3, I=3).lo == F(5, 8)
    assert Q["sml.qm.sml"].enclose(tau=4, d=3, I=5).hi == 0
    assert Q["sml.qm.sml_bits"].enclose(tau=48842, d=22381, I=3053).lo == 4  # 16 bins: exactly 4 bits


@pytest.mark.parametrize(("tau", "d", "interval"), [(4, 3, 3), (4, 3, 1), (5, 2, 2), (3, 3, 4)])
def test_qm_sml_matches_brute_force_log(tau, d, interval):
    _, mech = qm_mechanism(tau, d, interval)
    v = sml(mech).exp_value
    for name, unit in (("sml.qm.sml", "nats"), ("sml.qm.sml_bits", "bits")):
        enc = Q[name].enclose(tau=tau, d=d, I=interval)
        ref = log_enclosure(v, unit)
        assert enc.overlaps(ref)


@pytest.mark.parametrize("interval", [2, 4])
def test_qm_invalid_interval_names_I(interval):
    with pytest.raises(InvalidParameter) as err:
        Q["sml.qm.sml"].enclose(tau=4, d=3, I=interval)
    assert err.value.name == "I"


BAD = [
    ("sml.qm.sml", {"tau": 4, "d": 1, "I": 1}, "d"),
    ("sml.rr.sml", {"tau": 0, "d": 3, "eps": "1"}, "tau"),
    ("sml.rr.sml", {"tau": 4, "d": 3, "eps": "-1"}, "eps"),
    ("sml.qm.distortion", {"tau": 4, "d": 3, "I": 6}, "I"),
]


@pytest.mark.parametrize(("name", "inputs", "param"), BAD)
def test_out_of_range_inputs(name, inputs, param):
    with pytest.raises(InvalidParameter) as err:
        Q[name].enclose(inputs)
    assert err.value.name == param


def test_rr_against_mpmath_closed_form():
    """Π_RR = log((N + s(E−1))/(N + E − 1)) evaluated independently with mpmath at 60 digits."""
    mpmath.mp.dps = 60
    for tau, d, eps in ((4, 3, "1"), (10, 5, "3/2"), (30, 4, "7")):
        n = math.comb(tau + d - 1, d - 1)
        e = mpmath.exp(mpmath.mpf(F(eps).numerator) / F(eps).denominator)
        want = mpmath.log((n + (tau + 1) * (e - 1)) / (n + e - 1))
        enc = Q["sml.rr.sml"].enclose(tau=tau, d=d, eps=eps, rel_tol=1e-35)
        assert abs(F(mpmath.nstr(want, 50)) - enc.mid()) < F(1, 10**30)
        bits = Q["sml.rr.sml_bits"].enclose(tau=tau, d=d, eps=eps, rel_tol=1e-35)
        assert abs(F(mpmath.nstr(want / mpmath.log(2), 50)) - bits.mid()) < F(1, 10**30)
        dist = Q["sml.rr.distortion"].enclose(tau=tau, d=d, eps=eps, rel_tol=1e-35)
        want_d = mpmath.mpf(d - 1) * n / (d * (n + e - 1))
        assert abs(F(mpmath.nstr(want_d, 50)) - dist.mid()) < F(1, 10**30)


def test_rr_at_eps_zero_is_exact():
    assert Q["sml.rr.sml"].enclose(tau=5, d=3, eps="0").hi == 0
    assert Q["sml.rr.distortion"].enclose(tau=5, d=3, eps="0").lo == F(2, 3)


def test_rr_at_adult_scale_float_and_ball_agree():
    """e^eps overflows float64 here; the lgamma float path and the exact-N ball agree (Fig. 4(b))."""
    q = Q["sml.rr.distortion"]
    enc = q.enclose(tau=48842, d=22381, eps="44320")
    assert abs(q.evaluate_float(tau=48842, d=22381, eps="44320") - float(enc.mid())) < 1e-9
    assert abs(float(enc.mid()) - 0.99711) < 5e-6
    sml_enc = Q["sml.rr.sml_bits"].enclose(tau=48842, d=22381, eps="44320")
    assert 0 < float(sml_enc.mid()) < math.log2(48843)
