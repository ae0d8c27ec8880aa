"""DaRRM — private majority ensembling (Jiang, Zhang, Joshi, TMLR).

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

This foundation release covers the paper's privacy accounting: the general-composition totals of Tables 2, 3,
5, 7 and 9 and the GNMax calibration of Table 4 (:mod:`dpcert.darrm.gnmax`, :mod:`dpcert.darrm.accounting`).

The privacy pillar: the γ functions (:mod:`~dpcert.darrm.gamma`), the corners and corner multisets of Lemma 5.1
(:mod:`~dpcert.darrm.corners`), the float kernel with a proved error bound (:mod:`~dpcert.darrm.kernel`), the
certifier of Lemma 3.4's condition (:mod:`~dpcert.darrm.privacy`), for every ε at once and the safe rescaling
(:mod:`~dpcert.darrm.all_eps`), Theorem 4.1's i.i.d. setting (:mod:`~dpcert.darrm.iid`), the error of DaRRM_γ
(:mod:`~dpcert.darrm.utility`), and their claims (:mod:`~dpcert.darrm.privacy_claims`).

Public functions (imported on first use): :func:`problem` states a privacy question (γ, K, m, ε, Δ, δ) and
:func:`certify` decides it over every corner multiset (:class:`PrivacyResult`), :func:`certify_iid` for identical
mechanisms (Theorem 4.1), :func:`certify_all_eps` for every ε > 0 at once; :func:`error` and :func:`error_iid`
give the error of DaRRM_γ exactly; γ comes from :func:`named_gamma` (``sub``, ``dsub``, ``max``, ``const``,
``one`` or a table file), the constructors ``gamma_*`` or :func:`load_table`; :func:`optimize` computes γ_opt (the
LP of §5) as exact rationals, proved private, with a certified optimality gap (:class:`OptimizeResult`).
"""

from dpcert.darrm.declaration import DECLARATION

__all__ = [
    "QUANTITIES",
    "CLAIMS",
    "problem",
    "certify",
    "Problem",
    "PrivacyResult",
    "certify_iid",
    "certify_all_eps",
    "error",
    "error_iid",
    "Gamma",
    "named_gamma",
    "gamma_sub",
    "gamma_dsub",
    "gamma_max",
    "gamma_one",
    "gamma_const",
    "load_table",
    "optimize",
    "OptimizeResult",
    "validate_table",
    "objective",
    "corners",
    "corner_label",
    "n_multisets",
    "row_margin",
    "safe_rescaling",
]

_EXPORTS = {
    "problem": "privacy",
    "certify": "privacy",
    "Problem": "privacy",
    "PrivacyResult": "privacy",
    "certify_iid": "iid",
    "certify_all_eps": "all_eps",
    "error": "utility",
    "error_iid": "utility",
    "Gamma": "gamma",
    "named_gamma": "gamma",
    "gamma_sub": "gamma",
    "gamma_dsub": "gamma",
    "gamma_max": "gamma",
    "gamma_one": "gamma",
    "gamma_const": "gamma",
    "load_table": "gamma",
    "optimize": "optimize",
    "OptimizeResult": "optimize",
    "validate_table": "gamma",
    "objective": "optimize",
    "corners": "corners",
    "corner_label": "corners",
    "n_multisets": "corners",
    "row_margin": "privacy",
    "safe_rescaling": "all_eps",
}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public functions are built on first
# access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
