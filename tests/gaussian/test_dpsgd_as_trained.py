"""DP-SGD as trained: epochs/batch_size/n, samplers, neighbouring relations and schedules, against independent
computations (closed forms in mpmath, brute force, dp-accounting's PLD accountant)."""

import json
from fractions import Fraction

import mpmath
import pytest

from dpcert.cli import main
from dpcert.errors import InvalidParameter
from dpcert.gaussian.pld import dpsgd_delta, dpsgd_eps
from dpcert.gaussian.sampling import steps_of
from dpcert.gaussian.schedule import dpsgd_schedule_eps


def _gauss_eps(mu: mpmath.mpf, delta: str) -> mpmath.mpf:
    """The Gaussian pair's eps at delta, by mpmath's root finder on Balle–Wang's closed form (independent of the
    ball search in dpcert.gaussian.mechanism)."""
    mpmath.mp.dps = 40
    d = mpmath.mpf(delta)

    def f(e):
        return mpmath.ncdf(mu / 2 - e / mu) - mpmath.e**e * mpmath.ncdf(-mu / 2 - e / mu) - d

    return mpmath.findroot(f, (mpmath.mpf(0), 50 * mu + 50), solver="bisect", tol=mpmath.mpf(10) ** -30)


# ------------------------------------------------------------------------------------------- epochs= batch_size= n=


def test_steps_of_is_epochs_n_over_batch_size():
    assert steps_of(64, 256, 60000) == (Fraction(256, 60000), 15000)
    assert steps_of(1, 10, 10) == (Fraction(1), 1)


def test_a_fractional_step_count_is_refused_naming_nearest_whole_inputs():
    with pytest.raises(InvalidParameter) as err:
        steps_of(60, 256, 60000)
    msg = str(err.value)
    assert "14062.5" in msg and "epochs=56 or 64" in msg and "batch_size=250 or 288" in msg
    # brute force: the named neighbours are the nearest whole ones
    assert [e for e in range(50, 70) if e * 60000 % 256 == 0] == [56, 64]
    assert min(b for b in range(257, 400) if 3_600_000 % b == 0) == 288
    assert max(b for b in range(1, 256) if 3_600_000 % b == 0) == 250


def test_mixed_or_partial_inputs_are_refused_in_one_line():
    with pytest.raises(InvalidParameter, match="not both"):
        dpsgd_eps(q="0.1", sigma="1", delta="1e-5", epochs=1, batch_size=1, n=10)
    with pytest.raises(InvalidParameter, match="missing n"):
        dpsgd_eps(sigma="1", delta="1e-5", epochs=1, batch_size=1)
    assert main(["dpsgd", "eps", "sigma=1", "delta=1e-5", "epochs=60", "batch_size=256", "n=60000"]) == 2


def test_the_trained_form_is_the_rate_form():
    a = dpsgd_eps(sigma="1", delta="1e-3", epochs=1, batch_size=2, n=100, seconds=30).enclosure
    b = dpsgd_eps("0.02", "1", 50, "1e-3", seconds=30).enclosure
    assert a == b


# ------------------------------------------------------------------------------------------------- relations


def test_fixed_and_shuffle_refuse_add_remove():
    for sampling in ("fixed", "shuffle"):
        with pytest.raises(InvalidParameter, match="changes n"):
            dpsgd_eps("0.1", "1", 10, "1e-5", sampling=sampling)


def test_fixed_replace_one_at_full_batch_is_the_gaussian_at_sensitivity_2():
    # q = 1: the proved pair is (N(2), N(0)) itself (symmetric), so k steps are the Gaussian at mu = 2 sqrt(k)/sigma
    enc = dpsgd_eps("1", "4", 4, "1e-5", sampling="fixed", neighboring="replace_one", seconds=30).enclosure
    exact = _gauss_eps(mpmath.mpf(2) * 2 / 4, "1e-5")
    assert enc.lo <= Fraction(str(exact)) <= enc.hi and enc.rel_width() < 0.01


def _dpa_eps(sigma, q, k, delta, pessimistic, relation="ADD_OR_REMOVE_ONE"):
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld

    p = pld.from_gaussian_mechanism(
        sigma,
        sampling_prob=q,
        pessimistic_estimate=pessimistic,
        use_connect_dots=False,
        value_discretization_interval=1e-4,
        neighboring_relation=getattr(dpa.NeighboringRelation, relation),
    ).self_compose(k)
    return Fraction(p.get_epsilon_for_delta(delta))


