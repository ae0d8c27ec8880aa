"""The Laplace mechanism's tight accounting, on the PLD engine (:mod:`dpcert.pld`).

* :mod:`dpcert.laplace.loss`: the mechanism, :class:`~dpcert.laplace.loss.LaplaceLoss` (its privacy loss, atoms at
  ±Δ/b, survival masses in Arb's balls), the engine's second mechanism after the subsampled Gaussian;
* :mod:`dpcert.laplace.pld`: ``laplace.delta`` and ``laplace.eps`` of k composed Laplace mechanisms, certified both
  ends;
* :mod:`dpcert.laplace.claims`: the closed form at one step, reproduced.

Public functions (imported on first use): :func:`laplace_delta` and :func:`laplace_eps`, each a
:class:`~dpcert.pld.PldResult`.
"""

from dpcert.laplace.declaration import DECLARATION

__all__ = ["QUANTITIES", "CLAIMS", "laplace_delta", "laplace_eps"]

_EXPORTS = {"laplace_delta": "pld", "laplace_eps": "pld"}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public functions are built on first
# access, so that importing the package loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
