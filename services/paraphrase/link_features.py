"""The link classifier's features, each defined once by name: a feature is a name and the
column it computes from the evidence of one sentence pair (``services.paraphrase.link_classifier``
fits and applies the two stages that read them).

Stage 1 (:data:`STATIC`): the aligner's directional posteriors with their row and column
competition, identical, lemma and stem matches, WordNet relations and two-word phrases,
character-trigram similarity, stop-word and punctuation classes, contextual lexical matches,
the gold lexicon, positions and lengths. Stage 2 (:data:`CONTEXT`): the stage-1
probabilities of the neighbouring and competing cells and the best monotone chain.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from services.paraphrase.word_align import Link, WordAligner
from services.paraphrase.wordnet import WordNet

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

_WINDOW = 3


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


class StaticEvidence(NamedTuple):
    """What the stage-1 columns of one sentence pair are computed from, shape (I, J) each."""

    shape: tuple[int, int]
    forward: FloatArray
    backward: FloatArray
    identical: FloatArray
    stem: FloatArray
    lemma: FloatArray
    relation: NDArray[np.int64]  # WordNet relation: 3 synonym, 2 lexical, 1 taxonomic, 0 none
    phrase: FloatArray
    dice: FloatArray
    gold: FloatArray
    stop_s: FloatArray
    stop_t: FloatArray
    punct_s: FloatArray
    punct_t: FloatArray
    match: FloatArray  # a lexical match: identical, same lemma, synonym or a frequent gold pair
    mean: FloatArray  # mean directional posterior
    window: FloatArray  # content-word matches in the window around the cell, itself excluded
    positions_s: FloatArray
    positions_t: FloatArray
    log_length_ratio: float  # log(I / J)


class Feature(NamedTuple):
    """One named column of a stage's features."""

    name: str
    column: Callable[[StaticEvidence], FloatArray]


class ContextFeature(NamedTuple):
    """One named column of stage 2's additions."""

    name: str
    column: Callable[[ContextEvidence], FloatArray]


def _full(evidence: StaticEvidence, value: float) -> FloatArray:
    return np.full(evidence.shape, value)


STATIC: tuple[Feature, ...] = (
    Feature("bias", lambda e: np.ones(e.shape)),
    Feature("forward", lambda e: e.forward),
    Feature("backward", lambda e: e.backward),
    Feature("product", lambda e: e.forward * e.backward),
    Feature("identical", lambda e: e.identical),
    Feature("stem", lambda e: e.stem),
    Feature("lemma", lambda e: e.lemma),
    Feature("wordnet_synonym", lambda e: (e.relation == 3).astype(np.float64)),
    Feature("wordnet_lexical", lambda e: (e.relation == 2).astype(np.float64)),
    Feature("wordnet_taxonomy", lambda e: (e.relation == 1).astype(np.float64)),
    Feature("wordnet_phrase", lambda e: e.phrase),
    Feature("trigram_dice", lambda e: e.dice),
    Feature("gold_ratio", lambda e: e.gold),
    Feature("gold_seen", lambda e: (e.gold > 0).astype(np.float64)),
    Feature("source_stop", lambda e: e.stop_s),
    Feature("target_stop", lambda e: e.stop_t),
    Feature("both_stop", lambda e: e.stop_s * e.stop_t),
    Feature("both_punctuation", lambda e: e.punct_s * e.punct_t),
    Feature("one_punctuation", lambda e: np.abs(e.punct_s - e.punct_t)),
    Feature(
        "neighbour_diagonal",
        lambda e: np.maximum(_shifted(e.mean, -1, -1), _shifted(e.mean, 1, 1)),
    ),
    Feature(
        "neighbour_row_col",
        lambda e: np.maximum.reduce(
            [
                _shifted(e.mean, -1, 0),
                _shifted(e.mean, 1, 0),
                _shifted(e.mean, 0, -1),
                _shifted(e.mean, 0, 1),
            ]
        ),
    ),
    Feature("row_competition", lambda e: e.mean - e.mean.max(axis=1, keepdims=True)),
    Feature("column_competition", lambda e: e.mean - e.mean.max(axis=0, keepdims=True)),
    Feature(
        "source_matched_elsewhere",
        lambda e: ((e.match.sum(axis=1, keepdims=True) - e.match) > 0) * np.ones(e.shape),
    ),
    Feature(
        "target_matched_elsewhere",
        lambda e: ((e.match.sum(axis=0, keepdims=True) - e.match) > 0) * np.ones(e.shape),
    ),
    Feature(
        "context_diagonal_match", lambda e: _shifted(e.match, -1, -1) + _shifted(e.match, 1, 1)
    ),
    Feature("context_window_match", lambda e: np.minimum(e.window, 3.0) / 3.0),
    Feature("position_distance", lambda e: np.abs(e.positions_s[:, None] - e.positions_t[None, :])),
    # log(I / J) of the pair: a premise much longer than its hypothesis leaves most of its
    # words unlinked (MSR RTE), a paraphrase few (Edinburgh++), so the bias follows it
    Feature("length_ratio", lambda e: _full(e, e.log_length_ratio)),
    Feature("length_asymmetry", lambda e: _full(e, abs(e.log_length_ratio))),
)
STATIC_FEATURES = tuple(feature.name for feature in STATIC)


