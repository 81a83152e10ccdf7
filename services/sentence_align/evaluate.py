"""Strict and lax precision/recall/F1 of sentence alignments (ALGORITHMS.md §2 "Evaluation").

Follows the convention of vecalign's scorer (after Sennrich & Volk 2010) so numbers are
comparable with published ones:
- precision is counted over the test beads (empty beads dropped; insertion/deletion beads
  kept and only correct when the gold has the same bead), recall over the gold beads with
  every insertion/deletion bead removed from both sides;
- strict: a bead is correct when the gold has exactly the same bead (both index sets);
- lax: a bead that is not exact still counts as correct when one of its source sentences
  is linked in the gold to one of its target sentences.
Counts from several documents are summed before the ratios are taken (micro average).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from services.sentence_align.beads import Bead
from shared.errors import InvalidInput

Link = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class BeadCounts:
    """Correct and incorrect bead counts, strict and lax; they add across documents."""

    strict_correct: int = 0
    strict_wrong: int = 0
    lax_correct: int = 0
    lax_wrong: int = 0

    def __add__(self, other: BeadCounts) -> BeadCounts:
        return BeadCounts(
            self.strict_correct + other.strict_correct,
            self.strict_wrong + other.strict_wrong,
            self.lax_correct + other.lax_correct,
            self.lax_wrong + other.lax_wrong,
        )


@dataclass(frozen=True)
class BeadScores:
    """Precision, recall and F1, strict and lax."""

    precision_strict: float
    recall_strict: float
    f1_strict: float
    precision_lax: float
    recall_lax: float
    f1_lax: float


def _links(beads: Sequence[Bead], *, drop_deletions: bool) -> set[Link]:
    if drop_deletions:
        return {(b.src, b.tgt) for b in beads if b.src and b.tgt}
    return {(b.src, b.tgt) for b in beads if b.src or b.tgt}


def _count(reference: set[Link], candidates: set[Link]) -> BeadCounts:
    """How many ``candidates`` the ``reference`` confirms, exactly and by overlap."""
    linked_targets: dict[int, set[int]] = defaultdict(set)
    for ref_src, ref_tgt in reference:
        for src_index in ref_src:
            linked_targets[src_index].update(ref_tgt)
    strict_correct = strict_wrong = lax_correct = lax_wrong = 0
    for candidate in candidates:
        if candidate in reference:
            strict_correct += 1
            lax_correct += 1
            continue
        strict_wrong += 1
        cand_src, cand_tgt = candidate
        reachable: set[int] = set()
        for src_index in cand_src:
            reachable |= linked_targets.get(src_index, set())
        if reachable.intersection(cand_tgt):
            lax_correct += 1
        else:
            lax_wrong += 1
    return BeadCounts(strict_correct, strict_wrong, lax_correct, lax_wrong)


def count_document(gold: Sequence[Bead], test: Sequence[Bead]) -> tuple[BeadCounts, BeadCounts]:
    """(precision counts, recall counts) of one document's test alignment against gold."""
    precision = _count(_links(gold, drop_deletions=False), _links(test, drop_deletions=False))
    recall = _count(_links(test, drop_deletions=True), _links(gold, drop_deletions=True))
    return precision, recall


def _ratio(correct: int, wrong: int) -> float:
    return correct / (correct + wrong) if correct + wrong else 0.0


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def score_documents(golds: Sequence[Sequence[Bead]], tests: Sequence[Sequence[Bead]]) -> BeadScores:
    """Micro-averaged strict/lax P/R/F1 over documents (gold and test lists in step)."""
    if len(golds) != len(tests):
        raise InvalidInput(f"{len(golds)} gold documents but {len(tests)} test documents")
    precision, recall = BeadCounts(), BeadCounts()
    for gold, test in zip(golds, tests, strict=True):
        doc_precision, doc_recall = count_document(gold, test)
        precision += doc_precision
        recall += doc_recall
    p_strict = _ratio(precision.strict_correct, precision.strict_wrong)
    r_strict = _ratio(recall.strict_correct, recall.strict_wrong)
    p_lax = _ratio(precision.lax_correct, precision.lax_wrong)
    r_lax = _ratio(recall.lax_correct, recall.lax_wrong)
    return BeadScores(p_strict, r_strict, _f1(p_strict, r_strict), p_lax, r_lax, _f1(p_lax, r_lax))
