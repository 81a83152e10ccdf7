"""Dev protocol helpers of benchmarks.sentence_align.aligners: the error kinds of wrong beads
(split, merge, shift, deletion) against a brute-force reading of the definitions, the dev cuts
(pieces cover the document in order, gold shifted into each piece), the carried-over
long-document section, and the bootstrap section's rows."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from benchmarks.sentence_align.dev import dev_chunks, error_kind
from benchmarks.sentence_align.large import LARGE_GOAL, LARGE_HEADING, previous_large
from benchmarks.sentence_align.report import certainty_section, confidence_section, row_intervals
from benchmarks.sentence_align.rows import WITH_DICTIONARY
from benchmarks.sentence_align.textberg import Row
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.evaluate import score_documents
from services.sentence_align.aligners.gold import DocumentPair

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
    assert error_kind(merged, gold_index(gold)) == expected


@settings(derandomize=True, max_examples=200)
@given(gold_shapes, st.data())
def test_part_of_one_gold_bead_is_a_split(
    shapes: list[tuple[int, int]], data: st.DataObject
) -> None:
    gold = beads_from_shapes(shapes)
    big = [g for g in gold if len(g.src) >= 1 and len(g.tgt) >= 2]
    assume(big)
    g = data.draw(st.sampled_from(big))
    assert error_kind(Bead(g.src, g.tgt[:1]), gold_index(gold)) == "split"


@settings(derandomize=True, max_examples=200)
@given(gold_shapes, st.data())
def test_a_moved_boundary_is_a_shift(shapes: list[tuple[int, int]], data: st.DataObject) -> None:
    gold = beads_from_shapes(shapes)
    k = data.draw(st.integers(0, len(gold) - 2))
    first, second = gold[k], gold[k + 1]
    # The first bead takes the first target sentence of the next bead, which keeps others.
    assume(first.src and first.tgt and second.tgt and len(second.tgt) + len(second.src) >= 2)
    moved = Bead(first.src, first.tgt + second.tgt[:1])
    assert error_kind(moved, gold_index(gold)) == "shift"


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


def test_certainty_section_reports_intervals_and_paired_differences() -> None:
    gold = beads_from_shapes([(1, 1), (1, 2), (1, 1), (2, 1), (1, 1), (1, 1)])
    split = [Bead((1,), (1,)), Bead((), (2,))]
    worse = [*gold[:1], *split, *gold[2:]]
    documents = [DocumentPair(f"d{k}", [], [], gold) for k in range(4)]
    rows = [
        Row("paramine hybrid", score_documents([gold] * 4, [worse] * 4), 1.0, beads=[worse] * 4),
        Row(f"paramine hybrid {WITH_DICTIONARY}", score_documents([gold] * 4, [gold] * 4), 1.0,
            beads=[gold] * 4),
        Row("nltk gale_church", score_documents([gold] * 4, [gold] * 4), 1.0, beads=[gold] * 4),
    ]  # fmt: skip
    lines = certainty_section(documents, rows, row_intervals(documents, rows), documents, rows[:1])
    f1 = score_documents([gold] * 4, [worse] * 4).f1_strict
    interval_rows = [line for line in lines if line.startswith("| test |") and "[" not in line]
    # Only hybrid rows (and galechurch) get intervals: each document's one wrong block makes
    # the resampled F1 vary around the estimate; a perfect alignment's interval is 1 - 1.
    assert [line.split(" | ")[1] for line in interval_rows] == [
        "paramine hybrid",
        f"paramine hybrid {WITH_DICTIONARY}",
    ]
    estimate, span = interval_rows[0].split(" | ")[2:4]
    f1_low, f1_high = (float(x) for x in span.strip(" |").split(" - "))
    assert float(estimate) == round(f1, 3) and f1_low < f1 < f1_high
    assert interval_rows[1].endswith("| 1.000 | 1.000 - 1.000 |")
    (difference,) = [line for line in lines if " minus " in line]
    assert difference.startswith(
        f"| test | paramine hybrid {WITH_DICTIONARY} minus paramine hybrid | {1 - f1:+.3f} ["
    )
    low, high = (float(x) for x in difference.split("[")[1].split("]")[0].split(", "))
    assert 0 < low < 1 - f1 < high
    # The reading: dev's resolution in beads, the dictionary's paired gain (above the noise
    # here: every block it changes, it makes right), and which rows' intervals hold 0.90.
    (reading,) = [line for line in lines if line.startswith("Reading:")]
    assert "of its 24 gold beads" in reading
    assert f"gain ({1 - f1:+.3f} [" in reading and "is above the noise" in reading
    if f1_low <= 0.9 <= f1_high:
        assert "inside the test intervals of paramine hybrid:" in reading
    else:
        assert "lies above every hybrid row's test interval" in reading


def test_confidence_section_compares_confidence_with_the_former_score() -> None:
    gold = beads_from_shapes([(1, 1), (1, 1), (1, 2), (1, 1)])
    # Right beads: confident, one with a cost above 0; the wrong 1-1 + 0-1 split: unsure.
    test = [
        Bead((0,), (0,), -9.0, 0.97),
        Bead((1,), (1,), 3.0, 0.95),
        Bead((2,), (2,), -2.0, 0.6),
        Bead((), (3,), 1.0, 0.6),
        Bead((3,), (4,), -5.0, 0.99),
    ]
    documents = [DocumentPair("d", [], [], gold)]
    rows = [Row("paramine hybrid", score_documents([gold], [test]), 1.0, beads=[test])]
    lines = confidence_section(documents, rows, documents, rows)
    table = [line for line in lines if line.startswith("| test | paramine hybrid | confidence |")]
    # Groups: 0.5-0.8 holds the wrong pair (the 0-1 bead is no pair), 0.95-0.99 one right pair
    # at 0.97 and 0.95, 0.99-1 the last one.
    assert table[:3] == [
        "| test | paramine hybrid | confidence | 0.5-0.8 | 1 | 0.600 | 0.000 |",
        "| test | paramine hybrid | confidence | 0.95-0.99 | 2 | 0.960 | 1.000 |",
        "| test | paramine hybrid | confidence | 0.99-1 | 1 | 0.990 | 1.000 |",
    ]
    kept = {line.split(" | ")[3] + " " + line.split(" | ")[2]: line for line in table[3:]}
    assert kept["0.9 confidence"].endswith("| 75.0% | 1.000 | 0.750 |")
    (former_kept,) = [
        line for line in lines if line.startswith("| test | paramine hybrid | former | 0.9 |")
    ]
    # exp(-3) < 0.9: the former score drops a right pair whose cost is above 0 and keeps the
    # wrong one, whose cost is below 0.
    assert former_kept.endswith("| 75.0% | 0.667 | 0.500 |")
    (reading,) = [line for line in lines if line.startswith("Reading:")]
    assert "confidence >= 0.9 keeps 75% of them (recall 0.750) at precision 1.000" in reading
