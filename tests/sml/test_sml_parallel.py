"""The SML branch and bound split into subtrees (``sml(..., run=...)``): the value of plain enumeration and the
selection of the one-process search, the same value, selection and node count serially, on 2 processes and on
Dask, and a resumed checkpoint equal to an uninterrupted run."""

import importlib.util
import json
from fractions import Fraction

import numpy as np
import pytest

from dpcert.cli import main
from dpcert.core.parallel import Checkpoint, RunOptions
from dpcert.errors import InvalidParameter
from dpcert.sml import mechanism
from dpcert.sml.mechanism import FiniteMechanism, sml, sml_enumerate


def dense(s: int, seed: int, top: int = 100) -> FiniteMechanism:
    """s secrets x 4 rows, s outputs, integer weights 1..top normalised exactly (top = 3: many ties)."""
    rng = np.random.default_rng(seed)
    rows = []
    for w in rng.integers(1, top + 1, size=(4 * s, s)):
        rows.append([Fraction(int(x), int(w.sum())) for x in w])
    return FiniteMechanism.from_rows(rows, [str(i // 4) for i in range(4 * s)])


def _key(r):
    return r.exp_value, dict(r.selection), r.nodes


@pytest.mark.parametrize("s,seed,top", [(7, 0, 100), (7, 2, 100), (7, 3, 100), (6, 3, 3), (6, 4, 3), (6, 5, 2)])
def test_split_search_gives_enumeration_value_and_the_one_search_selection(s, seed, top):
    mech = dense(s, seed, top)
    one, split = sml(mech), sml(mech, run=RunOptions("serial"))
    assert split.exp_value == sml_enumerate(mech).exp_value == one.exp_value
    assert dict(split.selection) == dict(one.selection)  # the first maximiser in depth-first order
    assert mechanism.selection_value(mech, [mech.inputs.index(split.selection[g]) for g in mech.secret_values]) == (
        split.exp_value
    )


def test_two_processes_give_the_serial_result():
    mech = dense(10, 1)  # 64 subtrees
    serial = _key(sml(mech, run=RunOptions("serial")))
    assert _key(sml(mech, run=RunOptions("processes", 2))) == serial
    assert serial[:2] == _key(sml(mech))[:2]


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs dask.distributed")
def test_dask_local_cluster_gives_the_serial_result():
    mech = dense(9, 3)  # 64 subtrees
    assert _key(sml(mech, run=RunOptions("dask", 2))) == _key(sml(mech, run=RunOptions("serial")))


def test_resumed_checkpoint_equals_an_uninterrupted_run(tmp_path):
    mech = dense(8, 2)  # 64 subtrees
    path = tmp_path / "ckpt.json"
    run = RunOptions("serial", checkpoint=str(path), checkpoint_key="sml test")
    whole = _key(sml(mech, run=run))
    data = json.loads(path.read_text())
    (section,) = data["sections"].values()
    assert len(section) >= mechanism.SPLIT_SUBTREES
    # an interrupted run: every other subtree had finished
    for i in list(section)[1::2]:
        del section[i]
    path.write_text(json.dumps(data))
    assert _key(sml(mech, run=run)) == whole
    # the recorded subtrees are read, not searched again: a node count recorded (with this user's checkpoint key)
    # shows in the total
    ckpt = Checkpoint(path, "sml test")
    (name,) = ckpt.data["sections"]
    first = ckpt.finished(name)[0]
    first.counts["nodes"] += 1000
    ckpt.record(name, 0, first)
    ckpt.flush()
    assert sml(mech, run=run).nodes == whole[2] + 1000
    # the same edit made in the file, without the key, is refused
    data = json.loads(path.read_text())
    data["sections"][name]["0"]["v"]["counts"]["d"]["nodes"] += 1000
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidParameter, match="prove themselves"):
        sml(mech, run=run)


def test_node_limit_stops_the_split_search():
    mech = dense(10, 1)
    with pytest.raises(InvalidParameter, match="node_limit"):
        sml(mech, node_limit=50, run=RunOptions("processes", 2))


def test_cli_workers_and_checkpoint(tmp_path, capsys):
    mech = dense(7, 0)  # 160 subtrees
    f = tmp_path / "m.json"
    labelled = zip(mech.inputs, mech.secrets, mech.rows, strict=True)
    rows = [{"input": i, "secret": g, "p": [str(v) for v in r]} for i, g, r in labelled]
    f.write_text(json.dumps({"rows": rows}))
    ck = str(tmp_path / "c.json")
    assert main(["sml", "mechanism", str(f), "--json", "--workers", "2", "--checkpoint", ck]) == 0
    out = json.loads(capsys.readouterr().out)
    assert Fraction(out["exp_sml"]) == sml_enumerate(mech).exp_value
    assert main(["sml", "mechanism", str(f), "--json", "--executor", "serial", "--checkpoint", ck]) == 0
    assert json.loads(capsys.readouterr().out) == out
    g = tmp_path / "other.json"
    g.write_text(json.dumps({"rows": rows[:-1]}))
    assert main(["sml", "mechanism", str(g), "--checkpoint", ck]) == 2
    assert "other inputs" in capsys.readouterr().err
