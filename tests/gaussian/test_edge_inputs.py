"""Inputs at the edges of the declared domains: answered (certified, and checked here against an independent bound or
limit) or refused before any work in one ``dpcert: error: invalid NAME=...`` line with exit 2; never an internal
error, a traceback, nan or a hang (issue 28, item 4).

Every case runs the command line in a subprocess with a time limit (a hang inside a C call, such as a big-integer
power, cannot be interrupted in process). The edges: q = 1e-300, 1e-4000, 1 − 1e-300; σ = 1e-300, 1e-4000 and the
largest accepted; δ = 1e-300, 1e-4000; the largest orders and step counts. The independent checks:

* the Gaussian mechanism: δ_μ(ε) → 1 as σ → 0 (δ_μ(ε) >= Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2)); for δ < 1/2, ε(δ) lies in
  [μ²/2, μ²/2 + μ√(2 log(1/δ))] (at ε = μ²/2, δ_μ = 1/2 − e^{μ²/2}Φ(−μ) > δ; above, Φ(−t) <= e^{−t²/2}), and for
  δ > 1/2 below μ²/2; at ε = 0 the calibration is σ = 1/μ with erf(μ/(2√2)) = δ, i.e. 1/(δ√(2π)) for a tiny δ;
* one step's RDP at an integer order α: q^α e^{α(α−1)h} <= A_α <= e^{α(α−1)h}, h = 1/(2σ²) (the last term of the
  binomial sum; convexity of y ↦ y^α), so ρ(α) ∈ [αh + α·log(q)/(α − 1), αh];
* DP-SGD by RDP: ε >= T·ρ(2) − 2 log 2 (the CKS terms at any order α >= 2 are >= −2 log 2 when δ < 1) and
  ε <= T·ρ(2) + log(1/δ) (the order 2 itself), with ρ(2) = log(1 + q²(e^{1/σ²} − 1));
* TV: one step's δ(0) <= q (joint convexity), k steps' <= k·q, so k·q <= δ gives ε = 0.

The PLD engine's float path (tilted FFT composition with a proved round-off bound) answers δ = 1e-300 and honours
the time budget at a huge σ and at 10^7 steps.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

import dpcert

#: Seconds one command may take before it counts as a hang.
LIMIT = 60
#: 1 − 1e-300, written out.
NEAR_ONE = "0." + "9" * 300
_SRC = str(Path(dpcert.__file__).resolve().parent.parent)
SLOW = pytest.mark.slow
_RUN = "import sys; from dpcert.cli import main; sys.exit(main(sys.argv[1:]))"


def cli(*argv: str) -> tuple[int, str, str]:
    """``dpcert argv`` in a subprocess (this checkout's code): exit code, stdout, stderr; a hang fails the test."""
    env = dict(os.environ, PYTHONPATH=_SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        r = subprocess.run(
            [sys.executable, "-c", _RUN, *argv], capture_output=True, text=True, timeout=LIMIT, env=env, stdin=None
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"dpcert {' '.join(argv)}: no answer within {LIMIT} s")
    return r.returncode, r.stdout, r.stderr


def refused(argv: tuple[str, ...], name: str, *words: str) -> str:
    """The command exits 2 with one ``invalid NAME=`` line on stderr (and the words given); returns the line."""
    code, out, err = cli(*argv)
    lines = err.strip().splitlines()
    assert "internal error" not in err and "Traceback" not in err, err[-2000:]
    assert code == 2 and not out and len(lines) == 1, (code, out[-500:], err[-2000:])
    assert lines[0].startswith(f"dpcert: error: invalid {name}="), lines[0]
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def answer(argv: tuple[str, ...]) -> tuple[Fraction, Fraction]:
    """The command (given ``--json``) exits 0 with a finite enclosure; returns its ends as exact rationals."""
    code, out, err = cli(*argv, "--json")
    assert "internal error" not in err and "Traceback" not in err, err[-2000:]
    assert code == 0, (code, err[-2000:])
    enc = json.loads(out)["enclosure"]
    assert "nan" not in (enc["lo"] + enc["hi"]).lower() and "inf" not in (enc["lo"] + enc["hi"]).lower(), enc
    lo, hi = Fraction(enc["lo"]), Fraction(enc["hi"])
    assert lo <= hi, enc
    return lo, hi


def log(x: Fraction) -> float:
    """log of a positive rational in float64, without the under- or overflow of float(x)."""
    return math.log(x.numerator) - math.log(x.denominator)


def close(x: Fraction, y: float, rel: float = 1e-12) -> bool:
    return abs(float(x) - y) <= rel * abs(y)


# ---------------------------------------------------------------------------------------------- the Gaussian mechanism


@pytest.mark.parametrize(
    ("argv", "name", "limit"),
    [
        # before: gaussian.delta at sigma = 1e-300 hung in an exact conversion of a radius of about e^(-10^599)
        (("eval", "gaussian.delta", "eps=1", "sigma=1e-300"), "sigma", "10^20"),
        (("eval", "gaussian.delta", "eps=50000", "sigma=1e-10", "sensitivity=100000"), "sigma", "10^20"),
        # before: internal error (a 4300-digit integer printed into a message)
        (("eval", "gaussian.eps", "delta=1e-5", "sigma=1e-4000"), "sigma", "10^8"),
        (("eval", "gaussian.eps", "delta=1e-5", "sigma=1", "sensitivity=1", "k=10000000000"), "sigma", "10^8"),
        # before: hung, and undecided after work
        (("eval", "gaussian.composed.delta", "eps=1", "sigmas=1e-300,100000"), "sigmas", "10^20"),
        (("eval", "gaussian.composed.eps", "delta=1e-5", "sigmas=1e-300"), "sigmas", "10^8"),
    ],
)
def test_gaussian_mu_beyond_the_limit_is_refused_naming_it(argv, name, limit):
    refused(argv, name, "mu^2", limit)


@pytest.mark.parametrize("eps", ["1", pytest.param("100000", marks=SLOW), pytest.param("-100000", marks=SLOW)])
def test_gaussian_delta_tends_to_one_as_sigma_tends_to_zero(eps):
    # μ = 10^10 (μ² = 10^20, the largest accepted): δ_μ(ε) >= Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2) > 1 − 10^-100
    lo, hi = answer(("eval", "gaussian.delta", f"eps={eps}", "sigma=1e-10", "--digits", "60"))
    assert lo >= 1 - Fraction(1, 10**60) and lo <= 1


@pytest.mark.parametrize("delta", ["1e-300", pytest.param("1e-4000", marks=SLOW), pytest.param(NEAR_ONE, marks=SLOW)])
def test_gaussian_eps_at_the_largest_mu(delta):
    mu2 = Fraction(10**8)
    lo, hi = answer(("eval", "gaussian.eps", f"delta={delta}", "sigma=1e-4", "--digits", "6"))
    d = Fraction(delta)
    if d < Fraction(1, 2):
        assert mu2 / 2 * (1 - Fraction(1, 10**12)) <= lo
        assert float(hi) <= (float(mu2) / 2 + 10**4 * math.sqrt(2 * -log(d))) * (1 + 1e-12)
    else:  # δ_μ(μ²/2) < 1/2 < δ
        assert 0 < lo and hi <= mu2 / 2


def test_gaussian_sigma_beyond_1e300_is_refused_naming_delta():
    # before: no answer within a minute (the float start overflowed; thousands of bisections at 26,600 bits)
    refused(("eval", "gaussian.sigma", "eps=0", "delta=1e-4000"), "delta", "10^300")


def test_gaussian_sigma_next_to_the_limit():
    # ε = 0: δ_μ(0) = erf(μ/(2√2)) = μ/√(2π)·(1 − O(μ²)), so σ = 1/μ = 1/(δ√(2π)) = 3.989e299 to far below 1e-12
    lo, hi = answer(("eval", "gaussian.sigma", "eps=0", "delta=1e-300"))
    expected = 1 / (1e-300 * math.sqrt(2 * math.pi))
    assert close(lo, expected) and close(hi, expected)


# ---------------------------------------------------------------------------------------------- one step's RDP


def _rdp_bounds(q: Fraction, sigma: Fraction, alpha: int) -> tuple[float, float]:
    h = 1 / (2 * sigma * sigma)
    top = float(alpha * h) if alpha * h < 10**300 else math.inf
    return top + alpha * log(q) / (alpha - 1), top


@pytest.mark.parametrize(
    ("q", "sigma", "alpha"),
    [
        ("0.01", "1e-300", 100000),  # before: internal error (1/(2 sigma^2) converted to a float)
        ("0.01", "1e-4000", 8),  # before: undecided, enclosure [-inf, inf]
        pytest.param("0.01", "1e-20", 2, marks=SLOW),
        (NEAR_ONE, "1", 100000),  # before: math domain error (log1p(-float(q)))
        pytest.param("1e-300", "1", 100000, marks=SLOW),
    ],
)
def test_sgm_rdp_between_its_last_term_and_the_gaussian(q, sigma, alpha):
    lo, hi = answer(("eval", "sgm.rdp", f"q={q}", f"sigma={sigma}", f"alpha={alpha}", "--digits", "6"))
    low, high = _rdp_bounds(Fraction(q), Fraction(sigma), alpha)
    if math.isinf(high):  # 1/σ² beyond floats: compare the leading term exactly
        h = 1 / (2 * Fraction(sigma) ** 2)
        assert alpha * h * (1 - Fraction(1, 10**6)) <= lo and hi <= alpha * h * (1 + Fraction(1, 10**6))
    else:
        assert float(lo) >= low * (1 - 1e-9) and float(hi) <= high * (1 + 1e-9)


@pytest.mark.parametrize("alpha", ["2.5", pytest.param("1.5", marks=SLOW)])
def test_sgm_rdp_real_order_at_q_next_to_one_is_the_gaussians(alpha):
    # before: math domain error; at q = 1 − 1e-300 the RDP is α/(2σ²) up to about 1e-300
    lo, hi = answer(("eval", "sgm.rdp", f"q={NEAR_ONE}", "sigma=1", f"alpha={alpha}"))
    assert close(lo, float(alpha) / 2) and close(hi, float(alpha) / 2)


@pytest.mark.slow
def test_sgm_delta_tends_to_q_as_sigma_tends_to_zero():
    lo, hi = answer(("eval", "sgm.delta", "q=0.01", "sigma=1e-300", "eps=1"))
    assert close(lo, 0.01, 1e-9) and close(hi, 0.01, 1e-9)


def test_sgm_delta_below_the_floor_is_the_proved_bound():
    # before: PrecisionExhausted (the Python function asked for relative digits of a δ below e^{-10^6}); the value
    # is below Φ̄((x* − 1)/σ) with x* about σ²/q = 10^12, so e^{-10^6} is a valid bound
    from dpcert.gaussian import sgm_delta

    enc = sgm_delta("0.01", "100000", "1")
    assert enc.lo <= 0 and 0 < enc.hi <= Fraction(1, 2**1442694)


@pytest.mark.slow
def test_sgm_delta_at_zero_is_at_most_q():
    lo, hi = answer(("eval", "sgm.delta", "q=1e-300", "sigma=1", "eps=0"))
    # TV of one step: q·TV(N(1,1), N(0,1)) = q(2Φ(1/2) − 1) = 0.38292…·q in the remove direction
    assert Fraction(38, 100) * Fraction(1, 10**300) <= lo and hi <= Fraction(1, 10**300)


# ---------------------------------------------------------------------------------------------- DP-SGD by RDP


@pytest.mark.parametrize(
    "argv",
    [
        # the case: before, "fraction_of needs an exact finite ball, got nan"
        ("dpsgd", "eps", "q=1e-10", "sigma=1e-300", "steps=1", "delta=1e-300", "--method", "rdp"),
        ("eval", "dpsgd.rdp.eps", "q=0.01", "sigma=1e-20", "steps=1000", "delta=1e-5"),
        ("eval", "dpsgd.rdp.eps", "q=1e-4000", "sigma=1e-100", "steps=1", "delta=1e-4000"),
    ],
)
def test_dpsgd_rdp_at_tiny_sigma_is_steps_times_rho2(argv):
    kv = dict(a.split("=", 1) for a in argv if "=" in a)
    q, s, t, d = Fraction(kv["q"]), Fraction(kv["sigma"]), int(kv["steps"]), Fraction(kv["delta"])
    lo, hi = answer(argv)
    # ρ(2) = log(1 + q²(e^{1/σ²} − 1)) = 1/σ² + 2 log q up to far less than 1 here
    t_rho2 = t / (s * s) + Fraction(2 * t * log(q))
    slack = Fraction(1, 10**15)  # the JSON's 20 digits
    assert lo >= (t_rho2 - 2) * (1 - slack)
    assert hi <= (t_rho2 + 1 + Fraction(-log(d))) * (1 + slack)


def test_dpsgd_rdp_at_sigma_1e4000():
    lo, hi = answer(("dpsgd", "eps", "q=0.01", "sigma=1e-4000", "steps=10", "delta=1e-5", "--method", "rdp"))
    lead = 10 / Fraction(1, 10**4000) ** 2  # T/σ², against which log terms vanish
    assert lead * (1 - Fraction(1, 10**9)) <= lo and hi <= lead * (1 + Fraction(1, 10**9))


def _rdp_eps_q1(sigma: float, steps: int, delta: float, max_order: int = 10_000) -> float:
    """The CKS ε of T Gaussian steps (q = 1: ρ(α) = α/(2σ²)) over the integer orders, in floats."""
    return min(
        steps * a / (2 * sigma * sigma) + math.log1p(-1 / a) - (math.log(delta) + math.log(a)) / (a - 1)
        for a in range(2, max_order + 1)
    )


@pytest.mark.parametrize("orders", [pytest.param("integer", marks=SLOW), "real"])
def test_dpsgd_rdp_at_q_next_to_one_is_the_gaussians(orders):
    # before: math domain error with orders=real; ρ at q = 1 − 1e-300 is the Gaussian's up to about 1e-300
    lo, hi = answer(
        ("dpsgd", "eps", f"q={NEAR_ONE}", "sigma=1", "steps=10", "delta=1e-5", f"orders={orders}", "--method", "rdp")
    )
    integer_min = _rdp_eps_q1(1.0, 10, 1e-5)
    if orders == "integer":
        assert close(lo, integer_min, 1e-9) and close(hi, integer_min, 1e-9)
    else:  # a real order can only do better, by less than the spacing of the integer orders' values
        assert float(hi) <= integer_min * (1 + 1e-9) and float(lo) >= integer_min * 0.95


def test_dpsgd_rdp_tiny_q_is_zero():
    # k·q <= δ: TV <= k·q, and the KL branch proves 0
    lo, hi = answer(("dpsgd", "eps", "q=1e-300", "sigma=1", "steps=1", "delta=1e-5", "--method", "rdp"))
    assert lo == hi == 0


@pytest.mark.slow
def test_dpsgd_rdp_at_the_largest_step_count():
    lo, hi = answer(("eval", "dpsgd.rdp.eps", "q=0.01", "sigma=1", "steps=1000000000000", "delta=1e-4000"))
    t_rho2 = 10**12 * math.log1p(1e-4 * math.expm1(1))  # T·ρ(2) = 1.718e8
    assert float(lo) >= (t_rho2 - 2 * math.log(2)) * (1 - 1e-12)
    assert float(hi) <= (t_rho2 + 4000 * math.log(10)) * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------- DP-SGD by PLD


def _answered_or_refused(argv: tuple[str, ...]) -> None:
    code, out, err = cli(*argv)
    assert "internal error" not in err and "Traceback" not in err, err[-2000:]
    assert code in (0, 2), (code, err[-2000:])
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("dpcert: error: invalid "), lines


@pytest.mark.parametrize(
    "argv",
    [
        ("dpsgd", "eps", "q=1e-300", "sigma=1", "steps=1", "delta=1e-5", "--quiet", "--seconds", "20"),
        pytest.param(
            ("eval", "dpsgd.eps", "q=1e-300", "sigma=1", "steps=10", "delta=1e-5", "--seconds", "20"),
            marks=SLOW,
        ),
        pytest.param(
            ("eval", "dpsgd.eps", "q=1e-4000", "sigma=1", "steps=10", "delta=1e-5", "--seconds", "20"),
            marks=SLOW,
        ),
        # the start grid does not fit the cell cap, and the message blames sigma
        ("eval", "dpsgd.eps", "q=1e-6", "sigma=0.5", "steps=1", "delta=1e-5", "--seconds", "20"),
    ],
)
def test_pld_eps_is_zero_when_steps_times_q_is_below_delta(argv):
    lo, hi = answer(argv)
    assert lo == 0 and hi <= Fraction(1, 100)


@pytest.mark.parametrize(
    "argv",
    [
        # the case: ZeroDivisionError in the float start resolution (now refused: the loss range of sigma
        # = 1e-300 fits no grid); q = 1e-300: answered (the grid check keeps q's digits); q = 1e-4000: refused
        # before work (the grid range is chosen in float64), as is the calibration below 1e-150
        ("eval", "dpsgd.eps", "q=0.01", "sigma=1e-300", "steps=1", "delta=1e-4000"),
        pytest.param(("eval", "dpsgd.delta", "q=0.01", "sigma=1e-4000", "steps=10", "eps=1"), marks=SLOW),
        ("eval", "dpsgd.delta", "q=1e-300", "sigma=1", "steps=10", "eps=1"),
        pytest.param(("eval", "dpsgd.delta", "q=1e-4000", "sigma=1", "steps=10", "eps=1"), marks=SLOW),
        pytest.param(("dpsgd", "sigma", "q=1e-300", "steps=10", "eps=1", "delta=1e-5", "--quiet"), marks=SLOW),
    ],
)
def test_pld_tiny_q_or_sigma_answered_or_refused(argv):
    _answered_or_refused((*argv, "--seconds", "20"))


@pytest.mark.slow
def test_pld_eps_at_delta_1e300_is_below_the_rdp_bound():
    # answered to the default 1 % (the float path's tilt puts the tail δ depends on at the top of the float range,
    # and the grid's dropped tails follow the target); the RDP ε (a valid upper bound, not tight) is ~72, and the
    # tight ε lies below it
    _, rdp_hi = answer(("dpsgd", "eps", "q=0.01", "sigma=1", "steps=10", "delta=1e-300", "--method", "rdp"))
    lo, hi = answer(("dpsgd", "eps", "q=0.01", "sigma=1", "steps=10", "delta=1e-300", "--quiet", "--seconds", "20"))
    assert 0 < lo <= hi <= rdp_hi
    assert hi - lo <= hi / 100


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        # were not answered within a minute at --seconds 5 (the arb composition); the float path honours the budget
        ("eval", "dpsgd.delta", "q=0.01", "sigma=100000", "steps=10", "eps=1", "--seconds", "5"),
        ("eval", "dpsgd.eps", "q=0.01", "sigma=100000", "steps=10", "delta=1e-5", "--seconds", "5"),
        ("eval", "dpsgd.delta", "q=0.01", "sigma=1", "steps=10000000", "eps=1", "--seconds", "5"),
        # was an OverflowError from a float exp in the window once the composed loss passed about 709 (fixed by
        # the PLD engine's log-domain window masses)
        ("dpsgd", "eps", "q=1", "sigma=1", "steps=1000", "delta=1e-5", "--quiet", "--seconds", "30"),
    ],
)
def test_pld_large_sigma_or_steps_answered_within_the_budget(argv):
    budget = float(argv[-1])
    start = time.perf_counter()
    _answered_or_refused(argv)
    # the budget plus the interpreter's start and one last run's overshoot, on a shared machine
    assert time.perf_counter() - start <= 4 * budget + 10


