"""The cases of the bundled golden vectors: every quantity family, with its edge cases chosen on purpose.

Each :class:`Case` names a registered quantity, its inputs exactly as a user types them (strings: ``"0.1"`` is
1/10), and ``why`` it is in the set. ``dpcert vectors export`` certifies each one; the bundle in
``verify/vectors/`` is made from this list (``dpcert vectors export --out verify/vectors/vectors.json
--certificates verify/vectors/certificates``).

A *bracket* quantity (a PLD enclosure: ``dpsgd.*``, ``laplace.*``, ``accounting.*``) narrows with its grid's
resolution, not with the precision, and never reaches 20 digits; its case states the relative ``width`` its
enclosure is made at (a few 1e-4 to a few 1e-2), and the vector records that bracket. An enclosure of modest width is
still a vector: a peer's value outside it is proved wrong, a bound on its wrong side proved unsafe.

The edges a float implementation most often gets wrong are covered in every family where they apply: k = 1, a
huge k, k·ε > 709 (e^{kε} overflows float64), δ below 1e-15 (1 - δ rounds to 1), ε_g near ±k·ε (the sum has one
term left), exact ties (a max or min of equal terms, a value exactly on a branch point), orders near 1 (a
division by λ - 1), and a float's exact binary value given as its decimal expansion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from dpcert.engine.registry import declarations

__all__ = ["Case", "CASES", "TOPICS", "topic_of", "topics", "prefix_topics", "NOT_COVERED"]


@lru_cache(maxsize=1)
def prefix_topics() -> Mapping[str, str]:
    """Quantity-name prefix -> topic (the family a vector is filed under; ``--topic`` selects by it), from the
    packages' declarations (:attr:`~dpcert.core.packages.PackageDeclaration.prefixes`).

    Raises:
        RuntimeError: when two packages file one prefix under different topics.
    """
    out: dict[str, str] = {}
    for decl in declarations():
        for prefix, topic in decl.prefixes.items():
            if out.setdefault(prefix, topic) != topic:
                raise RuntimeError(
                    f"{decl.package} files {prefix}.* under {topic}; another package, under {out[prefix]}"
                )
    return MappingProxyType(out)


def topics() -> tuple[str, ...]:
    """The topics, in the order of the packages' ranks and of each declaration's prefixes."""
    return tuple(dict.fromkeys(prefix_topics().values()))


#: the topics, in the order of the packages' ranks (``dpcert vectors export --topic`` offers them)
TOPICS: tuple[str, ...] = topics()

#: registered quantities with no golden vector, and why (a test checks that every other quantity has one): none.
#: ``br.adaptive.delta`` is a lattice bracket that cannot reach 20 digits in general; its vectors sit where it has
#: a closed form (k = 1, eps_g = +-k eps). The PLD brackets, the calibration ``dpsgd.sigma`` included, have vectors
#: at a stated width.
NOT_COVERED: dict[str, str] = {}


def topic_of(quantity: str) -> str:
    """The topic of a quantity name (``"sgm.rdp"`` -> ``"gaussian"``); the first name segment otherwise."""
    head = quantity.split(".", 1)[0]
    return prefix_topics().get(head, head)


@dataclass(frozen=True)
class Case:
    """One golden vector to certify.

    Attributes:
        quantity: a registered quantity name.
        name: short case name; the vector's id is ``<quantity>.<name>``.
        inputs: the inputs exactly as typed (strings).
        why: the edge this case covers, in a few words.
        width: a bracket quantity's case: the relative width its enclosure is made at (``"1e-3"``); ``""`` else.
    """

    quantity: str
    name: str
    inputs: dict[str, str] = field(default_factory=dict)
    why: str = ""
    width: str = ""

    @property
    def id(self) -> str:
        return f"{self.quantity}.{self.name}"

    @property
    def topic(self) -> str:
        return topic_of(self.quantity)


#: 0.1 as a double, written exactly: an implementation that is handed the float 0.1 computes at this value
_DOUBLE_0P1 = "0.1000000000000000055511151231257827021181583404541015625"


def _c(quantity: str, name: str, why: str, **inputs: str) -> Case:
    return Case(quantity, name, {k: str(v) for k, v in inputs.items()}, why)


def _b(quantity: str, name: str, why: str, width: str, **inputs: str) -> Case:
    """A bracket quantity's case, its enclosure made at the relative ``width``."""
    return Case(quantity, name, {k: str(v) for k, v in inputs.items()}, why, width)


