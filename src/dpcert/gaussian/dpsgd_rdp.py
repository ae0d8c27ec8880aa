"""DP-SGD's ε by RDP, certified over every integer order up to a stated bound, with the optimal order.

DP-SGD with Poisson rate q, noise multiplier σ and T steps is (α, T·ρ(α))-RDP at every order α (RDP composes
additively; ρ from :mod:`dpcert.gaussian.sgm`), hence (ε, δ)-DP with

    ε = max(0, min over integer α in [2, N] of conv(α, T·ρ(α), δ)),

conv the CKS/Balle conversion (default) or Mironov's (:mod:`dpcert.gaussian.conversion`), or ε = 0 outright when
δ² >= 1 − e^{−T·ρ(2)} (Bretagnolle–Huber: TV <= √(1 − e^{−KL}), KL of the T-step pair <= T·ρ(2), and TV = δ(0)
in both directions; dp_accounting's small-order branch).

**Every order is bounded.** A fixed order grid can miss the best region (notes §2.7). Here the minimum over all
N − 1 orders is certified by branch and bound on blocks [a, b] of consecutive orders, with a lower bound proved for
the whole block from one evaluation at its first order:

* ρ(α) >= ρ(a) for α >= a: ρ(α) is the Rényi divergence D_α(P‖Q) of the remove pair, non-decreasing in α
  (van Erven–Harremoës, IEEE Trans. IT 60(7), 2014, Thm 3);
* log(1 − 1/α) is increasing and log(α)/(α − 1) decreasing in α > 1, and log(1/δ)/(α − 1) >= log(1/δ)/(b − 1).

Anchors grow geometrically (12.5 %) until the block [a, N] is certainly worse than the best certified upper end;
unpruned blocks are split at their midpoint until they are single orders. The enclosure is [min over the
surviving orders of their lower ends, the least upper end], clamped at 0 as proved; the reported order is the one
whose certified upper end is the reported one.

Real orders are not built yet; neither is the tight PLD accounting (``dpsgd.eps``, ``dpsgd.delta``).

References:
    Mironov–Talwar–Zhang arXiv 1908.10530 (the step's RDP); Mironov CSF 2017 Prop. 1 (composition) and Prop. 3;
    Canonne–Kamath–Steinke arXiv 2004.00010 Prop. 12; van Erven–Harremoës 2014 Thm 3 (monotone in the order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, ball, fraction_of, refine, workprec
from dpcert.arith.context import BallContext
from dpcert.arith.exact import Exact
from dpcert.core.params import choice, integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.gaussian import sgm
from dpcert.gaussian.conversion import cks_eps_raw, mironov_eps

__all__ = [
    "RdpEps",
    "dpsgd_rdp_eps_search",
    "dpsgd_rdp_eps",
    "dpsgd_rdp_eps_ball",
    "dpsgd_rdp_eps_float",
    "DPSGD_RDP_EPS",
    "DEFAULT_MAX_ORDER",
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


@dataclass(frozen=True)
class RdpEps:
    """The certified RDP ε of DP-SGD.

    Attributes:
        enclosure: rigorous enclosure of ε (its upper end is a valid ε at δ).
        order: the order whose certified ε gives the upper end (0 when ε = 0 by the KL/TV branch).
        max_order: N, the largest order searched (every order 2..N is bounded).
        evaluations: how many orders were evaluated in balls (the others were bounded by blocks).
        kl_branch: whether ε = 0 came from δ² >= 1 − e^{−T·ρ(2)}.
        precision: the working precision (bits).
    """

    enclosure: Enclosure
    order: int
    max_order: int
    evaluations: int
    kl_branch: bool
    precision: int


def _frac(v: Any) -> Fraction:
    return v.value if isinstance(v, Exact) else Fraction(v)


def dpsgd_rdp_eps_search(
    q: Fraction, sigma: Fraction, steps: int, delta: Fraction, conversion: str, max_order: int, prec: int
) -> RdpEps:
    """One certified branch-and-bound run at ``prec`` bits (see the module docstring)."""
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
        lo, hi = max(Fraction(0), lo), max(Fraction(0), hi)
        if kl_undecided:  # the TV branch may give 0: the value lies in [0, hi]
            lo = Fraction(0)
        return RdpEps(Enclosure(lo, hi), best["order"], max_order, len(rho), False, prec)


def _parse(q: Any, sigma: Any, steps: Any, delta: Any, conversion: Any, max_order: Any) -> tuple:
    return _frac(q), _frac(sigma), int(steps), _frac(delta), str(conversion), int(max_order)


def dpsgd_rdp_eps_ball(
    ctx: Any, q: Exact, sigma: Exact, steps: int, delta: Exact, conversion: str, max_order: int
) -> arb | Fraction:
    """Rigorous ball of DP-SGD's RDP ε over every integer order 2..max_order (exact 0 when proved 0)."""
    res = dpsgd_rdp_eps_search(*_parse(q, sigma, steps, delta, conversion, max_order), ctx.prec)
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
    rel_tol: float = 1e-12,
    max_prec: int = MAX_PREC,
) -> RdpEps:
    """Certified RDP ε of DP-SGD (q, σ, T steps, δ) over every integer order up to ``max_order``, with the order.

    >>> r = dpsgd_rdp_eps("0.01", "1", 1000, "1e-5")
    >>> r.order, r.enclosure.short(8)
    (8, '[2.107753, 2.1077531]')
    """
    parsed = DPSGD_RDP_EPS.parse(
        {"q": q, "sigma": sigma, "steps": steps, "delta": delta, "conversion": conversion, "max_order": max_order}
    )
    args = _parse(*parsed.values())

    def step(prec: int) -> RdpEps | None:
        res = dpsgd_rdp_eps_search(*args, prec)
        enc = res.enclosure
        narrow = enc.width is not None and (enc.rel_width() <= rel_tol or enc.width <= Fraction(1, 10**300))
        if enc.is_exact or narrow:
            return res
        return None

    out, _ = refine(step, what=f"dpsgd.rdp.eps({args})", start_prec=START_PREC, max_prec=max_prec)
    return out


