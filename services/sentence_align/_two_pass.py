"""Moore's two-pass recipe shared by the lexicon and hybrid aligners (ALGORITHMS.md §2).

(1) length-based alignment of the whole document (banded, linear memory); (2) its
confident 1-1 beads train IBM Model 1; (3) confident 1-1 beads spaced every ``window``
sentences become anchors that cut the document into independent windows, and each window
is realigned near the first path with length and lexical costs together. Windows keep
the lexical tables small, so 100,000-sentence documents run in bounded memory.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from services.lexical import model1
from services.sentence_align import _banded_dp as dp
from services.sentence_align import _batched, bead_llr, length
from services.sentence_align.beads import Bead, unaligned_beads

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

# Windows with at most this many sentences a side are searched in full (exact and cheaper
# than building a band); page chunks and short documents take this path.
FULL_BAND_SIZE = 24
# Bead shapes of the coarse exhaustive pass (see ``coarse_cells``). With 1-2 and 2-1 as well
# it cost 38% more (test documents: 2,620 instead of 3,609 sentences/s of CPU) and found
# the same paths there and in tests/unit/sentence_align/test_coarse_pass.py.
COARSE_SHAPES = frozenset({(1, 0), (0, 1), (1, 1)})


@dataclass(frozen=True)
class LexicalSettings:
    """How the second pass combines the length and lexical scores."""

    epsilon: float  # background share in p(e|S); bead_llr.MOORE_EPSILON for Model 1 with NULL
    both_directions: bool  # LLR(T|S) + LLR(S|T) instead of LLR(T|S) alone
    lexical_weight: float
    length_weight: float = 1.0
    deletion_length_weight: float = 1.0  # weight of the length cost of 1-0 and 0-1 beads
    margin: int = 4  # sentences either side of the first path searched in pass 2 (dev: 4 = 6)
    confident_share: float = 0.8  # cheapest share of 1-1 beads that trains Model 1
    max_training_beads: int = 5000
    window: int = 2000  # sentences between anchors
    cue_weight: float = 1.0
    # Pass 2 bead shapes: 0 = the length model's (beads.BEAD_SHAPES); k = every x-y shape
    # with x + y <= k (beads.bead_shapes), new shapes priced ``sentence_cost`` per sentence
    # beyond a 1-1 bead (LengthModel.with_shapes).
    max_bead_size: int = 0
    sentence_cost: float = 2.3
    # With max_bead_size: 1-0 and 0-1 priced like one extra sentence of a 1-1 bead
    # (LengthModel.with_shapes) instead of Gale-Church's Pr = 0.0099.
    cheap_deletions: bool = False
    # Diagonal prior inside beads of several sentences on both sides (bead_llr's diagonal kernel,
    # IBM Model 2 style by sentence); 0: Model 1's uniform choice of the explaining word.
    diagonal: float = 0.0
    refinement_diagonal: float = 0.0  # ``diagonal`` of the refinement rounds
    refinements: int = 0  # extra rounds: Model 1 on the lexical pass's beads, realign
    em_iterations: int = 5  # EM iterations of Model 1
    refinement_margin: int = 4  # margin around the lexical pass's path in refinements
    refinement_share: float = 0.8  # confident_share of the refinements' Model 1 training
    # Windows of at most this many DP cells (n x m) also get a coarse exhaustive pass (the
    # COARSE_SHAPES only) and the band covers its path too: the length pass's path can lie
    # far from the lexical optimum, which a band around it alone then misses. 0: off.
    coarse_cells: int = 0
    # Weight of the sentence-end model (``boundary_costs``): a sentence boundary inside a
    # bead costs -log of the odds that a sentence with this final punctuation mark ends
    # inside a bead, relative to the odds of any sentence, both estimated from the previous
    # pass's beads; applied in the lexical passes from ``boundary_from`` on (0 = the
    # lexical pass, estimated on the length pass's beads; 1 = the refinements). 0: off.
    boundary_weight: float = 0.0
    boundary_from: int = 1
    # Weight of the deletion model (``deletion_costs``): a 1-0 or 0-1 bead costs -log of the
    # odds that a sentence of its class (sentence end, or debris) is left out, relative to
    # any sentence, estimated from the previous pass's beads (with the boundary model).
    deletion_weight: float = 0.0
    # With a bilingual dictionary (``dictionary``): its pairs become Model 1 cues of this
    # strength (times ``cue_weight``), for words of at least ``dictionary_min_length`` letters.
    dictionary_strength: float = 0.25
    dictionary_min_length: int = 4
    # Weight of the anchor-token model (``anchor_tokens``): each end of a pair of sentences
    # sharing a rare identical name or number that a bead separates costs this much.
    anchor_weight: float = 0.0
    # Weight of the anchor-token model in the length pass (``anchored_first_run``): the
    # band also covers the longest chain of anchor pairs, and separating a pair costs this.
    first_anchor_weight: float = 0.0
    first_anchor_margin: int = 20
    # Affine deletion runs in the length pass (``length.LengthModel.gap_extension``); None: off.
    first_gap_extension: float | None = None


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


# Sentence-end classes of the boundary model: the last character of the sentence when it is
# one of these, else "other". (French text splits at ";" where German often has ","; German
# splits at ":" before lists and references.)
END_MARKS = ".:;!?,"
# Pseudo-counts pulling each class's odds toward the odds of all sentences (short documents).
BOUNDARY_PRIOR_COUNT = 10.0


def end_classes(sentences: Sequence[str]) -> dp.IntArray:
    """Class of each sentence's end: index in END_MARKS, or len(END_MARKS) for the rest."""
    classes = []
    for sentence in sentences:
        stripped = sentence.rstrip()
        mark = END_MARKS.find(stripped[-1]) if stripped else -1
        classes.append(mark if mark >= 0 else len(END_MARKS))
    return np.asarray(classes, dtype=np.int64)


