"""The Gaussian's ε under replace-one neighbours, reproduced: a replaced record moves a sum by twice the norm bound.

One ``GaussianDpEvent(noise_multiplier=2)`` under replace-one is the pair N(2, 4) against N(0, 4), i.e. the Gaussian
mechanism with μ = 2/2 = 1, whose ε at δ = 1e-5 is 4.3771780956… (the closed form δ(ε) = Φ(μ/2 − ε/μ) −
e^ε Φ(−μ/2 − ε/μ), solved in mpmath by the tests). dp-accounting's PLD accountant agrees (4.377); its RDP accountant
answers 2.166, the add/remove value (sensitivity 1 under replace-one): below the certified lower end, so not an
upper bound under dp-accounting's own convention. The claims state the certified bracket lies on either side of
4.3771 and 4.3773, and that it lies above 2.166.
"""

from __future__ import annotations

from dpcert.accounting.quantities import ACCOUNTING_EPS
from dpcert.core.claim import AtLeast, AtMost, QuantityClaim, Verdict

__all__ = ["CLAIMS"]

_REF = (
    "the Gaussian mechanism's closed form delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) at mu = "
    "2/noise_multiplier (replace-one: a sum moves by twice the norm bound; Balle-Wang 2018)"
)
_AT = {
    "events": ('{"type":"GaussianDpEvent","noise_multiplier":"2"}',),
    "delta": "1e-5",
    "neighboring": "replace_one",
}

CLAIMS = [
    QuantityClaim(
        id="accounting.replace_one.gaussian_eps_at_least",
        reference=_REF,
        statement="GaussianDpEvent(2) under replace-one has eps(1e-5) >= 4.3771 (exact: 4.37717809568...)",
        quantity=ACCOUNTING_EPS,
        inputs=_AT,
        comparison=AtLeast.of("4.3771"),
    ),
    QuantityClaim(
        id="accounting.replace_one.gaussian_eps_at_most",
        reference=_REF,
        statement="GaussianDpEvent(2) under replace-one has eps(1e-5) <= 4.3773 (exact: 4.37717809568...)",
        quantity=ACCOUNTING_EPS,
        inputs=_AT,
        comparison=AtMost.of("4.3773"),
    ),
    QuantityClaim(
        id="accounting.replace_one.rdp_sensitivity_one_is_below",
        reference=_REF
        + "; dp-accounting 0.6 RdpAccountant(REPLACE_ONE) answers 2.166 (google/differential-privacy#378)",
        statement="dp-accounting's RDP answer 2.166 for GaussianDpEvent(2) under replace-one is not an upper bound: "
        "eps(1e-5) <= 2.166 is refuted",
        quantity=ACCOUNTING_EPS,
        inputs=_AT,
        comparison=AtMost.of("2.166"),
        expected=Verdict.REFUTED,
    ),
]
