"""DaRRM — private majority ensembling (Jiang, Zhang, Joshi, TMLR).

This foundation release covers the paper's privacy accounting: the general-composition totals of Tables 2, 3,
5, 7 and 9 and the GNMax calibration of Table 4 (:mod:`dpcert.darrm.gnmax`, :mod:`dpcert.darrm.accounting`).

The privacy pillar: the γ functions (:mod:`~dpcert.darrm.gamma`), the corners and corner multisets of Lemma 5.1
(:mod:`~dpcert.darrm.corners`), the float kernel with a proved error bound (:mod:`~dpcert.darrm.kernel`), the
certifier of Lemma 3.4's condition (:mod:`~dpcert.darrm.privacy`), for every ε at once and the safe rescaling
(:mod:`~dpcert.darrm.all_eps`), Theorem 4.1's i.i.d. setting (:mod:`~dpcert.darrm.iid`), the error of DaRRM_γ
(:mod:`~dpcert.darrm.utility`), and their claims (:mod:`~dpcert.darrm.privacy_claims`).
"""

from dpcert.core.quantity import Quantity
from dpcert.darrm import accounting, gnmax, privacy_quantities, utility

QUANTITIES: dict[str, Quantity] = {
    q.name: q for mod in (accounting, gnmax, privacy_quantities, utility) for q in mod.QUANTITIES
}

from dpcert.darrm import claims as _claims  # noqa: E402  (its claims look quantities up in QUANTITIES)
from dpcert.darrm import privacy_claim_list as _privacy_claims  # noqa: E402

CLAIMS = list(_claims.CLAIMS) + list(_privacy_claims.CLAIMS)

__all__ = ["QUANTITIES", "CLAIMS"]
