"""Anchor tokens: sentence pairs sharing a rare identical name or number (isolated cognates,
after Simard & Plamondon 1998), the cost of the beads that separate them, and the pairs on
every longest chain of them (the anchored length pass of ``length_passes``)."""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from services.sentence_align.dp import banded as dp

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


def token_occurrences(sentences: Sequence[str]) -> dict[str, list[int]]:
    """Each anchor token (a number of 2+ characters, or a capitalised word of 4+ letters,
    punctuation stripped) with the sentence of each of its occurrences, in order."""
    found: dict[str, list[int]] = {}
    for index, sentence in enumerate(sentences):
        for piece in (p for raw in sentence.split() for p in _anchor_pieces(raw)):
            token = piece.strip(ANCHOR_STRIP)
            digit = any(char.isdigit() for char in token)
            if (digit and len(token) >= 2) or (len(token) >= 4 and token[0].isupper()):
                found.setdefault(token, []).append(index)
    return found


def anchor_tokens(src: Sequence[str], tgt: Sequence[str]) -> dp.IntArray:
    """Sentence pairs (i, j) sharing an anchor token: a number, or a capitalised word of 4+
    letters, written the same on both sides and found once on each side (isolated cognates
    as anchor points, after Simard & Plamondon 1998: names, years, heights, page numbers).
    A bead that takes one sentence of such a pair without the other pays
    ``LexicalSettings.anchor_weight`` (``anchor_extra``)."""
    src_found, tgt_found = token_occurrences(src), token_occurrences(tgt)
    pairs = [
        (where[0], tgt_found[token][0])
        for token, where in src_found.items()
        if len(where) == 1 and len(tgt_found.get(token, ())) == 1
    ]
    return np.asarray(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def anchor_extra(
    band: tuple[dp.IntArray, dp.IntArray],
    row_first: dp.IntArray,
    shapes: Sequence[tuple[int, int]],
    anchors: dp.IntArray,
    weight: float,
) -> dp.FloatArray:
    """(cells x shapes) cost of the anchor pairs (i, j) that a bead ending in each cell
    separates: ``weight`` for each anchor sentence inside the bead whose partner is outside,
    i.e. weight * (anchors with i inside + anchors with j inside - 2 * anchors with both)."""
    rows, columns = dp.band_cell_indices(band, row_first)
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
