"""``dpcert.opacus``: the certified accountant with Opacus' interface and the certified noise calibration.

Independent sources: the Gaussian mechanism's closed form (Balle–Wang, in mpmath) for a heterogeneous history at
q = 1, where the composition is exactly one Gaussian with μ² = Σ k_i/σ_i²; dp-accounting's optimistic and
pessimistic PLDs for a heterogeneous subsampled history; an independent ``dpsgd_eps`` call for the calibrated σ.
The Opacus tests run where Opacus (and PyTorch) is installed (``pip install "dpcert[opacus]"``) and are skipped
elsewhere.
"""

from __future__ import annotations

import doctest
import math
import warnings
from fractions import Fraction

import mpmath as mp
import pytest

import dpcert.opacus as dpo
from dpcert.arith.rounding import fraction_to_float
from dpcert.errors import InvalidParameter
from dpcert.gaussian.pld import dpsgd_eps
from dpcert.opacus import CertifiedAccountant, get_noise_multiplier, history_eps


def test_module_examples():
    failures, tried = doctest.testmod(dpo, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


def test_importing_it_imports_neither_opacus_nor_torch():
    import subprocess
    import sys

    code = "import sys, dpcert.opacus; print('torch' in sys.modules, 'opacus' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_history_is_kept_as_opacus_keeps_it():
    acc = CertifiedAccountant()
    for sigma, q in [(1.0, 0.01)] * 3 + [(0.8, 0.01)] * 2 + [(1.0, 0.01)]:
        acc.step(noise_multiplier=sigma, sample_rate=q)
    assert acc.history == [(1.0, 0.01, 3), (0.8, 0.01, 2), (1.0, 0.01, 1)]
    assert len(acc) == 3 and acc.mechanism() == "dpcert"
    state = acc.state_dict()
    other = CertifiedAccountant()
    other.load_state_dict(state)
    assert other.history == acc.history
    with pytest.raises(InvalidParameter, match="state_dict"):
        other.load_state_dict({"history": [], "mechanism": "rdp"})


def test_an_empty_history_is_epsilon_zero():
    assert CertifiedAccountant().get_epsilon(1e-5) == 0.0


def test_homogeneous_run_is_dpsgd_eps_safe_end():
    acc = CertifiedAccountant()
    for _ in range(100):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
    ref = dpsgd_eps(0.01, 1.1, 100, "1e-5", rel_tol=0.01).enclosure
    eps = acc.get_epsilon(1e-5)
    assert eps == fraction_to_float(ref.hi, "up")
    assert Fraction(eps) >= ref.hi and acc.epsilon(1e-5) == ref


def _gaussian_eps_mp(mu2: Fraction, delta: str) -> mp.mpf:
    """ε(δ) of a μ-GDP Gaussian (Balle–Wang Thm 8) by bisection in mpmath at 40 digits (δ(ε) is decreasing)."""
    with mp.workdps(40):
        mu, target = mp.sqrt(mp.mpf(mu2.numerator) / mu2.denominator), mp.mpf(delta)

        def dlt(e):
            return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)

        lo, hi = mp.mpf(0), mp.mpf(40)
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if dlt(mid) > target else (lo, mid)
        return lo


def test_heterogeneous_at_q1_is_the_exact_gaussian_composition():
    # q = 1: each step is the Gaussian mechanism N(1, σ²) against N(0, σ²), so 3 steps at σ = 2 and 5 at σ = 3
    # are exactly one Gaussian with μ² = 3/4 + 5/9
    enc = history_eps([(2, 1, 3), (3, 1, 5)], "1e-5", rel_tol=1e-3).enclosure
    truth = _gaussian_eps_mp(Fraction(3, 4) + Fraction(5, 9), "1e-5")
    assert enc.lo <= Fraction(str(truth)) <= enc.hi
    assert enc.rel_width() <= 1e-3


def test_segments_with_equal_values_are_one_power_wherever_they_are():
    split = history_eps([(1, "0.05", 20), (2, "0.05", 10), (1, "0.05", 30)], "1e-5").enclosure
    merged = history_eps([(1, "0.05", 50), (2, "0.05", 10)], "1e-5").enclosure
    assert split == merged


