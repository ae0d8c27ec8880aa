"""The bundled optimal-composition claims: the exact identities and the DP-OptComp column of an independent
reproduction.

Each claim's verdict comes from its own independent check (exact rational-function identities; certified
enclosures against printed digits); here they must all come out CERTIFIED, as expected.
"""

from dpcert.composition import identities, kov, mv
from dpcert.core.claim import Verdict

CLAIMS = [*identities.CLAIMS, *kov.CLAIMS, *mv.CLAIMS]
NOTES = [("0.1", 10), ("0.1", 100), ("0.1", 1000), ("1", 50), ("1", 100), ("0.01", 1000)]


def test_claims_all_hold():
    ids = {c.id for c in CLAIMS}
    for eps, k in NOTES:
        assert f"composition.kov.eps.brnotes_eps{eps.replace('.', 'p')}_k{k}" in ids
    assert "composition.kov.identity_kov_parametrisation" in ids
    assert "composition.mv.homogeneous_reduction" in ids
    for claim in CLAIMS:
        result = claim.check()
        assert result.verdict == Verdict.CERTIFIED == claim.expected, (claim.id, result.evidence.detail)
