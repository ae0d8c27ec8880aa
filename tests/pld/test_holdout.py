"""A randomized hold-out audit of the fast certified paths (float survivals, float discretisation, FFT composition,
calibration, the accountant's first grid) against references that share no code with them.

Every case asks one thing: does the certified enclosure contain the truth (or, for a peer's float estimate, meet
the peer's own bracket)? The references:

* the Gaussian mechanism at q = 1, δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) with μ = Δ√k/σ (Δ = 1 add/remove,
  2 replace-one), in mpmath at 50 digits;
* one step of the Poisson-subsampled Gaussian in closed form (the loss is monotone in the output, so each
  direction's δ is a difference of normal tails at the threshold), in mpmath; two steps by mpmath quadrature of
  E_P[δ_1(ε − L(X))] over the first step, split at the second step's kink and every σ/2;
* k-fold randomized response by the exact trinomial sum; one Laplace step, δ(ε) = 1 − e^{(ε − Δ/b)/2};
* dp-accounting's optimistic and pessimistic PLDs at a 1e-4 grid (a float peer: evidence, compared with a relative
  slack of 1e-6 and only where its own tail truncation, about 1e-15, does not dominate);
* the arb path of the same engine at the same resolution (two valid enclosures of one number overlap);
* σ calibration: at q = 1 the closed form must put ε(σ_hi) <= target < ε(σ_lo); elsewhere an independent
  ``dpsgd_eps`` at each end must not contradict the bracket.

The quick tests run a handful of cases; ``-m slow`` runs the randomized hold-out (fixed seed, under two minutes).
A failure here is a certified enclosure that misses the truth (or an environment that changed a certified end).
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from fractions import Fraction as F

import mpmath as mp
import numpy as np
import pytest

from dpcert.gaussian.pld import dpsgd_delta, dpsgd_eps, dpsgd_sigma


def _m(x: F | float | int) -> mp.mpf:
    return mp.mpf(x.numerator) / x.denominator if isinstance(x, F) else mp.mpf(x)


# ----------------------------------------------------------------------------------------------- references


def gauss_delta(mu: mp.mpf, eps: mp.mpf) -> mp.mpf:
    """δ(ε) of N(μ, 1) against N(0, 1) (exact closed form)."""
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def _mu(sigma: F, steps: int, neighboring: str) -> mp.mpf:
    shift = 1 if neighboring == "add_remove" else 2
    return shift * mp.sqrt(steps) / _m(sigma)


def sgm_delta1(direction: str, q: mp.mpf, s: mp.mpf, e: mp.mpf) -> mp.mpf:
    """One step's δ(e) of the subsampled Gaussian's remove ((1−q)N(0)+qN(1) vs N(0)) or add (the reverse) pair, any
    real e (negative e included: the second step's threshold in a two-step quadrature)."""
    if direction == "remove":
        if q < 1 and e <= mp.log1p(-q):
            return 1 - mp.exp(e)
        xs = s * s * mp.log((mp.exp(e) - (1 - q)) / q) + mp.mpf(1) / 2
        return (1 - q) * mp.ncdf(-xs / s) + q * mp.ncdf(-(xs - 1) / s) - mp.exp(e) * mp.ncdf(-xs / s)
    if q < 1 and e >= -mp.log1p(-q):
        return mp.mpf(0)
    xs = s * s * mp.log((mp.exp(-e) - (1 - q)) / q) + mp.mpf(1) / 2
    return mp.ncdf(xs / s) - mp.exp(e) * ((1 - q) * mp.ncdf(xs / s) + q * mp.ncdf((xs - 1) / s))


def _loss(direction: str, q: mp.mpf, s: mp.mpf, x: mp.mpf) -> mp.mpf:
    v = mp.log((1 - q) + q * mp.exp((2 * x - 1) / (2 * s * s)))
    return v if direction == "remove" else -v


def _x_of(direction: str, q: mp.mpf, s: mp.mpf, lv: mp.mpf) -> mp.mpf | None:
    t = (mp.exp(lv) if direction == "remove" else mp.exp(-lv)) - (1 - q)
    return s * s * mp.log(t / q) + mp.mpf(1) / 2 if t > 0 else None


def sgm_delta2(direction: str, q: mp.mpf, s: mp.mpf, e: mp.mpf) -> mp.mpf:
    """Two steps: ∫ p(x) δ_1(e − L(x)) dx, split at every σ/2 and at the kink where δ_1's argument leaves the range."""
    dens = (lambda x: (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s)) if direction == "remove" else (
        lambda x: mp.npdf(x, 0, s))  # fmt: skip
    edge = mp.log1p(-q) if direction == "remove" else -mp.log1p(-q)
    kink = _x_of(direction, q, s, e - edge) if q < 1 else None
    top = 40 * s + 1 + (abs(kink) if kink is not None else 0) + s * s * abs(mp.log(q)) + abs(e) * s * s
    step = s / 2
    pts = [-top + i * step for i in range(int(2 * top / step) + 2)]
    if kink is not None and -top < kink < top:
        pts.append(kink)
    f = lambda x: dens(x) * sgm_delta1(direction, q, s, e - _loss(direction, q, s, x))  # noqa: E731
    return mp.quad(f, sorted(pts))


def sgm_truth(q: F, sigma: F, steps: int, eps: F) -> mp.mpf:
    """max over the remove and add directions (add/remove neighbours), one or two steps."""
    f = sgm_delta1 if steps == 1 else sgm_delta2
    return max(f(d, _m(q), _m(sigma), _m(eps)) for d in ("remove", "add"))


def rr_delta(p: F, buckets: int, k: int, eps: F) -> mp.mpf:
    """k-fold randomized response (replace-one pair), the exact trinomial sum of (P − e^ε Q)_+."""
    if buckets == 1:
        return mp.mpf(0)
    keep, other = _m(1 - p + p / buckets), _m(p / buckets)
    rest, ee = (buckets - 2) * other, mp.exp(_m(eps))
    tot = mp.mpf(0)
    for i in range(k + 1):
        for j in range(k + 1 - i):
            c = mp.binomial(k, i) * mp.binomial(k - i, j)
            v = keep**i * other**j * rest ** (k - i - j) - ee * other**i * keep**j * rest ** (k - i - j)
            if v > 0:
                tot += c * v
    return tot


def laplace_delta1(b: F, shift: int, eps: F) -> mp.mpf:
    """One step of Lap(shift, b) against Lap(0, b)."""
    return max(mp.mpf(0), 1 - mp.exp((_m(eps) - shift / _m(b)) / 2))


def _contains(lo: F, hi: F, truth: mp.mpf, rel: float = 1e-30) -> bool:
    slack = abs(truth) * rel
    return _m(lo) - slack <= truth <= _m(hi) + slack


# ----------------------------------------------------------------------------------------------- cases


def _gauss_q1_case(sigma: F, steps: int, eps: F, neighboring: str, sampling: str) -> tuple[bool, float]:
    with mp.workdps(50):
        truth = gauss_delta(_mu(sigma, steps, neighboring), _m(eps))
        enc = dpsgd_delta(1, sigma, steps, eps, sampling=sampling, neighboring=neighboring, rel_tol=1e-3,
                          seconds=3).enclosure  # fmt: skip
        gap = float((_m(enc.hi) - _m(enc.lo)) / truth) if truth > 1e-20 else 0.0
        return _contains(enc.lo, enc.hi, truth), gap


def _gauss_q1_eps_case(sigma: F, steps: int, delta: F, neighboring: str) -> bool:
    with mp.workdps(50):
        enc = dpsgd_eps(1, sigma, steps, delta, neighboring=neighboring, rel_tol=1e-3, seconds=3).enclosure
        mu, d = _mu(sigma, steps, neighboring), _m(delta)
        ok_hi = gauss_delta(mu, _m(enc.hi)) <= d
        ok_lo = enc.lo == 0 or gauss_delta(mu, _m(enc.lo)) >= d
        return ok_hi and ok_lo


def _sgm_case(q: F, sigma: F, steps: int, eps: F) -> tuple[bool, float]:
    with mp.workdps(30):
        truth = sgm_truth(q, sigma, steps, eps)
        enc = dpsgd_delta(q, sigma, steps, eps, rel_tol=1e-3, seconds=3).enclosure
        gap = float((_m(enc.hi) - _m(enc.lo)) / truth) if truth > 1e-20 else 0.0
        return _contains(enc.lo, enc.hi, truth, 1e-20), gap


def _rr_case(p: F, buckets: int, k: int, eps: F) -> bool:
    from dpcert import Accountant
    from dpcert.accounting import events as ev

    with mp.workdps(60):
        truth = rr_delta(p, buckets, k, eps)
        r = Accountant(neighboring="replace_one").compose(ev.RandomizedResponseDpEvent(p, buckets), k)
        enc = r.delta(eps, rel_tol=1e-3, seconds=3).enclosure
        return _contains(enc.lo, enc.hi, truth, 1e-40)


def _laplace_case(b: F, eps: F, neighboring: str) -> bool:
    from dpcert import Accountant
    from dpcert.accounting import events as ev

    with mp.workdps(50):
        shift = 1 if neighboring == "add_remove" else 2
        truth = laplace_delta1(b, shift, eps)
        acc = Accountant(neighboring=neighboring).compose(ev.LaplaceDpEvent(b), 1)
        enc = acc.delta(eps, rel_tol=1e-4, seconds=3).enclosure
        return _contains(enc.lo, enc.hi, truth)


def _peer(kind: str, params: tuple, k: int, eps: float, pessimistic: bool) -> float:
    from dp_accounting import NeighboringRelation as NR
    from dp_accounting.pld import privacy_loss_distribution as pldm

    kw = {"pessimistic_estimate": pessimistic, "value_discretization_interval": 1e-4}
    if kind == "sgm":
        q, s, rel = params
        p = pldm.from_gaussian_mechanism(float(s), sampling_prob=float(q), use_connect_dots=False,
                                         neighboring_relation=getattr(NR, rel), **kw)  # fmt: skip
    elif kind in ("lap", "plap"):
        q, b = params
        p = pldm.from_laplace_mechanism(float(b), sampling_prob=float(q), **kw)
    else:
        pp, nb = params
        p = pldm.from_randomized_response(float(pp), nb, **kw)
    return p.self_compose(k).get_delta_for_epsilon(eps)


def _ours(kind: str, params: tuple, k: int, eps: F) -> tuple[F, F]:
    from dpcert import Accountant
    from dpcert.accounting import events as ev

    if kind == "sgm":
        q, s, rel = params
        nb = "add_remove" if rel == "ADD_OR_REMOVE_ONE" else "replace_one"
        enc = dpsgd_delta(q, s, k, eps, neighboring=nb, rel_tol=1e-3, seconds=4).enclosure
        return enc.lo, enc.hi
    if kind == "lap":
        event = ev.LaplaceDpEvent(params[1])
    elif kind == "plap":
        event = ev.PoissonSampledDpEvent(params[0], ev.LaplaceDpEvent(params[1]))
    else:
        event = ev.RandomizedResponseDpEvent(*params)
    nb = "replace_one" if kind == "rr" else "add_remove"
    enc = Accountant(neighboring=nb).compose(event, k).delta(eps, rel_tol=1e-3, seconds=4).enclosure
    return enc.lo, enc.hi


def _peer_case(kind: str, params: tuple, k: int, eps: F) -> tuple[bool, float] | None:
    pytest.importorskip("dp_accounting")
    opt, pess = _peer(kind, params, k, float(eps), False), _peer(kind, params, k, float(eps), True)
    if pess < 1e-13:  # the peer's tail truncation (1e-15 per step and more) dominates: no evidence here
        return None
    lo, hi = _ours(kind, params, k, eps)
    ok = float(lo) <= pess * (1 + 1e-6) and float(hi) >= opt * (1 - 1e-6)
    return ok, max(0.0, float(lo) / pess - 1, 1 - float(hi) / opt if opt > 0 else 0.0)


def _arb_fft_case(loss_name: str, steps: int, n: int, eps: F, monkeypatch: pytest.MonkeyPatch) -> bool:
    from dpcert.accounting.losses import randomized_response
    from dpcert.gaussian.sampling import MirrorLoss
    from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
    from dpcert.laplace.loss import LaplaceLoss
    from dpcert.pld import compose_directions, delta_enclosure
    from dpcert.pld import floatdisc as fd

    monkeypatch.setattr(fd, "FLOAT_CELLS", 0)  # the float discretisation on these small grids too
    losses = {
        "sgm": [SubsampledGaussianLoss("remove", F(1, 50), F(9, 10)), SubsampledGaussianLoss("add", F(1, 50),
                                                                                              F(9, 10))],
        "mirror": [MirrorLoss(F(1, 10), F(3, 2))],
        "laplace": [LaplaceLoss(F(2), F(1))],
        "rr": [randomized_response(F(1, 3), 3)],
    }[loss_name]  # fmt: skip
    fast = delta_enclosure(compose_directions(losses, steps, n, 1e-20, method="fft", eps=eps), eps)
    slow = delta_enclosure(compose_directions(losses, steps, n, 1e-20, method="arb"), eps)
    return fast.lo <= slow.hi and slow.lo <= fast.hi


# ----------------------------------------------------------------------------------------------- quick tests


@pytest.mark.parametrize(
    ("sigma", "steps", "eps", "neighboring", "sampling"),
    [
        (F("0.3"), 1, F(0), "add_remove", "poisson"),
        (F("0.8"), 2, F("0.5"), "replace_one", "poisson"),
        (F(13), 10, F(0), "add_remove", "poisson"),
        (F(2), 1000, F(3), "replace_one", "fixed"),
        (F("0.5"), 3, F(30), "add_remove", "poisson"),
    ],
)
def test_gaussian_q1_against_the_closed_form(sigma, steps, eps, neighboring, sampling) -> None:
    ok, _ = _gauss_q1_case(sigma, steps, eps, neighboring, sampling)
    assert ok


@pytest.mark.parametrize(
    ("q", "sigma", "steps", "eps"),
    [
        (F("1e-6"), F("0.3"), 1, F("0.3")),
        (F("0.01"), F("0.3"), 1, F("0.3")),
        (F("0.001"), F("0.5"), 2, F(2)),  # a tail far out: the quadrature split at the kink
    ],
)
def test_subsampled_gaussian_one_and_two_steps_against_mpmath(q, sigma, steps, eps) -> None:
    ok, _ = _sgm_case(q, sigma, steps, eps)
    assert ok


def test_randomized_response_and_laplace_against_exact_sums() -> None:
    assert _rr_case(F(1, 3), 2, 30, F(1))
    assert _rr_case(F(9, 10), 3, 100, F(3))
    assert _laplace_case(F("0.3"), F(0), "replace_one")
    assert _laplace_case(F(2), F("0.5"), "replace_one")


@pytest.mark.parametrize("loss_name", ["sgm", "mirror", "laplace", "rr"])
def test_float_and_arb_paths_overlap(loss_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _arb_fft_case(loss_name, 20, 128, F(1, 2), monkeypatch)


_ENV_CASES = (
    "from fractions import Fraction as F\n"
    "from dpcert.gaussian.pld import dpsgd_delta, dpsgd_eps\n"
    "print(dpsgd_delta('0.01', '1', 300, '1', rel_tol=1e-3, seconds=5).enclosure)\n"
    "print(dpsgd_eps('0.1', '2', 50, '1e-5', neighboring='replace_one', rel_tol=1e-3, seconds=5).enclosure)\n"
    "print(dpsgd_delta('1', '0.7', 7, '2', rel_tol=1e-3, seconds=5).enclosure)\n"
)


def _env_run(extra: dict[str, str], prelude: str = "") -> str:
    env = dict(os.environ, **extra)
    out = subprocess.run([sys.executable, "-c", prelude + _ENV_CASES], env=env, capture_output=True, text=True,
                         timeout=120, check=True)  # fmt: skip
    return out.stdout


def test_certified_ends_do_not_depend_on_blas_core_or_errstate() -> None:
    """The certified ends are the same rationals under another OpenBLAS kernel and with numpy's floating-point
    errors raised or ignored everywhere (a path that relies on a warning, or on BLAS, would show here)."""
    base = _env_run({})
    assert _env_run({"OPENBLAS_CORETYPE": "Haswell"}) == base
    assert _env_run({}, "import numpy as np\nnp.seterr(all='ignore')\n") == base
    # a caller's np.seterr(all="raise") once turned an underflow in the float discretisation into an exception
    assert _env_run({}, "import numpy as np\nnp.seterr(all='raise')\n") == base


# ----------------------------------------------------------------------------------------------- slow hold-out


SIGMAS = ["0.3", "0.5", "0.8", "1", "2", "5", "13", "50"]


@pytest.mark.slow
def test_randomized_holdout() -> None:
    """The randomized hold-out (seed 20261127): every kind of case; all must contain the truth."""
    rng = random.Random(20261127)
    misses: list[str] = []
    counts: dict[str, int] = {}
    gaps: dict[str, float] = {}

    def record(kind: str, ok: bool, what: str, gap: float = 0.0) -> None:
        counts[kind] = counts.get(kind, 0) + 1
        gaps[kind] = max(gaps.get(kind, 0.0), gap)
        if not ok:
            misses.append(f"{kind}: {what}")

    for _ in range(24):
        s, k = F(rng.choice(SIGMAS)), rng.choice([1, 2, 3, 10, 100, 1000, 10**4, 10**5])
        e = F(rng.choice(["0", "0.1", "0.5", "1", "3", "10", "30", "50"]))
        nb, sa = rng.choice(["add_remove", "replace_one"]), rng.choice(["poisson", "fixed"])
        if sa == "fixed":
            nb = "replace_one"
        ok, gap = _gauss_q1_case(s, k, e, nb, sa)
        record("gauss_q1_delta", ok, f"sigma={s} steps={k} eps={e} {nb} {sa}", gap)
    for _ in range(10):
        s, k = F(rng.choice(SIGMAS)), rng.choice([1, 10, 1000, 10**5])
        d = F(rng.choice(["1e-300", "1e-100", "1e-30", "1e-10", "1e-5", "0.01", "0.5"]))
        nb = rng.choice(["add_remove", "replace_one"])
        record("gauss_q1_eps", _gauss_q1_eps_case(s, k, d, nb), f"sigma={s} steps={k} delta={d} {nb}")
    for _ in range(22):
        q = F(rng.choice(["1e-6", "1e-4", "1e-3", "0.01", "0.1", "0.5", "0.99", "1"]))
        s = F(rng.choice(["0.3", "0.5", "1", "2", "5"]))
        k = 1 if rng.random() < 0.7 else 2
        e = F(rng.choice(["0", "0.01", "0.3", "1", "2", "5"]))
        ok, gap = _sgm_case(q, s, k, e)
        record(f"sgm_{k}step", ok, f"q={q} sigma={s} eps={e}", gap)
    for _ in range(8):
        p, nbk = F(rng.choice(["1/100", "1/10", "1/3", "1/2", "9/10"])), rng.choice([2, 3, 10])
        k, e = rng.choice([1, 2, 5, 30, 100]), F(rng.choice(["0", "1/10", "1", "3"]))
        record("rr_exact", _rr_case(p, nbk, k, e), f"p={p} buckets={nbk} k={k} eps={e}")
    for _ in range(6):
        b, e = F(rng.choice(["0.3", "0.5", "1", "2", "10"])), F(rng.choice(["0", "0.05", "0.5", "1"]))
        nb = rng.choice(["add_remove", "replace_one"])
        record("laplace_1step", _laplace_case(b, e, nb), f"b={b} eps={e} {nb}")
    if _has_dp_accounting():
        for _ in range(18):
            kind = rng.choice(["sgm", "sgm", "sgm", "lap", "plap", "rr"])
            k, e = rng.choice([10, 100, 1000, 10**4]), F(rng.choice(["0", "0.5", "1", "2"]))
            if kind == "sgm":
                rel = rng.choice(["ADD_OR_REMOVE_ONE", "REPLACE_ONE"])
                params: tuple = (F(rng.choice(["0.001", "0.01", "0.1"])), F(rng.choice(["0.8", "1", "2"])), rel)
            elif kind == "lap":
                params = (F(1), F(rng.choice(["5", "10", "30"])))
            elif kind == "plap":
                params = (F(rng.choice(["0.01", "0.1"])), F(rng.choice(["1", "2"])))
            else:
                params, k = (F(rng.choice(["1/2", "9/10"])), rng.choice([2, 5])), min(k, 100)
            got = _peer_case(kind, params, k, e)
            if got is not None:
                record(f"peer_{kind}", got[0], f"{params} k={k} eps={e}", got[1])
    print("\nhold-out cases per kind:", counts)  # the report's numbers (pytest -s)
    print("largest relative width (gauss, sgm) or excess over the peer's bracket (peer_*):", gaps)
    assert not misses, misses


def _has_dp_accounting() -> bool:
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.slow
def test_calibration_brackets_hold_at_both_ends() -> None:
    """dpsgd_sigma's bracket at q = 1 against the closed form (ε(σ_hi) <= target < ε(σ_lo)), at q < 1 against
    independent ``dpsgd_eps`` enclosures at each end, and ``dpcert.opacus.get_noise_multiplier``'s σ."""
    from dpcert.opacus import get_noise_multiplier

    with mp.workdps(50):
        for s_steps, eps, delta in [(1, F(1), F("1e-5")), (100, F(3), F("1e-8")), (10**4, F(8), F("1e-5"))]:
            enc = dpsgd_sigma(1, s_steps, eps, delta, rel_tol=1e-3, seconds=20).enclosure
            d = _m(delta)
            assert gauss_delta(_mu(enc.hi, s_steps, "add_remove"), _m(eps)) <= d
            assert gauss_delta(_mu(enc.lo, s_steps, "add_remove"), _m(eps)) > d
        rng = random.Random(5)
        for _ in range(12):  # random settings at q = 1, both relations, both samplers, delta down to 1e-300
            k, eps = rng.choice([1, 3, 100, 10**4, 10**5]), F(rng.choice(["0.05", "0.5", "1", "3", "10", "50"]))
            delta = F(rng.choice(["1e-300", "1e-50", "1e-12", "1e-5", "0.01", "0.5"]))
            nb, sa = rng.choice(["add_remove", "replace_one"]), rng.choice(["poisson", "fixed"])
            nb = "replace_one" if sa == "fixed" else nb
            enc = dpsgd_sigma(1, k, eps, delta, sampling=sa, neighboring=nb, rel_tol=1e-3, seconds=5).enclosure
            assert gauss_delta(_mu(enc.hi, k, nb), _m(eps)) <= _m(delta), (k, eps, delta, nb, sa)
            assert enc.lo == 0 or gauss_delta(_mu(enc.lo, k, nb), _m(eps)) > _m(delta), (k, eps, delta, nb, sa)
    for q, k, eps, delta in [(F("0.01"), 1000, F(2), F("1e-5")), (F("0.2"), 50, F(3), F(1, 48000))]:
        enc = dpsgd_sigma(q, k, eps, delta, rel_tol=1e-3, seconds=20).enclosure
        at_hi = dpsgd_eps(q, enc.hi, k, delta, rel_tol=1e-4, seconds=10).enclosure
        at_lo = dpsgd_eps(q, enc.lo, k, delta, rel_tol=1e-4, seconds=10).enclosure
        assert at_hi.lo <= eps  # a proof of ε(σ_hi) > target would contradict the calibration
        assert at_lo.hi > eps  # and one of ε(σ_lo) <= target
        s = get_noise_multiplier(target_epsilon=float(eps), target_delta=float(delta), sample_rate=float(q),
                                 steps=k, rel_tol=1e-3, seconds=20)  # fmt: skip
        assert dpsgd_eps(q, F(s), k, delta, rel_tol=1e-4, seconds=10).enclosure.lo <= eps


if __name__ == "__main__":  # pragma: no cover
    np.seterr(all="warn")
    sys.exit(pytest.main([__file__, "-m", "slow or not slow", "-q"]))


def test_calibration_at_delta_1e_300_is_a_valid_bracket() -> None:
    """At δ = 1e-300 the float twin's value underflows near the target (it once divided by that 0 and raised
    ZeroDivisionError); the calibration must fall back to certified bisection and bracket the closed form's σ."""
    enc = dpsgd_sigma(1, 1, 1, "1e-300", rel_tol=1e-3, seconds=3).enclosure
    with mp.workdps(50):
        assert gauss_delta(_mu(enc.hi, 1, "add_remove"), mp.mpf(1)) <= mp.mpf("1e-300")
        assert enc.lo == 0 or gauss_delta(_mu(enc.lo, 1, "add_remove"), mp.mpf(1)) > mp.mpf("1e-300")


# ----------------------------------------------------------------------------------------------- survival bounds


def _sgm_survivals(direction: str, q: mp.mpf, s: mp.mpf, t: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """(Q(L >= t), P(L >= t)) of the remove or add pair, closed form."""
    if direction == "remove":
        if q < 1 and t <= mp.log1p(-q):
            return mp.mpf(1), mp.mpf(1)
        xs = _x_of("remove", q, s, t)
        return mp.ncdf(-xs / s), (1 - q) * mp.ncdf(-xs / s) + q * mp.ncdf(-(xs - 1) / s)
    xs = _x_of("add", q, s, t)
    if xs is None:
        return mp.mpf(0), mp.mpf(0)
    return (1 - q) * mp.ncdf(xs / s) + q * mp.ncdf((xs - 1) / s), mp.ncdf(xs / s)


def _mirror_survivals(q: mp.mpf, s: mp.mpf, t: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """(Q(L >= t), P(L >= t)) of the mirror pair (1−q)N(0)+qN(±1): the threshold by bisection (L is increasing)."""

    def lo(x: mp.mpf) -> mp.mpf:
        return mp.log(
            ((1 - q) + q * mp.exp((2 * x - 1) / (2 * s * s))) / ((1 - q) + q * mp.exp((-2 * x - 1) / (2 * s * s)))
        )

    a, b = mp.mpf(-1), mp.mpf(1)
    while lo(a) > t:
        a *= 2
    while lo(b) < t:
        b *= 2
    for _ in range(300):
        c = (a + b) / 2
        a, b = (c, b) if lo(c) < t else (a, c)
    xs = (a + b) / 2
    return (1 - q) * mp.ncdf(-xs / s) + q * mp.ncdf(-(xs + 1) / s), (1 - q) * mp.ncdf(-xs / s) + q * mp.ncdf(
        -(xs - 1) / s
    )


@pytest.mark.slow
def test_taylor_survival_bounds_contain_the_closed_forms() -> None:
    """The Taylor-block float bounds of the subsampled Gaussian's and the mirror pair's survivals, on random windows
    (inside and past the grid range, around loss 0 and log(1 − q)), against mpmath at 40 digits."""
    from dpcert.gaussian.sampling import MirrorLoss
    from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss

    rng = random.Random(7)
    misses = []
    with mp.workdps(40):
        for _ in range(150):
            kind = rng.choice(["remove", "add", "mirror"])
            q = F(rng.choice(["1e-6", "3e-5", "1e-3", "0.01", "0.1", "0.5", "0.99", "1"]))
            s = F(rng.choice(["0.3", "0.5", "0.8", "1", "2", "5", "20", "50"]))
            if kind == "mirror" and q == 1:
                q = F("0.999")
            n = rng.choice([3, 64, 1000, 4096, 12345, 2**16, 2**20, 2**22])
            loss = MirrorLoss(q, s) if kind == "mirror" else SubsampledGaussianLoss(kind, q, s)
            i_lo, i_hi = loss.grid_range(n, rng.choice([1e-30, 1e-12, 1e-300]))
            span = i_hi - i_lo
            edge = int(math.log1p(-float(q)) * n) if q < 1 else 0
            a = rng.choice([rng.randint(i_lo - span // 4, i_hi), -rng.randint(0, 40), edge - rng.randint(0, 20)])
            b = min(a + rng.choice([10, 300, 5000]), i_hi + span // 4)
            sq_lo, sq_hi, sp_lo, sp_hi = loss.survival_bounds(n, a, b)
            for j in sorted({0, b - a, *(rng.randint(0, b - a) for _ in range(10))}):
                t = mp.mpf(a + j) / n
                qm, sm = _m(q), _m(s)
                sq, sp = _mirror_survivals(qm, sm, t) if kind == "mirror" else _sgm_survivals(kind, qm, sm, t)
                if not (sq_lo[j] <= sq <= sq_hi[j] and sp_lo[j] <= sp <= sp_hi[j]):
                    misses.append((kind, q, s, n, a + j))
    assert not misses, misses[:5]


@pytest.mark.slow
def test_fast_survival_bounds_contain_the_ball_path() -> None:
    """The float survival bounds of randomized response, Laplace, Poisson-subsampled Laplace (both forms), discrete
    Laplace and the symmetrised pair against their 300-bit balls (the exact value's ball within [0, 1])."""
    from flint import arb

    from dpcert.accounting.losses import DiscreteLaplaceLoss, randomized_response
    from dpcert.accounting.subsample import PoissonLoss
    from dpcert.arith.ball import workprec
    from dpcert.gaussian.sampling import SymmetrisedLoss
    from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
    from dpcert.laplace.loss import LaplaceLoss

    rng = random.Random(11)
    misses = []
    for _ in range(300):
        kind = rng.choice(["rr", "lap", "plap_r", "plap_a", "dlap", "sym"])
        n = rng.choice([1, 3, 64, 100, 1024, 4096, 7919])
        if kind == "rr":
            p = F(rng.choice(["1/100", "1/10", "1/3", "1/2", "9/10", "1"]))
            loss = randomized_response(p, rng.choice([2, 3, 10, 1000]))
        elif kind == "lap":
            loss = LaplaceLoss(F(rng.choice(["0.01", "0.3", "1", "7", "100"])), F(rng.choice([1, 2])))
        elif kind.startswith("plap"):
            base, qq = (
                LaplaceLoss(F(rng.choice(["0.3", "1", "7"])), F(1)),
                F(rng.choice(["1e-6", "1e-3", "0.1", "0.9"])),
            )
            loss = (
                PoissonLoss(base, qq, "first", "remove") if kind == "plap_r" else PoissonLoss(base, qq, "second", "add")
            )
        elif kind == "dlap":
            loss = DiscreteLaplaceLoss(F(rng.choice(["1/10", "1/2", "2"])), rng.choice([1, 2, 3]))
        else:
            base = SubsampledGaussianLoss(
                "remove", F(rng.choice(["1e-4", "0.01", "0.3"])), F(rng.choice(["0.5", "1", "3"]))
            )
            loss = SymmetrisedLoss(base)
        i_lo, i_hi = loss.grid_range(n, rng.choice([1e-30, 1e-12]))
        span = max(1, i_hi - i_lo)
        a = rng.randint(i_lo - span // 4 - 2, i_hi)
        b = min(a + rng.choice([5, 100, 1000]), i_hi + span // 4 + 2)
        bounds = loss.survival_bounds(n, a, b)
        with workprec(300):
            sq, sp = loss.survivals(n, a, b)
        for j in range(b - a + 1):
            for lo, hi, ref in ((bounds[0][j], bounds[1][j], sq[j]), (bounds[2][j], bounds[3][j], sp[j])):
                if not (arb(lo) <= max(ref.lower(), arb(0)) and min(ref.upper(), arb(1)) <= arb(hi)):
                    misses.append((kind, n, a + j))
    assert not misses, misses[:5]


@pytest.mark.slow
def test_float_and_arb_paths_overlap_randomized() -> None:
    """δ(ε) and ε(δ) from the float path (float discretisation, tilted FFT) and the arb path at the same resolution,
    every mechanism on the engine, random steps, ε away from the tilt's: two valid enclosures of one number overlap."""
    from dpcert.accounting.losses import randomized_response
    from dpcert.accounting.subsample import PoissonLoss
    from dpcert.gaussian.sampling import MirrorLoss, SymmetrisedLoss
    from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
    from dpcert.laplace.loss import LaplaceLoss
    from dpcert.pld import compose_directions, delta_enclosure, eps_enclosure
    from dpcert.pld import floatdisc as fd

    rng = random.Random(2)
    misses = []
    saved, fd.FLOAT_CELLS = fd.FLOAT_CELLS, 0
    try:
        for _ in range(45):
            kind = rng.choice(["sgm", "mirror", "sym", "lap", "plap", "rr"])
            q, s = F(rng.choice(["1e-4", "0.01", "0.1", "0.5", "1"])), F(rng.choice(["0.5", "0.8", "1", "2", "5"]))
            qm = min(q, F(999, 1000))
            if kind == "sgm":
                losses = [SubsampledGaussianLoss(d, q, s) for d in ("remove", "add")]
            elif kind == "mirror":
                losses = [MirrorLoss(qm, s)]
            elif kind == "sym":
                losses = [SymmetrisedLoss(SubsampledGaussianLoss("remove", qm, s))]
            elif kind == "lap":
                losses = [LaplaceLoss(F(rng.choice(["0.5", "2", "10"])), F(1))]
            elif kind == "plap":
                b = LaplaceLoss(F(rng.choice(["0.5", "2"])), F(1))
                losses = [
                    PoissonLoss(b, min(q, F(9, 10)), "first", "remove"),
                    PoissonLoss(b, min(q, F(9, 10)), "second", "add"),
                ]
            else:
                losses = [randomized_response(F(rng.choice(["1/10", "1/2", "9/10"])), rng.choice([2, 5]))]
            k, n = rng.choice([1, 2, 7, 50, 300]), rng.choice([32, 64, 128, 256])
            e = F(rng.choice(["0", "0.2", "1", "3", "8", "20"]))
            fast = compose_directions(losses, k, n, 1e-25, method="fft", eps=e)
            slow = compose_directions(losses, k, n, 1e-25, method="arb")
            for ee in (e, e / 2, e + 1):
                x, y = delta_enclosure(fast, ee), delta_enclosure(slow, ee)
                if not (x.lo <= y.hi and y.lo <= x.hi):
                    misses.append((kind, q, s, k, n, ee))
            d = F(1, 10 ** rng.choice([3, 5, 10, 20]))
            x, y = eps_enclosure(fast, d, 1e-4), eps_enclosure(slow, d, 1e-4)
            if not (x.lo <= y.hi and y.lo <= x.hi):
                misses.append((kind, q, s, k, n, "delta", d))
    finally:
        fd.FLOAT_CELLS = saved
    assert not misses, misses


def test_a_cell_with_no_potential_at_either_end_is_covered() -> None:
    """The add direction of q = 1/2, σ = 50 at n = 2048: a grid cell whose two end points both get no lowering (cover
    0) once divided by that 0 in the arb discretisation's lowerings (ZeroDivisionError, reached through
    ``dpsgd_delta(0.5, 50, 10**5, 0.1)``); now its left end covers it, as the float path's choice does, and the lower
    measure is still below the upper one in the convex order's first test (equal total mass, smaller mean)."""
    from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
    from dpcert.pld import discretise

    st = discretise(SubsampledGaussianLoss("add", F(1, 2), F(50)), 2048, 1e-27)
    lo, up = st.lower.poly.coeffs(), st.upper.poly.coeffs()
    assert abs(float(sum(lo).mid()) - float(sum(up).mid())) < 1e-12


@pytest.mark.slow
def test_the_no_potential_cell_case_meets_the_arb_path() -> None:
    """The same setting end to end (q = 1/2, σ = 50, 10^5 steps): the float path's enclosure meets the arb path's."""
    from dpcert.gaussian.sgm_loss import directions
    from dpcert.pld import compose_directions, delta_enclosure

    got = dpsgd_delta("0.5", "50", 10**5, "0.1", rel_tol=1e-3, seconds=4).enclosure
    ref = delta_enclosure(compose_directions(directions(F(1, 2), F(50)), 10**5, 2048, 1e-27, method="arb"), F(1, 10))
    assert got.lo <= ref.hi and ref.lo <= got.hi


@pytest.mark.slow
def test_heterogeneous_ledgers_meet_dp_accountings_bracket() -> None:
    """Random ledgers of two or three kinds (Gaussian, Laplace, Poisson-subsampled Gaussian and Laplace; the
    accountant's first grid from the width model and the mixed FFT composition): δ(ε) and ε(1e-5) meet dp-accounting's
    [optimistic, pessimistic] bracket at a 1e-4 grid (δ only where the peer's truncation does not dominate)."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    from dpcert import Accountant
    from dpcert.accounting import events as ev

    rng = random.Random(3)
    misses = []
    for _ in range(8):
        parts = []
        for _ in range(rng.choice([2, 3])):
            kind, k = rng.choice(["g", "l", "pg", "pl"]), rng.choice([1, 3, 50, 500])
            x = {"g": ["2", "5", "20"], "l": ["5", "20", "50"], "pg": ["0.8", "1", "2"], "pl": ["1", "3"]}[kind]
            q = {"pg": ["0.001", "0.01", "0.05"], "pl": ["0.01", "0.05"]}.get(kind, ["1"])
            parts.append((kind, F(rng.choice(x)), F(rng.choice(q)), k))

        def theirs(pess: bool, parts: list = parts) -> object:
            kw = {"pessimistic_estimate": pess, "value_discretization_interval": 1e-4, "use_connect_dots": False}
            acc = None
            for kind, x, q, k in parts:
                make = pldm.from_gaussian_mechanism if kind in ("g", "pg") else pldm.from_laplace_mechanism
                p = make(float(x), sampling_prob=float(q), **kw).self_compose(k)
                acc = p if acc is None else acc.compose(p)
            return acc

        ours = Accountant()
        for kind, x, q, k in parts:
            inner = ev.GaussianDpEvent(x) if kind in ("g", "pg") else ev.LaplaceDpEvent(x)
            ours.compose(inner if kind in ("g", "l") else ev.PoissonSampledDpEvent(q, inner), k)
        opt, pess = theirs(False), theirs(True)
        eps = rng.choice([0.5, 1, 2])
        r = ours.delta(F(eps), rel_tol=1e-3, seconds=4)
        d_opt, d_pess = opt.get_delta_for_epsilon(eps), pess.get_delta_for_epsilon(eps)
        if d_pess > 1e-13 and not (float(r.lo) <= d_pess * (1 + 1e-6) and float(r.hi) >= d_opt * (1 - 1e-6)):
            misses.append((parts, "delta", eps))
        r = ours.epsilon(F("1e-5"), rel_tol=1e-3, seconds=4)
        e_opt, e_pess = opt.get_epsilon_for_delta(1e-5), pess.get_epsilon_for_delta(1e-5)
        if not (float(r.lo) <= e_pess + 1e-4 and float(r.hi) >= e_opt - 1e-4):
            misses.append((parts, "eps"))
    assert not misses, misses
