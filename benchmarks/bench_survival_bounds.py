"""survival_bounds (Taylor blocks) vs survivals (per-point balls) at the MNIST grid, both directions, one process."""
import statistics
import sys
import time
from fractions import Fraction

from dpcert.arith.ball import workprec
from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
from dpcert.pld.discretise import working_precision
from dpcert.pld.loss import PrivacyLoss

Q, SIGMA, N = Fraction(256, 60000), Fraction(11, 10), 4096
GRID = {"remove": (-19, 7288), "add": (-6594, 19)}  # what dpsgd_eps(256/60000, 1.1, 14040, 1e-5) discretises
losses = [SubsampledGaussianLoss(d, Q, SIGMA) for d in GRID]


def fast():
    for loss in losses:
        loss.survival_bounds(N, *GRID[loss.name])


def balls():
    with workprec(working_precision(N)):
        for loss in losses:
            loss.survivals(N, *GRID[loss.name])


def default():
    with workprec(working_precision(N)):
        for loss in losses:
            PrivacyLoss.survival_bounds(loss, N, *GRID[loss.name])


reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
times = {"survival_bounds (Taylor blocks)": [], "survivals (balls, today)": [], "default survival_bounds": []}
for _ in range(reps):
    for (name, ts), f in zip(times.items(), (fast, balls, default)):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
for name, ts in times.items():
    print(f"{name:34s} median {statistics.median(ts) * 1e3:7.1f} ms  min {min(ts) * 1e3:7.1f} ms  ({reps} runs)")
