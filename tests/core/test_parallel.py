"""Chunked runs: the merged summary does not depend on the number of workers or on the chunking."""

from hypothesis import given
from hypothesis import strategies as st

from dpcert.composition.claims import sandwich
from dpcert.core.parallel import Summary, map_chunks


def score_chunk(chunk):
    """A pure chunk function: counts even/odd, worst = largest square."""
    out = Summary()
    for x in chunk:
        out.add("even" if x % 2 == 0 else "odd")
        out.consider(x * x, {"x": x})
        if x % 7 == 0:
            out.undecided.append(x)
    return out


def chunked(items, size):
    return [items[i : i + size] for i in range(0, len(items), size)]


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=60), st.integers(1, 10))
def test_merge_is_independent_of_chunking(items, size):
    whole = score_chunk(items)
    parts = map_chunks(score_chunk, chunked(items, size), workers=1)
    assert parts.counts == whole.counts
    assert (parts.worst_score, parts.worst_case) == (whole.worst_score, whole.worst_case)
    assert parts.undecided == whole.undecided


def test_processes_give_the_same_summary_as_one_worker():
    items = list(range(-40, 41))
    one = map_chunks(score_chunk, chunked(items, 9), workers=1)
    two = map_chunks(score_chunk, chunked(items, 9), workers=2)
    assert (one.counts, one.worst_score, one.worst_case, one.undecided) == (
        two.counts,
        two.worst_score,
        two.worst_case,
        two.undecided,
    )
    assert one.worst_case == {"x": -40}  # ties keep the earlier case: (-40)^2 == 40^2


def test_sandwich_claim_same_evidence_for_any_worker_count():
    grid = ((1, 10, 100), ("0.1", "1"), ("1e-6",))
    v1, e1 = sandwich(*grid, workers=1)
    v2, e2 = sandwich(*grid, workers=2)
    assert v1.value == v2.value == "CERTIFIED"
    assert (e1.worst_case, e1.counts) == (e2.worst_case, e2.counts)
    assert e1.counts == {"grid_points": 6, "certified": 6}
