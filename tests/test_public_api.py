"""The paper tools a user calls from Python are public, documented and spelled alike (issue 18, section 5)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import warnings

import pytest

import dpcert
from dpcert.engine.registry import packages

#: every paper package, from the packages' declarations (a package cannot be left out of these tests)
PAPERS = packages()

#: what a user reaches for, per paper (the issue's list): each must be in its package's __all__
TOOLS = {
    "dpcert.darrm": {"problem", "certify", "certify_iid", "error"},
    "dpcert.sml": {"sml", "FiniteMechanism", "read_mechanism"},
    "dpcert.shuffle": {"thm1_ball", "thm2_ball", "thm3_ball", "upper_ball", "dp_eps_ball"},
    "dpcert.br": {"adaptive_bracket", "adaptive_bracket_within", "nonadaptive_eps"},
    "dpcert.composition": {"kov_delta", "kov_eps", "mv_delta"},
    # the Gaussian mechanism, composed Gaussians, one subsampled step, DP-SGD by RDP and by PLD, σ calibration
    "dpcert.gaussian": {
        "gaussian_delta",
        "gaussian_eps",
        "gaussian_sigma",
        "gaussian_composed_delta",
        "sgm_rdp",
        "sgm_delta",
        "dpsgd_rdp_eps",
        "dpsgd_delta",
        "dpsgd_eps",
        "dpsgd_sigma",
    },
}


def _own_doc(obj: object) -> str:
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and doc.startswith(obj.__name__ + "("):
        return ""  # the signature dataclasses write when the class has no docstring
    return doc


@pytest.mark.parametrize("package", PAPERS)
def test_paper_package_exports_its_tools_documented(package):
    pkg = importlib.import_module(package)
    assert TOOLS.get(package, set()) <= set(pkg.__all__)
    for name in pkg.__all__:
        obj = getattr(pkg, name)
        if name in ("QUANTITIES", "CLAIMS"):
            continue
        assert len(_own_doc(obj).split()) >= 3, f"{package}.{name} has no docstring"


def test_every_paper_package_says_what_its_users_reach_for():
    """A new package is in PAPERS by its declaration; it must then export tools of its own, not only its tables
    (``dpcert.gaussian`` exported ``QUANTITIES`` and ``CLAIMS`` alone)."""
    assert set(TOOLS) <= set(PAPERS)
    for package in PAPERS:
        assert set(importlib.import_module(package).__all__) - {"QUANTITIES", "CLAIMS"}, package


def test_gaussian_tools_agree_with_independent_values():
    """The exported DP-SGD tools compute what their quantities certify, checked against closed forms: one
    subsampled step at order 2 has RDP log(1 + q² (e^{1/σ²} - 1)) (Mironov–Talwar–Zhang, the binomial expansion at
    α = 2), and with q = 1 a step is the Gaussian mechanism, whose δ(ε) is Balle–Wang's
    Φ(1/(2σ) - εσ) - e^ε Φ(-1/(2σ) - εσ)."""
    import mpmath

    from dpcert import gaussian

    def mp(f):  # an exact Fraction as an mpf (at the working precision)
        return mpmath.mpf(f.numerator) / f.denominator

    with mpmath.workdps(40):
        rdp = gaussian.sgm_rdp("0.01", "1.1", 2, rel_tol=1e-20)
        want = mpmath.log1p(mpmath.mpf("0.01") ** 2 * mpmath.expm1(1 / mpmath.mpf("1.1") ** 2))
        assert abs(mp(rdp.lo) / want - 1) < 1e-18 and abs(mp(rdp.hi) / want - 1) < 1e-18
        s, e = mpmath.mpf("1.1"), mpmath.mpf("0.5")
        bw = mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)
        one_step = gaussian.sgm_delta(1, "1.1", "0.5", rel_tol=1e-20)
        assert abs(mp(one_step.lo) / bw - 1) < 1e-18 and abs(mp(one_step.hi) / bw - 1) < 1e-18
    mech = gaussian.gaussian_delta("0.5", "1.1")
    assert mech.lo <= one_step.hi and one_step.lo <= mech.hi


def test_importing_a_paper_package_stays_cheap():
    # the exports are resolved on first use: `import dpcert.darrm` (done by `dpcert --help`) loads no mathematics
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", "import sys, dpcert.darrm, dpcert.br; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "dpcert.darrm.privacy" not in out and "numpy" not in out


#: the only parameters spelled *tol* other than rel_tol / abs_tol: certified_root's width, relative or absolute as
#: its ``relative`` flag says, and a quantity's float_rtol (the float twin's tested tolerance, not an accuracy asked)
ALLOWED = {("dpcert.arith.search", "certified_root", "tol"), ("dpcert.core.quantity", "Quantity", "float_rtol")}


def test_relative_accuracy_is_spelled_rel_tol_everywhere():
    found = set()
    for info in pkgutil.walk_packages(dpcert.__path__, "dpcert."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if not callable(obj) or getattr(obj, "__module__", None) != info.name:
                continue
            try:
                params = inspect.signature(obj).parameters
            except (TypeError, ValueError):
                continue
            found |= {(info.name, name, p) for p in params if "tol" in p and p not in ("rel_tol", "abs_tol")}
    assert found == ALLOWED


def test_kov_eps_and_nonadaptive_eps_take_rel_tol():
    from fractions import Fraction

    from dpcert.br import nonadaptive_eps

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coarse = dpcert.kov_eps(100, "0.1", "1e-6", rel_tol="1e-3")
        fine = dpcert.kov_eps(100, "0.1", "1e-6", rel_tol=Fraction(1, 10**12))
    assert coarse.lo <= fine.lo <= fine.hi <= coarse.hi and fine.hi - fine.lo <= Fraction(5, 10**12)
    assert nonadaptive_eps(10, "0.1", "1e-6", rel_tol="1e-6").width <= Fraction(1, 10**6)
    with pytest.raises(TypeError):
        dpcert.kov_eps(100, "0.1", "1e-6", tol="1e-3")  # renamed, not aliased (no caller outside dpcert used it)
