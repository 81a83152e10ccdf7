"""Sentence-end and deletion models of the lexical passes (unsupervised, hard EM): the odds
that a sentence of a class (its final mark, or debris) ends inside a bead or is left out,
estimated from the previous pass's beads, as extra costs of the beads of a band."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from services.sentence_align.dp import banded as dp

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


def boundary_extra(
    band: tuple[dp.IntArray, dp.IntArray],
    row_first: dp.IntArray,
    shapes: Sequence[tuple[int, int]],
    boundaries: tuple[dp.FloatArray, ...],
) -> dp.FloatArray:
    """(cells x shapes) summed costs of the bead-internal sentence boundaries of every bead
    ending in a band cell: a bead of a source sentences ending at row i has the boundaries
    after sentences i-a .. i-2 (likewise on the target side)."""
    rows, columns = dp.band_cell_indices(band, row_first)
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
