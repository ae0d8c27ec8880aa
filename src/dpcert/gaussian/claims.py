"""The public cases of Gaussian and DP-SGD accounting as claims (docs/derivations/gaussian.md#peer-cases), each decided
by dpcert.

* autodp#39: autodp's analytic-Gaussian calibration returns σ whose δ exceeds the target (its bisection stops on
  an absolute tolerance 1e-12 on δ): the peer's σ stated as a safe calibration, expected REFUTED; the certified
  calibration itself, reproducing independent mpmath values.
* dp_accounting's float inverse ε(δ) of the Gaussian mechanism lands a rounding error below the exact ε, so its
  δ is above the target (docs/derivations/gaussian.md#certified-inverses): expected REFUTED.
* tensorflow/privacy#166: ε = 0 at δ = 1e-3 for one step (q = 105/100000, σ = 1) is correct, because one step's
  exact δ(0) (the total variation distance, both directions) is 4.02e-4 <= 1e-3: expected CERTIFIED.
* prv_accountant#17: "eps_lower = 3.7" at δ = 1.13e-18 (q = 0.00033, σ = 4, 10^4 steps) cannot be a lower bound:
  the RDP route already proves ε <= 0.1457. The claim "RDP ε >= 3.7" is REFUTED, and the true ε is at most the
  RDP ε.
* TF Privacy's MNIST tutorial (batch 256 of 60,000, 60 epochs of ⌊60000/256⌋ = 234 steps as the tutorial counts
  them, δ = 1e-5): the README's printed ε = 2.92 at σ = 1.12 (Mironov's [Mir17] conversion) reproduces over integer
  orders, and the issue's setting σ = 1.1 has the certified RDP ε below (CKS conversion, every order <= 10^4).
  The tight ε of the same run (PLD, both neighbouring directions) is certified in [2.3791, 2.3797] (resolution
  8192; the claim's default resolution 4096 gives [2.37850, 2.38016]): the claims state ε <= 2.381 and
  ε >= 2.374 (slow: about 25 s).
* Opacus' GDP accountant at the MNIST setting (σ = 1.1, 14040 steps, δ = 1e-5) reports ε = 2.3222268073411425:
  below the certified tight ε [2.3791, 2.3797]; the certified δ at that ε is 1.48x the target (expected REFUTED,
  slow: about 20 s).
* Shuffled batches accounted as Poisson sampling: the MNIST setting with batch 240 (250 whole batches an epoch),
  σ = 1.1, 60 epochs, replace-one: the proved shuffle bracket of ε at δ = 1e-5 is [3.8303, 158.37]
  (:mod:`dpcert.gaussian.sampling`), so the Poisson ε 2.3796 reported for such a run is refuted (expected REFUTED).
* Fixed-size batches under replace-one: dp-accounting's RDP accountant reports ε = 5.2386 for the MNIST setting
  (SampledWithoutReplacementDpEvent, sensitivity 1 under replace-one, google/differential-privacy#378); the pair a
  fixed batch size realises certifies ε > 14 (expected REFUTED, slow).
* opacus#643: Opacus' GDP (CLT) accountant's ε = 1.83 for σ = 3, q = 0.2, 50 steps, δ = 1/48000 is not a bound:
  the certified δ(1.83) is in [5.208e-5, 5.261e-5], 2.5x the target (expected REFUTED), and the certified tight ε
  lies in (1.95, 2.00).
"""

from __future__ import annotations

from dpcert.core.claim import AtLeast, AtMost, QuantityClaim, Rounds, Verdict
from dpcert.gaussian.dpsgd_rdp import DPSGD_RDP_EPS
from dpcert.gaussian.mechanism import GAUSSIAN_DELTA, GAUSSIAN_SIGMA
from dpcert.gaussian.pld import DPSGD_DELTA, DPSGD_EPS
from dpcert.gaussian.sgm import SGM_DELTA

__all__ = ["CLAIMS"]

_AUTODP = (
    "yuxiangw/autodp#39 (autodp 0.2.3.1 calibrator_zoo.ana_gaussian_calibrator, from Balle–Wang's reference code); "
    "values reproduced independently with mpmath"
)
_OPACUS643 = (
    "meta-pytorch/opacus#643 (sigma = 3, sample rate 0.2, 50 steps, delta = 1/48000: GDP eps = 1.83, RDP 2.16); "
    "docs/derivations/gaussian.md#peer-cases"
)
_OPACUS_GDP = (
    "Opacus 1.6.0 GaussianAccountant with history [(1.1, 256/60000, 14040)] (the MNIST setting: batch 256 of "
    "60,000, 60 epochs of 234 steps): get_epsilon(delta=1e-5) = 2.3222268073411425"
)
_MNIST = (
    "tensorflow/privacy tutorials/mnist_dpsgd_tutorial.py (batch 256, 60000 examples, 60 epochs, "
    "steps_per_epoch = 60000 // 256 = 234, delta = 1e-5) and tutorials/README.md"
)


