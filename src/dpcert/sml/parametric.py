"""Exact SML of a finite mechanism whose probabilities are rational functions of x = e^ε (Proposition IV.1).

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

Mechanisms built from ε — randomized response, for one, with entries x/(x + k − 1) and 1/(x + k − 1) — have entries
that are rational functions of x = e^ε. At a rational ε the entries are transcendental numbers, so the exact path
of :mod:`dpcert.sml.mechanism` (rationals over one denominator) does not apply. Here every comparison the
maximum of Proposition IV.1 needs — which row wins a column, which selection wins — is the sign of a difference
of two rational functions at x = e^ε, decided by :func:`~dpcert.arith.ball.sign_at_exp`: an identically zero
difference is an exact tie, never "undecided" (e^ε is transcendental for rational ε ≠ 0, so two different rational
functions cannot agree there except at finitely many ε, none rational but 0, handled exactly at x = 1).

The result is exact: ``exp Π`` is returned as a :class:`~dpcert.arith.exact.RationalFunction` (the sum of column
maxima of a maximising selection) together with the selection, and Π is enclosed in balls, in nats and bits.

This path enumerates all ``Π_g |Θ_g|`` selections (at most :data:`MAX_SELECTIONS`); it is meant for the small
parametric mechanisms papers write down, not for the large rational instances the branch and bound handles.

References:
    S. Wang, Z. Lin, G. Fanti, "Statistic Maximal Leakage", Proposition IV.1 [WLF24].
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import MAX_PREC, Enclosure, at_exp, refine, sign_at_exp
from dpcert.arith.exact import Exact, RationalFunction, parse_rational
from dpcert.errors import InvalidParameter

__all__ = ["MAX_SELECTIONS", "ParametricSML", "sml_at_exp"]

#: Largest number of selections enumerated.
MAX_SELECTIONS = 100_000


@dataclass(frozen=True)
class ParametricSML:
    """``exp Π`` of a parametric mechanism at x = e^ε, exactly, and a selection attaining it.

    Attributes:
        exp_value: ``exp Π`` as a rational function of x (evaluate it at e^ε with :meth:`exp_enclosure`).
        eps: the exact ε.
        selection: secret label -> index of the chosen row.
        selections: how many selections were compared.
    """

    exp_value: RationalFunction
    eps: Exact
    selection: dict[str, int]
    selections: int

    def exp_enclosure(self, rel_tol: float = 1e-30) -> Enclosure:
        """``exp Π`` at x = e^ε, enclosed."""
        return self._enclose(lambda v: v, rel_tol, at_one=1)

    def nats(self, rel_tol: float = 1e-30) -> Enclosure:
        """Π in nats, enclosed."""
        return self._enclose(lambda v: v.log(), rel_tol, at_one=0)

    def bits(self, rel_tol: float = 1e-30) -> Enclosure:
        """Π in bits, enclosed."""
        return self._enclose(lambda v: v.log() / arb(2).log(), rel_tol, at_one=0)

    def _enclose(self, fn: Any, rel_tol: float, at_one: int) -> Enclosure:
        if self.exp_value == RationalFunction(1):  # no leakage: exp Π = 1 and Π = 0, exactly
            return Enclosure.exact(Fraction(at_one))

        def step(prec: int) -> Enclosure | None:
            enc = Enclosure.from_ball(fn(at_exp(self.exp_value, self.eps)))
            return enc if enc.rel_width() <= rel_tol else None

        enc, _ = refine(step, what=f"SML at eps = {self.eps}", max_prec=MAX_PREC)
        return enc


def _entry(value: Any, where: str) -> RationalFunction:
    if isinstance(value, RationalFunction):
        return value
    return RationalFunction(parse_rational(value, where).value)


def sml_at_exp(rows: Sequence[tuple[str, Sequence[Any]]], eps: Any, *, max_prec: int = MAX_PREC) -> ParametricSML:
    """Exact ``exp Π`` (Proposition IV.1) of a mechanism with entries given as rational functions of x = e^ε.

    Args:
        rows: ``(secret label, entries)`` per input θ; entries are :class:`RationalFunction` objects in
            :data:`~dpcert.arith.exact.X` or exact rationals. Each row must sum to 1 identically in x.
        eps: ε >= 0, exact (decimals as strings).
        max_prec: the largest precision any comparison may use.

    Returns:
        The exact maximum as a rational function, with a maximising selection.

    Raises:
        InvalidParameter: for an empty mechanism, rows of different lengths, a row that does not sum to 1, an
            entry negative at e^ε, ε < 0, or more than :data:`MAX_SELECTIONS` selections.
        PrecisionExhausted: if a comparison is undecided at ``max_prec`` (a pole near e^ε).

    >>> from dpcert.arith.exact import X
    >>> rr = [("0", [X / (1 + X), 1 / (1 + X)]), ("1", [1 / (1 + X), X / (1 + X)])]
    >>> sml_at_exp(rr, "1").exp_value == 2 * X / (1 + X)
    True
    """
    e = parse_rational(eps, "eps")
    if e.value < 0:
        raise InvalidParameter("eps", eps, "a real number >= 0")
    if not rows:
        raise InvalidParameter("rows", rows, "at least one row")
    width = len(rows[0][1])
    table: list[tuple[str, list[RationalFunction]]] = []
    for i, (secret, entries) in enumerate(rows):
        where = f"row[{i}]"
        if len(entries) != width or width == 0:
            raise InvalidParameter(where, f"<{len(entries)} entries>", f"{width} entries, as row[0] has")
        fs = [_entry(v, f"{where}[{j}]") for j, v in enumerate(entries)]
        if sum(fs, RationalFunction(0)) != RationalFunction(1):
            raise InvalidParameter(where, [repr(f) for f in fs], "entries summing to 1 identically in x = e^eps")
        for j, f in enumerate(fs):
            if sign_at_exp(f, e, max_prec=max_prec) < 0:
                raise InvalidParameter(f"{where}[{j}]", repr(f), "a probability >= 0 at x = e^eps")
        table.append((str(secret), fs))
    groups: dict[str, list[int]] = {}
    for i, (secret, _) in enumerate(table):
        groups.setdefault(secret, []).append(i)
    count = 1
    for g in groups.values():
        count *= len(g)
    if count > MAX_SELECTIONS:
        raise InvalidParameter(
            "rows", f"<{count} selections>", f"at most {MAX_SELECTIONS} selections (this path enumerates them)"
        )

    def bigger(a: RationalFunction, b: RationalFunction) -> bool:
        return sign_at_exp(a - b, e, max_prec=max_prec) > 0

    best: tuple[RationalFunction, tuple[int, ...]] | None = None
    for choice in itertools.product(*groups.values()):
        total = RationalFunction(0)
        for col in range(width):
            top = table[choice[0]][1][col]
            for i in choice[1:]:
                if bigger(table[i][1][col], top):
                    top = table[i][1][col]
            total = total + top
        if best is None or bigger(total, best[0]):
            best = (total, choice)
    assert best is not None
    return ParametricSML(best[0], e, dict(zip(groups, best[1], strict=True)), count)
