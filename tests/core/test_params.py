"""Typed parameters: the choice kind (a name, or the path of an existing file when the parameter allows one)."""

import json

import pytest
from harness import strategy_for
from hypothesis import given

from dpcert.core.params import choice, inputs_to_json, integer, validate
from dpcert.errors import InvalidParameter

ORDER = choice("order", ("max", "forward", "reverse"))


def _read(value):
    """A toy table reader: a path's lines, or the values given."""
    from pathlib import Path

    if isinstance(value, str):
        if not Path(value).is_file():
            raise InvalidParameter("gamma", value, "the path of a γ table")
        return tuple(Path(value).read_text().split())
    return tuple(value)


TABLE = choice("gamma", ("sub", "dsub"), files="a γ table", table=_read)


def test_choice_parses_to_the_name_and_records_it_as_given():
    assert ORDER.parse("reverse") == "reverse"
    parsed = validate([ORDER, integer("n", 1)], {"order": "forward", "n": 5})
    assert json.loads(json.dumps(inputs_to_json(parsed))) == {"order": "forward", "n": 5}


@pytest.mark.parametrize("bad", ["Reverse", "", 1, None, 1.0, "forward "])
def test_choice_rejects_anything_else_naming_the_choices(bad):
    with pytest.raises(InvalidParameter) as e:
        ORDER.parse(bad)
    assert "order" in str(e.value) and "one of max, forward, reverse" in str(e.value)


def test_choice_with_files_parses_a_path_to_its_table_never_to_the_path(tmp_path):
    table = tmp_path / "g.csv"
    table.write_text("1 1\n")
    assert TABLE.parse(str(table)) == ("1", "1")
    assert inputs_to_json(validate([TABLE], {"gamma": str(table)})) == {"gamma": ["1", "1"]}
    assert TABLE.parse(["1", "1"]) == ("1", "1")  # a recorded table
    with pytest.raises(InvalidParameter, match="not a path"):
        validate([TABLE], {"gamma": str(table)}, files=False)  # a certificate's inputs
    with pytest.raises(InvalidParameter, match="the path of a γ table"):
        TABLE.parse(str(tmp_path / "missing.csv"))
    with pytest.raises(InvalidParameter):
        TABLE.parse(str(tmp_path))  # a directory is not a table
    with pytest.raises(InvalidParameter):
        ORDER.parse(str(table))  # no files allowed there


def test_choice_needs_string_choices():
    with pytest.raises(ValueError):
        choice("x", ())
    with pytest.raises(ValueError):
        choice("x", ("a",), files="a table")  # a file kind needs its reader
    with pytest.raises(ValueError):
        choice("x", ("a", ""))


@given(strategy_for(ORDER))
def test_harness_draws_only_the_names(value):
    assert ORDER.parse(value) in ORDER.choices


def test_a_choice_default_is_taken_when_the_input_is_left_out_and_recorded():
    order = choice("order", ("max", "forward", "reverse"), default="max")
    n = integer("n", 1)
    assert validate([n, order], {"n": 3}) == {"n": 3, "order": "max"}
    assert validate([n, order], {"n": 3, "order": "reverse"})["order"] == "reverse"
    assert inputs_to_json(validate([n, order], {"n": 3})) == {"n": 3, "order": "max"}
    assert "(default max)" in order.allowed()
    with pytest.raises(InvalidParameter, match="required"):
        validate([n, order], {"order": "max"})  # numbers have no defaults
    with pytest.raises(ValueError):
        choice("order", ("max", "forward"), default="reverse")