CASES: tuple[Case, ...] = (
    # ------------------------------------------------------------------------------------------- composition
    _c("composition.simple.eps", "k1", "k = 1: the mechanism itself", k="1", eps="0.1"),
    _c("composition.simple.eps", "huge_k", "k = 10^12, the largest k accepted", k="1000000000000", eps="0.1"),
    _c(
        "composition.simple.eps",
        "double_eps",
        "eps = the double nearest 0.1, written exactly: 3 x that double is not 0.3",
        k="3",
        eps=_DOUBLE_0P1,
    ),
    _c("composition.simple.delta", "tiny_delta", "delta = 1e-300, far below 1e-15", k="3", delta="1e-300"),
    _c(
        "composition.drv.eps",
        "k1",
        "k = 1 (the advanced bound is worse than k eps)",
        k="1",
        eps="0.1",
        delta_prime="1e-6",
    ),
    _c("composition.drv.eps", "huge_k", "k = 10^12, tiny eps", k="1000000000000", eps="1e-6", delta_prime="1e-10"),
    _c("composition.drv.eps", "keps_over_709", "k eps = 1000 > 709", k="1000", eps="1", delta_prime="1e-6"),
    _c(
        "composition.drv.delta",
        "tiny_delta",
        "delta and delta' below 1e-15: exact sum",
        k="10",
        delta="1e-20",
        delta_prime="1e-18",
    ),
    _c(
        "composition.general.eps",
        "tie_keps",
        "DaRRM Table 2 inputs: the minimum is exactly the term k eps = 5.352 (an exact tie with the printed value)",
        k="20",
        eps="0.2676",
        delta_prime="0.0001",
    ),
    _c("composition.general.eps", "k1", "k = 1", k="1", eps="1", delta_prime="1e-6"),
    _c("composition.general.eps", "tiny_delta", "delta' = 1e-20 below 1e-15", k="100", eps="0.1", delta_prime="1e-20"),
    _c(
        "composition.general.delta",
        "k1",
        "k = 1: 1 - (1 - delta)(1 - delta')",
        k="1",
        delta="0.001",
        delta_prime="0.001",
    ),
    _c(
        "composition.general.delta",
        "tiny_delta",
        "delta = 1e-16: 1 - (1 - delta)^k is k delta to float64 accuracy only if computed with log1p/expm1",
        k="10",
        delta="1e-16",
        delta_prime="1e-17",
    ),
    _c("composition.kov.delta", "k1", "k = 1: delta(eps_g) of one eps-DP mechanism", k="1", eps="1", eps_g="0.5"),
    _c(
        "composition.kov.delta",
        "readme",
        "the README example (k = 1000, eps = 0.1, eps_g = 19)",
        k="1000",
        eps="0.1",
        eps_g="19",
    ),
    _c("composition.kov.delta", "eps_g_0", "eps_g = 0: every term of the sum counts", k="10", eps="0.5", eps_g="0"),
    _c(
        "composition.kov.delta",
        "eps_g_at_keps",
        "eps_g = k eps exactly: delta is 0 (an exact tie)",
        k="10",
        eps="1",
        eps_g="10",
    ),
    _c(
        "composition.kov.delta",
        "eps_g_near_keps",
        "eps_g just below k eps: one term left",
        k="10",
        eps="1",
        eps_g="9.999",
    ),
    _c(
        "composition.kov.delta",
        "keps_over_709",
        "k eps = 1000 > 709: e^{k eps} overflows float64",
        k="1000",
        eps="1",
        eps_g="500",
    ),
    _c("composition.kov.delta", "huge_k", "k = 10^5", k="100000", eps="0.001", eps_g="1"),
    _c("composition.kov.eps", "k1", "k = 1", k="1", eps="1", delta="1e-6"),
    _c("composition.kov.eps", "tiny_delta", "delta = 1e-20, below 1e-15", k="100", eps="0.1", delta="1e-20"),
    _c(
        "composition.kov.eps",
        "delta_0",
        "delta = 0: the least eps_g is k eps (an exact value)",
        k="5",
        eps="0.3",
        delta="0",
    ),
    _c("composition.kov.eps", "keps_over_709", "k eps = 1000 > 709", k="1000", eps="1", delta="1e-6"),
    _c("composition.mv.delta", "mixed", "three different eps", eps_list="0.1,0.2,0.3", eps_g="0.2"),
    _c(
        "composition.mv.delta",
        "ties",
        "equal eps: ties between subsets (equals composition.kov.delta)",
        eps_list="0.5,0.5,0.5,0.5",
        eps_g="1",
    ),
    _c("composition.mv.delta", "k1", "one mechanism", eps_list="1", eps_g="0.5"),
    # ------------------------------------------------------------------------------------------------- rdp
    _c(
        "rdp.gaussian.eps",
        "order_near_1",
        "lam = 1 + 10^-6 (an order near 1), exact rational",
        lam="1.000001",
        sigma="1",
        sensitivity="1",
    ),
    _c("rdp.gaussian.eps", "small_sigma", "sigma = 1/1000: large RDP", lam="2", sigma="0.001", sensitivity="1"),
    _c("rdp.gnmax.eps", "order_near_1", "lam = 1.0001", lam="1.0001", sigma="40"),
    _c(
        "rdp.to_dp.eps",
        "order_near_1",
        "lam = 1 + 10^-6: log(1/delta)/(lam - 1) is huge",
        lam="1.000001",
        eps_rdp="0.5",
        delta="1e-5",
    ),
    _c("rdp.to_dp.eps", "tiny_delta", "delta = 1e-20", lam="32", eps_rdp="1", delta="1e-20"),
    _c("rdp.to_dp.eps_cks", "order_near_1", "lam = 1 + 10^-6", lam="1.000001", eps_rdp="0.5", delta="1e-5"),
    _c(
        "rdp.to_dp.eps_cks",
        "clamped_0",
        "the max(0, .) branch: the formula is negative, the value exactly 0",
        lam="2",
        eps_rdp="0",
        delta="0.5",
    ),
    _c("rdp.to_dp.eps_cks", "tiny_delta", "delta = 1e-300", lam="64", eps_rdp="2", delta="1e-300"),
    # ----------------------------------------------------------------------------------------------- darrm
    _c("darrm.general.allowance", "table", "DaRRM's allowance m at k = 10", k="10", eps="0.1", delta_prime="0.1"),
    _c("darrm.general.allowance", "k1", "k = 1, delta' = 1 (the largest allowed)", k="1", eps="1", delta_prime="1"),
    _c("darrm.gnmax.lambda_min", "table", "DaRRM Table 4 inputs", eps_target="0.2676", delta="0.0003"),
    _c("darrm.gnmax.lambda_min", "tiny_delta", "delta = 1e-300", eps_target="1", delta="1e-300"),
    _c("darrm.gnmax.grid_lambda", "j1", "the first grid point", eps_target="0.2676", delta="0.0003", j="1"),
    _c(
        "darrm.gnmax.sigma",
        "table",
        "DaRRM Table 4's printed order 34.31",
        eps_target="0.2676",
        delta="0.0003",
        lam="34.31",
    ),
    _c("darrm.gnmax.grid_sigma", "j6", "grid point 6", eps_target="0.2676", delta="0.0003", j="6"),
    _c(
        "darrm.gnmax.lambda_argmin", "table", "the grid argmin (a min over a grid)", eps_target="0.2676", delta="0.0003"
    ),
    _c("darrm.gnmax.sigma_min", "table", "the grid minimum", eps_target="0.2676", delta="0.0003"),
    _c(
        "darrm.privacy.margin",
        "sub_k11",
        "DaRRM_sub, K = 11, m = 3",
        gamma="sub",
        K="11",
        m="3",
        eps="0.1",
        Delta="1e-5",
        delta="0.00003",
    ),
    _c("darrm.privacy.margin", "k1", "K = 1: one mechanism", gamma="one", K="1", m="1", eps="1", Delta="0", delta="0"),
    _c("darrm.error", "sub_k11", "DaRRM_sub error, K = 11", gamma="sub", K="11", m="3", mu="0.75"),
    _c("darrm.error", "tie_mu_half", "mu = 1/2: the vote is a coin flip (a tie)", gamma="sub", K="11", m="3", mu="0.5"),
    _c("darrm.error", "k1", "K = 1", gamma="one", K="1", m="1", mu="0.9"),
    # -------------------------------------------------------------------------------------------------- br
    _c("br.nonadaptive.delta", "k1", "k = 1, eps_g = 0", k="1", eps="1", eps_g="0"),
    _c("br.nonadaptive.delta", "eps_g_near_minus_keps", "eps_g just above -k eps", k="10", eps="1", eps_g="-9.999"),
    _c("br.nonadaptive.delta", "eps_g_near_keps", "eps_g just below k eps", k="10", eps="1", eps_g="9.999"),
    _c("br.nonadaptive.delta", "keps_over_709", "k eps = 1000 > 709", k="1000", eps="1", eps_g="100"),
    _c("br.nonadaptive.eps", "k1", "k = 1", k="1", eps="1", delta="1e-6"),
    _c("br.nonadaptive.eps", "tiny_delta", "delta = 1e-20", k="100", eps="0.1", delta="1e-20"),
    _c("br.optkl.eps", "k10", "k = 10", k="10", eps="1", delta="1e-6"),
    _c("br.optkl.eps", "huge_k", "k = 10^6", k="1000000", eps="0.001", delta="1e-10"),
    _c(
        "br.dr19.eps",
        "tie_keps",
        "the bound is capped at k eps exactly (a tie with the basic bound)",
        k="10",
        eps="1",
        delta="1e-6",
    ),
    _c("br.dr19.eps", "huge_k", "k = 10^6", k="1000000", eps="0.001", delta="1e-10"),
    _c("br.drv10.eps", "tie_keps", "capped at k eps exactly", k="10", eps="1", delta="1e-6"),
    _c("br.drv10.eps", "huge_k", "k = 10^6", k="1000000", eps="0.001", delta="1e-10"),
    _c("br.zcdp.eps", "k10", "k = 10", k="10", eps="1", delta="1e-6"),
    _c("br.zcdp.eps", "tiny_delta", "delta = 1e-300", k="1000", eps="0.01", delta="1e-300"),
    _c("br.mgf.eps", "k10", "k = 10", k="10", eps="1", delta="1e-6"),
    _c(
        "br.adaptive.delta",
        "k1",
        "k = 1: adaptivity is no help, the value of br.nonadaptive.delta.k1",
        k="1",
        eps="1",
        eps_g="0",
    ),
    _c("br.adaptive.delta", "eps_g_at_keps", "eps_g = k eps exactly: delta is 0", k="3", eps="1", eps_g="3"),
    _c("br.adaptive.delta", "eps_g_at_minus_keps", "eps_g = -k eps exactly: a closed form", k="3", eps="1", eps_g="-3"),
    # ------------------------------------------------------------------------------------------------- sml
    _c("sml.rr.sml", "eps_0", "eps = 0: no leakage (exactly 0)", tau="1", d="2", eps="0"),
    _c("sml.rr.sml", "large_eps", "eps = 1000: e^eps overflows float64", tau="10", d="5", eps="1000"),
    _c("sml.rr.sml_bits", "mid", "bits", tau="3", d="4", eps="1"),
    _c("sml.rr.distortion", "census", "the census inputs of the paper's example", tau="48842", d="22381", eps="44320"),
    _c("sml.qm.sml", "i1", "I = 1: log of the number of cells", tau="10", d="3", I="1"),
    _c("sml.qm.sml_bits", "i_eq_s", "I = s: one cell, SML = 0 exactly", tau="2", d="2", I="3"),
    _c("sml.qm.distortion", "tau1", "tau = 1", tau="1", d="3", I="1"),
    # --------------------------------------------------------------------------------------------- shuffle
    _c("shuffle.rdp.thm1", "n1", "n = 1: no amplification", n="1", eps0="1", lam="2"),
    _c("shuffle.rdp.thm1", "paper", "n = 1000, eps0 = 1, lam = 2", n="1000", eps0="1", lam="2"),
    _c("shuffle.rdp.cor1", "regime", "inside the corollary's regime", n="1000000", eps0="0.5", lam="4"),
    _c("shuffle.rdp.thm2", "order_near_1", "lam = 1.0001", n="1000", eps0="1", lam="1.0001"),
    _c("shuffle.rdp.thm1_real", "lam_1p5", "a real order between 1 and 2", n="1000", eps0="1", lam="1.5"),
    _c("shuffle.rdp.efm19", "baseline", "the EFM19 baseline", n="1000", eps0="1", lam="2"),
    _c("shuffle.rdp.thm3", "lower", "the lower bound", n="10", eps0="0.5", lam="5"),
    _c("shuffle.rdp.cor2", "lower", "Theorem 3's leading terms", n="1000", eps0="1", lam="3"),
    _c("shuffle.rdp.pair", "max", "exact pair RDP, both directions", n="10", eps0="1", lam="2", order="max"),
    _c("shuffle.rdp.pair", "order_near_1", "lam = 1.001", n="10", eps0="1", lam="1.001", order="forward"),
    _c("shuffle.rdp.upper", "default", "the certified upper bound", n="1000", eps0="1", lam="4", bound="default"),
    _c("shuffle.rdp.upper", "reduction", "with U_red", n="100", eps0="1", lam="2", bound="reduction"),
    _c("shuffle.rdp.reduction", "real_lam", "U_red at a real order", n="100", eps0="1", lam="2.5"),
    _c("shuffle.dp.eps", "rounds", "T = 10 rounds", n="10000", eps0="1", T="10", delta="1e-6"),
    _c("shuffle.dp.delta", "rounds", "T = 10 rounds", n="10000", eps0="1", T="10", eps="1"),
    _c("shuffle.fmt20.eps", "paper", "FMT20's closed form", n="100000", eps0="4", delta="1e-6"),
    _c("shuffle.fmt20_kov.eps", "rounds", "FMT20 + KOV over T = 10 rounds", n="100000", eps0="1", T="10", delta="1e-6"),
    _c(
        "shuffle.rdp.poisson",
        "paper",
        "Poisson subsampling at gamma = 0.001",
        n="1000",
        eps0="3",
        lam="10",
        gamma="0.001",
    ),
    _c(
        "shuffle.rdp.poisson",
        "gamma_0",
        "gamma = 0: nobody participates, RDP exactly 0",
        n="1000",
        eps0="3",
        lam="10",
        gamma="0",
    ),
    # -------------------------------------------------------------------------------------------- gaussian
    _c("gaussian.delta", "sigma1", "sigma = 1, eps = 1", eps="1", sigma="1"),
    _c("gaussian.delta", "negative_eps", "eps = -1 (the profile at a negative eps)", eps="-1", sigma="1"),
    _c("gaussian.delta", "tiny_delta", "delta far below 1e-15 (eps = 50, sigma = 1)", eps="50", sigma="1"),
    _c(
        "gaussian.delta",
        "huge_k",
        "k = 10^12 compositions at sensitivity 10^-6: the same value as sigma1",
        eps="1",
        sigma="1",
        sensitivity="0.000001",
        k="1000000000000",
    ),
    _c("gaussian.eps", "tiny_delta", "delta = 1e-20", delta="1e-20", sigma="2"),
    _c(
        "gaussian.eps",
        "eps_0",
        "delta(0) <= delta: eps = 0 exactly (a tie at the boundary of the max)",
        delta="0.9",
        sigma="1",
    ),
    _c("gaussian.sigma", "tiny_delta", "delta = 1e-20, below 1e-15", eps="1", delta="1e-20"),
    _c("gaussian.sigma", "eps_0", "eps = 0", eps="0", delta="1e-5"),
    _c("sgm.rdp", "order_near_1", "alpha = 1.0001", q="0.01", sigma="1", alpha="1.0001"),
    _c("sgm.rdp", "q1", "q = 1: no subsampling, the Gaussian's alpha/(2 sigma^2)", q="1", sigma="2", alpha="3"),
    _c("sgm.delta", "eps_0", "eps = 0", q="105/100000", sigma="1", eps="0"),
    _c("sgm.delta", "q1", "q = 1: equals gaussian.delta", q="1", sigma="1", eps="1"),
    _c("dpsgd.rdp.eps", "tiny_delta", "delta = 1.13e-18", q="0.00033", sigma="4", steps="10000", delta="1.13e-18"),
    _c(
        "dpsgd.rdp.eps",
        "mironov",
        "Mironov's conversion",
        q="0.01",
        sigma="1",
        steps="1000",
        delta="1e-5",
        conversion="mironov",
    ),
    _c(
        "gaussian.composed.delta",
        "hetero",
        "three Gaussians sigma = 1, 2, 2 compose into one with mu^2 = 1 + 1/4 + 1/4",
        eps="1",
        sigmas="1,2,2",
    ),
    _c(
        "gaussian.composed.eps",
        "hetero_sens",
        "per-mechanism sensitivities: mu^2 = (2/1)^2 + (1/3)^2",
        delta="1e-5",
        sigmas="1,3",
        sensitivities="2,1",
    ),
    # ----------------------------------------------------------------- PLD brackets, each at a stated width
    _b(
        "dpsgd.eps",
        "poisson",
        "100 DP-SGD steps, Poisson rate 0.01, sigma 1: the tight PLD bracket (dp-accounting: 0.71804)",
        "1e-3",
        q="0.01",
        sigma="1",
        steps="100",
        delta="1e-5",
    ),
    _b(
        "dpsgd.delta",
        "poisson",
        "delta(eps = 1) of the same run (dp-accounting: 6.6714e-7)",
        "1e-2",
        q="0.01",
        sigma="1",
        steps="100",
        eps="1",
    ),
    _b(
        "dpsgd.sigma",
        "gaussian_q1",
        "q = 1: four Gaussian steps are one Gaussian at sigma/2, whose calibration is the analytic Gaussian's "
        "(sigma = 7.4613 at eps 1, delta 1e-5); the width is the calibration's coarsest bracket",
        "2e-2",
        q="1",
        steps="4",
        eps="1",
        delta="1e-5",
    ),
    _b(
        "dpsgd.sigma",
        "poisson",
        "10 DP-SGD steps at Poisson rate 0.1: the least sigma for (1, 1e-5), bracketed by two proofs (the "
        "calibration's coarsest bracket)",
        "2e-2",
        q="0.1",
        steps="10",
        eps="1",
        delta="1e-5",
    ),
    _b(
        "laplace.eps",
        "k1",
        "one Laplace mechanism: eps(delta) = 1 + 2 ln(1 - delta) in closed form",
        "1e-5",
        delta="1e-5",
        scale="1",
        sensitivity="1",
        k="1",
    ),
    _b(
        "laplace.eps", "k10", "10 Laplace mechanisms composed", "1e-4", delta="1e-5", scale="1", sensitivity="1", k="10"
    ),
    _b(
        "laplace.delta",
        "k10",
        "delta(eps = 1) of 10 Laplace mechanisms",
        "1e-3",
        eps="1",
        scale="1",
        sensitivity="1",
        k="10",
    ),
    _b(
        "accounting.eps",
        "example",
        "the docs' ledger: two DP-SGD phases (sigma 1.1 then 0.9) and 5 Laplace releases",
        "1e-3",
        events="example",
        delta="1e-5",
    ),
    _b(
        "accounting.delta",
        "example",
        "delta(eps = 1) of the docs' ledger",
        "1e-2",
        events="example",
        eps="1",
    ),
)