def static_features(
    aligner: WordAligner,
    source: Sequence[str],
    target: Sequence[str],
    lexicon: GoldLexicon,
    wordnet: WordNet | None,
) -> FloatArray:
    """Stage-1 features, shape (len(source), len(target), len(STATIC_FEATURES))."""
    evidence = static_evidence(aligner, source, target, lexicon, wordnet)
    return np.stack([feature.column(evidence) for feature in STATIC], axis=2)


def static_evidence(
    aligner: WordAligner,
    source: Sequence[str],
    target: Sequence[str],
    lexicon: GoldLexicon,
    wordnet: WordNet | None,
) -> StaticEvidence:
    """The matrices the stage-1 columns read, for one sentence pair."""
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
    return StaticEvidence(
        shape, forward, backward, identical, stem, lemma, relation, phrase, dice, gold,
        stop_s, stop_t, punct_s, punct_t, match, mean, window, positions_s, positions_t,
        float(np.log(len(source) / len(target))),
    )  # fmt: skip


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


class ContextEvidence(NamedTuple):
    """What stage 2's columns are computed from: stage-1 probabilities and their neighbours."""

    stage1: FloatArray
    clipped: FloatArray
    straight: FloatArray
    diagonal: FloatArray
    row_other: FloatArray
    column_other: FloatArray
    both_free: FloatArray
    vertical: FloatArray
    horizontal: FloatArray
    path_gap: FloatArray
    path_best: FloatArray


CONTEXT: tuple[ContextFeature, ...] = (
    ContextFeature("stage1_logit", lambda e: np.log(e.clipped / (1 - e.clipped))),
    ContextFeature("stage1_straight_neighbour", lambda e: e.straight),
    ContextFeature("stage1_diagonal_neighbour", lambda e: e.diagonal),
    ContextFeature("stage1_row_other", lambda e: e.row_other),
    ContextFeature("stage1_column_other", lambda e: e.column_other),
    ContextFeature("stage1_row_sum", lambda e: e.stage1.sum(axis=1, keepdims=True) - e.stage1),
    ContextFeature("stage1_column_sum", lambda e: e.stage1.sum(axis=0, keepdims=True) - e.stage1),
    ContextFeature(
        "stage1_diagonal_both",
        lambda e: np.minimum(_shifted(e.stage1, -1, -1), _shifted(e.stage1, 1, 1)),
    ),
    ContextFeature("stage1_both_free", lambda e: e.both_free),
    ContextFeature("stage1_diagonal_free", lambda e: e.diagonal * e.both_free),
    ContextFeature("stage1_vertical_row_free", lambda e: e.vertical * (1 - e.row_other)),
    ContextFeature("stage1_horizontal_column_free", lambda e: e.horizontal * (1 - e.column_other)),
    ContextFeature("monotone_path_gap", lambda e: e.path_gap),
    ContextFeature("monotone_path_best", lambda e: e.path_best),
)
CONTEXT_FEATURES = tuple(feature.name for feature in CONTEXT)


def context_features(stage1: FloatArray) -> FloatArray:
    """Stage-2 additions from stage-1 probabilities, shape (I, J, len(CONTEXT_FEATURES))."""
    evidence = context_evidence(stage1)
    columns = [feature.column(evidence) for feature in CONTEXT]
    return np.stack([np.broadcast_to(c, stage1.shape) for c in columns], axis=2)


def context_evidence(stage1: FloatArray) -> ContextEvidence:
    """The matrices stage 2's columns read."""
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
    gap, best = monotone_path(stage1 - 0.5)
    return ContextEvidence(
        stage1, clipped, straight, diagonal, row_other, column_other, both_free, vertical,
        horizontal, gap, best,
    )  # fmt: skip


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


def monotone_path(weights: FloatArray) -> list[FloatArray]:
    """Global monotone consistency (paraphrases mostly keep word order): with w = p1 - 0.5
    (positive where stage 1 favours a link), the weight of the best monotone chain through
    each cell minus that of the best chain overall (cut at -5), and "the cell lies on a best
    chain". Chosen by 3-fold CV on Edinburgh++ train (benchmarks/results/tuning_history.md)."""
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

    A linear model thus acts as separate models for identical pairs, function-word or
    punctuation pairs and the rest; the boosted stages read the same columns (chosen by
    cross-validation on Edinburgh++ train).
    """
    index = STATIC_FEATURES.index
    identical = static[:, :, index("identical") : index("identical") + 1]
    function = np.maximum.reduce(
        [static[:, :, index(name)] for name in ("source_stop", "target_stop", "one_punctuation")]
        + [static[:, :, index("both_punctuation")]]
    )[:, :, None]
    return np.concatenate([static, static * identical, static * function], axis=2)
