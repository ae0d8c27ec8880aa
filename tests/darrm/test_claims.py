"""DaRRM's printed tables: every bundled claim gets its expected verdict, and the numbers behind them agree
with an independent recomputation (mpmath) of the formulas as printed in the paper."""

from fractions import Fraction

import mpmath
import pytest

from dpcert.core.claim import Verdict
from dpcert.darrm.claims import CLAIMS, PRIVACY_TABLES, TABLE3, TEACHER

mpmath.mp.dps = 40


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_has_its_expected_verdict(claim):
    result = claim.check()
    assert result.verdict in (Verdict.CERTIFIED, Verdict.REFUTED), result.error
    assert result.ok, result.evidence.detail
    enc = result.evidence.enclosure
    assert enc is not None and enc.rel_width() < 1e-12


def kov34(k, eps, dp):
    e, d = mpmath.mpf(eps), mpmath.mpf(dp)
    drift = (mpmath.exp(e) - 1) * e * k / (mpmath.exp(e) + 1)
    return min(
        k * e,
        drift + e * mpmath.sqrt(2 * k * mpmath.log(mpmath.e + mpmath.sqrt(k) * e / d)),
        drift + e * mpmath.sqrt(2 * k * mpmath.log(1 / d)),
    )


def test_privacy_tables_independently():
    n = 0
    for _table, (m, rows) in PRIVACY_TABLES.items():
        for ds, ((eq, dq), totals) in rows.items():
            assert Fraction(eq) == m * Fraction(TEACHER[ds][0])  # per-query = m teachers (basic composition)
            for q, (et, dt) in totals.items():
                assert f"{float(kov34(q, eq, '0.0001')):.3f}" == et
                assert f"{1 - (1 - float(dq)) ** q * (1 - 1e-4):.3f}" == dt
                n += 1
    assert n == 24


def test_table3_more_digits_than_printed():
    # values from a 40-digit recomputation , one digit beyond the print
    ms = {10: "6.452149", 13: "7.574231", 15: "8.270836", 20: "9.882296"}
    for big_m, printed in TABLE3.items():
        m = kov34(big_m, "0.1", "0.1") / mpmath.mpf("0.1")
        assert f"{float(m):.6f}" == ms[big_m]
        assert f"{float(m):.4f}" == printed[0]
    assert f"{float(kov34(35, '0.1', '0.1') / mpmath.mpf('0.1')):.6f}" == "14.032780"
