"""``assert_within_certified`` on bracket quantities (PLD enclosures): the certified bracket is computed within a
time budget; a peer's correct value passes, a wrong one fails with the bracket, and a value inside the bracket's
uncertainty fails as undecided, saying what limited the bracket and what to do."""

from __future__ import annotations

import re
from fractions import Fraction

import mpmath
import pytest

from dpcert.errors import InvalidParameter
from dpcert.testing import assert_within_certified

pytest_plugins = ["pytester"]

# 100 DP-SGD steps at Poisson rate 0.01, noise multiplier 1, delta = 1e-5: the certified bracket's first grid is
# about 4e-4 wide (relative), narrow enough to judge a value to 1e-3
RUN = {"q": "0.01", "sigma": "1", "steps": "100", "delta": "1e-5"}
TRAINED = {"epochs": 1, "batch_size": 100, "n": 10_000, "sigma": "1", "delta": "1e-5"}


def _dp_accounting_eps(interval: float) -> float:
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    d = pld.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=interval)
    return d.self_compose(100).get_epsilon_for_delta(1e-5)


def test_dp_accountings_pld_epsilon_passes_as_an_estimate_and_as_a_bound():
    fine = _dp_accounting_eps(1e-4)  # 0.71804: its error is far below 1e-3
    enc = assert_within_certified(fine, "dpsgd.eps", **RUN, seconds=30)
    assert enc.lo <= Fraction(fine) <= enc.hi and enc.rel_width() < 1e-3
    # the run as trained is the same run
    assert_within_certified(fine, "dpsgd.eps", **TRAINED, seconds=30)
    # a coarse grid's pessimistic estimate is above every point of the bracket: a safe upper bound, proved
    coarse = _dp_accounting_eps(1e-3)  # 0.71814
    assert coarse > fine
    assert_within_certified(coarse, "dpsgd.eps", **RUN, bound="upper", seconds=30)


def test_a_clearly_wrong_value_fails_with_the_bracket():
    with pytest.raises(AssertionError, match="below the certified bracket") as info:
        assert_within_certified(0.70, "dpsgd.eps", **RUN)
    text = str(info.value)
    lo, hi = re.search(r"certified enclosure: \[(\S+), (\S+)\]", text).groups()
    assert Fraction(lo) > Fraction("0.71") and Fraction(hi) < Fraction("0.72")
    assert "grid resolution" in text and "distance:" in text
    # the same value as an upper bound: unsafe, proved by the bracket
    with pytest.raises(AssertionError, match="UNSAFE: the claimed upper bound is below the certified bracket"):
        assert_within_certified(0.70, "dpsgd.eps", **RUN, bound="upper")
    # and a loose one
    with pytest.raises(AssertionError, match="too loose"):
        assert_within_certified(0.80, "dpsgd.eps", **RUN, bound="upper")


def test_an_undecided_value_says_what_limited_the_bracket_and_what_to_do():
    """dp-accounting's fine-grid value lies inside the first bracket; 1e-6 cannot be decided in one second."""
    value = 0.7180367094257558
    with pytest.raises(AssertionError, match="undecided") as info:
        assert_within_certified(value, "dpsgd.eps", **RUN, rel_tol=1e-6, seconds=1)
    text = str(info.value)
    assert "inside the certified bracket's uncertainty" in text
    assert "limited by: the time budget" in text
    assert "give more time, seconds=4" in text
    assert "dpcert dpsgd eps q=0.01 sigma=1 steps=100 delta=1e-5 --method pld --seconds 4" in text
    need = Fraction(re.search(r"rel_tol >= (\S+) passes", text).group(1))
    assert Fraction(1, 10**6) < need < Fraction(1, 10**3)  # the bracket's own half-width, relative
    # an upper bound this close is undecided too, never passed
    with pytest.raises(AssertionError, match="undecided"):
        assert_within_certified(value, "dpsgd.eps", **RUN, bound="upper", seconds=1)


