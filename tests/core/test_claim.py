"""Comparisons and claims: verdicts follow the enclosure, evidence is recorded, failures never raise."""

from fractions import Fraction

import pytest

from dpcert.arith.ball import Enclosure
from dpcert.composition import QUANTITIES as Q
from dpcert.core.claim import (
    AtLeast,
    AtMost,
    FunctionClaim,
    QuantityClaim,
    Rounds,
    Verdict,
    check_function,
    comparison_from_json,
)
from dpcert.errors import InvalidParameter


def enc(lo, hi):
    return Enclosure(Fraction(lo), Fraction(hi))


def test_rounds_interval_and_decisions():
    r = Rounds("5.352")
    assert r.interval == (Fraction("5.3515"), Fraction("5.3525"))
    assert r.decide(enc("5.3519", "5.3521")) is True
    assert r.decide(enc("5.3526", "5.3527")) is False
    assert r.decide(enc("5.3524", "5.3526")) is None  # straddles a rounding boundary
    assert Rounds("0.030").interval == (Fraction("0.0295"), Fraction("0.0305"))  # trailing zero counts


@pytest.mark.parametrize("bad", ["1e-3", "abc", "", "1/2", "1.2.3"])
def test_rounds_rejects_non_decimal(bad):
    with pytest.raises(InvalidParameter):
        Rounds(bad)


def test_bounds():
    assert AtMost.of("1").decide(enc("0.5", "1")) is True  # equality at the bound is allowed
    assert AtMost.of("1").decide(enc("1.1", "1.2")) is False
    assert AtMost.of("1").decide(enc("0.9", "1.1")) is None
    assert AtLeast.of("1").decide(enc("1", "2")) is True
    assert AtLeast.of("1").decide(enc("0", "0.5")) is False


def test_comparison_json_round_trip():
    for c in (Rounds("5.352"), AtMost.of("0.1"), AtLeast.of("1/3")):
        assert comparison_from_json(c.to_json()) == c


def test_quantity_claim_certified_and_refuted_with_evidence():
    good = QuantityClaim(
        "t.general.good",
        "DaRRM Table 2",
        "s",
        quantity=Q["composition.general.eps"],
        inputs={"k": 20, "eps": "0.2676", "delta_prime": "0.0001"},
        comparison=Rounds("5.352"),
    )
    r = good.check()
    assert r.verdict is Verdict.CERTIFIED and r.ok
    assert r.evidence.enclosure.contains(Fraction("5.352"))
    assert r.to_json()["inputs"]["eps"] == {"given": "0.2676", "type": "str", "exact": "669/2500"}

    bad = QuantityClaim(
        "t.general.bad",
        "ref",
        "s",
        quantity=Q["composition.general.eps"],
        inputs={"k": 20, "eps": "0.2676", "delta_prime": "0.0001"},
        comparison=AtMost.of("5.3"),
    )
    r = bad.check()
    assert r.verdict is Verdict.REFUTED and not r.ok
    assert "violates" in r.evidence.detail


def test_undecided_when_precision_is_exhausted():
    # k*eps = 5.3525 exactly sits on the rounding boundary of "5.352": no enclosure can decide it
    claim = QuantityClaim(
        "t.simple.edge",
        "ref",
        "s",
        quantity=Q["composition.simple.eps"],
        inputs={"k": 1, "eps": "5.3525"},
        comparison=Rounds("5.352"),
    )
    r = claim.check(max_prec=256)
    assert r.verdict is Verdict.UNDECIDED and not r.ok


@check_function
def _boom(max_prec):
    raise RuntimeError("bug")


def test_a_raising_check_is_an_error_verdict_not_an_exception():
    r = FunctionClaim("t.fn.boom", "ref", "s", fn=_boom).check()
    assert r.verdict is Verdict.ERROR and "bug" in r.error


def test_bad_inputs_in_a_claim_become_error_verdicts_with_the_parameter_named():
    claim = QuantityClaim(
        "t.bad",
        "ref",
        "s",
        quantity=Q["composition.general.eps"],
        inputs={"k": 20, "eps": "-1", "delta_prime": "0.1"},
        comparison=AtMost.of("1"),
    )
    r = claim.check()
    assert r.verdict is Verdict.ERROR and "eps" in r.error
