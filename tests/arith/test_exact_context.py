"""The exact arithmetic context: one formula on rationals, NotExact at the first irrational step, bounded cost."""

import time
from fractions import Fraction

import pytest

from dpcert.arith.ball import ball, workprec
from dpcert.arith.context import FLOAT, BallContext, ExactContext, NotExact, exact_value


def test_rational_results_of_transcendental_functions_are_exact():
    # e^0 = 1, log 1 = 0, log1p 0 = expm1 0 = 0, sqrt of a square: rational, returned exactly
    f = lambda ctx, x: ctx.exp(x - x) + ctx.log(ctx.num(1)) + ctx.log1p(0) + ctx.expm1(0) + ctx.sqrt(x)  # noqa: E731
    assert exact_value(f, Fraction(49, 25)) == Fraction(12, 5)


@pytest.mark.parametrize(
    "formula",
    [
        lambda ctx, x: ctx.exp(x),
        lambda ctx, x: ctx.expm1(x),
        lambda ctx, x: ctx.log(x),
        lambda ctx, x: ctx.log1p(x),
        lambda ctx, x: ctx.sqrt(x * 2),  # sqrt(2/3): not a square
        lambda ctx, x: ctx.e() * x,
        lambda ctx, x: ctx.prec,  # the formula needs a ball precision
        lambda ctx, x: ball(x),  # the formula leaves exact arithmetic
        lambda ctx, x: ctx.num(x) ** Fraction(1, 2),
    ],
)
def test_irrational_steps_signal_not_exact(formula):
    with pytest.raises(NotExact), ExactContext() as ctx:
        formula(ctx, Fraction(1, 3))
    assert exact_value(formula, Fraction(1, 3)) is None


def test_not_exact_passes_through_a_formulas_own_except_exception():
    def formula(ctx, x):
        try:
            return ctx.log(x)
        except Exception:  # a formula's fallback must not swallow the signal and return a wrong "exact" value
            return Fraction(0)

    assert exact_value(formula, Fraction(2)) is None


def test_python_control_flow_on_values_is_exact():
    def formula(ctx, x):
        y = ctx.num(x)
        return y * y if y > 1 else ctx.min(2 * y, ctx.exact(Fraction(1, 7)))

    assert exact_value(formula, Fraction(3, 2)) == Fraction(9, 4)
    assert exact_value(formula, Fraction(1, 10)) == Fraction(1, 7)
    # the same formula in the other arithmetics
    assert formula(FLOAT, 1.5) == 2.25
    with BallContext(64) as ctx:
        assert formula(ctx, ball(Fraction(1, 10))) == Fraction(1, 7)


def test_a_float_or_ball_result_is_not_an_exact_value():
    assert exact_value(lambda ctx, x: float(ctx.num(x)), Fraction(1, 2)) is None
    assert exact_value(lambda ctx, x: ctx.num(x) * 0.5, Fraction(1, 2)) is None


def test_ball_arithmetic_works_again_after_an_exact_attempt():
    assert exact_value(lambda ctx, x: ball(x), Fraction(1, 3)) is None
    with workprec(64):
        assert ball(Fraction(1, 3)).mid() > 0


def test_size_guard_stops_huge_exact_computations_fast():
    t0 = time.perf_counter()
    assert exact_value(lambda ctx, x: ctx.num(x) ** 10**7, Fraction(3, 2)) is None  # refused before computing
    assert exact_value(lambda ctx, x: sum(ctx.num(i) / (i + 1) for i in range(10**6)), 0) is None  # work budget

    def square(ctx, x):
        y = ctx.num(x)
        for _ in range(40):
            y = y * y
        return y

    assert exact_value(square, Fraction(3, 2)) is None  # (3/2)^(2^40): the bit-size guard
    assert time.perf_counter() - t0 < 2.0
