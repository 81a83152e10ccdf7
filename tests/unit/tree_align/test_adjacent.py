"""Tests of joining an unpaired neighbour (a paragraph's other half) to a chunk pair."""

from __future__ import annotations

from services.tree_align.adjacent import attach_adjacent
from services.tree_align.model import LengthTextModel

MODEL = LengthTextModel()
HALF = "word " * 30
OTHER = "wort " * 60  # the translation of both halves


def test_the_other_half_of_a_split_paragraph_joins_its_pair() -> None:
    texts = ([HALF.strip(), HALF.strip()], [OTHER.strip()])
    assert attach_adjacent(texts, [((0,), (0,))], MODEL) == [((0, 1), (0,))]
    assert attach_adjacent(texts, [((1,), (0,))], MODEL) == [((0, 1), (0,))]


def test_a_neighbour_that_makes_the_pair_worse_or_is_paired_stays_out() -> None:
    texts = (["word " * 60, "box " * 40], ["wort " * 60])
    assert attach_adjacent(texts, [((0,), (0,))], MODEL) == [((0,), (0,))]
    halves = ([HALF.strip(), HALF.strip()], [OTHER.strip(), "x " * 30])
    pairs = [((0,), (0,)), ((1,), (1,))]
    assert attach_adjacent(halves, pairs, MODEL) == pairs


def test_short_neighbours_and_two_by_two_pairs_are_left_alone() -> None:
    texts = (["a b", HALF.strip(), HALF.strip()], [OTHER.strip(), "z"])
    assert attach_adjacent(texts, [((1, 2), (0, 1))], MODEL) == [((1, 2), (0, 1))]
    assert attach_adjacent((["a b", "c " * 60], ["d " * 62]), [((1,), (0,))], MODEL) == [
        ((1,), (0,))
    ]
