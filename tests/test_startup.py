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


def test_cli_help_does_not_import_scipy_or_a_paper_packages_mathematics():
    # the parser imports each paper package's declaration and command module (and so its __init__), nothing more
    from dpcert.engine.registry import packages

    mods = _modules_after("from dpcert.cli import _parser; _parser()")
    assert "scipy" not in mods and set(packages()) <= mods
    loaded = {m for m in mods for p in packages() if m.startswith(p + ".")}
    assert {m.rsplit(".", 1)[1] for m in loaded} <= {"cli", "declaration"}, sorted(loaded)


def test_public_names_still_resolve():
    import dpcert

    for name in dpcert.__all__:
        assert getattr(dpcert, name) is not None


#: Modules that cost hundreds of milliseconds each and that a command must import only when it uses them.
HEAVY = {"scipy", "sympy", "mpmath", "pandas", "matplotlib"}


def test_eval_of_a_simple_quantity_imports_no_heavy_library():
    # scipy.stats alone took ~1 s of every CLI call's 2.4 s (issue 18, section 5); numpy and flint are the floor
    mods = _modules_after(
        "import contextlib, io, dpcert.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert dpcert.cli.main(['eval', 'composition.simple.eps', 'k=2', 'eps=0.1']) == 0\n"
        "pass"  # _modules_after appends its print to this line, outside the redirection
    )
    assert "dpcert.composition" in mods  # the command did run
    assert not HEAVY & {m.split(".")[0] for m in mods}


def test_list_and_quantities_import_no_heavy_library():
    for cmd in ("list", "quantities"):
        mods = _modules_after(
            "import contextlib, io, dpcert.cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert dpcert.cli.main([{cmd!r}]) == 0\n"
            "pass"
        )
        assert not HEAVY & {m.split(".")[0] for m in mods}, cmd
