"""Limits before work, and error messages that quote a bad input briefly (issue 18 §3)."""

import time

import pytest

from dpcert.cli import parse_kv
from dpcert.core.params import REALS_MAX_ITEMS, reals
from dpcert.errors import MAX_QUOTED, InvalidParameter


def test_a_million_item_list_is_refused_on_its_raw_text_before_any_item_is_parsed():
    # the first item is malformed: an error about the count (not about "x") shows nothing was parsed first
    text = "x," + ",".join(["0.1"] * (10**6 - 1))
    p = reals("eps_list", 0)
    start = time.perf_counter()
    with pytest.raises(InvalidParameter, match=f"at most {REALS_MAX_ITEMS} real numbers") as info:
        p.parse(text)
    assert time.perf_counter() - start < 0.5
    assert "1000000 values" in str(info.value)


def test_a_long_sequence_is_refused_by_its_length():
    p = reals("eps_list", 0, max_items=20)
    with pytest.raises(InvalidParameter, match="at most 20 real numbers"):
        p.parse(["bad"] * 21)
    assert len(p.parse(["0.5"] * 20)) == 20


def test_a_list_at_the_cap_still_parses():
    p = reals("eps_list", 0)
    assert len(p.parse(",".join(["1/3"] * REALS_MAX_ITEMS))) == REALS_MAX_ITEMS


def test_invalid_parameter_quotes_at_most_about_80_characters_but_keeps_the_value():
    value = "9" * 10**6
    exc = InvalidParameter("eps", value, "a real number")
    assert exc.value is value  # the attribute is intact
    quoted = str(exc).split("=", 1)[1].split(": expected")[0]
    assert len(quoted) <= MAX_QUOTED
    assert "1000002 characters" in quoted  # repr adds the two quotes


def test_invalid_parameter_of_a_value_whose_repr_fails():
    big = 10**5000  # repr() of it raises ValueError (Python's int-string limit)
    exc = InvalidParameter("k", big, "an integer")
    assert exc.value == big and "<int>" in str(exc)


def test_a_repeated_name_is_refused_not_the_last_taken():
    with pytest.raises(InvalidParameter, match="given twice"):
        parse_kv(["k=1", "eps=0.1", "k=2"])
    with pytest.raises(InvalidParameter, match="given twice"):
        parse_kv(["k=1", " k =1"])  # the same name once stripped
    assert parse_kv(["k=1", "eps=0.1"]) == {"k": "1", "eps": "0.1"}


def test_an_empty_name_is_refused():
    with pytest.raises(InvalidParameter, match="non-empty name"):
        parse_kv(["=1"])


def test_an_endless_iterator_is_read_only_up_to_the_cap():
    import itertools

    with pytest.raises(InvalidParameter, match=f"more than {REALS_MAX_ITEMS} values"):
        reals("eps_list", 0).parse(itertools.repeat("0.1"))  # before: parsed without end
    assert len(reals("eps_list", 0).parse(iter(["0.1", "0.2"]))) == 2
