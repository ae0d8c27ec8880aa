"""The Gaussian mechanism, exactly: δ(ε), its inverse ε(δ) and the calibration σ(ε, δ), certified.

M(x) = f(x) + N(0, σ²I) with ‖f(x) − f(x′)‖₂ <= Δ is (ε, δ)-DP iff δ >= δ_μ(ε), μ = Δ/σ, where (Balle–Wang [BW18],
arXiv 1805.06530, Thm 8 [BW18]; dp_accounting cites it as Eq. (6))::

    δ_μ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),   for every real ε (negative ones too).

k adaptive Gaussian mechanisms with the same μ compose to exactly one with √k·μ (Dong–Roth–Su [DRS22], "Gaussian
Differential Privacy", JRSS-B 2022: the pair (N(0, I), N(μ⃗, I)) dominates and composing such pairs adds the μ
vectors), so every quantity here takes μ² = kΔ²/σ², an exact rational.

Two facts used throughout (differentiate, and use φ(b) e^ε = φ(a) since b² = a² + 2ε, a = μ/2 − ε/μ,
b = −μ/2 − ε/μ): ∂δ/∂ε = −e^ε Φ(b) < 0 and ∂δ/∂μ = φ(a) > 0. So ε(δ) is the unique root of a strictly decreasing
function where δ_μ > 0 (and 0 when δ_μ(0) = erf(μ/(2√2)) <= δ), and the calibration σ(ε, δ) is the unique root of
a strictly monotone function of σ. Both are bracketed by :func:`dpcert.arith.search.certified_root`; the bracket's
safe end is the one where δ <= target is proved (the upper end of ε and of σ).

The two Φ terms cancel when ε/μ is large (δ ≈ Φ(a)·μ/|b|) or μ is small (δ ≈ 0.4μ); the ball evaluation takes
log2(2 + |ε|/μ² + 1/μ²) guard bits, which covers the loss, so the relative width keeps to the working precision
down to δ = 1e-300 and far below. The float twins are independent: δ(ε) by quadrature of the positive integral
δ_μ(ε) = ∫_0^∞ e^{−t} Φ̄((ε + t − μ²/2)/μ) dt (integration by parts of E_P[(1 − e^{ε−L})₊], L ~ N(μ²/2, μ²)),
ε(δ) and σ(ε, δ) by Brent's method on the closed form in log space (scipy's ``log_ndtr``).

References:
    B. Balle, Y.-X. Wang, "Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration and
    Optimal Denoising", ICML 2018 (arXiv 1805.06530), Thm 8 [BW18] and Algorithm 1.
    J. Dong, A. Roth, W. Su, "Gaussian Differential Privacy", JRSS-B 2022 (arXiv 1905.02383), Cor. 2.13, 3.3 [DRS22].
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb

from dpcert.arith.ball import MAX_PREC, START_PREC, Enclosure, ball, fraction_of, le, refine, workprec
from dpcert.arith.exact import Exact, as_fraction, parse_rational
from dpcert.arith.search import Bracket, Probe, certified_root
from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.errors import InvalidParameter

__all__ = [
    "MU2_MAX",
    "DELTA_MU2_MAX",
    "SIGMA_MAX",
    "check_mu_squared",
    "delta_ball",
    "delta_float",
    "eps_ball",
    "eps_float",
    "sigma_ball",
    "sigma_float",
    "eps_bracket",
    "sigma_bracket",
    "gaussian_delta",
    "gaussian_eps",
    "gaussian_sigma",
    "GAUSSIAN_DELTA",
    "GAUSSIAN_EPS",
    "GAUSSIAN_SIGMA",
    "QUANTITIES",
]

_REF = "Balle–Wang ICML 2018 (arXiv 1805.06530) Thm 8; k-fold composition: Dong–Roth–Su JRSS-B 2022 Cor. 3.3"

_EPS = real("eps", doc="epsilon (any real)")
_EPS_NONNEG = real("eps", 0, doc="target epsilon >= 0")
_DELTA = probability("delta", zero=False, doc="delta in (0, 1)")
_SIGMA = real("sigma", 0, lo_open=True, doc="noise standard deviation")
_SENS = real("sensitivity", 0, lo_open=True, default="1", doc="L2 sensitivity")
_K = integer("k", 1, default="1", doc="number of composed Gaussian mechanisms")


#: The largest μ² = kΔ²/σ² accepted by ε(δ) (checked before any work): up to it the certified ε search ends in seconds
#: at every δ of the domain (ε(δ) is then up to about 5·10^7); at μ² = 10^10 it did not finish in 15 s.
MU2_MAX = 10**8
#: The largest μ² accepted by δ(ε) (checked before any work): up to it δ(ε) is certified at every ε of the domain; at
#: μ² = 10^30 the ball's radius (about e^{−μ²/8}) has no rational end point that can be written out (it hung).
DELTA_MU2_MAX = 10**20
# μ has no lower limit: a tiny μ costs log2(1/μ²) guard bits.


def check_mu_squared(
    mu2: Fraction, name: str, value: Any, formula: str = "k*sensitivity^2/sigma^2", limit: int = MU2_MAX
) -> Fraction:
    """``mu2`` if it is at most ``limit`` (:data:`MU2_MAX` for ε(δ), :data:`DELTA_MU2_MAX` for δ(ε)), else an
    :class:`InvalidParameter` naming ``name`` = ``value`` and the limit."""
    if mu2 > limit:
        what = "delta(eps)" if limit == DELTA_MU2_MAX else "eps(delta)"
        raise InvalidParameter(
            name,
            value,
            f"a value with mu^2 = {formula} <= 10^{len(str(limit)) - 1} (here mu^2 = 10^{_log10(mu2):.1f}; the "
            f"certified {what} is not supported beyond)",
        )
    return mu2


def _log10(x: Fraction) -> float:
    return math.log10(x.numerator) - math.log10(x.denominator)


def mu_squared(sigma: Any, sensitivity: Any, k: int, limit: int = MU2_MAX) -> Fraction:
    """μ² = kΔ²/σ² of the k-fold composition, exact.

    Raises:
        InvalidParameter: when μ² > ``limit`` (before any work).
    """
    s, d = as_fraction(sigma), as_fraction(sensitivity)
    return check_mu_squared(k * d * d / (s * s), "sigma", getattr(sigma, "given", sigma), limit=limit)


def _guard(e: Fraction, mu2: Fraction) -> int:
    # δ ≈ Φ(a)·μ/|b| when ε/μ is large and ≈ 0.4μ when μ is small: the two Φ terms share about
    # log2(2 + |ε|/μ² + 1/μ²) leading bits, which are added as guard bits
    return math.ceil(2 + abs(e) / mu2 + 1 / mu2).bit_length() + 8


def _delta_terms(e: Fraction, mu: arb) -> tuple[arb, arb, arb]:
    """(δ_μ(ε), e^ε Φ(b), a) as balls at the working precision."""
    x = ball(e)
    s2 = arb(2).sqrt()
    a = mu / 2 - x / mu
    b = -mu / 2 - x / mu
    tail = x.exp() * (-b / s2).erfc() / 2
    return (-a / s2).erfc() / 2 - tail, tail, a


#: Below e^{-DELTA_LOG_FLOOR}, δ is enclosed as [0, 2^-DELTA_FLOOR_BITS] (a proved bound, see :func:`delta_ball`).
DELTA_LOG_FLOOR = 10**6
DELTA_FLOOR_BITS = 1442695  # 2^-1442695 > e^-(10^6)


def _below_floor(e: Fraction, mu2: Fraction) -> bool:
    """Whether a = μ/2 − ε/μ < 0 with a²/2 = (ε − μ²/2)²/(2μ²) >= 10^6 (exact), so δ <= Φ(a) <= e^{−10^6}/2."""
    return e > mu2 / 2 and (e - mu2 / 2) ** 2 >= 2 * mu2 * DELTA_LOG_FLOOR


def _delta_at(e: Fraction, mu2: Fraction, prec: int) -> arb:
    if _below_floor(e, mu2):
        half = arb(2) ** (-DELTA_FLOOR_BITS - 1)
        # [0, 2^-DELTA_FLOOR_BITS], widened by the radius' upward rounding (its lower end is a hair below 0)
        return arb(half, half)
    with workprec(prec + _guard(e, mu2)):
        return _delta_terms(e, ball(mu2).sqrt())[0]


def delta_ball(ctx: Any, eps: Exact, sigma: Exact, sensitivity: Exact, k: int) -> arb:
    """Rigorous ball of δ_μ(ε), μ = √k·Δ/σ, of relative width about 2^-ctx.prec (Balle–Wang [BW18] Thm 8).

    Args:
        ctx: a ball context (its ``prec`` is the working precision; guard bits are added for the cancellation).
        eps: ε, any real (exact). sigma, sensitivity: σ > 0 and Δ > 0 (exact). k: the number of compositions.

    Returns:
        An ``arb`` ball. Below e^{-10^6} (Φ(a) <= e^{−a²/2}/2 decided exactly on μ² and ε) the ball is
        about [0, 2^-1442695] (its lower end a hair below 0 by the radius' rounding): a proved upper bound,
        since such a δ has no useful digit-by-digit enclosure (its exact rational end points would take megabytes).
    """
    return _delta_at(as_fraction(eps), mu_squared(sigma, sensitivity, k, DELTA_MU2_MAX), ctx.prec)


def _log_delta_quad(e: float, mu: float) -> float:
    """log δ_μ(ε) in float64 by quadrature of ∫_0^∞ e^{−t} Φ̄((ε + t − μ²/2)/μ) dt (a positive integrand)."""
    from scipy import integrate, special

    c = e / mu - mu / 2
    opts = {"epsabs": 0.0, "epsrel": 1.2e-14, "limit": 200}
    if c >= 1:
        # Φ̄(c + s) = φ(c) e^{−cs − s²/2} R(c + s) (R the Mills ratio): factor φ(c) out and stretch by C = c + μ
        big = c + mu
        root = math.sqrt(math.pi / 2)

        def f(u: float) -> float:
            return math.exp(-u - u * u / (2 * big * big)) * root * float(special.erfcx((c + u / big) / math.sqrt(2)))

        value, _ = integrate.quad(f, 0, math.inf, **opts)
        if not value > 0:
            return -math.inf
        return math.log(mu) - c * c / 2 - 0.5 * math.log(2 * math.pi) - math.log(big) + math.log(value)
    # the rest: μ ∫_0^∞ e^{−μs} Φ̄(c + s) ds (μ < 1) or ∫_0^∞ e^{−t} Φ̄(c + t/μ) dt (μ >= 1), split where Φ̄ starts to
    # fall; past the point where the exponential factor is e^-60 the integral is cut (δ >= 1/2 there, since Φ̄ >= 1/2
    # up to the split, so the cut changes δ by less than 2e^-60 relative)
    if mu < 1:
        scale, split, cap = mu, -c, 60 / mu

        def g(x: float) -> float:
            return math.exp(-mu * x) * float(special.ndtr(-(c + x)))
    else:
        scale, split, cap = 1.0, -c * mu, 60.0

        def g(x: float) -> float:
            return math.exp(-x) * float(special.ndtr(-(c + x / mu)))

    head = integrate.quad(g, 0, min(split, cap), **opts)[0] if split > 0 else 0.0
    tail = integrate.quad(g, max(split, 0.0), math.inf, **opts)[0] if split < cap else 0.0
    total = scale * (head + tail)
    return math.log(total) if total > 0 else -math.inf


def _log_delta_direct(e: float, mu: float) -> float:
    """log δ_μ(ε) in float64 from the closed form in log space (fast; loses digits where the terms cancel)."""
    from scipy import special

    la = float(special.log_ndtr(mu / 2 - e / mu))
    lb = float(special.log_ndtr(-mu / 2 - e / mu))
    r = e + lb - la
    if r >= 0:
        return -math.inf
    return la + math.log(-math.expm1(r))


def _log_fraction(x: Fraction) -> float:
    """log x for a positive rational, in float64 without underflow (δ may be below 1e-308)."""
    return math.log(x.numerator) - math.log(x.denominator)


def delta_float(eps: Any, sigma: Any, sensitivity: Any, k: int) -> float:
    """float64 δ_μ(ε) by quadrature of its positive integral form (evidence, independent of the ball formula)."""
    import warnings

    mu = math.sqrt(float(mu_squared(sigma, sensitivity, k, DELTA_MU2_MAX)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # QUADPACK's roundoff notice: the value is tested against the ball instead
        return math.exp(_log_delta_quad(float(as_fraction(eps)), mu))


# --------------------------------------------------------------------------------------------- ε(δ)


def _eps_float_mu(d: Fraction, mu: float) -> float:
    from scipy import optimize

    target = _log_fraction(d)
    if _log_delta_direct(0.0, mu) <= target:
        return 0.0
    hi = mu * mu + 0.7 * (d.denominator // d.numerator + 1).bit_length()
    return float(
        optimize.brentq(lambda x: _log_delta_direct(x, mu) - target, 0.0, hi, xtol=1e-300, rtol=8.9e-16, maxiter=500)
    )


def eps_float(delta: Any, sigma: Any, sensitivity: Any, k: int) -> float:
    """float64 ε(δ): Brent's method on the closed form of log δ_μ (evidence); 0 when δ_μ(0) <= δ."""
    return _eps_float_mu(as_fraction(delta), math.sqrt(float(mu_squared(sigma, sensitivity, k))))


def eps_bracket(
    delta: Fraction, mu2: Fraction, rel_tol: Fraction, *, start_prec: int = START_PREC, max_prec: int = MAX_PREC
) -> Bracket:
    """Certified bracket of ε(δ) for μ² = ``mu2``: δ_μ(hi) <= δ is proved, and δ_μ(lo) > δ or lo = hi = 0.

    The search runs on [0, μ² + 0.7·bitlen(⌊1/δ⌋ + 1)]: at that ε, ε/μ − μ/2 >= √(2 log(1/δ)) (AM–GM), so
    δ_μ(ε) <= Φ(−√(2 log(1/δ))) <= δ/2. Each probe hands back log(δ_μ/δ) and ∂ log δ_μ/∂ε for Newton's method.
    """
    d = delta
    hi_end = mu2 + Fraction(7, 10) * (d.denominator // d.numerator + 1).bit_length()

    def decide(x: Fraction, prec: int) -> Probe | None:
        with workprec(prec + _guard(x, mu2)):
            value, tail, _ = _delta_terms(x, ball(mu2).sqrt())
            holds = le(value, ball(d))
            if holds is None:
                return None
            if not value > 0:
                return Probe(holds)
            return Probe(holds, fraction_of((value / ball(d)).log().mid()), fraction_of((-tail / value).mid()))

    def guess() -> float | None:
        g = _eps_float_mu(d, math.sqrt(float(mu2)))
        return g if 0 < g < float(hi_end) else None

    return certified_root(
        decide,
        0,
        hi_end,
        tol=rel_tol,
        guess=guess,
        guess_rel_err=Fraction(1, 2**40),
        start_prec=start_prec,
        max_prec=max_prec,
        what=f"gaussian: delta_mu(eps) <= {d} at mu^2 = {mu2}",
    )


def eps_ball(ctx: Any, delta: Exact, sigma: Exact, sensitivity: Exact, k: int) -> arb | Fraction:
    """Rigorous ball of ε(δ), relative width about 2^-(ctx.prec − 12), or the exact 0 when δ_μ(0) <= δ (probes
    that need more bits than ctx.prec raise their own precision)."""
    prec = ctx.prec
    cap = getattr(ctx, "max_prec", MAX_PREC)
    br = eps_bracket(
        as_fraction(delta),
        mu_squared(sigma, sensitivity, k),
        Fraction(1, 2 ** max(8, prec - 12)),
        start_prec=min(prec, cap),
        max_prec=cap,
    )
    if br.lo == br.hi:
        return br.lo
    with workprec(prec):
        return Enclosure(br.lo, br.hi).ball()


# --------------------------------------------------------------------------------------------- σ(ε, δ)


def _mu_float_root(e: float, d: Fraction) -> float:
    """float64 μ with δ_μ(ε) = δ (Brent on log μ), or nan."""
    from scipy import optimize

    target = _log_fraction(d)

    def f(t: float) -> float:
        v = _log_delta_direct(e, math.exp(t))
        return (v if math.isfinite(v) else -1e300) - target

    lo, hi = -1.0, 1.0
    for _ in range(2000):
        if f(lo) < 0:
            break
        lo -= 2.0
    for _ in range(2000):
        if f(hi) > 0:
            break
        hi += 2.0
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-17, rtol=8.9e-16, maxiter=500))


