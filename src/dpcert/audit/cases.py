"""The audit's cases: a quantity and its exact inputs, as a golden vector holds them.

A case says *what* is computed (a registered dpcert quantity, inputs as decimal strings meaning exact rationals),
never *how* a peer computes it: each peer adapter (:mod:`dpcert.audit.peers`) maps a case onto the calls of its
own API that compute the same quantity, or onto none. So the list below could be replaced by vectors read from
``verify/vectors/`` (``Case(vector["quantity"], vector["inputs"])``) without touching an adapter.

The cases cover the regression patterns of the peers (PEERS.md): agreement at ordinary inputs, k-fold composition
(which the adapters express several ways: ``count=k``, a self-composed event, k separate events, a loop), series
along which the value is monotone (ε in δ, ε in the number of steps, σ in δ), and extreme but valid inputs
(δ < 1e-15, k = 10^5, kε > 709). The ledger cases (:data:`ACCOUNTING_CASES`) hold one event of each dp-accounting
kind, and a heterogeneous composition, as event-file JSON text for ``accounting.eps``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Case", "Series", "CASES", "LEDGERS", "ACCOUNTING_CASES", "cases_from_vectors"]


@dataclass(frozen=True)
class Series:
    """Cases along which the quantity is monotone: ``param`` varies, the value moves with ``sign`` (+1 increasing,
    -1 decreasing, non-strictly) when the other inputs are held."""

    name: str
    param: str
    sign: int


@dataclass(frozen=True)
class Case:
    """One point: a registered quantity and its exact inputs (decimal strings are exact rationals).

    Attributes:
        quantity: a registered quantity's name (``dpcert quantities``).
        inputs: its inputs, as a golden vector records them (``{"k": "10", "eps": "0.1", ...}``).
        pattern: why the case is here: ``agreement``, ``k-fold``, ``monotone`` or ``extreme`` (a vector's id for
            cases read from golden vectors).
        series: the monotone series the case belongs to, if any.
    """

    quantity: str
    inputs: Mapping[str, str] = field(default_factory=dict)
    pattern: str = "agreement"
    series: Series | None = None

    def label(self) -> str:
        """``k=10 eps=0.1 delta=1e-6``: the inputs as given."""
        return " ".join(f"{k}={v}" for k, v in self.inputs.items())


_KOV_EPS_IN_DELTA = Series("kov.eps decreasing in delta", "delta", -1)
_KOV_EPS_IN_K = Series("kov.eps increasing in k", "k", +1)
_GAUSS_EPS_IN_DELTA = Series("gaussian.eps decreasing in delta", "delta", -1)
_GAUSS_SIGMA_IN_DELTA = Series("gaussian.sigma decreasing in delta", "delta", -1)
_DPSGD_IN_STEPS = Series("dpsgd.rdp.eps increasing in steps", "steps", +1)
_SGM_RDP_IN_ALPHA = Series("sgm.rdp increasing in alpha", "alpha", +1)


def _c(quantity: str, pattern: str = "agreement", series: Series | None = None, **inputs: str) -> Case:
    return Case(quantity, dict(inputs), pattern, series)


#: The audit's own case list (until golden vectors replace it).
CASES: tuple[Case, ...] = (
    # ---- optimal composition of eps-DP mechanisms (randomized response is the dominating pair)
    _c("composition.kov.eps", "k-fold", _KOV_EPS_IN_K, k="10", eps="0.1", delta="1e-6"),
    _c("composition.kov.eps", "k-fold", _KOV_EPS_IN_K, k="100", eps="0.1", delta="1e-6"),
    _c("composition.kov.eps", "k-fold", _KOV_EPS_IN_K, k="1000", eps="0.1", delta="1e-6"),
    _c("composition.kov.eps", "k-fold", k="10", eps="1", delta="1e-6"),
    _c("composition.kov.delta", "k-fold", k="10", eps="0.1", eps_g="0.99937"),
    _c("composition.kov.delta", "k-fold", k="100", eps="0.1", eps_g="2"),
    _c("composition.kov.delta", "k-fold", k="50", eps="1", eps_g="45"),
    _c("composition.kov.delta", "k-fold", k="50", eps="1", eps_g="47.6494"),
    _c("composition.kov.eps", "monotone", _KOV_EPS_IN_DELTA, k="100", eps="0.1", delta="1e-3"),
    _c("composition.kov.eps", "monotone", _KOV_EPS_IN_DELTA, k="100", eps="0.1", delta="1e-9"),
    _c("composition.kov.eps", "monotone", _KOV_EPS_IN_DELTA, k="100", eps="0.1", delta="1e-12"),
    _c("composition.kov.eps", "extreme", k="1000", eps="1", delta="1e-18"),  # k·eps > 709 and delta < 1e-15
    _c("composition.kov.eps", "extreme", k="100", eps="0.1", delta="1e-20"),
    _c("composition.kov.eps", "extreme", k="1017", eps="0.01", delta="1e-6"),  # k·ln(1 + e^eps) > 709.78
    _c("composition.kov.eps", "extreme", k="100000", eps="0.01", delta="1e-6"),
    _c("composition.kov.delta", "extreme", k="1000", eps="1", eps_g="800"),
    _c("composition.simple.eps", "k-fold", k="10", eps="0.1"),
    _c("composition.simple.eps", "extreme", k="1000", eps="1"),
    # ---- the Gaussian mechanism (exact privacy profile)
    _c("gaussian.delta", "agreement", eps="1", sigma="1", sensitivity="1", k="1"),
    _c("gaussian.delta", "k-fold", eps="1", sigma="2", sensitivity="1", k="10"),
    _c("gaussian.eps", "monotone", _GAUSS_EPS_IN_DELTA, delta="1e-3", sigma="1", sensitivity="1", k="1"),
    _c("gaussian.eps", "monotone", _GAUSS_EPS_IN_DELTA, delta="1e-5", sigma="1", sensitivity="1", k="1"),
    _c("gaussian.eps", "monotone", _GAUSS_EPS_IN_DELTA, delta="1e-10", sigma="1", sensitivity="1", k="1"),
    _c("gaussian.eps", "extreme", _GAUSS_EPS_IN_DELTA, delta="1e-20", sigma="1", sensitivity="1", k="1"),
    _c("gaussian.eps", "k-fold", delta="1e-5", sigma="5", sensitivity="1", k="20"),
    _c("gaussian.sigma", "monotone", _GAUSS_SIGMA_IN_DELTA, eps="1", delta="1e-5", sensitivity="1", k="1"),
    _c("gaussian.sigma", "monotone", _GAUSS_SIGMA_IN_DELTA, eps="1", delta="1e-10", sensitivity="1", k="1"),
    _c("gaussian.sigma", "monotone", _GAUSS_SIGMA_IN_DELTA, eps="1", delta="1e-12", sensitivity="1", k="1"),
    _c("gaussian.sigma", "extreme", _GAUSS_SIGMA_IN_DELTA, eps="1", delta="1e-15", sensitivity="1", k="1"),
    _c("gaussian.sigma", "extreme", eps="2", delta="1e-14", sensitivity="1", k="1"),
    _c("gaussian.sigma", "extreme", eps="50", delta="1e-6", sensitivity="1", k="1"),
    # ---- one Poisson-subsampled Gaussian step, and DP-SGD by RDP over the integer orders 2..256
    _c("sgm.rdp", "monotone", _SGM_RDP_IN_ALPHA, q="0.01", sigma="1", alpha="2"),
    _c("sgm.rdp", "monotone", _SGM_RDP_IN_ALPHA, q="0.01", sigma="1", alpha="2.5"),
    _c("sgm.rdp", "monotone", _SGM_RDP_IN_ALPHA, q="0.01", sigma="1", alpha="8"),
    _c("sgm.rdp", "monotone", _SGM_RDP_IN_ALPHA, q="0.01", sigma="1", alpha="32"),
    _c("sgm.rdp", "agreement", q="0.2", sigma="3", alpha="10.5"),
    _c("sgm.delta", "agreement", q="0.01", sigma="1", eps="0.5"),
    _c("sgm.delta", "agreement", q="0.2", sigma="1", eps="1"),
    *(
        _c(
            "dpsgd.rdp.eps",
            "monotone",
            _DPSGD_IN_STEPS,
            q="0.01",
            sigma="1",
            steps=s,
            delta="1e-5",
            conversion="cks",
            max_order="256",
        )
        for s in ("100", "1000", "10000")
    ),
    _c(
        "dpsgd.rdp.eps",
        "agreement",
        q="0.2",
        sigma="3",
        steps="50",
        delta="2.0833333333333333e-5",
        conversion="cks",
        max_order="256",
    ),
    # ---- DP-SGD, tight (PLD, both directions): TF Privacy's and Opacus' MNIST setting (batch 256 of 60,000,
    # sigma = 1.1, 60 epochs of 234 steps, delta = 1e-5), Poisson sampling, add/remove and replace-one neighbours
    # (the adapters read the relation; a peer without replace-one answers nothing for that row).
    _c("dpsgd.eps", "agreement", q="256/60000", sigma="1.1", steps="14040", delta="1e-5"),
    _c("dpsgd.eps", "agreement", q="256/60000", sigma="1.1", steps="14040", delta="1e-5", neighboring="replace_one"),
    _c("dpsgd.sigma", "agreement", q="0.01", steps="100", eps="1", delta="1e-5"),
    # ---- one GaussianDpEvent(2.0) and one LaplaceDpEvent(2.0), add/remove (sensitivity 1) and replace-one
    # (sensitivity 2: a replaced record moves a sum by twice the norm bound), where dp-accounting's two
    # accountants disagree under REPLACE_ONE
    _c("gaussian.eps", "agreement", delta="1e-5", sigma="2", sensitivity="1", k="1"),
    _c("gaussian.eps", "agreement", delta="1e-5", sigma="2", sensitivity="2", k="1"),
    _c("laplace.eps", "agreement", delta="1e-5", scale="2", sensitivity="2", k="1"),
)


def _json(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _g(sigma: str) -> dict[str, Any]:
    return {"type": "GaussianDpEvent", "noise_multiplier": sigma}


def _lap(b: str) -> dict[str, Any]:
    return {"type": "LaplaceDpEvent", "noise_multiplier": b}


def _self(event: dict[str, Any], count: int) -> dict[str, Any]:
    return {"type": "SelfComposedDpEvent", "event": event, "count": count}


#: One ledger per dp-accounting event kind, as event-file JSON text (canonical: dp-accounting's field order, numbers
#: as exact strings, every one a double so that dp-accounting receives it exactly), and the relations to ask it
#: under: those where one of dp-accounting's accountants takes it (``dpcert.audit.peers.dp_accounting_events``).
#: Small on purpose: each is certified to 1 % in well under a second, and dp-accounting's PLD answers in seconds.
LEDGERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "Gaussian": (_json(_g("2")), ("add_remove", "replace_one")),
    "Laplace": (_json(_lap("2")), ("add_remove", "replace_one")),
    "DiscreteLaplace": (
        _json({"type": "DiscreteLaplaceDpEvent", "noise_parameter": "0.5", "sensitivity": 1}),
        ("add_remove",),
    ),
    "RandomizedResponse": (
        _json({"type": "RandomizedResponseDpEvent", "noise_parameter": "0.5", "num_buckets": 4}),
        ("replace_one",),
    ),
    "MixtureOfGaussians": (
        _json(
            {
                "type": "MixtureOfGaussiansDpEvent",
                "standard_deviation": "4",
                "sensitivities": ["1", "0.5"],
                "sampling_probs": ["0.5", "0.5"],
            }
        ),
        ("add_remove",),
    ),
    "ZCDp": (_json({"type": "ZCDpEvent", "rho": "0.125", "xi": "0"}), ("add_remove", "replace_one")),
    "PoissonSampled(Gaussian)": (
        _json({"type": "PoissonSampledDpEvent", "sampling_probability": "0.125", "event": _g("1")}),
        ("add_remove", "replace_one"),
    ),
    "PoissonSampled(Laplace)": (
        _json({"type": "PoissonSampledDpEvent", "sampling_probability": "0.125", "event": _lap("1")}),
        ("add_remove",),
    ),
    "SampledWithoutReplacement": (
        _json(
            {
                "type": "SampledWithoutReplacementDpEvent",
                "source_dataset_size": 1024,
                "sample_size": 16,
                "event": _g("1"),
            }
        ),
        ("replace_one",),
    ),
    "SingleEpochTreeAggregation": (
        _json({"type": "SingleEpochTreeAggregationDpEvent", "noise_multiplier": "8", "step_counts": 16}),
        ("add_remove",),
    ),
    "RepeatAndSelect": (
        _json({"type": "RepeatAndSelectDpEvent", "event": _g("4"), "mean": "4", "shape": "1"}),
        ("add_remove", "replace_one"),
    ),
    "Composed(PoissonSampled(Gaussian), Gaussian, Laplace)": (
        _json(
            {
                "type": "ComposedDpEvent",
                "events": [
                    _self({"type": "PoissonSampledDpEvent", "sampling_probability": "0.0625", "event": _g("1")}, 100),
                    _self(_g("8"), 4),
                    _self(_lap("16"), 4),
                ],
            }
        ),
        ("add_remove", "replace_one"),
    ),
}

#: The audit's ``accounting.eps`` cases: each ledger of :data:`LEDGERS` under each of its relations, at δ = 1e-5.
ACCOUNTING_CASES: tuple[Case, ...] = tuple(
    Case("accounting.eps", {"events": text, "delta": "1e-5", "neighboring": rel}, f"event: {kind}")
    for kind, (text, relations) in LEDGERS.items()
    for rel in relations
)

CASES = CASES + ACCOUNTING_CASES

#: The most vectors one audit reads from a file.
MAX_VECTORS = 10_000


def cases_from_vectors(document: Any, *, where: str = "vectors") -> tuple[Case, ...]:
    """The cases of a golden-vector document (``{"format": "dpcert-vectors", "vectors": [{"id", "quantity",
    "inputs", ...}, ...]}``, as ``dpcert vectors export`` writes it), each checked before any peer runs.

    Only ``quantity`` and ``inputs`` are used (the audit recomputes the enclosure at the doubles a peer receives);
    ``id`` becomes the case's pattern.

    Raises:
        InvalidParameter: a document that is not a vector list, or a vector naming an unknown quantity, missing or
            bad inputs (each error names the vector by its index and id).
    """
    from dpcert.engine.registry import quantity
    from dpcert.errors import InvalidParameter

    vectors = document.get("vectors") if isinstance(document, dict) else None
    if not isinstance(vectors, list):
        raise InvalidParameter(where, type(document).__name__, 'a dpcert-vectors document: {"vectors": [...]}')
    if len(vectors) > MAX_VECTORS:
        raise InvalidParameter(where, f"<{len(vectors)} vectors>", f"at most {MAX_VECTORS} vectors")
    out = []
    for i, v in enumerate(vectors):
        vid = v.get("id") if isinstance(v, dict) else None
        name = f"{where}: vector {i}" + (f" ({vid})" if isinstance(vid, str) else "")
        if not isinstance(v, dict) or not isinstance(v.get("quantity"), str) or not isinstance(v.get("inputs"), dict):
            raise InvalidParameter(name, str(v)[:60], 'an object with "quantity" (a string) and "inputs" (an object)')
        inputs = v["inputs"]
        if not all(isinstance(x, str) for x in inputs.values()):
            raise InvalidParameter(name, str(inputs)[:60], "inputs given as strings (exact decimals)")
        try:
            quantity(v["quantity"]).parse(inputs)  # unknown quantity, missing or out-of-domain input
        except InvalidParameter as exc:
            raise InvalidParameter(name, v["quantity"], f"a registered quantity with valid inputs ({exc})") from None
        out.append(Case(v["quantity"], dict(inputs), str(v.get("id", f"vector {i}"))))
    return tuple(out)
