"""The noise functions γ of DaRRM as exact tables over l = 0..K.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

A γ is a :class:`Gamma`: a symmetric table of rationals ``table[l] = γ(l)`` in [0, 1], optionally multiplied by
an exact ``scale`` that is a rational function of x = e^ε (γ_const, whose p_const of Lemma A.1 depends on ε).

* γ_Sub (Lemma 3.1, Eqs. 23–30): ``γ(l) = |2 h_Sub(l) − 1|`` with ``h_Sub(l) = Pr[majority of m drawn without
  replacement is 1 | L = l]`` and a fair coin on ties (even m). The paper prints ``1 − 2h`` for every l, which is
  right only for l ≤ (K−1)/2, and Algorithm 3 sends ties to 1 (docs/derivations/darrm.md#the-noise-functions): with that
  rule γ would not be
  symmetric, so the fair coin is the reading that makes Lemma 3.1 true (tested against brute-force subsampling).
* γ_DSub (Theorem 4.1 / Lemma B.10): the γ_Sub of 2m − 1 mechanisms, for m ≤ (K−1)/2 (the denominator is
  C(K, 2m−1); the markdown copy garbles it).
* γ_max (Theorem 4.1): γ ≡ 1 for m ≥ (K+1)/2, γ_DSub otherwise.
* γ_const (Algorithm 2, Lemma A.1, Eq. 4): the constant p_const, with the validity conditions of
docs/derivations/darrm.md#the-constant-noise-function
  (τ ≥ m, λ ∈ [0, 1)); values above 1 are replaced by 1 (a probability; the constraint is downward closed in a
  constant γ, so this keeps feasibility).
* the symmetric-form family (Definition B.6) from a table h, and a user's table (CSV ``l,gamma`` or a JSON list).

References:
    S. Jiang, Q. Zhang, G. Joshi, DaRRM (TMLR): Lemma 3.1, Theorem 4.1, Lemma A.1, Definition B.6.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

from dpcert.arith.exact import Exact, RationalFunction, X, parse_rational
from dpcert.errors import InvalidParameter

__all__ = [
    "Gamma",
    "check_k",
    "check_integer_m",
    "h_sub",
    "gamma_sub",
    "gamma_dsub",
    "gamma_max",
    "gamma_one",
    "p_const",
    "gamma_const",
    "symmetric_form",
    "load_table",
    "read_table",
    "NAMED",
]

#: The γ names the certifier and the CLI accept besides a table path.
NAMED = ("sub", "dsub", "max", "const", "one")


@dataclass(frozen=True)
class Gamma:
    """A symmetric noise function γ(l) = scale · table[l], l = 0..K.

    Attributes:
        name: what it is (``"sub"``, ``"dsub"``, ``"max"``, ``"const"``, a file name).
        table: exact values, length K + 1, symmetric, each in [0, 1].
        scale: an exact rational, or a :class:`RationalFunction` of x = e^ε (then γ depends on ε).
    """

    name: str
    table: tuple[Fraction, ...]
    scale: Fraction | RationalFunction = Fraction(1)

    def __hash__(self) -> int:
        # Fraction.__hash__ is slow (a modular inverse); caches key on Gammas, so hash once
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.name, tuple((v.numerator, v.denominator) for v in self.table), self.scale))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict[str, Any]:
        # the remembered hash stays behind: a string's hash differs between processes, so a Gamma unpickled in a Dask
        # worker with its sender's hash would be equal to that worker's own Gammas and hash differently; the caches
        # keyed on it (the DaRRM float setting: 154 MiB of levels at K = 41, Δ > 0) then missed on every run and grew
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @property
    def K(self) -> int:
        return len(self.table) - 1

    @property
    def eps_free(self) -> bool:
        """True when γ does not depend on ε (the for-every-ε certifier needs it)."""
        return not isinstance(self.scale, RationalFunction)

    def scaled(self, c: Fraction) -> Gamma:
        """The table multiplied by the rational c (the scale stays)."""
        return Gamma(f"{c}*{self.name}", tuple(c * g for g in self.table), self.scale)


def check_k(K: Any) -> int:
    """K must be an odd integer >= 1 (Problem 1.1)."""
    if isinstance(K, bool) or not isinstance(K, int) or K < 1 or K % 2 == 0:
        raise InvalidParameter("K", K, "an odd integer >= 1")
    return K


def check_integer_m(K: int, m: Any) -> int:
    """m must be an integer with 1 <= m <= K (Lemma 3.1, Theorem 4.1)."""
    mv = m.value if isinstance(m, Exact) else m
    if isinstance(mv, Fraction) and mv.denominator == 1:
        mv = int(mv)
    if isinstance(mv, bool) or not isinstance(mv, int) or not 1 <= mv <= K:
        raise InvalidParameter("m", m, f"an integer with 1 <= m <= K = {K} (this γ subsamples m mechanisms)")
    return mv


def h_sub(K: int, m: int) -> tuple[Fraction, ...]:
    """h_Sub(l) = Pr[the majority of m of K drawn without replacement is 1 | L = l], fair coin on ties.

    References:
        DaRRM Lemma 3.1, Eqs. 19–20 [JZJ24] (with the fair-coin tie rule;
        docs/derivations/darrm.md#the-noise-functions).
    """
    check_k(K)
    check_integer_m(K, m)
    total = comb(K, m)
    out = []
    for l in range(K + 1):
        s = sum(comb(l, j) * comb(K - l, m - j) for j in range(m // 2 + 1, m + 1))
        h = Fraction(s, total)
        if m % 2 == 0:
            h += Fraction(comb(l, m // 2) * comb(K - l, m // 2), 2 * total)
        out.append(h)
    return tuple(out)


def _fold(h: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    """γ(l) = 1 − 2h(l) for l <= H, 2h(l) − 1 for l >= H + 1."""
    K = len(h) - 1
    H = (K - 1) // 2
    return tuple(1 - 2 * v if l <= H else 2 * v - 1 for l, v in enumerate(h))


def gamma_sub(K: int, m: int) -> Gamma:
    """γ_Sub: DaRRM_γSub has the output law of the majority of m subsampled mechanisms (Lemma 3.1).

    Raises:
        InvalidParameter: K not odd or m not an integer in [1, K].

    References:
        DaRRM Lemma 3.1 and App. A.2, Eqs. 23–30 [JZJ24] (evaluated on min(l, K − l),
        docs/derivations/darrm.md#the-noise-functions).
    """
    return Gamma("sub", _fold(h_sub(K, m)))


def gamma_dsub(K: int, m: int) -> Gamma:
    """γ_DSub = γ_Sub of 2m − 1 mechanisms, for 1 <= m <= (K − 1)/2 (Theorem 4.1).

    Raises:
        InvalidParameter: m outside [1, (K − 1)/2] (use :func:`gamma_max` there).

    References:
        [JZJ24, Thm 4.1] and Lemma B.10.
    """
    check_k(K)
    m = check_integer_m(K, m)
    if 2 * m - 1 > K - 2:
        raise InvalidParameter("m", m, f"1 <= m <= (K-1)/2 = {(K - 1) // 2} for gamma=dsub (use gamma=max)")
    return Gamma("dsub", _fold(h_sub(K, 2 * m - 1)))


def gamma_one(K: int) -> Gamma:
    """γ ≡ 1: output the exact majority (no noise)."""
    check_k(K)
    return Gamma("one", tuple(Fraction(1) for _ in range(K + 1)))


def gamma_max(K: int, m: int) -> Gamma:
    """γ_max of Theorem 4.1: γ ≡ 1 when m >= (K + 1)/2, γ_DSub otherwise.

    References:
        [JZJ24, Thm 4.1], Lemmas B.5 and B.10.
    """
    check_k(K)
    m = check_integer_m(K, m)
    if 2 * m >= K + 1:
        return Gamma("max", gamma_one(K).table)
    return Gamma("max", gamma_dsub(K, m).table)


def p_const(m: Fraction, tau: Fraction, lam: Fraction, delta: Fraction) -> RationalFunction:
    """Lemma A.1's p_const as a rational function of x = e^ε (m and τ integers).

    p_const = (x^m − 1 + 2δ) / (2(x^τ − x^m + (1 + x^m)λ)/(x^τ + 1) + x^m − 1)   (Eq. 4 = Eq. 16).

    Raises:
        InvalidParameter: m or τ not an integer, τ < m (then the printed maximiser of Eq. 13 is not the maximiser;
            docs/derivations/darrm.md#the-constant-noise-function), λ outside [0, 1).

    References:
        DaRRM Lemma A.1, Eq. 4.
    """
    if m.denominator != 1:
        raise InvalidParameter("m", m, "an integer for an exact p_const (a rational function of e^eps)")
    if tau.denominator != 1:
        raise InvalidParameter("tau", tau, "an integer for an exact p_const")
    if tau < m:
        raise InvalidParameter("tau", tau, f"tau >= m = {m} (Lemma A.1's maximiser needs it)")
    if not 0 <= lam < 1:
        raise InvalidParameter("lambda", lam, "a real in [0, 1)")
    xm, xt = X ** int(m), X ** int(tau)
    return (xm - 1 + 2 * delta) / (2 * (xt - xm + (1 + xm) * lam) / (xt + 1) + xm - 1)


def gamma_const(
    K: int,
    m: Fraction,
    delta: Fraction,
    *,
    tau: Fraction | None = None,
    lam: Fraction = Fraction(0),
    eps: Fraction | None = None,
) -> Gamma:
    """γ_const ≡ min(1, p_const): randomized response on the majority (Algorithm 2, Lemma A.1).

    Args:
        K: odd number of mechanisms.
        m: privacy allowance (integer).
        delta: the target δ.
        tau, lam: the majority is (τε, λ)-DP by composition; default τ = K (simple composition).
        eps: if given, decide whether p_const > 1 at this ε (then γ ≡ 1); otherwise p_const is kept as is.

    References:
        DaRRM Lemma A.1 (Eq. 4), App. D.1.1 for τ and λ.
    """
    from dpcert.arith.ball import sign_at_exp

    check_k(K)
    tau = Fraction(K) if tau is None else tau
    if not 1 <= tau <= K:
        raise InvalidParameter("tau", tau, f"a real in [1, K = {K}]")
    pc = p_const(Fraction(m), tau, Fraction(lam), Fraction(delta))
    ones = gamma_one(K).table
    if eps is not None and Fraction(eps) == 0 and pc.den(1) == 0:
        # at ε = 0 with λ = 0 Lemma A.1's condition p·den ≤ num reads p·0 ≤ 2δ: every p satisfies it, p_const
        # is unbounded and γ ≡ min(1, p_const) = 1 (the quotient num/den itself is 2δ/0)
        return Gamma("const", ones)
    if eps is not None and sign_at_exp(pc - 1, eps) >= 0:
        return Gamma("const", ones)
    return Gamma("const", ones, pc)


def symmetric_form(h: Any, name: str = "symmetric-form") -> Gamma:
    """The member of the symmetric-form family (Definition B.6) built from h.

    Raises:
        InvalidParameter: h(l) + h(K − l) != 1, h not non-decreasing, values outside [0, 1], or γ(H) = 0.

    References:
        DaRRM Definition B.6.
    """
    hv = tuple(Fraction(v) for v in h)
    K = check_k(len(hv) - 1)
    for l, v in enumerate(hv):
        if not 0 <= v <= 1:
            raise InvalidParameter(f"h[{l}]", v, "a value in [0, 1]")
        if v + hv[K - l] != 1:
            raise InvalidParameter(f"h[{l}]", v, f"h(l) + h(K-l) = 1 (h[{K - l}] = {hv[K - l]})")
        if l and v < hv[l - 1]:
            raise InvalidParameter(f"h[{l}]", v, f">= h[{l - 1}] = {hv[l - 1]} (h non-decreasing)")
    g = _fold(hv)
    if g[(K - 1) // 2] <= 0:
        raise InvalidParameter("h", hv, "gamma((K-1)/2) > 0 (Definition B.6)")
    return Gamma(name, g)


def _table_strings(values: Any, K: int | None, name: str) -> tuple[tuple[str, ...], Gamma]:
    """The table's values as given (stripped strings) and its checked :class:`Gamma`."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise InvalidParameter("gamma", values, "a γ table: a list of K + 1 exact values")
    given = []
    for l, v in enumerate(values):
        if not isinstance(v, str):
            raise InvalidParameter(f"{name} row l={l}", v, "an exact decimal or fraction written as a string")
        given.append(v.strip())
    return tuple(given), validate_table(given, K, name=name)


def validate_table(values: Any, K: int | None = None, name: str = "table") -> Gamma:
    """A user's γ table checked: length K + 1 (K odd), values exact in [0, 1], symmetric.

    Raises:
        InvalidParameter: naming the first bad row.
    """
    vals = []
    for l, v in enumerate(values):
        try:
            vals.append(parse_rational(v, f"gamma[{l}]").value)
        except InvalidParameter:
            raise InvalidParameter(f"{name} row l={l}", v, "an exact decimal or fraction in [0, 1]") from None
    n = len(vals)
    if n < 2 or n % 2 == 1:
        raise InvalidParameter(f"{name} length", n, "K + 1 values with K odd (an even count >= 2)")
    if K is not None and n != K + 1:
        raise InvalidParameter(f"{name} length", n, f"K + 1 = {K + 1} values (one per l = 0..K)")
    k = n - 1
    for l, v in enumerate(vals):
        if not 0 <= v <= 1:
            raise InvalidParameter(f"{name} row l={l}", v, "a value in [0, 1]")
        if v != vals[k - l]:
            raise InvalidParameter(f"{name} row l={l}", v, f"gamma(l) = gamma(K-l) = {vals[k - l]} (symmetric)")
    return Gamma(name, tuple(vals))


def _read_values(path: str | Path) -> tuple[list[str], str]:
    """The value strings of a γ table file (CSV ``l,gamma`` or a JSON list) and the file's name; read bounded."""
    from dpcert.core.files import loads_json, read_text

    p = Path(path)
    text = read_text(p, what="gamma")
    if p.suffix.lower() == ".json" or text.lstrip().startswith("["):
        data = loads_json(text, where=str(path), what="gamma", parse_float=str, parse_int=str)
        if not isinstance(data, list):
            raise InvalidParameter("gamma", str(path), "a JSON list of K + 1 values")
        return [v if isinstance(v, str) else json.dumps(v) for v in data], p.name
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # a field over the csv module's limit (128 KiB)
        raise InvalidParameter("gamma", str(path), f"a well-formed CSV table ({exc})") from None
    rows = [r for r in rows if r and any(c.strip() for c in r)]
    if not rows or [c.strip().lower() for c in rows[0]] != ["l", "gamma"]:
        raise InvalidParameter("gamma", str(path), "a CSV file whose header is 'l,gamma' (or a JSON list)")
    vals = []
    for i, r in enumerate(rows[1:]):
        if len(r) != 2 or r[0].strip() != str(i):
            raise InvalidParameter(f"{p.name} row {i + 2}", ",".join(r), f"'{i},<value>' (rows l = 0..K in order)")
        vals.append(r[1].strip())
    return vals, p.name


def load_table(path: str | Path, K: int | None = None) -> Gamma:
    """Read a γ table: a CSV file with header ``l,gamma`` and rows l = 0..K, or a JSON list of K + 1 values.

    Values are exact decimals (``"0.25"``) or fractions (``"1/3"``); JSON numbers are read from their text. The
    file is read through :func:`dpcert.core.files.read_text` (bounded; FIFOs, devices, binary files refused).

    Raises:
        InvalidParameter: unreadable file, malformed rows, wrong length, values outside [0, 1], not symmetric.
    """
    vals, name = _read_values(path)
    return _table_strings(vals, K, name)[1]


def read_table(value: Any) -> tuple[str, ...]:
    """A γ table as the tuple of its exact value strings, from a file path or from the values themselves.

    This is what the γ parameter records (:func:`dpcert.darrm.params.gamma_param`): a certificate holds the table,
    never a path, so re-checking it reads no file. The values are checked as a file's are (length K + 1 with K odd,
    exact values in [0, 1], symmetric); K itself is checked against the table where γ is used.

    Raises:
        InvalidParameter: an unreadable or malformed file, or a malformed table.
    """
    if isinstance(value, (str, Path)):
        vals, name = _read_values(value)
        return _table_strings(vals, None, name)[0]
    return _table_strings(value, None, "gamma")[0]


def named_gamma(gamma: Any, K: int, m: Fraction, eps: Fraction, Delta: Fraction, delta: Fraction) -> Gamma:
    """γ from its CLI / quantity name (``sub``, ``dsub``, ``max``, ``const``, ``one``) or its table (a list of exact
    value strings, as :func:`read_table` returns it). A path is not accepted here: a file is read once, where the
    input is parsed (:func:`read_table`), so that a check re-run from a certificate never reads one.

    ``const`` uses τ = K and λ = 1 − (1 − Δ)^K (simple composition;
    docs/derivations/darrm.md#the-constant-noise-function; λ = 0 for Δ = 0).
    """
    if gamma == "sub":
        return gamma_sub(K, check_integer_m(K, m))
    if gamma == "dsub":
        return gamma_dsub(K, check_integer_m(K, m))
    if gamma == "max":
        return gamma_max(K, check_integer_m(K, m))
    if gamma == "one":
        return gamma_one(K)
    if gamma == "const":
        lam = 1 - (1 - Delta) ** K
        return gamma_const(K, check_integer_m(K, m), delta, lam=lam, eps=eps)
    if isinstance(gamma, (list, tuple)):
        return _table_strings(gamma, K, "table")[1]
    what = f"one of {', '.join(NAMED)} or a table (a list of K + 1 exact values; a file is read by the CLI)"
    raise InvalidParameter("gamma", gamma, what)
