"""Banded dynamic program over two sentence sequences, shared by every bead aligner.

The program minimises the summed bead cost over all segmentations of the two sequences
into beads of the given shapes (``beads.BEAD_SHAPES`` by default, or every x-y shape up to
a size, ``beads.bead_shapes``; docs/methods.md §2). Only cells (i, j) with
``band_low[i] <= j <= band_high[i]`` are explored, so time is O(n * band * shapes) and the
memory is one int8 back-pointer per band cell plus (largest source side + 1) rolling rows
of scores.
Compiled with numba; the bead cost is Gale-Church's length cost (weighted per shape)
plus an optional table of extra (lexical) costs per band cell and bead shape.
``path_posteriors`` sums instead of minimising over the same lattice (forward-backward):
the posterior probability of each bead of a path, the aligners' bead confidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit
from scipy.ndimage import maximum_filter1d, minimum_filter1d

from services.sentence_align.aligners.beads import BEAD_SHAPES

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def shape_arrays(shapes: tuple[tuple[int, int], ...]) -> tuple[IntArray, IntArray]:
    """(source sizes, target sizes) of the bead shapes, as the compiled program reads them."""
    return (
        np.array([shape[0] for shape in shapes], dtype=np.int64),
        np.array([shape[1] for shape in shapes], dtype=np.int64),
    )


SHAPE_SRC, SHAPE_TGT = shape_arrays(BEAD_SHAPES)
N_SHAPES = len(BEAD_SHAPES)
_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_PI = 0.5 * math.log(math.pi)


# -log erfc(z) tabulated on [0, 20) with step 1/256 and read by linear interpolation: the
# library erfc made up most of the program's time (about 80 ns a call); interpolation error
# stays below 1e-5.
_TABLE_STEP = 1.0 / 256.0
_TABLE_END = 20.0
_NEG_LOG_ERFC = -np.log(
    np.array([math.erfc(k * _TABLE_STEP) for k in range(int(_TABLE_END / _TABLE_STEP) + 2)])
)


@njit(cache=True)
def _neg_log_erfc(z: float) -> float:
    if z >= _TABLE_END:
        # Asymptote: log erfc(z) ~ -z^2 - log(z sqrt(pi)).
        return z * z + math.log(z) + _LOG_SQRT_PI
    position = z / _TABLE_STEP
    k = int(position)
    fraction = position - k
    return float((1.0 - fraction) * _NEG_LOG_ERFC[k] + fraction * _NEG_LOG_ERFC[k + 1])


@njit(cache=True)
def length_cost(len_src: float, len_tgt: float, ratio: float, variance: float) -> float:
    """-log Pr(delta | match) of Gale & Church 1993 (docs/methods.md §2).

    delta = (l_t - l_s * c) / sqrt(s2 * mean), Pr(delta | match) = 2 (1 - Phi(|delta|)).
    As in the program printed in the paper's appendix, the variance scales with the mean of
    l_s and l_t / c rather than l_s alone: defined for deletions (l_s = 0) and symmetric
    when the two sides are swapped (c -> 1/c, s2 -> s2 / c^3).
    """
    if len_src == 0.0 and len_tgt == 0.0:
        return 0.0
    mean = 0.5 * (len_src + len_tgt / ratio)
    delta = abs(len_tgt - len_src * ratio) / math.sqrt(variance * mean)
    # 2 (1 - Phi(x)) = erfc(x / sqrt 2)
    return _neg_log_erfc(delta / _SQRT2)


@njit(cache=True)
def _previous_in_band(
    i: int,
    j: int,
    shape: int,
    shape_src: IntArray,
    shape_tgt: IntArray,
    band_low: IntArray,
    band_high: IntArray,
) -> bool:
    """Whether the bead of ``shape`` ending at (i, j) starts at a cell of the band."""
    previous_i = i - shape_src[shape]
    previous_j = j - shape_tgt[shape]
    if previous_i < 0 or previous_j < 0:
        return False
    return bool(band_low[previous_i] <= previous_j <= band_high[previous_i])


@njit(cache=True)
def _bead_cost(
    shape: int,
    i: int,
    j: int,
    shape_src: IntArray,
    shape_tgt: IntArray,
    src_cum: IntArray,
    tgt_cum: IntArray,
    shape_cost: FloatArray,
    ratio: float,
    variance: float,
    length_weight: FloatArray,
    extra: FloatArray,
    extra_row: IntArray,
    band_low: IntArray,
) -> float:
    previous_i = i - shape_src[shape]
    previous_j = j - shape_tgt[shape]
    len_src = float(src_cum[i] - src_cum[previous_i])
    len_tgt = float(tgt_cum[j] - tgt_cum[previous_j])
    # cost(bead) = -log Pr(bead shape) - log Pr(delta | match)   (§2, Gale & Church)
    cost: float = shape_cost[shape] + length_weight[shape] * length_cost(
        len_src, len_tgt, ratio, variance
    )
    if extra.shape[0] > 0:
        cost += extra[extra_row[i] + j - band_low[i], shape]
    return cost


@njit(cache=True)
def _max_width(band_low: IntArray, band_high: IntArray) -> int:
    """Cells in the widest row of the band (at least 1)."""
    width = 1
    for i in range(band_low.shape[0]):
        width = max(width, band_high[i] - band_low[i] + 1)
    return width


@njit(cache=True)
def banded_dp(
    src_cum: IntArray,
    tgt_cum: IntArray,
    band_low: IntArray,
    band_high: IntArray,
    shape_cost: FloatArray,
    ratio: float,
    variance: float,
    length_weight: FloatArray,
    extra: FloatArray,
    extra_row: IntArray,
    shape_src: IntArray,
    shape_tgt: IntArray,
    end_sum: int = -1,
) -> tuple[IntArray, FloatArray, float]:
    """Best bead path; returns (bead end cells as [i, j, shape] rows, bead costs, total).

    Recurrence (Gale & Church 1993, §3):
        D(0, 0) = 0
        D(i, j) = min over shapes (a, b) of D(i - a, j - b) + cost(bead (i-a..i, j-b..j))
    ``src_cum``/``tgt_cum`` are cumulative sentence lengths with a leading 0. ``extra`` is
    empty or holds one extra cost per band cell and shape; row i starts at ``extra_row[i]``.
    Shape k takes ``shape_src[k]`` source and ``shape_tgt[k]`` target sentences. With
    ``end_sum`` >= 0 the path ends at the cheapest band cell on the anti-diagonal i + j =
    ``end_sum`` instead of (n, m), for aligning a stretch at the start of a long document: a
    free end that treats both sides alike (swapping them mirrors the path).
    """
    n = src_cum.shape[0] - 1
    m = tgt_cum.shape[0] - 1
    width = _max_width(band_low, band_high)
    has_extra = extra.shape[0] > 0
    n_shapes = shape_src.shape[0]
    n_rows = shape_src.max() + 1  # rolling rows: D(i - a, .) for every source size a
    score = np.full((n_rows, width), np.inf)
    back = np.full((n + 1, width), -1, dtype=np.int8)
    # The best cell on i + j = end_sum so far ((0, 0) itself when end_sum is 0).
    end_cost, end_row, end_column = (0.0, 0, 0) if end_sum == 0 else (np.inf, n, m)
    for i in range(n + 1):
        row = i % n_rows
        score[row, :] = np.inf
        for j in range(band_low[i], band_high[i] + 1):
            if i == 0 and j == 0:
                score[0, 0] = 0.0
                continue
            best = np.inf
            best_shape = -1
            for shape in range(n_shapes):
                if not _previous_in_band(i, j, shape, shape_src, shape_tgt, band_low, band_high):
                    continue
                previous_i = i - shape_src[shape]
                previous_j = j - shape_tgt[shape]
                previous = score[previous_i % n_rows, previous_j - band_low[previous_i]]
                if previous == np.inf:
                    continue
                # Length costs are >= 0: without extra costs a bead whose prior alone cannot
                # beat the best so far is skipped before its erfc is evaluated.
                if not has_extra and previous + shape_cost[shape] >= best:
                    continue
                total = previous + _bead_cost(
                    shape, i, j, shape_src, shape_tgt, src_cum, tgt_cum, shape_cost, ratio,
                    variance, length_weight, extra, extra_row, band_low,
                )  # fmt: skip
                if total < best:
                    best = total
                    best_shape = shape
            score[row, j - band_low[i]] = best
            back[i, j - band_low[i]] = best_shape
            if i + j == end_sum and best < end_cost:
                end_cost, end_row, end_column = best, i, j
    if end_sum < 0:
        end_row, end_column = n, m
        end_cost = score[n % n_rows, m - band_low[n]]
    # Back-trace from (end_row, end_column), recomputing each chosen bead's own cost.
    count = 0
    cells = np.empty((n + m + 1, 3), dtype=np.int64)
    costs = np.empty(n + m + 1, dtype=np.float64)
    i = end_row
    j = end_column
    while i > 0 or j > 0:
        shape = back[i, j - band_low[i]]
        if shape < 0:
            break  # unreachable end cell; the caller sees an incomplete path
        cells[count, 0] = i
        cells[count, 1] = j
        cells[count, 2] = shape
        costs[count] = _bead_cost(
            shape, i, j, shape_src, shape_tgt, src_cum, tgt_cum, shape_cost, ratio, variance,
            length_weight, extra, extra_row, band_low,
        )  # fmt: skip
        count += 1
        i -= shape_src[shape]
        j -= shape_tgt[shape]
    return cells[:count][::-1].copy(), costs[:count][::-1].copy(), end_cost


@njit(cache=True)
def _run_cost(
    cost: float,
    shape: int,
    i: int,
    j: int,
    gap_extension: float,
    extra: FloatArray,
    extra_row: IntArray,
    band_low: IntArray,
) -> float:
    """Cost of a 1-0 (0-1) bead ``shape`` ending at (i, j) that continues a run of its
    kind: min(its own ``cost``, ``gap_extension`` + its extra cost)."""
    own_extra = 0.0
    if extra.shape[0] > 0:
        own_extra = extra[extra_row[i] + j - band_low[i], shape]
    return min(cost, gap_extension + own_extra)


@njit(cache=True)
def banded_gap_dp(
    src_cum: IntArray,
    tgt_cum: IntArray,
    band_low: IntArray,
    band_high: IntArray,
    shape_cost: FloatArray,
    ratio: float,
    variance: float,
    length_weight: FloatArray,
    extra: FloatArray,
    extra_row: IntArray,
    shape_src: IntArray,
    shape_tgt: IntArray,
    gap_extension: float,
) -> tuple[IntArray, FloatArray, float]:
    """``banded_dp`` with affine deletion runs (Gotoh 1982): a 1-0 (0-1) bead that follows
    a 1-0 (0-1) bead costs ext = min(its cost, ``gap_extension`` + its extra cost) instead of
    its cost, so a block of sentences missing on one side costs the opening deletion plus
    about ``gap_extension`` per further sentence, not -log Pr(1-0) plus a length cost per
    sentence (that cost grows with the sentence, and a long block then costs more than
    misaligning everything around it). Three states per cell: the last bead is no deletion
    (0), a 1-0 (1), a 0-1 (2):
        D0(i, j) = min over shapes (a, b) with a, b >= 1 of min_s Ds(i - a, j - b) + cost
        D1(i, j) = min(min(D0, D2)(i - 1, j) + cost(1-0), D1(i - 1, j) + ext(1-0))
        D2(i, j) = min(min(D0, D1)(i, j - 1) + cost(0-1), D2(i, j - 1) + ext(0-1))
    Same arguments and result as ``banded_dp`` (the cost of each bead as it was charged).
    """
    n = src_cum.shape[0] - 1
    m = tgt_cum.shape[0] - 1
    width = _max_width(band_low, band_high)
    n_shapes = shape_src.shape[0]
    n_rows = shape_src.max() + 1
    score = np.full((3, n_rows, width), np.inf)
    # Per state and cell: the shape of the last bead and the state before it.
    back_shape = np.full((3, n + 1, width), -1, dtype=np.int8)
    back_state = np.full((3, n + 1, width), -1, dtype=np.int8)
    for i in range(n + 1):
        row = i % n_rows
        score[:, row, :] = np.inf
        for j in range(band_low[i], band_high[i] + 1):
            column = j - band_low[i]
            if i == 0 and j == 0:
                score[0, 0, 0] = 0.0
                continue
            for shape in range(n_shapes):
                if not _previous_in_band(i, j, shape, shape_src, shape_tgt, band_low, band_high):
                    continue
                previous_i = i - shape_src[shape]
                previous_j = j - shape_tgt[shape]
                previous_row = previous_i % n_rows
                previous_column = previous_j - band_low[previous_i]
                if shape_src[shape] == 0:
                    state, run = 2, 2
                elif shape_tgt[shape] == 0:
                    state, run = 1, 1
                else:
                    state, run = 0, -1
                cost = _bead_cost(
                    shape, i, j, shape_src, shape_tgt, src_cum, tgt_cum, shape_cost, ratio,
                    variance, length_weight, extra, extra_row, band_low,
                )  # fmt: skip
                extension = cost
                if run > 0:
                    extension = _run_cost(
                        cost, shape, i, j, gap_extension, extra, extra_row, band_low
                    )
                for before in range(3):
                    previous = score[before, previous_row, previous_column]
                    if previous == np.inf:
                        continue
                    total = previous + (extension if before == run else cost)
                    if total < score[state, row, column]:
                        score[state, row, column] = total
                        back_shape[state, i, column] = shape
                        back_state[state, i, column] = before
    end_state = 0
    best_end = np.inf
    for state in range(3):
        value = score[state, n % n_rows, m - band_low[n]]
        if value < best_end:
            best_end = value
            end_state = state
    count = 0
    cells = np.empty((n + m + 1, 3), dtype=np.int64)
    costs = np.empty(n + m + 1, dtype=np.float64)
    i = n
    j = m
    state = end_state
    while i > 0 or j > 0:
        column = j - band_low[i]
        shape = back_shape[state, i, column]
        if shape < 0:
            break  # unreachable end cell; the caller sees an incomplete path
        before = back_state[state, i, column]
        cost = _bead_cost(
            shape, i, j, shape_src, shape_tgt, src_cum, tgt_cum, shape_cost, ratio, variance,
            length_weight, extra, extra_row, band_low,
        )  # fmt: skip
        if state > 0 and before == state:
            cost = _run_cost(cost, shape, i, j, gap_extension, extra, extra_row, band_low)
        cells[count, 0] = i
        cells[count, 1] = j
        cells[count, 2] = shape
        costs[count] = cost
        count += 1
        i -= shape_src[shape]
        j -= shape_tgt[shape]
        state = before
    return cells[:count][::-1].copy(), costs[:count][::-1].copy(), best_end


@njit(cache=True)
def full_band(n_src: int, n_tgt: int) -> tuple[IntArray, IntArray]:
    """Every cell of the (n_src + 1) x (n_tgt + 1) table: the exhaustive program (compiled,
    so the batched compiled loops of ``batched`` call it too)."""
    return np.zeros(n_src + 1, dtype=np.int64), np.full(n_src + 1, n_tgt, dtype=np.int64)


def diagonal_band(n_src: int, n_tgt: int, half_width: int) -> tuple[IntArray, IntArray]:
    """Band of ``half_width`` target sentences either side of the straight diagonal."""
    rows = np.arange(n_src + 1, dtype=np.float64)
    centre = rows * n_tgt / max(n_src, 1)
    low = np.clip(np.floor(centre).astype(np.int64) - half_width, 0, n_tgt)
    high = np.clip(np.ceil(centre).astype(np.int64) + half_width, 0, n_tgt)
    if n_src == 0:
        low[:] = 0
        high[:] = n_tgt
    return connect_band(low, high, n_tgt)


def band_cells(band: tuple[IntArray, IntArray]) -> int:
    """Number of cells of a band (rows low..high)."""
    low, high = band
    return int(np.sum(high - low + 1))


def length_diagonal_band(
    src_cum: IntArray, tgt_cum: IntArray, half_width: int
) -> tuple[IntArray, IntArray]:
    """Band around the character-offset diagonal: row i is centred on the target sentence
    at the same relative character offset, which follows long insertions and uneven
    sentence lengths better than the sentence-count diagonal."""
    n_src, n_tgt = len(src_cum) - 1, len(tgt_cum) - 1
    if src_cum[-1] == 0 or tgt_cum[-1] == 0:
        return diagonal_band(n_src, n_tgt, half_width)
    offsets = src_cum.astype(np.float64) * (tgt_cum[-1] / src_cum[-1])
    centre = np.searchsorted(tgt_cum, offsets, side="left").astype(np.int64)
    low = np.clip(
        np.minimum(centre, (np.arange(n_src + 1) * n_tgt) // max(n_src, 1)) - half_width, 0, n_tgt
    )
    high = np.clip(
        np.maximum(centre, -(-np.arange(n_src + 1) * n_tgt // max(n_src, 1))) + half_width, 0, n_tgt
    )
    return connect_band(low, high, n_tgt)


def connect_band(low: IntArray, high: IntArray, n_tgt: int) -> tuple[IntArray, IntArray]:
    """Make a band monotone, anchored at (0, 0) and (n, m), with overlapping rows.

    Overlap between consecutive rows keeps every band cell reachable through 1-0 and 0-1
    beads, so the program always finds a complete path.
    """
    low = np.minimum.accumulate(low[::-1])[::-1].copy()
    high = np.maximum.accumulate(high).copy()
    low[0] = 0
    high[-1] = n_tgt
    low = np.minimum(low, high)
    # Row i must start at or before the end of row i - 1.
    high[:-1] = np.maximum(high[:-1], low[1:])
    return low.astype(np.int64), high.astype(np.int64)


def union_band(bands: Sequence[tuple[IntArray, IntArray]]) -> tuple[IntArray, IntArray]:
    """The cells of any of the bands (same rows). Connected bands stay connected: each row
    of the union starts at or before the end of the row above, since each band's does."""
    return (
        np.minimum.reduce([low for low, _ in bands]),
        np.maximum.reduce([high for _, high in bands]),
    )


