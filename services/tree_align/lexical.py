"""A lexical Pr_text for the tree model (docs/methods.md §1 with §2's lexicon model).

The length Pr_text of :class:`~services.tree_align.model.LengthTextModel` cannot tell a
translated paragraph from an unrelated text of similar length (a one-sided box or ad that
looks like the other side's box). :class:`LexicalTextModel` adds IBM Model 1 evidence
trained on the page pair itself (Moore 2002's two passes, ``services.lexical.model1``): a
first tree alignment with the length model pairs text chunks, the confident pairs train
t(e|f) and t(f|e) (seeded with identical-token and cognate cues), and the second alignment
scores every text-leaf pair with

    cost = cost_length - w * 1/2 (LLR(T|S) - o |T| + LLR(S|T) - o |S|)
    LLR(T|S) = sum over words e of T of log( p(e|S) / p_bg(e) ),
    p(e|S)   = eps p_bg(e) + (1 - eps) / |S| sum over f in S of t(e|f)

(§2 "Lexicon-based model"; p_bg the unigram distribution of the page's own text). A word
that no word of S translates contributes log eps < 0, so two unrelated texts pay for every
word and the longer they are the less they pair, while a translation earns for every word
it explains. Both terms are log likelihood ratios against unrelated text, like the length
model's, so the sum is one.

Project reading: the per-word offset o (< 0) calibrates the ratio for a table trained on
one page pair. Most words of a paragraph that was not among the confident pairs are unknown
to that table and score log eps, as every word of an unrelated box does; measured on the dev
pages (benchmarks/results/tuning_history.md, services/tree_align/lexical.py), a translated
paragraph scores well above the offset per word and an unrelated pair's log eps well below
it, so o = -1 (chosen on dev) makes the first a gain and the second a loss per word
instead of both losses. A table that knows less (seeded by a bilingual dictionary only, or
Chinese with every ideograph a word) separates the two less, so o is measured on each page
pair (:func:`page_offset`) and -1 is its ceiling. A bilingual dictionary of the two
languages (``services.lexical.registry``, the sentence aligner's) seeds Model 1 as cues.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from numba import njit

from services.lexical import model1
from services.lexical.dictionary import BilingualDictionary
from services.tree_align.model import FloatArray, TextModel

IntArray = npt.NDArray[np.int64]
# The lexical weight and per-word offset: chosen on the dev pages of
# benchmarks/tree_align/pages.py (runs: benchmarks/results/tuning_history.md).
DEFAULT_LEXICAL_WEIGHT = 2.0
DEFAULT_WORD_OFFSET = -1.0  # per-word LLR of no evidence either way (between log eps and 0)
DEFAULT_EPSILON = 0.1
DEFAULT_CUE_WEIGHT = 1.0
# A bilingual dictionary's word pairs seed Model 1 as cues of this strength (as the
# sentence aligner's, services/sentence_align/aligners/lexical_settings.py) for words of at least
# DICTIONARY_MIN_LENGTH letters (any length in Chinese and Japanese).
DICTIONARY_STRENGTH = 0.25
DICTIONARY_MIN_LENGTH = 4
# Texts of at least this many words (ideographs and kana one each) measure the page's
# per-word offset (:func:`page_offset`): paragraphs, not menu labels.
CALIBRATION_WORDS = 6
TRAINING_ITERATIONS = 5
# Ideographs and kana: Chinese and Japanese write no spaces, so a sentence would be one
# "word"; each such character is a token of its own (the sentence aligner's reading of
# Chinese; for Japanese a language-independent stand-in for morphemes).
_IDEOGRAPHIC = re.compile("([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])")


def spaced(text: str) -> str:
    """``text`` with every ideograph and kana set apart by spaces (ASCII text unchanged)."""
    if text.isascii() or not _IDEOGRAPHIC.search(text):
        return text
    return _IDEOGRAPHIC.sub(r" \1 ", text)


def word_count(text: str) -> int:
    """Words of ``text``, every ideograph and kana counted as one (:func:`spaced`)."""
    return len(spaced(text).split())


@dataclass(frozen=True)
class _Side:
    """One page's tokens: vocabulary (token -> id) and its add-one unigram p_bg, and the
    page's leaf texts with their token ids (every pass asks for those same texts again)."""

    index: dict[str, int]
    background: FloatArray  # last entry: an unseen token
    leaves: tuple[list[str], IntArray, IntArray]  # texts, their token ids, their starts

    def encode(self, texts: Sequence[str]) -> tuple[IntArray, IntArray]:
        known, known_ids, known_start = self.leaves
        if len(texts) == len(known) and list(texts) == known:
            return known_ids, known_start
        unseen = len(self.index)
        ids: list[int] = []
        start = [0]
        for text in texts:
            ids.extend(
                self.index.get(token, unseen) for token in model1.tokenize(spaced(text), None)
            )
            start.append(len(ids))
        return np.asarray(ids, dtype=np.int64), np.asarray(start, dtype=np.int64)


