"""``dpcert.testing``: assert_within_certified passes correct float implementations (independent float formulas),
fails one wrong in the 10th digit with a message showing the enclosure, the value, the distance and the direction,
and judges bounds by safety; ``vectors()`` and the pytest plugin parametrise over the bundled vectors."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from dpcert.errors import InvalidParameter
from dpcert.testing import assert_within_certified, vectors
from dpcert.vectors import Vector, load

pytest_plugins = ["pytester"]


# ------------------------------------------------------------------------ float implementations (independent)


def simple_eps(k: int, eps: float) -> float:
    return k * eps


def gaussian_delta(eps: float, sigma: float, sensitivity: float = 1.0, k: int = 1) -> float:
    """Balle-Wang's privacy profile of the (k-fold) Gaussian mechanism in float64, with erfc."""
    mu = sensitivity * math.sqrt(k) / sigma

    def phi(x: float) -> float:
        return 0.5 * math.erfc(-x / math.sqrt(2))

    return phi(mu / 2 - eps / mu) - math.exp(eps) * phi(-mu / 2 - eps / mu)


def rr_delta(eps: float, eps_g: float) -> float:
    """delta(eps_g) of one eps-DP randomized response."""
    return max(0.0, (math.exp(eps) - math.exp(eps_g)) / (1 + math.exp(eps)))


def wrong_in_10th_digit(x: float) -> float:
    """``x`` with its 10th significant digit changed by one."""
    mant, exp = f"{x:.16e}".split("e")
    digits = mant.replace(".", "")
    d = int(digits[9])
    digits = digits[:9] + str(d + 1 if d < 9 else d - 1) + digits[10:]
    return float(f"{digits[0]}.{digits[1:]}e{exp}")


def _vector(vid: str) -> Vector:
    return next(v for v in load() if v.id == vid)


def _f(v: Vector, name: str) -> float:
    return float(Fraction(v.inputs[name]))


# ------------------------------------------------------------------------ correct implementations pass


@pytest.mark.parametrize("vector", vectors(quantity="composition.simple.eps"))
def test_a_correct_simple_composition_passes_every_vector(vector):
    assert_within_certified(simple_eps(int(vector.inputs["k"]), _f(vector, "eps")), vector)


@pytest.mark.parametrize("vid", ["gaussian.delta.sigma1", "gaussian.delta.negative_eps", "gaussian.delta.huge_k"])
def test_a_correct_gaussian_delta_passes(vid):
    v = _vector(vid)
    value = gaussian_delta(_f(v, "eps"), _f(v, "sigma"), float(Fraction(v.inputs.get("sensitivity", "1"))),
                           int(v.inputs.get("k", "1")))  # fmt: skip
    assert_within_certified(value, v)  # a bundled vector
    assert_within_certified(value, "gaussian.delta", **v.inputs)  # the quantity by name, enclosed afresh


def test_the_default_tolerance_is_1e_12_relative():
    value = gaussian_delta(1.0, 1.0)
    assert_within_certified(value * (1 + 5e-13), "gaussian.delta", eps="1", sigma="1")
    with pytest.raises(AssertionError):
        assert_within_certified(value * (1 + 5e-12), "gaussian.delta", eps="1", sigma="1")


# ------------------------------------------------------------------------ wrong in the 10th digit fails


def test_an_implementation_wrong_in_the_10th_digit_fails_with_a_full_message():
    v = _vector("gaussian.delta.sigma1")
    right = gaussian_delta(1.0, 1.0)
    wrong = wrong_in_10th_digit(right)
    assert f"{right:.17e}"[:10] == f"{wrong:.17e}"[:10] and f"{right:.17e}"[10] != f"{wrong:.17e}"[10]
    with pytest.raises(AssertionError) as info:
        assert_within_certified(wrong, v, rel_tol=1e-12)
    msg = str(info.value)
    assert msg.startswith("vector gaussian.delta.sigma1: gaussian.delta(eps=1, sigma=1): above the enclosure")
    assert f"certified enclosure: [{v.lo}, {v.hi}]" in msg
    assert f"value:     {wrong!r}" in msg
    shown = Fraction(re.search(r"distance:  (\S+) \(above hi\)", msg).group(1))
    true_distance = Fraction(wrong) - v.interval[1]
    assert abs(shown - true_distance) <= true_distance / 100  # three significant digits
    assert "allowed:" in msg and "rel_tol=1e-12" in msg
    # within the implementation's own stated tolerance it passes
    assert_within_certified(wrong, v, rel_tol=1e-8)