def path_touches_edge(cells: IntArray, low: IntArray, high: IntArray, n_tgt: int) -> bool:
    """True when the path runs along the band's border (the band may have cut it off)."""
    rows = cells[:, 0]
    columns = cells[:, 1]
    at_low = (columns == low[rows]) & (low[rows] > 0)
    at_high = (columns == high[rows]) & (high[rows] < n_tgt)
    return bool(np.any(at_low | at_high))


def band_around_path(
    cells: IntArray, n_src: int, n_tgt: int, margin: int
) -> tuple[IntArray, IntArray]:
    """Band of ``margin`` sentences around a path of bead end cells (starting at (0, 0)).

    Used by the second (lexical) pass, which searches only near the length pass's path, as
    Moore 2002 does.
    """
    low = np.full(n_src + 1, n_tgt, dtype=np.int64)
    high = np.zeros(n_src + 1, dtype=np.int64)
    for (i0, j0), (i1, j1) in zip(cells[:-1].tolist(), cells[1:].tolist(), strict=True):
        low[i0 : i1 + 1] = np.minimum(low[i0 : i1 + 1], j0)
        high[i0 : i1 + 1] = np.maximum(high[i0 : i1 + 1], j1)
    if len(cells) == 1:
        low[:] = 0
        high[:] = n_tgt
    low = minimum_filter1d(low, size=2 * margin + 1, mode="nearest") - margin
    high = maximum_filter1d(high, size=2 * margin + 1, mode="nearest") + margin
    return connect_band(np.clip(low, 0, n_tgt), np.clip(high, 0, n_tgt), n_tgt)