def _dpa_delta(sigma, q, k, eps, pessimistic, relation="ADD_OR_REMOVE_ONE"):
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pld

    p = pld.from_gaussian_mechanism(
        sigma,
        sampling_prob=q,
        pessimistic_estimate=pessimistic,
        use_connect_dots=False,
        value_discretization_interval=1e-4,
        neighboring_relation=getattr(dpa.NeighboringRelation, relation),
    ).self_compose(k)
    return Fraction(p.get_delta_for_epsilon(eps))


def test_poisson_replace_one_is_dp_accountings_mirror_pair_certified():
    """Poisson replace-one is the mirror pair (tight): the certified delta(eps) and eps(delta) lie inside
    dp-accounting's [optimistic, pessimistic] bracket of that pair (privacy buckets, a 1e-4 grid); and the
    fixed-size upper end (a looser proved pair) is above it."""
    q, sigma, k = 0.05, 2.0, 50
    d = dpsgd_delta("0.05", "2", k, "1.3729", neighboring="replace_one", seconds=30, rel_tol=1e-5).enclosure
    assert _dpa_delta(sigma, q, k, 1.3729, False, "REPLACE_ONE") <= d.lo
    assert d.hi <= _dpa_delta(sigma, q, k, 1.3729, True, "REPLACE_ONE")
    enc = dpsgd_eps("0.05", "2", k, "1e-5", neighboring="replace_one", seconds=30, rel_tol=1e-4).enclosure
    pess, opt = _dpa_eps(sigma, q, k, 1e-5, True, "REPLACE_ONE"), _dpa_eps(sigma, q, k, 1e-5, False, "REPLACE_ONE")
    assert opt <= enc.lo and enc.hi <= pess  # dp-accounting's privacy-bucket estimates [1.37041, 1.37541]
    fixed = dpsgd_eps("0.05", "2", k, "1e-5", sampling="fixed", neighboring="replace_one", seconds=30).enclosure
    assert enc.hi < fixed.hi


def test_the_mirror_pair_one_step_delta_is_the_mpmath_value():
    """One step of the mirror pair against an independent quadrature of E_Q[(P/Q - e^eps)_+] (mpmath)."""
    from dpcert.gaussian.sampling import MirrorLoss
    from dpcert.pld.accountant import compose_directions, delta_enclosure

    mpmath.mp.dps = 30
    q, e = mpmath.mpf("0.2"), mpmath.mpf("0.5")

    def p(x):
        return (1 - q) * mpmath.npdf(x) + q * mpmath.npdf(x - 1)

    def qq(x):
        return (1 - q) * mpmath.npdf(x) + q * mpmath.npdf(x + 1)

    x0 = mpmath.findroot(lambda x: p(x) - mpmath.e**e * qq(x), 1)  # P/Q is increasing: one crossing
    exact = mpmath.quad(lambda x: p(x) - mpmath.e**e * qq(x), [x0, x0 + 5, mpmath.inf])
    enc = delta_enclosure(compose_directions([MirrorLoss(Fraction(1, 5), Fraction(1))], 1, 1024, 1e-25), Fraction(1, 2))
    assert enc.lo <= Fraction(str(exact)) <= enc.hi and enc.rel_width() < 1e-4


def test_fixed_replace_one_lower_end_is_the_realised_shift_2_pair():
    q, sigma, k, delta = 0.05, 2.0, 50, 1e-5
    enc = dpsgd_eps("0.05", "2", k, "1e-5", sampling="fixed", neighboring="replace_one", seconds=30).enclosure
    # dp-accounting's remove pair at sigma/2 (shift 2 at sigma): its estimates bracket the lower end's pair
    assert enc.lo <= _dpa_eps(sigma / 2, q, k, delta, True)
    assert _dpa_eps(sigma / 2, q, k, delta, False) <= enc.hi


