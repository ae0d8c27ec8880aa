"""Statistic maximal leakage (Wang, Lin, Fanti): exact SML of finite mechanisms, RR and quantization, the errata.

* :mod:`dpcert.sml.mechanism`: exact SML of a finite mechanism (Proposition IV.1) by branch and bound, with the
  maximising selection; bounds and the sandwich with min-entropy and maximal leakage (Property IV.1).
* :mod:`dpcert.sml.deterministic`: deterministic mechanisms by maximum bipartite matching (Proposition IV.2).
* :mod:`dpcert.sml.operations`: composition and post-processing (Theorems IV.2, IV.3).
* :mod:`dpcert.sml.tabular`: randomized response and the quantization mechanism over histograms (§V, Theorem
  V.4), with the corrected QM distortion.
* :mod:`dpcert.sml.fileformat`: the channel-matrix file read by ``dpcert sml mechanism``.
* :mod:`dpcert.sml.claims`: the claims C1–C18 of the notes, errata as expected-REFUTED claims.
"""

from dpcert.core.quantity import Quantity
from dpcert.sml import quantities as _quantities

QUANTITIES: dict[str, Quantity] = {q.name: q for q in _quantities.QUANTITIES}

from dpcert.sml import claims as _claims  # noqa: E402  (its claims look quantities up in QUANTITIES)

CLAIMS = list(_claims.CLAIMS)

__all__ = ["QUANTITIES", "CLAIMS"]
