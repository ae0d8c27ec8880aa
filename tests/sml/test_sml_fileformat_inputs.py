"""A mechanism file means one thing, and is read bounded (issue 18 §3).

Before: a JSON secret ``1`` and a secret ``"1"`` were both turned into the text "1" and merged (rows [1, 0] and
[0, 1] gave SML 0 instead of log 2), a ``null`` secret became "None", a CSV field over 128 KiB was an internal
error (``csv.Error``), and a FIFO blocked the reader.
"""

import json
import math
import os
import signal

import pytest

from dpcert.errors import InvalidParameter
from dpcert.sml.fileformat import parse_json, read_mechanism
from dpcert.sml.mechanism import sml


def _write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(json.dumps(obj) if not isinstance(obj, str) else obj, encoding="utf-8")
    return p


def test_secret_one_and_secret_text_one_are_not_merged(tmp_path):
    p = _write(tmp_path, "m.json", {"rows": [{"secret": 1, "p": [1, 0]}, {"secret": "1", "p": [0, 1]}]})
    with pytest.raises(InvalidParameter, match=r"row\[0\]\.secret"):
        read_mechanism(p)


def test_two_distinct_string_secrets_leak_log_2():
    """The same matrix with honest labels: two secrets, each determined by the output, SML = log 2 (by hand:
    exp SML = sum over outputs of the max over secrets = 1 + 1)."""
    mech = parse_json({"rows": [{"secret": "1", "p": [1, 0]}, {"secret": "one", "p": [0, 1]}]})
    res = sml(mech)
    assert res.exp_value == 2  # SML = log 2
    assert abs(float(res.nats(1e-20).lo) - math.log(2)) < 1e-15


@pytest.mark.parametrize(
    "field, row",
    [
        ("row[0].secret", {"secret": None, "p": [1, 0]}),
        ("row[0].secret", {"secret": ["a"], "p": [1, 0]}),
        ("row[0].secret", {"secret": {"a": 1}, "p": [1, 0]}),
        ("row[0].secret", {"secret": True, "p": [1, 0]}),
        ("row[0].secret", {"secret": 0.5, "p": [1, 0]}),
        ("row[0].input", {"secret": "a", "input": 7, "p": [1, 0]}),
        ("row[0].input", {"secret": "a", "input": None, "p": [1, 0]}),
    ],
)
def test_non_string_labels_are_refused(field, row):
    with pytest.raises(InvalidParameter) as info:
        parse_json({"rows": [row, {"secret": "b", "p": [0, 1]}]})
    assert info.value.name == field


def test_declared_secrets_and_outputs_must_be_strings():
    rows = [{"secret": "1", "p": [1, 0]}, {"secret": "2", "p": [0, 1]}]
    with pytest.raises(InvalidParameter) as info:
        parse_json({"secrets": ["1", 2], "rows": rows})
    assert info.value.name == "secrets[1]"
    with pytest.raises(InvalidParameter) as info:
        parse_json({"outputs": [0, "1"], "rows": rows})
    assert info.value.name == "outputs[0]"


def test_duplicate_json_keys_are_refused(tmp_path):
    p = _write(tmp_path, "m.json", '{"rows": [{"secret": "a", "p": [1]}], "rows": [{"secret": "a", "p": [1]}]}')
    with pytest.raises(InvalidParameter, match="duplicate keys"):
        read_mechanism(p)


def test_a_csv_field_over_128_kib_is_invalid_parameter(tmp_path):
    p = _write(tmp_path, "m.csv", "secret,input,y\n" + "a" * (140 * 1024) + ",x,1\n")
    with pytest.raises(InvalidParameter, match="field larger than field limit"):
        read_mechanism(p)


def test_unreadable_mechanism_files_are_one_invalid_parameter_each(tmp_path):
    fifo = tmp_path / "m.csv"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.json"
    os.symlink(loop, loop)
    (tmp_path / "bin.csv").write_bytes(b"secret,input,y\n\x00,x,1\n")
    (tmp_path / "latin1.csv").write_bytes("secret,input,y\ncaf\xe9,x,1\n".encode("latin-1"))
    (tmp_path / "bom.csv").write_text("\ufeffsecret,input,y\na,x,1\n", encoding="utf-8")
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000)
    cases = {
        fifo: "FIFO",
        "/dev/zero": "device",
        loop: "symbolic links",
        tmp_path / "bin.csv": "binary",
        tmp_path / "latin1.csv": "not UTF-8",
        tmp_path / "bom.csv": "byte-order mark",
        tmp_path / "deep.json": "nested at most",
        tmp_path: "directory",
    }

    def hang(signum, frame):
        raise TimeoutError("the reader blocked")

    old = signal.signal(signal.SIGALRM, hang)
    try:
        for path, message in cases.items():
            signal.setitimer(signal.ITIMER_REAL, 5)
            with pytest.raises(InvalidParameter, match=message):
                read_mechanism(path)
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
