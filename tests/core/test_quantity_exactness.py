"""Quantity evaluation: exact where the value is rational (no per-quantity flag), relative accuracy for tiny values."""

import time
from fractions import Fraction

import pytest

from dpcert.cli import main
from dpcert.core.claim import AtLeast, AtMost, QuantityClaim, Rounds, Verdict
from dpcert.core.params import real
from dpcert.core.quantity import Quantity
from dpcert.engine import registry
from dpcert.errors import PrecisionExhausted


def _claim(name, inputs, cmp):
    q = registry.quantity(name)
    return QuantityClaim("t.c", "test", "", quantity=q, inputs=inputs, comparison=cmp).check()


def test_a_rational_value_is_certified_at_equality_in_both_directions():
    # Mironov Prop. 7: lam * Delta^2 / (2 sigma^2) = 3 / 50, computed by hand
    inputs = {"lam": 3, "sigma": 5, "sensitivity": 1}
    assert not registry.quantity("rdp.gaussian.eps").exact  # nothing declares this quantity exact
    for cmp in (AtMost.of("0.06"), AtLeast.of("0.06")):
        r = _claim("rdp.gaussian.eps", inputs, cmp)
        assert r.verdict is Verdict.CERTIFIED, r.evidence.detail
        assert r.evidence.enclosure.lo == r.evidence.enclosure.hi == Fraction(3, 50)
        assert r.evidence.method == "exact rational arithmetic" and r.evidence.precision == 0
    assert _claim("rdp.gaussian.eps", inputs, AtMost.of("0.0599999")).verdict is Verdict.REFUTED


def test_the_issue_command_is_certified(capsys):
    code = main(["claim", "rdp.gaussian.eps", "lam=3", "sigma=5", "sensitivity=1", "--at-most", "0.06"])
    assert code == 0
    assert capsys.readouterr().out.startswith("CERTIFIED")


def test_an_exact_value_on_a_rounding_boundary_is_undecided_at_once():
    # 11 * 1 / (2 * 100) = 0.055 exactly: "rounds to 0.05" depends on the round-half convention
    t0 = time.perf_counter()
    r = _claim("rdp.gaussian.eps", {"lam": 11, "sigma": 10, "sensitivity": 1}, Rounds("0.05"))
    assert r.verdict is Verdict.UNDECIDED
    assert time.perf_counter() - t0 < 1.0  # no climb to 8192 bits on an exact value


def test_an_irrational_value_still_goes_through_balls():
    enc = registry.quantity("rdp.to_dp.eps").enclose(lam=2, eps_rdp="0.1", delta="0.5", rel_tol=1e-30)
    assert not enc.is_exact
    # 0.1 + log 2 = 0.79314718055994530941723212145817656807550013436025525...
    assert enc.contains(Fraction("0.7931471805599453094172321214581765680755"))


def test_a_tiny_value_computed_in_balls_keeps_its_relative_accuracy():
    # eps_rdp + log(1/delta)/(lam - 1) at delta = 1 - 10^-400: -log1p(-1e-400) = 1e-400 + 5e-801 + ...
    delta = f"{10**400 - 1}/{10**400}"
    enc = registry.quantity("rdp.to_dp.eps").enclose(lam=2, eps_rdp=0, delta=delta, rel_tol=1e-12)
    assert enc.lo > 0  # before: [-4.1e-317, 1.1e-308], no correct digit, behind an absolute floor of 1e-300
    assert enc.rel_width() <= 1e-12
    assert enc.lo <= Fraction(1, 10**400) * (1 + Fraction(1, 10**399)) and enc.hi >= Fraction(1, 10**400)


def _toy(formula):
    return Quantity("test.toy", (real("x", 0, lo_open=True),), formula, "test", "toy")


def test_a_ball_around_zero_is_reported_as_undecided_with_its_bracket():
    # log x - log x is 0, but a ball evaluation never proves it: no relative digit, so no silent answer
    q = _toy(lambda ctx, x: ctx.log(ctx.num(x)) - ctx.log(ctx.num(x)))
    with pytest.raises(PrecisionExhausted) as info:
        q.enclose(x="0.3", max_prec=256)
    enc = info.value.enclosure
    assert enc is not None and enc.lo < 0 < enc.hi and enc.width < Fraction(1, 2**200)
    assert "last certified enclosure" in str(info.value)


def test_an_exact_zero_is_exact():
    q = _toy(lambda ctx, x: ctx.log(ctx.num(x) / ctx.num(x)))  # log 1 = 0: a ball never proves it, exact does
    enc = q.enclose(x="0.3", max_prec=256)
    assert enc.is_exact and enc.lo == 0


def test_the_issue_example_never_returns_a_bracket_around_zero_as_an_answer():
    # before: [-2.0e-3999, 2.0e-3999] returned as the value (an absolute floor of 1e-300): no correct digit and a
    # negative RDP. Now either a relative enclosure or an honest "undecided" carrying the bracket.
    q = registry.quantity("shuffle.rdp.upper")
    try:
        enc = q.enclose(n=1000, eps0="1e-3999", lam=2, rel_tol=1e-6, max_prec=256)
    except PrecisionExhausted as exc:
        assert exc.enclosure is not None and exc.enclosure.contains(0)
    else:
        assert enc.lo > 0 and enc.rel_width() <= 1e-6
