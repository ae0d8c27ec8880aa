"""Comparisons and claims: verdicts follow the enclosure, evidence is recorded, failures never raise."""

import json
from fractions import Fraction

import numpy as np
import pytest

from dpcert.arith.ball import Enclosure
from dpcert.composition import QUANTITIES as Q
from dpcert.core.claim import (
    AtLeast,
    AtMost,
    FunctionClaim,
    QuantityClaim,
    Rounds,
    Truncates,
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


@pytest.mark.parametrize("bad", ["abc", "", "1/2", "1.2.3", "1e", "e5", "²", "0x10", "1e-99999"])
def test_rounds_rejects_what_is_not_a_printed_decimal(bad):
    with pytest.raises(InvalidParameter):
        Rounds(bad)


@pytest.mark.parametrize(
    ("printed", "lo", "hi"),
    [
        ("5.352e0", "5.3515", "5.3525"),
        ("1.2E-6", "1.15e-6", "1.25e-6"),
        ("1.20e-6", "1.195e-6", "1.205e-6"),  # a trailing zero of the mantissa counts
        ("6.1e+2", "605", "615"),
        ("-2.5e1", "-25.5", "-24.5"),
    ],
)
def test_rounds_reads_scientific_notation_as_printed(printed, lo, hi):
    assert Rounds(printed).interval == (Fraction(lo), Fraction(hi))


def test_rounds_to_significant_figures():
    assert Rounds("1200", figures=2).interval == (Fraction(1150), Fraction(1250))
    assert Rounds("1200").interval == (Fraction("1199.5"), Fraction("1200.5"))
    # just below a power of ten one more decimal is printed at the same number of figures
    assert Rounds("1.00", figures=3).interval == (Fraction("0.9995"), Fraction("1.005"))
    assert Rounds("-100", figures=1).interval == (Fraction(-150), Fraction("-95"))
    assert Rounds("1.00", figures=3).decide(enc("0.9996", "0.9997")) is True  # prints as 1.00 at 3 figures
    with pytest.raises(InvalidParameter):
        Rounds("1234", figures=2)  # has more than two figures
    with pytest.raises(InvalidParameter):
        Rounds("12", figures=0)


def test_truncates_is_half_open_towards_zero():
    t = Truncates("5.352")
    assert t.decide(enc("5.352", "5.3529")) is True  # 5.352 itself truncates to 5.352
    assert t.decide(enc("5.353", "5.353")) is False  # the upper end does not
    assert t.decide(enc("5.3529", "5.353")) is None
    assert Truncates("-0.12").decide(enc("-0.1299", "-0.12")) is True
    assert Truncates("-0.12").decide(enc("-0.13", "-0.13")) is False
    assert Truncates("1.2e-6").decide(enc("1.29e-6", "1.29e-6")) is True


@pytest.mark.parametrize(
    "cmp",
    [
        AtMost.of(0.1),
        AtLeast.of(np.float64(0.1)),
        AtMost.of("1/3"),
        Rounds("1.2E-6"),
        Rounds("1200", figures=2),
        Truncates("-0.12"),
    ],
    ids=repr,
)
def test_comparisons_round_trip_through_json_exactly(cmp):
    back = comparison_from_json(json.loads(json.dumps(cmp.to_json())))
    assert back == cmp


def test_a_float_bound_is_recorded_as_the_double_it_is():
    record = AtMost.of(0.1).to_json()["value"]
    assert record == {"given": "0.1", "type": "float", "exact": "3602879701896397/36028797018963968"}
    with pytest.raises(InvalidParameter):  # a given that does not parse to its exact is refused
        comparison_from_json({"kind": "at_most", "value": {**record, "type": "str"}})


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
