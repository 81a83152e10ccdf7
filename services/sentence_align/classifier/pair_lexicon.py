"""The Model 1 table of one page pair that the pair classifier's coverage features read
(:mod:`pair_features`), with the coverage of many text pairs computed in one compiled call.

Model 1 is trained on the pairs being scored (a page pair's beads: Moore 2002 trains it on
the corpus being aligned), seeded with the cues the aligner uses (identical tokens, numbers,
cognates: :func:`services.lexical.model1.cue_similarity`) and the installed bilingual
dictionary. The coverage of a token is its best t(e|f) in the other side, counting only
word pairs with evidence from outside the pair itself (a cue, or both words met in other
pairs too): two menu items whose words occur nowhere else on the page explain each other
perfectly in Model 1, whatever they mean.

Coverage is asked for whole lists of text pairs at once (:meth:`PageLexicon.coverage`): a
page pair's candidates and their neighbouring sentences come as token id arrays, and one
compiled loop reads the pruned table's rows for all of them (a Python loop over word pairs
per candidate cost more than the aligner).

Pure: no store, queue or web imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from services.lexical import model1

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

COVERED = 0.1  # a token whose best t(e|f) reaches this counts as covered
DICTIONARY_STRENGTH = 0.25  # Model 1 cue strength of dictionary pairs (as the aligner's)
DICTIONARY_MIN_LENGTH = 4


@dataclass(frozen=True)
class PageLexicon:
    """A page pair's pruned Model 1 table t(e|f), its entries without outside evidence set
    to 0, and the two vocabularies (token -> id)."""

    src_index: dict[str, int]
    tgt_index: dict[str, int]
    row_start: IntArray  # entries of source word f: row_start[f]:row_start[f + 1]
    target: IntArray
    strength: FloatArray  # t(e|f) where the cell has outside evidence, else 0

    @classmethod
    def train(
        cls,
        pairs: Sequence[tuple[str, str]],
        src_lang: str,
        tgt_lang: str,
        dictionary: BilingualDictionary | None,
    ) -> PageLexicon:
        """Model 1 on ``pairs`` (each a 1-1 training pair), seeded with the aligner's cues
        and ``dictionary``'s pairs."""
        src_side = model1.encode([s for s, _ in pairs], src_lang)
        tgt_side = model1.encode([t for _, t in pairs], tgt_lang)
        cues = model1.cue_similarity(src_side.vocabulary, tgt_side.vocabulary)
        if dictionary is not None:
            for cell, value in dictionary.cues(
                src_side.vocabulary, tgt_side.vocabulary, DICTIONARY_STRENGTH, DICTIONARY_MIN_LENGTH
            ).items():
                cues.setdefault(cell, value)
        table = model1.train_model1(src_side, tgt_side, [(k, k) for k in range(len(pairs))], cues)
        cells = np.asarray(list(cues), dtype=np.int64).reshape(-1, 2)
        # Cells with evidence from outside one pair: a cue (identical, number, cognate, the
        # dictionary) or both words in two pairs or more. Elsewhere t(e|f) is the pair
        # fitting itself (words met in one pair only explain each other whatever they mean).
        strength = _evidenced_strength(
            table.row_start,
            table.target,
            table.probability,
            cells[:, 0] * len(tgt_side.vocabulary) + cells[:, 1],
            _pair_counts(src_side),
            _pair_counts(tgt_side),
            len(tgt_side.vocabulary),
        )
        return cls(
            {token: k for k, token in enumerate(src_side.vocabulary)},
            {token: k for k, token in enumerate(tgt_side.vocabulary)},
            table.row_start,
            table.target,
            strength,
        )

    def src_ids(self, words: Sequence[str]) -> IntArray:
        """Source vocabulary ids of ``words`` (-1: not in the page's pairs)."""
        return np.fromiter((self.src_index.get(w, -1) for w in words), np.int64, len(words))

    def tgt_ids(self, words: Sequence[str]) -> IntArray:
        """Target vocabulary ids of ``words`` (-1: not in the page's pairs)."""
        return np.fromiter((self.tgt_index.get(w, -1) for w in words), np.int64, len(words))

    def coverage(self, src: Sequence[IntArray], tgt: Sequence[IntArray]) -> FloatArray:
        """One row per text pair (``src[k]``, ``tgt[k]``: word ids, :meth:`src_ids`): target
        mean best t, source mean best t, target covered share, source covered share (0 for
        a side without words)."""
        if not src:
            return np.zeros((0, 4))
        return _coverage(
            self.row_start, self.target, self.strength, *_concatenated(src), *_concatenated(tgt),
            len(self.tgt_index), COVERED,
        )  # fmt: skip