def test_a_value_below_says_below():
    with pytest.raises(AssertionError, match=r"below the enclosure\n(.|\n)*\(below lo\)"):
        assert_within_certified(0.2876491365, "composition.kov.delta", k=1, eps=1, eps_g="0.5")


# ------------------------------------------------------------------------ bounds


def test_an_upper_bound_must_be_safe_with_no_tolerance_on_the_unsafe_side():
    v = _vector("composition.kov.delta.k1")  # irrational: no double equals it
    up, down = math.nextafter(rr_delta(1.0, 0.5), math.inf), math.nextafter(rr_delta(1.0, 0.5), -math.inf)
    assert Fraction(down) < v.interval[0] and Fraction(up) > v.interval[1]
    assert_within_certified(up, v, bound="upper")
    with pytest.raises(AssertionError, match="UNSAFE: the claimed upper bound is below the certified value"):
        assert_within_certified(down, v, bound="upper", rel_tol=1e-3)  # a tolerance does not excuse it
    assert_within_certified(down, v, rel_tol=1e-12)  # as an estimate it is fine
    # the mirror image
    assert_within_certified(down, v, bound="lower")
    with pytest.raises(AssertionError, match="UNSAFE: the claimed lower bound is above the certified value"):
        assert_within_certified(up, v, bound="lower", rel_tol=1e-3)


def test_a_bound_inside_a_wide_enclosure_is_decided_by_recomputing():
    """Both doubles lie inside the (wide) recorded enclosure, so only the recomputation at rising precision can
    tell the safe one from the unsafe one; neither passes unproved."""
    base = _vector("composition.kov.delta.k1")
    wide = Vector(base.id, base.topic, base.quantity, base.inputs, "0.287", "0.288", False, base.why,
                  base.certificate_file, base.certificate_sha256, base.dpcert)  # fmt: skip
    truth = rr_delta(1.0, 0.5)
    up, down = math.nextafter(truth, math.inf), math.nextafter(truth, -math.inf)
    assert wide.interval[0] < Fraction(down) < Fraction(up) < wide.interval[1]
    assert_within_certified(up, wide, bound="upper", rel_tol=1e-2)
    with pytest.raises(AssertionError, match="UNSAFE") as info:
        assert_within_certified(down, wide, bound="upper", rel_tol=1e-2)
    # the distance is the recomputed one (one ulp or less), not the wide enclosure's 0
    shown = Fraction(re.search(r"distance:  (\S+) \(at least, below lo\)", str(info.value)).group(1))
    assert 0 < shown <= Fraction(up) - Fraction(down)
    assert_within_certified(down, wide, bound="lower", rel_tol=1e-2)
    with pytest.raises(AssertionError, match="UNSAFE"):
        assert_within_certified(up, wide, bound="lower", rel_tol=1e-2)


def test_a_loose_bound_fails_beyond_its_tolerance():
    v = _vector("gaussian.delta.sigma1")
    loose = 1.01 * gaussian_delta(1.0, 1.0)
    with pytest.raises(AssertionError, match="too loose: the claimed upper bound is above the enclosure") as info:
        assert_within_certified(loose, v, bound="upper", rel_tol=1e-3)
    assert "(at least, above hi)" in str(info.value)
    assert_within_certified(loose, v, bound="upper", rel_tol=0.02)
    with pytest.raises(AssertionError, match="too loose: the claimed lower bound is below"):
        assert_within_certified(0.99 * gaussian_delta(1.0, 1.0), v, bound="lower", rel_tol=1e-3)


