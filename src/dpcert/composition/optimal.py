"""Optimal composition of pure DP mechanisms: one import for the homogeneous and heterogeneous formulas.

The code lives in one module per idea; this module only gathers their public functions under the umbrella name
(kept so that ``from dpcert.composition.optimal import kov_eps`` goes on working):

* :mod:`dpcert.composition.kov`: k ε-DP mechanisms, δ(ε_g) and ε_g(δ) (``composition.kov.*``);
* :mod:`dpcert.composition.mv`: ε_1-, …, ε_k-DP mechanisms, brute force (``composition.mv.*``);
* :mod:`dpcert.composition.identities`: the exact identities relating the formulas (claims).

References:
    Kairouz–Oh–Viswanath ICML 2015 [KOV15] Thm 3.3; Murtagh–Vadhan TCC 2016 [MV16] Thms 1.4 and 1.5.
"""

from dpcert.composition.kov import (
    KOV_MAX_EPS,
    KOV_MAX_K,
    kov_delta,
    kov_delta_ball,
    kov_delta_float,
    kov_eps,
    kov_eps_ball,
    kov_eps_float,
)
from dpcert.composition.mv import MV_MAX_K, mv_delta, mv_delta_ball, mv_delta_float

__all__ = [
    "kov_delta_ball",
    "kov_delta_float",
    "kov_delta",
    "kov_eps",
    "kov_eps_ball",
    "kov_eps_float",
    "KOV_MAX_K",
    "KOV_MAX_EPS",
    "mv_delta_ball",
    "mv_delta_float",
    "mv_delta",
    "MV_MAX_K",
]
