"""Shuffle-model RDP (Girgis, Data, Diggavi, Suresh, Kairouz, CCS 2021), certified.

Theorem, lemma, section and equation numbers in this module are those of [GDDSK21] unless another key is given.

* :mod:`dpcert.shuffle.bounds`: the paper's bounds (Theorems 1–3, Corollaries 1–2, eqs. (8) and (10)), in balls
  and in vectorised float64, with n̄ decided exactly;
* :mod:`dpcert.shuffle.pair`: the exact RDP of the binary randomized-response pair behind Theorem 3, both orders;
* :mod:`dpcert.shuffle.conversion`: the default certified upper bound min(Thm 1, Thm 2, RR_1) and RDP → DP
  (Lemma 1 both forms, Lemma 2 over T rounds, best λ);
* :mod:`dpcert.shuffle.reduction`: U_red, a tighter upper bound DERIVED HERE (Theorem 4 with the special case
  solved exactly), with its proof; exact up to n = 10^6 at integer λ by a moment expansion (``shuffle.rdp.upper``
  takes it in with ``bound=reduction``);
* :mod:`dpcert.shuffle.fmt20`: the FMT20 baseline (closed form certified, the clone analysis) composed by KOV15;
* :mod:`dpcert.shuffle.subsampling`: the Zhu–Wang [ZW19] Poisson-subsampled RDP bound over Theorem 1;
* :mod:`dpcert.shuffle.claims`: claims and errata of [GDDSK21];
* :mod:`dpcert.shuffle.figure_claims`: the figures' statements (Figures 3–5, the 8× and 11× savings, the peer).

Public functions (imported on first use): the bounds on the RDP of the shuffled mechanism at order λ, each as a
rigorous ``*_ball(ctx, n, eps0, lam)`` (run it inside ``dpcert.arith.context.BallContext(prec)``; or ask
``dpcert.enclose("shuffle.rdp.thm1", n=..., eps0=..., lam=...)`` for an enclosure to a given accuracy) and a
vectorised ``*_float(n, eps0, lam)``: :func:`thm1_ball` / :func:`thm1_float` (Theorem 1), :func:`thm2_ball` /
:func:`thm2_float` (Theorem 2), :func:`thm3_ball` (Theorem 3, the lower bound), :func:`cor1_ball`,
:func:`cor2_ball`, :func:`upper_ball` / :func:`upper_float` (the default certified upper bound); and the DP
conversion over T rounds, :func:`dp_eps_ball` / :func:`dp_eps_float` and :func:`dp_delta_ball` /
:func:`dp_delta_float`; :func:`nbar` (n̄ of Theorem 1, exact).
"""

from dpcert.shuffle.declaration import DECLARATION

__all__ = [
    "QUANTITIES",
    "CLAIMS",
    "thm1_ball",
    "thm1_float",
    "thm2_ball",
    "thm2_float",
    "thm3_ball",
    "cor1_ball",
    "cor2_ball",
    "nbar",
    "upper_ball",
    "upper_float",
    "dp_eps_ball",
    "dp_eps_float",
    "dp_delta_ball",
    "dp_delta_float",
    "efm19_float",
    "pair_float",
    "rr1_float",
    "best_lambda",
    "dp_eps_of_bound",
    "reduction_float",
    "closed_form_float",
    "clone_eps_float",
    "kov_split",
    "subsampled_kov_eps_float",
    "poisson_dp_eps",
]

_EXPORTS = {
    "thm1_ball": "bounds",
    "thm1_float": "bounds",
    "thm2_ball": "bounds",
    "thm2_float": "bounds",
    "thm3_ball": "bounds",
    "cor1_ball": "bounds",
    "cor2_ball": "bounds",
    "nbar": "bounds",
    "upper_ball": "conversion",
    "upper_float": "conversion",
    "dp_eps_ball": "conversion",
    "dp_eps_float": "conversion",
    "dp_delta_ball": "conversion",
    "dp_delta_float": "conversion",
    "efm19_float": "bounds",
    "pair_float": "pair",
    "rr1_float": "conversion",
    "best_lambda": "conversion",
    "dp_eps_of_bound": "conversion",
    "reduction_float": "reduction",
    "closed_form_float": "fmt20",
    "clone_eps_float": "fmt20",
    "kov_split": "fmt20",
    "subsampled_kov_eps_float": "fmt20",
    "poisson_dp_eps": "subsampling",
}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public functions are built on first
# access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
