"""``dpcert audit``: other accountants' numbers against dpcert's certified enclosures.

:mod:`~dpcert.audit.cases` holds the cases (a quantity and exact inputs, as golden vectors hold them),
:mod:`~dpcert.audit.peers` the adapters (how each peer computes a quantity), :mod:`~dpcert.audit.run` the
comparison and :mod:`~dpcert.audit.report` the text, Markdown and JSON output. Nothing here is imported by
``import dpcert``; the peers are imported only when an audit runs.
"""

__all__: list[str] = []

#: The default time limit of one peer call, in seconds (``dpcert audit --call-seconds``); here, not in
#: :mod:`dpcert.audit.run`, so that building the CLI parser imports none of the audit's machinery.
CALL_SECONDS = 30.0
