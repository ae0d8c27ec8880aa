"""Every SML claim reaches its expected verdict; the errata carry their exact counterexamples."""

import pytest

from dpcert.core.claim import Verdict
from dpcert.engine import registry
from dpcert.sml import CLAIMS

IDS = [c.id for c in CLAIMS]


@pytest.mark.parametrize("cid", IDS)
def test_claim_reaches_expected_verdict(cid):
    claim = registry.claims()[cid]
    result = claim.check()
    assert result.error is None, result.error
    assert result.verdict == claim.expected, result.evidence.detail


def test_errata_name_their_counterexamples():
    by_id = {c.id: c.check() for c in CLAIMS if c.expected == Verdict.REFUTED}
    assert "5/8" in by_id["sml.thm_v4.qm_distortion_printed"].evidence.detail
    assert "7/16" in by_id["sml.thm_v4.qm_distortion_printed"].evidence.detail
    adult = by_id["sml.thm_v4.qm_beats_rr.adult"].evidence
    assert adult.counts == {"qm_wins": 0, "qm_loses": 18851}
    assert "QM 5/8, RR 1/2" in by_id["sml.thm_v4.qm_beats_rr.tau4_d3"].evidence.detail
    assert "8/9" in by_id["sml.thm_v4.qm_beats_rr.sml0_d3"].evidence.detail
    assert "exp SML = 2" in by_id["sml.thm_iv1.edge_cost_flow_printed"].evidence.detail


def test_claim_ids_follow_the_convention():
    import re

    assert all(re.fullmatch(r"sml(\.[a-z0-9_]+)+", c.id) for c in CLAIMS)
    assert len(IDS) == len(set(IDS))
