"""The BR adaptive lattice on the executors of :mod:`dpcert.core.parallel`: the same bracket serially, on 2 local
processes and on a Dask ``LocalCluster``; a resumed checkpoint gives the bracket of an uninterrupted run."""

import importlib.util
import json
from fractions import Fraction

import pytest

from dpcert.br import adaptive
from dpcert.cli import main
from dpcert.core.parallel import RunOptions

ARGS = (3, 1, Fraction(1, 3))  # k, eps, eps_g
N = 120  # kN = 360 base balls: 4 tasks of 100 (and a short one) with the chunk size below


def _fields(br):
    return (br.lo, br.hi, br.n, br.lo_float, br.strategy.lo, br.strategy.hi, br.states, br.nonadaptive.lo)


@pytest.fixture
def reference():
    """The bracket as before the tasks existed: everything here, the base values in one piece."""
    return _fields(adaptive.adaptive_bracket(*ARGS, n=N))


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(adaptive, "_BASE_CHUNK", 100)


def test_two_processes_give_the_serial_bracket(reference, small_chunks):
    assert _fields(adaptive.adaptive_bracket(*ARGS, n=N, run=RunOptions("processes", 2))) == reference
    lo, hi = reference[:2]
    # and the bracket is a bracket of the exact value at k = 2 (independent computation: A_2(0) = 0.303365496…)
    two = adaptive.adaptive_bracket(2, 1, 0, n=N, run=RunOptions("processes", 2))
    assert two.lo <= Fraction("0.3033654964832") <= two.hi
    assert lo < hi


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs dask.distributed")
def test_dask_local_cluster_gives_the_serial_bracket(reference, small_chunks):
    assert _fields(adaptive.adaptive_bracket(*ARGS, n=N, run=RunOptions("dask", 2))) == reference


def test_resumed_checkpoint_equals_an_uninterrupted_run(reference, small_chunks, tmp_path, monkeypatch):
    path = tmp_path / "ckpt.json"
    run = RunOptions("serial", checkpoint=str(path), checkpoint_key="br test")
    assert _fields(adaptive.adaptive_bracket(*ARGS, n=N, run=run)) == reference
    data = json.loads(path.read_text())
    (section,) = data["sections"].values()
    assert sorted(section) == [str(i) for i in range(2 + 4)]  # lower, weights, 4 base chunks
    # an interrupted run: only the lower recursion and two base chunks had finished
    for i in ("1", "3", "5"):
        del section[i]
    path.write_text(json.dumps(data))
    ran = []
    task = adaptive._lattice_task
    monkeypatch.setattr(adaptive, "_lattice_task", lambda t: ran.append(t[0]) or task(t))
    assert _fields(adaptive.adaptive_bracket(*ARGS, n=N, run=run)) == reference
    assert ran == ["weights", "base", "base"]  # only what was missing ran again


def test_cli_refuses_a_checkpoint_of_other_inputs(tmp_path, capsys):
    path = str(tmp_path / "c.json")
    argv = ["br", "adaptive", "k=3", "eps=1", "eps_g=1/3", "--n", "40", "--json", "--checkpoint", path]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(argv[:-2] + ["--workers", "2", "--checkpoint", path]) == 0  # resumed, on 2 processes
    again = json.loads(capsys.readouterr().out)
    assert again["bracket"] == first["bracket"]
    assert main(["br", "adaptive", "k=4", "eps=1", "eps_g=1/3", "--n", "40", "--checkpoint", path]) == 2
    assert "other inputs" in capsys.readouterr().err


def test_damaged_checkpoint_is_refused(tmp_path):
    from dpcert.errors import InvalidParameter

    path = tmp_path / "ckpt.json"
    run = RunOptions("serial", checkpoint=str(path), checkpoint_key="br test")
    adaptive.adaptive_bracket(*ARGS, n=20, run=run)
    data = json.loads(path.read_text())
    (section,) = data["sections"].values()
    section["0"] = ["lower"]  # a record cut short
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidParameter, match="damaged"):
        adaptive.adaptive_bracket(*ARGS, n=20, run=run)
