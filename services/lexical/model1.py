"""IBM Model 1 (lexical translation) trained on text pairs: the lexical model that
sentence_align and tree_align share.

docs/methods.md §2 "Lexicon-based model" (Brown et al. 1993; Chen 1993; Moore 2002).
Sentences become token id arrays (:func:`encode`); a translation table t(e|f) is trained by
EM (:func:`train_model1`) on sentence pairs, seeded with cues that hold across related
languages (:func:`cue_similarity`: identical tokens, numbers, punctuation, cognates sharing
a 4-character prefix; for monolingual input the identity lexicon) and, when one is given, the
pairs of a bilingual dictionary (:mod:`services.lexical.dictionary`). The EM and pruning
loops are compiled (numba). How a stage scores its units with the table (beads of sentences,
pairs of tree leaves) stays with the stage.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from services.lexical.tokens import clear_token_cache as clear_token_cache
from services.lexical.tokens import tokenize as tokenize
from services.lexical.tokens import tokens
from shared.text import is_word

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

COGNATE_PREFIX = 4  # Simard et al. 1992: words sharing their first 4 letters are cognates


@dataclass(frozen=True)
class EncodedSide:
    """One side of a document as token ids: sentence k is ``ids[start[k]:start[k + 1]]``."""

    ids: npt.NDArray[np.int64]
    start: npt.NDArray[np.int64]
    vocabulary: tuple[str, ...]
    background: npt.NDArray[np.float64]  # p_bg(token), add-one smoothed unigram frequency

    @property
    def n_sentences(self) -> int:
        return len(self.start) - 1

    def sentence(self, index: int) -> npt.NDArray[np.int64]:
        return self.ids[self.start[index] : self.start[index + 1]]


@dataclass(frozen=True)
class TranslationTable:
    """t(e|f) pruned to the best entries per source word, rows in CSR form."""

    row_start: npt.NDArray[np.int64]  # entries of source word f: row_start[f]:row_start[f+1]
    target: npt.NDArray[np.int64]
    probability: npt.NDArray[np.float64]


# Model 1 reads at most this many tokens of a sentence: its work on a sentence pair is the
# product of their lengths, and one unpunctuated "sentence" of tens of thousands of words a side
# took more than a minute and gigabytes to train on, a longer one raised MemoryError (figures:
# benchmarks/results/tuning_history.md, services/lexical/model1.py). Prose sentences are far
# shorter.
MAX_SENTENCE_TOKENS = 300
# Model 1 training entries (target tokens times source tokens over the training pairs) at the
# most: past it the pairs are thinned evenly (a page of long sentences has few pairs' worth).
MAX_TRAINING_ENTRIES = 16_000_000


@dataclass(frozen=True)
class KeptSide:
    """One side of a corpus encoded before, as the background distribution counts it: how
    often each token occurs, and how many tokens there are."""

    counts: dict[str, int]
    total: int

    @classmethod
    def of(cls, side: EncodedSide) -> KeptSide:
        counts = np.bincount(side.ids, minlength=len(side.vocabulary))
        return cls(dict(zip(side.vocabulary, counts.tolist(), strict=True)), len(side.ids))


def encode(
    sentences: Sequence[str], lang: str | None, *, kept: KeptSide | None = None
) -> EncodedSide:
    """Token ids of every sentence (its first ``MAX_SENTENCE_TOKENS``), the vocabulary and
    the background distribution: add-one smoothed unigram frequencies, over these sentences
    and ``kept``'s together when given (as if they had been encoded after these)."""
    index: dict[str, int] = {}
    ids: list[int] = []
    start = [0]
    for sentence in sentences:
        for token in tokens(sentence, lang)[:MAX_SENTENCE_TOKENS]:
            ids.append(index.setdefault(token, len(index)))
        start.append(len(ids))
    id_array = np.asarray(ids, dtype=np.int64)
    counts = np.bincount(id_array, minlength=len(index)).astype(np.float64) + 1.0
    total = counts.sum()
    if kept is not None:
        more = np.asarray([kept.counts.get(token, 0) for token in index], dtype=np.float64)
        # the joint vocabulary: the kept one and this text's words it lacks
        total = len(ids) + kept.total + len(kept.counts) + float(np.count_nonzero(more == 0))
        counts += more
    return EncodedSide(id_array, np.asarray(start, dtype=np.int64), tuple(index), counts / total)


