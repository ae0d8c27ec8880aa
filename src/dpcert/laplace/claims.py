"""The Laplace mechanism's closed form at one step, reproduced by the PLD engine.

For Laplace noise of scale b on a query of sensitivity Δ, one step has δ(ε) = 1 − e^{(ε − Δ/b)/2} for 0 <= ε <= Δ/b
(docstring of :mod:`dpcert.laplace.loss`). At b = Δ = 1, ε = 1/2 that is 1 − e^{−1/4} = 0.2211992169…; the claims
state that the engine's certified bracket lies on either side of 0.22119 and 0.22121.
"""

from __future__ import annotations

from dpcert.core.claim import AtLeast, AtMost, QuantityClaim
from dpcert.laplace.pld import LAPLACE_DELTA

__all__ = ["CLAIMS"]

_REF = "the Laplace mechanism's one-step delta(eps) = 1 - exp((eps - sensitivity/scale)/2) (dpcert.laplace.loss)"
_AT = {"eps": "1/2", "scale": "1", "sensitivity": "1", "k": 1}

CLAIMS = [
    QuantityClaim(
        id="laplace.closed_form.one_step_delta_at_most",
        reference=_REF,
        statement="one Laplace step (scale 1, sensitivity 1) has delta(1/2) <= 0.22121 (exact: 1 - e^(-1/4) = "
        "0.2211992...)",
        quantity=LAPLACE_DELTA,
        inputs=_AT,
        comparison=AtMost.of("0.22121"),
    ),
    QuantityClaim(
        id="laplace.closed_form.one_step_delta_at_least",
        reference=_REF,
        statement="one Laplace step (scale 1, sensitivity 1) has delta(1/2) >= 0.22119 (exact: 1 - e^(-1/4) = "
        "0.2211992...)",
        quantity=LAPLACE_DELTA,
        inputs=_AT,
        comparison=AtLeast.of("0.22119"),
    ),
]
