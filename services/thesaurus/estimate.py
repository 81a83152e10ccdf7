"""Estimating undefined class similarities from the thesaurus, round by round up the tree.

ALGORITHMS.md §4 step 4 (Shinnou section 2.4, Fig. 1). For an undefined SIM(Ca, Cb), with
G_k(C) the leaves under C's ancestor k steps up (its siblings when k = 1):

    one-sided (Fig. 1a): mean of the defined SIM(Ca', Cb) and SIM(Ca, Cb'),
                         Ca' ∈ G_k(Ca), Cb' ∈ G_k(Cb)
    pairs     (Fig. 1b): mean of the defined SIM(Ca', Cb') over G_k(Ca) × G_k(Cb)

k = 1 gives the paper's 1st and 2nd estimation, k = 2 (grandparents) the 3rd and 4th, and so
on until k reaches the root, so round r = 2k − 1 (one-sided) or 2k (pairs). Decisions:

* Each process reads only the values defined before it started (so the result does not depend
  on the order of the pairs) and may use values estimated in earlier rounds.
* The diagonal SIM(C, C) is neither used nor estimated: the paper's pairs are of distinct
  classes. Leaves shallower than k use the root as their k-th ancestor.
* Diagnostics (section 3): the coefficient of variation (population std / mean) of the values
  averaged by each 1st-round estimate, averaged over the estimated pairs that used two or more
  values with a positive mean; and the CV of all corpus-defined values (paper: 0.384 vs 2.125).

Each process is two passes of numba kernels over the L × L matrix (group sums per row, then
the fill), so memory stays O(L × groups) beyond the L × L model itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from services.thesaurus.similarity import (
    CORPUS_ROUND,
    UNDEFINED_ROUND,
    Float32Array,
    FloatArray,
    RoundArray,
    SimilarityModel,
)
from services.thesaurus.thesauri import Thesaurus
from shared.errors import InvalidInput

IntArray = npt.NDArray[np.int64]
_BLOCK = 512  # rows per block when scanning an L × L matrix from numpy


@dataclass(frozen=True, eq=False)
class Estimation:
    """Values after estimation, the round that defined each, and the paper's CV diagnostics."""

    values: Float32Array
    rounds: RoundArray
    first_round_cv: float  # NaN when the 1st round estimated nothing from 2+ values
    first_round_cv_pairs: int  # pairs that entered that average
    corpus_cv: float