def _fold(token: str) -> str:
    if token.isascii():
        return token
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


@functools.lru_cache(maxsize=100_000)
def _cognate_prefix(token: str) -> str | None:
    """The accent-folded first COGNATE_PREFIX letters of a word at least that long, else None
    (remembered: a site's words come back with each of its page pairs)."""
    folded = _fold(token)
    if len(folded) >= COGNATE_PREFIX and is_word(folded):
        return folded[:COGNATE_PREFIX]
    return None


def cue_similarity(
    src_vocabulary: Sequence[str], tgt_vocabulary: Sequence[str]
) -> dict[tuple[int, int], float]:
    """Cue pairs (f, e) -> strength in (0, 1]: identical tokens, numbers and punctuation 1.0;
    cognates (same first 4 letters after removing accents, both at least 4 long) 0.5."""
    by_token = {token: k for k, token in enumerate(tgt_vocabulary)}
    by_prefix: dict[str, list[int]] = {}
    for k, token in enumerate(tgt_vocabulary):
        prefix = _cognate_prefix(token)
        if prefix is not None:
            by_prefix.setdefault(prefix, []).append(k)
    cues: dict[tuple[int, int], float] = {}
    for f, token in enumerate(src_vocabulary):
        e = by_token.get(token)
        if e is not None:
            cues[(f, e)] = 1.0
        prefix = _cognate_prefix(token)
        if prefix is not None:
            for e in by_prefix.get(prefix, ()):
                cues.setdefault((f, e), 0.5)
    return cues


@njit(cache=True)
def _training_entries(
    src_ids: IntArray,
    src_start: IntArray,
    tgt_ids: IntArray,
    tgt_start: IntArray,
    pairs: IntArray,
    extra: IntArray,
) -> tuple[IntArray, IntArray, IntArray]:
    """(f, e, target token number) for every source word f and target word occurrence e of
    every sentence pair (x, y) whose two sentences are non-empty; the (f, e) rows of
    ``extra`` follow the entries in ``f`` and ``e`` (no token number)."""
    total = 0
    for k in range(pairs.shape[0]):
        n_f = src_start[pairs[k, 0] + 1] - src_start[pairs[k, 0]]
        total += n_f * (tgt_start[pairs[k, 1] + 1] - tgt_start[pairs[k, 1]])
    entry_f = np.empty(total + extra.shape[0], dtype=np.int64)
    entry_e = np.empty(total + extra.shape[0], dtype=np.int64)
    entry_token = np.empty(total, dtype=np.int64)
    for k in range(extra.shape[0]):
        entry_f[total + k] = extra[k, 0]
        entry_e[total + k] = extra[k, 1]
    position = 0
    token = 0
    for k in range(pairs.shape[0]):
        x, y = pairs[k, 0], pairs[k, 1]
        if src_start[x + 1] == src_start[x]:
            continue
        for b in range(tgt_start[y], tgt_start[y + 1]):
            for a in range(src_start[x], src_start[x + 1]):
                entry_f[position] = src_ids[a]
                entry_e[position] = tgt_ids[b]
                entry_token[position] = token
                position += 1
            token += 1
    return entry_f, entry_e, entry_token


