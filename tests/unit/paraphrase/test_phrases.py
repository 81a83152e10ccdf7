"""Tests of phrase-pair extraction (consistency, atomic pairs) and the PPDB-like table."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from services.paraphrase.phrases import (
    PhraseTableEntry,
    atomic_phrase_pairs,
    extract_phrase_pairs,
    format_ppdb,
    most_frequent,
    phrase_table,
    search_entries,
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
    assert entry.alignment == "0-0 0-1"  # "reached" links to both "arrived" and "at"


def test_a_ppdb_line_has_the_features_with_the_count_then_the_alignment() -> None:
    # the fifth field, PPDB's word alignment, held the count
    entry = PhraseTableEntry("reached", "arrived at", 2, 1.0, 0.5, lang="en", alignment="0-0 0-1")
    assert next(format_ppdb([entry])) == (
        "[X] ||| reached ||| arrived at ||| p(e|f)=1 p(f|e)=0.5 count=2 lang=en ||| 0-0 0-1"
    )
    unknown = PhraseTableEntry("a", "b", 1, 1.0, 1.0)  # no language, no alignment (old table)
    assert next(format_ppdb([unknown])) == "[X] ||| a ||| b ||| p(e|f)=1 p(f|e)=1 count=1 ||| "


def test_the_alignment_is_the_links_inside_the_pair() -> None:
    source = ["and", "reached", "an"]
    target = ["and", "arrived", "at"]
    links = {(0, 0), (1, 1), (1, 2)}
    alignments = {
        p.words(source, target): p.alignment(links)
        for p in extract_phrase_pairs(source, target, links)
    }
    assert alignments == {
        ("and", "and"): "0-0",
        ("reached", "arrived at"): "0-0 0-1",
        ("and reached", "and arrived at"): "0-0 1-1 1-2",
    }


@given(links_strategy)
def test_every_alignment_link_is_a_link_of_the_box_inside_the_pair(case) -> None:  # type: ignore[no-untyped-def]
    (n, m), links = case
    words_s, words_t = [f"s{i}" for i in range(n)], [f"t{j}" for j in range(m)]
    for pair in extract_phrase_pairs(words_s, words_t, links):
        i1, i2, j1, j2 = pair.box
        shifted = {(i - i1, j - j1) for i, j in links if i1 <= i < i2 and j1 <= j < j2}
        written = {tuple(map(int, link.split("-"))) for link in pair.alignment(links).split()}
        assert written == shifted and shifted
        # the pair's boundary words are aligned (the extraction keeps only those)
        assert {0, i2 - i1 - 1} <= {i for i, _ in shifted}
        assert {0, j2 - j1 - 1} <= {j for _, j in shifted}


def _big_dog(context: str, crossed: bool) -> tuple[list[str], list[str], set[tuple[int, int]]]:
    """ "big dog" ~ "large hound" in a sentence of its own, word for word or crossed."""
    inner = {(1, 2), (2, 1)} if crossed else {(1, 1), (2, 2)}
    return [context, "big", "dog", "."], [context, "large", "hound", "."], {(0, 0), (3, 3)} | inner


def test_an_entry_keeps_its_most_frequent_alignment() -> None:
    straight = [_big_dog("a", crossed=False), _big_dog("b", crossed=False)]
    table = phrase_table([*straight, _big_dog("c", crossed=True)])
    entry = next(e for e in table if (e.phrase, e.paraphrase) == ("big dog", "large hound"))
    assert entry.count == 3 and entry.alignment == "0-0 1-1"
    crossed = [_big_dog("c", crossed=True), _big_dog("d", crossed=True)]
    table = phrase_table([*straight[:1], *crossed])
    entry = next(e for e in table if (e.phrase, e.paraphrase) == ("big dog", "large hound"))
    assert entry.alignment == "0-1 1-0"


def test_of_equally_frequent_alignments_the_first_is_kept() -> None:
    assert most_frequent(Counter({"0-1 1-0": 1, "0-0 1-1": 1})) == "0-0 1-1"
    assert most_frequent(Counter({"0-0": 1, "1-1": 2})) == "1-1"
    tie = [_big_dog("a", crossed=True), _big_dog("b", crossed=False)]
    assert phrase_table(tie) == phrase_table(tie[::-1])


def test_the_search_finds_a_part_of_either_side_case_ignored() -> None:
    entries = [
        PhraseTableEntry("the bank of", "the shore of", 1, 1.0, 1.0),
        PhraseTableEntry("money", "Bank", 1, 1.0, 1.0),
        PhraseTableEntry("river", "stream", 1, 1.0, 1.0),
    ]
    assert search_entries(entries, "bank") == entries[:2]
    assert search_entries(entries, "SHORE") == entries[:1]
    assert search_entries(entries, "banks") == []