def test_an_exact_value_is_a_safe_bound_both_ways():
    assert_within_certified(0.5, "composition.simple.eps", k=5, eps="0.1", bound="upper")
    assert_within_certified(0.5, "composition.simple.eps", k=5, eps="0.1", bound="lower")
    assert_within_certified(Fraction(1, 3), "composition.simple.eps", k=1, eps="1/3", bound="upper", rel_tol=0)


def test_a_delta_below_float_range():
    """delta = 1.37e-536: float64 gives 0.0. As an estimate it passes only with an absolute tolerance; as an upper
    bound it is unsafe whatever the tolerance."""
    v = _vector("gaussian.delta.tiny_delta")
    assert gaussian_delta(50.0, 1.0) == 0.0
    with pytest.raises(AssertionError, match="below the enclosure"):
        assert_within_certified(0.0, v)
    assert_within_certified(0.0, v, abs_tol=1e-300)
    with pytest.raises(AssertionError, match="UNSAFE"):
        assert_within_certified(0.0, v, bound="upper", abs_tol=1.0)
    assert_within_certified(5e-324, v, bound="upper", abs_tol=1e-300)  # the least positive double is safe


def test_nan_and_infinity():
    with pytest.raises(AssertionError, match="NaN"):
        assert_within_certified(math.nan, "composition.simple.eps", k=1, eps="1")
    with pytest.raises(AssertionError, match="too loose: the claimed upper bound is infinite"):
        assert_within_certified(math.inf, "composition.simple.eps", k=1, eps="1", bound="upper")
    with pytest.raises(AssertionError, match="UNSAFE"):
        assert_within_certified(-math.inf, "composition.simple.eps", k=1, eps="1", bound="upper")


def test_arguments_are_validated():
    v = _vector("composition.simple.eps.k1")
    with pytest.raises(InvalidParameter, match="bound"):
        assert_within_certified(0.1, v, bound="above")
    with pytest.raises(InvalidParameter, match="inputs"):
        assert_within_certified(0.1, v, k=2)
    with pytest.raises(InvalidParameter, match="rel_tol"):
        assert_within_certified(0.1, v, rel_tol=-1)
    with pytest.raises(InvalidParameter, match="quantity"):
        assert_within_certified(0.1, "no.such.quantity", k=1)
    with pytest.raises(InvalidParameter, match="seconds"):
        assert_within_certified(0.1, v, seconds=5)  # not a bracket quantity
    with pytest.raises(InvalidParameter, match="seconds"):
        assert_within_certified(0.3, "br.adaptive.delta", k=2, eps=1, eps_g=0, seconds=-1)
    # a lattice bracket here: computed within the budget, and 0.3 is below it (the bracket is [0.30336, 0.30353])
    with pytest.raises(AssertionError, match="below the certified bracket"):
        assert_within_certified(0.3, "br.adaptive.delta", k=2, eps=1, eps_g=0, seconds=2)


def test_a_vector_record_and_an_input_named_bound():
    record = _vector("shuffle.rdp.upper.default").to_json()
    enc = assert_within_certified(0.018124938187994623, record, bound="upper")
    again = assert_within_certified(
        enc.float_up(), "shuffle.rdp.upper", inputs={"n": 1000, "eps0": "1", "lam": "4", "bound": "default"},
        bound="upper",
    )  # fmt: skip
    assert again.lo <= enc.hi and enc.lo <= again.hi


# ------------------------------------------------------------------------ parametrisation and the plugin


def test_vectors_gives_params_with_the_vector_ids():
    params = vectors(topic="rdp")
    rdp = [v for v in load() if v.topic == "rdp"]
    assert [p.id for p in params] == [v.id for v in rdp] and [p.values[0] for p in params] == rdp
    assert {p.values[0].quantity for p in vectors(quantity="composition.kov.*")} == {
        "composition.kov.delta",
        "composition.kov.eps",
    }
    with pytest.raises(InvalidParameter, match="at least one vector"):
        vectors(topic="composition", quantity="rdp.*")


