"""DaRRM — private majority ensembling (Jiang, Zhang, Joshi, TMLR).

This foundation release covers the paper's privacy accounting: the general-composition totals of Tables 2, 3,
5, 7 and 9 and the GNMax calibration of Table 4 (:mod:`dpcert.darrm.gnmax`, :mod:`dpcert.darrm.accounting`).
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
