"""The command line: exit codes, one-line errors, --json everywhere."""

import json
import subprocess
import sys

import pytest

from dpcert.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_verify_selected_claims_json(capsys):
    code, out, _ = run(capsys, "verify", "--select", "darrm.table4.*", "--json")
    data = json.loads(out)
    assert code == 0 and data["exit_code"] == 0
    verdicts = {r["id"]: r["verdict"] for r in data["results"]}
    assert verdicts["darrm.table4.mnist.lambda"] == "REFUTED"
    assert verdicts["darrm.table4.mnist.sigma_min"] == "CERTIFIED"


def test_verify_table_output(capsys):
    code, out, _ = run(capsys, "verify", "-s", "darrm.table3.M10.*", "-q")
    assert code == 0
    assert "darrm.table3.M10.m" in out and "CERTIFIED" in out and "as expected" in out


def test_verify_exit_1_when_a_user_claim_is_refuted(capsys, tmp_path):
    m = tmp_path / "m.toml"
    m.write_text(
        '[[claims]]\nid = "u.t.r"\nreference = "r"\nquantity = "composition.simple.eps"\n'
        'inputs = { k = 3, eps = "0.1" }\nat_most = "0.29"\n'
    )
    code, out, _ = run(capsys, "verify", str(m), "-q")
    assert code == 1 and "UNEXPECTED" in out


def test_eval_json(capsys):
    code, out, _ = run(capsys, "eval", "composition.general.eps", "k=20", "eps=0.2676", "delta_prime=0.0001", "--json")
    data = json.loads(out)
    # 20 x 0.2676 wins the minimum of KOV Thm 3.4, and is reported exactly
    assert code == 0 and data["enclosure"] == {"lo": "5.352", "hi": "5.352", "exact": "669/125"}
    assert data["inputs"]["eps"]["exact"] == "669/2500"


def test_claim_command(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "claim",
        "composition.general.eps",
        "k=20",
        "eps=0.2676",
        "delta_prime=0.0001",
        "--rounds-to",
        "5.352",
        "--certificate",
        str(tmp_path),
    )
    assert code == 0 and out.startswith("CERTIFIED")
    (cert,) = tmp_path.glob("*.json")
    code, out, _ = run(capsys, "check", str(cert), "--json")
    assert code == 0 and json.loads(out)[0]["ok"] is True


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["eval", "composition.general.eps", "k=20", "eps=-0.1", "delta_prime=0.1"], "eps"),
        (["eval", "composition.general.eps", "k=0", "eps=0.1", "delta_prime=0.1"], "k='0'"),
        (["eval", "composition.general.eps", "k=2.5", "eps=0.1", "delta_prime=0.1"], "k="),
        (["eval", "composition.general.delta", "k=2", "delta=1", "delta_prime=0.1"], "delta"),
        (["eval", "no.such.quantity"], "quantity"),
        (["verify", "--select", "no.such.claim"], "claim"),
        (["verify", "/nonexistent/manifest.toml"], "manifest"),
        (["check", "/nonexistent/cert.json"], "certificate"),
        (["eval", "composition.general.eps", "k20"], "name=value"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("dpcert: error:")
    assert needle in err
    assert "Traceback" not in err


def test_console_script_entry_point_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "dpcert.cli", "list", "darrm.table5.*", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0
    assert len(json.loads(proc.stdout)) == 16


def test_check_takes_a_directory_of_certificates(capsys, tmp_path):
    import shutil

    from dpcert.engine.manifest import bundled_dir

    for name in ("composition.kov.eps.brnotes_eps1_k1.json", "darrm.table2.mnist.q20.eps.json"):
        shutil.copy(bundled_dir() / "certificates" / name, tmp_path / name)
    code, out, _ = run(capsys, "check", str(tmp_path))
    lines = out.splitlines()
    assert code == 0 and sum(line.startswith("OK  ") for line in lines) == 2
    assert lines[-1] == "2 certificates: 2 OK, 0 MISMATCH"


def test_check_markdown_is_the_verdict_table_of_certificates_that_recheck(capsys, tmp_path):
    import shutil

    from dpcert.engine.manifest import bundled_dir

    src = bundled_dir() / "certificates"
    names = ("darrm.table2.mnist.q20.eps.json", "br.thm4.literal_k3_eps1_g0.json", "sml.thm_v4.qm_sml.json")
    for name in names:
        shutil.copy(src / name, tmp_path / name)
    md = tmp_path / "RESULTS.md"
    code, _, _ = run(capsys, "check", str(tmp_path), "--markdown", str(md))
    text = md.read_text()
    assert code == 0
    assert "3 claims: 2 CERTIFIED, 1 UNDECIDED; 3/3 as expected." in text
    # registry order: darrm before sml before br (as dpcert verify runs them), each row with its recorded verdict
    rows = [line.split()[:3] for line in text.splitlines() if line.startswith(("darrm.", "br.", "sml."))]
    assert rows == [
        ["darrm.table2.mnist.q20.eps", "CERTIFIED", "CERTIFIED"],
        ["sml.thm_v4.qm_sml", "CERTIFIED", "CERTIFIED"],
        ["br.thm4.literal_k3_eps1_g0", "UNDECIDED", "UNDECIDED"],
    ]
    # a certificate that does not re-check writes no table
    bad = json.loads((tmp_path / names[0]).read_text())
    bad["verdict"] = "REFUTED"
    (tmp_path / names[0]).write_text(json.dumps(bad))
    md.unlink()
    code, _, _ = run(capsys, "check", str(tmp_path), "--markdown", str(md))
    assert code != 0 and not md.exists()