def boundary_costs(
    classes: dp.IntArray, members: Sequence[tuple[int, ...]], weight: float
) -> dp.FloatArray:
    """Cost of a bead boundary after each sentence of one side, from the beads' sentence
    runs ``members`` (unsupervised, hard EM): -weight * log(odds(c) / odds(all)), where
    odds(c) is the share of class-c sentences that end inside a bead (not a bead's last)
    over the share that end a bead, smoothed toward the share over all sentences."""
    inside = np.asarray([k for run in members for k in run[:-1]], dtype=np.int64)
    return _class_costs(classes, inside, weight)


def _class_costs(classes: dp.IntArray, hits: dp.IntArray, weight: float) -> dp.FloatArray:
    """-weight * log(odds(c) / odds(all)) for each sentence's class c, where odds(c) is the
    share of class-c sentences among ``hits`` (indices) over the share not, smoothed with
    BOUNDARY_PRIOR_COUNT pseudo-counts toward the share over all sentences."""
    n_classes = len(END_MARKS) + 2
    hit = np.bincount(classes[hits], minlength=n_classes).astype(np.float64)
    total = np.bincount(classes, minlength=n_classes).astype(np.float64)
    overall = (hit.sum() + 0.5) / (total.sum() + 1.0)
    share = (hit + BOUNDARY_PRIOR_COUNT * overall) / (total + BOUNDARY_PRIOR_COUNT)
    log_odds = np.log(share / (1.0 - share)) - math.log(overall / (1.0 - overall))
    result: dp.FloatArray = -weight * log_odds[classes]
    return result


# Sentences with fewer letters than this are "debris" in the deletion model (OCR noise,
# page numbers, lone marks).
DEBRIS_LETTERS = 3


def deletion_classes(sentences: Sequence[str]) -> dp.IntArray:
    """End class of each sentence (``end_classes``), or len(END_MARKS) + 1 for debris."""
    classes = end_classes(sentences)
    debris = [sum(char.isalpha() for char in sentence) < DEBRIS_LETTERS for sentence in sentences]
    classes[np.asarray(debris, dtype=bool)] = len(END_MARKS) + 1
    return classes


def deletion_costs(classes: dp.IntArray, deleted: dp.IntArray, weight: float) -> dp.FloatArray:
    """Extra cost of leaving each sentence out (a 1-0 or 0-1 bead), from the sentences the
    beads left out (``deleted``, indices; unsupervised, hard EM): -weight * log(odds(c) /
    odds(all)), odds(c) = share of class-c sentences left out over the share aligned,
    smoothed toward the share over all sentences."""
    return _class_costs(classes, deleted, weight)


def _band_cells(
    band: tuple[dp.IntArray, dp.IntArray], row_first: dp.IntArray
) -> tuple[dp.IntArray, dp.IntArray]:
    """Row and column of every band cell, in the program's cell order (row by row)."""
    low, high = band
    rows = np.repeat(np.arange(len(low)), high - low + 1)
    return rows, np.arange(len(rows)) - row_first[rows] + low[rows]


