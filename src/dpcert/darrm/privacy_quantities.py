"""The named quantities of the DaRRM privacy certifier and of DaRRM's utility.

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.
"""

from __future__ import annotations

from dpcert.core.params import integer, probability, real
from dpcert.core.quantity import Quantity
from dpcert.darrm.kernel import MAX_K
from dpcert.darrm.params import gamma_param

__all__ = ["QUANTITIES"]


def _margin_ball(ctx, **kw):
    from dpcert.darrm.privacy import _margin_ball as fn

    return fn(ctx, **kw)


def _margin_float(**kw):
    from dpcert.darrm.privacy import _margin_float as fn

    return fn(**kw)


_REF = "Jiang–Zhang–Joshi, DaRRM (TMLR), Lemma 3.4 (Eq. 1) and Lemma 5.1"

MARGIN = Quantity(
    "darrm.privacy.margin",
    (
        gamma_param(doc="sub, dsub, max, const, one, or a γ table file (recorded as its values)"),
        integer("K", 1, MAX_K, odd=True, doc="number of mechanisms (the float kernel's error analysis: K <= 201)"),
        real("m", 1, doc="privacy allowance, 1 <= m <= K"),
        real("eps", 0, doc="each mechanism's eps"),
        probability("Delta", doc="each mechanism's Delta"),
        probability("delta", doc="target delta >= Delta"),
    ),
    _margin_ball,
    _REF,
    "largest margin f - (e^{m eps} - 1 + 2 delta) over all corner multisets (<= 0: DaRRM_gamma is (m eps, delta)-DP)",
    float=_margin_float,
    float_rtol=1e-9,
)

QUANTITIES = [MARGIN]