def dpsgd_rdp_eps_float(q: Any, sigma: Any, steps: Any, delta: Any, conversion: Any, max_order: Any) -> float:
    """float64 RDP ε: every order from 2 up, in turn, until T·ρ(α) alone shows no later order can do better.

    Evidence only: the float ρ (log-space binomial sums), the conversion in float, and the stop rule
    T·ρ(α) − (1 + log α)/(α − 1) > best (valid for CKS and Mironov since ρ is non-decreasing in α).
    """
    qf, s, t, d, conv, n = _parse(q, sigma, steps, delta, conversion, max_order)
    df = float(d)
    r2 = sgm.rdp_float(qf, s, 2)
    if df * df + math.expm1(-t * r2) >= 0:
        return 0.0
    best = math.inf
    for a in range(2, n + 1):
        r = t * (r2 if a == 2 else sgm.rdp_float(qf, s, a))
        if conv == "cks":
            e = r + math.log1p(-1 / a) - (math.log(df) + math.log(a)) / (a - 1)
        else:
            e = r - math.log(df) / (a - 1)
        best = min(best, e)
        if r - (1 + math.log(a)) / (a - 1) > best:
            break
    return max(0.0, best)


DPSGD_RDP_EPS = Quantity(
    "dpsgd.rdp.eps",
    (_Q, _SIGMA, _STEPS, _DELTA, _CONV, _MAX_ORDER),
    dpsgd_rdp_eps_ball,
    "Mironov–Talwar–Zhang arXiv 1908.10530 (integer orders) composed over steps; CKS Prop. 12 or Mironov Prop. 3; "
    "every integer order 2..max_order bounded (van Erven–Harremoës 2014 Thm 3)",
    "eps of DP-SGD (Poisson rate q, noise multiplier sigma, steps) by RDP, minimised over every integer order",
    float=dpsgd_rdp_eps_float,
    float_rtol=1e-11,
)

QUANTITIES = [DPSGD_RDP_EPS]