def test_the_symmetrised_pair_has_the_remove_pairs_delta_above_eps_0():
    """Lemma 3: for eps >= 0 the symmetrised pair's delta is the base pair's; one step against the closed form
    P(L > eps) - e^eps Q(L > eps) of the shift-2 remove pair, in mpmath."""
    from dpcert.gaussian.sampling import SymmetrisedLoss
    from dpcert.gaussian.sgm_loss import SubsampledGaussianLoss
    from dpcert.pld.accountant import compose_directions, delta_enclosure

    mpmath.mp.dps = 30
    q, s, e = mpmath.mpf("0.2"), mpmath.mpf("0.5"), mpmath.mpf("0.5")
    x = s**2 * mpmath.log((mpmath.e**e - (1 - q)) / q) + mpmath.mpf(1) / 2
    exact = (1 - q) * mpmath.ncdf(-x / s) + q * mpmath.ncdf(-(x - 1) / s) - mpmath.e**e * mpmath.ncdf(-x / s)
    loss = SymmetrisedLoss(SubsampledGaussianLoss("remove", Fraction(1, 5), Fraction(1, 2)))
    enc = delta_enclosure(compose_directions([loss], 1, 1024, 1e-25), Fraction(1, 2))
    assert enc.lo <= Fraction(str(exact)) <= enc.hi and enc.rel_width() < 1e-3
    # below eps = 0 its curve is the mirrored one (Lemma 3): H_a = 1 - a + a H_{1/a}
    lo = delta_enclosure(compose_directions([loss], 1, 1024, 1e-25), Fraction(-1, 2))
    a = mpmath.e ** mpmath.mpf("-0.5")
    assert lo.lo <= Fraction(str(1 - a + a * exact)) <= lo.hi


def test_shuffle_bracket_ends_are_the_two_gaussian_closed_forms():
    # 60000 records, batch 240: T = 250 batches an epoch, E = 60 epochs, sigma = 1.1, replace-one (shift 2)
    enc = dpsgd_eps(
        sigma="1.1", delta="1e-5", epochs=60, batch_size=240, n=60000, sampling="shuffle", neighboring="replace_one"
    ).enclosure
    lo = _gauss_eps(2 * mpmath.sqrt(mpmath.mpf(60) / 250) / mpmath.mpf("1.1"), "1e-5")
    hi = _gauss_eps(2 * mpmath.sqrt(60) / mpmath.mpf("1.1"), "1e-5")
    lo, hi = Fraction(str(lo)), Fraction(str(hi))
    # each end certified on its safe side (the lower end below the realised pair's eps, the upper above the
    # no-amplification eps), within the bracket's 1e-9 relative search tolerance of mpmath's root
    assert lo - lo / 10**8 <= enc.lo and enc.hi <= hi + hi / 10**8
    assert abs(enc.lo - lo) <= lo / 10**8 and abs(enc.hi - hi) <= hi / 10**8
    assert enc.lo > Fraction("2.3796")  # the Poisson eps of the MNIST run cannot be a shuffled run's
    d = dpsgd_delta(
        sigma="1.1", eps="5", epochs=60, batch_size=240, n=60000, sampling="shuffle", neighboring="replace_one"
    ).enclosure
    assert 0 < d.lo < d.hi < 1


def test_shuffle_needs_whole_batches_an_epoch():
    with pytest.raises(InvalidParameter, match="whole number of batches"):
        dpsgd_eps(
            sigma="1", delta="1e-5", epochs=64, batch_size=256, n=60000, sampling="shuffle", neighboring="replace_one"
        )


# -------------------------------------------------------------------------------------------------- schedules


def _dpa_schedule(stages, delta, pessimistic):
    dpa = pytest.importorskip("dp_accounting")
    acc = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    if not pessimistic:  # the optimistic estimate, composed by hand
        from dp_accounting.pld import privacy_loss_distribution as pld

        out = None
        for q, s, k in stages:
            p = pld.from_gaussian_mechanism(
                s,
                sampling_prob=q,
                pessimistic_estimate=False,
                use_connect_dots=False,
                value_discretization_interval=1e-4,
            ).self_compose(k)
            out = p if out is None else out.compose(p)
        return out.get_epsilon_for_delta(delta)
    for q, s, k in stages:
        acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k)
    return acc.get_epsilon(delta)


def test_a_schedule_lies_within_dp_accountings_bracket():
    stages = [(0.02, 1.1, 100), (0.02, 0.9, 100)]
    enc = dpsgd_schedule_eps([("0.02", "1.1", 100), ("0.02", "0.9", 100)], "1e-5", seconds=30).enclosure
    pess, opt = _dpa_schedule(stages, 1e-5, True), _dpa_schedule(stages, 1e-5, False)
    assert enc.lo <= Fraction(pess) and Fraction(opt) <= enc.hi
    # and a schedule of one sigma is the plain run
    one = dpsgd_schedule_eps([("0.02", "1.1", 100), ("0.02", "1.1", 100)], "1e-5", seconds=30).enclosure
    plain = dpsgd_eps("0.02", "1.1", 200, "1e-5", seconds=30).enclosure
    assert one.lo <= plain.hi and plain.lo <= one.hi