def _concatenated(arrays: Sequence[IntArray]) -> tuple[IntArray, IntArray]:
    """The arrays end to end and where each starts (CSR)."""
    start = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in arrays], out=start[1:])
    return np.concatenate([*arrays, np.zeros(0, dtype=np.int64)]), start


def _pair_counts(side: model1.EncodedSide) -> IntArray:
    """How many of the side's sentences each vocabulary word occurs in."""
    sentence = np.repeat(np.arange(side.n_sentences, dtype=np.int64), np.diff(side.start))
    distinct = np.unique(sentence * len(side.vocabulary) + side.ids) % max(len(side.vocabulary), 1)
    return np.bincount(distinct, minlength=len(side.vocabulary)).astype(np.int64)


@njit(cache=True)
def _evidenced_strength(
    row_start: IntArray,
    target: IntArray,
    probability: FloatArray,
    cue_keys: IntArray,
    src_pairs: IntArray,
    tgt_pairs: IntArray,
    n_tgt_vocab: int,
) -> FloatArray:
    """t(e|f) of each table entry where (f, e) is a cue (key f * n_tgt_vocab + e) or both
    words occur in two pairs or more; 0 elsewhere."""
    cues = set(cue_keys)
    strength = np.zeros(probability.shape[0], dtype=np.float64)
    for f in range(row_start.shape[0] - 1):
        for j in range(row_start[f], row_start[f + 1]):
            e = target[j]
            if (src_pairs[f] > 1 and tgt_pairs[e] > 1) or f * n_tgt_vocab + e in cues:
                strength[j] = probability[j]
    return strength


@njit(cache=True)
def _coverage(
    row_start: IntArray,
    target: IntArray,
    strength: FloatArray,
    src_ids: IntArray,
    src_start: IntArray,
    tgt_ids: IntArray,
    tgt_start: IntArray,
    n_tgt_vocab: int,
    covered: float,
) -> FloatArray:
    """For each text pair q: over its target words, the mean of the best t(e|f) of any of
    its source words f and the share reaching ``covered``; the same for its source words
    (best over its target words). Unknown words (id -1) count as 0."""
    n_queries = src_start.shape[0] - 1
    result = np.zeros((n_queries, 4), dtype=np.float64)
    stamp = np.full(n_tgt_vocab, -1, dtype=np.int64)  # query whose target holds word e
    best_e = np.zeros(n_tgt_vocab, dtype=np.float64)
    n_src_vocab = row_start.shape[0] - 1
    seen_f = np.full(n_src_vocab, -1, dtype=np.int64)
    best_f = np.zeros(n_src_vocab, dtype=np.float64)
    for q in range(n_queries):
        for k in range(tgt_start[q], tgt_start[q + 1]):
            e = tgt_ids[k]
            if e >= 0:
                stamp[e] = q
                best_e[e] = 0.0
        for k in range(src_start[q], src_start[q + 1]):
            f = src_ids[k]
            if f < 0 or seen_f[f] == q:
                continue
            seen_f[f] = q
            best = 0.0
            for j in range(row_start[f], row_start[f + 1]):
                e = target[j]
                p = strength[j]
                if stamp[e] == q and p > 0.0:
                    best_e[e] = max(best_e[e], p)
                    best = max(best, p)
            best_f[f] = best
        result[q, 0], result[q, 2] = _mean_and_share(
            tgt_ids, tgt_start[q], tgt_start[q + 1], best_e, covered
        )
        result[q, 1], result[q, 3] = _mean_and_share(
            src_ids, src_start[q], src_start[q + 1], best_f, covered
        )
    return result


@njit(cache=True)
def _mean_and_share(
    ids: IntArray, start: int, stop: int, best: FloatArray, covered: float
) -> tuple[float, float]:
    """Over the words ``ids[start:stop]``: the mean of their ``best`` probability and the
    share reaching ``covered`` (an unknown word, id -1, counts as 0); (0, 0) for no word."""
    if stop <= start:
        return 0.0, 0.0
    total = 0.0
    hits = 0.0
    for k in range(start, stop):
        word = ids[k]
        p = best[word] if word >= 0 else 0.0
        total += p
        hits += p >= covered
    return total / (stop - start), hits / (stop - start)
