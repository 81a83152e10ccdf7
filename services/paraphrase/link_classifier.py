"""Supervised link decision over the unsupervised aligner's posteriors and lexical evidence.

The HMM aligner (``word_align``) is unsupervised; where gold-aligned pairs exist (the
Edinburgh++ train split) a classifier decides each cell (i, j) from features in the spirit of
Sultan, Bethard & Sumner (2014): identical, lemma and stem matches, WordNet synonyms and
derivational/taxonomic relations (``services.paraphrase.wordnet``, optional), two-word WordNet
phrases ("passed away" ~ "died"), character-trigram similarity, stop-word and punctuation
classes, contextual evidence (lexical matches of the neighbouring words), a lexicon of word
pairs linked in the training gold, and the aligner's directional posteriors with their row and
column competition (Ayan & Dorr 2006 combine aligners the same way), each also multiplied by
"identical pair" and by "function word or punctuation" (:func:`with_interactions`).

Two logistic stages (stacking): stage 1 scores every cell from those features; stage 2 adds
the stage-1 probabilities of the neighbouring cells and of the competing cells in the row and
column, so that blocks grow ("in the direction of" ~ "toward" links all four cells) and
one-to-one choices sharpen. Each stage is
    p(link | x) = 1 / (1 + exp(-w . z(x))),   w = argmin logistic loss + l2 ||w||^2 / 2
with z the standardised features. During fitting, the gold lexicon features and the stage-1
probabilities that stage 2 learns from are computed out of fold (cross-fitting), so stage 2
sees stage-1 outputs as noisy as at test time. Only candidate cells (:func:`candidate_cells`:
some posterior, neighbour or lexical evidence) are scored; the others get p = 0. Decision:
link when p >= threshold, with its own threshold for identical pairs (same word, any case) if
one is given (:func:`decide_links`). All parameters are plain numbers and strings,
JSON-serialisable.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numba import njit
from numpy.typing import NDArray

from services.paraphrase.word_align import Link, WordAligner
from services.paraphrase.wordnet import WordNet, default_wordnet
from shared.errors import InvalidInput

FloatArray = NDArray[np.float64]
Example = tuple[Sequence[str], Sequence[str], Iterable[Link]]

_STOP_WORD_LINES = (
    "a an the this that these those of in on at to for from by with about as into onto upon",
    "over under after before during through via per than then and or but nor so yet if whether",
    "because while although though is are was were be been being am 's 're 'm 've 'd 'll",
    "have has had do does did will would shall should can could may might must not n't no",
    "never it its he him his she her they them their we us our you your i me my who whom",
    "whose which what there here also only just very too more most",
)
STOP_WORDS = frozenset(word for line in _STOP_WORD_LINES for word in line.split())

STATIC_FEATURES = (
    "bias",
    "forward",
    "backward",
    "product",
    "identical",
    "stem",
    "lemma",
    "wordnet_synonym",
    "wordnet_lexical",
    "wordnet_taxonomy",
    "wordnet_phrase",
    "trigram_dice",
    "gold_ratio",
    "gold_seen",
    "source_stop",
    "target_stop",
    "both_stop",
    "both_punctuation",
    "one_punctuation",
    "neighbour_diagonal",
    "neighbour_row_col",
    "row_competition",
    "column_competition",
    "source_matched_elsewhere",
    "target_matched_elsewhere",
    "context_diagonal_match",
    "context_window_match",
    "position_distance",
    "length_ratio",
    "length_asymmetry",
)
CONTEXT_FEATURES = (
    "stage1_logit",
    "stage1_straight_neighbour",
    "stage1_diagonal_neighbour",
    "stage1_row_other",
    "stage1_column_other",
    "stage1_row_sum",
    "stage1_column_sum",
    "stage1_diagonal_both",
    "stage1_both_free",
    "stage1_diagonal_free",
    "stage1_vertical_row_free",
    "stage1_horizontal_column_free",
    "monotone_path_gap",
    "monotone_path_best",
)
_WINDOW = 3
_FOLDS = 3


def _shifted(matrix: FloatArray, di: int, dj: int) -> FloatArray:
    # value at (i + di, j + dj), zero outside the matrix
    rows, cols = matrix.shape
    result = np.zeros_like(matrix)
    result[max(-di, 0) : rows + min(-di, 0), max(-dj, 0) : cols + min(-dj, 0)] = matrix[
        max(di, 0) : rows + min(di, 0), max(dj, 0) : cols + min(dj, 0)
    ]
    return result


def _box_sum(matrix: FloatArray, radius: int) -> FloatArray:
    """Sum over the (2 radius + 1)^2 window around each cell (cut at the edges), by a summed-area
    table instead of one shifted copy per offset."""
    rows, cols = matrix.shape
    table = np.zeros((rows + 1, cols + 1))
    table[1:, 1:] = matrix.cumsum(axis=0).cumsum(axis=1)
    top = np.clip(np.arange(rows) - radius, 0, rows)
    bottom = np.clip(np.arange(rows) + radius + 1, 0, rows)
    left = np.clip(np.arange(cols) - radius, 0, cols)
    right = np.clip(np.arange(cols) + radius + 1, 0, cols)
    result: FloatArray = (
        table[np.ix_(bottom, right)]
        - table[np.ix_(top, right)]
        - table[np.ix_(bottom, left)]
        + table[np.ix_(top, left)]
    )
    return result


def _straight_max(matrix: FloatArray) -> FloatArray:
    # Largest value among the four horizontal and vertical neighbours of each cell.
    shifts = ((-1, 0), (1, 0), (0, -1), (0, 1))
    result: FloatArray = np.maximum.reduce([_shifted(matrix, di, dj) for di, dj in shifts])
    return result


def _is_punctuation(word: str) -> bool:
    return not any(c.isalnum() for c in word)


def _trigrams(word: str) -> set[str]:
    padded = f"#{word}#"
    return {padded[k : k + 3] for k in range(len(padded) - 2)}


def _dice(left: set[str], right: set[str]) -> float:
    return 2 * len(left & right) / (len(left) + len(right)) if left and right else 0.0


def trigram_dice_matrix(source: Sequence[str], target: Sequence[str]) -> FloatArray:
    """:func:`_dice` of the padded character trigrams of every word pair, by one product of
    0/1 trigram-incidence matrices."""
    grams_s = [_trigrams(w) for w in source]
    grams_t = [_trigrams(w) for w in target]
    shared = _shared_counts(grams_s, grams_t)
    sizes = np.array([len(g) for g in grams_s])[:, None] + np.array([len(g) for g in grams_t])
    result: FloatArray = 2 * shared / np.maximum(sizes, 1.0)
    return result


def _shared_counts(sets_s: Sequence[Iterable[str]], sets_t: Sequence[Iterable[str]]) -> FloatArray:
    # |A_i & B_j| for every pair, by a product of 0/1 incidence matrices
    vocabulary: dict[str, int] = {}
    incidences = []
    for sets in (sets_s, sets_t):
        rows = [[vocabulary.setdefault(item, len(vocabulary)) for item in items] for items in sets]
        incidences.append(rows)
    matrices = []
    for rows in incidences:
        matrix = np.zeros((len(rows), len(vocabulary)))
        for k, columns in enumerate(rows):
            matrix[k, columns] = 1.0
        matrices.append(matrix)
    result: FloatArray = matrices[0] @ matrices[1].T
    return result


def stem_matrix(source: Sequence[str], target: Sequence[str]) -> FloatArray:
    """``word_align.stem_match`` of every word pair as 0/1, from all common-prefix lengths."""
    length = max([len(w) for w in source] + [len(w) for w in target] + [1])
    codes_s = np.full((len(source), length), -1, dtype=np.int64)
    codes_t = np.full((len(target), length), -2, dtype=np.int64)
    for codes, words in ((codes_s, source), (codes_t, target)):
        for k, word in enumerate(words):
            codes[k, : len(word)] = [ord(c) for c in word]
    equal = codes_s[:, None, :] == codes_t[None, :, :]
    common = np.cumprod(equal, axis=2).sum(axis=2)
    sizes_s = np.array([len(w) for w in source])[:, None]
    sizes_t = np.array([len(w) for w in target])[None, :]
    identical = (common == sizes_s) & (common == sizes_t)
    result: FloatArray = (
        ~identical
        & (np.minimum(sizes_s, sizes_t) >= 4)
        & (common >= 4)
        & (common >= np.maximum(sizes_s, sizes_t) - 4)
    ).astype(np.float64)
    return result


@dataclass(frozen=True)
class GoldLexicon:
    """Word pairs linked in training gold: (linked cells, co-occurring cells) per pair."""

    counts: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def from_examples(cls, examples: Iterable[Example]) -> GoldLexicon:
        rows = list(examples)
        return cls.cross_fitted(rows, [0] * len(rows), 1)[1]

    @classmethod
    def cross_fitted(
        cls, examples: Sequence[Example], folds: Sequence[int], n_folds: int
    ) -> list[GoldLexicon]:
        """The lexicon of every fold's complement (out of fold), then the lexicon of all
        examples, from one counting pass: link and co-occurrence counts are sums over
        examples, so each complement's counts are the total minus its fold's."""
        rows = [
            ([w.lower() for w in s], [w.lower() for w in t], set(links)) for s, t, links in examples
        ]
        linked = [Counter[tuple[str, str]]() for _ in range(n_folds)]
        for (source, target, links), fold in zip(rows, folds, strict=True):
            for i, j in links:
                if i < len(source) and j < len(target):
                    linked[fold][(source[i], target[j])] += 1
        partners: dict[str, set[str]] = {}
        for counts in linked:
            for a, b in counts:
                partners.setdefault(a, set()).add(b)
        seen = [Counter[tuple[str, str]]() for _ in range(n_folds)]
        for (source, target, _), fold in zip(rows, folds, strict=True):
            in_target = Counter(target)
            for a in source:
                for b in partners.get(a, ()):
                    if b in in_target:
                        seen[fold][(a, b)] += in_target[b]
        total_linked, total_seen = sum(linked, Counter()), sum(seen, Counter())
        result = []
        for fold in [*range(n_folds), None]:
            inside_linked = total_linked - linked[fold] if fold is not None else total_linked
            inside_seen = total_seen - seen[fold] if fold is not None else total_seen
            result.append(cls({k: (n, inside_seen[k]) for k, n in inside_linked.items()}))
        return result

    def ratios(self, source: Sequence[str], target: Sequence[str]) -> FloatArray:
        """:meth:`ratio` of every (source word, target word) pair, shape (I, J)."""
        rows = self._by_source()
        result = np.zeros((len(source), len(target)))
        for i, a in enumerate(source):
            row = rows.get(a)
            if row:
                result[i] = [row.get(b, 0.0) for b in target]
        return result

    def _by_source(self) -> dict[str, dict[str, float]]:
        # ratio() grouped by the source word, built on first use (frozen: via __dict__)
        cached: dict[str, dict[str, float]] | None = self.__dict__.get("_rows")
        if cached is None:
            cached = {}
            for (a, b), (n, m) in self.counts.items():
                cached.setdefault(a, {})[b] = n / (m + 1)
            object.__setattr__(self, "_rows", cached)
        return cached

    def ratio(self, left: str, right: str) -> float:
        """Smoothed share of co-occurrences that were linked: links / (co-occurrences + 1)."""
        found = self.counts.get((left, right))
        return found[0] / (found[1] + 1) if found else 0.0


def static_features(
    aligner: WordAligner,
    source: Sequence[str],
    target: Sequence[str],
    lexicon: GoldLexicon,
    wordnet: WordNet | None,
) -> FloatArray:
    """Stage-1 features, shape (len(source), len(target), len(STATIC_FEATURES))."""
    forward, backward = aligner.directional_posteriors(source, target)
    lower_s = [w.lower() for w in source]
    lower_t = [w.lower() for w in target]
    shape = (len(source), len(target))
    codes: dict[str, int] = {}
    codes_s = np.array([codes.setdefault(w, len(codes)) for w in lower_s])
    codes_t = np.array([codes.setdefault(w, len(codes)) for w in lower_t])
    identical = (codes_s[:, None] == codes_t[None, :]).astype(np.float64)
    stem = stem_matrix(lower_s, lower_t)
    lemma = np.zeros(shape)
    relation = np.zeros(shape, dtype=np.int64)
    phrase = np.zeros(shape)
    if wordnet is not None:
        lemmas_s = [wordnet.lemmas(w) for w in lower_s]
        lemmas_t = [wordnet.lemmas(w) for w in lower_t]
        known_s = [w not in STOP_WORDS and wordnet.known(w) for w in lower_s]
        known_t = [w not in STOP_WORDS and wordnet.known(w) for w in lower_t]
        lemma = (_shared_counts(lemmas_s, lemmas_t) > 0) * (1.0 - identical)
        for i, a in enumerate(lower_s):
            if known_s[i]:
                for j, b in enumerate(lower_t):
                    if known_t[j] and a != b:
                        relation[i, j] = wordnet.relation(a, b)
        _phrase_relations(wordnet, lower_s, lower_t, phrase, transpose=False)
        _phrase_relations(wordnet, lower_t, lower_s, phrase, transpose=True)
    dice = trigram_dice_matrix(lower_s, lower_t)
    gold = lexicon.ratios(lower_s, lower_t)
    stop_s = np.array([float(w in STOP_WORDS) for w in lower_s])[:, None] * np.ones(shape)
    stop_t = np.array([float(w in STOP_WORDS) for w in lower_t])[None, :] * np.ones(shape)
    punct_s = np.array([float(_is_punctuation(w)) for w in source])[:, None] * np.ones(shape)
    punct_t = np.array([float(_is_punctuation(w)) for w in target])[None, :] * np.ones(shape)
    # a lexical match: identical, same lemma, WordNet synonym, or a frequent gold pair
    match = np.maximum.reduce(
        [identical, lemma, (relation == 3).astype(np.float64), (gold > 0.3).astype(np.float64)]
    )
    content = (1 - stop_s) * (1 - punct_s) * (1 - stop_t) * (1 - punct_t)
    content_match = match * content
    mean = 0.5 * (forward + backward)
    window = _box_sum(content_match, _WINDOW) - content_match
    positions_s = (np.arange(len(source)) + 0.5) / len(source)
    positions_t = (np.arange(len(target)) + 0.5) / len(target)
    columns = [
        np.ones(shape),
        forward,
        backward,
        forward * backward,
        identical,
        stem,
        lemma,
        (relation == 3).astype(np.float64),
        (relation == 2).astype(np.float64),
        (relation == 1).astype(np.float64),
        phrase,
        dice,
        gold,
        (gold > 0).astype(np.float64),
        stop_s,
        stop_t,
        stop_s * stop_t,
        punct_s * punct_t,
        np.abs(punct_s - punct_t),
        np.maximum(_shifted(mean, -1, -1), _shifted(mean, 1, 1)),
        np.maximum.reduce(
            [
                _shifted(mean, -1, 0),
                _shifted(mean, 1, 0),
                _shifted(mean, 0, -1),
                _shifted(mean, 0, 1),
            ]
        ),
        mean - mean.max(axis=1, keepdims=True),
        mean - mean.max(axis=0, keepdims=True),
        ((match.sum(axis=1, keepdims=True) - match) > 0) * np.ones(shape),
        ((match.sum(axis=0, keepdims=True) - match) > 0) * np.ones(shape),
        _shifted(match, -1, -1) + _shifted(match, 1, 1),
        np.minimum(window, 3.0) / 3.0,
        np.abs(positions_s[:, None] - positions_t[None, :]),
        # log(I / J) of the pair: a premise much longer than its hypothesis leaves most of its
        # words unlinked (MSR RTE), a paraphrase few (Edinburgh++), so the bias follows it
        np.full(shape, np.log(len(source) / len(target))),
        np.full(shape, abs(np.log(len(source) / len(target)))),
    ]
    return np.stack(columns, axis=2)


def _phrase_relations(
    wordnet: WordNet, first: list[str], second: list[str], out: FloatArray, *, transpose: bool
) -> None:
    # A two-word WordNet lemma in ``first`` (passed_away) related to a word of ``second`` (died).
    for k in range(len(first) - 1):
        bigram = f"{first[k]}_{first[k + 1]}"
        if not wordnet.known(bigram):
            continue
        for j, word in enumerate(second):
            if word not in STOP_WORDS and wordnet.relation(bigram, word) >= 2:
                for i in (k, k + 1):
                    if transpose:
                        out[j, i] = 1.0
                    else:
                        out[i, j] = 1.0


def context_features(stage1: FloatArray) -> FloatArray:
    """Stage-2 additions from stage-1 probabilities, shape (I, J, len(CONTEXT_FEATURES))."""
    clipped = np.clip(stage1, 1e-4, 1 - 1e-4)
    straight = np.maximum.reduce(
        [
            _shifted(stage1, -1, 0),
            _shifted(stage1, 1, 0),
            _shifted(stage1, 0, -1),
            _shifted(stage1, 0, 1),
        ]
    )
    diagonal = np.maximum(_shifted(stage1, -1, -1), _shifted(stage1, 1, 1))
    row_other = _max_excluding_self(stage1, axis=1)
    column_other = _max_excluding_self(stage1, axis=0)
    # gap filling and block growth (Sultan et al.'s contextual evidence): a cell between two
    # linked diagonal neighbours, or beside a linked cell, whose words are otherwise free
    both_free = (1 - row_other) * (1 - column_other)
    vertical = np.maximum(_shifted(stage1, -1, 0), _shifted(stage1, 1, 0))
    horizontal = np.maximum(_shifted(stage1, 0, -1), _shifted(stage1, 0, 1))
    columns = [
        np.log(clipped / (1 - clipped)),
        straight,
        diagonal,
        row_other,
        column_other,
        stage1.sum(axis=1, keepdims=True) - stage1,
        stage1.sum(axis=0, keepdims=True) - stage1,
        np.minimum(_shifted(stage1, -1, -1), _shifted(stage1, 1, 1)),
        both_free,
        diagonal * both_free,
        vertical * (1 - row_other),
        horizontal * (1 - column_other),
        *_monotone_path(stage1 - 0.5),
    ]
    return np.stack([np.broadcast_to(c, stage1.shape) for c in columns], axis=2)


@njit(cache=True)
def _best_ending(weights: FloatArray) -> FloatArray:
    """Weight of the best strictly monotone chain of cells (i_1 < i_2 < ..., j_1 < j_2 < ...)
    ending at each cell (i, j), by the recurrence
        F(i, j) = w(i, j) + max(0, max_{i' < i, j' < j} F(i', j'))
    with a running 2-D prefix maximum M(i - 1, .) of F (compiled: a loop over cells)."""
    rows, cols = weights.shape
    ending = np.empty((rows, cols))
    prefix = np.full(cols, -np.inf)  # M(i - 1, j): best F over rows < i and columns <= j
    for i in range(rows):
        for j in range(cols):
            before = max(prefix[j - 1], 0.0) if j > 0 else 0.0
            ending[i, j] = weights[i, j] + before
        running = -np.inf
        for j in range(cols):
            running = max(running, ending[i, j])
            prefix[j] = max(prefix[j], running)
    return ending


def _monotone_path(weights: FloatArray) -> list[FloatArray]:
    """Global monotone consistency (paraphrases mostly keep word order): with w = p1 - 0.5
    (positive where stage 1 favours a link), the weight of the best monotone chain through
    each cell minus that of the best chain overall (cut at -5), and "the cell lies on a best
    chain". Chosen by 3-fold CV on Edinburgh++ train (F1 0.893 -> 0.894)."""
    forward = _best_ending(weights)
    backward = _best_ending(np.ascontiguousarray(weights[::-1, ::-1]))[::-1, ::-1]
    through = forward + backward - weights
    best = max(float(through.max()), 0.0)
    gap = np.maximum(through - best, -5.0)
    return [gap, (gap >= -1e-9).astype(np.float64)]