def sigma_float(eps: Any, delta: Any, sensitivity: Any, k: int) -> float:
    """float64 σ(ε, δ) = √k·Δ/μ* with δ_μ*(ε) = δ (Brent's method on log μ; evidence)."""
    mu = _mu_float_root(float(as_fraction(eps)), as_fraction(delta))
    return math.sqrt(k) * float(as_fraction(sensitivity)) / mu


def _dyadic_up(x: float, bits: int = 60) -> Fraction:
    m, ex = math.frexp(x)
    return Fraction(math.ceil(m * 2**bits)) * Fraction(2) ** (ex - bits)


#: The largest calibrated σ (checked by one certified probe before the search): the search starts from a float
#: guess of σ, which overflows beyond 10^308; without it the bisection takes thousands of probes (ε = 0,
#: δ = 1e-4000 needs σ = 4·10^3999 and did not finish in a minute).
SIGMA_MAX = Fraction(10**300)


def sigma_bracket(
    eps: Fraction,
    delta: Fraction,
    sensitivity: Fraction,
    k: int,
    rel_tol: Fraction,
    *,
    start_prec: int = START_PREC,
    max_prec: int = MAX_PREC,
) -> Bracket:
    """Certified bracket [lo, hi] of the least σ with δ_{√kΔ/σ}(ε) <= δ: the condition is proved at hi (a safe
    calibration) and proved false at lo.

    The ends are found from the float root (or from σ = (⌊√k⌋ + 1)Δ/δ, where δ_μ(ε) <= δ_μ(0) <= μ/√(2π) <= δ)
    by halving and doubling with certified probes; δ_μ(ε) → 1 > δ as σ → 0, so the halving ends.
    """
    d, e = delta, eps

    def mu2_of(s: Fraction) -> Fraction:
        return k * sensitivity * sensitivity / (s * s)

    def decide(s: Fraction, prec: int) -> Probe | None:
        mu2 = mu2_of(s)
        with workprec(prec + _guard(e, mu2)):
            mu = ball(mu2).sqrt()
            value, _, a = _delta_terms(e, mu)
            holds = le(value, ball(d))
            if holds is None:
                return None
            if not value > 0:
                return Probe(holds)
            # ∂ log δ/∂σ = −(φ(a)/δ)·μ/σ
            phi = (-a * a / 2).exp() / (2 * arb.pi()).sqrt()
            slope = -phi / value * mu / ball(s)
            return Probe(holds, fraction_of((value / ball(d)).log().mid()), fraction_of(slope.mid()))

    def certain(s: Fraction) -> bool:
        out, _ = refine(
            lambda p: decide(s, p),
            what=f"gaussian.sigma: delta at sigma = {s}",
            max_prec=max_prec,
            start_prec=start_prec,
        )
        return out.holds

    if not certain(SIGMA_MAX):
        raise InvalidParameter(
            "delta",
            f"10^{_log10(d):.6g}",
            f"a target met by some sigma <= 10^300 at eps = {float(e):.6g}, k = {k}, sensitivity = "
            f"{float(sensitivity):.6g} (the least such sigma is above 10^300, beyond the search's float start)",
        )
    try:
        g: float | None = sigma_float(e, d, sensitivity, k)
        if not (g is not None and math.isfinite(g) and g > 0):
            g = None
    except (ValueError, ArithmeticError, RuntimeError):
        g = None
    if g is not None:
        lo, hi = _dyadic_up(g * (1 - 2**-30)), _dyadic_up(g * (1 + 2**-30))
    else:
        hi = (math.isqrt(k) + 1) * sensitivity / d
        lo = hi / 2
    while not certain(hi):
        lo, hi = hi, hi * 2
    while certain(lo):
        lo, hi = lo / 2, lo
    return certified_root(
        decide,
        lo,
        hi,
        tol=rel_tol,
        guess=g,
        guess_rel_err=Fraction(1, 2**40),
        check_ends=False,
        start_prec=start_prec,
        max_prec=max_prec,
        what=f"gaussian.sigma: delta(eps={e}) <= {d}",
    )


