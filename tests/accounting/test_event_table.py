"""The docs' event table says what the accountant does: for every dp-accounting event and both neighbouring relations,
the method the table names (PLD, certified RDP, refused) is the one the accountant's dispatch takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpcert.accounting import events as ev
from dpcert.accounting import rdp
from dpcert.accounting.accountant import leaf_directions

PAGE = Path(__file__).resolve().parents[2] / "docs" / "topics" / "accounting.md"

G = ev.GaussianDpEvent(2)
#: one representative of each event class in the table (the inner event of a sampled one: a Gaussian)
EXAMPLES = {
    "GaussianDpEvent": G,
    "LaplaceDpEvent": ev.LaplaceDpEvent(2),
    "PoissonSampledDpEvent": ev.PoissonSampledDpEvent("0.01", G),
    "RandomizedResponseDpEvent": ev.RandomizedResponseDpEvent("0.5", 3),
    "DiscreteLaplaceDpEvent": ev.DiscreteLaplaceDpEvent("0.5", 1),
    "DiscreteGaussianDpEvent": ev.DiscreteGaussianDpEvent(2),
    "MixtureOfGaussiansDpEvent": ev.MixtureOfGaussiansDpEvent(2, [0, 1], ["0.5", "0.5"]),
    "ZCDpEvent": ev.ZCDpEvent("0.1"),
    "SampledWithoutReplacementDpEvent": ev.SampledWithoutReplacementDpEvent(1000, 10, G),
    "SampledWithReplacementDpEvent": ev.SampledWithReplacementDpEvent(1000, 10, G),
    "SingleEpochTreeAggregationDpEvent": ev.SingleEpochTreeAggregationDpEvent(2, [8]),
    "RepeatAndSelectDpEvent": ev.RepeatAndSelectDpEvent(G, 2, 1),
    "TruncatedSubsampledGaussianDpEvent": ev.TruncatedSubsampledGaussianDpEvent(1000, "0.01", 20, 2),
}


def _rows() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(\w+DpEvent)\(.*?\)` \| (.*?) \| (.*?) \|$", line)
        if m and m.group(1) in EXAMPLES:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def _method(cell: str) -> str:
    for word in ("PLD", "certified RDP", "refused"):
        if cell.startswith(word):
            return word
    return cell.split(":")[0]


def test_the_table_has_a_row_for_every_event_class():
    assert sorted(_rows()) == sorted(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_table_names_the_method_the_accountant_takes(name):
    add_remove, replace_one = _rows()[name]
    for neighboring, cell in (("add_remove", add_remove), ("replace_one", replace_one)):
        said = _method(cell)
        said = _method(add_remove) if said.startswith("as under") else said
        event = EXAMPLES[name]
        if leaf_directions(event, neighboring) is not None:
            done = "PLD"
        elif rdp.rdp_curve(event, neighboring) is not None:
            done = "certified RDP"
        else:
            done = "refused"
        assert said == done, (name, neighboring, cell)
