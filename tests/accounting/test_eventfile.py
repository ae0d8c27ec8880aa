"""Event files: every event round-trips; the JSON Schema and the reader accept and refuse the same files; ``dpcert
account`` prints the certified answer, and a bad file one line with exit 2; ``accounting.eps`` takes ``events=FILE``."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from test_events import one_of_each

from dpcert.accounting import events as ev
from dpcert.accounting.eventfile import dumps_events, loads_events, read_events, schema_path, write_events
from dpcert.cli import main
from dpcert.errors import InvalidParameter

jsonschema = pytest.importorskip("jsonschema")


def _validator():
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


SCHEMA = _validator()


@pytest.mark.parametrize("event", one_of_each(), ids=lambda e: type(e).__name__)
def test_every_event_round_trips_and_validates(event, tmp_path):
    text = dumps_events(event)
    assert loads_events(text) == event
    assert not list(SCHEMA.iter_errors(json.loads(text)))
    path = write_events(event, tmp_path / "e.json")
    assert read_events(path) == event


def test_json_numbers_are_read_at_their_decimal_text():
    e = loads_events('{"type": "PoissonSampledDpEvent", "sampling_probability": 0.1, '
                     '"event": {"type": "GaussianDpEvent", "noise_multiplier": 1e-1}}')  # fmt: skip
    assert e == ev.PoissonSampledDpEvent(F(1, 10), ev.GaussianDpEvent(F(1, 10)))
    assert loads_events('{"type": "GaussianDpEvent", "noise_multiplier": "1/3"}').noise_multiplier == F(1, 3)


def test_a_list_is_a_composition():
    e = loads_events('[{"type": "GaussianDpEvent", "noise_multiplier": 1}, {"type": "NoOpDpEvent"}]')
    assert e == ev.ComposedDpEvent([ev.GaussianDpEvent(1), ev.NoOpDpEvent()])


BAD = [
    ('{"type": "GaussianDpEvent"}', "noise_multiplier"),  # a missing field
    ('{"type": "GaussianDpEvent", "noise_multiplier": 1, "sigma": 2}', "sigma"),  # an unknown field
    ('{"type": "Gaussian", "noise_multiplier": 1}', "type"),  # an unknown type
    ('{"noise_multiplier": 1}', "type"),  # no type
    ('{"type": "GaussianDpEvent", "noise_multiplier": true}', "noise_multiplier"),  # not a number
    ('{"type": "GaussianDpEvent", "noise_multiplier": [1]}', "noise_multiplier"),  # a list for a number
    ('{"type": "GaussianDpEvent", "noise_multiplier": "one"}', "noise_multiplier"),  # text that is no number
    ('{"type": "ComposedDpEvent", "events": {"type": "NoOpDpEvent"}}', "events"),  # not a list
    ('{"type": "SelfComposedDpEvent", "event": {"type": "NoOpDpEvent"}, "count": "1.5"}', "count"),  # not whole
    (
        '{"type": "MixtureOfGaussiansDpEvent", "standard_deviation": 1, "sensitivities": 1, "sampling_probs": [1]}',
        "sensitivities",
    ),  # fmt: skip
    ("3", "event"),
]


@pytest.mark.parametrize("text, field", BAD)
def test_the_reader_and_the_schema_refuse_the_same_bad_shapes(text, field):
    with pytest.raises(InvalidParameter) as info:
        loads_events(text)
    assert field in info.value.name
    assert list(SCHEMA.iter_errors(json.loads(text)))


@pytest.mark.parametrize(
    "text, field",
    [
        ('{"type": "GaussianDpEvent", "noise_multiplier": -1}', "noise_multiplier"),
        (
            '[{"type": "NoOpDpEvent"}, {"type": "PoissonSampledDpEvent", "sampling_probability": 2, '
            '"event": {"type": "NoOpDpEvent"}}]',
            "[1].sampling_probability",
        ),  # fmt: skip
    ],
)
def test_a_domain_error_names_the_field_by_its_path(text, field):
    with pytest.raises(InvalidParameter) as info:
        loads_events(text)
    assert info.value.name == field


RUN = [
    {"type": "SelfComposedDpEvent", "count": 20,
     "event": {"type": "PoissonSampledDpEvent", "sampling_probability": "0.1",
               "event": {"type": "GaussianDpEvent", "noise_multiplier": 1.1}}},
    {"type": "GaussianDpEvent", "noise_multiplier": 2},
]  # fmt: skip


def test_account_command_prints_the_certified_eps(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(RUN), encoding="utf-8")
    assert main(["account", str(path), "--delta", "1e-5", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["neighboring"] == "add_remove" and out["method"] == "pld" and out["quantity"] == "epsilon"
    lo, hi = F(out["enclosure"]["lo"]), F(out["enclosure"]["hi"])
    assert lo <= hi <= F(float(out["safe"])) and F(out["delta"]) == F(1, 10**5)
    # replace-one is the weaker relation: its certified delta at eps = 1 is at least add/remove's
    assert main(["account", str(path), "--eps", "1", "--json", "--quiet"]) == 0
    add = json.loads(capsys.readouterr().out)
    assert main(["account", str(path), "--eps", "1", "--neighboring", "replace_one", "--json", "--quiet"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["neighboring"] == "replace_one"
    assert F(rep["enclosure"]["hi"]) >= F(add["enclosure"]["lo"])


def test_account_command_for_delta_in_text(tmp_path, capsys):
    path = tmp_path / "g.json"
    path.write_text('{"type": "GaussianDpEvent", "noise_multiplier": 2}', encoding="utf-8")
    assert main(["account", str(path), "--eps", "1", "--neighboring", "replace_one"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("delta <= 0.1269") and "replace_one neighbours" in out


@pytest.mark.parametrize(
    "content",
    ["{", '{"type": "Nope"}', '{"type": "GaussianDpEvent", "noise_multiplier": -2}', "", "[1, 2]"],
)
def test_a_bad_file_is_one_line_and_exit_2(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert main(["account", str(path), "--delta", "1e-5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and captured.err.startswith("dpcert: error:")


def test_a_missing_file_and_a_missing_target_are_exit_2(tmp_path, capsys):
    assert main(["account", str(tmp_path / "none.json"), "--delta", "1e-5"]) == 2
    with pytest.raises(SystemExit) as info:
        main(["account", str(tmp_path / "none.json")])
    assert info.value.code == 2


def test_the_quantity_takes_an_event_file_and_records_the_events(tmp_path):
    import dpcert

    path = tmp_path / "g.json"
    path.write_text('{"type": "GaussianDpEvent", "noise_multiplier": 2}', encoding="utf-8")
    enc = dpcert.enclose("accounting.eps", events=str(path), delta="1e-5", neighboring="replace_one", rel_tol=1e-3)
    assert enc.lo <= F("4.3771781") <= enc.hi  # the μ = 1 Gaussian (test_accountant's mpmath value)
    q = dpcert.quantity("accounting.eps")
    parsed = q.parse({"events": str(path), "delta": "1e-5"})
    assert parsed["events"] == ('{"type":"GaussianDpEvent","noise_multiplier":"2"}',)
    assert parsed["neighboring"] == "add_remove"
