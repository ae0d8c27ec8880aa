"""Every registered quantity, at inputs where its value is rational, is certified at equality in both directions.

The rational points are found, not listed: small rational inputs from each parameter's domain are tried in exact
arithmetic (the quantity's own formula in an ExactContext); where no formula run is exact, one ball evaluation at
the first precision may still return an exact value (``ctx.exact`` terms winning a ``min``, exact zeros). At each
point found, ``AtMost(v)`` and ``AtLeast(v)`` must both be CERTIFIED through the normal claim path. Quantities with
no rational point are listed with the reason their value is irrational, so a regression (a quantity that stops being
exact where it was) shows as a changed list.
"""

import itertools
import time
from fractions import Fraction

from dpcert.arith.ball import START_PREC
from dpcert.core.claim import AtLeast, AtMost, QuantityClaim, Verdict
from dpcert.engine import registry
from dpcert.errors import DpcertError

_REALS = [Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1, 10), Fraction(2), Fraction(3)]
_INTS = [1, 2, 3, 5]
#: each quantity's search tries at most this many valid input combinations (the first: the smallest values; a
#: quantity such as shuffle.dp.delta spends seconds on each input choosing its lambda)
_MAX_TRIES = 2

#: Quantities with no rational point, each with why its value is irrational at every (small) rational input.
IRRATIONAL = {
    "rdp.to_dp.eps": "eps_rdp + ln(1/delta)/(lam - 1), delta in (0, 1)",
    "darrm.gnmax.lambda_min": "ln(1/delta)/eps + 1, delta in (0, 1)",
    "darrm.gnmax.grid_lambda": "lambda_min + j/100",
    "darrm.gnmax.sigma": "a square root of an expression in ln(1/delta)",
    "darrm.gnmax.grid_sigma": "sigma at grid_lambda",
    "darrm.gnmax.lambda_argmin": "the argmin of a transcendental function",
    "darrm.gnmax.sigma_min": "sigma at the argmin",
    "shuffle.rdp.thm1": "ln of 1 + terms in e^{eps0} and a Chernoff term e^{-...} > 0",
    "shuffle.rdp.thm2": "a Chernoff term e^{-...} > 0 inside a log",
    "shuffle.rdp.thm1_real": "Theorem 1 at the neighbouring integers",
    "shuffle.dp.delta": "Lemma 1 on an irrational RDP curve (e^{...} terms)",
    "br.mgf.eps": "an infimum over lambda of logs, or k eps when that is smaller (not at small inputs)",
    "gaussian.delta": "Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu): normal tails of rational arguments",
    "gaussian.composed.delta": "gaussian.delta at mu^2 = sum (Delta_i/sigma_i)^2: normal tails of rational arguments",
    "gaussian.composed.eps": "the root in eps of delta_mu(eps) = delta (normal tails; 0 only if delta >= delta_mu(0))",
    "gaussian.sigma": "the root in sigma of delta_mu(eps) = delta (normal tails)",
    "sgm.delta": "a mixture of normal tails at x* = sigma^2 ln((e^eps - (1 - q))/q) + 1/2",
    "dpsgd.rdp.eps": "a minimum over orders of ln A_alpha/(alpha - 1) plus logs of delta and alpha (the first inputs)",
    "dpsgd.delta": "a PLD bracket: sums of normal-tail cell masses times e^{j/n} (never an exact point)",
    "dpsgd.sigma": "a bracket [sigma_lo, sigma_hi] of two proofs around the least sigma (never an exact point)",
    "laplace.delta": "a PLD bracket: 1 - e^{(eps - sensitivity/scale)/2} at one step, sums of e^{j/n} terms beyond",
    "accounting.delta": "a PLD bracket of the events' composed privacy losses (sums of e^{j/n} terms)",
}


def _candidates(p):
    if p.kind == "choice":
        return [c for c in p.choices]
    xs = ([int(p.lo)] if p.lo is not None else []) + _INTS if p.kind == "int" else _REALS
    if p.kind == "real" and p.hi is not None and not p.hi_open:
        xs = [*xs, p.hi]
    out = []
    for x in xs:
        text = x if p.kind == "int" else str(x)
        try:
            p.parse(text)
        except DpcertError:
            continue
        if text not in out:
            out.append(text)
    if p.kind == "reals":
        return [",".join(out[:2]), out[0]]
    return out


def _rational_point(q):
    """(inputs, value, how) at the first candidate input where the quantity is found exact, else None.

    Each of the first few valid inputs is tried in the exact context, then with one ball evaluation at the first
    precision (which may still be exact: an exact term winning a min, an exact zero). The search is bounded by a
    count, not a clock, so that its result does not depend on the machine's load.
    """
    tried = 0
    for combo in itertools.islice(itertools.product(*[_candidates(p) for p in q.params]), 400):
        inputs = dict(zip((p.name for p in q.params), combo, strict=True))
        try:
            parsed = q.parse(inputs)
        except DpcertError:
            continue
        value = q.exact_value(parsed)
        if value is not None:
            return inputs, value, "exact context"
        try:
            _, enc, _ = q.decide(parsed, lambda e: True if e.is_exact else None, max_prec=START_PREC)
            return inputs, enc.lo, "ball path"
        except DpcertError:
            pass
        tried += 1
        if tried >= _MAX_TRIES:
            return None
    return None


def test_every_quantity_is_certified_at_equality_where_it_is_rational():
    missing, found, t0 = [], {}, time.perf_counter()
    for name, q in registry.quantities().items():
        start = time.perf_counter()
        point = _rational_point(q)
        if point is None:
            missing.append(name)
            continue
        inputs, value, how = point
        found[name] = how
        for cmp in (AtMost.of(str(value)), AtLeast.of(str(value))):
            r = QuantityClaim("t.walk", "test", "", quantity=q, inputs=inputs, comparison=cmp).check()
            assert r.verdict is Verdict.CERTIFIED, f"{name}{inputs} = {value} ({how}): {r.verdict} {r.evidence.detail}"
            assert r.evidence.enclosure.is_exact and r.evidence.enclosure.lo == value
        assert time.perf_counter() - start < 5, f"{name}: the search and the two claims took too long"
    assert sorted(missing) == sorted(IRRATIONAL), f"found exact: {found}"
    # the exact context itself, not only the ball path's exact terms, finds most of them
    assert sum(how == "exact context" for how in found.values()) >= 20
    assert time.perf_counter() - t0 < 60