def test_dpsgd_rdp_an_infinite_ball_means_more_precision(monkeypatch):
    # before: "fraction_of needs an exact finite ball, got nan" (an internal error) whenever a step's RDP ball came
    # out infinite at the working precision; now the step is undecided and the precision is raised
    from flint import arb

    from dpcert.gaussian import dpsgd_rdp, sgm

    real = sgm._rdp_at
    seen: list[int] = []

    def coarse_first(q, sigma, alpha, prec):
        seen.append(prec)
        return arb(0, math.inf) if prec < 128 else real(q, sigma, alpha, prec)

    monkeypatch.setattr(sgm, "_rdp_at", coarse_first)
    r = dpsgd_rdp.dpsgd_rdp_eps("0.01", "1", 1000, "1e-5")
    assert min(seen) < 128 <= max(seen)
    assert r.enclosure.lo <= Fraction("2.1077531") and r.enclosure.hi >= Fraction("2.107753")  # the doctest's value


def test_pld_eps_without_a_grid_agrees_with_rdp_and_with_the_grid():
    """steps·q <= delta: the PLD path answers [0, 0] with no grid, as the RDP path does from its own argument (total
    variation through KL), and a grid run just outside the shortcut (steps·q slightly above delta, the composition's
    true distance far below it) also finds 0."""
    from dpcert.gaussian.pld import dpsgd_eps

    short = dpsgd_eps("0.001", "1", 10, "0.01")
    assert (short.enclosure.lo, short.enclosure.hi, short.runs) == (0, 0, ())
    lo, hi = answer(("dpsgd", "eps", "q=0.001", "sigma=1", "steps=10", "delta=0.01", "--method", "rdp"))
    assert lo == hi == 0
    grid = dpsgd_eps("0.001", "1", 10, "0.0099")
    assert grid.runs and grid.enclosure.lo == 0 and grid.enclosure.hi <= Fraction(1, 100)