def _boundary_extra(
    band: tuple[dp.IntArray, dp.IntArray],
    row_first: dp.IntArray,
    shapes: Sequence[tuple[int, int]],
    boundaries: tuple[dp.FloatArray, ...],
) -> dp.FloatArray:
    """(cells x shapes) summed costs of the bead-internal sentence boundaries of every bead
    ending in a band cell: a bead of a source sentences ending at row i has the boundaries
    after sentences i-a .. i-2 (likewise on the target side)."""
    rows, columns = _band_cells(band, row_first)
    shape_src, shape_tgt = dp.shape_arrays(tuple(shapes))
    extra = np.zeros((len(rows), len(shape_src)))
    for cell_index, sizes, costs in (
        (rows, shape_src, boundaries[0]),
        (columns, shape_tgt, boundaries[1]),
    ):
        prefix = np.concatenate([[0.0], np.cumsum(costs)])
        last = np.maximum(cell_index - 1, 0)[:, None]
        first = np.clip(cell_index[:, None] - sizes[None, :], 0, None)
        inner = np.where(sizes[None, :] >= 2, prefix[last] - prefix[np.minimum(first, last)], 0.0)
        extra += inner
    for k, (a, b) in enumerate(shapes):
        if (a, b) == (1, 0) and len(boundaries) > 2:
            extra[:, k] += boundaries[2][np.maximum(rows - 1, 0)]
        elif (a, b) == (0, 1) and len(boundaries) > 2:
            extra[:, k] += boundaries[3][np.maximum(columns - 1, 0)]
    return extra


# Anchor tokens (``anchor_tokens``): punctuation stripped from either end of a token first.
ANCHOR_STRIP = ".,;:!?()[]{}«»\"'-"
# Chinese and Japanese characters (and the full-width forms, which NFKC turns into ASCII):
# text in those scripts has no spaces, so its numbers and Latin-script names are the runs
# between such characters ("于2006年由COBE" -> "2006", "COBE").
_CJK_RUN = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]+")


def _anchor_pieces(raw: str) -> list[str]:
    """A whitespace token, or its non-CJK runs when it holds CJK characters (NFKC first)."""
    if raw.isascii() or not _CJK_RUN.search(raw):
        return [raw]
    return [piece for piece in _CJK_RUN.split(unicodedata.normalize("NFKC", raw)) if piece]


