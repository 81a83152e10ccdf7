"""Lexical evidence for sentence alignment: IBM Model 1 trained on the document pair itself.

ALGORITHMS.md §2 "Lexicon-based model" (Chen 1993; Moore 2002). Sentences become token id
arrays; a translation table t(e|f) is trained by EM (sparse, numpy) on confident 1-1 beads
of a length pass, seeded with cues that hold across related languages (identical tokens,
numbers, punctuation, cognates sharing a 4-character prefix; for monolingual input the
identity lexicon). Compiled kernels then score every bead of a band:

    LLR(T | S) = sum over target words e of log( p(e | S) / p_bg(e) )
    p(e | S)   = eps * p_bg(e) + (1 - eps) / |S| * sum over f in S of t(e | f)

p_bg is the target side's unigram (background) distribution, so a deleted sentence scores
0 and a bead scores above 0 only when its words explain each other better than chance.
With eps = 1 / (|S| + 1) and t(e | NULL) = p_bg(e) this is Moore's Model 1 with NULL.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from services.sentence_align import _banded_dp as dp
from services.sentence_align.beads import BEAD_SHAPES, Bead
from shared.text import base_lang

if TYPE_CHECKING:
    from services.sentence_align._two_pass import LexicalSettings
    from services.sentence_align.dictionary import BilingualDictionary

_TOKEN_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)
# Typographic quotes unified (str.replace per quote: str.translate with a dict table cost
# about 20 microseconds a sentence, the largest part of tokenizing).
_QUOTES = (("«", '"'), ("»", '"'), ("“", '"'), ("”", '"'), ("„", '"'), ("‘", "'"), ("’", "'"))
_CJK = frozenset({"ja", "zh"})
COGNATE_PREFIX = 4  # Simard et al. 1992: words sharing their first 4 letters are cognates
MOORE_EPSILON = -1.0  # sentinel: eps = 1 / (|S| + 1), Model 1 with a NULL word


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


def tokenize(sentence: str, lang: str | None) -> list[str]:
    """Lower-cased word and punctuation tokens; Japanese by morpheme, Chinese by character."""
    base = base_lang(lang or "")
    text = sentence.lower()
    if not text.isascii():
        for quote, plain in _QUOTES:
            if quote in text:
                text = text.replace(quote, plain)
    if base == "ja":
        from shared.text import analyse_japanese

        return [m.surface for m in analyse_japanese(text) if not m.surface.isspace()]
    if base == "zh":
        return [char for char in text if not char.isspace()]
    return _TOKEN_RE.findall(text)


# Model 1 reads at most this many tokens of a sentence: its work on a sentence pair is the
# product of their lengths, and one unpunctuated 25,000-word "sentence" a side took 85 s and
# 20 GB to train on (a 100,000-word one raised MemoryError). Prose sentences are far shorter.
MAX_SENTENCE_TOKENS = 300
# Model 1 training entries (target tokens times source tokens over the training pairs) at the
# most: past it the pairs are thinned evenly (a page of long sentences has few pairs' worth).
MAX_TRAINING_ENTRIES = 16_000_000


def encode(sentences: Sequence[str], lang: str | None) -> EncodedSide:
    """Token ids of every sentence (its first ``MAX_SENTENCE_TOKENS``), the vocabulary and
    the background distribution."""
    index: dict[str, int] = {}
    ids: list[int] = []
    start = [0]
    for sentence in sentences:
        for token in tokenize(sentence, lang)[:MAX_SENTENCE_TOKENS]:
            ids.append(index.setdefault(token, len(index)))
        start.append(len(ids))
    id_array = np.asarray(ids, dtype=np.int64)
    counts = np.bincount(id_array, minlength=len(index)).astype(np.float64) + 1.0
    return EncodedSide(
        id_array, np.asarray(start, dtype=np.int64), tuple(index), counts / counts.sum()
    )


def _fold(token: str) -> str:
    if token.isascii():
        return token
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def cue_similarity(
    src_vocabulary: Sequence[str], tgt_vocabulary: Sequence[str]
) -> dict[tuple[int, int], float]:
    """Cue pairs (f, e) -> strength in (0, 1]: identical tokens, numbers and punctuation 1.0;
    cognates (same first 4 letters after removing accents, both at least 4 long) 0.5."""
    by_token = {token: k for k, token in enumerate(tgt_vocabulary)}
    by_prefix: dict[str, list[int]] = {}
    for k, token in enumerate(tgt_vocabulary):
        folded = _fold(token)
        if len(folded) >= COGNATE_PREFIX and folded.isalpha():
            by_prefix.setdefault(folded[:COGNATE_PREFIX], []).append(k)
    cues: dict[tuple[int, int], float] = {}
    for f, token in enumerate(src_vocabulary):
        e = by_token.get(token)
        if e is not None:
            cues[(f, e)] = 1.0
        folded = _fold(token)
        if len(folded) >= COGNATE_PREFIX and folded.isalpha():
            for e in by_prefix.get(folded[:COGNATE_PREFIX], ()):
                cues.setdefault((f, e), 0.5)
    return cues


@njit(cache=True)
def _training_entries(
    src_ids: dp.IntArray,
    src_start: dp.IntArray,
    tgt_ids: dp.IntArray,
    tgt_start: dp.IntArray,
    pairs: dp.IntArray,
    extra: dp.IntArray,
) -> tuple[dp.IntArray, dp.IntArray, dp.IntArray]:
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
) -> TranslationTable:
    """IBM Model 1 t(e|f) by EM on 1-1 sentence pairs (Brown et al. 1993, Model 1).

    E-step: c(f, e) += t(e|f) / sum over f' in S of t(e|f')   for every e in T, f in S
    M-step: t(e|f) = (c(f, e) + cue_weight * cue(f, e)) / sum over e' of (...)
    Cue strengths act as pseudo-counts (a Dirichlet prior), so cognates and identical tokens
    are preferred even when the document is too short for EM alone. The table keeps the
    best ``keep_per_word`` entries above 1e-4 of each source word's row.
    """
    n_src_vocab = len(src.vocabulary)
    n_tgt_vocab = len(tgt.vocabulary)
    # One entry per (target token occurrence, source token) of every training pair.
    # The cue pairs follow them as keys of the (f, e) grouping (their prior, not counts).
    pair_array = _within_entry_budget(
        src, tgt, np.asarray(bead_pairs, dtype=np.int64).reshape(-1, 2)
    )
    cue_keys = np.asarray(list(cues), dtype=np.int64).reshape(-1, 2)
    cue_values = np.asarray(list(cues.values()), dtype=np.float64)
    keys_f, keys_e, tokens = _training_entries(
        src.ids, src.start, tgt.ids, tgt.start, pair_array, cue_keys
    )
    token_count = int(tokens[-1]) + 1 if len(tokens) else 0
    pair_f, pair_e, inverse = _group_pairs(keys_f, keys_e, n_src_vocab, n_tgt_vocab)
    n_entries = len(tokens)
    prior = np.zeros(len(pair_f))
    prior[inverse[n_entries:]] = cue_weight * cue_values  # cue pairs are distinct
    table = _model1_em(
        inverse[:n_entries], tokens, token_count, pair_f, prior, n_src_vocab, iterations
    )
    return TranslationTable(*_prune_rows(pair_f, pair_e, table, n_src_vocab, keep_per_word))


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
    keys_f: dp.IntArray, keys_e: dp.IntArray, n_src_vocab: int, n_tgt_vocab: int
) -> tuple[dp.IntArray, dp.IntArray, dp.IntArray]:
    """Distinct (f, e) pairs sorted by f then e, and the pair index of every key: what
    ``np.unique(f * n_tgt_vocab + e, return_inverse=True)`` gives, in O(keys + vocabulary)."""
    if n_src_vocab * n_tgt_vocab <= DENSE_GROUPING_FACTOR * keys_f.shape[0]:
        return _group_pairs_dense(keys_f, keys_e, n_src_vocab, n_tgt_vocab)
    return _group_pairs_sorted(keys_f, keys_e, n_src_vocab, n_tgt_vocab)


@njit(cache=True)
def _group_pairs_dense(
    keys_f: dp.IntArray, keys_e: dp.IntArray, n_src_vocab: int, n_tgt_vocab: int
) -> tuple[dp.IntArray, dp.IntArray, dp.IntArray]:
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
    keys_f: dp.IntArray, keys_e: dp.IntArray, n_src_vocab: int, n_tgt_vocab: int
) -> tuple[dp.IntArray, dp.IntArray, dp.IntArray]:
    """:func:`_group_pairs` by a counting sort by f, then a dense scratch row over e per
    source word."""
    n_keys = keys_f.shape[0]
    row_start = np.zeros(n_src_vocab + 1, dtype=np.int64)
    for k in range(n_keys):
        row_start[keys_f[k] + 1] += 1
    for f in range(n_src_vocab):
        row_start[f + 1] += row_start[f]
    fill = row_start[:-1].copy()
    by_f = np.empty(n_keys, dtype=np.int64)
    for k in range(n_keys):
        by_f[fill[keys_f[k]]] = k
        fill[keys_f[k]] += 1
    slot = np.full(n_tgt_vocab, -1, dtype=np.int64)
    pair_f = np.empty(n_keys, dtype=np.int64)
    pair_e = np.empty(n_keys, dtype=np.int64)
    inverse = np.empty(n_keys, dtype=np.int64)
    n_pairs = 0
    for f in range(n_src_vocab):
        first = n_pairs
        for position in range(row_start[f], row_start[f + 1]):
            e = keys_e[by_f[position]]
            if slot[e] < 0:
                slot[e] = n_pairs
                pair_e[n_pairs] = e
                n_pairs += 1
        pair_e[first:n_pairs] = np.sort(pair_e[first:n_pairs])
        pair_f[first:n_pairs] = f
        for q in range(first, n_pairs):
            slot[pair_e[q]] = q
        for position in range(row_start[f], row_start[f + 1]):
            k = by_f[position]
            inverse[k] = slot[keys_e[k]]
        for q in range(first, n_pairs):
            slot[pair_e[q]] = -1
    return pair_f[:n_pairs].copy(), pair_e[:n_pairs].copy(), inverse


@njit(cache=True)
def _normalise_rows(counts: dp.FloatArray, pair_f: dp.IntArray, n_src_vocab: int) -> dp.FloatArray:
    """counts / (sum of the counts of the same source word f), in place."""
    totals = np.zeros(n_src_vocab, dtype=np.float64)
    for p in range(counts.shape[0]):
        totals[pair_f[p]] += counts[p]
    for p in range(counts.shape[0]):
        counts[p] = counts[p] / max(totals[pair_f[p]], 1e-300)
    return counts


@njit(cache=True)
def _model1_em(
    entry_pair: dp.IntArray,
    tokens: dp.IntArray,
    token_count: int,
    pair_f: dp.IntArray,
    prior: dp.FloatArray,
    n_src_vocab: int,
    iterations: int,
) -> dp.FloatArray:
    """EM of Model 1 over the entries (pair index, target token number); t per pair.

    The entries of one target token are consecutive (:func:`_training_entries`), so each
    token's denominator is summed and its counts added in one visit, in the order of the
    two-loop form (same sums to the bit)."""
    n_pairs = pair_f.shape[0]
    table = _normalise_rows(np.ones(n_pairs) + prior, pair_f, n_src_vocab)
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
    return table


@njit(cache=True)
def _prune_rows(
    pair_f: dp.IntArray,
    pair_e: dp.IntArray,
    table: dp.FloatArray,
    n_src_vocab: int,
    keep_per_word: int,
) -> tuple[dp.IntArray, dp.IntArray, dp.FloatArray]:
    """The best ``keep_per_word`` entries (t > 1e-4) of each source word's row, best first
    (ties by target word), in CSR form; pairs come sorted by f then e."""
    row_start = np.zeros(n_src_vocab + 1, dtype=np.int64)
    target = np.empty(pair_f.shape[0], dtype=np.int64)
    probability = np.empty(pair_f.shape[0], dtype=np.float64)
    n_kept = 0
    first = 0
    for f in range(n_src_vocab):
        end = first
        while end < pair_f.shape[0] and pair_f[end] == f:
            end += 1
        order = np.argsort(-table[first:end], kind="mergesort")
        for rank in range(min(keep_per_word, end - first)):
            p = first + order[rank]
            if table[p] > 1e-4:
                target[n_kept] = pair_e[p]
                probability[n_kept] = table[p]
                n_kept += 1
        row_start[f + 1] = n_kept
        first = end
    return row_start, target[:n_kept].copy(), probability[:n_kept].copy()


@njit(cache=True)
def _pair_sums(
    src_ids: dp.IntArray,
    src_start: dp.IntArray,
    tgt_ids: dp.IntArray,
    tgt_start: dp.IntArray,
    row_start: dp.IntArray,
    target: dp.IntArray,
    probability: dp.FloatArray,
    pair_low: dp.IntArray,
    pair_high: dp.IntArray,
    n_tgt_vocab: int,
) -> tuple[dp.IntArray, dp.IntArray, dp.FloatArray]:
    """sum over f in s_x of t(e|f), for each word e of t_y, for every needed pair (x, y).

    Pairs of source sentence x are y in [pair_low[x], pair_high[x]]. Returns the first pair
    index of each x, the first value of each pair, and the flat values.
    """
    n_src = src_start.shape[0] - 1
    pair_first = np.zeros(n_src + 1, dtype=np.int64)
    for x in range(n_src):
        pair_first[x + 1] = pair_first[x] + max(0, pair_high[x] - pair_low[x] + 1)
    value_first = np.zeros(pair_first[n_src] + 1, dtype=np.int64)
    for x in range(n_src):
        for y in range(pair_low[x], pair_high[x] + 1):
            k = pair_first[x] + y - pair_low[x]
            value_first[k + 1] = value_first[k] + tgt_start[y + 1] - tgt_start[y]
    values = np.zeros(value_first[-1], dtype=np.float64)
    accumulator = np.zeros(n_tgt_vocab, dtype=np.float64)
    for x in range(n_src):
        # Spread t(.|f) of every source word of s_x over a dense vocabulary scratch row...
        for a in range(src_start[x], src_start[x + 1]):
            f = src_ids[a]
            for entry in range(row_start[f], row_start[f + 1]):
                accumulator[target[entry]] += probability[entry]
        # ...read it at the words of each paired target sentence...
        for y in range(pair_low[x], pair_high[x] + 1):
            k = pair_first[x] + y - pair_low[x]
            for b in range(tgt_start[y], tgt_start[y + 1]):
                values[value_first[k] + b - tgt_start[y]] = accumulator[tgt_ids[b]]
        # ...and clear the scratch row again.
        for a in range(src_start[x], src_start[x + 1]):
            f = src_ids[a]
            for entry in range(row_start[f], row_start[f + 1]):
                accumulator[target[entry]] = 0.0
    return pair_first, value_first, values


@njit(cache=True)
def _explanation_terms(
    explaining_start: dp.IntArray,
    explained_ids: dp.IntArray,
    explained_start: dp.IntArray,
    background: dp.FloatArray,
    pairs: tuple[dp.IntArray, dp.IntArray, dp.IntArray, dp.FloatArray],
    epsilon: float,
    max_size: int,
) -> dp.FloatArray:
    """LLR(t_y | S) for every needed pair (last sentence x of S, y) and every |S| <= max_size.

    LLR(T | S) = sum over y in T of LLR(t_y | S), so beads are scored by summing these terms
    (``_band_llr``). With S = s_{x-s+1} .. s_x, the per-word masses sum over f in S of
    t(e|f) grow by one sentence from |S| = s - 1 to s, so each size costs one pass over
    t_y's words. Returns terms[s - 1, k], k the pair index of (x, y) in ``pairs`` =
    (pair_low, pair_first, value_first, values) of ``_pair_sums`` (keyed by the explaining
    sentence); NaN where some sentence of S is not paired with y (no band bead needs it).
    """
    pair_low, pair_first, value_first, values = pairs
    n_explaining = explaining_start.shape[0] - 1
    n_pairs = pair_first[n_explaining]
    terms = np.full((max_size, n_pairs), np.nan)
    longest = 0
    for y in range(explained_start.shape[0] - 1):
        longest = max(longest, explained_start[y + 1] - explained_start[y])
    mass = np.zeros(max(longest, 1))
    for last in range(n_explaining):
        for y in range(pair_low[last], pair_low[last] + pair_first[last + 1] - pair_first[last]):
            first_word = explained_start[y]
            n_explained = explained_start[y + 1] - first_word
            mass[:n_explained] = 0.0
            n_words = 0
            for size in range(1, max_size + 1):
                x = last - size + 1
                if x < 0:
                    break
                k = pair_first[x] + y - pair_low[x]
                if y < pair_low[x] or k >= pair_first[x + 1]:
                    break  # (x, y) not paired: no band bead holds S and t_y
                offset = value_first[k]
                for b in range(n_explained):
                    mass[b] += values[offset + b]
                n_words += explaining_start[x + 1] - explaining_start[x]
                eps = epsilon if epsilon >= 0.0 else 1.0 / (n_words + 1.0)
                scale = (1.0 - eps) / max(n_words, 1)
                total = 0.0
                for b in range(n_explained):
                    # log( p(e|S) / p_bg(e) ),  p(e|S) = eps p_bg(e) + (1 - eps)/|S| sum t(e|f)
                    total += math.log(
                        eps + scale * mass[b] / background[explained_ids[first_word + b]]
                    )
                terms[size - 1, pair_first[last] + y - pair_low[last]] = total
    return terms


@njit(cache=True)
def _summed_terms(
    terms: dp.FloatArray,
    pair_low: dp.IntArray,
    pair_first: dp.IntArray,
    last: int,
    size: int,
    explained_first: int,
    explained_end: int,
) -> float:
    """LLR(T | S) for S ending at sentence ``last`` with ``size`` sentences, T a range."""
    total = 0.0
    for y in range(explained_first, explained_end):
        total += terms[size - 1, pair_first[last] + y - pair_low[last]]
    return total


@njit(cache=True)
def _diagonal_llr(
    bead: tuple[int, int, int, int],
    explaining_start: dp.IntArray,
    explained_side: tuple[dp.IntArray, dp.IntArray, dp.FloatArray],
    pairs: tuple[dp.IntArray, dp.IntArray, dp.IntArray, dp.FloatArray],
    epsilon: float,
    diagonal: float,
) -> float:
    """LLR(T | S) of a bead with several sentences on both sides under a diagonal prior.

    ``bead`` = (first_x, a, first_y, b): S = sentences first_x..first_x+a-1 of the
    explaining side, T = first_y..first_y+b-1 of the explained side (ids, start offsets,
    background), ``pairs`` as in ``_explanation_terms``. Instead of
    Model 1's uniform choice among all words of S, a word of t_y comes from sentence s_x
    with probability w(x, y) proportional to |s_x| exp(-``diagonal`` |c_x - c_y|), c the
    relative position (in words) of a sentence's centre within its side of the bead
    (IBM Model 2 / fast_align's diagonal tension, by sentence), then uniformly from s_x:
    p(e | S, y) = eps p_bg(e) + (1 - eps) sum over x of w(x, y) / |s_x| sum over f in s_x
    of t(e | f). ``diagonal`` = 0 gives Model 1 (``_explanation_terms``).
    """
    pair_low, pair_first, value_first, values = pairs
    first_x, a, first_y, b = bead
    explained_ids, explained_start, background = explained_side
    n_explaining = explaining_start[first_x + a] - explaining_start[first_x]
    n_explained = explained_start[first_y + b] - explained_start[first_y]
    eps = epsilon if epsilon >= 0.0 else 1.0 / (n_explaining + 1.0)
    weight = np.empty(a)
    total = 0.0
    for y in range(first_y, first_y + b):
        words_y = explained_start[y + 1] - explained_start[y]
        centre_y = (explained_start[y] - explained_start[first_y] + 0.5 * words_y) / max(
            n_explained, 1
        )
        weight_sum = 0.0
        for p in range(a):
            x = first_x + p
            words_x = explaining_start[x + 1] - explaining_start[x]
            centre_x = (explaining_start[x] - explaining_start[first_x] + 0.5 * words_x) / max(
                n_explaining, 1
            )
            weight[p] = words_x * math.exp(-diagonal * abs(centre_x - centre_y))
            weight_sum += weight[p]
        for q in range(words_y):
            mass = 0.0
            for p in range(a):
                if weight[p] > 0.0:
                    x = first_x + p
                    k = value_first[pair_first[x] + y - pair_low[x]] + q
                    words_x = explaining_start[x + 1] - explaining_start[x]
                    mass += weight[p] / weight_sum * values[k] / words_x
            total += math.log(
                eps + (1.0 - eps) * mass / background[explained_ids[explained_start[y] + q]]
            )
    return total


@njit(cache=True)
def _band_llr(
    band_low: dp.IntArray,
    band_high: dp.IntArray,
    src_ids: dp.IntArray,
    src_start: dp.IntArray,
    src_background: dp.FloatArray,
    tgt_ids: dp.IntArray,
    tgt_start: dp.IntArray,
    tgt_background: dp.FloatArray,
    forward: tuple[dp.IntArray, dp.IntArray, dp.IntArray, dp.FloatArray],
    backward: tuple[dp.IntArray, dp.IntArray, dp.IntArray, dp.FloatArray],
    epsilon: float,
    both_directions: bool,
    shape_src: dp.IntArray,
    shape_tgt: dp.IntArray,
    diagonal: float,
) -> tuple[dp.FloatArray, dp.IntArray]:
    """LLR(T|S) [+ LLR(S|T)] of every bead ending in a band cell, per shape (0 for deletions);
    with ``diagonal`` > 0, beads of several sentences on both sides by ``_diagonal_llr``."""
    n = band_low.shape[0] - 1
    row_first = np.zeros(n + 2, dtype=np.int64)
    for i in range(n + 1):
        row_first[i + 1] = row_first[i] + band_high[i] - band_low[i] + 1
    llr = np.zeros((row_first[n + 1], shape_src.shape[0]), dtype=np.float64)
    forward_terms = _explanation_terms(
        src_start, tgt_ids, tgt_start, tgt_background, forward, epsilon, shape_src.max()
    )
    backward_terms = forward_terms
    if both_directions:
        backward_terms = _explanation_terms(
            tgt_start, src_ids, src_start, src_background, backward, epsilon, shape_tgt.max()
        )
    for i in range(n + 1):
        for j in range(band_low[i], band_high[i] + 1):
            cell = row_first[i] + j - band_low[i]
            for shape in range(shape_src.shape[0]):
                a = shape_src[shape]
                b = shape_tgt[shape]
                if a == 0 or b == 0 or a > i or b > j:
                    continue
                if diagonal > 0.0 and a >= 2 and b >= 2:
                    score = _diagonal_llr(
                        (i - a, a, j - b, b), src_start, (tgt_ids, tgt_start, tgt_background),
                        forward, epsilon, diagonal,
                    )  # fmt: skip
                    if both_directions:
                        score += _diagonal_llr(
                            (j - b, b, i - a, a), tgt_start, (src_ids, src_start, src_background),
                            backward, epsilon, diagonal,
                        )  # fmt: skip
                    llr[cell, shape] = score
                    continue
                score = _summed_terms(forward_terms, forward[0], forward[1], i - 1, a, j - b, j)
                if both_directions:
                    score += _summed_terms(
                        backward_terms, backward[0], backward[1], j - 1, b, i - a, i
                    )
                llr[cell, shape] = score
    return llr, row_first[: n + 1].copy()


def _pair_ranges(
    low: dp.IntArray, high: dp.IntArray, n_tgt: int, max_src: int = 3, max_tgt: int = 3
) -> tuple[dp.IntArray, dp.IntArray, dp.IntArray, dp.IntArray]:
    """Sentence pairs (x, y) that some band bead contains, by source x and by target y
    (beads of at most ``max_src`` source and ``max_tgt`` target sentences)."""
    n = len(low) - 1
    # Source x is in beads ending at rows x+1..x+max_src, with targets from
    # low[x+1] - max_tgt up to high[min(x+max_src, n)] - 1; target y likewise by columns.
    rows = np.arange(n)
    src_low = np.maximum(low[rows + 1] - max_tgt, 0)
    src_high = np.minimum(high[np.minimum(rows + max_src, n)] - 1, n_tgt - 1)
    columns = np.arange(n_tgt)
    first_row = np.searchsorted(high, columns + 1, side="left")
    last_row = np.searchsorted(low, columns + max_tgt, side="right") - 1
    tgt_low = np.maximum(first_row - max_src, 0)
    tgt_high = np.minimum(last_row - 1, n - 1)
    return src_low, src_high, tgt_low.astype(np.int64), tgt_high.astype(np.int64)


def band_llr(
    src: EncodedSide,
    tgt: EncodedSide,
    tables: tuple[TranslationTable, TranslationTable | None],
    band: tuple[dp.IntArray, dp.IntArray],
    epsilon: float,
    shapes: Sequence[tuple[int, int]] = BEAD_SHAPES,
    diagonal: float = 0.0,
) -> tuple[dp.FloatArray, dp.IntArray]:
    """Lexical log-likelihood ratio of every bead ending in every band cell, per shape.

    ``tables`` = (t(e|f), t(f|e) or None); with both, the two directions' LLRs are summed.
    ``diagonal`` > 0: beads with several sentences on both sides prefer word pairs from
    sentences at the same relative position (``_diagonal_llr``); 0 is plain Model 1.
    Returns the (cells x shapes) array (columns in the order of ``shapes``) and the first
    cell index of each band row.
    """
    low, high = band
    shape_src, shape_tgt = dp.shape_arrays(tuple(shapes))
    src_low, src_high, tgt_low, tgt_high = _pair_ranges(
        low, high, tgt.n_sentences, int(shape_src.max()), int(shape_tgt.max())
    )
    forward_table, backward_table = tables
    forward = (src_low, *_pair_sums(
        src.ids, src.start, tgt.ids, tgt.start, forward_table.row_start, forward_table.target,
        forward_table.probability, src_low, src_high, len(tgt.vocabulary),
    ))  # fmt: skip
    backward = forward
    if backward_table is not None:
        backward = (tgt_low, *_pair_sums(
            tgt.ids, tgt.start, src.ids, src.start, backward_table.row_start,
            backward_table.target, backward_table.probability, tgt_low, tgt_high,
            len(src.vocabulary),
        ))  # fmt: skip
    return _band_llr(
        low, high, src.ids, src.start, src.background, tgt.ids, tgt.start, tgt.background,
        forward, backward, epsilon, backward_table is not None, shape_src, shape_tgt, diagonal,
    )  # fmt: skip


def slice_side(side: EncodedSide, first: int, end: int) -> EncodedSide:
    """Sentences first..end-1 of an encoded side (same vocabulary and background)."""
    offset = side.start[first]
    return EncodedSide(
        side.ids[offset : side.start[end]],
        side.start[first : end + 1] - offset,
        side.vocabulary,
        side.background,
    )


def align_by_lexicon(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dictionary: BilingualDictionary | None = None,
) -> list[Bead]:
    """Moore 2002: length pass, Model 1 on confident 1-1 beads, realign with
    -log P_length - log P_Model1 (relative to the unigram model, NULL word eps = 1/(|S|+1)).

    Model 1 is scored in both directions and averaged, 1/2 (LLR(T|S) + LLR(S|T)), rather than
    Moore's T|S alone: swapping the sides then mirrors the beads, and on the Text+Berg dev
    document it scored 0.807 strict F1 against 0.784 for one direction.
    """
    from services.sentence_align._two_pass import align_two_pass

    return align_two_pass(src, tgt, src_lang, tgt_lang, lexicon_settings(), dictionary=dictionary)


def lexicon_settings() -> LexicalSettings:
    """Settings of the lexicon method: Moore's NULL-word epsilon, both directions averaged."""
    from services.sentence_align._two_pass import LexicalSettings

    return LexicalSettings(epsilon=MOORE_EPSILON, both_directions=True, lexical_weight=0.5)
