"""What a chunk of a parallel run decided (:class:`Summary`), and its exact JSON form for checkpoints."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["Summary"]


@dataclass
class Summary:
    """What a chunk decided: counts by path, the worst case (largest ``score``), undecided items, refutations.

    ``merge`` is associative and keeps the first of equal scores in chunk order, so merging in order gives the
    same summary for any chunking of the same items. ``failed`` lists the chunks that could not be run (their
    worker died on every attempt): their items are decided by nobody, and a caller reports their range UNDECIDED.
    """

    counts: dict[str, int] = field(default_factory=dict)
    worst_score: Any = None
    worst_case: Any = None
    undecided: list[Any] = field(default_factory=list)
    refuted: list[Any] = field(default_factory=list)
    #: the highest ball precision (bits) any item needed; 0 when everything was exact
    precision: int = 0
    #: the chunks whose worker died on every attempt, each as ``{"chunk": i, "of": n, "range": ..., "reason": ...}``
    failed: list[Any] = field(default_factory=list)

    def add(self, path: str, n: int = 1) -> None:
        self.counts[path] = self.counts.get(path, 0) + n

    def used(self, prec: int) -> None:
        """Record that an item was decided at ``prec`` bits."""
        self.precision = max(self.precision, prec)

    def consider(self, score: Any, case: Any) -> None:
        """Keep ``case`` if its score is the largest so far (ties keep the earlier case)."""
        if self.worst_score is None or score > self.worst_score:
            self.worst_score, self.worst_case = score, case

    def merge(self, other: Summary) -> Summary:
        out = Summary(
            dict(self.counts),
            self.worst_score,
            self.worst_case,
            [*self.undecided, *other.undecided],
            [*self.refuted, *other.refuted],
            max(self.precision, other.precision),
            [*self.failed, *other.failed],
        )
        for path, n in other.counts.items():
            out.add(path, n)
        if other.worst_score is not None:
            out.consider(other.worst_score, other.worst_case)
        return out

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON-safe data that :meth:`from_json` restores exactly (tuples, floats, fractions)."""
        return {k: _encode(getattr(self, k)) for k in _FIELDS}

    @classmethod
    def from_json(cls, data: Any) -> Summary:
        """The summary :meth:`to_json` gave.

        Raises:
            ValueError: ``data`` is not one (a field missing, unknown or of the wrong type).
        """
        if not isinstance(data, dict) or set(data) != set(_FIELDS):
            raise ValueError("not a summary")
        out = cls(**{k: _decode(data[k]) for k in _FIELDS})
        counts_ok = isinstance(out.counts, dict) and all(type(n) is int for n in out.counts.values())
        lists_ok = all(isinstance(x, list) for x in (out.undecided, out.refuted, out.failed))
        if not counts_ok or not lists_ok or type(out.precision) is not int:
            raise ValueError("not a summary")
        return out


_FIELDS = ("counts", "worst_score", "worst_case", "undecided", "refuted", "precision", "failed")


def _encode(v: Any) -> Any:
    """JSON-safe, type-preserving: floats by their hex (exact, also inf), tuples and fractions tagged."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return {"f": v.hex()}
    if isinstance(v, Fraction):
        return {"q": [v.numerator, v.denominator]}
    if isinstance(v, tuple):
        return {"t": [_encode(x) for x in v]}
    if isinstance(v, list):
        return [_encode(x) for x in v]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"d": {k: _encode(x) for k, x in v.items()}}
    if type(v).__module__ == "numpy" and hasattr(v, "item"):  # a numpy scalar: its Python value
        return _encode(v.item())
    raise TypeError(f"a checkpoint cannot record a {type(v).__name__}")


def _decode(v: Any) -> Any:
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if not isinstance(v, dict):
        return v
    if set(v) == {"f"}:
        return float.fromhex(v["f"])
    if set(v) == {"q"}:
        return Fraction(*v["q"])
    if set(v) == {"t"}:
        return tuple(_decode(x) for x in v["t"])
    if set(v) == {"d"}:
        return {k: _decode(x) for k, x in v["d"].items()}
    raise ValueError("unknown tag")
