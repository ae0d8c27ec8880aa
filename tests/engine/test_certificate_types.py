"""A certificate's recorded values are compared with the re-derived ones type and all: JSON ``true`` is not ``1``
and ``11.0`` is not ``11`` (Python's ``==`` says they are). Each edit below was accepted by ``dpcert check`` on
f3737cd once the file was rehashed; the genuine certificate passes.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from dpcert.cli import main
from dpcert.engine.certificate import content_hash, write_certificate
from dpcert.engine.registry import claims


def _check(path: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["check", str(path)])
    return code, out.getvalue() + err.getvalue()


def _edited(path: Path, edit) -> Path:
    cert = json.loads(path.read_text())
    edit(cert)
    cert["sha256"] = content_hash(cert)
    p = path.with_name("edited.json")
    p.write_text(json.dumps(cert))
    return p


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    return {
        cid: write_certificate(claims()[cid].check(), d) for cid in ("darrm.lemma3_1.k11", "darrm.table2.mnist.q20.eps")
    }


def _set(*keys, value):
    def edit(cert):
        node = cert
        for k in keys[:-1]:
            node = node[k]
        assert type(node[keys[-1]]) is not type(value) and node[keys[-1]] == value  # equal to Python, not in JSON
        node[keys[-1]] = value

    return edit


EDITS = {
    "version true": ("darrm.lemma3_1.k11", _set("version", value=True)),
    "inputs.K 11.0": ("darrm.lemma3_1.k11", _set("claim", "inputs", "K", value=11.0)),
    "inputs.ms[0] true": ("darrm.lemma3_1.k11", lambda c: c["claim"]["inputs"]["ms"].__setitem__(0, True)),
    "inputs.k 20.0": ("darrm.table2.mnist.q20.eps", _set("claim", "inputs", "k", value=20.0)),
    "evidence.precision_bits 0.0": ("darrm.table2.mnist.q20.eps", _set("evidence", "precision_bits", value=0.0)),
    "evidence.precision_bits false": ("darrm.lemma3_1.k11", _set("evidence", "precision_bits", value=False)),
}


def test_the_genuine_certificates_pass(genuine):
    for path in genuine.values():
        code, text = _check(path)
        assert code == 0 and text.startswith("OK"), text


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edit_equal_only_across_json_types_fails_check(genuine, name):
    cid, edit = EDITS[name]
    code, text = _check(_edited(genuine[cid], edit))
    assert code != 0 and "OK " not in text, text
