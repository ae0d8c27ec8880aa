"""The parameter vocabulary: every input name of every quantity, with one meaning, and the names it is also known by.

A quantity's parameters are named from :data:`TERMS` only (a test checks every registered quantity). Each term has
one meaning, a symbol and a domain; its aliases are the field's names for the same input (dp-accounting's
``noise_multiplier``, ``sampling_probability``, ``count``; Opacus' ``noise_multiplier``, ``sample_rate``) and the
legacy names dpcert used before the vocabulary, kept so that old commands and recorded certificates, vectors and
tables keep working. An alias is resolved to the declared name when inputs are parsed
(:func:`dpcert.core.params.validate`); giving a name and its alias together is refused.

An alias may be scoped to some quantities (a quantity name, or a prefix ending in ``.``): ``noise_multiplier`` is
``sigma`` only where the query's L2 sensitivity is 1 (``sgm.*``, ``dpsgd.*``), never in ``gaussian.*``, whose σ is
the noise standard deviation at a given sensitivity Δ, σ = noise multiplier × Δ.

``docs/vocabulary.md`` is :func:`markdown`'s output (a test compares them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dpcert.errors import InvalidParameter

__all__ = ["NEIGHBORING", "Alias", "Term", "TERMS", "VOCABULARY", "aliases_for", "resolve_aliases", "markdown"]

#: The neighbouring relations (the values of the parameter ``neighboring``): a record added or removed, or one
#: record replaced by another.
NEIGHBORING = ("add_remove", "replace_one")


@dataclass(frozen=True)
class Alias:
    """Another name accepted for a term.

    Attributes:
        name: the accepted name.
        source: whose name it is (``"dp-accounting"``, ``"Opacus"``, ``"legacy"``: dpcert's own former name).
        scope: the quantities that accept it (names, or prefixes ending in ``.``); empty: every quantity declaring
            the term.
        note: what a reader must know (when the alias is only the same thing under a condition).
    """

    name: str
    source: str
    scope: tuple[str, ...] = ()
    note: str = ""

    def applies_to(self, quantity: str) -> bool:
        return not self.scope or any(quantity == s or (s.endswith(".") and quantity.startswith(s)) for s in self.scope)


@dataclass(frozen=True)
class Term:
    """One parameter name with its one meaning."""

    name: str
    symbol: str
    meaning: str
    domain: str
    aliases: tuple[Alias, ...] = ()


_SIGMA_NOTE = (
    "the noise standard deviation at sensitivity 1, equal to the noise multiplier; only where the quantity has no "
    "sensitivity input"
)

TERMS: tuple[Term, ...] = (
    # privacy parameters
    Term("eps", "ε", "the ε of (ε, δ)-DP: a mechanism's ε where mechanisms are composed, else the target ε", "real"),
    Term(
        "delta", "δ", "the δ of (ε, δ)-DP: a mechanism's δ where mechanisms are composed, else the target δ", "[0, 1)"
    ),
    Term("delta_prime", "δ′", "the slack δ′ of advanced composition, added to the composed δ", "(0, 1]"),
    Term("eps_g", "ε_g", "the global ε of a composition, at which its δ is computed", "real"),
    Term(
        "eps_list", "ε_1, …, ε_k", "the ε of each composed mechanism (heterogeneous composition)", "list of reals >= 0"
    ),
    Term("eps_target", "mε", "DaRRM's per-query budget m·ε that GNMax is calibrated to", "real > 0"),
    Term("eps0", "ε₀", "the local-DP ε of each client's randomizer (shuffle model)", "real >= 0"),
    Term("eps_rdp", "ρ", "the Rényi DP of a mechanism at order α (the ε of (α, ρ)-RDP)", "real >= 0"),
    # Rényi orders
    Term(
        "alpha",
        "α",
        "the Rényi order α of a Rényi divergence or Rényi DP",
        "real > 1 (integer >= 2 where a bound needs it)",
        (Alias("lam", "legacy", note="dpcert's name before the vocabulary (the shuffle and RDP quantities)"),),
    ),
    Term("max_order", "N", "the largest Rényi order an RDP accountant minimises over", "integer >= 2"),
    Term("orders", "", "which Rényi orders an RDP accountant searches: integer, or real near the best", "choice"),
    Term("conversion", "", "the RDP → (ε, δ)-DP conversion: cks (Canonne–Kamath–Steinke) or mironov", "choice"),
    # counts
    Term(
        "k",
        "k",
        "the number of mechanisms composed (a k-fold composition)",
        "integer >= 1",
        (
            Alias("count", "dp-accounting", note="SelfComposedDpEvent's count"),
            Alias("T", "legacy", ("shuffle.",), "the number of shuffled rounds, dpcert's name before the vocabulary"),
        ),
    ),
    Term(
        "steps",
        "T",
        "the number of DP-SGD steps: the composition count of one Poisson-subsampled Gaussian step",
        "integer >= 1",
        (Alias("count", "dp-accounting", note="SelfComposedDpEvent's count"),),
    ),
    Term(
        "n",
        "n",
        "the number of individuals (records) in the dataset; shuffle model: clients, one record each",
        "integer >= 1",
    ),
    Term(
        "K",
        "K",
        "the number of mechanisms whose outputs DaRRM aggregates by majority (not composed)",
        "odd integer >= 1",
    ),
    Term(
        "m",
        "m",
        "DaRRM's privacy allowance (the aggregate may spend m of the K mechanisms' budgets)",
        "real, 1 <= m <= K",
    ),
    Term("j", "j", "the index of a point of DaRRM's GNMax grid", "integer"),
    # Gaussian noise
    Term(
        "sigma",
        "σ",
        "the standard deviation of the Gaussian noise; where the quantity has no sensitivity input the query's L2 "
        "sensitivity is 1, so σ is also the noise multiplier σ/Δ",
        "real > 0",
        (Alias("noise_multiplier", "dp-accounting, Opacus", ("sgm.", "dpsgd."), _SIGMA_NOTE),),
    ),
    Term(
        "sigmas", "σ_1, …, σ_k", "the noise standard deviation of each composed Gaussian mechanism", "list of reals > 0"
    ),
    Term(
        "sensitivity",
        "Δ",
        "the sensitivity of the query the noise is added to, in the norm the noise is calibrated to: L2 for "
        "Gaussian noise, L1 for Laplace noise",
        "real > 0",
    ),
    Term("scale", "b", "the scale b of Laplace noise (density exp(−abs(x)/b)/(2b))", "real > 0"),
    Term(
        "sensitivities",
        "Δ_1, …, Δ_k",
        "the L2 sensitivity of each composed Gaussian mechanism (one, or one each)",
        "list of reals > 0",
    ),
    # sampling
    Term(
        "q",
        "q",
        "the Poisson sampling rate: each record is in a step's sample independently with probability q",
        "[0, 1]",
        (
            Alias("sampling_probability", "dp-accounting", note="PoissonSampledDpEvent's sampling_probability"),
            Alias("sample_rate", "Opacus"),
            Alias("gamma", "legacy", ("shuffle.rdp.poisson",), "shuffle.rdp.poisson's name before the vocabulary"),
        ),
    ),
    Term(
        "sampling",
        "",
        "DP-SGD's batch sampler: poisson (each record in a step's batch with probability q), fixed (batches of q·n "
        "drawn without replacement), shuffle (each epoch a permutation cut into disjoint batches)",
        "choice",
    ),
    Term(
        "neighboring",
        "",
        "the neighbouring relation: add_remove (one record added or removed) or replace_one (one record replaced)",
        "choice",
    ),
    # DaRRM
    Term("gamma", "γ", "DaRRM's noise function γ (a named one, or a table of its K + 1 values)", "choice or table"),
    Term("Delta", "Δ", "the δ of each of DaRRM's K mechanisms", "[0, 1)"),
    Term("mu", "μ", "the mean of DaRRM's product prior on the mechanisms' outputs", "[0, 1]"),
    # shuffle
    Term("order", "", "which direction of a pair's Rényi divergence: max of both, forward, reverse", "choice"),
    Term("bound", "", "which certified RDP upper bound of the shuffle model: default, or with U_red", "choice"),
    # SML
    Term("tau", "τ", "the histogram precision of the SML mechanisms (every mass a multiple of 1/τ)", "integer >= 1"),
    Term("d", "d", "the number of categories of the SML mechanisms", "integer >= 2"),
    Term("I", "I", "the bin length of the SML quantized mechanism", "integer, 1 <= I <= τ + 1"),
    # accounting
    Term(
        "events",
        "",
        "the privacy events composed, in dp-accounting's event language (an event file, or a named ledger)",
        "file or name",
    ),
)

VOCABULARY: dict[str, Term] = {t.name: t for t in TERMS}

#: the field's names that are NOT aliases, and why (shown on the docs page)
NOT_ALIASES: tuple[tuple[str, str], ...] = (
    (
        "epochs",
        "passes over the data (steps × q), never a name of steps: `dpsgd.*` take `epochs`, `batch_size` and `n` "
        "together instead of q and steps (q = batch_size/n, steps = epochs·n/batch_size, a whole number), and record "
        "q and steps",
    ),
    ("batch_size", "records per batch (q × n, expected under Poisson sampling), never a name of q: see epochs"),
    ("lambda", "a Python keyword: the Rényi order is alpha (legacy lam)"),
)


def aliases_for(quantity: str, params: Iterable[str]) -> dict[str, str]:
    """The aliases the named quantity accepts, each mapped to the name of the parameter it stands for.

    A name outside the vocabulary has no aliases (every registered quantity's names are in it: a test checks).

    Raises:
        ValueError: when an alias would name two of its parameters or one of them (a bug of the quantity).
    """
    names = list(params)
    out: dict[str, str] = {}
    for name in names:
        term = VOCABULARY.get(name)
        for a in term.aliases if term is not None else ():
            if not a.applies_to(quantity):
                continue
            if a.name in names or a.name in out:
                raise ValueError(f"alias {a.name!r} of {quantity} names two of its parameters")
            out[a.name] = name
    return out


def resolve_aliases(inputs: Mapping[str, Any], aliases: Mapping[str, str]) -> dict[str, Any]:
    """``inputs`` with every alias replaced by its declared name.

    Raises:
        InvalidParameter: when a name and one of its aliases (or two aliases of one name) are both given.
    """
    out: dict[str, Any] = {}
    given_as: dict[str, str] = {}
    for key, value in inputs.items():
        name = aliases.get(key, key)
        if name in out:
            raise InvalidParameter(key, value, f"only one of {given_as[name]} and {key}: both name the input {name}")
        out[name] = value
        given_as[name] = key
    return out


def _scope(a: Alias) -> str:
    return ", ".join(f"`{s}*`" if s.endswith(".") else f"`{s}`" for s in a.scope) if a.scope else "all"


def markdown(quantities: Mapping[str, Any] | None = None) -> str:
    """The vocabulary as the ``docs/vocabulary.md`` page (with, given the registry's quantities, who uses each name)."""
    lines = [
        "# Parameter vocabulary",
        "",
        "<!-- generated by dpcert.core.vocabulary.markdown(registry.quantities()); tests/core/test_vocabulary.py -->",
        "",
        "Every input of every quantity is named from this table, and each name has one meaning. The aliases are the",
        "field's names for the same input (dp-accounting, Opacus) and dpcert's former names; they are accepted",
        "wherever inputs are read (`dpcert.enclose`, `dpcert eval`/`claim`, tables, vectors, certificate re-check)",
        "and resolved to the name in the first column. Giving a name and its alias together is an error. An alias",
        "with a scope is accepted by those quantities only.",
        "",
        "| name | symbol | meaning | domain | aliases (source; scope) | used by |",
        "|---|---|---|---|---|---|",
    ]
    for t in TERMS:
        al = "; ".join(f"`{a.name}` ({a.source}; {_scope(a)})" for a in t.aliases) or "—"
        users = ""
        if quantities is not None:
            qs = [n for n, q in quantities.items() if t.name in [p.name for p in q.params]]
            users = ", ".join(f"`{n}`" for n in qs)
        lines.append(f"| `{t.name}` | {t.symbol or '—'} | {t.meaning} | {t.domain} | {al} | {users} |")
    lines += ["", "## About the aliases", ""]
    for t in TERMS:
        for a in t.aliases:
            if a.note:
                lines.append(f"- `{a.name}` → `{t.name}`: {a.note}.")
    lines += ["", "## Names of the field that are not aliases", ""]
    lines += [f"- `{name}`: {why}." for name, why in NOT_ALIASES]
    lines += ["", "## Examples", ""] + _EXAMPLES.splitlines()
    return "\n".join(lines) + "\n"


_EXAMPLES = """\
A legacy name and the vocabulary's name give the same value; the JSON output names the input by the vocabulary:

```console
$ dpcert eval rdp.to_dp.eps lam=32 eps_rdp=1 delta=1e-20
rdp.to_dp.eps = [2.48553876967357, 2.48553876967358]
...
$ dpcert eval rdp.to_dp.eps alpha=32 eps_rdp=1 delta=1e-20
rdp.to_dp.eps = [2.48553876967357, 2.48553876967358]
...
```

A name and its alias together are refused, and an alias is accepted only where it means the same thing (σ of
`gaussian.delta` is a standard deviation at the sensitivity given, not a noise multiplier):

```console
$ dpcert eval sgm.delta q=0.01 sigma=1.1 noise_multiplier=1.1 eps=1; echo "exit $?"
dpcert: error: invalid noise_multiplier='1.1': expected only one of sigma and noise_multiplier: ...
exit 2
$ dpcert eval gaussian.delta eps=1 noise_multiplier=1; echo "exit $?"
dpcert: error: invalid noise_multiplier='1': expected one of the parameters [...] of gaussian.delta
exit 2
```

In Python, through :func:`dpcert.enclose` or a quantity's own methods:

```pycon
>>> import dpcert
>>> a = dpcert.enclose("sgm.delta", q="0.01", noise_multiplier="1.1", eps=1)
>>> b = dpcert.enclose("sgm.delta", q="0.01", sigma="1.1", eps=1)
>>> a == b
True
```
"""
