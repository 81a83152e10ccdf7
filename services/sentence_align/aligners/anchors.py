"""Anchor-based alignment of monolingual parallel texts (BAM): anchors, then length DP in fragments.

docs/methods.md §2 "Anchor-based alignment of monolingual parallel texts (BAM)", seed
``monolingual-sentence-alignment-bam.txt``. Two versions of one text, each merged into one
paragraph, are cut by high-confidence 1-1 beads (anchors) into short fragments; only the
fragments are then aligned by the length-based dynamic program, so one bad length decision
cannot drift over the whole text.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import sparse

from services.sentence_align.aligners.beads import Bead, unaligned_beads
from services.sentence_align.aligners.length import align_by_length
from shared.errors import InputTooLarge, InvalidInput

FloatMatrix = npt.NDArray[np.float64]
SimilarityFilter = Literal["after", "during"]

# Defaults chosen on the dev documents of benchmarks/sentence_align/bam_anchors.py (English:
# Edinburgh++ train and MSRP train paraphrase pairs), never on its test documents. D hardly
# matters once the similarity filter runs during selection; the filter threshold does.
DEFAULT_THRESHOLD_D = 0.2
DEFAULT_SIMILARITY_THRESHOLD = 0.5
# lambda = LAMBDA_SCALE / max(m, n): a full unit of length/context mismatch weighs as much as
# LAMBDA_SCALE sentences of position error (each about 1/n of the text), whatever the text
# length. The paper only says lambda must shrink as the texts grow; this is our reading.
LAMBDA_SCALE = 2.0
# The score matrix is dense (m*n cells of 8 bytes, a few temporaries); the paper works on
# chapters of fewer than 500 sentences. Texts past MAX_CELLS (about 3,162 sentences a side)
# are refused with InputTooLarge: the anchors method has no windowed path; "lexicon" and
# "hybrid" handle long documents (anchor windows, benchmarks/results/sentence_align.md).
MAX_CELLS = 10_000_000


def default_lambda(m: int, n: int) -> float:
    """lambda of P[i,j] for texts of m and n sentences: shrinks as the texts grow longer."""
    return LAMBDA_SCALE / max(m, n, 1)


def _relative_difference(a: FloatMatrix, b: FloatMatrix) -> FloatMatrix:
    # |a - b| / max(a, b), defined as 0 where both are 0 (two empty sentences agree).
    top = np.abs(a - b)
    bottom = np.maximum(a, b)
    return np.divide(top, bottom, out=np.zeros_like(top), where=bottom > 0)


def _relative_positions(lengths: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # mid(i) / len(text) with character offsets; index positions if the text has no characters.
    total = float(lengths.sum())
    if total == 0.0:
        return (np.arange(len(lengths), dtype=np.float64) + 0.5) / max(len(lengths), 1)
    result: npt.NDArray[np.float64] = (np.cumsum(lengths) - lengths / 2.0) / total
    return result


def _context_lengths(lengths: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    # ctx(i) = len(i-1) + len(i+1), a missing neighbour counting 0.
    padded = np.concatenate(([0.0], lengths, [0.0]))
    result: npt.NDArray[np.float64] = padded[:-2] + padded[2:]
    return result


def alignment_scores(
    src: Sequence[str], tgt: Sequence[str], *, lam: float | None = None
) -> FloatMatrix:
    """The BAM alignment function P[i, j] for every 1-1 pair (small = likely a 1-1 bead).

    docs/methods.md §2 BAM:
        g(i,j) = | mid_S(i)/len(S) - mid_T(j)/len(T) |                 global position
        l(i,j) = | len(s_i) - len(t_j) | / max(len(s_i), len(t_j))     sentence lengths
        x(i,j) = | ctx_S(i) - ctx_T(j) | / max(ctx_S(i), ctx_T(j))     neighbour lengths
        P[i,j] = g(i,j) + lambda * (l(i,j) + x(i,j))
    Lengths are in characters.
    """
    m, n = len(src), len(tgt)
    if m * n > MAX_CELLS:
        raise InputTooLarge(f"BAM scores {m}x{n} sentence pairs; the limit is {MAX_CELLS} pairs")
    weight = default_lambda(m, n) if lam is None else lam
    if not math.isfinite(weight) or weight < 0:
        raise InvalidInput(f"lambda must be a finite number >= 0, got {lam}")
    src_len = np.array([len(s) for s in src], dtype=np.float64)
    tgt_len = np.array([len(t) for t in tgt], dtype=np.float64)
    src_pos, tgt_pos = _relative_positions(src_len), _relative_positions(tgt_len)
    src_ctx, tgt_ctx = _context_lengths(src_len), _context_lengths(tgt_len)
    scores = np.abs(src_pos[:, None] - tgt_pos[None, :])  # g(i, j)
    local = _relative_difference(src_len[:, None], tgt_len[None, :])  # l(i, j)
    local += _relative_difference(src_ctx[:, None], tgt_ctx[None, :])  # + x(i, j)
    local *= weight
    scores += local
    return scores


def _char_ngrams(sentence: str, n: int) -> Counter[str]:
    letters = "".join(ch for ch in sentence if not ch.isspace())
    if 0 < len(letters) < n:
        return Counter([letters])  # a sentence shorter than n is one gram
    return Counter(letters[k : k + n] for k in range(len(letters) - n + 1))


def char_similarity(a: str, b: str, n: int = 1) -> float:
    """sim = 2 * |grams(a) & grams(b)| / (|grams(a)| + |grams(b)|), multiset overlap.

    docs/methods.md §2 BAM similarity filter with n = 1: characters, no word segmentation, so
    it works for Chinese and Japanese as well as for space-separated languages (spaces are
    not counted). n = 2 (character bigrams) is a project option: single letters of unrelated
    English sentences overlap too much (see benchmarks/results/bam_anchors.md).
    """
    grams_a, grams_b = _char_ngrams(a, n), _char_ngrams(b, n)
    total = grams_a.total() + grams_b.total()
    if total == 0:
        return 0.0
    return 2.0 * (grams_a & grams_b).total() / total


class _NonCrossingAnchors:
    """Anchors sorted by source index; non-crossing, so also sorted by target index."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.cols: list[int] = []

    def allows(self, i: int, j: int) -> bool:
        # (i, j) must lie strictly above-left or strictly below-right of every anchor; with
        # sorted non-crossing anchors only the two neighbours in source order need checking.
        k = bisect.bisect_left(self.rows, i)
        if k < len(self.rows) and (self.rows[k] == i or self.cols[k] <= j):
            return False
        return k == 0 or self.cols[k - 1] < j

    def add(self, i: int, j: int) -> None:
        k = bisect.bisect_left(self.rows, i)
        self.rows.insert(k, i)
        self.cols.insert(k, j)

    def pairs(self) -> list[tuple[int, int]]:
        return list(zip(self.rows, self.cols, strict=True))


