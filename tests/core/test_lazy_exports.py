"""A package's lazily resolved export keeps its name when the submodule of the same name is imported first."""

import subprocess
import sys


def test_an_export_named_like_its_submodule_is_the_function_whatever_the_import_order():
    # objective lives in dpcert.darrm.optimize: resolving it imports that submodule, which Python binds on the
    # package as `optimize`, shadowing the exported function optimize (the darrm_optimize notebook hit it)
    code = (
        "import types\n"
        "from dpcert.darrm import objective, optimize\n"
        "assert not isinstance(optimize, types.ModuleType) and callable(optimize), optimize\n"
        "import dpcert.darrm\n"
        "assert dpcert.darrm.optimize is optimize\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