def test_pld_delta_at_a_tiny_rate_is_below_the_total_variation_bound():
    """q = 1e-60 and 1e-300 (the grid check at loss 0 used to round 1 − q to 1 and stop undecided): the certified δ
    lies below k·q, the total-variation bound of k subsampled steps, and above 0."""
    for q in ("1e-60", "1e-300"):
        lo, hi = answer(("eval", "dpsgd.delta", f"q={q}", "sigma=1", "steps=10", "eps=1", "--seconds", "3"))
        assert 0 <= lo <= hi <= 10 * Fraction(q)


def test_pld_a_delta_below_the_grid_floor_is_refused_naming_it():
    """A target δ below what the grid can certify (its dropped tails, per step a float, bound every certified δ from
    below: about 1e-320 since the float path) is refused in one line naming that floor and the method that
    certifies it, not as "a target that some eps <= 2^20 meets" (which is false: at q = 1/2, σ = 1, one step, the
    RDP route certifies an ε near 20 at δ = 1e-100, and the PLD one now answers there, below it)."""
    code, out, err = cli("dpsgd", "eps", "q=0.5", "sigma=1", "steps=1", "delta=1e-400", "--quiet")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "the least delta this grid certifies" in lines[0] and "--method rdp" in lines[0]
    floor = Fraction(lines[0].split("a target above ")[1].split(",")[0])
    assert Fraction(1, 10**400) < floor < Fraction(1, 10**300)
    _, rdp_hi = answer(("dpsgd", "eps", "q=0.5", "sigma=1", "steps=1", "delta=1e-100", "--method", "rdp"))
    lo, hi = answer(("dpsgd", "eps", "q=0.5", "sigma=1", "steps=1", "delta=1e-100", "--quiet"))
    assert 10 < lo <= hi <= rdp_hi < 300