def _autodp(eps: str, delta: str, sigma: str, ratio: str, exact: str) -> QuantityClaim:
    tag = f"eps{eps}_delta{delta}".replace(".", "p")
    return QuantityClaim(
        id=f"gaussian.autodp39.{tag}",
        reference=_AUTODP,
        statement=f"autodp's calibrated sigma = {sigma} is (eps, delta) = ({eps}, {delta})-DP, i.e. the Gaussian "
        f"mechanism's delta({eps}) at that sigma is <= {delta}",
        quantity=GAUSSIAN_DELTA,
        inputs={"eps": eps, "sigma": sigma},
        comparison=AtMost.of(delta),
        expected=Verdict.REFUTED,
        erratum=f"delta at autodp's sigma is about {ratio}x the target: the bisection stops when |delta(s) - "
        f"delta| <= 1e-12, an absolute tolerance that ignores targets below 1e-12; the least safe sigma is "
        f"{exact} (gaussian.sigma)",
    )


def _sigma(eps: str, delta: str, printed: str) -> QuantityClaim:
    tag = f"eps{eps}_delta{delta}".replace(".", "p")
    return QuantityClaim(
        id=f"gaussian.sigma.{tag}",
        reference="Balle–Wang ICML 2018 Thm 8 (exact calibration); value reproduced independently (mpmath)",
        statement=f"the least sigma making the Gaussian mechanism ({eps}, {delta})-DP rounds to {printed}",
        quantity=GAUSSIAN_SIGMA,
        inputs={"eps": eps, "delta": delta},
        comparison=Rounds(printed),
    )


