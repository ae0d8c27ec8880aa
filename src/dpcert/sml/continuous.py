"""Continuous SML (Proposition L.8) for a Gaussian location mechanism, by rigorous quadrature.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

Proposition L.8 replaces the ill-posed density ratio of Eq. (3) by

    exp Π = sup over selections θ_g ∈ Θ_g of ∫_{Θ'} sup_{g∈𝐆} f_{Θ'|Θ}(θ' | θ_g) dθ'.

For Θ = [a, b] ⊂ ℝ, 𝔤 = identity (every θ its own secret, so the selection is forced) and Θ' = θ + N(0, σ²),
the envelope is sup_{g∈[a,b]} φ_σ(θ' − g) = φ_σ(dist(θ', [a, b])), because φ_σ is symmetric and decreasing in
|·|; hence (derived: docs/derivations/sml.md#continuous-parameters) exp Π = 1 + (b − a)/(σ√(2π)).

:func:`gaussian_location_sml_exp` integrates the envelope with Arb's rigorous quadrature (``acb.integral``) on
[a − T, a], [a, b], [b, b + T] (the envelope is analytic on each piece) and adds the two tails ∫_T^∞ φ_σ =
½ erfc(T/(σ√2)), each enclosed. It is a regression test of the quadrature route against the closed form, not a
general algorithm: efficient computation of continuous SML is an open problem (Appendix L).

References:
    Wang–Lin–Fanti, Eq. (3), Proposition L.8, Appendix L [WLF24]; docs/derivations/sml.md#continuous-parameters.
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb

from dpcert.arith.ball import ball
from dpcert.errors import InvalidParameter

__all__ = ["gaussian_location_sml_exp", "gaussian_location_closed_form"]


def gaussian_location_sml_exp(a: Fraction, b: Fraction, sigma: Fraction, tail: Fraction = Fraction(8)) -> arb:
    """exp Π of θ ↦ θ + N(0, σ²) on Θ = [a, b] with 𝔤 = identity, by rigorous quadrature of the envelope.

    Args:
        a, b: the parameter interval (a < b), exact.
        sigma: the noise standard deviation (> 0), exact.
        tail: truncation point in units of σ; the tails beyond it are added in closed form (erfc).

    Returns:
        An arb ball at the current working precision.

    Raises:
        InvalidParameter: for b <= a, sigma <= 0 or tail <= 0.

    References:
        Wang–Lin–Fanti, Proposition L.8 [WLF24]; docs/derivations/sml.md#continuous-parameters.
    """
    a, b, sigma, tail = Fraction(a), Fraction(b), Fraction(sigma), Fraction(tail)
    if b <= a:
        raise InvalidParameter("b", b, f"an upper end > a = {a}")
    if sigma <= 0:
        raise InvalidParameter("sigma", sigma, "a standard deviation > 0")
    if tail <= 0:
        raise InvalidParameter("tail", tail, "a truncation point > 0 (in units of sigma)")
    s = ball(sigma)
    norm = 1 / (s * (2 * arb.pi()).sqrt())
    lo_end, hi_end = ball(a), ball(b)

    def below(x: acb, analytic: bool) -> acb:  # θ' < a: nearest g is a
        return norm * (-((x - lo_end) ** 2) / (2 * s * s)).exp()

    def inside(x: acb, analytic: bool) -> acb:  # a <= θ' <= b: g = θ'
        return acb(norm)

    def above(x: acb, analytic: bool) -> acb:  # θ' > b: nearest g is b
        return norm * (-((x - hi_end) ** 2) / (2 * s * s)).exp()

    t = tail * sigma
    total = (
        acb.integral(below, ball(a - t), lo_end).real
        + acb.integral(inside, lo_end, hi_end).real
        + acb.integral(above, hi_end, ball(b + t)).real
    )
    one_tail = (ball(tail) / arb(2).sqrt()).erfc() / 2  # ∫_T^∞ φ_σ, T = tail·σ
    return total + 2 * one_tail


def gaussian_location_closed_form(a: Fraction, b: Fraction, sigma: Fraction) -> arb:
    """1 + (b − a)/(σ√(2π)) (docs/derivations/sml.md#continuous-parameters)."""
    return 1 + ball(Fraction(b) - Fraction(a)) / (ball(Fraction(sigma)) * (2 * arb.pi()).sqrt())