class SimilarityCheck:
    """Callable similarity filter sim(s_i, t_j) >= threshold over two sentence lists.

    The multiset overlaps |grams(s_i) & grams(t_j)| of all pairs are computed at once, as
    sum over k >= 1 of [count_i(g) >= k] [count_j(g) >= k] summed over grams g: one sparse
    product per k. (Counted pair by pair, it was quadratic in Python: about a third of all
    pairs are candidates below D; tuning_history.md, BAM.) Equal to :func:`char_similarity`."""

    def __init__(self, src: Sequence[str], tgt: Sequence[str], threshold: float, n: int) -> None:
        self.threshold = threshold
        grams = [_char_ngrams(sentence, n) for sentence in (*src, *tgt)]
        index: dict[str, int] = {}
        rows, cols, counts = [], [], []
        for row, sentence_grams in enumerate(grams):
            for gram, count in sentence_grams.items():
                rows.append(row)
                cols.append(index.setdefault(gram, len(index)))
                counts.append(count)
        row_of, col_of, count_of = (np.asarray(a, dtype=np.int64) for a in (rows, cols, counts))
        totals = np.bincount(row_of, weights=count_of, minlength=len(grams))
        self.src_total, self.tgt_total = totals[: len(src)], totals[len(src) :]
        self.overlap = np.zeros((len(src), len(tgt)), dtype=np.float64)
        shape = (len(grams), max(1, len(index)))
        for k in range(1, int(count_of.max(initial=0)) + 1):
            keep = count_of >= k
            at_least = sparse.csr_matrix(
                (np.ones(int(keep.sum())), (row_of[keep], col_of[keep])), shape=shape
            )
            self.overlap += (at_least[: len(src)] @ at_least[len(src) :].T).toarray()

    def __call__(self, i: int, j: int) -> bool:
        total = self.src_total[i] + self.tgt_total[j]
        if total == 0:
            return self.threshold <= 0.0
        return bool(2.0 * self.overlap[i, j] / total >= self.threshold)


def greedy_anchors(
    scores: FloatMatrix,
    threshold_d: float,
    *,
    initial: Sequence[tuple[int, int]] = (),
    accept: SimilarityCheck | None = None,
) -> list[tuple[int, int]]:
    """Best Alignment Matching: greedily take the smallest P[i,j] < D that crosses no anchor.

    Ties are broken by (i, j). ``initial`` anchors are placed first (the paper's default last
    pair); ``accept`` may veto a candidate before it becomes an anchor. Returns anchors sorted.
    """
    anchors = _NonCrossingAnchors()
    for i, j in initial:
        if anchors.allows(i, j):
            anchors.add(i, j)
    rows, cols = np.nonzero(scores < threshold_d)
    heap = list(zip(scores[rows, cols].tolist(), rows.tolist(), cols.tolist(), strict=True))
    heapq.heapify(heap)
    while heap:
        _, i, j = heapq.heappop(heap)
        if anchors.allows(i, j) and (accept is None or accept(i, j)):
            anchors.add(i, j)
    return anchors.pairs()


