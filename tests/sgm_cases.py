"""Independent values and random settings for the Poisson-subsampled Gaussian's tests, shared by several modules.

``u_remove`` and ``two_steps`` are closed forms and mpmath quadrature of the remove direction (P = (1 − q)N(0, σ²) +
qN(1, σ²) against Q = N(0, σ²)), computed without dpcert; ``random_grid_cases`` draws (q, σ, n, tail) settings
for the survival-bound tests from a fixed seed.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath


def mp_of(x: F) -> mpmath.mpf:
    """An exact rational as an mpmath number (at the current precision)."""
    return mpmath.mpf(x.numerator) / x.denominator


def u_remove(q: mpmath.mpf, s: mpmath.mpf, t: mpmath.mpf) -> mpmath.mpf:
    """u_Y(t) = E_Q[(Y − t)₊] of one remove step, Y = 1 − q + q e^{(2x − 1)/(2σ²)}, x ~ N(0, σ²) (closed form)."""
    if t <= 1 - q:
        return 1 - t  # E_Q Y = 1 and Y > t everywhere
    xs = s**2 * mpmath.log((t - (1 - q)) / q) + mpmath.mpf(1) / 2  # Y >= t iff x >= xs
    return q * mpmath.ncdf(-(xs - 1) / s) - (t - (1 - q)) * mpmath.ncdf(-xs / s)


def two_steps(q: mpmath.mpf, s: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """δ_2(ε) = E_Q[Y_1 δ_1(ε − log Y_1)] with δ_1(ε') = u_Y(e^{ε'}) in closed form."""

    def integrand(x: mpmath.mpf) -> mpmath.mpf:
        y = (1 - q) + q * mpmath.exp((2 * x - 1) / (2 * s**2))
        return mpmath.npdf(x, 0, s) * y * u_remove(q, s, mpmath.exp(eps) / y)

    return mpmath.quad(integrand, [-mpmath.inf, -3, -1, 0, 0.5, 1, 1.5, 2, 3, 4, mpmath.inf])


def random_grid_cases(seed: int, count: int = 3) -> list[tuple[F, F, int, float]]:
    """``count`` settings (q, σ, n, tail) drawn from ``seed``: q in (0, 1), σ in [1/2, 6], n a power of 4, tail."""
    rng = random.Random(seed)
    return [
        (
            F(rng.randint(1, 999), 1000),
            F(rng.randint(5, 60), 10),
            rng.choice([64, 256, 1024]),
            10.0 ** -rng.randint(8, 30),
        )
        for _ in range(count)
    ]
