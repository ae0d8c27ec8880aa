"""Start-up: `import dpcert` and `dpcert --help` import no numerical library they do not need."""

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "; import sys; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.split())


def test_import_dpcert_is_lazy():
    mods = _modules_after("import dpcert")
    assert not {"scipy", "numpy", "flint", "sympy", "mpmath"} & mods


def test_cli_help_does_not_import_scipy_or_a_paper_package():
    mods = _modules_after("from dpcert.cli import _parser; _parser()")
    assert "scipy" not in mods and "dpcert.composition" not in mods


def test_public_names_still_resolve():
    import dpcert

    for name in dpcert.__all__:
        assert getattr(dpcert, name) is not None
