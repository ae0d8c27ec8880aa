"""γ_const at ε = 0: p_const = 2δ/0 (Lemma A.1's condition p·0 <= 2δ holds for every p), so γ ≡ 1, not a crash."""

import json

from dpcert import cli
from dpcert.engine import registry


def test_darrm_certify_gamma_const_at_eps_zero(capsys):
    argv = ["darrm", "certify", "gamma=const", "K=11", "m=3", "eps=0", "Delta=0", "delta=0.1", "--json"]
    assert cli.main(argv) == 0  # was an internal error (ZeroDivisionError)
    assert json.loads(capsys.readouterr().out)["verdict"] == "CERTIFIED"


def test_gamma_const_at_eps_zero_is_gamma_one():
    q = registry.quantity("darrm.privacy.margin")
    inputs = {"K": 11, "m": 3, "eps": 0, "Delta": 0, "delta": "0.1"}
    const = q.enclose({**inputs, "gamma": "const"}, rel_tol=1e-12)
    one = q.enclose({**inputs, "gamma": "one"}, rel_tol=1e-12)
    assert const.lo <= one.hi and one.lo <= const.hi
    # and continuous in ε: at ε = 1e-30 p_const is finite and above 1, so γ ≡ 1 there too
    near = q.enclose({**inputs, "eps": "1e-30", "gamma": "const"}, rel_tol=1e-12)
    assert abs(float(near.mid() - const.mid())) < 1e-12
