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
names = ("survival_bounds (Taylor blocks)", "survivals (balls, today)", "default survival_bounds")
wall: dict[str, list[float]] = {name: [] for name in names}
cpu: dict[str, list[float]] = {name: [] for name in names}
for _ in range(reps):
    for name, f in zip(names, (fast, balls, default), strict=True):
        t, c = time.perf_counter(), time.process_time()
        f()
        wall[name].append(time.perf_counter() - t)
        cpu[name].append(time.process_time() - c)
# on a shared machine the process's CPU time is steadier than the wall clock; both are printed
for name in names:
    print(
        f"{name:34s} wall median {statistics.median(wall[name]) * 1e3:7.1f} ms (min {min(wall[name]) * 1e3:6.1f})"
        f"  cpu median {statistics.median(cpu[name]) * 1e3:7.1f} ms  ({reps} runs)"
    )
