"""``events=`` given inline as JSON text on the command line: evaluated as an event file's content would be, recorded
as the same canonical text, and a bad text refused in one line (exit 2) naming the field and what is allowed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest

from dpcert.cli import main

GAUSS = '{"type": "GaussianDpEvent", "noise_multiplier": 2}'


def _gaussian_eps(sigma: int, delta: str) -> mpmath.mpf:
    """ε(δ) of one Gaussian release at sensitivity 1 (Balle–Wang's exact δ(ε), μ = 1/σ), solved in mpmath."""
    mpmath.mp.dps = 40
    mu = mpmath.mpf(1) / sigma

    def d(e):
        return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2) - mpmath.mpf(delta)

    return mpmath.findroot(d, (mpmath.mpf(1), mpmath.mpf(3)), solver="bisect")


def _eval_json(capsys, *args: str) -> dict:
    assert main(["eval", "accounting.eps", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("text", [GAUSS, f"[{GAUSS}]", f'  [{GAUSS}, {{"type": "NoOpDpEvent"}}]'])
def test_inline_events_are_evaluated_and_contain_the_closed_form(capsys, text):
    out = _eval_json(capsys, f"events={text}", "delta=1e-5")
    lo, hi = F(out["enclosure"]["lo"]), F(out["enclosure"]["hi"])
    truth = _gaussian_eps(2, "1e-5")
    assert lo <= F(mpmath.nstr(truth, 30)) <= hi and hi - lo < F(1, 10**3)
    assert abs(float(truth) - 1.99309) < 1e-5  # the independent value itself, not only its containment


def test_inline_text_is_recorded_as_the_file_would_be(tmp_path, capsys):
    path = tmp_path / "g.json"
    path.write_text(GAUSS, encoding="utf-8")
    from_file = _eval_json(capsys, f"events={path}", "delta=1e-5", "neighboring=replace_one")
    inline = _eval_json(capsys, f"events={GAUSS}", "delta=1e-5", "neighboring=replace_one")
    assert inline["inputs"] == from_file["inputs"]
    assert inline["inputs"]["events"] == ['{"type":"GaussianDpEvent","noise_multiplier":"2"}']
    assert inline["enclosure"] == from_file["enclosure"]


BAD = [
    ('[{"type": "GaussianDpEvent", "noise_multiplier": 2}', "invalid events=", "valid JSON"),
    ('[{"type": "Gaussian", "noise_multiplier": 2}]', "invalid events[0].type=", "GaussianDpEvent"),
    ('{"type": "GaussianDpEvent", "noise_multiplier": -2}', "invalid events.noise_multiplier=", ">= 0"),
    ('{"type": "GaussianDpEvent", "sigma": 2}', "invalid events.sigma=", "noise_multiplier"),
    ("[3]", "invalid events[0]=", "an event"),
]


@pytest.mark.parametrize("text, named, allowed", BAD)
def test_a_bad_inline_text_is_one_line_and_exit_2(capsys, text, named, allowed):
    assert main(["eval", "accounting.eps", f"events={text}", "delta=1e-5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"dpcert: error: {named}") and allowed in captured.err


def test_invalid_json_and_a_missing_file_say_what_events_takes(tmp_path, capsys):
    for value in ['{"type": ', str(tmp_path / "none.json")]:
        assert main(["eval", "accounting.eps", f"events={value}", "delta=1e-5"]) == 2
        err = capsys.readouterr().err
        assert "events as JSON text" in err and "event file's path" in err and "example" in err


def test_the_dpcert_command_takes_inline_events():
    """Through the command line in a process of its own, the argument vector as a shell hands it over."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    events = (
        '[{"type":"PoissonSampledDpEvent","sampling_probability":"1","event":{"type":"GaussianDpEvent",'
        '"noise_multiplier":"2"}}]'
    )  # rate 1: the Gaussian itself
    proc = subprocess.run(
        [sys.executable, "-m", "dpcert.cli", "eval", "accounting.eps", f"events={events}", "delta=1e-5", "--json"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    lo, hi = F(out["enclosure"]["lo"]), F(out["enclosure"]["hi"])
    assert lo <= F(mpmath.nstr(_gaussian_eps(2, "1e-5"), 30)) <= hi
    bad = subprocess.run(
        [sys.executable, "-m", "dpcert.cli", "eval", "accounting.eps", "events=[{]", "delta=1e-5"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stdout == "" and "events as JSON text" in bad.stderr
