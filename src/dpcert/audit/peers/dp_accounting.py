"""dp-accounting (Google): PLD and RDP accountants, the Gaussian mechanism's closed forms, advanced composition.

The k-fold composition of ε-DP mechanisms is asked four ways (``count=k``, a ``SelfComposedDpEvent``, a
``ComposedDpEvent`` of k events, k separate ``compose`` calls) because the randomized-response branch of 0.6.0's
``PLDAccountant._maybe_compose`` never applies ``count``: the first two return the one-fold answer. DP-SGD's tight
ε and δ are asked in :mod:`~dpcert.audit.peers.dp_accounting_dpsgd`, the ``REPLACE_ONE`` sensitivity question in
:mod:`~dpcert.audit.peers.dp_accounting_replace_one`, its accountants on a ledger of its own events
(``accounting.eps``/``accounting.delta``) in :mod:`~dpcert.audit.peers.dp_accounting_events`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dpcert.audit.peers import dp_accounting_dpsgd, dp_accounting_events, dp_accounting_replace_one
from dpcert.audit.peers._common import MAX_RDP_ORDER, TOO_MANY_ORDERS, doubles, rational_bounds
from dpcert.audit.peers.adapter import BRENTQ_RTOL, Call, Peer, not_run

__all__ = ["PEER"]

#: Above these k the k-event list and the k-call loop are not run (their cost grows with k), nor a PLD
#: self-composition of a pair or a Gaussian PLD (k = 10^5 took 3 s for the pair; a Gaussian of σ/√k grows its grid).
MAX_K_LIST = 10_000
MAX_K_LOOP = 1_000
MAX_K_PLD = 100_000


def _rr_truth(case: Any, d: dict[str, Any], p: float) -> tuple[dict[str, Any], ...]:
    # RandomizedResponseDpEvent(p, 2) is RR with ε* = log((2 - p)/p) for the double p: an irrational number, so
    # dpcert encloses the case at rational ε just below and just above ε*. The optimal δ(ε_g) and ε_g(δ) of the
    # k-fold composition are nondecreasing in ε (an ε-DP mechanism is ε'-DP for ε' > ε), so the hull of the two
    # enclosures holds the true value.
    pf = Fraction(p)
    lo, hi = rational_bounds(lambda x: ((2 - x) / x).log(), pf)
    return ({**d, "eps": lo}, {**d, "eps": hi})


def calls(case: Any) -> list[Call]:
    import dp_accounting as dpa
    from dp_accounting import gaussian_mechanism
    from dp_accounting.pld import accountant, common
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    q, d = case.quantity, doubles(case)
    out: list[Call] = []
    if q in ("composition.kov.eps", "composition.kov.delta"):
        k, eps = d["k"], d["eps"]
        p = 2 / (1 + math.exp(eps))
        rr = dpa.RandomizedResponseDpEvent(noise_parameter=p, num_buckets=2)
        truth = _rr_truth(case, d, p)
        rel = dpa.NeighboringRelation.REPLACE_ONE
        if q == "composition.kov.eps":
            get, what = (lambda a: a.get_epsilon(d["delta"])), "get_epsilon(delta)"
        else:
            get, what = (lambda a: a.get_delta(d["eps_g"])), "get_delta(eps_g)"
        out.append(
            Call(
                f"PLDAccountant.compose(RR, count=k).{what}",
                "upper",
                lambda: get(PLDAccountant(rel).compose(rr, count=k)),
                truth,
            )
        )
        out.append(
            Call(
                f"PLDAccountant.compose(SelfComposedDpEvent(RR, k)).{what}",
                "upper",
                lambda: get(PLDAccountant(rel).compose(dpa.SelfComposedDpEvent(rr, k))),
                truth,
            )
        )
        listed = f"PLDAccountant.compose(ComposedDpEvent([RR]*k)).{what}"
        if k <= MAX_K_LIST:
            out.append(
                Call(listed, "upper", lambda: get(PLDAccountant(rel).compose(dpa.ComposedDpEvent([rr] * k))), truth)
            )
        else:
            out.append(not_run(listed, "upper", f"not run: k > {MAX_K_LIST} events"))
        if k > MAX_K_LOOP:
            out.append(not_run(f"PLDAccountant: k x compose(RR); {what}", "upper", f"not run: k > {MAX_K_LOOP} calls"))
        else:

            def loop() -> float:
                acc = PLDAccountant(rel)
                for _ in range(k):
                    acc.compose(rr)
                return get(acc)

            out.append(Call(f"PLDAccountant: k x compose(RR); {what}", "upper", loop, truth))
        if q == "composition.kov.delta":
            # the pair given by float log-probabilities: its privacy loss is exactly lq - l1 (a rational), and
            # its masses sum to 1 within ~1e-16, which moves δ by a relative ~k·1e-16 (far below this PLD's grid)
            lq, l1 = -math.log1p(math.exp(-eps)), -math.log1p(math.exp(eps))

            def from_pmfs() -> float:
                pair = pld.from_two_probability_mass_functions(
                    {0: lq, 1: l1}, {0: l1, 1: lq}, pessimistic_estimate=True
                )
                return pair.self_compose(k).get_delta_for_epsilon(d["eps_g"])

            pmfs = "from_two_probability_mass_functions(RR).self_compose(k).get_delta_for_epsilon"
            if k > MAX_K_PLD:
                out.append(not_run(pmfs, "upper", f"not run: k > {MAX_K_PLD}"))
            else:
                out.append(Call(pmfs, "upper", from_pmfs, ({**d, "eps": Fraction(lq) - Fraction(l1)},)))
        else:
            out.append(
                Call(
                    "advanced_composition(DifferentialPrivacyParameters(eps, 0), k, delta)",
                    "upper",
                    lambda: accountant.advanced_composition(
                        common.DifferentialPrivacyParameters(eps, 0.0), k, d["delta"]
                    ),
                )
            )
    elif q in ("gaussian.delta", "gaussian.eps") and d["sensitivity"] == 1:
        k, sigma = d["k"], d["sigma"]
        g = dpa.GaussianDpEvent(sigma)
        if q == "gaussian.delta":
            get, what = (lambda a: a.get_delta(d["eps"])), "get_delta(eps)"
        else:
            get, what = (lambda a: a.get_epsilon(d["delta"])), "get_epsilon(delta)"
        if k > MAX_K_PLD:
            too_many = f"not run: k > {MAX_K_PLD}"
            out.append(not_run(f"PLDAccountant.compose(Gaussian, count=k).{what}", "upper", too_many))
        else:
            out.append(
                Call(
                    f"PLDAccountant.compose(Gaussian, count=k).{what}",
                    "upper",
                    lambda: get(PLDAccountant().compose(g, count=k)),
                )
            )
        if 1 < k <= MAX_K_PLD:
            out.append(
                Call(
                    f"PLDAccountant.compose(SelfComposedDpEvent(Gaussian, k)).{what}",
                    "upper",
                    lambda: get(PLDAccountant().compose(dpa.SelfComposedDpEvent(g, k))),
                )
            )

            def loop() -> float:
                acc = PLDAccountant()
                for _ in range(k):
                    acc.compose(g)
                return get(acc)

            if k <= MAX_K_LOOP:
                out.append(Call(f"PLDAccountant: k x compose(Gaussian); {what}", "upper", loop))
        out.append(
            Call(
                f"RdpAccountant().compose(Gaussian, count=k).{what}",
                "upper",
                lambda: get(RdpAccountant().compose(g, count=k)),
            )
        )
        if q == "gaussian.eps" and k == 1:
            out.append(
                Call(
                    "gaussian_mechanism.get_epsilon_gaussian(sigma, delta)",
                    "value",
                    lambda: gaussian_mechanism.get_epsilon_gaussian(sigma, d["delta"]),
                    abs_tol=1e-12,  # its default tol, brentq's xtol
                    rel_tol=BRENTQ_RTOL,
                )
            )
    elif q == "gaussian.sigma" and d["sensitivity"] == 1 and d["k"] == 1:
        eps, delta = d["eps"], d["delta"]
        out.append(
            Call(
                "gaussian_mechanism.get_sigma_gaussian(eps, delta)",
                "value",
                lambda: gaussian_mechanism.get_sigma_gaussian(eps, delta),
                abs_tol=1e-12,  # its default tol, brentq's xtol
                rel_tol=BRENTQ_RTOL,
            )
        )
        out.append(
            Call(
                "accountant.get_smallest_gaussian_noise(DifferentialPrivacyParameters(eps, delta))",
                "upper",
                lambda: accountant.get_smallest_gaussian_noise(common.DifferentialPrivacyParameters(eps, delta), 1),
            )
        )
    elif q == "sgm.rdp":
        event = dpa.PoissonSampledDpEvent(d["q"], dpa.GaussianDpEvent(d["sigma"]))
        out.append(
            Call(
                "RdpAccountant(orders=[alpha]).compose(PoissonSampled(Gaussian)).rdp",
                "upper",
                lambda: float(RdpAccountant(orders=[d["alpha"]]).compose(event).rdp[0]),
            )
        )
    elif q == "sgm.delta":
        event = dpa.PoissonSampledDpEvent(d["q"], dpa.GaussianDpEvent(d["sigma"]))
        out.append(
            Call(
                "PLDAccountant().compose(PoissonSampled(Gaussian)).get_delta(eps)",
                "upper",
                lambda: PLDAccountant().compose(event).get_delta(d["eps"]),
            )
        )
    elif q == "dpsgd.rdp.eps" and d["conversion"] == "cks" and d["max_order"] > MAX_RDP_ORDER:
        out.append(not_run("RdpAccountant(orders=2..max_order)", "upper", TOO_MANY_ORDERS))
    elif q == "dpsgd.rdp.eps" and d["conversion"] == "cks":
        event = dpa.PoissonSampledDpEvent(d["q"], dpa.GaussianDpEvent(d["sigma"]))
        orders = list(range(2, d["max_order"] + 1))
        out.append(
            Call(
                "RdpAccountant(orders=2..max_order).compose(PoissonSampled(Gaussian), steps).get_epsilon",
                "upper",
                lambda: RdpAccountant(orders=orders).compose(event, d["steps"]).get_epsilon(d["delta"]),
            )
        )
    return (
        out + dp_accounting_dpsgd.calls(case) + dp_accounting_replace_one.calls(case) + dp_accounting_events.calls(case)
    )


PEER = Peer("dp-accounting", "dp-accounting", "dp_accounting", calls, "pip install 'dpcert[peers]'")
