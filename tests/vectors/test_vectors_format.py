"""The bundled golden vectors: their schema, their reader, their coverage, and their values against independent
computations (mpmath formulas, exact arithmetic, identities between quantities)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import jsonschema
import mpmath
import pytest

from dpcert.engine import registry
from dpcert.errors import InvalidParameter
from dpcert.vectors import CASES, NOT_COVERED, bundled_path, load, loads, schema_path

BUNDLE = bundled_path()


@pytest.fixture(scope="module")
def doc():
    return json.loads(BUNDLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def by_id():
    return {v.id: v for v in load()}


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_bundle_validates_against_its_schema(doc, validator):
    errors = list(validator.iter_errors(doc))
    assert not errors, errors[0].message
    assert len(doc["vectors"]) == len(CASES)


def test_the_schema_is_shipped_in_the_package_and_beside_the_vectors():
    assert (BUNDLE.parent / "schema.json").read_bytes() == schema_path().read_bytes()
    assert json.loads(schema_path().read_text())["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_bundle_is_small():
    size = BUNDLE.stat().st_size + sum(p.stat().st_size for p in (BUNDLE.parent / "certificates").iterdir())
    assert size < 1_000_000


def test_the_bundle_is_made_from_the_case_list(by_id):
    """Each case of cases.py is in the bundle with its inputs and why, and nothing else is (re-export after an
    edit of the list)."""
    assert set(by_id) == {c.id for c in CASES}
    for c in CASES:
        v = by_id[c.id]
        assert (v.quantity, dict(v.inputs), v.why, v.topic) == (c.quantity, c.inputs, c.why, c.topic)


def test_every_registered_quantity_has_a_vector_or_a_reason():
    covered = {c.quantity for c in CASES}
    assert set(registry.quantities()) - covered == set(NOT_COVERED)
    assert not covered & set(NOT_COVERED)


def _num(v, name):
    return Fraction(v.inputs[name])


def test_the_edge_cases_are_what_their_names_say(by_id):
    """A case named for an edge really sits on it (computed from its inputs, not from its label)."""
    edges = {"k1": 0, "huge_k": 0, "keps_over_709": 0, "tiny_delta": 0, "order_near_1": 0, "eps_g_near": 0}
    for v in by_id.values():
        name = v.id.rsplit(".", 1)[1]
        if name == "k1":
            k = v.inputs.get("k") or v.inputs.get("K") or str(len(v.inputs["eps_list"].split(",")))
            assert k == "1", v.id
        elif name == "huge_k":
            assert int(v.inputs["k"]) >= 10**5, v.id
        elif name == "keps_over_709":
            assert int(v.inputs["k"]) * _num(v, "eps") > 709, v.id
        elif name == "tiny_delta":
            deltas = [_num(v, n) for n in ("delta", "delta_prime") if n in v.inputs]
            assert (deltas and min(deltas) < Fraction(1, 10**15)) or v.interval[1] < Fraction(1, 10**15), v.id
        elif name == "order_near_1":
            order = _num(v, next(n for n in ("lam", "alpha") if n in v.inputs))
            assert 1 < order <= Fraction(1001, 1000), v.id
        elif name.startswith("eps_g_near"):
            keps = int(v.inputs["k"]) * _num(v, "eps")
            assert keps - abs(_num(v, "eps_g")) <= Fraction(1, 100), v.id
            name = "eps_g_near"
        else:
            continue
        edges[name] += 1
    assert all(edges.values()), edges
    signs = {v.inputs["eps_g"][0] == "-" for v in by_id.values() if "eps_g_near" in v.id}
    assert signs == {True, False}  # both +k eps and -k eps


def _contains(v, x):
    lo, hi = v.interval
    return lo <= x <= hi


def test_values_against_independent_formulas(by_id):
    mpmath.mp.dps = 50
    e = mpmath.e
    # one eps-DP randomized response: delta(eps_g) = (e^eps - e^eps_g) / (1 + e^eps)
    rr = (e - mpmath.exp(mpmath.mpf(1) / 2)) / (1 + e)
    for vid in ("composition.kov.delta.k1", "composition.mv.delta.k1"):
        lo, hi = (mpmath.mpf(s) for s in (by_id[vid].lo, by_id[vid].hi))
        assert lo <= rr <= hi and hi - lo < mpmath.mpf("1e-19"), vid
    # the Gaussian mechanism's profile (Balle-Wang): Phi(1/2 - 1) - e Phi(-1/2 - 1) at sigma = 1, eps = 1
    gauss = mpmath.ncdf(-0.5) - e * mpmath.ncdf(-1.5)
    for vid in ("gaussian.delta.sigma1", "gaussian.delta.huge_k", "sgm.delta.q1"):
        lo, hi = (mpmath.mpf(s) for s in (by_id[vid].lo, by_id[vid].hi))
        assert lo <= gauss <= hi, vid
    # exact rationals: the double nearest 0.1, times 3; lam / (2 sigma^2)
    assert by_id["composition.simple.eps.double_eps"].interval[0] <= 3 * Fraction(0.1)
    assert 3 * Fraction(0.1) <= by_id["composition.simple.eps.double_eps"].interval[1]
    assert by_id["rdp.gaussian.eps.order_near_1"].interval == (Fraction("0.5000005"),) * 2
    assert by_id["composition.kov.delta.eps_g_at_keps"].interval == (0, 0)
    assert by_id["br.adaptive.delta.eps_g_at_keps"].interval == (0, 0)
    # one mechanism: adaptive and nonadaptive composition agree
    a, n = by_id["br.adaptive.delta.k1"], by_id["br.nonadaptive.delta.k1"]
    assert (a.lo, a.hi, a.inputs) == (n.lo, n.hi, n.inputs)


def test_the_reader_refuses_what_the_schema_refuses(doc, validator):
    """Each mutation breaks the schema, and load refuses it with one InvalidParameter naming where."""

    def mutated(fn):
        d = copy.deepcopy(doc)
        fn(d)
        return d

    v0 = lambda d: d["vectors"][0]  # noqa: E731
    mutations = {
        "missing lo": lambda d: v0(d).pop("lo"),
        "unknown key": lambda d: v0(d).update(extra=1),
        "lo not a decimal": lambda d: v0(d).update(lo="0x1p-3"),
        "hi a number": lambda d: v0(d).update(hi=0.1),
        "input not a string": lambda d: v0(d)["inputs"].update(k=1),
        "bad sha256": lambda d: v0(d)["certificate"].update(sha256="abc"),
        "certificate outside": lambda d: v0(d)["certificate"].update(file="../x.json"),
        "exact a string": lambda d: v0(d).update(exact="true"),
        "wrong format": lambda d: d.update(format="other"),
        "version 2": lambda d: d.update(version=2),
        "top unknown key": lambda d: d.update(extra=1),
        "id not dotted": lambda d: v0(d).update(id="nodot"),
    }
    for name, fn in mutations.items():
        d = mutated(fn)
        assert not validator.is_valid(d), name
        with pytest.raises(InvalidParameter, match="vectors"):
            loads(d, "x.json")


def test_the_reader_refuses_lo_above_hi_and_repeated_ids(doc):
    d = copy.deepcopy(doc)
    d["vectors"][0]["lo"], d["vectors"][0]["hi"] = "2", "1"
    with pytest.raises(InvalidParameter, match="lo <= hi"):
        loads(d)
    d = copy.deepcopy(doc)
    d["vectors"].append(d["vectors"][0])
    with pytest.raises(InvalidParameter, match="unique id"):
        loads(d)


def test_the_certificates_directory_holds_exactly_the_vectors_certificates(by_id):
    """A renamed or removed case leaves no stale certificate behind (export writes, it never deletes)."""
    files = {p.name for p in (BUNDLE.parent / "certificates").iterdir()}
    assert files == {v.certificate_file.removeprefix("certificates/") for v in by_id.values()}