def test_the_pytest_plugin_parametrises_dpcert_vector(pytester, request):
    pytester.makepyfile(
        """
        import pytest
        from fractions import Fraction
        from dpcert.testing import assert_within_certified

        @pytest.mark.dpcert_vectors(quantity="composition.simple.eps")
        def test_simple(dpcert_vector):
            k, eps = int(dpcert_vector.inputs["k"]), float(Fraction(dpcert_vector.inputs["eps"]))
            assert_within_certified(k * eps, dpcert_vector)

        @pytest.mark.dpcert_vectors(topic="rdp")
        def test_wrong(dpcert_vector):
            assert_within_certified(-1.0, dpcert_vector)
        """
    )
    # the entry point loads the plugin once dpcert is installed with it; otherwise name it
    loaded = request.config.pluginmanager.has_plugin("dpcert")
    args = ["-p", "no:cacheprovider", "--strict-markers"] + ([] if loaded else ["-p", "dpcert.pytest_plugin"])
    result = pytester.runpytest(*args)
    n_rdp = sum(v.topic == "rdp" for v in load())
    result.assert_outcomes(passed=3, failed=n_rdp)
    result.stdout.fnmatch_lines(["*below the enclosure*"])


@pytest.mark.parametrize("name", ["dpcert.vectors", "dpcert.testing"])
def test_the_docstring_examples_hold(name):
    import doctest
    import importlib

    failures, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_numpy_scalars_are_taken_at_their_exact_value():
    np = pytest.importorskip("numpy")
    assert_within_certified(np.float64(0.3), "composition.simple.eps", k=3, eps="0.1")
    assert_within_certified(np.int64(3), "composition.simple.eps", k=3, eps="1", bound="upper")
    # float32(0.3) is 0.30000001192092896 exactly: 4e-8 relative above 3/10
    with pytest.raises(AssertionError, match="above the enclosure"):
        assert_within_certified(np.float32(0.3), "composition.simple.eps", k=3, eps="0.1")
    assert_within_certified(np.float32(0.3), "composition.simple.eps", k=3, eps="0.1", rel_tol=1e-7)
    with pytest.raises(AssertionError, match="NaN"):
        assert_within_certified(np.float32("nan"), "composition.simple.eps", k=3, eps="0.1")
    with pytest.raises(InvalidParameter, match="value"):
        assert_within_certified("0.3", "composition.simple.eps", k=3, eps="0.1")


# ------------------------------------------------------------------------ a vectors file is verified before it judges

# Four forged files, each a copy of the bundled vectors and certificates with one vector's interval edited (what a
# stale, hand-edited or hostile file holds), and a wrong implementation the forged interval lets through: each
# value is checked against the quantity's true value computed here independently of the file.
_FORGERIES = {
    "seven_times_eps": ("composition.simple.eps.k1", "0.7", "0.7", 0.7, None),  # true: 0.1
    "double_eps": ("composition.simple.eps.k1", "0.2", "0.2", 0.2, None),  # true: 0.1
    # an upper bound of half the true delta (0.12693673750664394580...)
    "half_delta_upper": (
        "gaussian.delta.sigma1",
        "0.06346836875332197",
        "0.06346836875332197",
        0.06346836875332197,
        "upper",
    ),  # fmt: skip
    "astronomic_interval": ("composition.simple.eps.k1", "-1e99999", "1e99999", 123.0, None),  # true: 0.1
}


def _forged_file(tmp_path, vid: str, lo: str, hi: str):
    import json
    import shutil

    from dpcert.vectors.format import bundled_path

    src = bundled_path()
    shutil.copytree(src.parent / "certificates", tmp_path / "certificates")
    doc = json.loads(src.read_text(encoding="utf-8"))
    (record,) = [r for r in doc["vectors"] if r["id"] == vid]
    record["lo"], record["hi"] = lo, hi
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_the_forged_values_are_wrong():  # independent of dpcert: the true values the forgeries misstate
    assert simple_eps(1, 0.1) == 0.1
    true_delta = gaussian_delta(1.0, 1.0)
    assert abs(true_delta - 0.12693673750664394) < 1e-15 and 0.06346836875332197 < true_delta / 1.9


