"""Manifests: the bundled ones load and record expectations; malformed ones fail with one clear error."""

import pytest

from dpcert.core.claim import Verdict
from dpcert.engine.manifest import bundled_dir, default_entries, load_manifest
from dpcert.engine.verify import verify
from dpcert.errors import InvalidParameter, ManifestError, UnknownClaim


def test_bundled_manifest_expects_the_table4_lambda_errata_refuted():
    entries = {e.claim.id: e for e in default_entries()}
    assert entries["darrm.table4.mnist.lambda"].expected is Verdict.REFUTED
    assert entries["darrm.table4.fmnist.sigma_at_printed_lambda"].expected is Verdict.REFUTED
    assert entries["darrm.table2.mnist.q20.eps"].expected is Verdict.CERTIFIED


def write(tmp_path, text, name="m.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_user_quantity_claim(tmp_path):
    p = write(
        tmp_path,
        """
format = 1
[[claims]]
id = "mine.t1.r1"
reference = "my table"
quantity = "composition.general.eps"
inputs = { k = 20, eps = "0.2676", delta_prime = "0.0001" }
at_most = "5.36"
[[claims]]
id = "mine.t1.r2"
reference = "my table"
quantity = "composition.general.eps"
inputs = { k = 20, eps = "0.2676", delta_prime = "0.0001" }
at_most = "5.3"
""",
    )
    report = verify([p], progress=None)
    assert [r.verdict for r in report.results] == [Verdict.CERTIFIED, Verdict.REFUTED]
    assert report.exit_code == 1


def test_override_inputs_of_a_registered_claim(tmp_path):
    p = write(
        tmp_path,
        """
[[claims]]
select = "darrm.table2.mnist.q20.eps"
id = "mine.q20.other_delta_prime"
inputs = { delta_prime = "0.5" }
""",
    )
    (entry,) = load_manifest(p)
    assert entry.claim.id == "mine.q20.other_delta_prime"
    assert entry.claim.inputs["delta_prime"] == "0.5"


@pytest.mark.parametrize(
    "text,exc",
    [
        ("this is = not toml [", ManifestError),
        ("[[claims]]\nselect = 3\n", ManifestError),
        ('[[claims]]\nselect = "nope.*"\n', UnknownClaim),
        ("[[claims]]\nbogus = 1\n", ManifestError),
        ('[[claims]]\nselect = "darrm.table2.*"\nexpect = "MAYBE"\n', ManifestError),
        ("format = 2\n", ManifestError),
        (
            '[[claims]]\nid = "a.b.c"\nreference = "r"\nquantity = "composition.general.eps"\n'
            'inputs = { k = 20, eps = "-1", delta_prime = "0.1" }\nat_most = "1"\n',
            InvalidParameter,
        ),
        (
            '[[claims]]\nid = "a.b.c"\nreference = "r"\nquantity = "no.such.quantity"\ninputs = {}\nat_most = "1"\n',
            InvalidParameter,
        ),
        ('include = ["m.toml"]\n', ManifestError),  # includes itself
    ],
)
def test_malformed_manifests(tmp_path, text, exc):
    p = write(tmp_path, text)
    with pytest.raises(exc):
        load_manifest(p)


def test_selector_matching_nothing_in_a_manifest_is_an_error():
    with pytest.raises(UnknownClaim):
        verify([bundled_dir() / "darrm.toml"], ["composition.*"])
    report = verify([bundled_dir() / "darrm.toml"], ["darrm.table4.mnist.*"])
    assert len(report.results) == 4 and report.exit_code == 0


def test_manifest_claims_by_truncation_and_significant_figures(tmp_path):
    m = tmp_path / "m.toml"
    m.write_text(
        '[[claims]]\nid = "mine.t.trunc"\nreference = "r"\nquantity = "composition.general.eps"\n'
        'inputs = { k = 20, eps = "0.2676", delta_prime = "0.0001" }\ntruncates_to = "5.35"\n'
        '[[claims]]\nid = "mine.t.sig"\nreference = "r"\nquantity = "composition.general.eps"\n'
        'inputs = { k = 20, eps = "0.2676", delta_prime = "0.0001" }\nrounds_to = "5.4"\nfigures = 2\n'
        '[[claims]]\nid = "mine.t.sci"\nreference = "r"\nquantity = "composition.general.eps"\n'
        'inputs = { k = 20, eps = "0.2676", delta_prime = "0.0001" }\nrounds_to = "5.36e0"\nexpect = "REFUTED"\n'
    )
    report = verify([m])
    assert [r.verdict.value for r in report.results] == ["CERTIFIED", "CERTIFIED", "REFUTED"]
    assert report.exit_code == 0


def test_figures_without_rounds_to_is_a_manifest_error(tmp_path):
    m = tmp_path / "m.toml"
    m.write_text(
        '[[claims]]\nid = "mine.t.x"\nreference = "r"\nquantity = "composition.simple.eps"\n'
        'inputs = { k = 1, eps = "1" }\nat_most = "1"\nfigures = 2\n'
    )
    with pytest.raises(ManifestError, match="figures"):
        load_manifest(m)


def test_an_open_question_expected_undecided_keeps_verify_green(tmp_path):
    # 5.3525 = 5.352 + half a unit: exactly on the rounding boundary, so "rounds to 5.352" stays undecided
    m = tmp_path / "m.toml"
    body = (
        '[[claims]]\nid = "mine.t.{name}"\nreference = "r"\nquantity = "composition.simple.eps"\n'
        'inputs = {{ k = 1, eps = "5.3525" }}\nrounds_to = "5.352"\nexpect = "{expect}"\n'
    )
    m.write_text(body.format(name="open", expect="UNDECIDED"))
    report = verify([m], max_prec=128)
    assert [r.verdict.value for r in report.results] == ["UNDECIDED"] and report.exit_code == 0
    m.write_text(body.format(name="closed", expect="CERTIFIED"))
    assert verify([m], max_prec=128).exit_code == 2  # undecided where a decision was expected
    m.write_text(body.format(name="bad", expect="ERROR"))
    with pytest.raises(ManifestError):
        load_manifest(m)
