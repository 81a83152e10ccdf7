"""Dev protocol helpers of benchmarks.sentence_align: the error kinds of wrong beads (split,
merge, shift, deletion) against a brute-force reading of the definitions, the dev cuts
(pieces cover the document in order, gold shifted into each piece), and the carried-over
long-document section."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from benchmarks.sentence_align import (
    LARGE_GOAL,
    LARGE_HEADING,
    _error_kind,
    dev_chunks,
    previous_large,
)
from benchmarks.sentence_align_length import DocumentPair
from services.sentence_align.beads import Bead

SHAPES = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 0), (0, 1), (1, 3), (3, 2)]


def beads_from_shapes(shapes: list[tuple[int, int]]) -> list[Bead]:
    beads, i, j = [], 0, 0
    for a, b in shapes:
        beads.append(Bead(tuple(range(i, i + a)), tuple(range(j, j + b))))
        i, j = i + a, j + b
    return beads


def gold_index(gold: list[Bead]) -> dict[tuple[int, int], Bead]:
    return {(0, i): g for g in gold for i in g.src} | {(1, j): g for g in gold for j in g.tgt}


gold_shapes = st.lists(st.sampled_from(SHAPES), min_size=2, max_size=12)


@settings(derandomize=True, max_examples=200)
@given(gold_shapes, st.data())
def test_merging_adjacent_gold_beads_is_a_merge(
    shapes: list[tuple[int, int]], data: st.DataObject
) -> None:
    gold = beads_from_shapes(shapes)
    k = data.draw(st.integers(0, len(gold) - 2))
    merged = Bead(gold[k].src + gold[k + 1].src, gold[k].tgt + gold[k + 1].tgt)
    expected = "deletion" if not merged.src or not merged.tgt else "merge"
    assert _error_kind(merged, gold_index(gold)) == expected


@settings(derandomize=True, max_examples=200)
@given(gold_shapes, st.data())
def test_part_of_one_gold_bead_is_a_split(
    shapes: list[tuple[int, int]], data: st.DataObject
) -> None:
    gold = beads_from_shapes(shapes)
    big = [g for g in gold if len(g.src) >= 1 and len(g.tgt) >= 2]
    assume(big)
    g = data.draw(st.sampled_from(big))
    assert _error_kind(Bead(g.src, g.tgt[:1]), gold_index(gold)) == "split"


@settings(derandomize=True, max_examples=200)
@given(gold_shapes, st.data())
def test_a_moved_boundary_is_a_shift(shapes: list[tuple[int, int]], data: st.DataObject) -> None:
    gold = beads_from_shapes(shapes)
    k = data.draw(st.integers(0, len(gold) - 2))
    first, second = gold[k], gold[k + 1]
    # The first bead takes the first target sentence of the next bead, which keeps others.
    assume(first.src and first.tgt and second.tgt and len(second.tgt) + len(second.src) >= 2)
    moved = Bead(first.src, first.tgt + second.tgt[:1])
    assert _error_kind(moved, gold_index(gold)) == "shift"


@settings(derandomize=True, max_examples=100)
@given(gold_shapes, st.integers(1, 5))
def test_dev_chunks_cover_the_document_in_order(shapes: list[tuple[int, int]], parts: int) -> None:
    gold = beads_from_shapes(shapes)
    n = sum(len(g.src) for g in gold)
    m = sum(len(g.tgt) for g in gold)
    document = DocumentPair("d", [f"s{i}" for i in range(n)], [f"t{j}" for j in range(m)], gold)
    pieces = dev_chunks(document, parts)
    assert [s for piece in pieces for s in piece.src] == document.src
    assert [t for piece in pieces for t in piece.tgt] == document.tgt
    shifted = [
        ([piece.src[i] for i in g.src], [piece.tgt[j] for j in g.tgt])
        for piece in pieces
        for g in piece.gold
    ]
    assert shifted == [
        ([document.src[i] for i in g.src], [document.tgt[j] for j in g.tgt]) for g in gold
    ]


def test_previous_large_reads_rows_and_goal(tmp_path: Path) -> None:
    results = tmp_path / "r.md"
    results.write_text(
        "\n".join(
            [
                "# x",
                LARGE_HEADING,
                "",
                "| method | sentences |",
                "|---|---|",
                "| length | 1 |",
                "| hybrid | 2 |",
                "",
                "## Next",
                "| other | 3 |",
                f"{LARGE_GOAL} in < 60 s: met.",
            ]
        ),
        encoding="utf-8",
    )
    rows, goal = previous_large(results)
    assert rows == ["| length | 1 |", "| hybrid | 2 |"]
    assert goal == f"{LARGE_GOAL} in < 60 s: met."