@dataclass(frozen=True)
class AnchorOptions:
    """How anchors are chosen beyond D, the similarity threshold and lambda.

    ``last_anchor``: the last sentences form an anchor by default (paper section 3.3).
    ``similarity_filter``: "after" filters the greedy anchors afterwards (paper section 4);
    "during" (project default) skips dissimilar candidates so they block no later anchor.
    ``char_ngram``: 1 compares characters (paper); 2 (project default) character bigrams.
    The paper's setting is ``AnchorOptions(similarity_filter="after", char_ngram=1)``; the
    defaults won on dev (benchmarks/results/bam_anchors.md): wrong candidates that pass on
    position and length alone otherwise block the right ones, and single letters of English
    sentences overlap too much to tell paraphrases from neighbours.
    """

    last_anchor: bool = True
    similarity_filter: SimilarityFilter = "during"
    char_ngram: int = 2

    def __post_init__(self) -> None:
        if self.similarity_filter not in ("after", "during"):
            raise InvalidInput(f"similarity_filter must be 'after' or 'during': {self}")
        if self.char_ngram < 1:
            raise InvalidInput(f"char_ngram must be >= 1, got {self.char_ngram}")


DEFAULT_OPTIONS = AnchorOptions()


def _select(
    src: Sequence[str],
    tgt: Sequence[str],
    threshold_d: float,
    similarity_threshold: float,
    lam: float | None,
    options: AnchorOptions,
) -> tuple[list[tuple[int, int]], FloatMatrix]:
    if not math.isfinite(threshold_d):
        raise InvalidInput(f"threshold D must be finite, got {threshold_d}")
    if not 0.0 <= similarity_threshold <= 1.0:
        raise InvalidInput(f"similarity threshold must be in [0, 1], got {similarity_threshold}")
    scores = alignment_scores(src, tgt, lam=lam)
    if not src or not tgt:
        return [], scores
    similar = SimilarityCheck(src, tgt, similarity_threshold, options.char_ngram)
    # The paper aligns the last sentences by default so both texts have as many fragments.
    initial = [(len(src) - 1, len(tgt) - 1)] if options.last_anchor else []
    if options.similarity_filter == "during":
        initial = [(i, j) for i, j in initial if similar(i, j)]
        return greedy_anchors(scores, threshold_d, initial=initial, accept=similar), scores
    # Paper: candidate anchors are selected first, then only the similar ones stay.
    candidates = greedy_anchors(scores, threshold_d, initial=initial)
    return [(i, j) for i, j in candidates if similar(i, j)], scores


def select_anchors(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    threshold_d: float = DEFAULT_THRESHOLD_D,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    lam: float | None = None,
    options: AnchorOptions = DEFAULT_OPTIONS,
) -> list[tuple[int, int]]:
    """Alignment anchors (0-based 1-1 pairs, sorted, non-crossing) of two versions of one text."""
    anchors, _ = _select(src, tgt, threshold_d, similarity_threshold, lam, options)
    return anchors


def _align_fragment(src: Sequence[str], tgt: Sequence[str], i0: int, j0: int) -> list[Bead]:
    # Length-based DP inside one fragment (a fragment with one side empty has one
    # segmentation), indices shifted back to the whole texts.
    if src and tgt:
        beads = align_by_length(src, tgt)
    else:
        beads = unaligned_beads(range(len(src)), range(len(tgt)))
    return [Bead(tuple(i + i0 for i in b.src), tuple(j + j0 for j in b.tgt), b.cost) for b in beads]


def align_monolingual(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    threshold_d: float = DEFAULT_THRESHOLD_D,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    lam: float | None = None,
    options: AnchorOptions = DEFAULT_OPTIONS,
) -> list[Bead]:
    """Align two versions of one text: BAM anchors (1-1 beads, cost P[i,j]) + length DP between.

    Every sentence of both sides appears in exactly one bead, in order.
    """
    anchors, scores = _select(src, tgt, threshold_d, similarity_threshold, lam, options)
    beads: list[Bead] = []
    next_i = next_j = 0
    for i, j in [*anchors, (len(src), len(tgt))]:
        beads.extend(_align_fragment(src[next_i:i], tgt[next_j:j], next_i, next_j))
        if i < len(src):
            beads.append(Bead((i,), (j,), float(scores[i, j])))
        next_i, next_j = i + 1, j + 1
    return beads
