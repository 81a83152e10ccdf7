"""Content ids and the repeated-id check shared by the article schema and the pairing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from shared.ids import content_id, repeated_ids


def test_content_id_counts_part_boundaries() -> None:
    assert content_id("ab", "c") != content_id("a", "bc")
    assert content_id("ab", "c") == content_id("ab", "c")


def test_repeated_ids_are_sorted_and_listed_once() -> None:
    assert repeated_ids(["b", "a", "b", "c", "a", "b"]) == ["a", "b"]
    assert repeated_ids(["a", "b"]) == []


@given(st.lists(st.sampled_from("abcde")))
def test_repeated_ids_are_exactly_the_ids_seen_twice(ids: list[str]) -> None:
    assert set(repeated_ids(ids)) == {key for key in ids if ids.count(key) > 1}