CLAIMS = [
    _autodp("1", "1e-15", "6.99963552107", "41.5", "7.48700946799"),
    _autodp("2", "1e-14", "3.5348264453", "8.06", "3.67201453487"),
    _sigma("1", "1e-15", "7.48700946799"),
    _sigma("2", "1e-14", "3.67201453487"),
    QuantityClaim(
        id="gaussian.dp_accounting.eps_sigma1_delta1e-5",
        reference="dp_accounting 0.6.0 gaussian_mechanism.get_epsilon_gaussian(1, 1e-5) = 4.37717809568114 "
        "(docs/derivations/gaussian.md#certified-inverses)",
        statement="dp_accounting's float eps = 4.37717809568114 for sigma = 1 is valid at delta = 1e-5",
        quantity=GAUSSIAN_DELTA,
        inputs={"eps": "4.37717809568114", "sigma": "1"},
        comparison=AtMost.of("1e-5"),
        expected=Verdict.REFUTED,
        erratum="the float root lies 8.5e-14 below the exact eps(1e-5) = 4.37717809568122462...; its delta is "
        "above 1e-5 by a rounding-level amount (a float inverse is not a safe upper end)",
    ),
    QuantityClaim(
        id="gaussian.tfp166.one_step_eps0_delta1e-3",
        reference="tensorflow/privacy#166 (q = 105/100000, noise 1, 1 step, delta = 1e-3: eps = 0 reported as a bug)",
        statement="one Poisson-subsampled Gaussian step with q = 105/100000, sigma = 1 is (0, 1e-3)-DP: its exact "
        "delta(0) (both directions) is <= 1e-3, so eps = 0 is correct",
        quantity=SGM_DELTA,
        inputs={"q": "105/100000", "sigma": "1", "eps": "0"},
        comparison=AtMost.of("1e-3"),
    ),
    QuantityClaim(
        id="gaussian.prv17.eps_lower_3p7",
        reference="microsoft/prv_accountant#17 (q = 0.00033, noise 4, 10^4 steps: eps_lower = 3.7 at delta = 1.13e-18)",
        statement="the RDP epsilon of that run at delta = 1.13e-18 is >= 3.7 (it would have to be, were 3.7 a "
        "lower bound on the true epsilon, which the RDP epsilon bounds from above)",
        quantity=DPSGD_RDP_EPS,
        inputs={"q": "0.00033", "sigma": "4", "steps": 10000, "delta": "1.13e-18"},
        comparison=AtLeast.of("3.7"),
        expected=Verdict.REFUTED,
        erratum="the certified RDP epsilon is 0.14565... (order 256), so the true epsilon is at most that and "
        "'eps_lower = 3.7' was false by more than 25x",
    ),
    QuantityClaim(
        id="gaussian.tfp_mnist.readme_eps_sigma1p12",
        reference=_MNIST + ": 'For delta=1e-5, the current epsilon is: 2.92' after 60 epochs at noise 1.12 "
        "(Mironov's conversion over orders 1.1..10.9 and 12..63)",
        statement="the tutorial's epsilon at noise 1.12, 14040 steps, delta = 1e-5 (Mironov's conversion) rounds "
        "to 2.92; here over every integer order <= 10^4",
        quantity=DPSGD_RDP_EPS,
        inputs={"q": "256/60000", "sigma": "1.12", "steps": 14040, "delta": "1e-5", "conversion": "mironov"},
        comparison=Rounds("2.92"),
    ),
    QuantityClaim(
        id="gaussian.tfp_mnist.rdp_eps_sigma1p1",
        reference=_MNIST + "; the issue's setting (noise multiplier 1.1)",
        statement="DP-SGD at q = 256/60000, sigma = 1.1, 14040 steps, delta = 1e-5 is (eps, 1e-5)-DP with the RDP "
        "eps (CKS conversion, minimum over every integer order <= 10^4, attained at order 8) rounding to 2.5948",
        quantity=DPSGD_RDP_EPS,
        inputs={"q": "256/60000", "sigma": "1.1", "steps": 14040, "delta": "1e-5"},
        comparison=Rounds("2.5948"),
    ),
    QuantityClaim(
        id="gaussian.tfp_mnist.rdp_eps_mironov_sigma1p1",
        reference=_MNIST + "; the issue's setting (noise multiplier 1.1) with the tutorial's Mironov conversion",
        statement="the same run's RDP eps with Mironov's conversion (over every integer order <= 10^4) rounds to "
        "3.01, a valid but looser bound than the CKS eps",
        quantity=DPSGD_RDP_EPS,
        inputs={"q": "256/60000", "sigma": "1.1", "steps": 14040, "delta": "1e-5", "conversion": "mironov"},
        comparison=Rounds("3.01"),
    ),
    QuantityClaim(
        id="gaussian.opacus643.gdp_eps_1p83",
        reference=_OPACUS643,
        statement="DP-SGD at q = 0.2, sigma = 3, 50 steps is (1.83, 1/48000)-DP, as Opacus' GDP accountant "
        "reports (the tight delta(1.83), both neighbouring directions, is <= 1/48000)",
        quantity=DPSGD_DELTA,
        inputs={"q": "0.2", "sigma": "3", "steps": 50, "eps": "1.83"},
        comparison=AtMost.of("1/48000"),
        expected=Verdict.REFUTED,
        erratum="the GDP accountant's CLT mu = q sqrt(k (e^{1/sigma^2} - 1)) is an approximation, not a bound: the "
        "certified delta(1.83) lies in [5.208e-5, 5.261e-5], 2.5x the target 2.083e-5; the RDP eps 2.16 is valid",
    ),
    QuantityClaim(
        id="gaussian.opacus643.tight_eps_above_1p95",
        reference=_OPACUS643,
        statement="the tight eps of that run at delta = 1/48000 is >= 1.95 (certified PLD enclosure [1.9590, 1.9629])",
        quantity=DPSGD_EPS,
        inputs={"q": "0.2", "sigma": "3", "steps": 50, "delta": "1/48000"},
        comparison=AtLeast.of("1.95"),
    ),
    QuantityClaim(
        id="gaussian.opacus643.tight_eps_below_2",
        reference=_OPACUS643,
        statement="the tight eps of that run at delta = 1/48000 is <= 2.00 (certified PLD enclosure [1.9590, 1.9629])",
        quantity=DPSGD_EPS,
        inputs={"q": "0.2", "sigma": "3", "steps": 50, "delta": "1/48000"},
        comparison=AtMost.of("2"),
    ),
    QuantityClaim(
        id="gaussian.opacus_gdp.mnist_eps_2p3222",
        reference=_OPACUS_GDP,
        statement="DP-SGD at q = 256/60000, sigma = 1.1, 14040 steps is (2.3222268073411425, 1e-5)-DP, as Opacus' "
        "GaussianAccountant reports (the tight delta at that eps, both neighbouring directions, is <= 1e-5)",
        quantity=DPSGD_DELTA,
        inputs={"q": "256/60000", "sigma": "1.1", "steps": 14040, "eps": "2.3222268073411425"},
        comparison=AtMost.of("1e-5"),
        expected=Verdict.REFUTED,
        erratum="the GDP accountant's central-limit mu = q sqrt(k (e^{1/sigma^2} - 1)) is an approximation, not a "
        "bound: at its eps the certified delta lies in [1.4367e-5, 1.4886e-5] (the claim's resolution 4096; "
        "[1.4798e-5, 1.4846e-5] at 8192), about 1.48x the target, and the tight eps is certified in [2.3791, "
        "2.3797], 2.4 % above it",
        slow=True,
    ),
    QuantityClaim(
        id="gaussian.mnist_shuffled.poisson_eps_2p3796",
        reference=_MNIST + "; the issue's Poisson add/remove eps 2.3796 (dp-accounting, Opacus) reported for a run "
        "trained with shuffled batches (batch 240 so that an epoch is 250 whole batches, 60 epochs)",
        statement="DP-SGD trained with shuffled disjoint batches (batch 240 of 60,000, 60 epochs, sigma = 1.1) is "
        "(2.3796, 1e-5)-DP under replace-one, as Poisson accounting says",
        quantity=DPSGD_EPS,
        inputs={
            "q": "240/60000",
            "sigma": "1.1",
            "steps": 15000,
            "delta": "1e-5",
            "sampling": "shuffle",
            "neighboring": "replace_one",
        },
        comparison=AtMost.of("2.3796"),
        expected=Verdict.REFUTED,
        erratum="the sum of each epoch's 250 noisy batch sums is a post-processing of the run that separates a "
        "record e from -e as N(e, 250 sigma^2) from N(-e, 250 sigma^2); over 60 epochs no valid eps is below "
        "3.8303 (the shuffle bracket is [3.8303, 158.37]): Poisson accounting does not bound a shuffled run",
    ),
    QuantityClaim(
        id="gaussian.mnist_fixed.dp_accounting_rdp_eps_5p2386",
        reference="dp_accounting 0.6.0 RdpAccountant(REPLACE_ONE) of SampledWithoutReplacementDpEvent(60000, 256, "
        "GaussianDpEvent(1.1)) composed 14040 times: eps = 5.238575563637398 at delta = 1e-5 (google/"
        "differential-privacy#378)",
        statement="DP-SGD with fixed-size batches of 256 drawn without replacement from 60,000 records, sigma = 1.1, "
        "14040 steps, is (5.2386, 1e-5)-DP under replace-one, as dp-accounting's RDP accountant reports",
        quantity=DPSGD_EPS,
        inputs={
            "q": "256/60000",
            "sigma": "1.1",
            "steps": 14040,
            "delta": "1e-5",
            "sampling": "fixed",
            "neighboring": "replace_one",
        },
        comparison=AtMost.of("5.2386"),
        expected=Verdict.REFUTED,
        erratum="dp-accounting's RDP accountant takes the replace-one sensitivity as 1 where its DpEvent's noise "
        "multiplier is relative to the norm bound (replacing a record moves the sum by 2); with every other "
        "gradient -e and the record e against -e each step is ((1 - q)N(0) + qN(2), N(0)) at noise 1.1, whose "
        "composition alone certifies eps > 14 (the proved upper end is about 18.4)",
        slow=True,
    ),
    QuantityClaim(
        id="gaussian.tfp_mnist.pld_eps_sigma1p1_at_most",
        reference=_MNIST + "; the issue's setting (noise multiplier 1.1), tight accounting",
        statement="DP-SGD at q = 256/60000, sigma = 1.1, 14040 steps is (2.381, 1e-5)-DP: the tight eps (PLD, "
        "both neighbouring directions) is certified in [2.3791, 2.3797] (resolution 8192), below the RDP eps 2.5948",
        quantity=DPSGD_EPS,
        inputs={"q": "256/60000", "sigma": "1.1", "steps": 14040, "delta": "1e-5"},
        comparison=AtMost.of("2.381"),
        slow=True,
    ),
    QuantityClaim(
        id="gaussian.tfp_mnist.pld_eps_sigma1p1_at_least",
        reference=_MNIST + "; the issue's setting (noise multiplier 1.1), tight accounting",
        statement="no accountant can report eps below 2.374 for that run at delta = 1e-5: the tight eps is "
        "certified in [2.3791, 2.3797] (resolution 8192)",
        quantity=DPSGD_EPS,
        inputs={"q": "256/60000", "sigma": "1.1", "steps": 14040, "delta": "1e-5"},
        comparison=AtLeast.of("2.374"),
        slow=True,
    ),
]
