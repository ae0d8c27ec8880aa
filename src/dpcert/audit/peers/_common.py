"""What every adapter needs: a case's inputs as the doubles a peer receives, and rational bounds on a real."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

__all__ = ["doubles", "exact", "rational_bounds", "MAX_RDP_ORDER", "TOO_MANY_ORDERS"]

#: DP-SGD by RDP is asked of a peer only up to this max_order: the peers evaluate each integer order α in O(α)
#: float terms, so dpcert's default 10^4 orders take minutes per call.
MAX_RDP_ORDER = 1024
TOO_MANY_ORDERS = f"not run: max_order > {MAX_RDP_ORDER}"


def exact(case: Any) -> dict[str, Any]:
    """The case's inputs parsed exactly: reals as ``Fraction``, integers as ``int``, choices as ``str``."""
    from dpcert.engine.registry import quantity

    q = quantity(case.quantity)
    parsed = q.parse(_recorded(q, case.inputs))
    out: dict[str, Any] = {}
    for p in q.params:
        v = parsed[p.name]
        out[p.name] = getattr(v, "value", v)
    return out


def _recorded(q: Any, inputs: Any) -> dict[str, Any]:
    """The inputs with a table given as its JSON text (an event ledger, ``{"type": ...}`` or ``[...]``) in the
    recorded form the parameter reads (a one-item list), not as a file's path: a case holds its events, never a
    file."""
    out = dict(inputs)
    for p in q.params:
        v = out.get(p.name)
        if p.table is not None and isinstance(v, str) and v.lstrip()[:1] in ("{", "["):
            out[p.name] = [v]
    return out


def doubles(case: Any) -> dict[str, Any]:
    """The case's inputs as a float peer receives them: every real rounded to its nearest double."""
    return {k: float(v) if isinstance(v, Fraction) else v for k, v in exact(case).items()}


def rational_bounds(f: Any, *args: Fraction, prec: int = 256) -> tuple[Fraction, Fraction]:
    """Rational lo <= f(args) <= hi from a ball evaluation: ``f`` takes and returns ``arb`` balls."""
    from flint import arb, ctx, fmpq

    old = ctx.prec
    ctx.prec = prec
    try:
        ball = f(*(arb(fmpq(a.numerator, a.denominator)) for a in args))
    finally:
        ctx.prec = old
    from dpcert.arith.ball import Enclosure

    enc = Enclosure.from_ball(ball)
    if enc.lo is None or enc.hi is None:
        raise ArithmeticError("unbounded ball")
    return enc.lo, enc.hi
