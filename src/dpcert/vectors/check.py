"""Re-certify golden vectors: ``dpcert vectors check`` and the vectors part of ``dpcert verify --full``.

Each vector becomes a claim ``quantity(inputs) lies in [lo, hi]`` expected CERTIFIED, and its check does three
things, any of which failing makes it REFUTED with the reason:

* the certificate named by the vector exists, is intact (``dpcert check``'s reading: format, hash, shape), has the
  ``sha256`` the vector records, and states exactly this vector's claim;
* the claim is re-run: the recorded [lo, hi] must contain the quantity's value (a rigorous ball or exact decision);
* the enclosure is recomputed as ``dpcert vectors export`` computes it (a bracket quantity's at the vector's
  ``width``), and must give the recorded strings: a
  bundled file that differs from a re-run (an edited end, a wider interval, a changed formula) is a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from dpcert.arith.ball import MAX_PREC
from dpcert.core.claim import Evidence, QuantityClaim, Verdict
from dpcert.errors import CertificateError, DpcertError
from dpcert.vectors.format import Vector, bundled_path, load

__all__ = ["VectorClaim", "entries", "check"]


@dataclass(frozen=True)
class VectorClaim(QuantityClaim):
    """The claim of one golden vector, checked against its certificate and a re-run (see the module docstring)."""

    vector: Vector | None = None

    def _certificate_problems(self) -> list[str]:
        from dpcert.engine.certificate import claim_record, load_certificate
        from dpcert.vectors.export import vector_claim

        v = self.vector
        assert v is not None
        if not v.source:
            return []
        path = Path(v.source).parent / v.certificate_file
        if not path.is_file():
            return [f"its certificate {path} is missing"]
        try:
            cert = load_certificate(path)
        except CertificateError as exc:
            return [str(exc)]
        problems = []
        if cert["sha256"] != v.certificate_sha256:
            problems.append(
                f"its certificate's sha256 {cert['sha256'][:12]}… is not the recorded {v.certificate_sha256[:12]}…"
            )
        want = claim_record(vector_claim(v.quantity, v.inputs, v.lo, v.hi, v.id, v.why))
        differ = sorted(k for k in set(want) | set(cert["claim"]) if want.get(k) != cert["claim"].get(k))
        if differ:
            problems.append(f"its certificate's {', '.join(differ)} differ from the vector's claim")
        if cert["verdict"] != "CERTIFIED":
            problems.append(f"its certificate's verdict is {cert['verdict']}")
        return problems

    def _run(self, max_prec: int) -> tuple[Verdict, Evidence]:
        from dpcert.vectors.export import enclosure_strings

        v = self.vector
        assert v is not None
        problems = self._certificate_problems()
        verdict, evidence = super()._run(max_prec)
        if verdict is not Verdict.CERTIFIED:
            problems.append(f"the recorded enclosure is wrong: {evidence.detail}")
        try:
            lo, hi, exact = enclosure_strings(v.quantity, v.inputs, max_prec=max_prec, width=v.width)
        except DpcertError as exc:
            problems.append(f"the re-run failed: {exc}")
        else:
            if (lo, hi) != (v.lo, v.hi):
                problems.append(f"the file records [{v.lo}, {v.hi}], a re-run gives [{lo}, {hi}]")
            if exact != v.exact:
                problems.append(f"the file records exact={str(v.exact).lower()}, a re-run gives {str(exact).lower()}")
        if problems:
            detail = f"vector {v.id} ({v.source or 'computed'}): " + "; ".join(problems)
            return Verdict.REFUTED, Evidence(evidence.enclosure, evidence.method, evidence.precision, detail)
        return verdict, evidence


def entries(path: str | Path | None = None) -> list:
    """The vectors of a file (the bundled one by default) as entries for :func:`dpcert.engine.verify.run_entries`.

    Raises:
        InvalidParameter: for a file that is not a vectors file, an unknown quantity or bad inputs in it.
    """
    from dpcert.engine.certificate import derived_statement
    from dpcert.engine.manifest import Entry
    from dpcert.vectors.export import vector_claim

    p = bundled_path() if path is None else Path(path)
    out = []
    for v in load(p):
        base = vector_claim(v.quantity, v.inputs, v.lo, v.hi, v.id, v.why)
        claim = VectorClaim(
            base.id,
            base.reference,
            derived_statement(base),
            quantity=base.quantity,
            inputs=base.inputs,
            comparison=base.comparison,
            vector=v,
        )
        out.append(Entry(claim, Verdict.CERTIFIED, False, str(p)))
    return out


def check(path: str | Path | None = None, *, max_prec: int = MAX_PREC, progress: TextIO | None = None):
    """Re-certify every vector of a file (the bundled one by default); a :class:`~dpcert.engine.verify.VerifyReport`.

    Raises:
        InvalidParameter: for a file that is not a vectors file.
    """
    from dpcert.engine.verify import run_entries

    return run_entries(entries(path), full=True, max_prec=max_prec, progress=progress)
