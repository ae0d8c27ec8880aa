"""A certified privacy accountant for dp-accounting's event language.

* :mod:`dpcert.accounting.events`: dpcert's events, with dp-accounting 0.6's class and field names and every number
  exact (and :class:`~dpcert.accounting.events.DiscreteGaussianDpEvent`, which dp-accounting lacks);
* :mod:`dpcert.accounting.accountant`: :class:`~dpcert.accounting.accountant.Accountant`, which composes events
  (dpcert's or dp-accounting's own objects) and answers a certified ε(δ) or δ(ε) under a stated neighbouring
  relation, by the PLD engine where a dominating pair is known;
* :mod:`dpcert.accounting.eventfile`: events as JSON files (with a JSON Schema);
* :mod:`dpcert.accounting.quantities`: ``accounting.eps`` and ``accounting.delta`` (``events=FILE``);
* :mod:`dpcert.accounting.claims`: the replace-one Gaussian's ε, reproduced.

Public names (imported on first use): :class:`Accountant`, :class:`AccountingResult`, :func:`read_events`,
:func:`as_event`.
"""

from dpcert.accounting.declaration import DECLARATION

__all__ = ["QUANTITIES", "CLAIMS", "Accountant", "AccountingResult", "UnsupportedEventError", "read_events",
           "as_event"]  # fmt: skip

_EXPORTS = {
    "Accountant": "accountant",
    "AccountingResult": "accountant",
    "UnsupportedEventError": "accountant",
    "read_events": "eventfile",
    "as_event": "events",
}

# QUANTITIES and CLAIMS (from the submodules the declaration names) and the public names are built on first access,
# so that importing the package loads none of its mathematics
__getattr__ = DECLARATION.lazy_tables(_EXPORTS)
