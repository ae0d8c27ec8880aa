"""Run the docstring examples of the public modules (they are documentation that must stay true)."""

import doctest
import importlib

import pytest

MODULES = [
    "dpcert",
    "dpcert.arith.exact",
    "dpcert.arith.ball",
    "dpcert.arith.rounding",
    "dpcert.core.quantity",
    "dpcert.engine.verify",
    "dpcert.accounting.events",
    "dpcert.accounting.accountant",
    "dpcert.accounting.eventfile",
    "dpcert.events",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    mod = importlib.import_module(name)
    failures, tried = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 0, f"{name} has no examples"
    assert failures == 0
