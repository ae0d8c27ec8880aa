"""The RDP → (ε, δ)-DP conversion of Canonne–Kamath–Steinke as a named quantity, ``rdp.to_dp.eps_cks``.

The conversions themselves (CKS Prop. 12 and Mironov Prop. 3) are written once, with their proofs, in
:mod:`dpcert.composition.rdp`; this module declares the quantity DP-SGD's RDP accounting uses and re-exports the
formulas under the names this package has always given them.

References:
    C. Canonne, G. Kamath, T. Steinke, arXiv 2004.00010 v4, Prop. 12 [CKS20]; B. Balle, G. Barthe, M. Gaboardi, J. Hsu,
    T. Sato, AISTATS 2020, Thm 21; I. Mironov, CSF 2017 [Mir17], Prop. 3.
"""

from __future__ import annotations

from dpcert.arith.context import FLOAT
from dpcert.composition.rdp import ALPHA, cks_eps, cks_eps_raw, mironov_eps
from dpcert.core.params import probability, real
from dpcert.core.quantity import Quantity

__all__ = ["cks_eps_raw", "cks_eps", "mironov_eps", "RDP_TO_DP_CKS", "QUANTITIES"]


RDP_TO_DP_CKS = Quantity(
    "rdp.to_dp.eps_cks",
    (ALPHA, real("eps_rdp", 0, doc="the RDP at order alpha"), probability("delta", zero=False)),
    cks_eps,
    "Canonne–Kamath–Steinke arXiv 2004.00010 Prop. 12 (= Balle et al. AISTATS 2020 Thm 21); max(0, .) as proved",
    "max(0, eps_rdp + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1))",
    float=lambda **kw: cks_eps(FLOAT, **kw),
)

QUANTITIES = [RDP_TO_DP_CKS]
