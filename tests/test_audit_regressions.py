"""Regression tests for the foundation audit's trust defects (issue 10), each failing on the code before it.

Certificates (defects 1, 7, 8) are in ``tests/engine/test_certificate_trust.py``; this file holds the rest.
"""

import math
import pickle
import sys
import time
from fractions import Fraction

import numpy as np
import pytest

from dpcert.arith.ball import Enclosure
from dpcert.arith.exact import parse_int, parse_rational
from dpcert.arith.rounding import fraction_to_float
from dpcert.cli import main
from dpcert.composition import QUANTITIES as Q
from dpcert.composition.claims import sandwich
from dpcert.core.claim import Verdict
from dpcert.core.parallel import Summary, map_chunks
from dpcert.core.params import real
from dpcert.core.quantity import Quantity
from dpcert.errors import (
    CertificateError,
    DpcertError,
    InvalidParameter,
    ManifestError,
    PrecisionExhausted,
    UnknownClaim,
)

# --------------------------------------------------------------------------------------------- defect 2


@pytest.mark.parametrize(
    "exc",
    [
        InvalidParameter("eps", -1, "a real number >= 0"),
        InvalidParameter("eps", lambda: 0, "an unpicklable value travels as its repr"),
        PrecisionExhausted("sign of f at e^0.1", 256),
        UnknownClaim("x.y", ["darrm"]),
        ManifestError("m.toml", "bad key"),
        CertificateError("c.json: hash mismatch"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_every_dpcert_exception_crosses_a_process_boundary_intact(exc):
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc)
    if isinstance(exc, PrecisionExhausted):
        assert back.max_prec == 256 and back.what == exc.what
    if isinstance(exc, InvalidParameter):
        assert back.name == exc.name and back.allowed == exc.allowed


def undecided_chunk(chunk):
    """A pure chunk function whose second chunk is undecided (for the pool test below)."""
    if chunk == 1:
        raise PrecisionExhausted("chunk 1", 64)
    out = Summary()
    out.add("ok")
    return out


def test_an_undecided_chunk_is_the_same_error_on_one_or_two_workers():
    for workers in (1, 2):
        with pytest.raises(PrecisionExhausted, match="chunk 1"):  # not BrokenProcessPool
            map_chunks(undecided_chunk, [0, 1, 2], workers=workers)


def test_sandwich_verdict_and_precision_do_not_depend_on_workers():
    runs = [sandwich((1, 5), ("0.1",), ("1e-20", "1e-6"), max_prec=64, workers=w) for w in (1, 2)]
    assert [v for v, _ in runs] == [Verdict.CERTIFIED, Verdict.CERTIFIED]
    assert runs[0][1].counts == runs[1][1].counts
    assert runs[0][1].precision == runs[1][1].precision > 0  # the bits actually used, not 0


# --------------------------------------------------------------------------------------------- defect 3


def test_equality_of_an_exact_value_is_certified_not_undecided():
    # k = 1: eps_opt(1e-20) lies just below eps = 0.1 and its certified bracket ends at k*eps = 0.1 exactly, while
    # KOV Thm 3.4's eps' = min(k*eps, ...) = 0.1 exactly: ball arithmetic could never decide 0.1 <= 0.1
    verdict, evidence = sandwich((1,), ("0.1",), ("1e-20",))
    assert verdict is Verdict.CERTIFIED, evidence.detail
    assert evidence.worst_case["kov_3_4"] == "0.1"


def test_enclose_reports_a_zero_computed_in_balls_as_undecided_with_its_bracket_unless_told_an_absolute_tolerance():
    zero = Quantity(
        "t.zero", (real("eps", 0),), lambda ctx, eps: ctx.log(ctx.exp(ctx.num(eps))) - ctx.num(eps), "r", "zero"
    )
    # issue 18: no silent absolute floor (it turned 1e-3999 into [-2e-3999, 2e-3999]); the bracket is reported
    with pytest.raises(PrecisionExhausted) as info:
        zero.enclose(eps="0.1", max_prec=1024)
    assert info.value.enclosure.contains(0) and info.value.enclosure.width <= Fraction(1, 2**1000)
    enc = zero.enclose(eps="0.1", abs_tol=Fraction(1, 10**300))  # an absolute accuracy asked for explicitly
    assert enc.contains(0) and enc.width <= Fraction(1, 10**300)


# --------------------------------------------------------------------------------------------- defect 4


def test_safe_rounding_past_the_largest_double():
    huge = Fraction(10) ** 400
    assert fraction_to_float(huge, "up") == math.inf
    assert fraction_to_float(huge, "down") == sys.float_info.max
    assert fraction_to_float(-huge, "down") == -math.inf
    assert fraction_to_float(-huge, "up") == -sys.float_info.max
    assert Enclosure(Fraction(1), huge).float_up() == math.inf


# --------------------------------------------------------------------------------------------- defect 5


@pytest.mark.parametrize(
    ("value", "param"),
    [
        ("1e-10000000", "eps"),  # hung building 10^10000000
        ("²", "eps"),  # bare ValueError
        (10**5000, "eps"),  # bare ValueError (int to str)
        ("1e400", "eps"),  # OverflowError in the float path
        ("1e11", "eps"),  # exhausted memory in composition.drv.eps
    ],
    ids=["1e-10000000", "superscript", "10**5000", "1e400", "1e11"],
)
def test_odd_or_huge_real_inputs_are_refused_at_once_by_name(value, param):
    t0 = time.perf_counter()
    with pytest.raises(InvalidParameter) as info:
        Q["composition.drv.eps"].enclose(k=1, eps=value, delta_prime="0.1")
    assert info.value.name == param
    assert time.perf_counter() - t0 < 5  # refused at once, not after minutes (a generous bound, not a benchmark)


@pytest.mark.parametrize(
    "value", ["²", "99999999999999999999", 10**5000, "1e3"], ids=["sup", "1e20", "10**5000", "1e3"]
)
def test_odd_or_huge_integer_inputs_are_refused_by_name(value):
    with pytest.raises(InvalidParameter) as info:
        Q["composition.kov.delta"].enclose(k=value, eps="0.1", eps_g="1")
    assert info.value.name == "k"


def test_a_long_double_is_taken_exactly_not_rounded_to_a_double():
    x = np.longdouble(1) / np.longdouble(3)
    num, den = x.as_integer_ratio()
    assert parse_rational(x, "eps").value == Fraction(num, den)
    if np.finfo(np.longdouble).nmant > 52:  # x86: 64-bit mantissa
        assert parse_rational(x, "eps").value != Fraction(float(x))


def test_integer_strings_are_ascii_digits():
    assert parse_int("+12", "k") == 12
    for bad in ("²", "١٢", "1_000", "0x10"):
        with pytest.raises(InvalidParameter):
            parse_int(bad, "k")


# --------------------------------------------------------------------------------------------- defect 6


def _cli(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors exit through SystemExit, as the console script does
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "composition.simple.eps", "k=1", "eps=0.1", "--digits", "-3"],
        ["eval", "composition.simple.eps", "k=1", "eps=0.1", "--digits", "-400"],
        ["verify", "--max-prec", "0"],
        ["eval", "composition.simple.eps", "k=1", "eps=0.1", "bogus"],
        ["eval", "composition.drv.eps", "k=1", "eps=1e11", "delta_prime=0.1"],
        ["claim", "composition.simple.eps", "k=1", "eps=0.1", "--at-most", "1", "--id", "../x"],
    ],
)
def test_cli_failures_are_one_line_and_exit_2(capsys, argv):
    code, out, err = _cli(capsys, *argv)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_cli_certificate_into_a_file_or_unwritable_place_is_one_line(capsys, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    for target in (afile, "/proc/no/such/dir"):
        code, _, err = _cli(
            capsys, "claim", "composition.simple.eps", "k=1", "eps=0.1", "--at-most", "1", "--certificate", str(target)
        )
        assert code == 2 and len(err.strip().splitlines()) == 1 and "certificate" in err


def test_cli_id_cannot_escape_the_certificate_directory(capsys, tmp_path):
    certs = tmp_path / "certs"
    code, _, _ = _cli(
        capsys, "claim", "composition.simple.eps", "k=1", "eps=0.1", "--at-most", "1", "--id", "/tmp/x",
        "--certificate", str(certs),
    )  # fmt: skip
    assert code == 2 and not list(tmp_path.rglob("*.json"))


def test_dpcert_errors_share_one_root():
    assert issubclass(CertificateError, DpcertError) and issubclass(PrecisionExhausted, DpcertError)
