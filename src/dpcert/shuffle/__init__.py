"""Shuffle-model RDP (Girgis, Data, Diggavi, Suresh, Kairouz, CCS 2021), certified.

* :mod:`dpcert.shuffle.bounds`: the paper's bounds (Theorems 1–3, Corollaries 1–2, eqs. (8) and (10)), in balls
  and in vectorised float64, with n̄ decided exactly;
* :mod:`dpcert.shuffle.pair`: the exact RDP of the binary randomized-response pair behind Theorem 3, both orders;
* :mod:`dpcert.shuffle.conversion`: the default certified upper bound min(Thm 1, Thm 2, RR_1) and RDP → DP
  (Lemma 1 both forms, Lemma 2 over T rounds, best λ);
* :mod:`dpcert.shuffle.reduction`: U_red, a tighter upper bound DERIVED HERE (Theorem 4 with the special case
  solved exactly), with its proof; exact up to n = 10^6 at integer λ by a moment expansion (``shuffle.rdp.upper``
  takes it in with ``bound=reduction``);
* :mod:`dpcert.shuffle.fmt20`: the FMT20 baseline (closed form certified, the clone analysis) composed by KOV15;
* :mod:`dpcert.shuffle.subsampling`: the Zhu–Wang Poisson-subsampled RDP bound over Theorem 1;
* :mod:`dpcert.shuffle.claims`: claims and errata of the notes (§5, §7);
* :mod:`dpcert.shuffle.figure_claims`: the figures' statements (Figures 3–5, the 8× and 11× savings, the peer).
"""

from dpcert.core.tables import lazy_tables

__all__ = ["QUANTITIES", "CLAIMS"]

# built on first access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = lazy_tables(__name__, quantities=("quantities", "figure_claims"), claims=("claims", "figure_claims"))
