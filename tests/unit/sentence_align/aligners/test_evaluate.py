"""Tests of the strict/lax bead scorer on hand-computed examples, and of its block bootstrap."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.sentence_align.aligners.beads import Bead, parse_beads
from services.sentence_align.aligners.evaluate import (
    BeadCounts,
    ConfidenceBin,
    Interval,
    KeptPairs,
    block_counts,
    bootstrap_difference,
    bootstrap_f1_strict,
    calibration,
    count_document,
    expected_calibration_error,
    kept_above,
    score_documents,
)
from shared.errors import InvalidInput

GOLD = parse_beads(["[0]:[0]", "[1]:[1, 2]", "[]:[3]", "[2]:[4]"])
TEST = parse_beads(["[0]:[0]", "[1]:[1]", "[]:[2]", "[]:[3]", "[2]:[4]"])


def test_counts_by_hand() -> None:
    precision, recall = count_document(GOLD, TEST)
    # Test beads: [0]:[0], []:[3], [2]:[4] exact; [1]:[1] overlaps gold [1]:[1, 2] (lax only);
    # []:[2] links nothing (wrong both ways).
    assert precision == BeadCounts(strict_correct=3, strict_wrong=2, lax_correct=4, lax_wrong=1)
    # Gold beads without insertions: [0]:[0], [2]:[4] exact; [1]:[1, 2] overlaps test [1]:[1].
    assert recall == BeadCounts(strict_correct=2, strict_wrong=1, lax_correct=3, lax_wrong=0)


def test_scores_by_hand() -> None:
    scores = score_documents([GOLD], [TEST])
    assert scores.precision_strict == pytest.approx(3 / 5)
    assert scores.recall_strict == pytest.approx(2 / 3)
    assert scores.f1_strict == pytest.approx(2 * 0.6 * (2 / 3) / (0.6 + 2 / 3))
    assert scores.precision_lax == pytest.approx(4 / 5)
    assert scores.recall_lax == pytest.approx(1.0)
    assert scores.f1_lax == pytest.approx(2 * 0.8 / 1.8)


def test_documents_are_micro_averaged() -> None:
    perfect = [Bead((0,), (0,)), Bead((1,), (1,))]
    scores = score_documents([GOLD, perfect], [TEST, perfect])
    assert scores.precision_strict == pytest.approx(5 / 7)
    assert scores.recall_strict == pytest.approx(4 / 5)


def test_identical_alignment_scores_one_and_disjoint_scores_zero() -> None:
    assert score_documents([GOLD], [GOLD]).f1_strict == 1.0
    disjoint = parse_beads(["[0]:[4]", "[1, 2]:[3]"])
    scores = score_documents([GOLD], [disjoint])
    assert (scores.f1_strict, scores.f1_lax) == (0.0, 0.0)


def test_mismatched_document_counts_are_rejected() -> None:
    with pytest.raises(InvalidInput):
        score_documents([GOLD], [])


# Block bootstrap ---------------------------------------------------------------------------

SHAPES = ((1, 1), (1, 0), (0, 1), (2, 1), (1, 2), (2, 2))


@st.composite
def tilings(draw: st.DrawFn, n: int, m: int) -> list[Bead]:
    """A random monotone tiling of n source and m target sentences by beads of SHAPES."""
    beads: list[Bead] = []
    i = j = 0
    while i < n or j < m:
        fits = [(a, b) for a, b in SHAPES if i + a <= n and j + b <= m]
        a, b = draw(st.sampled_from(fits))
        beads.append(Bead(tuple(range(i, i + a)), tuple(range(j, j + b))))
        i, j = i + a, j + b
    return beads


@st.composite
def document_pairs(draw: st.DrawFn) -> tuple[list[Bead], list[Bead]]:
    n, m = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    return draw(tilings(n, m)), draw(tilings(n, m))


@settings(derandomize=True, max_examples=200, deadline=None)
@given(document_pairs())
def test_block_counts_add_up_to_the_document_counts(pair: tuple[list[Bead], list[Bead]]) -> None:
    gold, test = pair
    blocks = block_counts(gold, [test])
    precision, recall = count_document(gold, test)
    assert blocks[:, 0].sum(axis=0).tolist() == [
        precision.strict_correct,
        precision.strict_wrong,
        recall.strict_correct,
        recall.strict_wrong,
    ]


def test_blocks_end_where_both_paths_meet() -> None:
    # Gold ends (1,1) (2,3) (2,4) (3,5); test ends (1,1) (2,2) (2,3) (2,4) (3,5): four common
    # points, then the (empty) block after the last one.
    blocks = block_counts(GOLD, [TEST])[:, 0].tolist()
    assert blocks == [
        [1, 0, 1, 0],  # [0]:[0] right in both
        [0, 2, 0, 1],  # test [1]:[1] and []:[2] against gold [1]:[1, 2]
        [1, 0, 0, 0],  # []:[3]: a deletion, counted for precision only
        [1, 0, 1, 0],  # [2]:[4]
        [0, 0, 0, 0],
    ]


def test_bootstrap_of_a_perfect_alignment_is_one() -> None:
    assert bootstrap_f1_strict([GOLD, GOLD], [GOLD, GOLD]) == Interval(1.0, 1.0, 1.0)
    # one bead: one real block and the empty one after the end, resampled alike, gave [0, 1]
    single = parse_beads(["[0, 1]:[0]"])
    assert bootstrap_f1_strict([single], [single]) == Interval(1.0, 1.0, 1.0)


def test_bootstrap_estimate_is_the_score_and_the_interval_is_reproducible() -> None:
    golds, tests = [GOLD] * 6, [TEST] * 3 + [GOLD] * 3
    interval = bootstrap_f1_strict(golds, tests, samples=500, seed=3)
    assert interval.estimate == pytest.approx(score_documents(golds, tests).f1_strict)
    assert interval.low < interval.estimate < interval.high
    assert bootstrap_f1_strict(golds, tests, samples=500, seed=3) == interval
    narrow = bootstrap_f1_strict(golds, tests, samples=500, seed=3, level=0.5)
    assert interval.low <= narrow.low <= narrow.high <= interval.high


def test_difference_of_an_alignment_with_itself_is_zero_and_pairs_the_blocks() -> None:
    golds, tests = [GOLD] * 4, [TEST] * 4
    assert bootstrap_difference(golds, tests, tests) == Interval(0.0, 0.0, 0.0)
    better = bootstrap_difference(golds, [GOLD] * 4, tests, samples=500)
    assert better.estimate == pytest.approx(1.0 - score_documents(golds, tests).f1_strict)
    assert 0.0 < better.low <= better.estimate <= better.high


def test_bootstrap_rejects_mismatched_documents() -> None:
    with pytest.raises(InvalidInput):
        bootstrap_f1_strict([GOLD, GOLD], [GOLD])


def confident(line: str, confidence: float) -> Bead:
    bead = parse_beads([line])[0]
    return Bead(bead.src, bead.tgt, bead.cost, confidence)


# Gold: four pair beads and a deletion. Test: 2 right (0.95, 0.6), 2 wrong (0.85, 0.3), and a
# deletion, which is not a sentence pair and is left out of every count.
CONFIDENCE_GOLD = parse_beads(["[0]:[0]", "[1]:[1]", "[2]:[2, 3]", "[3]:[]", "[4]:[4]"])
CONFIDENCE_TEST = [
    confident("[0]:[0]", 0.95),
    confident("[1]:[1]", 0.6),
    confident("[2]:[2]", 0.85),
    confident("[]:[3]", 0.99),
    confident("[3, 4]:[4]", 0.3),
]


def test_calibration_groups_pair_beads_by_confidence() -> None:
    bins = calibration([CONFIDENCE_GOLD], [CONFIDENCE_TEST], edges=(0.0, 0.5, 0.9, 1.0))
    assert bins == [
        ConfidenceBin(0.0, 0.5, 1, pytest.approx(0.3), 0.0),
        ConfidenceBin(0.5, 0.9, 2, pytest.approx(0.725), 0.5),
        ConfidenceBin(0.9, 1.0, 1, pytest.approx(0.95), 1.0),
    ]
    # (1 * 0.3 + 2 * 0.225 + 1 * 0.05) / 4
    assert expected_calibration_error(bins) == pytest.approx(0.2)


def test_the_top_group_includes_a_confidence_of_one() -> None:
    bins = calibration([CONFIDENCE_GOLD[:1]], [[confident("[0]:[0]", 1.0)]], edges=(0.0, 1.0))
    assert bins == [ConfidenceBin(0.0, 1.0, 1, 1.0, 1.0)]
    assert expected_calibration_error(bins) == 0.0


def test_kept_above_counts_precision_and_recall_of_the_kept_pairs() -> None:
    rows = kept_above([CONFIDENCE_GOLD], [CONFIDENCE_TEST], [0.0, 0.5, 0.9, 0.99])
    assert rows == [
        KeptPairs(0.0, 1.0, 0.5, 0.5),
        KeptPairs(0.5, 0.75, pytest.approx(2 / 3), 0.5),
        KeptPairs(0.9, 0.25, 1.0, 0.25),
        KeptPairs(0.99, 0.0, 0.0, 0.0),
    ]


def test_kept_above_takes_any_score() -> None:
    rows = kept_above([CONFIDENCE_GOLD], [CONFIDENCE_TEST], [0.5], score=lambda bead: 1.0)
    assert rows == [KeptPairs(0.5, 1.0, 0.5, 0.5)]


def test_a_bead_without_confidence_is_an_error() -> None:
    with pytest.raises(InvalidInput, match="no confidence"):
        calibration([CONFIDENCE_GOLD], [parse_beads(["[0]:[0]"])])
    with pytest.raises(InvalidInput, match="gold documents"):
        kept_above([CONFIDENCE_GOLD], [], [0.5])