def _dp_accounting_bracket(history, delta):
    """dp-accounting's optimistic and pessimistic ε of the history (a bracket of the truth at its grid)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    out = []
    for pessimistic in (False, True):
        total = None
        for sigma, q, k in history:
            step = pld.from_gaussian_mechanism(
                sigma, sampling_prob=q, pessimistic_estimate=pessimistic, value_discretization_interval=1e-4
            ).self_compose(k)
            total = step if total is None else total.compose(step)
        out.append(total.get_epsilon_for_delta(delta))
    return out


def test_heterogeneous_history_lies_in_dp_accountings_bracket():
    pytest.importorskip("dp_accounting")
    history = [(1.0, 0.02, 60), (0.8, 0.02, 40), (1.2, 0.01, 50)]
    acc = CertifiedAccountant(rel_tol=0.003)
    acc.history = list(history)
    enc = acc.epsilon(1e-5)
    optimistic, pessimistic = _dp_accounting_bracket(history, 1e-5)
    assert optimistic <= pessimistic
    # both hold the truth, so they overlap; and the certified upper end is no looser than the pessimistic PLD
    # plus the width asked for
    assert enc.lo <= Fraction(pessimistic) and Fraction(optimistic) <= enc.hi
    assert float(enc.hi) <= pessimistic * (1 + 0.003)
    # the order of the segments does not matter (composition is a product)
    acc.history = list(reversed(history))
    assert acc.epsilon(1e-5) == enc


def test_get_noise_multiplier_is_proved_by_an_independent_eps_call():
    target, delta, q, steps = Fraction(1), Fraction(1, 10**5), Fraction(1, 100), 100
    sigma = get_noise_multiplier(target_epsilon="1", target_delta="1e-5", sample_rate="0.01", steps=steps)
    assert dpsgd_eps(q, sigma, steps, delta, rel_tol=1e-3).enclosure.hi <= target
    # and it is not far above the least one: 3 % less noise is proved to spend more than the target
    assert dpsgd_eps(q, Fraction(sigma) * Fraction(97, 100), steps, delta, rel_tol=1e-3).enclosure.lo > target


def test_epochs_count_steps_exactly():
    assert dpo._steps_of(Fraction(1, 235), 60, None) == 14100
    # the double nearest 1/235 is slightly above it: 60 epochs are a hair under 14100 steps, counted up
    assert dpo._steps_of(Fraction(1 / 235), 60, None) == math.ceil(60 / Fraction(1 / 235))
    with pytest.raises(InvalidParameter, match="exactly one of epochs and steps"):
        get_noise_multiplier(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, epochs=1, steps=100)


@pytest.mark.parametrize(
    "segment, match",
    [((0.0, 0.01, 10), "noise_multiplier"), ((1.0, 1.5, 10), "sample_rate"), ((1.0, 0.01, 0), "num_steps")],
)
def test_a_bad_segment_is_refused_naming_it(segment, match):
    acc = CertifiedAccountant()
    acc.history = [(1.0, 0.01, 5), segment]
    with pytest.raises(InvalidParameter, match=r"history\[1\].*" + match):
        acc.get_epsilon(1e-5)


def test_other_sampling_or_unknown_arguments_are_refused():
    acc = CertifiedAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    with pytest.raises(InvalidParameter, match="poisson"):
        acc.get_epsilon(1e-5, poisson=False)
    with pytest.raises(InvalidParameter, match="optimal"):
        acc.get_epsilon(1e-5, optimal=True)
    assert acc.get_epsilon(1e-5, eps_error=0.5) == acc.get_epsilon(delta=1e-5)


# ------------------------------------------------------------------------------------- with Opacus itself


@pytest.fixture(scope="module")
def opacus():
    mod = pytest.importorskip("opacus")
    dpo.register()
    return mod


def test_it_is_an_opacus_accountant(opacus):
    from opacus.accountants import IAccountant, create_accountant

    acc = create_accountant("dpcert")
    assert isinstance(acc, CertifiedAccountant) and isinstance(acc, IAccountant)
    assert dpo.register() is CertifiedAccountant  # a second call is harmless


def test_a_tiny_training_loop_with_privacy_engine(opacus):
    import torch
    from opacus import PrivacyEngine

    torch.manual_seed(0)
    x, y = torch.randn(64, 4), torch.randint(0, 2, (64,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    model = torch.nn.Linear(4, 2)
    engine = PrivacyEngine(accountant="dpcert")
    assert isinstance(engine.accountant, CertifiedAccountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, optim, loader = engine.make_private(
            module=model,
            optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
            data_loader=loader,
            noise_multiplier=1.0,
            max_grad_norm=1.0,
        )
        for _ in range(2):
            for xb, yb in loader:
                optim.zero_grad()
                torch.nn.functional.cross_entropy(model(xb), yb).backward()
                optim.step()
    assert engine.accountant.history == [(1.0, 0.25, 8)]  # sample rate 1/len(loader), 2 epochs of 4 batches
    eps = engine.get_epsilon(1e-5)
    assert eps == fraction_to_float(dpsgd_eps(0.25, 1.0, 8, "1e-5").enclosure.hi, "up")


def test_opacus_own_calibration_runs_on_it(opacus):
    from opacus.accountants.utils import get_noise_multiplier as opacus_gnm

    sigma = opacus_gnm(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.05, steps=20, accountant="dpcert")
    assert dpsgd_eps(0.05, sigma, 20, "1e-5").enclosure.hi <= 2