def train_model1(
    src: EncodedSide,
    tgt: EncodedSide,
    bead_pairs: Sequence[tuple[int, int]],
    cues: dict[tuple[int, int], float],
    *,
    iterations: int = 5,
    cue_weight: float = 1.0,
    keep_per_word: int = 16,
    kept: ExpectedCounts | None = None,
) -> TranslationTable:
    """IBM Model 1 t(e|f) by EM on 1-1 sentence pairs (Brown et al. 1993, Model 1).

    E-step: c(f, e) += t(e|f) / sum over f' in S of t(e|f')   for every e in T, f in S
    M-step: t(e|f) = (c(f, e) + cue_weight * cue(f, e) + k(f, e)) / sum over e' of (...)
    Cue strengths act as pseudo-counts (a Dirichlet prior), so cognates and identical tokens
    are preferred even when the document is too short for EM alone. ``kept``: the expected
    counts k(f, e) of another corpus trained before (:func:`expected_counts`), added at
    every M-step as that corpus's own E-step would add them (incremental EM, Neal & Hinton
    1998: its sentences' statistics are kept, not recomputed); their mass on target words
    outside ``tgt``'s vocabulary still counts in each row's sum. The table keeps the best
    ``keep_per_word`` entries above 1e-4 of each source word's row.
    """
    pair_f, pair_e, table, _ = _em(src, tgt, bead_pairs, cues, cue_weight, iterations, kept)
    if kept is not None:
        inside = pair_e < len(tgt.vocabulary)
        pair_f, pair_e, table = pair_f[inside], pair_e[inside], table[inside]
    n_src_vocab = len(src.vocabulary)
    return TranslationTable(*_prune_rows(pair_f, pair_e, table, n_src_vocab, keep_per_word))


def _em(
    src: EncodedSide,
    tgt: EncodedSide,
    bead_pairs: Sequence[tuple[int, int]],
    cues: dict[tuple[int, int], float],
    cue_weight: float,
    iterations: int,
    kept: ExpectedCounts | None,
) -> tuple[IntArray, IntArray, FloatArray, FloatArray]:
    """The EM of :func:`train_model1`: its (f, e) cells, t per cell and the last E-step's
    expected counts per cell (with ``kept``, the column ``len(tgt.vocabulary)`` holds each
    row's kept mass on target words ``tgt`` lacks)."""
    n_src_vocab = len(src.vocabulary)
    # One entry per (target token occurrence, source token) of every training pair.
    # The cue pairs follow them as keys of the (f, e) grouping (their prior, not counts).
    pair_array = _within_entry_budget(
        src, tgt, np.asarray(bead_pairs, dtype=np.int64).reshape(-1, 2)
    )
    cue_keys = np.asarray(list(cues), dtype=np.int64).reshape(-1, 2)
    cue_values = cue_weight * np.asarray(list(cues.values()), dtype=np.float64)
    n_cues, n_columns = len(cue_keys), len(tgt.vocabulary)
    if kept is not None:
        # The kept counts on this vocabulary; one more target column holds, per row, their
        # mass on target words this text does not have (it never occurs in a sentence).
        kept_keys, kept_values, kept_cells = kept.on(src.vocabulary, tgt.vocabulary)
        cue_keys = np.concatenate([cue_keys, kept_keys])
        cue_values = np.concatenate([cue_values, kept_values])
        n_columns += 1
    keys_f, keys_e, tokens = _training_entries(
        src.ids, src.start, tgt.ids, tgt.start, pair_array, cue_keys
    )
    token_count = int(tokens[-1]) + 1 if len(tokens) else 0
    pair_f, pair_e, inverse = _group_pairs(keys_f, keys_e, n_src_vocab, n_columns)
    n_entries = len(tokens)
    prior = np.zeros(len(pair_f))
    np.add.at(prior, inverse[n_entries:], cue_values)  # a cue and a kept count may meet
    # EM starts from 1 + prior per cell; the column of the rest stands for as many cells
    cells = np.ones(len(pair_f))
    if kept is not None:
        cells[inverse[n_entries + n_cues :]] = kept_cells
    table, counts = _model1_em(
        inverse[:n_entries], tokens, token_count, pair_f, cells + prior, prior, n_src_vocab,
        iterations,
    )  # fmt: skip
    return pair_f, pair_e, table, counts


