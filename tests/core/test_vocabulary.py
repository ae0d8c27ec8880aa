"""The parameter vocabulary: every registered quantity names its inputs from it, one meaning a name, the docs table
says the same, and the aliases (the field's names, dpcert's former names) are accepted everywhere inputs are read."""

import contextlib
import io
import json
import math
import re
import shutil
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import dpcert
from dpcert.cli import main
from dpcert.core.claim import AtMost, QuantityClaim
from dpcert.core.vocabulary import TERMS, VOCABULARY, aliases_for, markdown
from dpcert.engine import registry
from dpcert.engine.certificate import recheck, write_certificate
from dpcert.errors import InvalidParameter
from dpcert.tables.check import row_claims

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "vocabulary.md"
QUANTITIES = registry.quantities()


def _table_rows() -> dict[str, list[str]]:
    """The docs page's table, read from the file: name -> its cells."""
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"\| `([A-Za-z_0-9]+)` \|(.*)\|", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} has two rows (two meanings) on the vocabulary page"
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def test_the_docs_page_is_the_module_s_table():
    """docs/vocabulary.md is what the module generates for the registered quantities (regenerate it with
    ``python -c "from dpcert.engine import registry; from dpcert.core.vocabulary import markdown;
    print(markdown(registry.quantities()), end='')" > docs/vocabulary.md``)."""
    assert PAGE.read_text(encoding="utf-8") == markdown(QUANTITIES)


def test_every_parameter_of_every_quantity_is_on_the_docs_page_with_one_meaning():
    rows = _table_rows()
    for name, q in QUANTITIES.items():
        for p in q.params:
            assert p.name in rows, f"{name}'s parameter {p.name} is not on docs/vocabulary.md"
            symbol, meaning, domain, aliases, users = rows[p.name]
            assert meaning and domain, p.name
            assert f"`{name}`" in users.split(", "), f"{name} is not listed as a user of {p.name}"
            for a in VOCABULARY[p.name].aliases:
                assert f"`{a.name}` ({a.source};" in aliases, (p.name, a.name)
    # and nothing on the page is unused: a name no quantity has would be a meaning nobody can check
    used = {p.name for q in QUANTITIES.values() for p in q.params}
    assert set(rows) == used == {t.name for t in TERMS}


def test_an_alias_never_names_another_input_of_the_same_quantity():
    for name, q in QUANTITIES.items():
        names = [p.name for p in q.params]
        aliases = aliases_for(name, names)  # raises on an alias naming two inputs
        assert not set(aliases) & set(names), name
    # gamma is DaRRM's noise function; as q's legacy name it is scoped away from every quantity that has a gamma
    for t in TERMS:
        for a in t.aliases:
            if a.name in VOCABULARY:
                assert not any(
                    a.applies_to(n) and a.name in [p.name for p in q.params] for n, q in QUANTITIES.items()
                ), (t.name, a.name)
            assert not a.scope or any(a.applies_to(n) for n in QUANTITIES), f"alias {a.name}'s scope matches nothing"


def test_the_contracted_names_are_the_declared_ones():
    """gaussian.*, sgm.*, dpsgd.* keep their inputs (a contract): the vocabulary adds names, it renames none
    (dpsgd.* added two inputs with defaults, sampling and neighboring, after the old ones)."""
    want = {
        "sgm.rdp": ["q", "sigma", "alpha"],
        "sgm.delta": ["q", "sigma", "eps"],
        "dpsgd.eps": ["q", "sigma", "steps", "delta", "sampling", "neighboring"],
        "dpsgd.sigma": ["q", "steps", "eps", "delta", "sampling", "neighboring"],
        "gaussian.delta": ["eps", "sigma", "sensitivity", "k"],
    }
    for name, params in want.items():
        assert [p.name for p in QUANTITIES[name].params] == params


def test_aliases_resolve_through_enclose():
    with mpmath.workdps(40):  # Mironov Prop. 3 written directly: 1 + log(10^20)/31
        ref = Fraction(str(1 + 20 * mpmath.log(10) / 31))
    slack = ref / 10**30
    for order in ({"lam": 32}, {"alpha": 32}):
        enc = dpcert.enclose("rdp.to_dp.eps", **order, eps_rdp=1, delta="1e-20", rel_tol=1e-32)
        assert enc.lo - slack <= ref <= enc.hi + slack
    # the field's names for DP-SGD's inputs give the value of dpcert's own
    a = dpcert.enclose("sgm.delta", sampling_probability="0.01", noise_multiplier="1.1", eps=1)
    b = dpcert.enclose("sgm.delta", sample_rate="0.01", sigma="1.1", eps=1)
    c = dpcert.enclose("sgm.delta", q="0.01", sigma="1.1", eps=1)
    assert a == b == c
    # shuffle: the legacy T and gamma, and the vocabulary's k and q
    old = dpcert.enclose("shuffle.rdp.poisson", n=1000, eps0=3, lam=10, gamma="0.001")
    new = dpcert.enclose("shuffle.rdp.poisson", n=1000, eps0=3, alpha=10, q="0.001")
    assert old == new
    assert dpcert.enclose("composition.simple.eps", count=3, eps="0.1").lo == Fraction(3, 10)


def test_a_name_and_its_alias_together_are_refused():
    with pytest.raises(InvalidParameter) as info:
        dpcert.enclose("sgm.delta", q="0.01", sigma="1.1", noise_multiplier="1.1", eps=1)
    assert info.value.name == "noise_multiplier" and "sigma" in str(info.value)
    with pytest.raises(InvalidParameter) as info:
        dpcert.enclose("sgm.delta", q="0.01", sample_rate="0.01", sigma="1.1", eps=1)
    assert info.value.name == "sample_rate"