def _max_excluding_self(matrix: FloatArray, axis: int) -> FloatArray:
    # Largest value among the other cells of the same row (axis=1) or column (axis=0).
    order = np.sort(matrix, axis=axis)
    best = np.take(order, [-1], axis=axis)
    second = np.take(order, [-2], axis=axis) if matrix.shape[axis] > 1 else np.zeros_like(best)
    result: FloatArray = np.where(matrix >= best, second, best)
    return result


@dataclass(frozen=True)
class Logistic:
    """Standardised logistic regression: mean, scale and weights per feature."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float

    @classmethod
    def fit(
        cls, x: FloatArray, y: FloatArray, l2: float = 1.0, initial: Logistic | None = None
    ) -> Logistic:
        """Fit on rows x and 0/1 labels y; ``initial`` (a model fitted on similar data) gives
        the standardisation and the starting weights, so Newton needs fewer steps."""
        if initial is None:
            mean = x.mean(axis=0)
            scale = x.std(axis=0)
            scale[scale < 1e-9] = 1.0
        else:
            mean, scale = np.array(initial.mean), np.array(initial.scale)
        z = (x - mean) / scale
        design = np.hstack([z, np.ones((z.shape[0], 1))])
        # Newton's method (IRLS) on the convex penalised loss; the bias is not penalised.
        penalty = np.full(design.shape[1], l2)
        penalty[-1] = 0.0
        sign = 2 * y - 1

        def loss(w: FloatArray, margin: FloatArray) -> float:
            return float(np.logaddexp(0.0, -sign * margin).sum() + 0.5 * penalty @ (w * w))

        w = np.zeros(design.shape[1])
        if initial is not None:
            w = np.append(np.array(initial.weights), initial.bias)
        margin = design @ w
        current = loss(w, margin)
        # The curvature in float32 (a Newton direction needs no more; the gradient and the loss
        # stay float64, so the optimum is the same): a BLAS gemm at half the memory traffic.
        # The margins design @ w are carried along (one product per line-search trial).
        # On a busy shared machine run with OPENBLAS_NUM_THREADS=1: spinning BLAS threads made
        # this fit 3-10x slower there (the word_align benchmark sets it).
        single = design.astype(np.float32)
        for _ in range(30):
            p = 0.5 * (1.0 + np.tanh(0.5 * margin))
            grad = design.T @ (p - y) + penalty * w
            weight = (p * (1 - p)).astype(np.float32)
            curvature = ((single.T * weight) @ single).astype(np.float64)
            step = np.linalg.solve(curvature + np.diag(penalty + 1e-9), grad)
            direction = design @ step
            rate = 1.0
            while (trial := loss(w - rate * step, margin - rate * direction)) > current and (
                rate > 1e-3
            ):
                rate /= 2  # backtracking keeps every step a descent step
            w, margin = w - rate * step, margin - rate * direction
            previous, current = current, trial
            if previous - current < 1e-6 * max(previous, 1.0):
                break
        return cls(
            tuple(float(v) for v in mean),
            tuple(float(v) for v in scale),
            tuple(float(v) for v in w[:-1]),
            float(w[-1]),
        )

    def predict(self, x: FloatArray) -> FloatArray:
        z = (x - np.array(self.mean)) / np.array(self.scale)
        margin = z @ np.array(self.weights) + self.bias
        result: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * margin))
        return result


@dataclass(frozen=True)
class LinkClassifier:
    """Two logistic stages, the gold lexicon they read, and the decision thresholds.

    ``threshold`` decides every cell unless ``identical_threshold`` is given, which then
    decides the cells of identical words (case-insensitive).
    """

    stage1: Logistic
    stage2: Logistic
    lexicon: GoldLexicon
    threshold: float = 0.5
    uses_wordnet: bool = True
    identical_threshold: float | None = None

    @classmethod
    def fit(
        cls,
        aligner: WordAligner,
        examples: Iterable[Example],
        *,
        threshold: float = 0.5,
        l2: float = 1.0,
        use_wordnet: bool = True,
    ) -> LinkClassifier:
        """Fit both stages on gold-linked pairs (source, target, links), cross-fitted.

        ``use_wordnet`` needs Debian's ``wordnet-base``; without it the WordNet features are 0.
        """
        wordnet = _wordnet(use_wordnet)
        rows = [(list(s), list(t), set(links)) for s, t, links in examples if s and t]
        if not rows:
            raise InvalidInput("no gold-linked pairs to fit the link classifier on")
        folds = [k % _FOLDS for k in range(len(rows))]
        n_folds = min(_FOLDS, len(rows))
        # Static features with the gold lexicon of the other folds (out of fold).
        *lexicons, full_lexicon = GoldLexicon.cross_fitted(rows, folds, n_folds)
        if n_folds == 1:
            lexicons = [full_lexicon]
        static = [
            static_features(aligner, source, target, lexicons[fold], wordnet)
            for (source, target, _), fold in zip(rows, folds, strict=True)
        ]
        labels = [_gold_matrix(s, t, links) for s, t, links in rows]
        masks = [candidate_cells(x) for x in static]
        static = [with_interactions(x) for x in static]
        flat_x = [x[m] for x, m in zip(static, masks, strict=True)]
        flat_y = [y[m] for y, m in zip(labels, masks, strict=True)]
        stage1 = Logistic.fit(np.concatenate(flat_x), np.concatenate(flat_y), l2)
        # Stage-1 probabilities out of fold, for stage 2 to learn from.
        stacked: list[FloatArray] = [np.zeros(0)] * len(rows)
        for fold in range(n_folds):
            inside = [k for k in range(len(rows)) if folds[k] != fold] or list(range(len(rows)))
            model = Logistic.fit(
                np.concatenate([flat_x[k] for k in inside]),
                np.concatenate([flat_y[k] for k in inside]),
                l2,
                initial=stage1,
            )
            for k in range(len(rows)):
                if folds[k] == fold:
                    probabilities = _predict_cells(model, static[k], masks[k])
                    combined = np.concatenate([static[k], context_features(probabilities)], axis=2)
                    stacked[k] = combined[masks[k]]
        stage2 = Logistic.fit(np.concatenate(stacked), np.concatenate(flat_y), l2)
        return cls(stage1, stage2, full_lexicon, threshold, use_wordnet)

    def probabilities(
        self,
        aligner: WordAligner,
        source: Sequence[str],
        target: Sequence[str],
    ) -> FloatArray:
        """p(link) per cell, shape (len(source), len(target)); all zeros (an empty array)
        when a side is empty, which has no cells to score (the features' max over a row or
        column of nothing raised ValueError)."""
        if not source or not target:
            return np.zeros((len(source), len(target)))
        wordnet = _wordnet(self.uses_wordnet)
        static = static_features(aligner, source, target, self.lexicon, wordnet)
        mask = candidate_cells(static)
        static = with_interactions(static)
        first = _predict_cells(self.stage1, static, mask)
        combined = np.concatenate([static, context_features(first)], axis=2)
        result = _predict_cells(self.stage2, combined, mask)
        return result

    def align(
        self, aligner: WordAligner, source: Sequence[str], target: Sequence[str]
    ) -> set[Link]:
        """Links whose stage-2 probability reaches the threshold of their cell."""
        if not source or not target:
            return set()
        probabilities = self.probabilities(aligner, source, target)
        return decide_links(probabilities, source, target, self.threshold, self.identical_threshold)

    def with_threshold(
        self, threshold: float, identical_threshold: float | None = None
    ) -> LinkClassifier:
        return replace(self, threshold=threshold, identical_threshold=identical_threshold)

    def to_json(self) -> str:
        """Weights, standardisation, gold lexicon and threshold as JSON (no pickle)."""
        return json.dumps(
            {
                "static_features": STATIC_FEATURES,
                "context_features": CONTEXT_FEATURES,
                "stage1": _logistic_state(self.stage1),
                "stage2": _logistic_state(self.stage2),
                "lexicon": [[a, b, n, m] for (a, b), (n, m) in sorted(self.lexicon.counts.items())],
                "threshold": self.threshold,
                "identical_threshold": self.identical_threshold,
                "uses_wordnet": self.uses_wordnet,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> LinkClassifier:
        try:
            state = json.loads(text)
            if (
                tuple(state["static_features"]) != STATIC_FEATURES
                or tuple(state["context_features"]) != CONTEXT_FEATURES
            ):
                raise InvalidInput("link classifier was fitted on other features")
            lexicon = GoldLexicon(
                {(str(a), str(b)): (int(n), int(m)) for a, b, n, m in state["lexicon"]}
            )
            return cls(
                _logistic_from_state(state["stage1"]),
                _logistic_from_state(state["stage2"]),
                lexicon,
                float(state["threshold"]),
                bool(state["uses_wordnet"]),
                _optional_float(state.get("identical_threshold")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"malformed link classifier: {error}") from None


_LEXICAL_EVIDENCE = tuple(
    STATIC_FEATURES.index(name)
    for name in (
        "identical",
        "stem",
        "lemma",
        "wordnet_synonym",
        "wordnet_lexical",
        "wordnet_taxonomy",
        "wordnet_phrase",
        "gold_seen",
    )
)


def decide_links(
    probabilities: FloatArray,
    source: Sequence[str],
    target: Sequence[str],
    threshold: float,
    identical_threshold: float | None = None,
) -> set[Link]:
    """Cells with p >= threshold; identical words (any case) use ``identical_threshold`` if set."""
    cutoff = np.full(probabilities.shape, threshold)
    if identical_threshold is not None:
        lower_t = [w.lower() for w in target]
        identical = np.array([[a.lower() == b for b in lower_t] for a in source], dtype=bool)
        cutoff[identical.reshape(probabilities.shape)] = identical_threshold
    rows, cols = np.nonzero(probabilities >= cutoff)
    return {(int(i), int(j)) for i, j in zip(rows, cols, strict=True)}


def candidate_cells(static: FloatArray) -> NDArray[np.bool_]:
    """Cells the classifier scores; the rest (no evidence at all) get p = 0.

    A cell is a candidate when its mean directional posterior reaches 0.01, a neighbour's
    reaches 0.1, any lexical relation holds, or the trigram Dice similarity exceeds 0.3. On
    Edinburgh++ train this keeps about a quarter of the cells and every gold link.
    """
    index = STATIC_FEATURES.index
    mean = 0.5 * (static[:, :, index("forward")] + static[:, :, index("backward")])
    result: NDArray[np.bool_] = (
        (mean >= 0.01)
        | (static[:, :, index("neighbour_diagonal")] >= 0.1)
        | (static[:, :, index("neighbour_row_col")] >= 0.1)
        | (static[:, :, index("trigram_dice")] > 0.3)
        | (static[:, :, list(_LEXICAL_EVIDENCE)].max(axis=2) > 0)
    )
    return result


def with_interactions(static: FloatArray) -> FloatArray:
    """Static features, then again times ``identical``, then times "function word or punctuation".

    One logistic model thus acts as separate models for identical pairs, function-word or
    punctuation pairs and the rest (chosen by cross-validation on Edinburgh++ train).
    """
    index = STATIC_FEATURES.index
    identical = static[:, :, index("identical") : index("identical") + 1]
    function = np.maximum.reduce(
        [static[:, :, index(name)] for name in ("source_stop", "target_stop", "one_punctuation")]
        + [static[:, :, index("both_punctuation")]]
    )[:, :, None]
    return np.concatenate([static, static * identical, static * function], axis=2)


def _predict_cells(model: Logistic, features: FloatArray, mask: NDArray[np.bool_]) -> FloatArray:
    # p(link) on the candidate cells, 0 elsewhere; shape (I, J)
    result = np.zeros(mask.shape)
    if mask.any():
        result[mask] = model.predict(features[mask])
    return result


def _wordnet(use: bool) -> WordNet | None:
    if not use:
        return None
    found = default_wordnet()
    if found is None:
        raise InvalidInput(
            "the link classifier uses WordNet 3.0: install Debian's wordnet-base "
            "(/usr/share/wordnet) or fit it with use_wordnet=False"
        )
    return found


def _gold_matrix(source: Sequence[str], target: Sequence[str], links: Iterable[Link]) -> FloatArray:
    gold = np.zeros((len(source), len(target)))
    for i, j in links:
        if i < len(source) and j < len(target):
            gold[i, j] = 1.0
    return gold


def _optional_float(value: object) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float):
        raise InvalidInput("malformed identical threshold")
    return float(value)


def _logistic_state(model: Logistic) -> dict[str, object]:
    return {
        "mean": model.mean,
        "scale": model.scale,
        "weights": model.weights,
        "bias": model.bias,
    }


def _logistic_from_state(state: dict[str, list[float] | float]) -> Logistic:
    mean, scale, weights, bias = state["mean"], state["scale"], state["weights"], state["bias"]
    if not isinstance(mean, list) or not isinstance(scale, list) or not isinstance(weights, list):
        raise InvalidInput("malformed logistic stage")
    return Logistic(
        tuple(float(v) for v in mean),
        tuple(float(v) for v in scale),
        tuple(float(v) for v in weights),
        float(bias),  # type: ignore[arg-type]
    )
