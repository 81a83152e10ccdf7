"""Lexical scores of sentence-alignment beads: Model 1 log-likelihood ratios over a DP band.

docs/methods.md §2 "Lexicon-based model" (Moore 2002). With a translation table of
:mod:`services.lexical.model1`, compiled kernels score every bead of a band:

    LLR(T | S) = sum over target words e of log( p(e | S) / p_bg(e) )
    p(e | S)   = eps * p_bg(e) + (1 - eps) / |S| * sum over f in S of t(e | f)

p_bg is the target side's unigram (background) distribution, so a deleted sentence scores
0 and a bead scores above 0 only when its words explain each other better than chance.
With eps = 1 / (|S| + 1) and t(e | NULL) = p_bg(e) this is Moore's Model 1 with NULL.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from services.lexical.model1 import EncodedSide, TranslationTable
from services.sentence_align.aligners.beads import BEAD_SHAPES
from services.sentence_align.dp import banded as dp

MOORE_EPSILON = -1.0  # sentinel: eps = 1 / (|S| + 1), Model 1 with a NULL word


@njit(cache=True)
def pair_sums(
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
    (``band_llr_cells``). With S = s_{x-s+1} .. s_x, the per-word masses sum over f in S of
    t(e|f) grow by one sentence from |S| = s - 1 to s, so each size costs one pass over
    t_y's words. Returns terms[s - 1, k], k the pair index of (x, y) in ``pairs`` =
    (pair_low, pair_first, value_first, values) of ``pair_sums`` (keyed by the explaining
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
def band_llr_cells(
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


def pair_ranges(
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
    src_low, src_high, tgt_low, tgt_high = pair_ranges(
        low, high, tgt.n_sentences, int(shape_src.max()), int(shape_tgt.max())
    )
    forward_table, backward_table = tables
    forward = (src_low, *pair_sums(
        src.ids, src.start, tgt.ids, tgt.start, forward_table.row_start, forward_table.target,
        forward_table.probability, src_low, src_high, len(tgt.vocabulary),
    ))  # fmt: skip
    backward = forward
    if backward_table is not None:
        backward = (tgt_low, *pair_sums(
            tgt.ids, tgt.start, src.ids, src.start, backward_table.row_start,
            backward_table.target, backward_table.probability, tgt_low, tgt_high,
            len(src.vocabulary),
        ))  # fmt: skip
    return band_llr_cells(
        low, high, src.ids, src.start, src.background, tgt.ids, tgt.start, tgt.background,
        forward, backward, epsilon, backward_table is not None, shape_src, shape_tgt, diagonal,
    )  # fmt: skip