def test_an_alias_is_accepted_only_where_it_means_the_same_thing():
    # gaussian.*: sigma is the standard deviation at the sensitivity given, not a noise multiplier
    with pytest.raises(InvalidParameter) as info:
        dpcert.enclose("gaussian.delta", eps=1, noise_multiplier=1)
    assert info.value.name == "noise_multiplier"
    # gamma is q only in shuffle.rdp.poisson; T is k only in the shuffle quantities
    with pytest.raises(InvalidParameter):
        dpcert.enclose("sgm.delta", gamma="0.01", sigma="1.1", eps=1)
    with pytest.raises(InvalidParameter):
        dpcert.enclose("composition.simple.eps", T=3, eps="0.1")


def test_a_bad_value_is_named_as_it_was_given():
    with pytest.raises(InvalidParameter) as info:
        dpcert.enclose("rdp.to_dp.eps", lam=1, eps_rdp=1, delta="0.1")
    assert info.value.name == "lam"


def _cli(*argv: str) -> tuple[int, str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(list(argv))
    return code, buf.getvalue()


def test_aliases_resolve_through_dpcert_eval():
    code, out = _cli("eval", "sgm.delta", "q=0.01", "noise_multiplier=1.1", "eps=1", "--json")
    assert code == 0
    legacy = json.loads(out)
    code, out = _cli("eval", "sgm.delta", "q=0.01", "sigma=1.1", "eps=1", "--json")
    assert code == 0
    assert legacy == json.loads(out)  # same value, and the JSON names the input sigma (the contract's key)
    assert list(legacy["inputs"]) == ["q", "sigma", "eps"]
    code, out = _cli("eval", "shuffle.dp.eps", "n=1000000", "eps0=0.5", "T=1000", "delta=1e-6", "--json")
    assert code == 0 and "k" in json.loads(out)["inputs"]
    code, out = _cli("eval", "sgm.delta", "q=0.01", "sigma=1.1", "noise_multiplier=1.1", "eps=1")
    assert code == 2 and "only one of sigma and noise_multiplier" in out


def test_committed_certificate_with_legacy_names_rechecks():
    """shuffle.fig5's certificate records lam and gamma (shuffle.rdp.poisson's inputs before the vocabulary)."""
    path = ROOT / "verify" / "certificates" / "shuffle.fig5.poisson_reference_n1000_eps3.json"
    assert set(json.loads(path.read_text())["claim"]["inputs"]) == {"n", "eps0", "lam", "gamma"}
    report = recheck(path)
    assert report.ok, report.detail


def test_a_new_certificate_records_inputs_as_given_and_rechecks(tmp_path):
    """A claim made with the legacy name records that name (a record states what was claimed); either re-checks."""
    q = registry.quantity("rdp.to_dp.eps_cks")
    # CKS Prop. 12 at alpha = 8, rho = 3, delta = 1e-5, written directly: 4.2140...
    cks = 3 + math.log1p(-1 / 8) - (math.log(1e-5) + math.log(8)) / 7
    assert 4.21 < cks < 4.22
    for given in ("lam", "alpha"):
        claim = QuantityClaim(
            f"user.cks_{given}",
            "a user's claim",
            "",
            quantity=q,
            inputs={given: 8, "eps_rdp": 3, "delta": "1e-5"},
            comparison=AtMost.of("4.22"),
        )
        result = claim.check()
        assert abs(float(result.evidence.enclosure.lo) - cks) < 1e-12
        path = write_certificate(result, tmp_path)
        cert = json.loads(path.read_text())
        assert list(cert["claim"]["inputs"]) == [given, "eps_rdp", "delta"]
        report = recheck(path)
        assert report.ok and report.now == "CERTIFIED", report.detail


def test_a_committed_table_with_legacy_names_reads(tmp_path):
    """DaRRM's Table 4 table names the order lam; its rows are read without a problem."""
    src = ROOT / "verify" / "tables" / "examples" / "darrm_table4_gnmax.toml"
    assert re.search(r"^lam = ", src.read_text(), re.MULTILINE)
    _, claims = row_claims(src)
    assert claims and all(rc.claim is not None and not rc.problem for rc in claims), [rc.problem for rc in claims]
    table = tmp_path / "t.toml"
    shutil.copy(src, table)
    table.write_text(re.sub(r"^lam = ", "alpha = ", src.read_text(), flags=re.MULTILINE))
    _, renamed = row_claims(table)
    assert [rc.claim.spec_json()["inputs"].keys() - {"lam", "alpha"} for rc in renamed] == [
        rc.claim.spec_json()["inputs"].keys() - {"lam", "alpha"} for rc in claims
    ]
    assert any("alpha" in rc.claim.inputs for rc in renamed) and any("lam" in rc.claim.inputs for rc in claims)


def test_aliases_resolve_through_dpcert_dpsgd():
    args = ["q=0.01", "steps=100", "delta=1e-5", "--method", "rdp", "--json"]
    code, out = _cli("dpsgd", "eps", "noise_multiplier=1.1", *args)
    assert code == 0
    by_alias = json.loads(out)
    code, out = _cli("dpsgd", "eps", "sigma=1.1", *args)
    assert code == 0 and json.loads(out) == by_alias
    assert set(by_alias["inputs"]) >= {"q", "sigma", "steps", "delta"}  # the contract's keys
