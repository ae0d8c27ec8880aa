"""A wall-clock guard for tests that must not hang: ``with time_limit(s): ...`` raises :class:`Hang` after s seconds.

``Hang`` is a ``BaseException`` so that code under test catching ``Exception`` (the CLI's ``main``) cannot swallow it.
The guard uses SIGALRM, so it interrupts Python code only (a long call inside a C extension ends first).
"""

import signal
from contextlib import contextmanager


class Hang(BaseException):
    """Raised by :func:`time_limit` when the guarded block runs past its time."""


@contextmanager
def time_limit(seconds: float):
    def fail(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, fail)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