def sigma_ball(ctx: Any, eps: Exact, delta: Exact, sensitivity: Exact, k: int) -> arb:
    """Rigorous ball containing the certified calibration bracket (relative width about 2^-(ctx.prec − 12))."""
    prec = ctx.prec
    cap = getattr(ctx, "max_prec", MAX_PREC)
    br = sigma_bracket(
        as_fraction(eps),
        as_fraction(delta),
        as_fraction(sensitivity),
        k,
        Fraction(1, 2 ** max(8, prec - 12)),
        start_prec=min(prec, cap),
        max_prec=cap,
    )
    with workprec(prec):
        return Enclosure(br.lo, br.hi).ball()


# --------------------------------------------------------------------------------------------- public API


def gaussian_delta(eps: Any, sigma: Any, sensitivity: Any = "1", k: Any = 1, *, rel_tol: float = 1e-15) -> Enclosure:
    """Certified enclosure of δ(ε) of the Gaussian mechanism (k-fold composed), Balle–Wang [BW18] Thm 8, of relative
    width
    at most ``rel_tol`` however small δ is (δ > 0 always, so no absolute floor is needed).

    >>> gaussian_delta("1", "1").short(12)
    '[0.126936737506, 0.126936737507]'
    """
    return GAUSSIAN_DELTA.enclose(
        eps=eps,
        sigma=sigma,
        sensitivity=sensitivity,
        k=k,
        rel_tol=rel_tol,
        abs_tol=Fraction(1, 2 ** (DELTA_FLOOR_BITS - 1)),
    )