@njit(cache=True)
def path_posteriors(
    src_cum: IntArray,
    tgt_cum: IntArray,
    band_low: IntArray,
    band_high: IntArray,
    shape_cost: FloatArray,
    ratio: float,
    variance: float,
    length_weight: FloatArray,
    extra: FloatArray,
    extra_row: IntArray,
    shape_src: IntArray,
    shape_tgt: IntArray,
    cells: IntArray,
    temperature: float,
) -> FloatArray:
    """Posterior probability of each bead of a path (``banded_dp``'s ``cells``).

    Every path through the band is weighted exp(-cost(path) / T); a bead's posterior is
    the weight of the paths that contain it over the weight of all paths (forward-backward
    over the same lattice as ``banded_dp``, in log space):
        A(0, 0) = 0,   A(i, j) = logsumexp over shapes (a, b) of A(i-a, j-b) - cost / T
        B(n, m) = 0,   B(i, j) = logsumexp over shapes (a, b) of B(i+a, j+b) - cost' / T
        Pr(bead (i-a..i, j-b..j)) = exp(A(i-a, j-b) - cost / T + B(i, j) - A(n, m))
    (cost' the cost of the bead ending at (i+a, j+b)).
    """
    n = src_cum.shape[0] - 1
    m = tgt_cum.shape[0] - 1
    width = _max_width(band_low, band_high)
    n_shapes = shape_src.shape[0]
    forward = np.full((n + 1, width), -np.inf)
    backward = np.full((n + 1, width), -np.inf)
    # Bead costs / T by end cell and shape (inf where the bead leaves the band).
    scaled = np.full((n + 1, width, n_shapes), np.inf)
    for i in range(n + 1):
        for j in range(band_low[i], band_high[i] + 1):
            column = j - band_low[i]
            if i == 0 and j == 0:
                forward[0, 0] = 0.0
                continue
            total = -np.inf
            for shape in range(n_shapes):
                if not _previous_in_band(i, j, shape, shape_src, shape_tgt, band_low, band_high):
                    continue
                previous_i = i - shape_src[shape]
                previous_j = j - shape_tgt[shape]
                previous = forward[previous_i, previous_j - band_low[previous_i]]
                if previous == -np.inf:
                    continue
                cost = _bead_cost(
                    shape, i, j, shape_src, shape_tgt, src_cum, tgt_cum, shape_cost, ratio,
                    variance, length_weight, extra, extra_row, band_low,
                ) / temperature  # fmt: skip
                scaled[i, column, shape] = cost
                total = np.logaddexp(total, previous - cost)
            forward[i, column] = total
    log_z = forward[n, m - band_low[n]]
    for i in range(n, -1, -1):
        for j in range(band_high[i], band_low[i] - 1, -1):
            column = j - band_low[i]
            # A path may end here (weight exp(0)) or go on through a later bead.
            total = 0.0 if i == n and j == m else -np.inf
            for shape in range(n_shapes):
                next_i = i + shape_src[shape]
                next_j = j + shape_tgt[shape]
                if next_i > n or next_j > m:
                    continue
                if next_j < band_low[next_i] or next_j > band_high[next_i]:
                    continue
                cost = scaled[next_i, next_j - band_low[next_i], shape]  # inf: never reached
                if cost == np.inf:
                    continue
                total = np.logaddexp(total, backward[next_i, next_j - band_low[next_i]] - cost)
            backward[i, column] = total
    posteriors = np.empty(cells.shape[0], dtype=np.float64)
    for k in range(cells.shape[0]):
        i, j, shape = cells[k, 0], cells[k, 1], cells[k, 2]
        previous_i = i - shape_src[shape]
        previous_j = j - shape_tgt[shape]
        log_p = (
            forward[previous_i, previous_j - band_low[previous_i]]
            - scaled[i, j - band_low[i], shape]
            + backward[i, j - band_low[i]]
            - log_z
        )
        posteriors[k] = min(1.0, math.exp(log_p))
    return posteriors


def band_rows(band: tuple[IntArray, IntArray]) -> IntArray:
    """Index of each row's first cell among the band's cells (row by row)."""
    low, high = band
    return np.concatenate([[0], np.cumsum(high - low + 1)[:-1]]).astype(np.int64)


def band_cell_indices(
    band: tuple[IntArray, IntArray], row_first: IntArray
) -> tuple[IntArray, IntArray]:
    """Row and column of every band cell, in the program's cell order (row by row)."""
    low, high = band
    rows = np.repeat(np.arange(len(low)), high - low + 1)
    return rows, np.arange(len(rows)) - row_first[rows] + low[rows]
