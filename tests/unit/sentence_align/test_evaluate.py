"""Tests of the strict/lax bead scorer on hand-computed examples."""

from __future__ import annotations

import pytest

from services.sentence_align.beads import Bead, parse_beads
from services.sentence_align.evaluate import BeadCounts, count_document, score_documents
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
