"""`dpcert eval` of the adaptive bracket: the narrowest certified bracket in a time budget, reported as a bracket."""

import json
import time
from fractions import Fraction

import pytest

from dpcert.br.adaptive import adaptive_bracket
from dpcert.br.nonadaptive import nonadaptive_delta
from dpcert.cli import main
from dpcert.engine import registry
from dpcert.errors import InvalidParameter


def test_eval_returns_the_bracket_within_its_budget_and_says_how_to_narrow_it(capsys):
    # before: "undecided at the maximum precision of 8192 bits" after ~15 s, the valid bracket thrown away
    t0 = time.perf_counter()
    code = main(["eval", "br.adaptive.delta", "k=3", "eps=1", "eps_g=0.2", "--seconds", "1", "--json"])
    took = time.perf_counter() - t0
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bracket"] is True and out["float64"] is None and out["quantity"] == "br.adaptive.delta"
    assert out["resolution"] >= 100 and took < 6
    lo, hi = Fraction(out["enclosure"]["lo"]), Fraction(out["enclosure"]["hi"])
    # a valid bracket: it meets a coarse lattice's bracket, and its lower end is at least the nonadaptive optimum
    # (Theorem 3, certified independently of the lattice)
    coarse = adaptive_bracket(3, 1, "0.2", n=100)
    assert lo <= coarse.hi and coarse.lo <= hi and hi - lo <= coarse.width
    assert lo >= nonadaptive_delta(3, 1, "0.2").lo
    assert out["hint"].startswith("dpcert br adaptive k=3 eps=1 eps_g=0.2 --seconds ")
    # the hinted command exists and runs (with a short budget here)
    argv = out["hint"].split()[1:]
    argv[-1] = "0.3"
    assert main(argv) == 0


def test_eval_text_says_it_is_a_bracket_and_at_what_resolution(capsys):
    assert main(["eval", "br.adaptive.delta", "k=2", "eps=1", "eps_g=0", "--seconds", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "certified bracket at lattice resolution N = " in out and "narrow it further: dpcert br adaptive" in out


def test_a_bracket_in_the_closed_form_region_is_exact_and_needs_no_lattice():
    # Lemma 6.10: |eps_g| >= (k - 1) eps, adaptive = nonadaptive
    br = registry.quantity("br.adaptive.delta").bracket_within(k=3, eps=1, eps_g="2.5", seconds=1)
    assert br.resolution == 0 and br.enclosure.overlaps(nonadaptive_delta(3, 1, "2.5"))


@pytest.mark.parametrize("seconds", ["0", "-1", "inf", "nan", "abc"])
def test_eval_seconds_is_validated(seconds, capsys):
    with pytest.raises(SystemExit) as info:
        main(["eval", "br.adaptive.delta", "k=3", "eps=1", "eps_g=0.2", "--seconds", seconds])
    assert info.value.code == 2 and "--seconds" in capsys.readouterr().err


def test_bracket_within_refuses_a_quantity_that_is_not_a_bracket():
    with pytest.raises(InvalidParameter):
        registry.quantity("rdp.gaussian.eps").bracket_within(lam=2, sigma=1, sensitivity=1)
