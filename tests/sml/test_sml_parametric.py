"""SML of mechanisms whose entries are rational functions of x = e^ε, against closed forms, the exact rational path
and a float evaluation of every selection."""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcert.arith.exact import RationalFunction, X
from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import FiniteMechanism, sml
from dpcert.sml.parametric import sml_at_exp

mpmath.mp.dps = 50


def _contains(enc, value):
    v = Fraction(mpmath.nstr(value, 45, min_fixed=-1, max_fixed=1))
    slack = abs(v) * Fraction(1, 10**40)
    return enc.lo - slack <= v <= enc.hi + slack


def rr(k):
    """k-ary randomized response, input i reports i with probability x/(x + k - 1)."""
    return [(str(i), [X / (X + k - 1) if j == i else 1 / (X + k - 1) for j in range(k)]) for i in range(k)]


@pytest.mark.parametrize(("k", "eps"), [(2, "0.5"), (3, "1"), (5, "0.1"), (4, "2.5")])
def test_randomized_response_matches_its_closed_form(k, eps):
    res = sml_at_exp(rr(k), eps)
    assert res.exp_value == k * X / (X + k - 1)  # every column's maximum is x/(x + k - 1)
    x = mpmath.exp(mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)
    assert _contains(res.exp_enclosure(), k * x / (x + k - 1))
    assert _contains(res.nats(), mpmath.log(k * x / (x + k - 1)))
    assert _contains(res.bits(), mpmath.log(k * x / (x + k - 1), 2))


def test_eps_zero_leaks_nothing_exactly():
    res = sml_at_exp(rr(3), "0")
    assert res.nats() == res.bits() and res.nats().is_exact and res.nats().lo == 0


def test_the_maximising_row_switches_at_eps_ln2():
    # secret a: row 0 = (1/(1+x), x/(1+x)) or row 1 = (1/3, 2/3); secret b: row 2 = (1, 0).
    # selection {0, 2} gives 1 + x/(1+x), selection {1, 2} gives 5/3: the first wins iff x > 2, i.e. eps > ln 2
    rows = [("a", [1 / (1 + X), X / (1 + X)]), ("a", ["1/3", "2/3"]), ("b", [1, 0])]
    low, high = sml_at_exp(rows, "0.5"), sml_at_exp(rows, "1")
    assert low.exp_value == RationalFunction(Fraction(5, 3)) and low.selection == {"a": 1, "b": 2}
    assert high.exp_value == 1 + X / (1 + X) and high.selection == {"a": 0, "b": 2}
    for res, eps in ((low, "0.5"), (high, "1")):
        x = mpmath.exp(mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)
        brute = max(1 + x / (1 + x), mpmath.mpf(5) / 3)  # every selection, evaluated in mpmath
        assert _contains(res.exp_enclosure(), brute)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_constant_entries_agree_with_the_exact_rational_path(data):
    n_out = data.draw(st.integers(1, 4))
    n_rows = data.draw(st.integers(1, 5))
    rows = []
    for i in range(n_rows):
        weights = data.draw(st.lists(st.integers(0, 5), min_size=n_out, max_size=n_out).filter(lambda w: sum(w) > 0))
        secret = data.draw(st.sampled_from(["g", "h", "k"]))
        rows.append((secret, [Fraction(w, sum(weights)) for w in weights], str(i)))
    mech = FiniteMechanism.from_rows([[str(v) for v in p] for _, p, _ in rows], [s for s, _, _ in rows])
    exact = sml(mech).exp_value
    res = sml_at_exp([(s, p) for s, p, _ in rows], "0.3")
    assert res.exp_value == RationalFunction(exact)


def test_bad_parametric_mechanisms_are_refused_by_row():
    with pytest.raises(InvalidParameter, match=r"row\[1\]"):
        sml_at_exp([("a", [X / (1 + X), 1 / (1 + X)]), ("b", [X / (1 + X), X / (1 + X)])], "1")
    with pytest.raises(InvalidParameter, match=r"row\[0\]\[0\]"):  # 2 - x < 0 at eps = 1
        sml_at_exp([("a", [2 - X, X - 1])], "1")
    with pytest.raises(InvalidParameter, match="eps"):
        sml_at_exp(rr(2), "-1")
