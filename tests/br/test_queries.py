"""Query counts within a budget (the introduction's ratios), against an independent table."""

import pytest

from dpcert.br.queries import query_count


@pytest.mark.parametrize(
    ("eps", "budget", "expected"),
    [
        ("0.1", "5", {"br": 417, "dp": 108, "dr19": 220, "mgf": 310}),
        ("1", "40", {"br": 122, "dp": 40, "dr19": 44, "mgf": 109}),
    ],
)
def test_counts_match_the_notes(eps, budget, expected):
    for curve, k in expected.items():
        lo, hi = query_count(curve, eps, budget, "1e-6", 8192)
        assert lo == k
        assert hi == (expected["br"] if curve == "mgf" else k)