@dataclass(frozen=True)
class ExpectedCounts:
    """Expected counts c(f, e) of Model 1's last E-step on a corpus, by token: what the
    corpus's sentences add to the M-step of a training they are part of (kept, not
    recomputed: ``train_model1(kept=...)``). Rows in CSR form over ``src_vocabulary``."""

    src_vocabulary: tuple[str, ...]
    tgt_vocabulary: tuple[str, ...]
    row_start: IntArray
    target: IntArray
    count: FloatArray

    @functools.cached_property
    def _tgt_index(self) -> dict[str, int]:
        return {token: e for e, token in enumerate(self.tgt_vocabulary)}

    @functools.cached_property
    def _src_index(self) -> dict[str, int]:
        return {token: f for f, token in enumerate(self.src_vocabulary)}

    def on(
        self, src_vocabulary: Sequence[str], tgt_vocabulary: Sequence[str]
    ) -> tuple[IntArray, FloatArray, FloatArray]:
        """(f, e) keys, counts and cells on another pair of vocabularies: the counts of its
        words, and per source word one key (f, len(tgt_vocabulary)) with the mass on the rest
        and the number of cells it stands for (1 for the others)."""
        src_map = np.asarray(
            [self._src_index.get(token, -1) for token in src_vocabulary], dtype=np.int64
        )
        tgt_map = np.full(len(self.tgt_vocabulary), -1, dtype=np.int64)
        for e, token in enumerate(tgt_vocabulary):
            known = self._tgt_index.get(token)
            if known is not None:
                tgt_map[known] = e
        return _mapped_counts(
            src_map, tgt_map, self.row_start, self.target, self.count, len(tgt_vocabulary)
        )


def expected_counts(
    src: EncodedSide,
    tgt: EncodedSide,
    bead_pairs: Sequence[tuple[int, int]],
    cues: dict[tuple[int, int], float],
    *,
    iterations: int = 5,
    cue_weight: float = 1.0,
) -> ExpectedCounts:
    """:func:`train_model1`'s EM on these pairs, returning the expected counts of its last
    E-step (the cue pseudo-counts are not counts: they are left out)."""
    pair_f, pair_e, _, counts = _em(src, tgt, bead_pairs, cues, cue_weight, iterations, None)
    n_src_vocab = len(src.vocabulary)
    counted = counts > 0.0
    row_start = np.zeros(n_src_vocab + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_f[counted], minlength=n_src_vocab), out=row_start[1:])
    return ExpectedCounts(
        src.vocabulary, tgt.vocabulary, row_start, pair_e[counted].copy(), counts[counted]
    )


@njit(cache=True)
def _mapped_counts(
    src_map: IntArray,
    tgt_map: IntArray,
    row_start: IntArray,
    target: IntArray,
    count: FloatArray,
    n_tgt_vocab: int,
) -> tuple[IntArray, FloatArray, FloatArray]:
    """The keys, counts and cells of :meth:`ExpectedCounts.on` (``src_map``: this
    vocabulary's source words as the counts' ids, -1 for unknown; ``tgt_map``: the counts'
    target ids as this vocabulary's, -1 for absent)."""
    total = 0
    for f in range(src_map.shape[0]):
        if src_map[f] >= 0:
            total += row_start[src_map[f] + 1] - row_start[src_map[f]] + 1
    keys = np.empty((total, 2), dtype=np.int64)
    values = np.empty(total, dtype=np.float64)
    cells = np.ones(total, dtype=np.float64)
    n = 0
    for f in range(src_map.shape[0]):
        if src_map[f] < 0:
            continue
        rest = 0.0
        outside = 0
        for p in range(row_start[src_map[f]], row_start[src_map[f] + 1]):
            e = tgt_map[target[p]]
            if e < 0:
                rest += count[p]
                outside += 1
            else:
                keys[n, 0], keys[n, 1], values[n] = f, e, count[p]
                n += 1
        if outside:
            keys[n, 0], keys[n, 1], values[n], cells[n] = f, n_tgt_vocab, rest, outside
            n += 1
    return keys[:n].copy(), values[:n].copy(), cells[:n].copy()


