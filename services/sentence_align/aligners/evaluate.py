"""Strict and lax precision/recall/F1 of sentence alignments (docs/methods.md §2 "Evaluation").

Follows the convention of vecalign's scorer (after Sennrich & Volk 2010) so numbers are
comparable with published ones:
- precision is counted over the test beads (empty beads dropped; insertion/deletion beads
  kept and only correct when the gold has the same bead), recall over the gold beads with
  every insertion/deletion bead removed from both sides;
- strict: a bead is correct when the gold has exactly the same bead (both index sets);
- lax: a bead that is not exact still counts as correct when one of its source sentences
  is linked in the gold to one of its target sentences.
Counts from several documents are summed before the ratios are taken (micro average).

How sure a strict F1 is: a block bootstrap (Efron & Tibshirani 1993, ch. 8; paired, as in
Koehn 2004 for MT metrics). Each document is cut wherever the gold path and every compared
path pass through the same point (i, j), which makes blocks of beads whose correctness does
not depend on anything outside them; resampling the blocks with replacement and recomputing
the micro-averaged F1 gives a percentile interval (``bootstrap_f1_strict``), and resampling
them once for two alignments of the same documents gives the interval of their difference
(``bootstrap_difference``).

How far a bead's confidence (its posterior probability, ``Bead.confidence``) can be
trusted, over the beads that become sentence pairs (both sides non-empty; a pair is correct
when the gold has exactly the same bead): beads grouped by confidence against the share of
them that is correct (``calibration``; a calibrated score has the two equal), the expected
calibration error over those groups (``expected_calibration_error``, Naeini et al. 2015),
and the pairs kept above a threshold with their precision and recall (``kept_above``), as
``paramine export --min-score`` keeps them.
"""

from __future__ import annotations

import bisect
import itertools
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from services.sentence_align.aligners.beads import Bead
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


@dataclass(frozen=True)
class Interval:
    """A point estimate and its bootstrap percentile interval."""

    estimate: float
    low: float
    high: float


def _ends(beads: Sequence[Bead]) -> list[tuple[int, int]]:
    """The point (sentences covered on each side) the path of ``beads`` reaches after each."""
    i = j = 0
    ends = []
    for bead in beads:
        if bead.src:
            i = max(i, bead.src[-1] + 1)
        if bead.tgt:
            j = max(j, bead.tgt[-1] + 1)
        ends.append((i, j))
    return ends


def block_counts(gold: Sequence[Bead], tests: Sequence[Sequence[Bead]]) -> npt.NDArray[np.int64]:
    """Strict counts of one document per block: array (blocks, len(tests), 4) of precision
    correct, precision wrong, recall correct, recall wrong (beads in document order).

    Blocks end at the points (i, j) that the gold path and every test path pass through;
    a bead belongs to the block of the first such point at or after its end (the last block
    takes what follows the last common point). Summed over blocks, the counts are
    ``count_document``'s strict counts."""
    gold_ends = _ends(gold)
    test_ends = [_ends(test) for test in tests]
    common = set(gold_ends).intersection(*map(set, test_ends))
    points = sorted(common)
    counts = np.zeros((len(points) + 1, len(tests), 4), dtype=np.int64)
    gold_links = _links(gold, drop_deletions=False)
    for k, (test, ends) in enumerate(zip(tests, test_ends, strict=True)):
        test_links = _links(test, drop_deletions=True)
        for bead, end in zip(test, ends, strict=True):
            if bead.src or bead.tgt:
                correct = (bead.src, bead.tgt) in gold_links
                counts[bisect.bisect_left(points, end), k, 0 if correct else 1] += 1
        for bead, end in zip(gold, gold_ends, strict=True):
            if bead.src and bead.tgt:
                correct = (bead.src, bead.tgt) in test_links
                counts[bisect.bisect_left(points, end), k, 2 if correct else 3] += 1
    return counts