@pytest.mark.parametrize("name", sorted(_FORGERIES))
def test_a_forged_vectors_file_judges_nothing(tmp_path, name):
    from dpcert.vectors.check import check

    vid, lo, hi, wrong, bound = _FORGERIES[name]
    path = _forged_file(tmp_path, vid, lo, hi)
    try:  # `dpcert vectors check` refuses the file: a failed vector, or a file it cannot read as vectors
        refused = check(path).exit_code != 0
    except InvalidParameter:
        refused = True
    assert refused
    (v,) = [v for v in load(path) if v.id == vid]
    with pytest.raises(AssertionError, match="did not verify") as info:
        assert_within_certified(wrong, v, bound=bound)
    assert "unverified data" in str(info.value) and "is not a certified enclosure" in str(info.value)
    # every vector of a file that does not verify is refused, not only the edited one
    (other,) = [v for v in load(path) if v.id == "composition.simple.eps.huge_k"]
    with pytest.raises(AssertionError, match="did not verify"):
        assert_within_certified(1e11, other)
    # the parametrisation over the file yields the same refusal
    (param,) = [p for p in vectors(path=path) if p.id == vid]
    with pytest.raises(AssertionError, match="did not verify"):
        assert_within_certified(wrong, param.values[0], bound=bound)


def test_a_forged_vector_record_is_recomputed_and_refused():
    record = _vector("composition.simple.eps.k1").to_json()
    record["lo"] = record["hi"] = "0.7"
    with pytest.raises(AssertionError, match="did not re-certify.*unverified data"):
        assert_within_certified(0.7, record)
    good = _vector("composition.simple.eps.k1").to_json()
    assert_within_certified(0.1, good)


def test_a_genuine_copy_verifies_once_and_still_judges(tmp_path):
    import dpcert.testing as testing

    path = _forged_file(tmp_path, "composition.simple.eps.k1", "0.1", "0.1")  # the genuine values
    (v,) = [v for v in load(path) if v.id == "composition.simple.eps.k1"]
    before = len(testing._VERIFIED_FILES)
    assert_within_certified(0.1, v)
    with pytest.raises(AssertionError, match="above the enclosure"):
        assert_within_certified(0.7, v)
    assert len(testing._VERIFIED_FILES) == before + 1  # one check of the file for both
    # an edit after the check is a new content: checked again, and refused
    path.write_text(path.read_text(encoding="utf-8").replace('"hi": "0.1"', '"hi": "0.7"', 1), encoding="utf-8")
    (edited,) = [v for v in load(path) if v.id == "composition.simple.eps.k1"]
    with pytest.raises(AssertionError, match="did not verify"):
        assert_within_certified(0.7, edited)
    with pytest.raises(AssertionError, match="did not verify"):
        assert_within_certified(0.1, v)  # the vector read before the edit: its file no longer verifies


def test_the_pytest_plugin_refuses_a_forged_file(pytester, request, tmp_path):
    path = _forged_file(tmp_path, "composition.simple.eps.k1", "0.7", "0.7")
    pytester.makepyfile(
        f"""
        import pytest
        from dpcert.testing import assert_within_certified

        @pytest.mark.dpcert_vectors(quantity="composition.simple.eps", path={str(path)!r})
        def test_seven_times(dpcert_vector):
            k = int(dpcert_vector.inputs["k"])
            assert_within_certified(7 * k * 0.1, dpcert_vector)
        """
    )
    loaded = request.config.pluginmanager.has_plugin("dpcert")
    args = ["-p", "no:cacheprovider", "--strict-markers"] + ([] if loaded else ["-p", "dpcert.pytest_plugin"])
    result = pytester.runpytest(*args)
    n = sum(v.quantity == "composition.simple.eps" for v in load(path))
    result.assert_outcomes(failed=n)
    result.stdout.fnmatch_lines(["*did not verify*"])
