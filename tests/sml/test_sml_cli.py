"""``dpcert sml mechanism``: the file formats, the exact result, and one-line errors naming the row (exit 2)."""

import json
import math
from fractions import Fraction as F

import pytest

from dpcert.cli import main
from dpcert.errors import InvalidParameter
from dpcert.sml.fileformat import parse_csv, parse_json

JSON_OK = {
    "secrets": ["g1", "g2"],
    "outputs": ["y1", "y2", "y3"],
    "rows": [
        {"input": "a", "secret": "g1", "p": ["1/2", "1/2", "0"]},
        {"input": "b", "secret": "g1", "p": ["0", "1", "0"]},
        {"input": "c", "secret": "g2", "p": ["1/3", "1/3", "1/3"]},
    ],
}
CSV_OK = "# a comment\nsecrets,g1,g2\nsecret,input,y1,y2,y3\ng1,a,1/2,1/2,0\ng1,b,0,1,0\ng2,c,1/3,1/3,1/3\n"


def run(tmp_path, name, content, *args):
    f = tmp_path / name
    f.write_text(content if isinstance(content, str) else json.dumps(content))
    return main(["sml", "mechanism", str(f), *args])


@pytest.mark.parametrize(("name", "content"), [("m.json", JSON_OK), ("m.csv", CSV_OK), ("m.txt", JSON_OK)])
def test_json_output(tmp_path, capsys, name, content):
    assert run(tmp_path, name, content, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    # by hand: (b, c) gives 1/3 + 1 + 1/3 = 5/3; (a, c) gives 1/2 + 1/2 + 1/3 = 4/3
    assert out["exp_sml"] == "5/3"
    assert out["selection"] == {"g1": "b", "g2": "c"}
    lo, hi = F(out["sml_nats"]["lo"]), F(out["sml_nats"]["hi"])
    assert lo <= F(math.log(5 / 3)) + F(1, 10**15) and hi >= F(math.log(5 / 3)) - F(1, 10**15)
    assert abs(float(F(out["sml_bits"]["lo"])) - math.log2(5 / 3)) < 1e-15
    assert out["bounds"]["mel"] == "11/6" and out["secrets"] == 2


def test_text_output(tmp_path, capsys):
    assert run(tmp_path, "m.json", JSON_OK) == 0
    out = capsys.readouterr().out
    assert "exp SML = 5/3" in out and "bits" in out and "g2" in out


def test_deterministic_file_uses_matching(tmp_path, capsys):
    text = "secret,input,o1,o2\n1,x,1,0\n1,y,0,1\n2,z,0,1\n"
    assert run(tmp_path, "d.csv", text, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exp_sml"] == "2" and out["method"] == "matching"
    assert out["sml_bits"]["exact"] == "1"


def bad_json(**changes):
    data = json.loads(json.dumps(JSON_OK))
    for k, v in changes.items():
        if k.startswith("row"):
            data["rows"][int(k[3:])].update(v)
        else:
            data[k] = v
    return data


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (bad_json(row0={"p": ["1/2", "1/3", "0"]}), "row[0] (a)"),
        (bad_json(row1={"p": ["-1/2", "3/2", "0"]}), "row[1] (b)[0]"),
        (bad_json(row2={"secret": "g9"}), "row[2] (c).secret"),
        (bad_json(secrets=["g1", "g2", "g3"]), "secrets"),
        (bad_json(row2={"p": ["1/2", "1/2"]}), "row[2] (c)"),
        (bad_json(row0={"p": [0.1, 0.9, 0]}), "row[0] (a)"),  # JSON floats are binary values: not 1/10
        ({"rows": []}, "rows"),
        ({"rows": [{"secret": "g"}]}, "row[0]"),
        (bad_json(outputs="y1y2y3"), "outputs"),
        (bad_json(outputs=["y1", "y1", "y3"]), "outputs"),
    ],
)
def test_bad_json_names_the_row(data, name):
    with pytest.raises(InvalidParameter) as err:
        parse_json(data)
    assert err.value.name == name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("secret,input,y\ng,a,2\n", "row[0] (a)"),
        ("secret,input,y1,y2\ng,a,1\n", "row[0]"),
        ("secrets,g1\nsecret,input,y\ng2,a,1\n", "row[0] (a).secret"),
        ("input,secret,y\ng,a,1\n", "header"),
        ("secret,input,y1,y2\ng,a,x,1\n", "row[0] (a)[0]"),
    ],
)
def test_bad_csv_names_the_row(text, name):
    with pytest.raises(InvalidParameter) as err:
        parse_csv(text)
    assert err.value.name == name


def test_cli_errors_exit_2_with_one_line(tmp_path, capsys):
    assert run(tmp_path, "bad.json", bad_json(row0={"p": ["1/2", "1/3", "0"]})) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "row[0] (a)" in err and "sum to 5/6" in err
    assert run(tmp_path, "bad.json", "{not json") == 2
    assert main(["sml", "mechanism", str(tmp_path / "missing.csv")]) == 2


def test_node_limit_exit_2(tmp_path, capsys):
    rows = "secret,input,a,b,c\n0,x,1/3,1/3,1/3\n0,y,1/2,1/2,0\n1,z,0,1/2,1/2\n1,w,1/2,0,1/2\n"
    assert run(tmp_path, "n.csv", rows, "--node-limit", "0") == 2
    assert "node_limit" in capsys.readouterr().err
