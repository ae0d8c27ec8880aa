import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# CI runs the same examples every time (no flaky reds); `HYPOTHESIS_PROFILE=explore pytest` searches afresh.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", max_examples=500, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _mpmath_precision_restored():
    """A test that sets ``mpmath.mp.dps`` sets it for itself only: the precision is restored after each test, so a
    reference computed later never runs at a precision another module left behind."""
    import mpmath

    prec = mpmath.mp.prec
    yield
    mpmath.mp.prec = prec
