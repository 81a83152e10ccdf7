"""The first (length) pass of Moore's two passes: on one document (plain, or anchored so that
a block of sentences missing on one side does not derail it), in fixed segments, or in
corpus mode (every document's first run as on its own, one model refitted for all)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from services.sentence_align.aligners import length
from services.sentence_align.aligners.anchor_tokens import anchor_chain, anchor_extra, anchor_tokens
from services.sentence_align.aligners.beads import Bead, unaligned_beads
from services.sentence_align.aligners.lexical_settings import LexicalSettings
from services.sentence_align.dp import banded as dp
from services.sentence_align.dp import batched

# Windows with at most this many sentences a side are searched in full (exact and cheaper
# than building a band); page chunks and short documents take this path.
FULL_BAND_SIZE = 24


CHAIN_RATIO_MIN_SEGMENTS = 8


def _chain_ratio(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, chain_cells: dp.IntArray
) -> float | None:
    """c from the anchor chain: the median over the chain's segments of target over source
    characters (a block left out on one side skews the ratio of the totals, and only one
    segment); None below CHAIN_RATIO_MIN_SEGMENTS segments with text on both sides."""
    src_chars = np.diff(src_cum[chain_cells[:, 0]]).astype(np.float64)
    tgt_chars = np.diff(tgt_cum[chain_cells[:, 1]]).astype(np.float64)
    both = (src_chars > 0) & (tgt_chars > 0)
    if both.sum() < CHAIN_RATIO_MIN_SEGMENTS:
        return None
    return float(np.exp(np.median(np.log(tgt_chars[both] / src_chars[both]))))


# Largest band (cells) of the anchored length pass: a document whose first band (the
# character diagonal and the anchor chain, ``first_anchor_margin`` sentences either side)
# is larger gets the plain length pass, chunked when long (the 100,000-sentence benchmark
# document, for one), and the band stops widening before it would exceed it. The anchor
# costs take 8 floats a cell (64 MB at this size).
ANCHORED_BAND_CELLS = 1_000_000


def anchored_first_run(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    anchors: dp.IntArray,
    weight: float,
    margin: int,
    gap_extension: float | None = None,
    shape_cost: tuple[float, ...] = length.GALE_CHURCH_SHAPE_COST,
) -> length.FirstRun:
    """First run of the length pass made robust to a block of sentences missing on one
    side (the anchored length pass), which moves the path far from the diagonal where
    length costs alone do not follow it (benchmarks/results/sentence_align_missing_block.md;
    tuning_history.md, length_passes). Three changes, all from the
    document itself:

    - the band covers the character diagonal and the pairs on every longest chain of anchor
      pairs (``anchor_chain``), with ``margin`` sentences around both;
    - a bead that separates an anchor pair pays ``weight`` per separated sentence
      (``anchor_extra``, the anchor-token model);
    - c starts from the chain (``_chain_ratio``) instead of the total lengths, which the
      missing block skews, and deletion runs are affine (``gap_extension``,
      ``dp.banded.banded_gap_dp``).

    Without chain pairs, or when the band would exceed ANCHORED_BAND_CELLS, it is the plain
    first run (``length.first_run``, without affine runs: alone they cost dev F1; see
    tuning_history.md). Its rerun searches near the first path with the same anchor costs.
    """
    n, m = len(src_cum) - 1, len(tgt_cum) - 1
    chain = anchor_chain(anchors)
    if len(chain) == 0:
        return length.first_run(src_cum, tgt_cum, shape_cost)
    chain_cells = np.concatenate([[[0, 0]], chain + 1, [[n, m]]]).astype(np.int64)

    def first_band(width: int) -> tuple[dp.IntArray, dp.IntArray]:
        return dp.union_band(
            [
                dp.band_around_path(chain_cells, n, m, width),
                dp.length_diagonal_band(src_cum, tgt_cum, width),
            ]
        )

    def run(
        model: length.LengthModel,
        band_at: Callable[[int], tuple[dp.IntArray, dp.IntArray]],
        width: int,
    ) -> list[Bead]:
        def align(band: tuple[dp.IntArray, dp.IntArray]) -> list[Bead]:
            row_first = dp.band_rows(band)
            extra = anchor_extra(band, row_first, model.shapes, anchors, weight)
            return length.run_dp(src_cum, tgt_cum, model, band, extra=extra, extra_row=row_first)

        return length.widen_until_inside(band_at, align, width, m, ANCHORED_BAND_CELLS)

    if dp.band_cells(first_band(margin)) > ANCHORED_BAND_CELLS:
        return length.first_run(src_cum, tgt_cum, shape_cost)
    ratio = _chain_ratio(src_cum, tgt_cum, chain_cells)
    first_model = (
        length.initial_model(src_cum, tgt_cum, shape_cost)
        if ratio is None
        else length.ratio_model(ratio, shape_cost)
    )
    first_model = replace(first_model, gap_extension=gap_extension)
    first = run(first_model, first_band, margin)
    cells = length.beads_to_cells(first)

    def rerun(fitted: length.LengthModel) -> list[Bead]:
        # The refitted pass searches near the first path (the band still widens if needed).
        return run(
            fitted, lambda width: dp.band_around_path(cells, n, m, width), length.REFIT_MARGIN
        )

    return length.FirstRun(first, first_model, rerun)


def window_cums(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, window: tuple[int, int, int, int]
) -> tuple[dp.IntArray, dp.IntArray]:
    """The cumulative lengths of the window's sentences (x0..x1, y0..y1), from 0."""
    x0, x1, y0, y1 = window
    return src_cum[x0 : x1 + 1] - src_cum[x0], tgt_cum[y0 : y1 + 1] - tgt_cum[y0]


