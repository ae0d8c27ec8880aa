"""Certified privacy-loss distributions for any mechanism: the engine.

A mechanism describes each neighbouring direction by a :class:`PrivacyLoss` (its privacy loss's certified survival
masses at grid points, a float choice of range, an atom at +∞); the engine does the rest, each end proved beside
its code:

* :mod:`dpcert.pld.loss`: the seam (the abstract class a mechanism implements);
* :mod:`dpcert.pld.discretise`: one step on a grid, a lower measure <=_icx and an upper one >=_icx the exact law;
* :mod:`dpcert.pld.floatdisc`: the same step in float64 arrays from float bounds of the survival masses, each end
  proved on the floats (the fast path's discretisation, the arb one where a float check is not decided);
* :mod:`dpcert.pld.compose`: composition of identical and of different steps, windows with every dropped tail
  accounted (ball products: the reference path);
* :mod:`dpcert.pld.fftcompose`: composition in float64 by FFT, tilted at the saddle point, with a proved bound on
  every rounding (``compose_directions(..., method="fft")``: the fast path the drivers use), of identical steps and
  of different ones (``compose_directions_mixed``: one transform per kind of step, raised to its count);
* :mod:`dpcert.pld.accountant`: δ(ε), ε(δ), the refinement driver and calibration by monotonicity;
* :mod:`dpcert.pld.estimate`: a float twin of the certified upper end (evidence only: it places the calibration's
  certified probes).

Mechanisms on it: :mod:`dpcert.gaussian.sgm_loss` (the Gaussian and the Poisson-subsampled Gaussian, DP-SGD's
``dpsgd.*`` in :mod:`dpcert.gaussian.pld`) and :mod:`dpcert.laplace` (``laplace.*``).
"""

from dpcert.pld.accountant import (
    EmptyIntersection,
    PldResult,
    calibrate,
    calibrate_located,
    compose_directions,
    compose_directions_mixed,
    delta_enclosure,
    delta_of,
    eps_enclosure,
    fitting_resolution,
    refining,
    resolution_for,
)
from dpcert.pld.compose import Composed, combine, compose
from dpcert.pld.discretise import MAX_CELLS, PREC, GridTooLarge, Measure, StepMeasures, discretise
from dpcert.pld.fftcompose import FloatComposed, compose_fft, compose_fft_mixed
from dpcert.pld.floatdisc import discretise_float
from dpcert.pld.loss import PrivacyLoss

__all__ = [
    "PrivacyLoss",
    "Measure",
    "StepMeasures",
    "Composed",
    "FloatComposed",
    "PldResult",
    "GridTooLarge",
    "EmptyIntersection",
    "discretise",
    "discretise_float",
    "compose",
    "compose_fft",
    "compose_fft_mixed",
    "combine",
    "compose_directions",
    "compose_directions_mixed",
    "delta_of",
    "delta_enclosure",
    "eps_enclosure",
    "refining",
    "calibrate",
    "calibrate_located",
    "resolution_for",
    "fitting_resolution",
    "MAX_CELLS",
    "PREC",
]
