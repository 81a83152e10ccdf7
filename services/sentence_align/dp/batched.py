"""Many small windows in one compiled call (the text chunks of a page pair).

A page pair has about fifty chunks of a few sentences a side; aligning each one with its
own Python-level calls (band, pair ranges, lexical scores, program, bead conversion) cost
more than the programs themselves. These loops run the same compiled pieces
(``dp.banded.banded_dp``, ``bead_llr.pair_sums``, ``bead_llr.band_llr_cells``) over every
window with the full band, which is what ``two_pass`` uses for windows of at most
``FULL_BAND_SIZE`` sentences a side, so the beads and their costs are the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from services.lexical import model1
from services.sentence_align.aligners import bead_llr
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.length import LengthModel, cells_to_beads, split_by_window
from services.sentence_align.dp import banded as dp


@njit(cache=True)
def _output(windows: dp.IntArray) -> tuple[dp.IntArray, dp.FloatArray]:
    """Room for the bead end cells and costs of every window (at most n + m beads each)."""
    size = 0
    for w in range(windows.shape[0]):
        size += windows[w, 1] - windows[w, 0] + windows[w, 3] - windows[w, 2]
    return np.empty((size, 3), dtype=np.int64), np.empty(size, dtype=np.float64)


@njit(cache=True)
def _collect(
    out_cells: dp.IntArray,
    out_costs: dp.FloatArray,
    count: int,
    cells: dp.IntArray,
    costs: dp.FloatArray,
    x0: int,
    y0: int,
) -> int:
    """Append one window's bead end cells, moved to document coordinates."""
    for k in range(cells.shape[0]):
        out_cells[count, 0] = cells[k, 0] + x0
        out_cells[count, 1] = cells[k, 1] + y0
        out_cells[count, 2] = cells[k, 2]
        out_costs[count] = costs[k]
        count += 1
    return count


@njit(cache=True)
def _length_windows(
    windows: dp.IntArray,
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    shape_cost: dp.FloatArray,
    ratio: float,
    variance: float,
    shape_src: dp.IntArray,
    shape_tgt: dp.IntArray,
) -> tuple[dp.IntArray, dp.FloatArray]:
    """The length program over the full band of each window (x0, x1, y0, y1) in turn."""
    out_cells, out_costs = _output(windows)
    length_weight = np.ones(shape_src.shape[0])
    extra = np.zeros((0, shape_src.shape[0]))
    extra_row = np.zeros(1, np.int64)
    count = 0
    for w in range(windows.shape[0]):
        x0, x1, y0, y1 = windows[w, 0], windows[w, 1], windows[w, 2], windows[w, 3]
        low, high = dp.full_band(x1 - x0, y1 - y0)
        cells, costs, _ = dp.banded_dp(
            src_cum[x0 : x1 + 1] - src_cum[x0], tgt_cum[y0 : y1 + 1] - tgt_cum[y0],
            low, high, shape_cost, ratio, variance, length_weight, extra, extra_row,
            shape_src, shape_tgt,
        )  # fmt: skip
        count = _collect(out_cells, out_costs, count, cells, costs, x0, y0)
    return out_cells[:count], out_costs[:count]