def full_band_window(window: tuple[int, int, int, int]) -> bool:
    """A window with both sides non-empty and at most FULL_BAND_SIZE sentences a side."""
    x0, x1, y0, y1 = window
    return x0 < x1 and y0 < y1 and max(x1 - x0, y1 - y0) <= FULL_BAND_SIZE


def segmented_length_pass(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    cuts: Sequence[tuple[int, int]],
    shape_cost: tuple[float, ...] = length.GALE_CHURCH_SHAPE_COST,
) -> tuple[list[Bead], length.LengthModel]:
    """Length pass inside fixed segments (cut points (i, j)) with one model for all of them:
    c from the total lengths, then c and s2 refitted on every segment's 1-1 beads."""

    windows = [(x0, x1, y0, y1) for (x0, y0), (x1, y1) in itertools.pairwise(cuts)]
    small = [window for window in windows if full_band_window(window)]

    def run(model: length.LengthModel) -> list[Bead]:
        # Small windows (the full band) in one compiled call, the rest one by one.
        in_one_call = iter(batched.length_windows(src_cum, tgt_cum, model, small))
        beads: list[Bead] = []
        for x0, x1, y0, y1 in windows:
            if x0 == x1 or y0 == y1:
                beads += unaligned_beads(range(x0, x1), range(y0, y1))
            elif full_band_window((x0, x1, y0, y1)):
                beads += next(in_one_call)
            else:
                cums = window_cums(src_cum, tgt_cum, (x0, x1, y0, y1))
                window = length.align_with_widening_band(*cums, model)
                beads += length.shift_beads(window, x0, y0)
        return beads

    first_model = length.initial_model(src_cum, tgt_cum, shape_cost)
    first = run(first_model)
    fitted = length.fit_model(src_cum, tgt_cum, first, first_model)
    return (first, first_model) if fitted == first_model else (run(fitted), fitted)


def settings_shape_costs(settings: LexicalSettings) -> tuple[float, ...]:
    """The length model's shape priors under ``settings`` (``two_two_probability``)."""
    return length.shape_costs(settings.two_two_probability)


def document_first_run(
    src: Sequence[str],
    tgt: Sequence[str],
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    settings: LexicalSettings,
) -> length.FirstRun:
    """First run of one document's length pass: anchored (``anchored_first_run``) when
    ``settings.first_anchor_weight`` is set (it falls back to the plain run itself above
    ANCHORED_BAND_CELLS), else plain (``length.first_run``, chunked for long documents)."""
    margin = settings.first_anchor_margin
    # With the diagonal alone over the limit (the 100,000-sentence benchmark document), the
    # plain run without looking for anchor tokens (1.8 s there).
    if (
        settings.first_anchor_weight
        and dp.band_cells(dp.length_diagonal_band(src_cum, tgt_cum, margin)) <= ANCHORED_BAND_CELLS
    ):
        return anchored_first_run(
            src_cum, tgt_cum, anchor_tokens(src, tgt), settings.first_anchor_weight, margin,
            settings.first_gap_extension, settings_shape_costs(settings),
        )  # fmt: skip
    return length.first_run(src_cum, tgt_cum, settings_shape_costs(settings))


def document_length_pass(
    src: Sequence[str],
    tgt: Sequence[str],
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    settings: LexicalSettings,
) -> tuple[list[Bead], length.LengthModel]:
    """The length pass of one document (``document_first_run``, c and s2 refitted on its
    beads); the model returned has no affine runs."""
    run = document_first_run(src, tgt, src_cum, tgt_cum, settings)
    beads, fitted = length.finish(run, length.fit_model(src_cum, tgt_cum, run.beads, run.model))
    return beads, replace(fitted, gap_extension=None)


def corpus_length_pass(
    src: Sequence[str],
    tgt: Sequence[str],
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    cuts: Sequence[tuple[int, int]],
    settings: LexicalSettings,
) -> tuple[list[Bead], length.LengthModel]:
    """Length pass of corpus mode (the documents between the cut points (i, j)): every
    document's first run as on its own (``document_first_run``: a block missing on one
    side of one document is skipped, not misaligned), c and s2 refitted once on the 1-1
    beads of all first runs, then every document's rerun with them. A corpus of one
    document with 10 1-1 beads or more gets the beads and model of
    ``document_length_pass``."""
    windows = list(itertools.pairwise(cuts))

    def first_run(x0: int, x1: int, y0: int, y1: int) -> length.FirstRun | None:
        if x0 == x1 or y0 == y1:
            return None
        cums = window_cums(src_cum, tgt_cum, (x0, x1, y0, y1))
        return document_first_run(src[x0:x1], tgt[y0:y1], *cums, settings)

    runs = [first_run(x0, x1, y0, y1) for (x0, y0), (x1, y1) in windows]
    first = [
        bead
        for ((x0, y0), _), run in zip(windows, runs, strict=True)
        if run is not None
        for bead in length.shift_beads(run.beads, x0, y0)
    ]
    fitted = length.fit_ratio_variance(src_cum, tgt_cum, first)
    beads: list[Bead] = []
    for ((x0, y0), (x1, y1)), run in zip(windows, runs, strict=True):
        if run is None:
            beads += unaligned_beads(range(x0, x1), range(y0, y1))
        elif fitted is None:
            beads += length.shift_beads(run.beads, x0, y0)
        else:
            model = replace(run.model, ratio=fitted[0], variance=fitted[1])
            beads += length.shift_beads(length.finish(run, model)[0], x0, y0)
    model = length.initial_model(src_cum, tgt_cum, settings_shape_costs(settings))
    if fitted is not None:
        model = replace(model, ratio=fitted[0], variance=fitted[1])
    return beads, model
