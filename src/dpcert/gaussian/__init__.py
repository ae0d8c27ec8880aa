"""Certified Gaussian mechanism and DP-SGD accounting.

* :mod:`dpcert.gaussian.mechanism`: the Gaussian mechanism's exact δ(ε) (Balle–Wang [BW18]), its inverse ε(δ) and the
  calibration σ(ε, δ), k-fold composition exactly (Dong–Roth–Su [DRS22]);
* :mod:`dpcert.gaussian.composed`: heterogeneous Gaussians (σ_i, Δ_i) composed exactly into one (μ² = Σ (Δ_i/σ_i)²);
* :mod:`dpcert.gaussian.sgm`: the RDP of one step of the Poisson-subsampled Gaussian (Mironov–Talwar–Zhang [MTZ19]) at
  integer orders (finite sum) and real orders (certified quadrature), and its exact one-step δ(ε) in both
  neighbouring directions;
* :mod:`dpcert.gaussian.conversion`: RDP → (ε, δ) (Mironov [Mir17] Prop. 3; Canonne–Kamath–Steinke [CKS20] Prop. 12);
* :mod:`dpcert.gaussian.dpsgd_rdp`: DP-SGD's ε by RDP, certified over every integer order up to a bound (and with
  ``orders=real`` a certified search over real orders near the best);
* :mod:`dpcert.gaussian.claims`: the public cases (autodp#39, tensorflow/privacy#166, the TF Privacy MNIST
  tutorial);
* :mod:`dpcert.gaussian.sgm_loss`: the Gaussian and the Poisson-subsampled Gaussian as mechanisms of the PLD engine
  (:mod:`dpcert.pld`): the survival masses of their privacy loss in both neighbouring directions;
* :mod:`dpcert.gaussian.pld`: the tight DP-SGD accounting, certified both ends (``dpsgd.delta``, ``dpsgd.eps``,
  ``dpsgd.sigma``) from the privacy loss distribution of both neighbouring directions, on the PLD engine;
* :mod:`dpcert.gaussian.sampling`: DP-SGD as trained: ``epochs``/``batch_size``/``n``, the samplers (Poisson, fixed
  size, shuffling) and the neighbouring relations (add/remove, replace-one), each with its proved pair or bracket;
* :mod:`dpcert.gaussian.schedule`: DP-SGD whose q and σ change over training, stages composed on one grid.

Public functions (imported on first use): the Gaussian mechanism's :func:`gaussian_delta` (δ(ε), certified),
:func:`gaussian_eps` (ε(δ)) and :func:`gaussian_sigma` (the calibration of σ to (ε, δ)); heterogeneous Gaussians
composed, :func:`gaussian_composed_delta` and :func:`gaussian_composed_eps`; one step of the Poisson-subsampled
Gaussian, :func:`sgm_rdp` (its RDP at an order) and :func:`sgm_delta` (its exact δ(ε)); DP-SGD by RDP,
:func:`dpsgd_rdp_eps` (an :class:`RdpEps`, with the best order), and by its privacy loss distribution (tight),
:func:`dpsgd_delta`, :func:`dpsgd_eps` and :func:`dpsgd_sigma` (the noise multiplier calibrated to (ε, δ)), each a
:class:`PldResult`, taking ``epochs``/``batch_size``/``n``, ``sampling`` and ``neighboring``; schedules,
:func:`dpsgd_schedule_eps` and :func:`dpsgd_schedule_delta`; the calibration by RDP, :func:`dpsgd_rdp_sigma`.
"""

from dpcert.gaussian.declaration import DECLARATION

__all__ = [
    "QUANTITIES",
    "CLAIMS",
    "gaussian_delta",
    "gaussian_eps",
    "gaussian_sigma",
    "gaussian_composed_delta",
    "gaussian_composed_eps",
    "sgm_rdp",
    "sgm_delta",
    "dpsgd_rdp_eps",
    "RdpEps",
    "dpsgd_delta",
    "dpsgd_eps",
    "dpsgd_sigma",
    "dpsgd_rdp_sigma",
    "dpsgd_schedule_eps",
    "dpsgd_schedule_delta",
    "PldResult",
]

_EXPORTS = {
    "gaussian_delta": "mechanism",
    "gaussian_eps": "mechanism",
    "gaussian_sigma": "mechanism",
    "gaussian_composed_delta": "composed",
    "gaussian_composed_eps": "composed",
    "sgm_rdp": "sgm",
    "sgm_delta": "sgm",
    "dpsgd_rdp_eps": "dpsgd_rdp",
    "RdpEps": "dpsgd_rdp",
    "dpsgd_delta": "pld",
    "dpsgd_eps": "pld",
    "dpsgd_sigma": "pld",
    "dpsgd_rdp_sigma": "dpsgd_rdp",
    "dpsgd_schedule_eps": "schedule",
    "dpsgd_schedule_delta": "schedule",
    "PldResult": "pld",
}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public functions are built on first
# access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
