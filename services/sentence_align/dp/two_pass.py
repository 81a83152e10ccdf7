"""Moore's two-pass recipe shared by the lexicon and hybrid aligners (docs/methods.md §2).

(1) length-based alignment of the whole document (banded, linear memory); (2) its
confident 1-1 beads train IBM Model 1; (3) confident 1-1 beads spaced every ``window``
sentences become anchors that cut the document into independent windows, and each window
is realigned near the first path with length and lexical costs together. Windows keep
the lexical tables small, so 100,000-sentence documents run in bounded memory. The first
pass is ``length_passes``; the settings ``lexical_settings.LexicalSettings``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from services.lexical import model1
from services.sentence_align.aligners import bead_llr, length
from services.sentence_align.aligners.anchor_tokens import anchor_extra, anchor_tokens
from services.sentence_align.aligners.beads import Bead, unaligned_beads
from services.sentence_align.aligners.boundary_model import (
    boundary_costs,
    boundary_extra,
    deletion_classes,
    deletion_costs,
    end_classes,
)
from services.sentence_align.aligners.length_passes import (
    FULL_BAND_SIZE,
    corpus_length_pass,
    document_length_pass,
    full_band_window,
    segmented_length_pass,
    settings_shape_costs,
    window_cums,
)
from services.sentence_align.aligners.lexical_settings import LexicalSettings
from services.sentence_align.dp import banded as dp
from services.sentence_align.dp import batched

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary


# Bead shapes of the coarse exhaustive pass (see ``coarse_cells``). 1-2 and 2-1 as well cost
# more time and found the same paths (benchmarks/results/tuning_history.md, COARSE_SHAPES).
COARSE_SHAPES = frozenset({(1, 0), (0, 1), (1, 1)})


def confident_pairs(beads: Sequence[Bead], share: float, limit: int) -> list[tuple[int, int]]:
    """Sentence pairs of the cheapest ``share`` of 1-1 beads, at most ``limit``, in order."""
    one_to_one = [bead for bead in beads if bead.shape == (1, 1)]
    if not one_to_one:
        return []
    threshold = float(np.quantile([bead.cost for bead in one_to_one], share))
    pairs = [(bead.src[0], bead.tgt[0]) for bead in one_to_one if bead.cost <= threshold]
    step = max(1, -(-len(pairs) // limit))  # evenly thinned, deterministic
    return pairs[::step]


def anchor_cuts(beads: Sequence[Bead], window: int) -> list[tuple[int, int]]:
    """Cut points (i, j) after anchor beads: cheap 1-1 beads following a 1-1 bead, one per
    ``window`` sentences a side (2 * ``window`` on both sides together, so that swapping the
    sides swaps the cuts: counted on the source side alone, they moved, and the beads of a
    long document did not mirror); always starts with (0, 0) and ends with (n, m)."""
    one_to_one_costs = [bead.cost for bead in beads if bead.shape == (1, 1)]
    threshold = float(np.median(one_to_one_costs)) if one_to_one_costs else 0.0
    cuts = [(0, 0)]
    i = j = 0
    previous_shape = (0, 0)
    for bead in beads:
        i += len(bead.src)
        j += len(bead.tgt)
        anchor = bead.shape == (1, 1) == previous_shape and bead.cost <= threshold
        if anchor and (i - cuts[-1][0]) + (j - cuts[-1][1]) >= 2 * window:
            cuts.append((i, j))
        previous_shape = bead.shape
    if cuts[-1] != (i, j):
        cuts.append((i, j))
    return cuts


def length_weights(settings: LexicalSettings, model: length.LengthModel) -> dp.FloatArray:
    shape_src, shape_tgt = dp.shape_arrays(model.shapes)
    deletion = (shape_src == 0) | (shape_tgt == 0)
    return np.where(deletion, settings.deletion_length_weight, settings.length_weight)


def _align_window(
    src_side: model1.EncodedSide,
    tgt_side: model1.EncodedSide,
    tables: tuple[model1.TranslationTable, model1.TranslationTable | None],
    model: length.LengthModel,
    settings: LexicalSettings,
    cums: tuple[dp.IntArray, dp.IntArray],
    path_cells: dp.IntArray,
    bounds: tuple[int, int, int, int],
    boundaries: tuple[dp.FloatArray, ...] | None = None,
    anchors: dp.IntArray | None = None,
    confidence: bool = False,
) -> list[Bead]:
    """Length + lexical pass in one window, near the first path; the margin doubles while
    the new path runs along the band's edge (the band must not cut the best path off).
    ``confidence``: the beads get their posterior probabilities (``length.run_dp``)."""
    x0, x1, y0, y1 = bounds
    n, m = x1 - x0, y1 - y0
    sides = (model1.slice_side(src_side, x0, x1), model1.slice_side(tgt_side, y0, y1))
    guides = [path_cells]
    if max(n, m) > FULL_BAND_SIZE and n * m <= settings.coarse_cells:
        coarse = replace(
            model,
            shapes=tuple(shape for shape in model.shapes if shape in COARSE_SHAPES),
            shape_cost=tuple(
                cost
                for shape, cost in zip(model.shapes, model.shape_cost, strict=True)
                if shape in COARSE_SHAPES
            ),
        )
        coarse_beads = lexical_dp(
            sides, tables, coarse, settings, cums, dp.full_band(n, m), boundaries, anchors
        )
        guides.append(length.beads_to_cells(coarse_beads))

    def band_at(margin: int) -> tuple[dp.IntArray, dp.IntArray]:
        if max(n, m) <= FULL_BAND_SIZE:
            return dp.full_band(n, m)  # small window: the whole table costs less than a band
        return dp.union_band([dp.band_around_path(cells, n, m, margin) for cells in guides])

    return length.widen_until_inside(
        band_at,
        lambda band: lexical_dp(
            sides, tables, model, settings, cums, band, boundaries, anchors, confidence
        ),
        settings.margin,
        m,
    )


def lexical_dp(
    sides: tuple[model1.EncodedSide, model1.EncodedSide],
    tables: tuple[model1.TranslationTable, model1.TranslationTable | None],
    model: length.LengthModel,
    settings: LexicalSettings,
    cums: tuple[dp.IntArray, dp.IntArray],
    band: tuple[dp.IntArray, dp.IntArray],
    boundaries: tuple[dp.FloatArray, ...] | None = None,
    anchors: dp.IntArray | None = None,
    confidence: bool = False,
) -> list[Bead]:
    """The length + lexical program of one window over ``band`` (with ``boundaries``: the
    window's sentence-end costs, ``boundary_costs``; ``anchors``: its anchor pairs;
    ``confidence``: posterior probabilities of the beads)."""
    llr, row_first = bead_llr.band_llr(
        *sides, tables, band, settings.epsilon, model.shapes, settings.diagonal
    )
    extra = -settings.lexical_weight * llr
    if boundaries is not None:
        extra += boundary_extra(band, row_first, model.shapes, boundaries)
    if anchors is not None and len(anchors) and settings.anchor_weight:
        extra += anchor_extra(band, row_first, model.shapes, anchors, settings.anchor_weight)
    return length.run_dp(
        cums[0], cums[1], model, band,
        extra=extra,
        extra_row=row_first,
        length_weight=length_weights(settings, model),
        confidence=confidence,
    )  # fmt: skip


@dataclass(frozen=True)
class KeptText:
    """Sentence pairs aligned before (a site's earlier pairs, ``site_lexicon``) as the
    passes keep them: their texts join the length pass (as the last one-pair windows) and
    the length model, while Model 1 keeps what their own training gave, each side's token
    counts (the background distribution's) and the expected counts of both directions
    (``model1.ExpectedCounts``): the text being aligned is trained on with them added, not
    retrained together with them (incremental EM, Neal & Hinton 1998), and only it is
    realigned by the lexical pass."""

    texts: tuple[tuple[str, str], ...]
    src: model1.KeptSide
    tgt: model1.KeptSide
    forward: model1.ExpectedCounts
    backward: model1.ExpectedCounts | None


def text_cues(
    src_side: model1.EncodedSide,
    tgt_side: model1.EncodedSide,
    settings: LexicalSettings,
    dictionary: BilingualDictionary | None,
) -> dict[tuple[int, int], float]:
    """Model 1's cue pairs of two vocabularies: identity, number and cognate cues, and the
    dictionary's pairs where one is given (the former keep their strength where both apply)."""
    cues = model1.cue_similarity(src_side.vocabulary, tgt_side.vocabulary)
    if dictionary is None:
        return cues
    return dictionary.cues(
        src_side.vocabulary, tgt_side.vocabulary,
        settings.dictionary_strength, settings.dictionary_min_length,
    ) | cues  # fmt: skip


def segments_length_pass(
    src: Sequence[str],
    tgt: Sequence[str],
    cums: tuple[dp.IntArray, dp.IntArray],
    cuts: Sequence[tuple[int, int]],
    settings: LexicalSettings,
) -> tuple[list[Bead], length.LengthModel]:
    """The first (length) pass inside fixed cut points, one model for all segments."""
    if settings.first_anchor_weight:
        return corpus_length_pass(src, tgt, *cums, cuts, settings)
    return segmented_length_pass(*cums, cuts, settings_shape_costs(settings))


def train_tables(
    src_side: model1.EncodedSide,
    tgt_side: model1.EncodedSide,
    pairs: Sequence[tuple[int, int]],
    cues: dict[tuple[int, int], float],
    settings: LexicalSettings,
    kept: KeptText | None = None,
) -> tuple[model1.TranslationTable, model1.TranslationTable | None]:
    """Model 1 t(e|f) (and t(f|e) when both directions count) on the training pairs (the
    confident 1-1 beads), ``kept``'s expected counts added."""
    forward = model1.train_model1(
        src_side, tgt_side, pairs, cues,
        cue_weight=settings.cue_weight, iterations=settings.em_iterations,
        kept=None if kept is None else kept.forward,
    )  # fmt: skip
    if not settings.both_directions:
        return forward, None
    backward = model1.train_model1(
        tgt_side, src_side, [(y, x) for x, y in pairs],
        {(e, f): value for (f, e), value in cues.items()}, cue_weight=settings.cue_weight,
        iterations=settings.em_iterations, kept=None if kept is None else kept.backward,
    )  # fmt: skip
    return forward, backward


def _within(bead: Bead, n_src: int, n_tgt: int) -> bool:
    return bool(bead.src and bead.src[0] < n_src) or bool(bead.tgt and bead.tgt[0] < n_tgt)


def align_two_pass(
    src: Sequence[str],
    tgt: Sequence[str],
    src_lang: str | None,
    tgt_lang: str | None,
    settings: LexicalSettings,
    segments: Sequence[tuple[int, int]] | None = None,
    dictionary: BilingualDictionary | None = None,
    kept: KeptText | None = None,
    realigned: tuple[int, int] | None = None,
) -> list[Bead]:
    """Length pass, Model 1 on its confident 1-1 beads, then windowed length+lexical pass.

    ``segments``: optional fixed cut points (i, j) from (0, 0) to (n, m) that no bead may
    cross (e.g. the aligned text chunks of one page pair); the length model and Model 1 are
    then shared by all segments and each segment is one window. ``dictionary``: its word
    pairs seed Model 1 as cues (``dictionary.BilingualDictionary.cues``). ``kept`` (with
    ``segments`` only): the last ``len(kept.texts)`` segments are its one-pair windows; they
    join the length pass, Model 1 keeps their counts (:class:`KeptText`), and the beads
    returned are those of the segments before them. ``realigned`` (with ``kept``): only the
    segments up to this cut point (i, j) are realigned and returned; those after it, up to
    the kept ones, are text Model 1 trains on with them (a site's pairs since its snapshot).
    """
    src_cum, tgt_cum = length.cumulative_lengths(src), length.cumulative_lengths(tgt)
    if segments is None:
        first, model = document_length_pass(src, tgt, src_cum, tgt_cum, settings)
        cuts = anchor_cuts(first, settings.window)
    else:
        cuts = list(segments)
        first, model = segments_length_pass(src, tgt, (src_cum, tgt_cum), cuts, settings)
    training = confident_pairs(first, settings.confident_share, settings.max_training_beads)
    if kept is not None and segments is not None:
        # From here on the text before the kept pairs' windows alone: its training pairs
        # are those the whole length pass found confident; the lexical pass realigns the
        # first ``realigned`` windows of it.
        cuts = cuts[: len(cuts) - len(kept.texts)]
        n_src, n_tgt = cuts[-1]
        training = [(x, y) for x, y in training if x < n_src]
        trained = (src[:n_src], tgt[:n_tgt])
        x_end, y_end = cuts[-1] if realigned is None else realigned
        cuts = [cut for cut in cuts if cut[0] <= x_end and cut[1] <= y_end]
        first = [bead for bead in first if _within(bead, x_end, y_end)]
        src, tgt = src[:x_end], tgt[:y_end]
        src_cum, tgt_cum = src_cum[: x_end + 1], tgt_cum[: y_end + 1]
    else:
        kept = None
        trained = (src, tgt)
    src_side = model1.encode(trained[0], src_lang, kept=None if kept is None else kept.src)
    tgt_side = model1.encode(trained[1], tgt_lang, kept=None if kept is None else kept.tgt)
    cues = text_cues(src_side, tgt_side, settings, dictionary)
    tables = train_tables(src_side, tgt_side, training, cues, settings, kept)
    if settings.max_bead_size:
        model = model.with_shapes(
            settings.max_bead_size, settings.sentence_cost,
            cheap_deletions=settings.cheap_deletions,
        )  # fmt: skip
    sides = (src_side, tgt_side)
    # Sentence classes only when the boundary (and deletion) models are on: they cost a
    # character scan of every sentence (a quarter of a page pair's time otherwise).
    classes = (end_classes(src), end_classes(tgt)) if settings.boundary_weight else None
    debris_classes = (
        (deletion_classes(src), deletion_classes(tgt))
        if settings.boundary_weight and settings.deletion_weight
        else None
    )

    def boundaries(path: Sequence[Bead], round_: int) -> tuple[dp.FloatArray, ...] | None:
        if not settings.boundary_weight or round_ < settings.boundary_from:
            return None
        assert classes is not None
        costs = tuple(
            boundary_costs(side_classes, runs, settings.boundary_weight)
            for side_classes, runs in zip(
                classes, ([bead.src for bead in path], [bead.tgt for bead in path]), strict=True
            )
        )
        if not settings.deletion_weight:
            return costs
        assert debris_classes is not None
        left_out = (
            np.asarray([bead.src[0] for bead in path if not bead.tgt], dtype=np.int64),
            np.asarray([bead.tgt[0] for bead in path if not bead.src], dtype=np.int64),
        )
        return costs + tuple(
            deletion_costs(side_classes, deleted, settings.deletion_weight)
            for side_classes, deleted in zip(debris_classes, left_out, strict=True)
        )

    # Anchor tokens are counted in each window between the cuts (each document or chunk),
    # in the window's own sentence numbers.
    anchors = (
        [anchor_tokens(src[x0:x1], tgt[y0:y1]) for (x0, y0), (x1, y1) in itertools.pairwise(cuts)]
        if settings.anchor_weight
        else None
    )
    # The last pass's beads carry their posterior probabilities (bead confidence).
    aligned = _lexical_pass(
        sides, tables, model, settings, (src_cum, tgt_cum), cuts, first, boundaries(first, 0),
        anchors, confidence=settings.refinements == 0,
    )  # fmt: skip
    for round_ in range(1, settings.refinements + 1):
        # Refinement: Model 1 again, now on the confident 1-1 beads of the lexical pass
        # (more accurate than the length pass's), and realign near the new path.
        refined = confident_pairs(aligned, settings.refinement_share, settings.max_training_beads)
        tables = train_tables(src_side, tgt_side, refined, cues, settings, kept)
        refining = replace(
            settings, margin=settings.refinement_margin, diagonal=settings.refinement_diagonal
        )
        aligned = _lexical_pass(
            sides, tables, model, refining, (src_cum, tgt_cum), cuts, aligned,
            boundaries(aligned, round_), anchors, confidence=round_ == settings.refinements,
        )  # fmt: skip
    return aligned


def _lexical_pass(
    sides: tuple[model1.EncodedSide, model1.EncodedSide],
    tables: tuple[model1.TranslationTable, model1.TranslationTable | None],
    model: length.LengthModel,
    settings: LexicalSettings,
    cums: tuple[dp.IntArray, dp.IntArray],
    cuts: Sequence[tuple[int, int]],
    path: Sequence[Bead],
    boundaries: tuple[dp.FloatArray, ...] | None = None,
    anchors: Sequence[dp.IntArray] | None = None,
    *,
    confidence: bool = False,
) -> list[Bead]:
    """Length + lexical alignment of every window between the cuts, near ``path``
    (``boundaries``: sentence-end costs of the two sides, ``boundary_costs``; ``anchors``:
    each window's anchor pairs in its own sentence numbers, ``anchor_tokens``;
    ``confidence``: the beads get their posterior probabilities)."""
    src_cum, tgt_cum = cums
    windows = [(x0, x1, y0, y1) for (x0, y0), (x1, y1) in itertools.pairwise(cuts)]
    # Without boundary or anchor costs, the small windows (the full band, no coarse pass, no
    # band widening) go through one compiled call; the rest one by one, near the path.
    batchable = boundaries is None and anchors is None
    small = [w for w in windows if full_band_window(w)] if batchable else []
    banded = sum(x0 < x1 and y0 < y1 for x0, x1, y0, y1 in windows) > len(small)
    cells = length.beads_to_cells(path) if banded else np.zeros((0, 2), dtype=np.int64)
    in_one_call = iter(
        batched.lexical_windows(
            sides, tables, model, (settings.epsilon, settings.diagonal, settings.lexical_weight),
            length_weights(settings, model), cums, small, confidence,
        )
    )  # fmt: skip
    aligned: list[Bead] = []
    for k, (x0, x1, y0, y1) in enumerate(windows):
        if x0 == x1 or y0 == y1:
            # One side empty: the only path, certain.
            aligned += unaligned_beads(range(x0, x1), range(y0, y1), 1.0 if confidence else None)
            continue
        if batchable and full_band_window((x0, x1, y0, y1)):
            aligned += next(in_one_call)
            continue
        # Path cells of the window: rows x0..x1 (the path's rows never decrease).
        first_cell = np.searchsorted(cells[:, 0], x0, side="left")
        window_cells = cells[first_cell : np.searchsorted(cells[:, 0], x1, side="right")]
        window_cells = window_cells[(window_cells[:, 1] >= y0) & (window_cells[:, 1] <= y1)]
        beads = _align_window(
            *sides, tables, model, settings,
            window_cums(src_cum, tgt_cum, (x0, x1, y0, y1)),
            window_cells - np.array([x0, y0]), (x0, x1, y0, y1),
            None
            if boundaries is None
            else tuple(
                costs[x0:x1] if side % 2 == 0 else costs[y0:y1]
                for side, costs in enumerate(boundaries)
            ),
            None if anchors is None else anchors[k],
            confidence,
        )  # fmt: skip
        aligned.extend(length.shift_beads(beads, x0, y0))
    return aligned