def _tol(rel_tol: Any) -> Fraction:
    t = parse_rational(rel_tol, "rel_tol").value
    if t <= 0:
        raise InvalidParameter("rel_tol", rel_tol, "a positive real number")
    return t


def gaussian_eps(
    delta: Any, sigma: Any, sensitivity: Any = "1", k: Any = 1, *, rel_tol: Any = Fraction(1, 10**12)
) -> Enclosure:
    """Certified bracket of ε(δ) of the Gaussian mechanism: δ_μ(hi) <= δ is proved (hi is a safe ε).

    Returns the exact 0 when δ_μ(0) <= δ. The width is at most ``rel_tol·max(1, hi)``.

    >>> gaussian_eps("1e-5", "1", rel_tol=Fraction(1, 10**20)).decimal(17)
    ('4.3771780956812246', '4.3771780956812247')
    """
    parsed = GAUSSIAN_EPS.parse({"delta": delta, "sigma": sigma, "sensitivity": sensitivity, "k": k})
    br = eps_bracket(
        as_fraction(parsed["delta"]), mu_squared(parsed["sigma"], parsed["sensitivity"], parsed["k"]), _tol(rel_tol)
    )
    return Enclosure(br.lo, br.hi)


def gaussian_sigma(
    eps: Any, delta: Any, sensitivity: Any = "1", k: Any = 1, *, rel_tol: Any = Fraction(1, 10**12)
) -> Enclosure:
    """Certified calibration bracket of σ for (ε, δ): δ at σ = hi is proved <= δ (hi is a safe σ); at lo it is
    proved > δ. The width is at most ``rel_tol·max(1, hi)``."""
    parsed = GAUSSIAN_SIGMA.parse({"eps": eps, "delta": delta, "sensitivity": sensitivity, "k": k})
    br = sigma_bracket(
        as_fraction(parsed["eps"]),
        as_fraction(parsed["delta"]),
        as_fraction(parsed["sensitivity"]),
        parsed["k"],
        _tol(rel_tol),
    )
    return Enclosure(br.lo, br.hi)


GAUSSIAN_DELTA = Quantity(
    "gaussian.delta",
    (_EPS, _SIGMA, _SENS, _K),
    delta_ball,
    _REF,
    "delta(eps) of the Gaussian mechanism (sigma, L2 sensitivity, k-fold composed): exact privacy profile",
    float=delta_float,
    float_rtol=1e-12,
)
GAUSSIAN_EPS = Quantity(
    "gaussian.eps",
    (_DELTA, _SIGMA, _SENS, _K),
    eps_ball,
    _REF,
    "least eps with delta(eps) <= delta for the Gaussian mechanism (0 when delta(0) <= delta)",
    float=eps_float,
    float_rtol=1e-12,
)
GAUSSIAN_SIGMA = Quantity(
    "gaussian.sigma",
    (_EPS_NONNEG, _DELTA, _SENS, _K),
    sigma_ball,
    _REF + "; calibration as in Balle–Wang Algorithm 1, certified",
    "least sigma with delta(eps) <= delta for the Gaussian mechanism (the upper end is a proved-safe sigma)",
    float=sigma_float,
    float_rtol=1e-12,
)

QUANTITIES = [GAUSSIAN_DELTA, GAUSSIAN_EPS, GAUSSIAN_SIGMA]
