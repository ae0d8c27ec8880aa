"""The ``dpcert`` pytest plugin (entry point ``pytest11``): parametrise tests over dpcert's golden vectors.

A test that takes an argument named ``dpcert_vector`` runs once per bundled vector (ids: the vector ids), or once
per vector of a selection::

    import pytest
    from dpcert.testing import assert_within_certified

    @pytest.mark.dpcert_vectors(topic="composition", quantity="composition.kov.delta")
    def test_my_kov(dpcert_vector):
        value = my_kov_delta(**{k: float(v) for k, v in dpcert_vector.inputs.items()})
        assert_within_certified(value, dpcert_vector, rel_tol=1e-9, bound="upper")

The marker takes the arguments of :func:`dpcert.testing.vectors` (``topic``, ``quantity``, ``path``); a ``path=``
file's vectors judge nothing until the file re-certifies (see :mod:`dpcert.testing`). Nothing is
imported from dpcert until a test asks for ``dpcert_vector``, so the plugin costs nothing to other test suites.

The vectors of the PLD brackets (``dpsgd.*``, ``laplace.*``, ``accounting.*``) hold a certified bracket at a stated
width; ``assert_within_certified`` judges a value against it and, when it does not decide, computes a narrower one
within a time budget. ``pytest --dpcert-seconds S`` sets that budget for the session (default
:data:`dpcert.testing.BRACKET_SECONDS`; an explicit ``seconds=`` in a test wins), so that CI can give a slow machine
more time without editing the tests.
"""

from __future__ import annotations

from typing import Any

__all__ = ["pytest_addoption", "pytest_configure", "pytest_generate_tests"]

_ARG = "dpcert_vector"


def pytest_addoption(parser: Any) -> None:
    """``--dpcert-seconds S``: the time budget of a bracket quantity's certified bracket in this session."""
    parser.getgroup("dpcert").addoption(
        "--dpcert-seconds",
        dest="dpcert_seconds",
        default=None,
        metavar="S",
        help="time budget (seconds) for a bracket quantity's certified bracket in assert_within_certified "
        "(default 10; an explicit seconds= in a test wins)",
    )


def _seconds(text: str) -> float:
    import math

    import pytest

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise pytest.UsageError(f"--dpcert-seconds: expected a positive finite number of seconds, got {text!r}")
    return value


def pytest_configure(config: Any) -> None:
    """Register the ``dpcert_vectors`` marker (so ``--strict-markers`` accepts it); apply ``--dpcert-seconds``."""
    given = config.getoption("dpcert_seconds", None)
    if given is not None:
        import dpcert.testing

        dpcert.testing._SESSION_SECONDS = _seconds(given)
    config.addinivalue_line(
        "markers",
        "dpcert_vectors(topic=None, quantity=None, path=None): the golden vectors a test's `dpcert_vector` "
        "argument runs over (dpcert.testing.vectors)",
    )


def pytest_generate_tests(metafunc: Any) -> None:
    """Parametrise ``dpcert_vector`` over the vectors the ``dpcert_vectors`` marker selects (all by default)."""
    if _ARG not in metafunc.fixturenames:
        return
    from dpcert.testing import vectors

    marker = metafunc.definition.get_closest_marker("dpcert_vectors")
    kwargs = dict(marker.kwargs) if marker is not None else {}
    metafunc.parametrize(_ARG, vectors(**kwargs))