def test_a_closed_form_laplace_value_is_decided_to_the_bracket_width():
    """One Laplace mechanism (scale = sensitivity = 1): eps(delta) = 1 + 2 ln(1 - delta) (mpmath)."""
    with mpmath.workdps(30):
        truth = float(1 + 2 * mpmath.log(1 - mpmath.mpf("1e-5")))
    inputs = {"delta": "1e-5", "scale": "1", "sensitivity": "1", "k": "1"}
    assert_within_certified(truth, "laplace.eps", **inputs, rel_tol=1e-5)
    with pytest.raises(AssertionError, match="above the certified bracket"):
        assert_within_certified(truth * (1 + 1e-3), "laplace.eps", **inputs, rel_tol=1e-5)


def test_bracket_arguments_are_validated():
    with pytest.raises(InvalidParameter, match="seconds"):
        assert_within_certified(0.7, "dpsgd.eps", **RUN, seconds=0)
    with pytest.raises(InvalidParameter, match="seconds"):
        assert_within_certified(0.3, "composition.simple.eps", k=3, eps="0.1", seconds=1)
    with pytest.raises(InvalidParameter, match="sigma"):
        assert_within_certified(0.7, "dpsgd.eps", q="0.01", sigma="-1", steps=100, delta="1e-5")


def test_the_pytest_plugin_sets_the_sessions_budget(pytester, request):
    pytester.makepyfile(
        """
        import pytest
        from dpcert.testing import assert_within_certified

        def test_undecided_in_the_sessions_budget():
            with pytest.raises(AssertionError, match="give more time, seconds=2") as info:
                assert_within_certified(
                    0.7180367094257558, "dpsgd.eps", q="0.01", sigma="1", steps=100, delta="1e-5", rel_tol=1e-6
                )
            assert "within seconds=0.5" in str(info.value)
        """
    )
    loaded = request.config.pluginmanager.has_plugin("dpcert")
    args = ["-p", "no:cacheprovider"] + ([] if loaded else ["-p", "dpcert.pytest_plugin"])
    pytester.runpytest(*args, "--dpcert-seconds", "0.5").assert_outcomes(passed=1)
    bad = pytester.runpytest(*args, "--dpcert-seconds", "-1")
    assert bad.ret != 0
    bad.stderr.fnmatch_lines(["*--dpcert-seconds: expected a positive finite number of seconds*"])


# ------------------------------------------------------------------------ what limited the bracket, deterministically


def _synthetic(within):
    """A bracket quantity of one input whose bracket is whatever ``within`` returns (its value: x itself)."""
    from dpcert.core.params import real
    from dpcert.core.quantity import Quantity

    return Quantity(
        "test.bracket",
        (real("x", 0, lo_open=True),),
        lambda ctx, x: None,
        "a test double",
        "a bracket quantity for the helper's tests",
        bracket=True,
        within=within,
        within_takes_width=True,
        narrow_hint="dpcert eval test.bracket {inputs} --seconds {seconds}",
    )


def test_a_bracket_stopped_by_its_largest_grid_says_more_time_does_not_help():
    from dpcert.arith.ball import Enclosure

    def stuck(seconds, x, rel_tol):  # returns at once, never narrower than 1e-3: the largest grid that fits
        v = Fraction(x.value)
        return Enclosure(v * (1 - Fraction(1, 2000)), v * (1 + Fraction(1, 2000))), 512

    with pytest.raises(AssertionError, match="undecided") as info:
        assert_within_certified(1.0, _synthetic(stuck), x="1", rel_tol=1e-6, seconds=5)
    text = str(info.value)
    assert "limited by: the grid" in text and "resolution 512" in text and "more time does not narrow it" in text
    assert "give more time" not in text


def test_a_value_on_the_brackets_edge_at_any_width_is_said_to_be_so():
    from dpcert.arith.ball import Enclosure

    def exact_width(seconds, x, rel_tol):  # [v, v (1 + rel_tol)]: the width asked, always with x at its lower end
        v = Fraction(x.value)
        return Enclosure(v, v * (1 + Fraction(rel_tol))), 1

    with pytest.raises(AssertionError, match="undecided") as info:
        assert_within_certified(1.0, _synthetic(exact_width), x="1", bound="upper", rel_tol=0, seconds=5)
    assert "limited by: the value itself" in str(info.value)
    # the same value as a lower bound is proved safe (x <= lo) and not loose (x >= hi - allowed, allowed 1e-3)
    assert_within_certified(1.0, _synthetic(exact_width), x="1", bound="lower", seconds=5)