def _within_entry_budget(
    src: EncodedSide, tgt: EncodedSide, pairs: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """``pairs`` thinned evenly (every k-th) until their training entries fit
    ``MAX_TRAINING_ENTRIES``."""
    entries = np.diff(src.start)[pairs[:, 0]] * np.diff(tgt.start)[pairs[:, 1]]
    step = 1
    while int(entries[::step].sum()) > MAX_TRAINING_ENTRIES:
        step += 1
    return pairs[::step]


# Dense grouping (one slot per (f, e) cell) when the vocabulary product is at most this many
# times the number of keys: a page pair's ~200 x 200 words against ~80,000 keys; the counting
# sort below stays for large vocabularies, where a dense table would cost more than the keys.
DENSE_GROUPING_FACTOR = 4


@njit(cache=True)
def _group_pairs(
    keys_f: IntArray, keys_e: IntArray, n_src_vocab: int, n_tgt_vocab: int
) -> tuple[IntArray, IntArray, IntArray]:
    """Distinct (f, e) pairs sorted by f then e, and the pair index of every key: what
    ``np.unique(f * n_tgt_vocab + e, return_inverse=True)`` gives, in O(keys + vocabulary)."""
    if n_src_vocab * n_tgt_vocab <= DENSE_GROUPING_FACTOR * keys_f.shape[0]:
        return _group_pairs_dense(keys_f, keys_e, n_src_vocab, n_tgt_vocab)
    return _group_pairs_sorted(keys_f, keys_e, n_src_vocab, n_tgt_vocab)


@njit(cache=True)
def _group_pairs_dense(
    keys_f: IntArray, keys_e: IntArray, n_src_vocab: int, n_tgt_vocab: int
) -> tuple[IntArray, IntArray, IntArray]:
    """:func:`_group_pairs` through a dense table of the (f, e) cells: mark the cells that
    occur, number them in row-major (f, e) order, look every key's number up."""
    n_keys = keys_f.shape[0]
    slot = np.zeros(n_src_vocab * n_tgt_vocab, dtype=np.int64)
    for k in range(n_keys):
        slot[keys_f[k] * n_tgt_vocab + keys_e[k]] = 1
    n_pairs = 0
    for cell in range(slot.shape[0]):
        if slot[cell]:
            n_pairs += 1
    pair_f = np.empty(n_pairs, dtype=np.int64)
    pair_e = np.empty(n_pairs, dtype=np.int64)
    q = 0
    for cell in range(slot.shape[0]):
        if slot[cell]:
            pair_f[q] = cell // n_tgt_vocab
            pair_e[q] = cell - pair_f[q] * n_tgt_vocab
            slot[cell] = q
            q += 1
    inverse = np.empty(n_keys, dtype=np.int64)
    for k in range(n_keys):
        inverse[k] = slot[keys_f[k] * n_tgt_vocab + keys_e[k]]
    return pair_f, pair_e, inverse


@njit(cache=True)
def _group_pairs_sorted(
    keys_f: IntArray, keys_e: IntArray, n_src_vocab: int, n_tgt_vocab: int
) -> tuple[IntArray, IntArray, IntArray]:
    """:func:`_group_pairs` by a least-significant-digit radix sort of the keys: a stable
    counting sort by e, then one by f, leaves them in (f, e) order; equal neighbours are one
    pair (two passes over the keys, no sort per row)."""
    n_keys = keys_f.shape[0]
    by_e = _counting_order(keys_e, np.arange(n_keys), n_tgt_vocab)
    order = _counting_order(keys_f, by_e, n_src_vocab)
    pair_f = np.empty(n_keys, dtype=np.int64)
    pair_e = np.empty(n_keys, dtype=np.int64)
    inverse = np.empty(n_keys, dtype=np.int64)
    n_pairs = 0
    last_f = last_e = -1
    for position in range(n_keys):
        k = order[position]
        if keys_f[k] != last_f or keys_e[k] != last_e:
            last_f, last_e = keys_f[k], keys_e[k]
            pair_f[n_pairs], pair_e[n_pairs] = last_f, last_e
            n_pairs += 1
        inverse[k] = n_pairs - 1
    return pair_f[:n_pairs].copy(), pair_e[:n_pairs].copy(), inverse


@njit(cache=True)
def _counting_order(digit: IntArray, items: IntArray, n_values: int) -> IntArray:
    """``items`` (key indices) stably reordered by ``digit[item]`` (a counting sort)."""
    fill = np.zeros(n_values + 1, dtype=np.int64)
    for item in items:
        fill[digit[item] + 1] += 1
    for value in range(n_values):
        fill[value + 1] += fill[value]
    ordered = np.empty(items.shape[0], dtype=np.int64)
    for item in items:
        ordered[fill[digit[item]]] = item
        fill[digit[item]] += 1
    return ordered


@njit(cache=True)
def _normalise_rows(counts: FloatArray, pair_f: IntArray, n_src_vocab: int) -> FloatArray:
    """counts / (sum of the counts of the same source word f), in place."""
    totals = np.zeros(n_src_vocab, dtype=np.float64)
    for p in range(counts.shape[0]):
        totals[pair_f[p]] += counts[p]
    for p in range(counts.shape[0]):
        counts[p] = counts[p] / max(totals[pair_f[p]], 1e-300)
    return counts


@njit(cache=True)
def _model1_em(
    entry_pair: IntArray,
    tokens: IntArray,
    token_count: int,
    pair_f: IntArray,
    initial: FloatArray,
    prior: FloatArray,
    n_src_vocab: int,
    iterations: int,
) -> tuple[FloatArray, FloatArray]:
    """EM of Model 1 over the entries (pair index, target token number), from t in
    proportion to ``initial``; t per pair, and the expected counts of the last E-step.

    The entries of one target token are consecutive (:func:`_training_entries`), so each
    token's denominator is summed and its counts added in one visit, in the order of the
    two-loop form (same sums to the bit)."""
    n_pairs = pair_f.shape[0]
    table = _normalise_rows(initial.copy(), pair_f, n_src_vocab)
    token_start = np.zeros(token_count + 1, dtype=np.int64)
    for k in range(tokens.shape[0]):
        token_start[tokens[k] + 1] = k + 1
    counts = np.empty(n_pairs, dtype=np.float64)
    for _ in range(iterations):
        counts[:] = 0.0
        for token in range(token_count):
            denominator = 0.0
            for k in range(token_start[token], token_start[token + 1]):
                denominator += table[entry_pair[k]]
            for k in range(token_start[token], token_start[token + 1]):
                counts[entry_pair[k]] += table[entry_pair[k]] / denominator
        table = _normalise_rows(counts + prior, pair_f, n_src_vocab)
    if iterations <= 0:
        counts[:] = 0.0
    return table, counts


@njit(cache=True)
def _prune_rows(
    pair_f: IntArray,
    pair_e: IntArray,
    table: FloatArray,
    n_src_vocab: int,
    keep_per_word: int,
) -> tuple[IntArray, IntArray, FloatArray]:
    """The best ``keep_per_word`` entries (t > 1e-4) of each source word's row, best first
    (ties by target word), in CSR form; pairs come sorted by f then e."""
    row_start = np.zeros(n_src_vocab + 1, dtype=np.int64)
    target = np.empty(pair_f.shape[0], dtype=np.int64)
    probability = np.empty(pair_f.shape[0], dtype=np.float64)
    if keep_per_word <= 0:
        return row_start, target[:0].copy(), probability[:0].copy()
    best = np.empty(keep_per_word, dtype=np.int64)  # the row's best pairs so far, best first
    n_kept = 0
    first = 0
    for f in range(n_src_vocab):
        end = first
        while end < pair_f.shape[0] and pair_f[end] == f:
            end += 1
        # insertion into the short list: a pair goes after those at least as probable, so
        # ties keep their (target word) order, as a stable sort of the row would
        n_best = 0
        for p in range(first, end):
            if n_best == keep_per_word and table[p] <= table[best[n_best - 1]]:
                continue
            slot = min(n_best, keep_per_word - 1)
            while slot > 0 and table[best[slot - 1]] < table[p]:
                best[slot] = best[slot - 1]
                slot -= 1
            best[slot] = p
            n_best = min(n_best + 1, keep_per_word)
        for rank in range(n_best):
            p = best[rank]
            if table[p] > 1e-4:
                target[n_kept] = pair_e[p]
                probability[n_kept] = table[p]
                n_kept += 1
        row_start[f + 1] = n_kept
        first = end
    return row_start, target[:n_kept].copy(), probability[:n_kept].copy()


def slice_side(side: EncodedSide, first: int, end: int) -> EncodedSide:
    """Sentences first..end-1 of an encoded side (same vocabulary and background)."""
    offset = side.start[first]
    return EncodedSide(
        side.ids[offset : side.start[end]],
        side.start[first : end + 1] - offset,
        side.vocabulary,
        side.background,
    )
