"""DP-SGD's ε by RDP, certified over every integer order up to a stated bound (and real orders), with the order.

DP-SGD with Poisson rate q, noise multiplier σ and T steps is (α, T·ρ(α))-RDP at every order α (RDP composes
additively; ρ from :mod:`dpcert.gaussian.sgm`), hence (ε, δ)-DP with

    ε = max(0, min over integer α in [2, N] of conv(α, T·ρ(α), δ)),

conv the CKS/Balle conversion (default) or Mironov's [Mir17] (:mod:`dpcert.gaussian.conversion`), or ε = 0 outright when
δ² >= 1 − e^{−T·ρ(2)} (Bretagnolle–Huber: TV <= √(1 − e^{−KL}), KL of the T-step pair <= T·ρ(2), and TV = δ(0)
in both directions; dp_accounting's small-order branch).

**Every order is bounded.** A fixed order grid can miss the best region (docs/derivations/gaussian.md#order-selection).
Here the minimum over all
N − 1 orders is certified by branch and bound on blocks [a, b] of consecutive orders, with a lower bound proved for
the whole block from one evaluation at its first order:

* ρ(α) >= ρ(a) for α >= a: ρ(α) is the Rényi divergence D_α(P‖Q) of the remove pair, non-decreasing in α
  (van Erven–Harremoës [EH14], IEEE Trans. IT 60(7), 2014, Thm 3);
* log(1 − 1/α) is increasing and log(α)/(α − 1) decreasing in α > 1, and log(1/δ)/(α − 1) >= log(1/δ)/(b − 1).

Anchors grow geometrically (12.5 %) until the block [a, N] is certainly worse than the best certified upper end;
unpruned blocks are split at their midpoint until they are single orders. The enclosure is [min over the
surviving orders of their lower ends, the least upper end], clamped at 0 as proved; the reported order is the one
whose certified upper end is the reported one.

**Real orders** (``orders=real``). The value is then V = min(V_int, ε(α̂)), V_int the integer minimum above and α̂ a
real order chosen near the best integer n*: a golden-section search over the orders k/2^10 in [n* − 1, n* + 1]
(within (1, N] and the caps of :func:`dpcert.gaussian.sgm.rdp_ball` for non-integer orders), each probe a certified
evaluation at 32 bits compared by its midpoint (Arb is deterministic, so α̂ depends only on the inputs, never on the
working precision, and every refinement encloses the same V). ε(α̂) is a valid ε at δ (RDP at any order > 1 converts,
[CKS20, Prop. 12] / Mironov [Mir17] Prop. 3) once ρ(α̂) bounds both neighbouring directions: at a non-integer order ρ is
the max of D_α(P‖Q) and D_α(Q‖P), both by certified quadrature (MTZ's dominance is invoked at integer orders only),
so the upper end stays a proved bound, and V <= V_int always. **V is the bound at
the best order found**, not the infimum over all real orders: the enclosure's lower end is an honest lower bound of
V (min of the lower ends of V_int and of ε(α̂)). How far the infimum over the searched interval can lie below is
certified separately (:attr:`RdpEps.searched_lower`): the probes split [n* − 1, n* + 1] into pieces [x_i, x_{i+1}],
and on each, for every real α in it, ε(α) >= T·ρ(x_i) + log(1/δ)/(x_{i+1} − 1) [+ log(1 − 1/x_i) − log(x_i)/(x_i − 1)
for CKS], by the same monotonicity facts as the integer blocks (they hold for real orders); the weakest piece is
split until the bound is within 1 % of V or 16 more probes are spent. The integer search stays the default: the
real search costs some 20 to 40 pairs of quadratures (2 to 5 s on a loaded 2-core machine).

The tight PLD accounting (``dpsgd.eps``, ``dpsgd.delta``) is in its own module.

References:
    Mironov–Talwar–Zhang [MTZ19] arXiv 1908.10530 (the step's RDP); Mironov CSF 2017 [Mir17] Prop. 1 (composition) and
    Prop. 3;
    Canonne–Kamath–Steinke [CKS20] arXiv 2004.00010 Prop. 12; van Erven–Harremoës [EH14] 2014 Thm 3 (monotone in the
    order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, ball, fraction_of, refine, workprec
from dpcert.arith.context import FLOAT, BallContext
from dpcert.arith.exact import Exact, as_fraction
from dpcert.composition.rdp import cks_eps_raw, mironov_eps
from dpcert.core.params import choice, integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter
from dpcert.gaussian import sgm

__all__ = [
    "RdpEps",
    "dpsgd_rdp_eps_search",
    "dpsgd_rdp_eps",
    "dpsgd_rdp_eps_ball",
    "dpsgd_rdp_eps_float",
    "DPSGD_RDP_EPS",
    "DEFAULT_MAX_ORDER",
    "REAL_ORDER_BITS",
    "real_order_search",
    "dpsgd_rdp_sigma",
    "QUANTITIES",
]

#: The default largest order searched (every integer order 2..N is bounded).
DEFAULT_MAX_ORDER = 10_000

_Q = real("q", 0, 1, lo_open=True, doc="Poisson sampling rate in (0, 1]")
_SIGMA = real("sigma", 0, lo_open=True, doc="noise multiplier")
_STEPS = integer("steps", 1, doc="number of DP-SGD steps (an exact integer)")
_DELTA = probability("delta", zero=False, doc="target delta in (0, 1)")
_CONV = choice("conversion", ("cks", "mironov"), default="cks", doc="RDP -> DP conversion")
_MAX_ORDER = integer("max_order", 2, sgm.SGM_MAX_ALPHA, default=str(DEFAULT_MAX_ORDER), doc="largest order N")
_ORDERS = choice(
    "orders",
    ("integer", "real"),
    default="integer",
    doc="integer: every integer order 2..N; real: then a certified search over real orders near the best",
)

#: The real-order search probes the orders k/2^REAL_ORDER_BITS.
REAL_ORDER_BITS = 10
#: The real-order search refines its certified lower bound until it is within this fraction of the value found ...
_LOWER_GAP = Fraction(1, 100)
#: ... or it has spent this many extra probes.
_LOWER_PROBES = 16
#: Precision (bits) of the real-order search's probes: fixed, so that the order chosen never depends on ctx.prec.
_SEARCH_PREC = 32


class _Unresolved(ArithmeticError):
    """A ball of the search came out infinite at this precision (more bits may resolve it): the step is undecided,
    never a rational end point read from an infinite ball."""


@dataclass(frozen=True)
class RdpEps:
    """The certified RDP ε of DP-SGD.

    Attributes:
        enclosure: rigorous enclosure of ε (its upper end is a valid ε at δ).
        order: the order whose certified ε gives the upper end (0 when ε = 0 by the KL/TV branch): an ``int``, or a
            ``Fraction`` (a multiple of 2^-10) when a real order found by ``orders=real`` is better.
        max_order: N, the largest order searched (every order 2..N is bounded).
        evaluations: how many orders were evaluated in balls (the others were bounded by blocks).
        kl_branch: whether ε = 0 came from δ² >= 1 − e^{−T·ρ(2)}.
        precision: the working precision (bits).
        searched: ``orders=real`` only: the real interval [a, b] searched (``None`` otherwise or when nothing
            could be searched).
        searched_lower: ``orders=real`` only: a certified lower bound of ε(α) for every real α in ``searched``
            (how much better any real order there could be; clamped at 0), refined to within 1 % of the value
            unless 16 extra probes did not suffice.
    """

    enclosure: Enclosure
    order: int | Fraction
    max_order: int
    evaluations: int
    kl_branch: bool
    precision: int
    searched: tuple[Fraction, Fraction] | None = None
    searched_lower: Fraction | None = None


def dpsgd_rdp_eps_search(
    q: Fraction,
    sigma: Fraction,
    steps: int,
    delta: Fraction,
    conversion: str,
    max_order: int,
    prec: int,
    orders: str = "integer",
) -> RdpEps:
    """One certified branch-and-bound run at ``prec`` bits (see the module docstring); with ``orders="real"`` the
    real order chosen by :func:`real_order_search` (at its own fixed precision) is evaluated at ``prec`` too."""
    ctx = BallContext(prec)
    with ctx:
        d = ball(delta)
        log_inv_delta = -d.log()
        rho: dict[int, arb | Fraction] = {}

        def rho_at(a: int) -> arb:
            if a not in rho:
                rho[a] = sgm._rdp_at(q, sigma, a, prec)
            return ball(rho[a])

        # ε = 0 by the TV bound when δ² + expm1(−T ρ(2)) >= 0 (decided here when certain)
        kl = d * d + (-steps * rho_at(2)).expm1()
        if kl >= 0:
            return RdpEps(Enclosure.exact(0), 0, max_order, len(rho), True, prec)

        def eps_at(a: int) -> arb:
            conv = cks_eps_raw if conversion == "cks" else mironov_eps
            return conv(ctx, Fraction(a), steps * rho_at(a), delta)

        def block_lb(a: int, b: int) -> arb:
            lb = steps * rho_at(a) + log_inv_delta / (b - 1)
            if conversion == "cks":
                aa = ball(a)
                lb += (-1 / aa).log1p() - aa.log() / (a - 1)
            return lb

        values: dict[int, arb] = {}
        best = {"hi": None, "order": 0}

        def evaluate(a: int) -> None:
            v = eps_at(a)
            if not v.is_finite():
                raise _Unresolved(f"eps at order {a} is not finite at {prec} bits")
            values[a] = v
            up = fraction_of(v.upper())
            if best["hi"] is None or up < best["hi"]:
                best["hi"], best["order"] = up, a

        def pruned(a: int, b: int) -> bool:
            return best["hi"] is not None and bool(block_lb(a, b).lower() > ball(best["hi"]))

        blocks: list[tuple[int, int]] = []
        a = 2
        while True:
            evaluate(a)
            if a == max_order or pruned(a, max_order):
                blocks.append((a, max_order))
                break
            nxt = min(max_order, a + max(1, a // 8))
            blocks.append((a, nxt - 1))
            a = nxt
        survivors: list[int] = []
        while blocks:
            a, b = blocks.pop()
            if pruned(a, b):
                continue
            if a == b:
                survivors.append(a)
                continue
            m = (a + b + 1) // 2
            evaluate(m)
            blocks += [(a, m - 1), (m, b)]
        lo = min(fraction_of(values[a].lower()) for a in survivors)
        hi = best["hi"]
        assert hi is not None
        kl_undecided = not kl < 0
        order: int | Fraction = best["order"]
        searched, searched_lower = None, None
        if orders == "real":
            found = real_order_search(q, sigma, steps, delta, conversion, max_order)
            if found is not None:
                alpha, searched, searched_lower = found
                v = _eps_at_order(ctx, q, sigma, steps, delta, conversion, alpha, prec)
                lo = min(lo, fraction_of(v.lower()))
                up = fraction_of(v.upper())
                if up < hi:
                    hi, order = up, alpha
        lo, hi = max(Fraction(0), lo), max(Fraction(0), hi)
        if kl_undecided:  # the TV branch may give 0: the value lies in [0, hi]
            lo = Fraction(0)
        return RdpEps(Enclosure(lo, hi), order, max_order, len(rho), False, prec, searched, searched_lower)


def _real_order_allowed(sigma: Fraction, alpha: Fraction) -> bool:
    """Whether sgm.rdp accepts α as a non-integer order (its caps on α and on (α² − α)/(2σ²))."""
    return (
        alpha <= sgm.SGM_MAX_REAL_ALPHA and (alpha * alpha - alpha) / (2 * sigma * sigma) <= sgm.SGM_MAX_REAL_EXPONENT
    )


def _rho_at_order(q: Fraction, sigma: Fraction, alpha: Fraction, prec: int) -> arb | Fraction:
    """The step's RDP for add/remove neighbours: at an integer order the remove direction (MTZ's dominance, see
    :mod:`dpcert.gaussian.sgm`); at any other order the max of both directions, each by certified quadrature."""
    if alpha.denominator == 1:
        return sgm._rdp_at(q, sigma, int(alpha), prec)
    if q == 1:
        return sgm._rdp_real(q, sigma, alpha, prec)
    return ball(sgm._rdp_real(q, sigma, alpha, prec)).max(ball(sgm.rdp_add_ball(q, sigma, alpha, prec)))


def _eps_at_order(
    ctx: Any, q: Fraction, sigma: Fraction, steps: int, delta: Fraction, conversion: str, alpha: Fraction, prec: int
) -> arb:
    conv = cks_eps_raw if conversion == "cks" else mironov_eps
    return conv(ctx, alpha, steps * ball(_rho_at_order(q, sigma, alpha, prec)), delta)


_REAL_CACHE: dict[tuple, tuple[Fraction, tuple[Fraction, Fraction], Fraction] | None] = {}


def real_order_search(
    q: Fraction, sigma: Fraction, steps: int, delta: Fraction, conversion: str, max_order: int
) -> tuple[Fraction, tuple[Fraction, Fraction], Fraction] | None:
    """The real order α̂ of ``orders=real``, the interval searched and a certified lower bound of ε on it.

    Golden-section search over the orders k/2^10 of [n* − 1, n* + 1] ∩ (1, N] (n* the best integer order of a
    32-bit integer search), every probe a certified 32-bit ball compared by its midpoint (deterministic), then every
    order left in the last bracket of at most 4 steps. The lower bound: on each piece between consecutive probes
    (both ends of the interval are probes), the monotone bound of the module docstring, in balls.

    Returns:
        ``(α̂, (a, b), lower)``, or ``None`` when ε = 0 by the TV branch or no non-integer order of the
        interval is accepted by ``sgm.rdp`` (its caps).
    """
    key = (q, sigma, steps, delta, conversion, max_order)
    if key in _REAL_CACHE:
        return _REAL_CACHE[key]
    prec = _SEARCH_PREC
    base = dpsgd_rdp_eps_search(q, sigma, steps, delta, conversion, max_order, prec)
    out = None
    scale = 2**REAL_ORDER_BITS
    n = int(base.order)
    k_lo, k_hi = max((n - 1) * scale, scale + 1), min(n + 1, max_order) * scale
    while k_hi > k_lo and not _real_order_allowed(sigma, Fraction(k_hi - 1, scale)):
        k_hi -= scale  # stay at integers whose neighbours the quadrature accepts
    if not base.kl_branch and k_hi - k_lo >= 2 and _real_order_allowed(sigma, Fraction(k_lo + 1, scale)):
        ctx = BallContext(prec)
        with ctx:
            probes: dict[int, tuple[float, arb]] = {}
            conv = cks_eps_raw if conversion == "cks" else mironov_eps

            def f(k: int) -> float:
                if k not in probes:
                    alpha = Fraction(k, scale)
                    rho = ball(_rho_at_order(q, sigma, alpha, prec))
                    v = conv(ctx, alpha, steps * rho, delta)
                    probes[k] = (float(v.mid()), rho)
                return probes[k][0]

            a, b = k_lo, k_hi
            f(a), f(b)
            c, d = b - (b - a) * 618 // 1000, a + (b - a) * 618 // 1000
            while b - a > 4:
                # golden section on integers, the surviving interior probe reused (a < c < d < b throughout)
                c, d = min(max(c, a + 1), b - 2), max(min(d, b - 1), a + 2)
                if c >= d:
                    c, d = (a + b) // 2 - 1, (a + b) // 2
                if f(c) <= f(d):
                    b, d = d, c
                    c = b - (b - a) * 618 // 1000
                else:
                    a, c = c, d
                    d = a + (b - a) * 618 // 1000
            for k in range(a, b + 1):
                f(k)
            best = min(probes, key=lambda k: (probes[k][0], k))
            # the certified lower bound over [k_lo, k_hi]/2^10, piece by piece between consecutive probes; the
            # weakest piece is split (one probe more) while it is more than _LOWER_GAP below the value, at most
            # _LOWER_PROBES times
            log_inv_delta = -ball(delta).log()

            def piece_lb(x0: int, x1: int) -> Fraction:
                a0, a1 = Fraction(x0, scale), Fraction(x1, scale)
                lb = steps * probes[x0][1] + log_inv_delta / ball(a1 - 1)
                if conversion == "cks":
                    aa = ball(a0)
                    lb += (-1 / aa).log1p() - aa.log() / ball(a0 - 1)
                return fraction_of(lb.lower())

            goal = Fraction(probes[best][0]) * (1 - _LOWER_GAP)
            for _ in range(_LOWER_PROBES + 1):
                ks = sorted(probes)
                lower, x0, x1 = min((piece_lb(u, v), u, v) for u, v in zip(ks, ks[1:], strict=False))
                if lower >= goal or x1 - x0 < 2:
                    break
                f((x0 + x1) // 2)
            out = (Fraction(best, scale), (Fraction(k_lo, scale), Fraction(k_hi, scale)), max(Fraction(0), lower))
    if len(_REAL_CACHE) > 256:
        _REAL_CACHE.clear()
    _REAL_CACHE[key] = out
    return out


def _parse(q: Any, sigma: Any, steps: Any, delta: Any, conversion: Any, max_order: Any) -> tuple:
    return as_fraction(q), as_fraction(sigma), int(steps), as_fraction(delta), str(conversion), int(max_order)


def dpsgd_rdp_eps_ball(
    ctx: Any,
    q: Exact,
    sigma: Exact,
    steps: int,
    delta: Exact,
    conversion: str,
    max_order: int,
    orders: str = "integer",
) -> arb | Fraction:
    """Rigorous ball of DP-SGD's RDP ε over every integer order 2..max_order (and with ``orders="real"`` the real
    order found near the best, see the module docstring; exact 0 when proved 0)."""
    try:
        res = dpsgd_rdp_eps_search(*_parse(q, sigma, steps, delta, conversion, max_order), ctx.prec, orders)
    except _Unresolved:
        return arb(0, math.inf)  # undecided at this precision: the caller refines
    if res.enclosure.is_exact:
        return res.enclosure.lo  # type: ignore[return-value]
    with workprec(ctx.prec):
        return res.enclosure.ball()


def dpsgd_rdp_eps(
    q: Any,
    sigma: Any,
    steps: Any,
    delta: Any,
    *,
    conversion: str = "cks",
    max_order: Any = DEFAULT_MAX_ORDER,
    orders: str = "integer",
    rel_tol: float = 1e-12,
    max_prec: int = MAX_PREC,
) -> RdpEps:
    """Certified RDP ε of DP-SGD (q, σ, T steps, δ) over every integer order up to ``max_order``, with the order
    (``orders="real"``: then the best real order found near it, see the module docstring).

    >>> r = dpsgd_rdp_eps("0.01", "1", 1000, "1e-5")
    >>> r.order, r.enclosure.short(8)
    (8, '[2.107753, 2.1077531]')
    """
    parsed = DPSGD_RDP_EPS.parse(
        {
            "q": q,
            "sigma": sigma,
            "steps": steps,
            "delta": delta,
            "conversion": conversion,
            "max_order": max_order,
            "orders": orders,
        }
    )
    args = _parse(*list(parsed.values())[:6])
    which = str(parsed["orders"])

    def step(prec: int) -> RdpEps | None:
        try:
            res = dpsgd_rdp_eps_search(*args, prec, which)
        except _Unresolved:
            return None
        enc = res.enclosure
        narrow = enc.width is not None and (enc.rel_width() <= rel_tol or enc.width <= Fraction(1, 10**300))
        if enc.is_exact or narrow:
            return res
        return None

    out, _ = refine(step, what=f"dpsgd.rdp.eps({args})", start_prec=START_PREC, max_prec=max_prec)
    return out


def dpsgd_rdp_eps_float(
    q: Any, sigma: Any, steps: Any, delta: Any, conversion: Any, max_order: Any, orders: Any = "integer"
) -> float:
    """float64 RDP ε: every order from 2 up, in turn, until T·ρ(α) alone shows no later order can do better;
    with ``orders="real"`` then scipy's bounded scalar minimisation on [n* − 1, n* + 1] with the float ρ of real
    orders (quadrature).

    Evidence only: the float ρ (log-space binomial sums), the conversion in float, and the stop rule
    T·ρ(α) − (1 + log α)/(α − 1) > best (valid for CKS and Mironov [Mir17] since ρ is non-decreasing in α). The real
    minimiser is independent of the certified search (a different method, no grid): it lands within about
    1e-9 relative of the certified value, not 1e-12.
    """
    qf, s, t, d, conv, n = _parse(q, sigma, steps, delta, conversion, max_order)
    df = float(d)
    r2 = sgm.rdp_float(qf, s, 2)
    if df * df + math.expm1(-t * r2) >= 0:
        return 0.0

    convert = cks_eps_raw if conv == "cks" else mironov_eps

    def eps(a: float, r: float) -> float:
        return convert(FLOAT, a, t * r, df)

    best, best_order = math.inf, 2
    for a in range(2, n + 1):
        r = r2 if a == 2 else sgm.rdp_float(qf, s, a)
        e = eps(a, r)
        if e < best:
            best, best_order = e, a
        if t * r - (1 + math.log(a)) / (a - 1) > best:
            break
    if str(orders) == "real":
        from scipy import optimize

        lo, hi = max(best_order - 1, 1 + 2**-REAL_ORDER_BITS), min(best_order + 1, n)
        hi = min(hi, sgm.SGM_MAX_REAL_ALPHA, 0.5 + math.sqrt(0.25 + 2 * float(s) ** 2 * sgm.SGM_MAX_REAL_EXPONENT))
        if hi > lo:

            def at(a: float) -> float:
                try:
                    return eps(a, sgm.rdp_float(qf, s, Fraction(a)))
                except (ValueError, ArithmeticError):  # the float quadrature under- or overflowed: no evidence
                    return math.inf

            res = optimize.minimize_scalar(
                at,
                bounds=(lo, hi),
                method="bounded",
                options={"xatol": 1e-7},
            )
            best = min(best, float(res.fun))
    return max(0.0, best)


def dpsgd_rdp_sigma(
    q: Any,
    steps: Any,
    eps: Any,
    delta: Any,
    *,
    conversion: str = "cks",
    max_order: Any = DEFAULT_MAX_ORDER,
    rel_tol: float = 1e-4,
) -> Enclosure:
    """Certified calibration by RDP: [σ_lo, σ_hi] around the least σ whose RDP ε (every integer order up to
    ``max_order``) is <= ``eps``; at σ_hi the RDP ε's certified upper end is <= eps, so σ_hi is proved (ε, δ)-DP,
    and at σ_lo the RDP ε's certified lower end is > eps (σ_lo bounds the RDP calibration, not the tight one).

    The RDP ε is non-increasing in σ: each order's ρ(α) is a Rényi divergence, non-increasing under the
    post-processing that adds independent noise, and both conversions and the minimum over orders preserve that.
    Bisection on exact rationals.

    >>> dpsgd_rdp_sigma("0.01", 1000, "2", "1e-5", rel_tol=1e-3).short(4)
    '[1.022, 1.024]'
    """
    e = as_fraction(real("eps", 0, lo_open=True).parse(eps))

    def value(s: Fraction) -> Enclosure:
        return dpsgd_rdp_eps(q, s, steps, delta, conversion=conversion, max_order=max_order, rel_tol=1e-9).enclosure

    lo, hi = Fraction(1, 8), Fraction(1)
    while not value(hi).hi <= e:
        lo, hi = hi, hi * 2
        if hi > 2**40:
            raise InvalidParameter("eps", str(eps), "a target some noise multiplier <= 2^40 meets by RDP")
    while value(lo).hi <= e and lo > Fraction(1, 2**40):
        hi, lo = lo, lo / 2
    # invariant: value(hi).hi <= e (σ_hi safe); lo: not proved safe
    while (hi - lo) > Fraction(rel_tol).limit_denominator(10**12) * hi:
        mid = Fraction(round((lo + hi) / 2 * 2**40), 2**40)
        if mid <= lo or mid >= hi:
            break
        if value(mid).hi <= e:
            hi = mid
        else:
            lo = mid
    s_lo = lo if value(lo).lo > e else Fraction(0)
    return Enclosure(s_lo, hi)


DPSGD_RDP_EPS = Quantity(
    "dpsgd.rdp.eps",
    (_Q, _SIGMA, _STEPS, _DELTA, _CONV, _MAX_ORDER, _ORDERS),
    dpsgd_rdp_eps_ball,
    "Mironov–Talwar–Zhang arXiv 1908.10530 composed over steps; CKS Prop. 12 or Mironov Prop. 3; "
    "every integer order 2..max_order bounded (van Erven–Harremoës 2014 Thm 3); orders=real: the bound at the "
    "best real order found near the best integer",
    "eps of DP-SGD (Poisson rate q, noise multiplier sigma, steps) by RDP, minimised over every integer order "
    "(orders=real: and real orders near the best)",
    float=dpsgd_rdp_eps_float,
    float_rtol=1e-11,
)

QUANTITIES = [DPSGD_RDP_EPS]