def _kernels() -> tuple[Any, ...]:
    # Compiled lazily (and cached on disk) so importing this module compiles nothing.
    import numba

    @numba.njit(parallel=True, cache=True)
    def row_group_sums(
        values: Float32Array, rounds: RoundArray, label: IntArray, groups: int
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        # R[a, g] = Σ_{b ∈ g, b ≠ a, SIM(a, b) defined} SIM(a, b), with counts and squares.
        size = values.shape[0]
        sums = np.zeros((size, groups))
        counts = np.zeros((size, groups))
        squares = np.zeros((size, groups))
        for a in numba.prange(size):
            for b in range(size):
                if a != b and rounds[a, b] != UNDEFINED_ROUND:
                    value = float(values[a, b])
                    sums[a, label[b]] += value
                    counts[a, label[b]] += 1.0
                    squares[a, label[b]] += value * value
        return sums, counts, squares

    @numba.njit(parallel=True, cache=True)
    def fill_one_sided(
        values: Float32Array,
        rounds: RoundArray,
        open_cells: IntArray,
        label: IntArray,
        sums: FloatArray,
        counts: FloatArray,
        squares: FloatArray,
        sums_t: FloatArray,
        counts_t: FloatArray,
        squares_t: FloatArray,
        round_tag: int,
        added_sums: FloatArray,
        added_counts: FloatArray,
    ) -> FloatArray:
        # Fig. 1a: Σ_{a' ∈ G(a)} SIM(a', b) = R[b, G(a)] by symmetry, plus R[a, G(b)].
        # Every row writes only its own cells and reads only R: the round is order-free.
        # What a row fills is added to its own row of ``added_*`` for the next process.
        # ``*_t`` are the transposes (groups × L), so R[b, G(a)] is read along a row.
        size = values.shape[0]
        cv = np.zeros((size, 2))
        for a in numba.prange(size):
            if open_cells[a] == 0:
                continue
            for b in range(size):
                if a == b or rounds[a, b] != UNDEFINED_ROUND:
                    continue
                used = counts[a, label[b]] + counts_t[label[a], b]
                if used == 0.0:
                    continue
                total = sums[a, label[b]] + sums_t[label[a], b]
                mean = total / used
                values[a, b] = mean
                rounds[a, b] = round_tag
                open_cells[a] -= 1
                added_sums[a, label[b]] += float(values[a, b])
                added_counts[a, label[b]] += 1.0
                if used >= 2.0 and mean > 0.0:
                    square = squares[a, label[b]] + squares_t[label[a], b]
                    cv[a, 0] += np.sqrt(max(square / used - mean * mean, 0.0)) / mean
                    cv[a, 1] += 1.0
        return cv

    @numba.njit(parallel=True, cache=True)
    def fill_pairs(
        values: Float32Array,
        rounds: RoundArray,
        open_cells: IntArray,
        label: IntArray,
        block_sums: FloatArray,
        block_counts: FloatArray,
        round_tag: int,
        row_sums: FloatArray,
        row_counts: FloatArray,
    ) -> None:
        # Fig. 1b: the mean of the defined SIM over G(a) × G(b); R is updated in place.
        size = values.shape[0]
        for a in numba.prange(size):
            if open_cells[a] == 0:
                continue
            for b in range(size):
                if a == b or rounds[a, b] != UNDEFINED_ROUND:
                    continue
                used = block_counts[label[a], label[b]]
                if used > 0.0:
                    values[a, b] = block_sums[label[a], label[b]] / used
                    rounds[a, b] = round_tag
                    open_cells[a] -= 1
                    row_sums[a, label[b]] += float(values[a, b])
                    row_counts[a, label[b]] += 1.0

    @numba.njit(parallel=True, cache=True)
    def merge_columns(matrix: FloatArray, coarse_of_fine: IntArray, groups: int) -> FloatArray:
        # Column sums of fine groups merged into the coarser groups one level up.
        out = np.zeros((matrix.shape[0], groups))
        for a in numba.prange(matrix.shape[0]):
            for g in range(matrix.shape[1]):
                out[a, coarse_of_fine[g]] += matrix[a, g]
        return out

    @numba.njit(cache=True)
    def sum_rows_by_group(matrix: FloatArray, label: IntArray, groups: int) -> FloatArray:
        # out[g, :] = Σ_{a ∈ g} matrix[a, :], reading rows contiguously.
        out = np.zeros((groups, matrix.shape[1]))
        for a in range(matrix.shape[0]):
            out[label[a], :] += matrix[a, :]
        return out

    return row_group_sums, fill_one_sided, fill_pairs, merge_columns, sum_rows_by_group


_KERNELS: tuple[Any, ...] | None = None


def _group_labels(thesaurus: Thesaurus, height: int) -> tuple[IntArray, int]:
    """Group of every leaf by its ancestor ``height`` steps up, and the number of groups."""
    _, label = np.unique(thesaurus.leaf_ancestors(height), return_inverse=True)
    label = label.astype(np.int64).ravel()
    return label, int(label.max()) + 1 if len(label) else 0


def coefficient_of_variation(values: Float32Array, mask: npt.NDArray[np.bool_]) -> float:
    """Population std / mean of ``values[mask]`` (NaN when empty or the mean is 0)."""
    total = square = 0.0
    count = 0
    for start in range(0, values.shape[0], _BLOCK):
        chosen = values[start : start + _BLOCK][mask[start : start + _BLOCK]].astype(np.float64)
        total += float(chosen.sum())
        square += float(np.dot(chosen, chosen))
        count += chosen.size
    if count == 0 or total == 0.0:
        return float("nan")
    mean = total / count
    return float(np.sqrt(max(square / count - mean * mean, 0.0)) / mean)


def estimate_undefined(
    model: SimilarityModel, thesaurus: Thesaurus, *, max_height: int | None = None
) -> Estimation:
    """Fill undefined SIM values round by round (§4 step 4); tag each with its round.

    The per-row group sums R[a, g] are computed once (height 1), then kept up to date with
    what each process fills, and merged column-wise when the groups grow one level up.
    """
    global _KERNELS
    if model.leaf_ids != thesaurus.leaf_ids:
        raise InvalidInput("the similarity model was not built over this thesaurus' leaves")
    if _KERNELS is None:
        _KERNELS = _kernels()
    row_group_sums, fill_one_sided, fill_pairs, merge_columns, sum_rows_by_group = _KERNELS
    values = np.ascontiguousarray(model.values, dtype=np.float32).copy()
    rounds = np.ascontiguousarray(model.rounds, dtype=np.int8).copy()
    off_diagonal = ~np.eye(len(model.leaf_ids), dtype=bool)
    corpus_cv = coefficient_of_variation(values, (rounds == CORPUS_ROUND) & off_diagonal)
    open_cells = ((rounds == UNDEFINED_ROUND) & off_diagonal).sum(axis=1).astype(np.int64)
    del off_diagonal
    top = thesaurus.max_leaf_depth if max_height is None else max_height
    first_cv, first_pairs = float("nan"), 0
    label, groups = _group_labels(thesaurus, 1)
    sums, counts, squares = row_group_sums(values, rounds, label, groups)
    added_buffer = np.empty((2, sums.size))
    for height in range(1, top + 1):
        if not open_cells.any():
            break  # only the diagonal is left, and it is never estimated
        if height > 1:
            coarse, groups = _group_labels(thesaurus, height)
            coarse_of_fine = np.zeros(int(label.max()) + 1, dtype=np.int64)
            coarse_of_fine[label] = coarse
            sums = merge_columns(sums, coarse_of_fine, groups)
            counts = merge_columns(counts, coarse_of_fine, groups)
            label = coarse
        # Reused buffers: a fresh L × groups allocation per process costs more than a fill.
        added_sums = added_buffer[0, : sums.size].reshape(sums.shape)
        added_counts = added_buffer[1, : sums.size].reshape(sums.shape)
        added_sums.fill(0.0)
        added_counts.fill(0.0)
        squares_now = squares if height == 1 else sums
        cv = fill_one_sided(
            values,
            rounds,
            open_cells,
            label,
            sums,
            counts,
            squares_now,
            np.ascontiguousarray(sums.T),
            np.ascontiguousarray(counts.T),
            np.ascontiguousarray(squares_now.T),
            2 * height - 1,
            added_sums,
            added_counts,
        )
        if height == 1:
            del squares
            if cv[:, 1].sum() > 0:
                # Both (a, b) and (b, a) were filled: halve to count unordered pairs.
                first_cv = float(cv[:, 0].sum() / cv[:, 1].sum())
                first_pairs = int(cv[:, 1].sum()) // 2
        sums += added_sums
        counts += added_counts
        # Block[g1, g2] = Σ_{a ∈ g1} R[a, g2] = Σ over g1 × g2 of the defined SIM.
        block_sums = sum_rows_by_group(sums, label, groups)
        block_counts = sum_rows_by_group(counts, label, groups)
        # This process reads only the block sums, so it may update R in place.
        fill_pairs(
            values, rounds, open_cells, label, block_sums, block_counts, 2 * height, sums, counts
        )
    return Estimation(values, rounds, first_cv, first_pairs, corpus_cv)