def _side(encoded: model1.EncodedSide, leaf_texts: Sequence[str]) -> _Side:
    """The side of a page whose ``leaf_texts`` come first in ``encoded``."""
    counts = encoded.background * (len(encoded.ids) + len(encoded.vocabulary))  # add-one counts
    background = np.append(counts, 1.0) / (counts.sum() + 1.0)
    start = encoded.start[: len(leaf_texts) + 1]
    leaves = (list(leaf_texts), encoded.ids[: start[-1]], start)
    return _Side({token: k for k, token in enumerate(encoded.vocabulary)}, background, leaves)


@dataclass(frozen=True)
class LexicalTextModel:
    """Pr_text = length model x Model 1 likelihood ratio, both directions (module docstring)."""

    base: TextModel
    src: _Side
    tgt: _Side
    forward: model1.TranslationTable  # t(e|f)
    backward: model1.TranslationTable  # t(f|e)
    weight: float = DEFAULT_LEXICAL_WEIGHT
    epsilon: float = DEFAULT_EPSILON
    word_offset: float = DEFAULT_WORD_OFFSET
    # The leaf texts' LLR matrix and word counts a side, computed once for the page offset
    # (:func:`train_lexical_model`); the decoder asks for the same matrix
    leaf_llr: tuple[FloatArray, FloatArray, FloatArray] | None = field(
        default=None, compare=False, repr=False
    )

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        costs = self.base.pair_costs(src_texts, tgt_texts)
        if not len(src_texts) or not len(tgt_texts):
            return costs
        llr, words = self.llr(src_texts, tgt_texts)
        # Per-word calibration: LLR(T|S) - offset |T|, LLR(S|T) - offset |S|.
        result: FloatArray = costs - self.weight * 0.5 * (llr - self.word_offset * words)
        return result

    def llr(
        self, src_texts: Sequence[str], tgt_texts: Sequence[str]
    ) -> tuple[FloatArray, FloatArray]:
        """[x, y] = LLR(T|S) + LLR(S|T) of texts x and y, and their summed word counts."""
        llr, src_words, tgt_words = self._llr(src_texts, tgt_texts)
        return llr, src_words[:, None] + tgt_words[None, :]

    def _llr(
        self, src_texts: Sequence[str], tgt_texts: Sequence[str]
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The LLR matrix of :meth:`llr` and the word counts of each side's texts."""
        if (
            self.leaf_llr is not None
            and list(src_texts) == self.src.leaves[0]
            and list(tgt_texts) == self.tgt.leaves[0]
        ):
            return self.leaf_llr
        src_ids, src_start = self.src.encode(src_texts)
        tgt_ids, tgt_start = self.tgt.encode(tgt_texts)
        forward = _llr_matrix(
            src_ids, src_start, tgt_ids, tgt_start, self.forward.row_start, self.forward.target,
            self.forward.probability, self.tgt.background, self.epsilon,
        )  # fmt: skip
        backward = _llr_matrix(
            tgt_ids, tgt_start, src_ids, src_start, self.backward.row_start,
            self.backward.target, self.backward.probability, self.src.background, self.epsilon,
        )  # fmt: skip
        src_words = np.diff(src_start).astype(np.float64)
        tgt_words = np.diff(tgt_start).astype(np.float64)
        return forward + backward.T, src_words, tgt_words


def page_offset(
    model: LexicalTextModel, src_texts: Sequence[str], tgt_texts: Sequence[str]
) -> float:
    """The per-word offset o measured on the page pair, never above the model's own.

    Among the texts of ``CALIBRATION_WORDS`` words or more, most pairs are unrelated and a
    text's best pair is likely its translation; o is midway between the median per-word
    LLR of all pairs and the median per-word LLR of every text's best pair (both
    directions), so that a translation gains and an unrelated pair pays per word whatever
    the table knows: a table trained on a long page pair separates the two by about 2 per
    word (-0.3 against log eps), one seeded by a dictionary only and with ideographs as
    words by well under 1, both below the fixed -1.
    """
    src_long = [k for k, text in enumerate(src_texts) if word_count(text) >= CALIBRATION_WORDS]
    tgt_long = [k for k, text in enumerate(tgt_texts) if word_count(text) >= CALIBRATION_WORDS]
    if len(src_long) < 2 or len(tgt_long) < 2:
        return model.word_offset
    llr, src_words, tgt_words = model._llr(src_texts, tgt_texts)
    llr = llr[np.ix_(src_long, tgt_long)]
    words = src_words[src_long][:, None] + tgt_words[tgt_long][None, :]
    per_word = llr / np.maximum(words, 1.0)
    unrelated = float(np.median(per_word))
    best = np.concatenate([per_word.max(axis=1), per_word.max(axis=0)])
    translated = float(np.median(best))
    return min(model.word_offset, 0.5 * (unrelated + translated))


def train_lexical_model(
    src_texts: Sequence[str],
    tgt_texts: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    base: TextModel,
    *,
    weight: float = DEFAULT_LEXICAL_WEIGHT,
    epsilon: float = DEFAULT_EPSILON,
    word_offset: float = DEFAULT_WORD_OFFSET,
    cue_weight: float = DEFAULT_CUE_WEIGHT,
    dictionary: BilingualDictionary | None = None,
) -> LexicalTextModel:
    """Model 1 both ways on ``pairs`` (text pairs of a first pass) over the pages' texts;
    ``dictionary`` (source to target language): its word pairs seed both directions as cues
    besides identical tokens, numbers and cognates. The per-word offset is ``word_offset``
    or the lower one measured on the pages' texts (:func:`page_offset`)."""
    training = [(a, b) for a, b in pairs]
    src = model1.encode([spaced(t) for t in (*src_texts, *(a for a, _ in training))], None)
    tgt = model1.encode([spaced(t) for t in (*tgt_texts, *(b for _, b in training))], None)
    offset = (len(src_texts), len(tgt_texts))
    bead_pairs = [(offset[0] + k, offset[1] + k) for k in range(len(training))]
    cues = model1.cue_similarity(src.vocabulary, tgt.vocabulary)
    if dictionary is not None:
        # identity, number and cognate cues keep their strength where both apply
        cues = (
            dictionary.cues(
                src.vocabulary, tgt.vocabulary, DICTIONARY_STRENGTH, DICTIONARY_MIN_LENGTH
            )
            | cues
        )
    forward = model1.train_model1(
        src, tgt, bead_pairs, cues, iterations=TRAINING_ITERATIONS, cue_weight=cue_weight
    )
    backward = model1.train_model1(
        tgt,
        src,
        [(y, x) for x, y in bead_pairs],
        {(e, f): value for (f, e), value in cues.items()},
        iterations=TRAINING_ITERATIONS,
        cue_weight=cue_weight,
    )
    model = LexicalTextModel(
        base,
        _side(src, src_texts),
        _side(tgt, tgt_texts),
        forward,
        backward,
        weight,
        epsilon,
        word_offset,
    )
    model = dataclasses.replace(model, leaf_llr=model._llr(src_texts, tgt_texts))
    return dataclasses.replace(model, word_offset=page_offset(model, src_texts, tgt_texts))


@njit(cache=True)
def _llr_matrix(
    src_ids: IntArray,
    src_start: IntArray,
    tgt_ids: IntArray,
    tgt_start: IntArray,
    row_start: IntArray,
    target: IntArray,
    probability: FloatArray,
    tgt_background: FloatArray,
    epsilon: float,
) -> FloatArray:
    """[x, y] = LLR(t_y | s_x) (module docstring); an id past the table is an unseen word."""
    n_src = src_start.shape[0] - 1
    n_tgt = tgt_start.shape[0] - 1
    n_rows = row_start.shape[0] - 1
    result = np.zeros((n_src, n_tgt))
    mass = np.zeros(tgt_background.shape[0])
    log_eps = math.log(epsilon)
    for x in range(n_src):
        n_words = src_start[x + 1] - src_start[x]
        if n_words == 0:
            continue  # p(e|S) = p_bg(e): a ratio of 1
        # Spread t(.|f) of every word of s_x over a dense scratch row, read it, clear it.
        for a in range(src_start[x], src_start[x + 1]):
            f = src_ids[a]
            if f < n_rows:
                for entry in range(row_start[f], row_start[f + 1]):
                    mass[target[entry]] += probability[entry]
        scale = (1.0 - epsilon) / n_words
        for y in range(n_tgt):
            total = 0.0
            for b in range(tgt_start[y], tgt_start[y + 1]):
                e = tgt_ids[b]
                value = mass[e]
                if value > 0.0:
                    total += math.log(epsilon + scale * value / tgt_background[e])
                else:
                    total += log_eps
            result[x, y] = total
        for a in range(src_start[x], src_start[x + 1]):
            f = src_ids[a]
            if f < n_rows:
                for entry in range(row_start[f], row_start[f + 1]):
                    mass[target[entry]] = 0.0
    return result
