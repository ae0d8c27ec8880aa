"""Certified Gaussian mechanism and DP-SGD accounting.

* :mod:`dpcert.gaussian.mechanism`: the Gaussian mechanism's exact δ(ε) (Balle–Wang), its inverse ε(δ) and the
  calibration σ(ε, δ), k-fold composition exactly (Dong–Roth–Su);
* :mod:`dpcert.gaussian.composed`: heterogeneous Gaussians (σ_i, Δ_i) composed exactly into one (μ² = Σ (Δ_i/σ_i)²);
* :mod:`dpcert.gaussian.sgm`: the RDP of one step of the Poisson-subsampled Gaussian (Mironov–Talwar–Zhang) at
  integer orders (finite sum) and real orders (certified quadrature), and its exact one-step δ(ε) in both
  neighbouring directions;
* :mod:`dpcert.gaussian.conversion`: RDP → (ε, δ) (Mironov Prop. 3; Canonne–Kamath–Steinke Prop. 12);
* :mod:`dpcert.gaussian.dpsgd_rdp`: DP-SGD's ε by RDP, certified over every integer order up to a bound (and with
  ``orders=real`` a certified search over real orders near the best);
* :mod:`dpcert.gaussian.claims`: the public cases (autodp#39, tensorflow/privacy#166, the TF Privacy MNIST
  tutorial);
* :mod:`dpcert.gaussian.pld`: the tight DP-SGD accounting, certified both ends (``dpsgd.delta``, ``dpsgd.eps``,
  ``dpsgd.sigma``) from the privacy loss distribution of both neighbouring directions.
"""

from dpcert.core.tables import lazy_tables

__all__ = ["QUANTITIES", "CLAIMS", "gaussian_delta", "gaussian_sigma", "dpsgd_rdp_eps"]
_EXPORTS = {"gaussian_delta": "mechanism", "gaussian_sigma": "mechanism", "dpsgd_rdp_eps": "dpsgd_rdp"}

# built on first access, so that importing the package (or its cli) loads none of its mathematics
__getattr__ = lazy_tables(
    __name__,
    quantities=("mechanism", "composed", "sgm", "conversion", "dpsgd_rdp", "pld"),
    claims=("claims",),
    exports=_EXPORTS,
)
