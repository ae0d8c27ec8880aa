"""Event files: privacy events as JSON, in dp-accounting's event language, read strictly and exactly.

A file holds one event, or a list of events composed in order. An event is an object naming its dp-accounting
class under ``"type"`` and its fields by dp-accounting's names, nested events under ``"event"`` / ``"events"``::

    {"type": "ComposedDpEvent", "events": [
      {"type": "SelfComposedDpEvent", "count": 1000,
       "event": {"type": "PoissonSampledDpEvent", "sampling_probability": "0.01",
                 "event": {"type": "GaussianDpEvent", "noise_multiplier": 1.1}}},
      {"type": "LaplaceDpEvent", "noise_multiplier": "2"}]}

Numbers are exact: a JSON number is read at its decimal text (``1.1`` is 11/10, never the binary double), a
string may be a decimal or a fraction (``"1/3"``). The JSON Schema ``dpcert/schemas/events.schema.json`` states the
shape for readers without dpcert; this module does not need the ``jsonschema`` package and refuses what the schema
refuses (an unknown type, a missing or unknown field, a number that is neither), and then checks the domains
(probabilities in [0, 1], noise >= 0, …), naming the field by its path (``events[1].event.noise_multiplier``).
"""

from __future__ import annotations

import json
import os
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from dpcert.accounting.events import EVENT_CLASSES, MAX_DEPTH, MAX_ITEMS, ComposedDpEvent, DpEvent, as_event
from dpcert.core import files
from dpcert.errors import InvalidParameter

__all__ = ["read_events", "loads_events", "dumps_events", "write_events", "event_of_json", "schema_path"]

_INTEGER = {"num_buckets", "sensitivity", "source_dataset_size", "sample_size", "dataset_size",
            "truncated_batch_size", "count", "step_counts"}  # fmt: skip


def schema_path() -> Path:
    """The event files' JSON Schema (Draft 2020-12)."""
    return Path(__file__).resolve().parents[1] / "schemas" / "events.schema.json"


def _where(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _scalar(path: str, value: Any) -> Any:
    """A number field's value as the reader hands it on: text (a JSON number arrives as its text)."""
    if not isinstance(value, str):
        raise InvalidParameter(path, value, 'a number (a JSON number or a string such as "0.1" or "1/3")')
    return value


def event_of_json(data: Any, path: str = "", depth: int = 0) -> DpEvent:
    """The event of one parsed JSON object (numbers as text, as :func:`loads_events` parses them).

    Raises:
        InvalidParameter: naming the field's path, for an unknown type, a missing or unknown field, a value out of
            its domain.
    """
    if depth > MAX_DEPTH:
        raise InvalidParameter(path or "event", "<nested too deep>", f"events nested at most {MAX_DEPTH} deep")
    if not isinstance(data, dict):
        raise InvalidParameter(path or "event", _clip(data), 'an event: an object with a "type"')
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in EVENT_CLASSES:
        raise InvalidParameter(_where(path, "type"), kind, "one of " + ", ".join(sorted(EVENT_CLASSES)))
    cls = EVENT_CLASSES[kind]
    names = [f.name for f in fields(cls)]
    unknown = [k for k in data if k != "type" and k not in names]
    if unknown:
        raise InvalidParameter(_where(path, unknown[0]), _clip(data[unknown[0]]),
                               f"a field of {kind}: {', '.join(names) or 'none'}")  # fmt: skip
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        where = _where(path, f.name)
        if f.name not in data:
            if f.default is MISSING:
                raise InvalidParameter(where, None, f"a value: {kind} needs its field {f.name}")
            continue
        v = data[f.name]
        if f.name == "event":
            kwargs[f.name] = event_of_json(v, where, depth + 1)
        elif f.name == "events":
            if not isinstance(v, list):
                raise InvalidParameter(where, _clip(v), "a list of events")
            if len(v) > MAX_ITEMS:
                raise InvalidParameter(where, f"<{len(v)} events>", f"at most {MAX_ITEMS} events")
            kwargs[f.name] = [event_of_json(e, f"{where}[{i}]", depth + 1) for i, e in enumerate(v)]
        elif isinstance(v, list):
            if f.name not in ("sensitivities", "sampling_probs", "step_counts"):
                raise InvalidParameter(where, _clip(v), "a number, not a list")
            kwargs[f.name] = [_scalar(f"{where}[{i}]", x) for i, x in enumerate(v)]
        else:
            if f.name in ("sensitivities", "sampling_probs"):
                raise InvalidParameter(where, _clip(v), "a list of numbers")
            kwargs[f.name] = _scalar(where, v)
    try:
        return cls(**kwargs)
    except InvalidParameter as exc:
        raise InvalidParameter(_where(path, exc.name), exc.value, exc.allowed) from None


def _clip(v: Any) -> Any:
    text = json.dumps(v) if not isinstance(v, str) else v
    return text if len(text) <= 60 else text[:50] + "…"


def loads_events(text: str, *, where: str = "<text>") -> DpEvent:
    """The event of an event file's text (a list of events is their :class:`ComposedDpEvent`).

    Raises:
        InvalidParameter: for invalid JSON or an invalid event (one line naming the field).
    """
    data = files.loads_json(text, where=where, what="events", max_depth=3 * MAX_DEPTH, parse_float=str,
                            parse_int=str)  # fmt: skip
    if isinstance(data, list):
        if len(data) > MAX_ITEMS:
            raise InvalidParameter("events", f"<{len(data)} events>", f"at most {MAX_ITEMS} events")
        return ComposedDpEvent([event_of_json(e, f"[{i}]", 1) for i, e in enumerate(data)])
    return event_of_json(data)


def read_events(path: str | os.PathLike[str]) -> DpEvent:
    """The event of an event file (:func:`loads_events`).

    Raises:
        InvalidParameter: an unreadable file (named ``events``), invalid JSON or an invalid event.
    """
    return loads_events(files.read_text(path, what="events"), where=os.fspath(path))


def dumps_events(event: Any) -> str:
    """An event (dpcert's or dp-accounting's) as event-file text, every number an exact string.

    >>> from dpcert.accounting.events import GaussianDpEvent
    >>> dumps_events(GaussianDpEvent(1.1))
    '{"type": "GaussianDpEvent", "noise_multiplier": "1.1"}'
    """
    return json.dumps(as_event(event).to_json(), ensure_ascii=False)


def write_events(event: Any, path: str | os.PathLike[str], *, option: str = "path") -> Path:
    """Write an event file (atomically; the path checked by :func:`dpcert.core.files.check_output`)."""
    files.check_output(path, option=option)
    return files.atomic_write_text(path, dumps_events(event) + "\n", what="events")