def _strict_f1(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Strict F1 from summed counts (..., 4), 0 where undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.nan_to_num(counts[..., 0] / (counts[..., 0] + counts[..., 1]))
        recall = np.nan_to_num(counts[..., 2] / (counts[..., 2] + counts[..., 3]))
        f1 = np.nan_to_num(2 * precision * recall / (precision + recall))
    return np.asarray(f1, dtype=np.float64)


def _resampled_f1(
    golds: Sequence[Sequence[Bead]],
    tests: Sequence[Sequence[Sequence[Bead]]],
    samples: int,
    seed: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(F1 of each alignment, F1 of each alignment in each resample: (samples, alignments))."""
    if any(len(golds) != len(test) for test in tests):
        raise InvalidInput("every alignment must have one test document per gold document")
    blocks = np.concatenate(
        [block_counts(gold, [test[d] for test in tests]) for d, gold in enumerate(golds)]
    )
    # Blocks without a bead (block_counts' last block, after the end point every path
    # reaches) are not units of the document: resampled, they only dilute the samples (a
    # perfect single-block alignment got the interval [0, 1]).
    blocks = blocks[blocks.reshape(len(blocks), -1).any(axis=1)]
    if len(blocks) == 0:
        return np.zeros(len(tests)), np.zeros((samples, len(tests)))
    rng = np.random.default_rng(seed)
    chosen = rng.integers(0, len(blocks), size=(samples, len(blocks)))
    resampled = np.stack([blocks[row].sum(axis=0) for row in chosen])
    return _strict_f1(blocks.sum(axis=0)), _strict_f1(resampled)


def _interval(estimate: float, values: npt.NDArray[np.float64], level: float) -> Interval:
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(estimate, float(low), float(high))


def bootstrap_f1_strict(
    golds: Sequence[Sequence[Bead]],
    tests: Sequence[Sequence[Bead]],
    *,
    samples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """Micro-averaged strict F1 and its block-bootstrap percentile interval."""
    estimate, resampled = _resampled_f1(golds, [tests], samples, seed)
    return _interval(float(estimate[0]), resampled[:, 0], level)


def bootstrap_difference(
    golds: Sequence[Sequence[Bead]],
    tests_a: Sequence[Sequence[Bead]],
    tests_b: Sequence[Sequence[Bead]],
    *,
    samples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """Strict F1 of ``tests_a`` minus that of ``tests_b`` and the paired block-bootstrap
    interval of the difference (both resampled on the same blocks)."""
    estimate, resampled = _resampled_f1(golds, [tests_a, tests_b], samples, seed)
    return _interval(float(estimate[0] - estimate[1]), resampled[:, 0] - resampled[:, 1], level)


@dataclass(frozen=True)
class ConfidenceBin:
    """Sentence-pair beads with a score in [low, high): how many, their mean score and the
    share of them that the gold has (strict)."""

    low: float
    high: float
    beads: int
    mean_score: float
    correct: float


@dataclass(frozen=True)
class KeptPairs:
    """Sentence-pair beads with a score >= threshold: their share of all pair beads, the
    share of them that is correct (precision) and the share of the gold's pair beads they
    find (recall)."""

    threshold: float
    kept: float
    precision: float
    recall: float


def bead_confidence(bead: Bead) -> float:
    """A bead's posterior probability; ``InvalidInput`` when the aligner gave none."""
    if bead.confidence is None:
        raise InvalidInput(f"bead {bead.src}:{bead.tgt} has no confidence")
    return bead.confidence


def _scored_pairs(
    golds: Sequence[Sequence[Bead]],
    tests: Sequence[Sequence[Bead]],
    score: Callable[[Bead], float],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], int]:
    """(score, exact gold bead?) of every test bead with two non-empty sides, and the number
    of such gold beads."""
    if len(golds) != len(tests):
        raise InvalidInput(f"{len(golds)} gold documents but {len(tests)} test documents")
    scores: list[float] = []
    correct: list[bool] = []
    n_gold = 0
    for gold, test in zip(golds, tests, strict=True):
        gold_pairs = {(bead.src, bead.tgt) for bead in gold if bead.src and bead.tgt}
        n_gold += len(gold_pairs)
        for bead in test:
            if bead.src and bead.tgt:
                scores.append(score(bead))
                correct.append((bead.src, bead.tgt) in gold_pairs)
    return np.asarray(scores, dtype=np.float64), np.asarray(correct, dtype=np.bool_), n_gold


def calibration(
    golds: Sequence[Sequence[Bead]],
    tests: Sequence[Sequence[Bead]],
    edges: Sequence[float] = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0),
    score: Callable[[Bead], float] = bead_confidence,
) -> list[ConfidenceBin]:
    """Pair beads grouped by score between consecutive ``edges`` (the last group includes
    its upper edge); empty groups are left out."""
    scores, correct, _ = _scored_pairs(golds, tests, score)
    bins = []
    for k, (low, high) in enumerate(itertools.pairwise(edges)):
        last = k == len(edges) - 2
        inside = (scores >= low) & ((scores <= high) if last else (scores < high))
        if inside.any():
            mean_score, share = float(scores[inside].mean()), float(correct[inside].mean())
            bins.append(ConfidenceBin(low, high, int(inside.sum()), mean_score, share))
    return bins


def expected_calibration_error(bins: Sequence[ConfidenceBin]) -> float:
    """Sum over the groups of |mean score - share correct|, weighted by group size."""
    total = sum(group.beads for group in bins)
    if not total:
        return 0.0
    return sum(group.beads * abs(group.mean_score - group.correct) for group in bins) / total


def kept_above(
    golds: Sequence[Sequence[Bead]],
    tests: Sequence[Sequence[Bead]],
    thresholds: Sequence[float],
    score: Callable[[Bead], float] = bead_confidence,
) -> list[KeptPairs]:
    """For each threshold, the pair beads scoring at least it: share kept, precision, recall."""
    scores, correct, n_gold = _scored_pairs(golds, tests, score)
    rows = []
    for threshold in thresholds:
        kept = scores >= threshold
        n_kept = int(kept.sum())
        n_correct = int((kept & correct).sum())
        rows.append(
            KeptPairs(
                threshold,
                n_kept / len(scores) if len(scores) else 0.0,
                _ratio(n_correct, n_kept - n_correct),
                n_correct / n_gold if n_gold else 0.0,
            )
        )
    return rows
