"""TensorFlow Privacy 0.9: DP-SGD example-level ε, computed by dp-accounting's PLD or RDP accountant.

Without Poisson subsampling its example-privacy function is the k-fold Gaussian mechanism (k = number of epochs,
noise multiplier σ, no microbatching): the quantity ``gaussian.eps``. The package requires TensorFlow, so it is
not in dpcert's ``peers`` extra; the adapter runs where it is installed.
"""

from __future__ import annotations

from typing import Any

from dpcert.audit.peers._common import doubles
from dpcert.audit.peers.adapter import Call, Peer

__all__ = ["PEER"]


def calls(case: Any) -> list[Call]:
    from tensorflow_privacy.privacy.analysis import compute_dp_sgd_privacy_lib as lib

    q, d = case.quantity, doubles(case)
    out: list[Call] = []
    if q == "gaussian.eps" and d["sensitivity"] == 1:
        for kind in ("PLD", "RDP"):
            acc = getattr(lib.AccountantType, kind)
            out.append(
                Call(
                    f"compute_dp_sgd_privacy_lib._compute_dp_sgd_example_privacy(epochs=k, accountant={kind})",
                    "upper",
                    lambda acc=acc: float(
                        lib._compute_dp_sgd_example_privacy(
                            num_epochs=d["k"],
                            noise_multiplier=d["sigma"],
                            example_delta=d["delta"],
                            used_microbatching=False,
                            poisson_subsampling_probability=None,
                            accountant_type=acc,
                        )
                    ),
                )
            )
    return out


PEER = Peer(
    "tensorflow-privacy",
    "tensorflow-privacy",
    "tensorflow_privacy.privacy.analysis.compute_dp_sgd_privacy_lib",
    calls,
    "pip install tensorflow-privacy (requires TensorFlow; not in the peers extra)",
)