def anchor_tokens(src: Sequence[str], tgt: Sequence[str]) -> dp.IntArray:
    """Sentence pairs (i, j) sharing an anchor token: a number, or a capitalised word of 4+
    letters, written the same on both sides and found once on each side (isolated cognates
    as anchor points, after Simard & Plamondon 1998: names, years, heights, page numbers).
    A bead that takes one sentence of such a pair without the other pays
    ``LexicalSettings.anchor_weight`` (``_anchor_extra``)."""

    def occurrences(sentences: Sequence[str]) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for index, sentence in enumerate(sentences):
            for piece in (p for raw in sentence.split() for p in _anchor_pieces(raw)):
                token = piece.strip(ANCHOR_STRIP)
                digit = any(char.isdigit() for char in token)
                if (digit and len(token) >= 2) or (len(token) >= 4 and token[0].isupper()):
                    found.setdefault(token, []).append(index)
        return found

    src_found, tgt_found = occurrences(src), occurrences(tgt)
    pairs = [
        (where[0], tgt_found[token][0])
        for token, where in src_found.items()
        if len(where) == 1 and len(tgt_found.get(token, ())) == 1
    ]
    return np.asarray(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def _anchor_extra(
    band: tuple[dp.IntArray, dp.IntArray],
    row_first: dp.IntArray,
    shapes: Sequence[tuple[int, int]],
    anchors: dp.IntArray,
    weight: float,
) -> dp.FloatArray:
    """(cells x shapes) cost of the anchor pairs (i, j) that a bead ending in each cell
    separates: ``weight`` for each anchor sentence inside the bead whose partner is outside,
    i.e. weight * (anchors with i inside + anchors with j inside - 2 * anchors with both)."""
    rows, columns = _band_cells(band, row_first)
    shape_src, shape_tgt = dp.shape_arrays(tuple(shapes))
    extra = np.zeros((len(rows), len(shape_src)))
    for cell_index, sizes, ends in (
        (rows, shape_src, anchors[:, 0]),
        (columns, shape_tgt, anchors[:, 1]),
    ):
        # Anchors among a bead's sentences cell_index - size .. cell_index - 1, by prefix sums.
        counts = np.bincount(ends, minlength=int(cell_index.max()) + 1)
        prefix = np.concatenate([[0], np.cumsum(counts)])
        first = np.clip(cell_index[:, None] - sizes[None, :], 0, None)
        extra += prefix[cell_index][:, None] - prefix[first]
    # Anchors with both sentences inside: only cells up to the largest shape past an anchor.
    low, high = band
    steps_src = np.arange(1, int(shape_src.max()) + 1)
    steps_tgt = np.arange(1, int(shape_tgt.max()) + 1)
    step_i, step_j = (grid.ravel() for grid in np.meshgrid(steps_src, steps_tgt, indexing="ij"))
    end_i = (anchors[:, 0][:, None] + step_i[None, :]).ravel()
    end_j = (anchors[:, 1][:, None] + step_j[None, :]).ravel()
    row = np.minimum(end_i, len(low) - 1)
    inside = (end_i < len(low)) & (end_j >= low[row]) & (end_j <= high[row])
    cells = row_first[row[inside]] + end_j[inside] - low[row[inside]]
    both = (shape_src[None, :] >= np.tile(step_i, len(anchors))[inside][:, None]) & (
        shape_tgt[None, :] >= np.tile(step_j, len(anchors))[inside][:, None]
    )
    np.add.at(extra, cells, -2.0 * both)
    result: dp.FloatArray = weight * extra
    return result


def _chain_lengths(points: dp.IntArray) -> dp.IntArray:
    """For points sorted by (i, j): the length of the longest chain non-decreasing in both
    coordinates that ends at each point (patience sorting: ``tails[k]`` is the smallest end
    j of a chain of k + 1 points so far)."""
    tails: list[int] = []
    lengths = np.empty(len(points), dtype=np.int64)
    for index, j in enumerate(points[:, 1].tolist()):
        k = bisect.bisect_right(tails, j)
        if k == len(tails):
            tails.append(j)
        else:
            tails[k] = j
        lengths[index] = k + 1
    return lengths


def anchor_chain(pairs: dp.IntArray) -> dp.IntArray:
    """The anchor pairs (i, j) that lie on every longest chain of pairs non-decreasing in
    both sides, in order. A pair is on some longest chain when the longest chain ending at
    it and the longest starting at it add up to the longest overall (+1); on every one when,
    besides, no other such pair has its position in the chain. The set does not depend on
    the order of the sides (swapping them swaps the pairs), unlike any one longest chain."""
    points = np.unique(pairs.reshape(-1, 2), axis=0)
    if len(points) == 0:
        return points
    ending = _chain_lengths(points)
    starting = _chain_lengths(-points[::-1])[::-1]
    on_longest = ending + starting - 1 == ending.max()
    levels = np.bincount(ending[on_longest])
    essential = on_longest & (levels[ending] == 1)
    result: dp.IntArray = points[essential]
    return result


def _row_first(band: tuple[dp.IntArray, dp.IntArray]) -> dp.IntArray:
    low, high = band
    return np.concatenate([[0], np.cumsum(high - low + 1)[:-1]]).astype(np.int64)


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
) -> length.FirstRun:
    """First run of the length pass made robust to a block of sentences missing on one
    side (the anchored length pass), which moves the path far from the diagonal where
    length costs alone do not follow it (on Text+Berg dev beads with 100 of 300 target
    sentences cut, hybrid strict F1 fell from 0.86 to 0.20). Three changes, all from the
    document itself:

    - the band covers the character diagonal and the pairs on every longest chain of anchor
      pairs (``anchor_chain``), with ``margin`` sentences around both;
    - a bead that separates an anchor pair pays ``weight`` per separated sentence
      (``_anchor_extra``, the anchor-token model);
    - c starts from the chain (``_chain_ratio``) instead of the total lengths, which the
      missing block skews, and deletion runs are affine (``gap_extension``,
      ``_banded_dp.banded_gap_dp``).

    Without chain pairs, or when the band would exceed ANCHORED_BAND_CELLS, it is the plain
    first run (``length.first_run``; without affine runs: alone they cost dev F1, 0.896 ->
    0.870). Its rerun searches near the first path with the same anchor costs.
    """
    n, m = len(src_cum) - 1, len(tgt_cum) - 1
    chain = anchor_chain(anchors)
    if len(chain) == 0:
        return length.first_run(src_cum, tgt_cum)
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
            row_first = _row_first(band)
            extra = _anchor_extra(band, row_first, model.shapes, anchors, weight)
            return length.run_dp(src_cum, tgt_cum, model, band, extra=extra, extra_row=row_first)

        return length.widen_until_inside(band_at, align, width, m, ANCHORED_BAND_CELLS)

    if dp.band_cells(first_band(margin)) > ANCHORED_BAND_CELLS:
        return length.first_run(src_cum, tgt_cum)
    ratio = _chain_ratio(src_cum, tgt_cum, chain_cells)
    first_model = (
        length.initial_model(src_cum, tgt_cum) if ratio is None else length.ratio_model(ratio)
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


def _length_weights(settings: LexicalSettings, model: length.LengthModel) -> dp.FloatArray:
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
        coarse_beads = _lexical_dp(
            sides, tables, coarse, settings, cums, dp.full_band(n, m), boundaries, anchors
        )
        guides.append(length.beads_to_cells(coarse_beads))

    def band_at(margin: int) -> tuple[dp.IntArray, dp.IntArray]:
        if max(n, m) <= FULL_BAND_SIZE:
            return dp.full_band(n, m)  # small window: the whole table costs less than a band
        return dp.union_band([dp.band_around_path(cells, n, m, margin) for cells in guides])

    return length.widen_until_inside(
        band_at,
        lambda band: _lexical_dp(
            sides, tables, model, settings, cums, band, boundaries, anchors, confidence
        ),
        settings.margin,
        m,
    )


def _lexical_dp(
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
        extra += _boundary_extra(band, row_first, model.shapes, boundaries)
    if anchors is not None and len(anchors) and settings.anchor_weight:
        extra += _anchor_extra(band, row_first, model.shapes, anchors, settings.anchor_weight)
    return length.run_dp(
        cums[0], cums[1], model, band,
        extra=extra,
        extra_row=row_first,
        length_weight=_length_weights(settings, model),
        confidence=confidence,
    )  # fmt: skip


def train_tables(
    src_side: model1.EncodedSide,
    tgt_side: model1.EncodedSide,
    path: Sequence[Bead],
    cues: dict[tuple[int, int], float],
    settings: LexicalSettings,
) -> tuple[model1.TranslationTable, model1.TranslationTable | None]:
    """Model 1 t(e|f) (and t(f|e) when both directions count) on the confident 1-1 beads."""
    pairs = confident_pairs(path, settings.confident_share, settings.max_training_beads)
    forward = model1.train_model1(
        src_side, tgt_side, pairs, cues,
        cue_weight=settings.cue_weight, iterations=settings.em_iterations,
    )  # fmt: skip
    if not settings.both_directions:
        return forward, None
    backward = model1.train_model1(
        tgt_side, src_side, [(y, x) for x, y in pairs],
        {(e, f): value for (f, e), value in cues.items()}, cue_weight=settings.cue_weight,
        iterations=settings.em_iterations,
    )  # fmt: skip
    return forward, backward


def _window_cums(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, window: tuple[int, int, int, int]
) -> tuple[dp.IntArray, dp.IntArray]:
    """The cumulative lengths of the window's sentences (x0..x1, y0..y1), from 0."""
    x0, x1, y0, y1 = window
    return src_cum[x0 : x1 + 1] - src_cum[x0], tgt_cum[y0 : y1 + 1] - tgt_cum[y0]


def _full_band_window(window: tuple[int, int, int, int]) -> bool:
    """A window with both sides non-empty and at most FULL_BAND_SIZE sentences a side."""
    x0, x1, y0, y1 = window
    return x0 < x1 and y0 < y1 and max(x1 - x0, y1 - y0) <= FULL_BAND_SIZE


def segmented_length_pass(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, cuts: Sequence[tuple[int, int]]
) -> tuple[list[Bead], length.LengthModel]:
    """Length pass inside fixed segments (cut points (i, j)) with one model for all of them:
    c from the total lengths, then c and s2 refitted on every segment's 1-1 beads."""

    windows = [(x0, x1, y0, y1) for (x0, y0), (x1, y1) in itertools.pairwise(cuts)]
    small = [window for window in windows if _full_band_window(window)]

    def run(model: length.LengthModel) -> list[Bead]:
        # Small windows (the full band) in one compiled call, the rest one by one.
        batched = iter(_batched.length_windows(src_cum, tgt_cum, model, small))
        beads: list[Bead] = []
        for x0, x1, y0, y1 in windows:
            if x0 == x1 or y0 == y1:
                beads += unaligned_beads(range(x0, x1), range(y0, y1))
            elif _full_band_window((x0, x1, y0, y1)):
                beads += next(batched)
            else:
                cums = _window_cums(src_cum, tgt_cum, (x0, x1, y0, y1))
                window = length.align_with_widening_band(*cums, model)
                beads += length.shift_beads(window, x0, y0)
        return beads

    first_model = length.initial_model(src_cum, tgt_cum)
    first = run(first_model)
    fitted = length.fit_model(src_cum, tgt_cum, first, first_model)
    return (first, first_model) if fitted == first_model else (run(fitted), fitted)


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
            settings.first_gap_extension,
        )  # fmt: skip
    return length.first_run(src_cum, tgt_cum)


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
        cums = _window_cums(src_cum, tgt_cum, (x0, x1, y0, y1))
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
    model = length.initial_model(src_cum, tgt_cum)
    if fitted is not None:
        model = replace(model, ratio=fitted[0], variance=fitted[1])
    return beads, model


def align_two_pass(
    src: Sequence[str],
    tgt: Sequence[str],
    src_lang: str | None,
    tgt_lang: str | None,
    settings: LexicalSettings,
    segments: Sequence[tuple[int, int]] | None = None,
    dictionary: BilingualDictionary | None = None,
) -> list[Bead]:
    """Length pass, Model 1 on its confident 1-1 beads, then windowed length+lexical pass.

    ``segments``: optional fixed cut points (i, j) from (0, 0) to (n, m) that no bead may
    cross (e.g. the aligned text chunks of one page pair); the length model and Model 1 are
    then shared by all segments and each segment is one window. ``dictionary``: its word
    pairs seed Model 1 as cues (``dictionary.BilingualDictionary.cues``).
    """
    src_cum, tgt_cum = length.cumulative_lengths(src), length.cumulative_lengths(tgt)
    if segments is None:
        first, model = document_length_pass(src, tgt, src_cum, tgt_cum, settings)
        cuts = anchor_cuts(first, settings.window)
    else:
        cuts = list(segments)
        first, model = (
            corpus_length_pass(src, tgt, src_cum, tgt_cum, cuts, settings)
            if settings.first_anchor_weight
            else segmented_length_pass(src_cum, tgt_cum, cuts)
        )
    src_side, tgt_side = model1.encode(src, src_lang), model1.encode(tgt, tgt_lang)
    cues = model1.cue_similarity(src_side.vocabulary, tgt_side.vocabulary)
    if dictionary is not None:
        # Identity, number and cognate cues keep their strength where both apply.
        cues = dictionary.cues(
            src_side.vocabulary, tgt_side.vocabulary,
            settings.dictionary_strength, settings.dictionary_min_length,
        ) | cues  # fmt: skip
    tables = train_tables(src_side, tgt_side, first, cues, settings)
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
        tables = train_tables(
            src_side, tgt_side, aligned, cues,
            replace(settings, confident_share=settings.refinement_share),
        )  # fmt: skip
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
    small = [w for w in windows if _full_band_window(w)] if batchable else []
    banded = sum(x0 < x1 and y0 < y1 for x0, x1, y0, y1 in windows) > len(small)
    cells = length.beads_to_cells(path) if banded else np.zeros((0, 2), dtype=np.int64)
    batched = iter(
        _batched.lexical_windows(
            sides, tables, model, (settings.epsilon, settings.diagonal, settings.lexical_weight),
            _length_weights(settings, model), cums, small, confidence,
        )
    )  # fmt: skip
    aligned: list[Bead] = []
    for k, (x0, x1, y0, y1) in enumerate(windows):
        if x0 == x1 or y0 == y1:
            # One side empty: the only path, certain.
            aligned += unaligned_beads(range(x0, x1), range(y0, y1), 1.0 if confidence else None)
            continue
        if batchable and _full_band_window((x0, x1, y0, y1)):
            aligned += next(batched)
            continue
        # Path cells of the window: rows x0..x1 (the path's rows never decrease).
        first_cell = np.searchsorted(cells[:, 0], x0, side="left")
        window_cells = cells[first_cell : np.searchsorted(cells[:, 0], x1, side="right")]
        window_cells = window_cells[(window_cells[:, 1] >= y0) & (window_cells[:, 1] <= y1)]
        beads = _align_window(
            *sides, tables, model, settings,
            _window_cums(src_cum, tgt_cum, (x0, x1, y0, y1)),
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
