"""Tests of phrase-pair extraction (consistency, atomic pairs) and the PPDB-like table."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.paraphrase.phrases import (
    atomic_phrase_pairs,
    extract_phrase_pairs,
    format_ppdb,
    phrase_table,
)

links_strategy = st.tuples(st.integers(1, 6), st.integers(1, 6)).flatmap(
    lambda shape: st.tuples(
        st.just(shape),
        st.sets(st.tuples(st.integers(0, shape[0] - 1), st.integers(0, shape[1] - 1)), max_size=10),
    )
)


def _brute_force(links: set[tuple[int, int]], n: int, m: int, max_len: int) -> set[tuple[int, ...]]:
    boxes: set[tuple[int, ...]] = set()
    for i1 in range(n):
        for i2 in range(i1 + 1, min(n, i1 + max_len) + 1):
            for j1 in range(m):
                for j2 in range(j1 + 1, min(m, j1 + max_len) + 1):
                    inside = [(i, j) for i, j in links if i1 <= i < i2 and j1 <= j < j2]
                    leaves = [(i, j) for i, j in links if (i1 <= i < i2) != (j1 <= j < j2)]
                    rows = {i for i, _ in inside}
                    cols = {j for _, j in inside}
                    if inside and not leaves and {i1, i2 - 1} <= rows and {j1, j2 - 1} <= cols:
                        boxes.add((i1, i2, j1, j2))
    return boxes


@given(links_strategy)
def test_extraction_equals_brute_force_consistent_boxes(case) -> None:  # type: ignore[no-untyped-def]
    (n, m), links = case
    words_s, words_t = [f"s{i}" for i in range(n)], [f"t{j}" for j in range(m)]
    for max_len in (2, 7):
        got = {p.box for p in extract_phrase_pairs(words_s, words_t, links, max_len=max_len)}
        assert got == _brute_force(links, n, m, max_len)


@given(links_strategy)
def test_atomic_pairs_compose_every_composite(case) -> None:  # type: ignore[no-untyped-def]
    (n, m), links = case
    words_s, words_t = [f"s{i}" for i in range(n)], [f"t{j}" for j in range(m)]
    pairs = extract_phrase_pairs(words_s, words_t, links)
    atoms = [p.box for p in pairs if p.atomic]
    for pair in pairs:
        i1, i2, j1, j2 = pair.box
        inside = {(i, j) for i, j in links if i1 <= i < i2 and j1 <= j < j2}
        covering = [a for a in atoms if i1 <= a[0] and a[1] <= i2 and j1 <= a[2] and a[3] <= j2]
        covered = {
            (i, j) for i, j in inside for a in covering if a[0] <= i < a[1] and a[2] <= j < a[3]
        }
        assert covered == inside
        if not pair.atomic:
            assert len(covering) >= 2  # a composite combines smaller atomic pairs


def test_seed_example_and_reached_arrived_at() -> None:
    # Figure 3: "reached" links to "arrived" and "at"; "an" is unaligned.
    source = ["and", "reached", "an"]
    target = ["and", "arrived", "at"]
    links = {(0, 0), (1, 1), (1, 2)}
    pairs = {p.words(source, target): p.atomic for p in extract_phrase_pairs(source, target, links)}
    assert pairs == {
        ("and", "and"): True,
        ("reached", "arrived at"): True,
        ("and reached", "and arrived at"): False,
    }
    assert ("and reached", "and arrived") not in pairs  # inconsistent
    assert len(atomic_phrase_pairs(source, target, links)) == 2


def test_phrase_table_depends_only_on_distinct_pairs() -> None:
    data = [
        (
            ["he", "reached", "an", "agreement"],
            ["he", "arrived", "at", "a", "deal"],
            {(0, 0), (1, 1), (1, 2), (2, 3), (3, 4)},
        ),
        (
            ["they", "reached", "a", "verdict"],
            ["they", "arrived", "at", "a", "verdict"],
            {(0, 0), (1, 1), (1, 2), (2, 3), (3, 4)},
        ),
    ]
    once = phrase_table(data)
    twice = phrase_table(list(reversed(data)) + data)
    assert once == twice
    entry = next(e for e in once if e.phrase == "reached" and e.paraphrase == "arrived at")
    assert entry.count == 2 and entry.p_e_given_f == 1.0
    assert all(e.phrase.lower() != e.paraphrase.lower() for e in once)
    line = next(format_ppdb([entry]))
    assert line.startswith("[X] ||| reached ||| arrived at ||| p(e|f)=1 p(f|e)=")
