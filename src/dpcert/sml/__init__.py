"""Statistic maximal leakage (Wang, Lin, Fanti): exact SML of finite mechanisms, RR and quantization, the errata.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

* :mod:`dpcert.sml.mechanism`: exact SML of a finite mechanism (Proposition IV.1) by branch and bound, with the
  maximising selection; bounds and the sandwich with min-entropy and maximal leakage (Property IV.1).
* :mod:`dpcert.sml.parametric`: the same maximum, exactly, for entries that are rational functions of x = e^ε
  (every comparison a sign of a rational function at e^ε), with exp Π as a rational function.
* :mod:`dpcert.sml.deterministic`: deterministic mechanisms by maximum bipartite matching (Proposition IV.2).
* :mod:`dpcert.sml.operations`: composition and post-processing (Theorems IV.2, IV.3).
* :mod:`dpcert.sml.tabular`: randomized response and the quantization mechanism over histograms (§V, Theorem
  V.4), with the corrected QM distortion.
* :mod:`dpcert.sml.fileformat`: the channel-matrix file read by ``dpcert sml mechanism``.
* :mod:`dpcert.sml.claims`: the claims of [WLF24], errata as expected-REFUTED claims.

Public functions (imported on first use): :func:`sml` (exact SML of a :class:`FiniteMechanism`, with the
maximising selection, an :class:`SMLResult`), :func:`sml_bounds` (the sandwich of Property IV.1),
:func:`read_mechanism` (a mechanism file), :func:`sml_at_exp` (entries that are rational functions of e^ε).
"""

from dpcert.sml.declaration import DECLARATION

__all__ = [
    "QUANTITIES",
    "CLAIMS",
    "FiniteMechanism",
    "SMLResult",
    "sml",
    "sml_bounds",
    "read_mechanism",
    "sml_at_exp",
    "log_enclosure",
    "qm_mechanism",
    "qm_valid",
    "qm_distortion",
    "qm_distortion_printed",
    "distortion_brute_force",
    "figure5_points",
    "ADULT_D",
    "ADULT_TAU",
]

_EXPORTS = {
    "FiniteMechanism": "mechanism",
    "SMLResult": "mechanism",
    "sml": "mechanism",
    "sml_bounds": "mechanism",
    "read_mechanism": "fileformat",
    "sml_at_exp": "parametric",
    "log_enclosure": "mechanism",
    "qm_mechanism": "tabular",
    "qm_valid": "tabular",
    "qm_distortion": "tabular",
    "qm_distortion_printed": "tabular",
    "distortion_brute_force": "tabular",
    "figure5_points": "tabular",
    "ADULT_D": "tabular",
    "ADULT_TAU": "tabular",
}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public functions are built on first
# access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
