"""Adaptive composition and post-processing of finite mechanisms (Theorems IV.2, IV.3), exactly.

Theorem, lemma, section and equation numbers in this module are those of [WLF24] unless another key is given.

* :func:`compose` builds the joint mechanism θ ↦ (θ'₁, θ'₂) with P(θ'₁, θ'₂ | θ) = P₁(θ'₁|θ) P₂(θ'₂|θ, θ'₁);
  its SML by Proposition IV.1 is the exact value of Lemma D.2.
* :func:`composition_bound` is Theorem IV.2 under the reading that makes it true
(docs/derivations/sml.md#composition-per-prefix):
  exp Π_(ℳ₁,ℳ₂) ≤ exp Π_ℳ₁ · max_{θ'₁} exp Π_{ℳ₂(·, θ'₁)}. Proof: for a selection σ,
  Σ_{θ'₁,θ'₂} max_g P₁(θ'₁|σ(g)) P₂(θ'₂|σ(g), θ'₁) ≤ Σ_{θ'₁} max_g P₁(θ'₁|σ(g)) · Σ_{θ'₂} max_g P₂(θ'₂|σ(g), θ'₁),
  and the inner sum is at most max_{θ'₁} exp Π_{ℳ₂(·,θ'₁)}. **Proof gap in Appendix D:** the last step there
  defines Π_{ℳ_i} with a sum over all prefixes, which is not the standalone SML of ℳ_i (for a non-adaptive ℳ₂ it
  is log|Θ'₁| + Π_ℳ₂); the per-prefix worst case is what the theorem needs.
* :func:`post_process` is K∘ℳ; Theorem IV.3: exp Π_{K∘ℳ} ≤ exp Π_ℳ (Σ_θ'' max_g Σ_θ' P(θ'|θ_g)K(θ''|θ') ≤
  Σ_θ' max_g P(θ'|θ_g) Σ_θ'' K(θ''|θ')).

References:
    Wang–Lin–Fanti, Theorem IV.2, Lemma D.2, Theorem IV.3, Appendices D and E [WLF24];
    docs/derivations/sml.md#composition-per-prefix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from dpcert.errors import InvalidParameter
from dpcert.sml.mechanism import FiniteMechanism, sml

__all__ = ["compose", "composition_bound", "post_process"]


def compose(first: FiniteMechanism, second: Mapping[str, FiniteMechanism]) -> FiniteMechanism:
    """The adaptive composition: ``second[θ'₁]`` is the mechanism run after ℳ₁ released θ'₁.

    Args:
        first: ℳ₁.
        second: one mechanism per output label of ℳ₁, each with the same inputs and secrets as ℳ₁.

    Returns:
        The joint mechanism; output labels ``"<θ'₁>|<θ'₂>"``.

    Raises:
        InvalidParameter: for a missing output label or mismatched inputs/secrets.

    References:
        Wang–Lin–Fanti [WLF24], Theorem IV.2 and Lemma D.2.
    """
    rows: list[list[Fraction]] = [[] for _ in first.inputs]
    labels: list[str] = []
    for j, o1 in enumerate(first.outputs):
        if o1 not in second:
            raise InvalidParameter("second", sorted(second), f"a mechanism for every output of the first ({o1!r})")
        m2 = second[o1]
        if m2.inputs != first.inputs or m2.secrets != first.secrets:
            raise InvalidParameter(f"second[{o1!r}]", m2.inputs, "the same inputs and secrets as the first mechanism")
        labels += [f"{o1}|{o2}" for o2 in m2.outputs]
        for i in range(first.n_inputs):
            rows[i] += [first.rows[i][j] * q for q in m2.rows[i]]
    return FiniteMechanism(first.inputs, first.secrets, tuple(labels), tuple(tuple(r) for r in rows))


def composition_bound(first: FiniteMechanism, second: Mapping[str, FiniteMechanism]) -> Fraction:
    """exp Π_ℳ₁ · max_{θ'₁} exp Π_{ℳ₂(·,θ'₁)}: Theorem IV.2's bound with per-prefix SML
    (docs/derivations/sml.md#composition-per-prefix)."""
    return sml(first).exp_value * max(sml(second[o]).exp_value for o in first.outputs)


def post_process(mech: FiniteMechanism, kernel: Sequence[Sequence[Any]]) -> FiniteMechanism:
    """K∘ℳ: ``kernel[j][k] = K(θ''_k | θ'_j)``, exact entries, rows summing to 1.

    Raises:
        InvalidParameter: naming the kernel row that is malformed.

    References:
        Wang–Lin–Fanti [WLF24], Theorem IV.3 and Appendix E.
    """
    if len(kernel) != mech.n_outputs:
        raise InvalidParameter("kernel", len(kernel), f"one row per output of the mechanism ({mech.n_outputs})")
    k = FiniteMechanism.from_rows(kernel, ["k"] * len(kernel))  # validates the kernel rows
    width = k.n_outputs
    rows = tuple(
        tuple(sum((row[j] * k.rows[j][c] for j in range(mech.n_outputs)), Fraction(0)) for c in range(width))
        for row in mech.rows
    )
    return FiniteMechanism(mech.inputs, mech.secrets, tuple(str(c) for c in range(width)), rows)