@njit(cache=True)
def _lexical_windows(
    windows: dp.IntArray,
    cums: tuple[dp.IntArray, dp.IntArray],
    src: tuple[dp.IntArray, dp.IntArray, dp.FloatArray, int],
    tgt: tuple[dp.IntArray, dp.IntArray, dp.FloatArray, int],
    forward_table: tuple[dp.IntArray, dp.IntArray, dp.FloatArray],
    backward_table: tuple[dp.IntArray, dp.IntArray, dp.FloatArray],
    both_directions: bool,
    scoring: tuple[float, float, float],
    model: tuple[dp.FloatArray, float, float, dp.FloatArray, dp.IntArray, dp.IntArray],
    confidence: bool,
) -> tuple[dp.IntArray, dp.FloatArray, dp.FloatArray]:
    """The length + lexical program over the full band of each window, as
    ``two_pass.lexical_dp`` runs it (``bead_llr.band_llr`` then ``length.run_dp``); with
    ``confidence`` also each bead's posterior probability (``dp.banded.path_posteriors``),
    else NaN.

    ``src``/``tgt``: (ids, start, background, vocabulary size) of the whole sides;
    tables as (row_start, target, probability); ``scoring`` = (epsilon, diagonal,
    lexical weight); ``model`` = (shape costs, ratio, variance, length weights per shape,
    shape source sizes, shape target sizes).
    """
    src_cum, tgt_cum = cums
    src_ids, src_start, src_background, n_src_vocab = src
    tgt_ids, tgt_start, tgt_background, n_tgt_vocab = tgt
    epsilon, diagonal, lexical_weight = scoring
    shape_cost, ratio, variance, length_weight, shape_src, shape_tgt = model
    out_cells, out_costs = _output(windows)
    out_confidences = np.full(out_costs.shape[0], np.nan)
    count = 0
    for w in range(windows.shape[0]):
        x0, x1, y0, y1 = windows[w, 0], windows[w, 1], windows[w, 2], windows[w, 3]
        n, m = x1 - x0, y1 - y0
        # model1.slice_side of both sides
        window_src_ids = src_ids[src_start[x0] : src_start[x1]]
        window_src_start = src_start[x0 : x1 + 1] - src_start[x0]
        window_tgt_ids = tgt_ids[tgt_start[y0] : tgt_start[y1]]
        window_tgt_start = tgt_start[y0 : y1 + 1] - tgt_start[y0]
        low, high = dp.full_band(n, m)
        # bead_llr.pair_ranges of the full band: every source sentence with every target.
        src_low = np.zeros(n, dtype=np.int64)
        src_high = np.full(n, m - 1, dtype=np.int64)
        tgt_low = np.zeros(m, dtype=np.int64)
        tgt_high = np.full(m, n - 1, dtype=np.int64)
        pair_first, value_first, values = bead_llr.pair_sums(
            window_src_ids, window_src_start, window_tgt_ids, window_tgt_start,
            forward_table[0], forward_table[1], forward_table[2], src_low, src_high, n_tgt_vocab,
        )  # fmt: skip
        forward = (src_low, pair_first, value_first, values)
        backward = forward
        if both_directions:
            pair_first, value_first, values = bead_llr.pair_sums(
                window_tgt_ids, window_tgt_start, window_src_ids, window_src_start,
                backward_table[0], backward_table[1], backward_table[2], tgt_low, tgt_high,
                n_src_vocab,
            )  # fmt: skip
            backward = (tgt_low, pair_first, value_first, values)
        llr, row_first = bead_llr.band_llr_cells(
            low, high, window_src_ids, window_src_start, src_background, window_tgt_ids,
            window_tgt_start, tgt_background, forward, backward, epsilon, both_directions,
            shape_src, shape_tgt, diagonal,
        )  # fmt: skip
        window_src_cum = src_cum[x0 : x1 + 1] - src_cum[x0]
        window_tgt_cum = tgt_cum[y0 : y1 + 1] - tgt_cum[y0]
        extra = -lexical_weight * llr
        cells, costs, _ = dp.banded_dp(
            window_src_cum, window_tgt_cum, low, high, shape_cost, ratio, variance,
            length_weight, extra, row_first, shape_src, shape_tgt,
        )  # fmt: skip
        if confidence:
            out_confidences[count : count + cells.shape[0]] = dp.path_posteriors(
                window_src_cum, window_tgt_cum, low, high, shape_cost, ratio, variance,
                length_weight, extra, row_first, shape_src, shape_tgt, cells, 1.0,
            )  # fmt: skip
        count = _collect(out_cells, out_costs, count, cells, costs, x0, y0)
    return out_cells[:count], out_costs[:count], out_confidences[:count]


def _windows_array(windows: Sequence[tuple[int, int, int, int]]) -> dp.IntArray:
    return np.asarray(windows, dtype=np.int64).reshape(len(windows), 4)


def length_windows(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    model: LengthModel,
    windows: Sequence[tuple[int, int, int, int]],
) -> list[list[Bead]]:
    """``length.run_dp`` over the full band of each window (x0, x1, y0, y1), both sides
    non-empty; the beads of each window in document coordinates."""
    if not windows:
        return []
    shape_src, shape_tgt = dp.shape_arrays(model.shapes)
    cells, costs = _length_windows(
        _windows_array(windows), src_cum, tgt_cum,
        np.asarray(model.shape_cost, dtype=np.float64), model.ratio, model.variance,
        shape_src, shape_tgt,
    )  # fmt: skip
    return split_by_window(cells_to_beads(cells, costs, model.shapes), windows)


def lexical_windows(
    sides: tuple[model1.EncodedSide, model1.EncodedSide],
    tables: tuple[model1.TranslationTable, model1.TranslationTable | None],
    model: LengthModel,
    scoring: tuple[float, float, float],
    length_weight: dp.FloatArray,
    cums: tuple[dp.IntArray, dp.IntArray],
    windows: Sequence[tuple[int, int, int, int]],
    confidence: bool = False,
) -> list[list[Bead]]:
    """``two_pass.lexical_dp`` over the full band of each window (no boundary costs);
    ``scoring`` = (epsilon, diagonal, lexical weight); ``confidence``: beads with their
    posterior probabilities. Beads in document coordinates."""
    if not windows:
        return []
    src_side, tgt_side = sides
    forward, backward = tables
    shape_src, shape_tgt = dp.shape_arrays(model.shapes)
    cells, costs, confidences = _lexical_windows(
        _windows_array(windows),
        cums,
        (src_side.ids, src_side.start, src_side.background, len(src_side.vocabulary)),
        (tgt_side.ids, tgt_side.start, tgt_side.background, len(tgt_side.vocabulary)),
        (forward.row_start, forward.target, forward.probability),
        (forward.row_start, forward.target, forward.probability)
        if backward is None
        else (backward.row_start, backward.target, backward.probability),
        backward is not None,
        scoring,
        (
            np.asarray(model.shape_cost, dtype=np.float64), model.ratio, model.variance,
            np.asarray(length_weight, dtype=np.float64), shape_src, shape_tgt,
        ),
        confidence,
    )  # fmt: skip
    beads = cells_to_beads(cells, costs, model.shapes, confidences if confidence else None)
    return split_by_window(beads, windows)
