"""The cross-check harness: a quantity's float64 value must lie inside its rigorous ball.

Reused by every module's tests. ``assert_float_in_ball`` checks one input; ``strategy_for`` builds hypothesis
strategies of exact inputs from a quantity's typed parameters, with practical ranges passed as ``limits``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from dpcert.core.params import Param
from dpcert.core.quantity import Quantity

#: Default practical ranges for parameters whose domain is unbounded (name -> (lo, hi)).
DEFAULT_LIMITS: dict[str, tuple[Any, Any]] = {
    "k": (1, 300),
    "eps": ("1/100", 3),
    "eps_g": (0, 10),
    "alpha": ("11/10", 200),
    "sigma": ("1/2", 100),
    "sensitivity": ("1/10", 4),
    "eps_rdp": (0, 10),
}


def assert_float_in_ball(
    quantity: Quantity, inputs: Mapping[str, Any], *, rtol: float | None = None, max_rel_width: float = 1e-12
) -> None:
    """The float value lies in the enclosure widened by ``rtol`` (relative); the enclosure is narrow."""
    enc = quantity.enclose(inputs, rel_tol=1e-25)
    assert enc.lo is not None and enc.hi is not None, f"{quantity.name}{dict(inputs)}: unbounded enclosure"
    assert enc.rel_width() <= max_rel_width, f"{quantity.name}{dict(inputs)}: ball too wide {enc.to_json()}"
    value = quantity.evaluate_float(inputs)
    tol = quantity.float_rtol if rtol is None else rtol
    mag = max(abs(enc.lo), abs(enc.hi))
    slack = Fraction(tol) * mag + Fraction(1, 10**300)
    fv = Fraction(value)
    assert enc.lo - slack <= fv <= enc.hi + slack, (
        f"{quantity.name}{dict(inputs)}: float {value!r} outside ball {enc.to_json()} (rtol {tol})"
    )


def _bounds(p: Param, limits: Mapping[str, tuple[Any, Any]]) -> tuple[Fraction, Fraction]:
    lim = limits.get(p.name, DEFAULT_LIMITS.get(p.name))
    lo_lim, hi_lim = (Fraction(-10), Fraction(10)) if lim is None else (Fraction(lim[0]), Fraction(lim[1]))
    lo = lo_lim if p.lo is None else max(p.lo, lo_lim)
    hi = hi_lim if p.hi is None else min(p.hi, hi_lim)
    if lo > hi:
        raise ValueError(f"practical limits {lim} leave nothing of the domain of {p.name}")
    return lo, hi


def strategy_for(p: Param, limits: Mapping[str, tuple[Any, Any]] | None = None) -> st.SearchStrategy[Any]:
    """Exact inputs for one parameter: ints, decimal strings with up to 4 decimals inside the domain, or choices.

    A choice parameter draws from its names (``limits`` may narrow them: ``{"gamma": ("sub", "dsub")}``); file
    paths are never drawn.
    """
    if p.kind == "choice":
        return st.sampled_from(tuple(limits.get(p.name, p.choices)) if limits else p.choices)
    lo, hi = _bounds(p, limits or {})
    if p.kind == "int":
        ints = st.integers(int(lo), int(hi))
        return ints.filter(lambda v: v % 2 == 1) if p.odd else ints

    def ok(x: Fraction) -> bool:
        return not ((p.lo_open and x == p.lo) or (p.hi_open and x == p.hi)) and lo <= x <= hi

    scale = 10_000
    reals = st.integers(int(lo * scale) - 1, int(hi * scale) + 1).map(lambda n: Fraction(n, scale)).filter(ok)
    as_str = reals.map(lambda x: str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}")
    if p.kind == "reals":
        return st.lists(as_str, min_size=1, max_size=6)
    return as_str


def inputs_strategy(quantity: Quantity, limits: Mapping[str, tuple[Any, Any]] | None = None):
    """A strategy of whole input dicts for ``quantity``."""
    return st.fixed_dictionaries({p.name: strategy_for(p, limits) for p in quantity.params})
