"""Certified Rényi DP for dp-accounting's events, and its certified conversion to (ε, δ)-DP.

This is the accountant's path for the events no tight privacy-loss distribution covers (``ZCDpEvent``,
``SingleEpochTreeAggregationDpEvent``, ``RepeatAndSelectDpEvent``), and a second, looser path for the basic events
(Gaussian, Laplace, randomized response, the Poisson-sampled Gaussian). An *RDP curve* of a mechanism M under a
neighbouring relation is a function ρ with D_α(M(D)‖M(D′)) <= ρ(α) for every order α > 1 and every ordered pair of
neighbours (D, D′) — both orders of the pair, so both "remove" and "add" under add/remove. Every curve here is an
**upper bound** of that kind, evaluated in exact rationals where it is rational and in rigorous balls otherwise,
and composition adds curves order by order (adaptive composition, [Mir17] Prop. 1).

**Events.** An event is any object whose class name (``type(event).__name__``) is a dp-accounting 0.6 event name
and whose attributes are its fields: dp-accounting's own objects, dpcert's ``dpcert.accounting.events``, or a
small dataclass. Numbers are read exactly: a string, ``int`` or ``Fraction`` as it is, a ``float`` at its decimal
text (``1.1`` is 11/10, the number typed), as ``dpcert.accounting.events`` reads them. A noise multiplier is the
noise's scale over the norm bound C of one record's contribution (dp-accounting's docstrings), so a query's value
moves by up to C under add/remove and by up to 2C under replace-one: **under replace-one every sensitivity below is
doubled** (dp-accounting's RDP accountant keeps it at 1, google/differential-privacy#378, so its replace-one RDP is
below the truth for the Gaussian and the Laplace; it refuses the tree under replace-one).

The curves, with their proofs:

* **Gaussian** (noise multiplier σ, sensitivity Δ = 1, or 2 under replace-one): D_α(N(Δ, σ²)‖N(0, σ²)) = αΔ²/(2σ²)
  exactly ([Mir17] Prop. 7); a vector query with ‖v‖₂ <= Δ reduces to this by rotation invariance. Exact rational.
* **zCDP** (ρ, ξ): the event *states* that the mechanism satisfies D_α <= ξ + ρα at every α > 1 ([BS16]
  Def. 1.1), so that is its curve, exactly. dpcert cannot check a stated ρ: it is taken as given **for the relation
  the caller names** (a ρ derived for add/remove is not a replace-one ρ; the caller must state the one that holds).
* **Tree aggregation** (σ, step counts T or [T_j]; Kairouz et al. [KMSTTX21] App. D, online tree with every
  completed node released with fresh N(0, σ²C²) noise, each record in at most one step of at most one tree). A
  completed node of a tree over T steps is a dyadic block [j·2^l + 1, (j + 1)·2^l] with (j + 1)·2^l <= T, so it
  exists at level l only when 2^l <= T; a step lies in at most one block per level, hence in at most
  d = ⌊log₂ T⌋ + 1 = bit_length(T) released nodes, and step 1 lies in exactly that many (so d is attained).
  dp-accounting's ⌈log₂(T + 1)⌉ is the same integer for T >= 1 (and 0 for T = 0); here it is computed exactly,
  as ``bit_length``, from the largest T_j (the record is in one tree). Conditional on everything released before,
  each release is a Gaussian whose mean moves by v (‖v‖ <= Δ) if the node holds the record's step and not at all
  otherwise; adaptive composition of these at most d Gaussians gives ρ(α) = α·d·Δ²/(2σ²). Under add/remove the
  event's step counts are fixed by the event, so adding a record does not move another: this is dp-accounting's
  REPLACE_SPECIAL (zero-out) relation, Δ = 1. Under replace-one the record keeps its step and v − v′ has norm <= 2.
* **Laplace** (noise multiplier b, ε₀ = Δ/b): with p, q the densities of Lap(0, b) and Lap(Δ, b), splitting
  ∫ p^α q^{1−α} at 0 and Δ gives e^{(α−1)ε₀}/2 + (e^{(α−1)ε₀} − e^{−αε₀})/(2(2α − 1)) + e^{−αε₀}/2, i.e.
  D_α = g(ε₀)/(α − 1) with g(t) = log(α/(2α−1)·e^{(α−1)t} + (α−1)/(2α−1)·e^{−αt}) ([Mir17] Prop. 6); both
  directions agree (mirror image). For a vector query with ‖v‖₁ <= Δ and i.i.d. Laplace noise the divergence is
  Σ_i g(|v_i|/b)/(α − 1); g is a log-sum-exp of affine functions of t, hence convex, with g(0) = 0, so it is
  superadditive on t >= 0 and Σ_i g(|v_i|/b) <= g(Σ_i|v_i|/b) <= g(Δ/b) (g' (0) = 0 and convexity make g
  non-decreasing there). Evaluated in balls as log1p(α/(2α−1)·expm1((α−1)t) + (α−1)/(2α−1)·expm1(−αt))/(α − 1).
* **Randomized response** (p, k; replace-one only: add/remove does not define it): for inputs x ≠ x′ the outputs
  are P = (1−p+p/k on x, p/k on x′, p/k on each other bucket) and Q with x and x′ swapped, whatever x, x′ are, so
  D_α(P‖Q) = log(a^α b^{1−α} + b^α a^{1−α} + (k−2)b)/(α − 1) with a = 1 − p + p/k, b = p/k, exactly (symmetric
  in the two directions); at an integer α the argument of the log is an exact rational. p = 0 (k >= 2) releases
  the input: ρ = +∞. p = 1 or k = 1 releases nothing: ρ = 0.
* **Poisson-sampled Gaussian** (rate q, one ``GaussianDpEvent`` inside, add/remove only): the certified RDP of
  :mod:`dpcert.gaussian.sgm` (Mironov–Talwar–Zhang [MTZ19]): at an integer order the remove direction, which bounds
  the add direction there ([MTZ19] Sec. 3); at a non-integer order the max of both directions by certified
  quadrature, within that module's caps, and beyond them the value at ⌈α⌉ (RDP is non-decreasing in the order,
  [EH14] Thm 3). Replace-one is refused (no certified RDP here; its PLD is tight). A composition of Gaussians on
  one sample (which dp-accounting collapses into one Gaussian of σ = (Σσ_i^{−2})^{−1/2}, reading them as one
  non-adaptive vector query) is refused: that reading is not proved here for adaptive queries.
* **Discrete Gaussian** (dpcert's ``DiscreteGaussianDpEvent``, σ, integer sensitivity Δ; doubled under
  replace-one): N_Z(0, σ²) with sensitivity Δ satisfies (Δ²/(2σ²))-zCDP (Canonne–Kamath–Steinke [CKS20], their
  concentrated-DP theorem for the discrete Gaussian), ρ(α) = αΔ²/(2σ²).
* **Repeat and select** (``event``, mean, shape; Papernot–Steinke [PS22]): K runs of the base mechanism Q with K
  random, the best output kept (an output ⊥ when K = 0). Papernot–Steinke bound the RDP of the result from Q's
  RDP at other orders; dpcert evaluates their two theorems as dp-accounting does, every term in balls:

  - *Truncated negative binomial* (shape η >= 0 finite; η = 1 is the geometric law, η = 0 the logarithmic one):
    P[K = k] = w_k (1 − γ)^k / (γ^{−η} − 1) for k >= 1, w_k = Π_{l<k}(l + η)/(l + 1) (for η = 0 the limit
    (1 − γ)^k/(k log(1/γ))). [PS22] Thm 2: if Q is (λ, ε)- and (λ̂, ε̂)-RDP, the result is (λ, ε′)-RDP with
    ε′ = ε + (1 + η)(1 − 1/λ̂)ε̂ + (1 + η)log(1/γ)/λ̂ + log(E[K])/(λ − 1). The free λ̂ is taken at every order
    of the given set and the least value kept (any one λ̂ is valid, so the minimum is). The event gives E[K] = m,
    not γ: since Σ_{k>=0} w_k x^k = (1 − x)^{−η}, the law sums to 1 and E[K] = x·d/dx(1 − x)^{−η}/(γ^{−η} − 1)
    at x = 1 − γ, that is η(1 − γ)/(γ(1 − γ^η)) (η = 0: (1 − γ)/(γ log(1/γ)); η = 1: 1/γ). The law is an
    exponential family in θ = log(1 − γ) with statistic k (w_k does not depend on γ), so its mean is strictly
    increasing in θ — its derivative is the variance — i.e. strictly decreasing in γ. A rational γ_lo whose mean
    is certainly > m is therefore below the true γ, and log(1/γ) <= log(1/γ_lo): γ_lo is found by certified
    bisection (exactly 1/m for η = 1). m = 1 forces K = 1 (K >= 1), and the curve is Q's. Last, as in
    dp-accounting, ε′ at an order is replaced by the least ε′ of the orders of the set at or above it: RDP is
    non-decreasing in the order ([EH14] Thm 3), so a bound at a larger order bounds a smaller one.
  - *Poisson* (shape ``inf``, mean μ): [PS22] Thm 6: if Q is (λ, ε)-RDP and (ε̂, δ̂)-DP with e^{ε̂} <= 1 + 1/(λ − 1),
    the result is (λ, ε + μδ̂ + log(μ)/(λ − 1))-RDP. Here ε̂ = log(λ/(λ − 1)) (the largest allowed) and δ̂ is
    Q's certified δ at ε̂ from its own curve over the order set (the conversion below, and the Bretagnolle–Huber
    branch), as dp-accounting's ``compute_delta`` does.

  Refused, one line each: a shape < 0 ([PS22] states Thm 2 for η > −1, but dp-accounting does not implement it
  and it is not checked here), a mean < 1 (a truncated law has K >= 1; the Poisson case is not checked below
  1), a base event with no certified curve. The theorems' proofs (a probability-generating-function argument and
  Hölder's inequality) are [PS22]'s, and their statements are taken as dp-accounting 0.6 cites and implements
  them (Thms 2 and 6 of arXiv v2; the paper's text was not re-read for this module): what is derived here is how
  the event's numbers enter them (γ from the mean, the order set, the monotone pass, δ̂). The curve
  depends on the order set (λ̂ ranges over it), so ``rdp_curve`` takes the same ``orders`` as the conversion.
* **Compositions**: ``SelfComposedDpEvent`` multiplies a curve by its count, ``ComposedDpEvent`` adds curves,
  ``NoOpDpEvent`` is 0 and ``NonPrivateDpEvent`` is +∞. Events without a certified RDP here (discrete Laplace,
  mixtures of Gaussians, sampling with or without replacement, truncated subsampling) give ``None``; their
  reason is :func:`rdp_refusal`.

**Conversion.** For a composed curve ρ and any order α > 1 of the set, Canonne–Kamath–Steinke [CKS20] Prop. 12
(= [BBGHS20] Thm 21) gives (ε, δ)-DP with ε = ρ(α) + log(1 − 1/α) − (log δ + log α)/(α − 1), and at a given ε,
δ = exp((α − 1)(ρ(α) − ε))(1 − 1/α)^α/(α − 1) (:mod:`dpcert.composition.rdp`, where they are proved). Besides,
δ(ε) <= δ(0) = TV <= √(1 − e^{−KL}) (Bretagnolle–Huber) and KL <= ρ(α) for every α >= 1 ([EH14] Thm 3), so
ε = 0 as soon as δ² >= 1 − e^{−ρ(α)} at some order, and δ <= min(1, √(1 − e^{−ρ(α)})). Each order gives a
valid bound on its own, so the least over **any** finite order set is a certified upper bound: a set is a choice
of effort, never of soundness. Both bounds increase with ρ(α), so for a curve proved non-decreasing in the order
(every exact divergence here, the linear curves, the sampled Gaussian's — its non-integer orders take the max
of both directions, at most the next integer order's value by [MTZ19]'s dominance there — and repeat-and-select on
its own orders) an order whose bound at the lower end of ρ at an evaluated smaller order is certainly above the
best found is skipped: it cannot be the least, and the result is the one of the whole set. The returned
enclosure is **[0, hi]**: hi is the least certified upper end over the orders (a ball's upper end, an exact
rational), and 0 is the only lower bound RDP gives (a curve is an upper bound of the divergence; a ρ-zCDP event
may be a no-op). :func:`rdp_epsilon_bound` also reports the enclosure of
the RDP bound itself at its best order and the order.

References:
    I. Mironov [Mir17] Props. 1, 6, 7; M. Bun, T. Steinke [BS16]; C. Canonne, G. Kamath, T. Steinke [CKS20]
    Prop. 12; B. Balle et al. [BBGHS20] Thm 21; I. Mironov, K. Talwar, L. Zhang [MTZ19]; T. van Erven, P. Harremoës
    [EH14] Thm 3; P. Kairouz, B. McMahan, S. Song, O. Thakkar, A. Thakurta, Z. Xu [KMSTTX21] App. D; N. Papernot,
    T. Steinke [PS22] Thms 2 and 6; dp-accounting 0.6 ``rdp/rdp_privacy_accountant.py`` (what is mirrored).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb
from flint import ctx as _flint_ctx

from dpcert.arith.ball import Enclosure, ball, fraction_of, workprec
from dpcert.arith.context import BallContext
from dpcert.arith.exact import parse_int, parse_rational
from dpcert.composition.rdp import cks_delta_raw, cks_eps_raw
from dpcert.core.vocabulary import NEIGHBORING
from dpcert.errors import InvalidParameter
from dpcert.gaussian import sgm

__all__ = [
    "RdpCurve",
    "RdpBound",
    "rdp_curve",
    "rdp_refusal",
    "rdp_epsilon",
    "rdp_delta",
    "rdp_epsilon_bound",
    "rdp_delta_bound",
    "DEFAULT_ORDERS",
    "NEIGHBORING",
    "MAX_ORDER",
]

#: The largest order accepted (the sampled Gaussian's integer sum stops there).
MAX_ORDER = sgm.SGM_MAX_ALPHA
#: The default orders, 1.1..1.9 by tenths, 2..9.75 by quarters, every integer 10..64, then 80..1024 (33 of them
#: non-integer; every one is a valid order, so the set only decides how tight the bound is).
DEFAULT_ORDERS: tuple[Fraction, ...] = tuple(
    [Fraction(10 + k, 10) for k in range(1, 10)]
    + [Fraction(8 + k, 4) for k in range(32)]
    + [Fraction(n) for n in range(10, 65)]
    + [Fraction(n) for n in (80, 96, 128, 192, 256, 384, 512, 768, 1024)]
)

#: The first precision (bits) of a conversion, and the last (the bound is valid at any precision; more bits only
#: narrow it).
_START_PREC = 128
_MAX_PREC = 2048
#: A conversion stops refining once the best order's ball is this narrow relative to its value.
_REL_GOAL = Fraction(1, 2**50)

_INF = math.inf  # the value of a curve that is +infinity (an arb has no signed infinity)

Value = Any  # arb | Fraction | float (only math.inf)


# ------------------------------------------------------------------------------------------------ values


def _is_inf(v: Value) -> bool:
    return isinstance(v, float)


def _add(a: Value, b: Value) -> Value:
    if _is_inf(a) or _is_inf(b):
        return _INF
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return ball(a) + ball(b)


def _times(c: int | Fraction, v: Value) -> Value:
    if c == 0:
        return Fraction(0)
    if _is_inf(v):
        return _INF
    if isinstance(v, Fraction):
        return c * v
    return ball(v) * ball(Fraction(c))


def _min(vs: Iterable[Value]) -> Value:
    """The least value (a ball enclosing the minimum of the enclosed values)."""
    out: Value = _INF
    for v in vs:
        if _is_inf(v):
            continue
        if _is_inf(out):
            out = v
        elif isinstance(out, Fraction) and isinstance(v, Fraction):
            out = min(out, v)
        else:
            out = ball(out).min(ball(v))
    return out


def _certainly_above(v: Value, bound: Fraction) -> bool:
    """Whether v is certainly > bound (then its exact upper end is not needed)."""
    return not isinstance(v, Fraction) and not _is_inf(v) and bool(v > ball(bound))


def _upper(v: Value) -> Fraction | None:
    """The exact upper end of a value (``None`` for +∞ or a ball that is not finite)."""
    if _is_inf(v):
        return None
    if isinstance(v, Fraction):
        return v
    if not v.is_finite():
        return None
    return fraction_of(v.mid()) + fraction_of(v.rad())


# ------------------------------------------------------------------------------------------------ curves


class RdpCurve:
    """A certified upper bound α ↦ ρ(α) on the Rényi divergence of order α of a mechanism (both directions of
    the neighbouring relation it was made for).

    Calling it at an order α > 1 (a rational) returns an exact ``Fraction``, an ``arb`` ball at flint's current
    working precision, or ``math.inf``.

    Attributes:
        label: what the curve bounds, for messages (``GaussianDpEvent(noise_multiplier=1)``).
        neighboring: the relation it holds for (a conversion under another relation refuses it).
        monotone: whether the bound itself (the number each ball encloses) is proved non-decreasing in α (``True``),
            or on a set of orders only (a ``frozenset``: repeat-and-select's curve, after its monotone pass over its
            own orders), which lets a conversion skip an order whose value cannot beat the best one found.
    """

    def __init__(
        self, label: str, at: Callable[[Fraction, int], Value], monotone: bool | frozenset[Fraction] = False
    ) -> None:
        self.label = label
        self.monotone = monotone
        # the relation the curve was made for (set by rdp_curve; None for a curve built by hand)
        self.neighboring: str | None = None
        self._at = at
        self._cache: dict[tuple[Fraction, int], Value] = {}

    def __repr__(self) -> str:
        return f"RdpCurve({self.label})"

    def value(self, alpha: Fraction, prec: int) -> Value:
        """ρ(α) at ``prec`` bits (cached)."""
        key = (alpha, prec)
        if key not in self._cache:
            with workprec(prec):
                self._cache[key] = self._at(alpha, prec)
        return self._cache[key]

    def __call__(self, alpha: Any) -> Value:
        return self.value(_order(alpha, "alpha"), _flint_ctx.prec)

    def enclosure(self, alpha: Any, prec: int = _START_PREC) -> Enclosure:
        """ρ(α) as an :class:`~dpcert.arith.ball.Enclosure` (``hi`` is ``None`` for +∞)."""
        v = self.value(_order(alpha, "alpha"), prec)
        if _is_inf(v):
            return Enclosure(Fraction(0), None)
        if isinstance(v, Fraction):
            return Enclosure.exact(v)
        return Enclosure.from_ball(v)


def _const(label: str, v: Value) -> RdpCurve:
    return RdpCurve(label, lambda a, p: v, monotone=True)


def _linear(label: str, slope: Fraction, offset: Fraction = Fraction(0)) -> RdpCurve:
    """offset + slope·α, exactly."""
    return RdpCurve(label, lambda a, p: offset + slope * a, monotone=slope >= 0)


def _sum(label: str, parts: Sequence[tuple[RdpCurve, int | Fraction]]) -> RdpCurve:
    def at(a: Fraction, p: int) -> Value:
        total: Value = Fraction(0)
        for curve, count in parts:
            if count:
                total = _add(total, _times(count, curve.value(a, p)))
        return total

    flags = [curve.monotone for curve, _ in parts]
    monotone: bool | frozenset[Fraction] = True
    for f in flags:
        if f is False:
            monotone = False
            break
        if f is not True:
            monotone = f if monotone is True else monotone & f
    return RdpCurve(label, at, monotone=monotone)


# ------------------------------------------------------------------------------------------------ fields


def _order(value: Any, name: str) -> Fraction:
    a = _number(value, name)
    if not 1 < a <= MAX_ORDER:
        raise InvalidParameter(name, value, f"a Renyi order > 1 and <= {MAX_ORDER}")
    return a


def _number(value: Any, name: str) -> Fraction:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(name, value, "a finite real number")
        value = repr(value)  # the decimal typed, as dpcert.accounting.events reads a float
    return parse_rational(value, name).value


def _field(event: Any, name: str) -> Any:
    try:
        return getattr(event, name)
    except AttributeError:
        raise InvalidParameter(
            "event", event, f"a {type(event).__name__} with the field {name!r} (dp-accounting's field names)"
        ) from None


def _real(event: Any, name: str, lo: Fraction | None = Fraction(0), hi: Fraction | None = None) -> Fraction:
    raw = _field(event, name)
    x = _number(raw, name)
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise InvalidParameter(name, raw, f"a real number {rng} ({type(event).__name__})")
    return x


def _int(value: Any, name: str, lo: int) -> int:
    n = parse_int(value, name)
    if n < lo:
        raise InvalidParameter(name, value, f"an integer >= {lo}")
    return n


def _check_neighboring(neighboring: Any) -> str:
    if neighboring not in NEIGHBORING:
        raise InvalidParameter("neighboring", neighboring, " or ".join(NEIGHBORING))
    return str(neighboring)


def _orders(orders: Any) -> tuple[Fraction, ...]:
    if isinstance(orders, (str, bytes)) or not isinstance(orders, Iterable):
        raise InvalidParameter("orders", orders, "a non-empty list of Renyi orders > 1")
    out = tuple(sorted({_order(a, "orders") for a in orders}))
    if not out:
        raise InvalidParameter("orders", orders, "a non-empty list of Renyi orders > 1")
    return out


def _label(event: Any) -> str:
    return type(event).__name__


# ------------------------------------------------------------------------------------------------ events


def _gaussian(event: Any, scale: int) -> RdpCurve:
    sigma = _real(event, "noise_multiplier")
    label = f"GaussianDpEvent(noise_multiplier={sigma})"
    if sigma == 0:
        return _const(label, _INF)
    return _linear(label, Fraction(scale * scale) / (2 * sigma * sigma))


def _laplace(event: Any, scale: int) -> RdpCurve:
    b = _real(event, "noise_multiplier")
    label = f"LaplaceDpEvent(noise_multiplier={b})"
    if b == 0:
        return _const(label, _INF)
    t = Fraction(scale) / b

    def at(a: Fraction, prec: int) -> Value:
        # the first-order terms of the two expm1 cancel: guard bits for t small
        guard = 64 + max(0, (1 / t).numerator.bit_length() - (1 / t).denominator.bit_length())
        with workprec(prec + guard):
            aa, tt = ball(a), ball(t)
            inner = aa / (2 * aa - 1) * ((aa - 1) * tt).expm1() + (aa - 1) / (2 * aa - 1) * (-aa * tt).expm1()
            return inner.log1p() / (aa - 1)

    return RdpCurve(label, at, monotone=True)


def _randomized_response(event: Any, neighboring: str) -> RdpCurve | str:
    p = _real(event, "noise_parameter", Fraction(0), Fraction(1))
    k = _int(_field(event, "num_buckets"), "num_buckets", 1)
    label = f"RandomizedResponseDpEvent(noise_parameter={p}, num_buckets={k})"
    if neighboring != "replace_one":
        return "RandomizedResponseDpEvent: add/remove neighbours do not define randomized response (replace_one only)"
    if k == 1 or p == 1:
        return _const(label, Fraction(0))
    if p == 0:
        return _const(label, _INF)
    a, b, c = 1 - p + p / k, p / k, (k - 2) * p / k

    def at(alpha: Fraction, prec: int) -> Value:
        if alpha.denominator == 1:
            n = int(alpha)
            s = a**n / b ** (n - 1) + b**n / a ** (n - 1) + c  # exact
            return ball(s - 1).log1p() / (n - 1)
        aa, bb, al = ball(a), ball(b), ball(alpha)
        la, lb = aa.log(), bb.log()
        s = (al * la + (1 - al) * lb).exp() + (al * lb + (1 - al) * la).exp() + ball(c)
        return s.log() / (al - 1)

    return RdpCurve(label, at, monotone=True)


def _poisson_gaussian(event: Any, neighboring: str) -> RdpCurve | str:
    q = _real(event, "sampling_probability", Fraction(0), Fraction(1))
    inner = _field(event, "event")
    if neighboring != "add_remove":
        return (
            "PoissonSampledDpEvent under replace_one: no certified RDP here (its privacy-loss distribution is tight; "
            "use the PLD accountant)"
        )
    if _label(inner) != "GaussianDpEvent":
        return (
            f"PoissonSampledDpEvent of {_label(inner)}: certified RDP only for one GaussianDpEvent inside "
            "(dp-accounting's collapse of several Gaussians on one sample assumes non-adaptive queries, "
            "not proved here)"
        )
    sigma = _real(inner, "noise_multiplier")
    label = f"PoissonSampledDpEvent(sampling_probability={q}, GaussianDpEvent(noise_multiplier={sigma}))"
    if q == 0:
        return _const(label, Fraction(0))
    if sigma == 0:
        return _const(label, _INF)
    if q == 1:
        return _linear(label, 1 / (2 * sigma * sigma))

    def at(a: Fraction, prec: int) -> Value:
        key = (q, sigma, a, prec)
        if key in _SGM_CACHE:
            return _SGM_CACHE[key]
        ctx = BallContext(prec)
        if a.denominator == 1:
            v = sgm.rdp_ball(ctx, q, sigma, a)
        elif a <= sgm.SGM_MAX_REAL_ALPHA and (a * a - a) / (2 * sigma * sigma) <= sgm.SGM_MAX_REAL_EXPONENT:
            v = ball(sgm.rdp_ball(ctx, q, sigma, a)).max(ball(sgm.rdp_add_ball(q, sigma, a, prec)))
        else:
            v = sgm.rdp_ball(ctx, q, sigma, Fraction(math.ceil(a)))  # non-decreasing in the order
        if len(_SGM_CACHE) > 20_000:
            _SGM_CACHE.clear()
        _SGM_CACHE[key] = v
        return v

    return RdpCurve(label, at, monotone=True)


#: The sampled Gaussian's values by (q, σ, α, prec), shared by every curve (an accountant asks for ε and δ of one
#: composition, and a schedule repeats its steps): evaluations cost milliseconds each.
_SGM_CACHE: dict[tuple[Fraction, Fraction, Fraction, int], Value] = {}


def _tree(event: Any, scale: int) -> RdpCurve:
    sigma = _real(event, "noise_multiplier")
    raw = _field(event, "step_counts")
    counts = list(raw) if isinstance(raw, (list, tuple)) else [raw]
    if not counts:
        raise InvalidParameter("step_counts", raw, "an integer >= 0 or a non-empty list of them")
    steps = [_int(t, "step_counts", 0) for t in counts]
    depth = max(steps).bit_length()  # = ceil(log2(T + 1)): the most released nodes holding one step
    label = f"SingleEpochTreeAggregationDpEvent(noise_multiplier={sigma}, step_counts={raw!r})"
    if depth == 0:
        return _const(label, Fraction(0))
    if sigma == 0:
        return _const(label, _INF)
    return _linear(label, Fraction(depth * scale * scale) / (2 * sigma * sigma))


def _discrete_gaussian(event: Any, scale: int) -> RdpCurve:
    sigma = _real(event, "sigma")
    delta = _int(_field(event, "sensitivity") if hasattr(event, "sensitivity") else 1, "sensitivity", 1)
    label = f"DiscreteGaussianDpEvent(sigma={sigma}, sensitivity={delta})"
    if sigma == 0:
        return _const(label, _INF)
    return _linear(label, Fraction((scale * delta) ** 2) / (2 * sigma * sigma))


#: γ_lo for (shape, mean): a certified lower bound of the truncated negative binomial's γ (see the module docstring)
_GAMMA_CACHE: dict[tuple[Fraction, Fraction], Fraction] = {}
_GAMMA_PREC = 192
_GAMMA_REL = Fraction(1, 2**64)


def _tnb_mean(gamma: Fraction, shape: Fraction) -> arb:
    """E[K] of the truncated negative binomial law (shape η >= 0, γ in (0, 1)), as a ball."""
    g = ball(gamma)
    if shape == 0:
        return (1 - g) / (g * (-g.log()))
    return ball(shape) * (1 - g) / (g * -(ball(shape) * g.log()).expm1())


def _gamma_lower(shape: Fraction, mean: Fraction) -> Fraction:
    """A rational γ_lo <= the γ whose truncated negative binomial law has mean ``mean`` (> 1), by certified
    bisection (the mean is strictly decreasing in γ)."""
    key = (shape, mean)
    if key in _GAMMA_CACHE:
        return _GAMMA_CACHE[key]
    if shape == 1:
        out = 1 / mean  # the geometric law: E[K] = 1/γ exactly
    else:
        with workprec(_GAMMA_PREC):
            lo = Fraction(1, 2)
            while not _tnb_mean(lo, shape) > ball(mean):  # the mean grows without bound as γ -> 0
                lo /= 2
                if lo < Fraction(1, 2**4000):
                    raise InvalidParameter("mean", mean, "a mean whose truncated negative binomial gamma is > 2^-4000")
            hi = Fraction(1)
            for _ in range(400):
                if hi - lo <= lo * _GAMMA_REL:
                    break
                mid = (lo + hi) / 2
                m = _tnb_mean(mid, shape)
                if m > ball(mean):
                    lo = mid
                elif m < ball(mean):
                    hi = mid
                else:
                    break  # undecided at this precision: lo stays a proved lower bound
                lo, hi = _round_down(lo), _round_up(hi)
            out = lo
    _GAMMA_CACHE[key] = out
    return out


def _round_down(x: Fraction) -> Fraction:
    """x rounded down to 80 significant bits (keeps the bisection's rationals small)."""
    if x.denominator.bit_length() < 200:
        return x
    e = x.denominator.bit_length() - x.numerator.bit_length() + 80
    return Fraction(math.floor(x * 2**e), 2**e)


def _round_up(x: Fraction) -> Fraction:
    if x.denominator.bit_length() < 200:
        return x
    e = x.denominator.bit_length() - x.numerator.bit_length() + 80
    return Fraction(math.ceil(x * 2**e), 2**e)


def _repeat_and_select(event: Any, neighboring: str, orders: tuple[Fraction, ...]) -> RdpCurve | str:
    base = _curve(_field(event, "event"), neighboring, orders)
    if isinstance(base, str):
        return f"RepeatAndSelectDpEvent of {base}"
    raw_shape = _field(event, "shape")
    poisson = (isinstance(raw_shape, float) and raw_shape == math.inf) or (
        isinstance(raw_shape, str) and raw_shape.strip().lower() in ("inf", "infinity")
    )
    mean = _real(event, "mean")
    if poisson:
        shape = None
        label = f"RepeatAndSelectDpEvent({base.label}, mean={mean}, shape=inf)"
    else:
        shape = _number(raw_shape, "shape")
        label = f"RepeatAndSelectDpEvent({base.label}, mean={mean}, shape={shape})"
        if shape < 0:
            return (
                f"RepeatAndSelectDpEvent with shape={shape} < 0: not implemented by dp-accounting and "
                "Papernot–Steinke's theorem is not checked here for it (shape >= 0 or inf)"
            )
    if mean < 1:
        return f"RepeatAndSelectDpEvent with mean={mean} < 1: not certified here (mean >= 1)"
    if shape is not None and mean == 1:
        return RdpCurve(label, base.value, base.monotone)  # K = 1 surely: the base mechanism itself

    def rho(a: Fraction, prec: int) -> Value:
        return base.value(a, prec)

    log_mean_cache: dict[int, arb] = {}

    def log_mean(prec: int) -> arb:
        if prec not in log_mean_cache:
            log_mean_cache[prec] = ball(mean).log()
        return log_mean_cache[prec]

    if shape is None:  # Poisson: [PS22] Thm 6

        def at(a: Fraction, prec: int) -> Value:
            r = rho(a, prec)
            if _is_inf(r):
                return _INF
            ctx = BallContext(prec)
            eps_hat = ball(a / (a - 1)).log()
            candidates: list[Value] = [Fraction(1)]
            for lam in orders:
                rl = rho(lam, prec)
                if _is_inf(rl):
                    continue
                candidates.append(cks_delta_raw(ctx, lam, ball(rl), eps_hat))
                candidates.append(_tv_bound(rl))
            d_hat = _min(candidates)
            return ball(r) + ball(mean) * ball(d_hat) + log_mean(prec) / ball(a - 1)

        return RdpCurve(label, at)

    gamma = _gamma_lower(shape, mean)
    const_cache: dict[int, Value] = {}

    def const(prec: int) -> Value:
        # (1 + η)·min over λ̂ of (1 − 1/λ̂)ε̂ + log(1/γ)/λ̂
        if prec not in const_cache:
            log_inv_gamma = -ball(gamma).log()
            terms = []
            for lam in orders:
                rl = rho(lam, prec)
                if _is_inf(rl):
                    continue
                terms.append(ball(1 - 1 / lam) * ball(rl) + log_inv_gamma / ball(lam))
            const_cache[prec] = _INF if not terms else ball(1 + shape) * ball(_min(terms))
        return const_cache[prec]

    def raw(a: Fraction, prec: int) -> Value:
        r, c = rho(a, prec), const(prec)
        if _is_inf(r) or _is_inf(c):
            return _INF
        return ball(r) + log_mean(prec) / ball(a - 1) + ball(c)

    def at(a: Fraction, prec: int) -> Value:
        # monotone in the order: the least bound at any order of the set >= a (and at a itself)
        return _min([raw(a, prec)] + [raw(lam, prec) for lam in orders if lam > a])

    return RdpCurve(label, at, monotone=frozenset(orders))  # non-decreasing on its own orders


def _tv_bound(r: Value) -> Value:
    """√(1 − e^{−r}) >= δ(0) (Bretagnolle–Huber, KL <= r), as a ball whose upper end is what counts."""
    if _is_inf(r):
        return Fraction(1)
    u = (-ball(r)).expm1()
    up = _upper(-u)
    if up is None:
        return Fraction(1)
    return ball(max(up, Fraction(0))).sqrt()


def _curve(event: Any, neighboring: str, orders: tuple[Fraction, ...]) -> RdpCurve | str:
    """The certified curve of ``event``, or the one-line reason there is none."""
    name = _label(event)
    scale = 2 if neighboring == "replace_one" else 1
    if name == "NoOpDpEvent":
        return _const("NoOpDpEvent()", Fraction(0))
    if name == "NonPrivateDpEvent":
        return _const("NonPrivateDpEvent()", _INF)
    if name == "GaussianDpEvent":
        return _gaussian(event, scale)
    if name == "LaplaceDpEvent":
        return _laplace(event, scale)
    if name == "RandomizedResponseDpEvent":
        return _randomized_response(event, neighboring)
    if name == "ZCDpEvent":
        rho = _real(event, "rho")
        xi = _real(event, "xi") if hasattr(event, "xi") else Fraction(0)
        return _linear(f"ZCDpEvent(rho={rho}, xi={xi})", rho, xi)
    if name == "PoissonSampledDpEvent":
        return _poisson_gaussian(event, neighboring)
    if name == "SingleEpochTreeAggregationDpEvent":
        return _tree(event, scale)
    if name == "DiscreteGaussianDpEvent":
        return _discrete_gaussian(event, scale)
    if name == "RepeatAndSelectDpEvent":
        return _repeat_and_select(event, neighboring, orders)
    if name == "SelfComposedDpEvent":
        inner = _curve(_field(event, "event"), neighboring, orders)
        count = _int(_field(event, "count"), "count", 0)
        if isinstance(inner, str):
            return inner
        return _sum(f"SelfComposedDpEvent({inner.label}, count={count})", [(inner, count)])
    if name == "ComposedDpEvent":
        parts = []
        for e in _field(event, "events"):
            c = _curve(e, neighboring, orders)
            if isinstance(c, str):
                return c
            parts.append((c, 1))
        return _sum(f"ComposedDpEvent({len(parts)} events)", parts)
    reasons = {
        "DiscreteLaplaceDpEvent": "no certified RDP here (its privacy-loss distribution is exact: use the PLD)",
        "MixtureOfGaussiansDpEvent": "no certified RDP here (its privacy-loss distribution is tight: use the PLD)",
        "SampledWithReplacementDpEvent": "no proved RDP bound (neither dp-accounting accountant supports it)",
        "SampledWithoutReplacementDpEvent": (
            "no certified RDP here (dp-accounting's Wang–Balle–Kasiviswanathan bound takes replace-one "
            "sensitivity 1, half of a noise multiplier's convention)"
        ),
        "TruncatedSubsampledGaussianDpEvent": "no certified RDP here (dp-accounting has only a PLD for it)",
    }
    if name in reasons:
        return f"{name}: {reasons[name]}"
    return f"{name}: not a dp-accounting event kind with a certified RDP curve"


# ------------------------------------------------------------------------------------------------ public


def rdp_curve(event: Any, neighboring: str, orders: Iterable[Any] = DEFAULT_ORDERS) -> RdpCurve | None:
    """The certified RDP curve of a dp-accounting event under ``neighboring``, or ``None`` when none is known
    (the reason: :func:`rdp_refusal`).

    Args:
        event: a dp-accounting event or any object with its class name and fields (see the module docstring).
        neighboring: ``"add_remove"`` or ``"replace_one"``.
        orders: the order set a ``RepeatAndSelectDpEvent`` minimises over (pass the conversion's own).

    Raises:
        InvalidParameter: for a bad relation, order set or field value.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class GaussianDpEvent:
    ...     noise_multiplier: object
    >>> rdp_curve(GaussianDpEvent("2"), "replace_one").enclosure(3).short()
    '1.5'
    """
    nb = _check_neighboring(neighboring)
    c = _curve(event, nb, _orders(orders))
    if isinstance(c, str):
        return None
    c.neighboring = nb
    return c


def rdp_refusal(event: Any, neighboring: str, orders: Iterable[Any] = DEFAULT_ORDERS) -> str | None:
    """Why :func:`rdp_curve` has no curve for ``event`` (one line), or ``None`` when it has one."""
    c = _curve(event, _check_neighboring(neighboring), _orders(orders))
    return c if isinstance(c, str) else None


@dataclass(frozen=True)
class RdpBound:
    """A certified RDP conversion.

    Attributes:
        enclosure: [0, hi]: hi is a certified upper bound of the composed mechanism's ε (or δ); RDP proves no lower
            bound but 0. ``hi`` is ``None`` when every order gives +∞.
        bound: an enclosure of the RDP bound itself at ``order`` (the number whose upper end is ``hi``).
        order: the order giving ``hi`` (``None`` when hi came from the TV branch, from δ <= 1, or is +∞).
        orders: how many orders the set holds.
        precision: the working precision (bits) of the last evaluation.
        evaluated: at how many of them the curve was evaluated; for a curve proved non-decreasing in the order,
            an order that is not an integer is skipped when the curve's value at the nearest evaluated order below
            it already puts its bound certainly above the best found (its bound could not have been the least).
    """

    enclosure: Enclosure
    bound: Enclosure
    order: Fraction | None
    orders: int
    precision: int
    evaluated: int = 0


def _composed(parts: Any, neighboring: str, orders: tuple[Fraction, ...]) -> RdpCurve:
    if isinstance(parts, (str, bytes)) or not isinstance(parts, Iterable):
        raise InvalidParameter("parts", parts, "a list of (event or RdpCurve, count) pairs")
    out = []
    for item in parts:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InvalidParameter("parts", item, "a pair (event or RdpCurve, count)")
        what, count = item
        n = _int(count, "count", 0)
        if isinstance(what, RdpCurve):
            if what.neighboring not in (None, neighboring):
                raise InvalidParameter("parts", what, f"curves made for the relation of the conversion ({neighboring})")
            curve = what
        else:
            c = _curve(what, neighboring, orders)
            if isinstance(c, str):
                raise InvalidParameter("event", _label(what), f"an event with a certified RDP curve; {c}")
            curve = c
        out.append((curve, n))
    return _sum("composition", out)


def _monotone_on(curve: RdpCurve, ords: tuple[Fraction, ...]) -> bool:
    """Whether the curve is proved non-decreasing over the orders ``ords``."""
    return curve.monotone is True or (curve.monotone is not False and set(ords) <= curve.monotone)


def _scan_order(curve: RdpCurve, ords: tuple[Fraction, ...]) -> list[Fraction]:
    """The orders in the order they are evaluated: for a non-decreasing curve every integer order first (the
    sampled Gaussian's integer orders are finite sums, its other orders quadratures), then the others."""
    if not _monotone_on(curve, ords):
        return list(ords)
    return [a for a in ords if a.denominator == 1] + [a for a in ords if a.denominator != 1]


def _rho_floor(evaluated: dict[Fraction, Value], a: Fraction) -> Value:
    """A proved lower bound of a non-decreasing curve at ``a``: the lower end of its value at the largest evaluated
    order below ``a`` (``+inf`` when that value is), or 0 (every curve here is >= 0)."""
    below = [b for b in evaluated if b < a]
    if not below:
        return ball(0)
    v = evaluated[max(below)]
    if _is_inf(v):
        return _INF
    return ball(v).lower()


def _converge(step: Callable[[int], tuple[RdpBound, bool]]) -> RdpBound:
    """Run ``step`` at rising precision until it says its best ball is narrow (or the cap is reached: the bound
    is valid at every precision)."""
    prec = _START_PREC
    while True:
        res, done = step(prec)
        if done or prec >= _MAX_PREC:
            return res
        prec *= 2


def _narrow(v: Value) -> bool:
    if isinstance(v, Fraction) or _is_inf(v):
        return True
    if not v.is_finite():
        return False
    mag = abs(fraction_of(v.mid()))
    return fraction_of(v.rad()) <= max(mag, Fraction(1, 2**200)) * _REL_GOAL


def rdp_epsilon_bound(parts: Any, delta: Any, neighboring: str, orders: Iterable[Any] = DEFAULT_ORDERS) -> RdpBound:
    """The certified RDP bound on ε at δ of a composition (see the module docstring), with its order.

    Args:
        parts: pairs (event or :class:`RdpCurve`, count), composed adaptively.
        delta: the target δ in (0, 1).
        neighboring: ``"add_remove"`` or ``"replace_one"``.
        orders: the Rényi orders tried (rationals > 1; any finite set is sound).
    """
    nb = _check_neighboring(neighboring)
    d = _number(delta, "delta")
    if not 0 < d < 1:
        raise InvalidParameter("delta", delta, "a real number > 0 and < 1")
    ords = _orders(orders)
    curve = _composed(parts, nb, ords)
    monotone = _monotone_on(curve, ords)

    def step(prec: int) -> tuple[RdpBound, bool]:
        with workprec(prec):
            ctx = BallContext(prec)
            best: tuple[Fraction, Value, Fraction] | None = None
            evaluated: dict[Fraction, Value] = {}
            for a in _scan_order(curve, ords):
                if best is not None and a.denominator != 1 and monotone:
                    lo = _rho_floor(evaluated, a)
                    if _is_inf(lo):
                        continue  # +inf at a smaller order: +inf here
                    # ε(α) >= CKS at the floor of ρ(α), and the TV branch cannot hold there: α cannot win
                    if ball(d) ** 2 + (-lo).expm1() < 0 and _certainly_above(cks_eps_raw(ctx, a, lo, d), best[0]):
                        continue
                r = evaluated[a] = curve.value(a, prec)
                if _is_inf(r):
                    continue
                if isinstance(r, Fraction) and r == 0 or ball(d) ** 2 + (-ball(r)).expm1() >= 0:
                    # δ(0) <= √(1 − e^{−KL}) <= δ: ε = 0 is proved
                    zero = Enclosure.exact(0)
                    return RdpBound(zero, zero, None, len(ords), prec, len(evaluated)), True
                e = cks_eps_raw(ctx, a, ball(r), d)
                if best is not None and _certainly_above(e, best[0]):
                    continue  # skip the exact upper end (slow for balls of huge exponent)
                up = _upper(e)
                if up is not None and (best is None or up < best[0]):
                    best = (up, e, a)
            if best is None:
                inf = Enclosure(Fraction(0), None)
                return RdpBound(inf, inf, None, len(ords), prec, len(evaluated)), True
            up, e, a = best
            hi = max(up, Fraction(0))
            return (
                RdpBound(Enclosure(Fraction(0), hi), Enclosure.from_ball(e), a, len(ords), prec, len(evaluated)),
                _narrow(e),
            )

    return _converge(step)


def rdp_delta_bound(parts: Any, eps: Any, neighboring: str, orders: Iterable[Any] = DEFAULT_ORDERS) -> RdpBound:
    """The certified RDP bound on δ at ε of a composition (see the module docstring), with its order.

    Args:
        parts: pairs (event or :class:`RdpCurve`, count), composed adaptively.
        eps: ε >= 0.
        neighboring: ``"add_remove"`` or ``"replace_one"``.
        orders: the Rényi orders tried (rationals > 1; any finite set is sound).
    """
    nb = _check_neighboring(neighboring)
    e = _number(eps, "eps")
    if e < 0:
        raise InvalidParameter("eps", eps, "a real number >= 0")
    ords = _orders(orders)
    curve = _composed(parts, nb, ords)
    monotone = _monotone_on(curve, ords)

    def step(prec: int) -> tuple[RdpBound, bool]:
        with workprec(prec):
            ctx = BallContext(prec)
            best: tuple[Fraction, Value, Fraction | None] = (Fraction(1), Fraction(1), None)
            evaluated: dict[Fraction, Value] = {}
            for a in _scan_order(curve, ords):
                if a.denominator != 1 and monotone:
                    lo = _rho_floor(evaluated, a)
                    if _is_inf(lo):
                        continue
                    # both bounds are increasing in ρ: at the floor of ρ(α) neither beats the best, so α cannot
                    tv_lo = (-(-lo).expm1()).sqrt()
                    if _certainly_above(cks_delta_raw(ctx, a, lo, e), best[0]) and _certainly_above(tv_lo, best[0]):
                        continue
                r = evaluated[a] = curve.value(a, prec)
                if _is_inf(r):
                    continue
                for v, order in ((cks_delta_raw(ctx, a, ball(r), e), a), (_tv_bound(r), None)):
                    if _certainly_above(v, best[0]):
                        continue
                    up = _upper(v)
                    if up is not None and up < best[0]:
                        best = (up, v, order)
            up, v, a = best
            bound = Enclosure.exact(v) if isinstance(v, Fraction) else Enclosure.from_ball(v)
            return RdpBound(Enclosure(Fraction(0), up), bound, a, len(ords), prec, len(evaluated)), _narrow(v)

    return _converge(step)


def rdp_epsilon(parts: Any, delta: Any, neighboring: str, orders: Iterable[Any] = DEFAULT_ORDERS) -> Enclosure:
    """[0, certified upper bound of ε at δ] of a composition by RDP (:func:`rdp_epsilon_bound`)."""
    return rdp_epsilon_bound(parts, delta, neighboring, orders).enclosure


def rdp_delta(parts: Any, eps: Any, neighboring: str, orders: Iterable[Any] = DEFAULT_ORDERS) -> Enclosure:
    """[0, certified upper bound of δ at ε] of a composition by RDP (:func:`rdp_delta_bound`)."""
    return rdp_delta_bound(parts, eps, neighboring, orders).enclosure