@pytest.mark.slow
def test_the_mnist_replace_one_contains_dp_accountings_4p2175():
    enc = dpsgd_eps("256/60000", "1.1", 14040, "1e-5", neighboring="replace_one", seconds=60).enclosure
    assert enc.lo <= Fraction("4.2175") <= enc.hi


@pytest.mark.slow
def test_the_mnist_schedule_contains_dp_accountings_2p9754():
    # the check: the MNIST run whose second half uses sigma = 0.9; dp-accounting 0.6.0 gives 2.9754
    enc = dpsgd_schedule_eps([("256/60000", "1.1", 7020), ("256/60000", "0.9", 7020)], "1e-5", seconds=40).enclosure
    assert enc.lo <= Fraction("2.9754") <= enc.hi


# ------------------------------------------------------------------------------------------------------ CLI


def test_cli_json_states_the_relation_and_the_run_as_trained(capsys):
    args = [
        "dpsgd",
        "eps",
        "sigma=1.1",
        "delta=1e-5",
        "epochs=60",
        "batch_size=240",
        "n=60000",
        "sampling=shuffle",
        "neighboring=replace_one",
        "--json",
        "--quiet",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sampling"] == "shuffle" and out["neighboring"] == "replace_one"
    assert out["as_trained"] == {"epochs": 60, "batch_size": 240, "n": 60000}
    assert out["inputs"]["steps"] == 15000 and out["inputs"]["q"]["exact"] == "1/250"
    assert {"enclosure", "neighbours", "reached", "limited_by", "resolution", "reference"} <= set(out)
    assert main(["dpsgd", "delta", "q=0.01", "sigma=1", "steps=10", "eps=0.1", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["quantity"] == "dpsgd.delta" and out["neighboring"] == "add_remove" and out["sampling"] == "poisson"


def test_cli_sigma_by_rdp_brackets_dp_accountings_rdp_calibration(capsys):
    """σ_hi is safe and σ_lo is not, by dp-accounting's RDP accountant (an independent float evaluation)."""
    dpa = pytest.importorskip("dp_accounting")
    args = ["dpsgd", "sigma", "--method", "rdp", "q=0.01", "steps=1000", "eps=2", "delta=1e-5", "--rel-tol", "1e-3"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lo, hi = float(Fraction(out["enclosure"]["lo"])), float(Fraction(out["enclosure"]["hi"]))
    assert out["method"] == "rdp" and out["neighboring"] == "add_remove" and 0 < lo < hi < lo * 1.002

    def rdp_eps(s):
        acc = dpa.rdp.RdpAccountant(list(range(2, 257)))
        acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(s)), 1000)
        return acc.get_epsilon(1e-5)

    assert rdp_eps(hi) <= 2 + 1e-9 and rdp_eps(lo) > 2


def test_calibration_under_replace_one_is_safe_at_its_upper_end():
    from dpcert.gaussian.pld import dpsgd_sigma

    r = dpsgd_sigma("0.05", 50, "2", "1e-5", neighboring="replace_one", seconds=30, rel_tol=0.02)
    lo, hi = r.enclosure.lo, r.enclosure.hi
    assert 0 < lo < hi and r.reached
    assert dpsgd_eps("0.05", hi, 50, "1e-5", neighboring="replace_one", seconds=20).enclosure.hi <= 2
    # at lo the mirror pair's delta(2) is proved above 1e-5, so dp-accounting's pessimistic estimate must be too
    assert _dpa_delta(float(lo), 0.05, 50, 2.0, True, "REPLACE_ONE") > Fraction(1, 10**5)
    with pytest.raises(InvalidParameter, match="bracket"):
        dpsgd_sigma("1/250", 15000, "2", "1e-5", sampling="shuffle", neighboring="replace_one")


def test_cli_rdp_takes_the_trained_form_and_refuses_other_relations(capsys):
    args = ["dpsgd", "eps", "--method", "rdp", "sigma=1.1", "delta=1e-5", "--json"]
    assert main([*args, "epochs=64", "batch_size=256", "n=60000"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main([*args, "q=256/60000", "steps=15000"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["enclosure"] == b["enclosure"] and a["inputs"]["steps"] == 15000
    assert main([*args, "q=0.01", "steps=10", "sampling=fixed", "neighboring=replace_one"]) == 2
