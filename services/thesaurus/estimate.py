"""Estimating undefined class similarities from the thesaurus, round by round up the tree.

docs/methods.md §4 step 4 (Shinnou section 2.4, Fig. 1). For an undefined SIM(Ca, Cb), with
G_k(C) the leaves under C's ancestor k steps up (its siblings when k = 1):

    one-sided (Fig. 1a): mean of the defined SIM(Ca', Cb) and SIM(Ca, Cb'),
                         Ca' ∈ G_k(Ca), Cb' ∈ G_k(Cb)
    pairs     (Fig. 1b): mean of the defined SIM(Ca', Cb') over G_k(Ca) × G_k(Cb)

k = 1 gives the paper's 1st and 2nd estimation, k = 2 (grandparents) the 3rd and 4th, and so
on until k reaches the root, so round r = 2k − 1 (one-sided) or 2k (pairs). Decisions:

* Each process reads only the values defined before it started (so the result does not depend
  on the order of the pairs) and may use values estimated in earlier rounds.
* The rounds never estimate the diagonal SIM(C, C) (the paper's pairs are of distinct
  classes), but with ``diagonal=True`` (the default) a defined SIM(C, C) is one of the values
  averaged, as
  the paper's wording has it: for siblings Ca, Cb the brothers Ca_k of Ca include Cb, so the
  1st round's "defined SIM(Ca_k, Cb)" includes SIM(Cb, Cb) (defined whenever f(Cb) > 0, §2.3),
  and the 2nd round's sibling × sibling block includes the seen siblings' SIM(C, C). Without
  it (``diagonal=False``, the choice before this was checked against the paper) a sibling
  group with a single seen class cannot estimate its sibling pairs in rounds 1–2 at all.
  SIM(C, C) = Σ_v |MI(v, C)| is larger than any SIM between two classes, so these
  estimates sit above the corpus values of the closest pairs (benchmarks/results/
  thesaurus_livedoor.md shows both). Leaves shallower than k use the root as their k-th
  ancestor.
* With ``diagonal=True``, once the rounds are done, an unseen class's own SIM(C, C) is
  estimated from its nearest relatives' self-similarities: the mean of the corpus-defined
  SIM(C', C') over C' ∈ G_k(C) for the smallest k that has one, tagged round 2k. Without it
  two words of one unseen class (synonyms) had no similarity while unrelated words had one
  (the word similarity is the best SIM over the words' class pairs).
* Diagnostics (section 3): the coefficient of variation (population std / mean) of the values
  averaged by each 1st-round estimate, averaged over the estimated pairs that used two or more
  values with a positive mean; and the CV of all corpus-defined values (paper: 0.384 vs 2.125).

Each process is one pass of a numba kernel over the L × L matrix, parallel over groups, with
the per-row group sums R kept up to date in both orientations (see ``_kernels``), so memory
stays O(L × groups) beyond the L × L model itself.
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
    # R[a, g] = Σ_{b ∈ g, b ≠ a, SIM(a, b) defined} SIM(a, b) is kept in both orientations:
    # ``sums`` (L × groups, row a) and ``sums_t`` (groups × L, row g: R_t[g, b] = R[b, g]), so
    # that every kernel reads both along rows. The kernels run in parallel over groups, and
    # a group's thread is the only one that touches its rows a ∈ g of ``sums`` and its row g of
    # ``sums_t``: no races, and no L × groups transposes or scratch arrays per process.
    import numba  # lazy: numba stays off readers of snapshots (gateway, export), who never compile

    @numba.njit(parallel=True, cache=True)
    def group_sums(
        values: Float32Array,
        rounds: RoundArray,
        label: IntArray,
        members: IntArray,
        group_start: IntArray,
        with_squares: bool,
        diagonal: bool,
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        size = values.shape[0]
        groups = len(group_start) - 1
        extra = size if with_squares else 0
        sums = np.zeros((size, groups))
        counts = np.zeros((size, groups))
        squares = np.zeros((extra, groups))
        sums_t = np.zeros((groups, size))
        counts_t = np.zeros((groups, size))
        squares_t = np.zeros((groups, extra))
        for g in numba.prange(groups):
            for m in range(group_start[g], group_start[g + 1]):
                a = members[m]
                for b in range(size):
                    if (diagonal or a != b) and rounds[a, b] != UNDEFINED_ROUND:
                        value = float(values[a, b])
                        sums[a, label[b]] += value
                        counts[a, label[b]] += 1.0
                        sums_t[g, b] += value
                        counts_t[g, b] += 1.0
                        if with_squares:
                            squares[a, label[b]] += value * value
                            squares_t[g, b] += value * value
        return sums, counts, squares, sums_t, counts_t, squares_t

    @numba.njit(parallel=True, cache=True)
    def fill_one_sided(
        values: Float32Array,
        rounds: RoundArray,
        open_cells: IntArray,
        grouping: tuple[IntArray, IntArray, IntArray],
        state: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
        squares: FloatArray,
        squares_t: FloatArray,
        with_cv: bool,
        round_tag: int,
    ) -> FloatArray:
        # Fig. 1a: Σ_{a' ∈ G(a)} SIM(a', b) = R[b, G(a)] = R_t[G(a), b], plus R[a, G(b)].
        # Reads see only the values defined before this process: row a of ``sums`` gets its
        # additions after row a is done, row g of ``sums_t`` after group g is done, and no
        # other cell reads them.
        label, members, group_start = grouping
        sums, counts, sums_t, counts_t = state
        size = values.shape[0]
        groups = len(group_start) - 1
        cv = np.zeros((groups, 2))
        for g in numba.prange(groups):
            added_t = np.zeros(size)
            added_t_counts = np.zeros(size)
            added = np.zeros(groups)
            added_counts = np.zeros(groups)
            for m in range(group_start[g], group_start[g + 1]):
                a = members[m]
                if open_cells[a] == 0:
                    continue
                added[:] = 0.0
                added_counts[:] = 0.0
                for b in range(size):
                    if a == b or rounds[a, b] != UNDEFINED_ROUND:
                        continue
                    group_b = label[b]
                    used = counts[a, group_b] + counts_t[g, b]
                    if used == 0.0:
                        continue
                    mean = (sums[a, group_b] + sums_t[g, b]) / used
                    values[a, b] = mean
                    rounds[a, b] = round_tag
                    open_cells[a] -= 1
                    stored = float(values[a, b])
                    added[group_b] += stored
                    added_counts[group_b] += 1.0
                    added_t[b] += stored
                    added_t_counts[b] += 1.0
                    if with_cv and used >= 2.0 and mean > 0.0:
                        square = squares[a, group_b] + squares_t[g, b]
                        cv[g, 0] += np.sqrt(max(square / used - mean * mean, 0.0)) / mean
                        cv[g, 1] += 1.0
                sums[a, :] += added
                counts[a, :] += added_counts
            sums_t[g, :] += added_t
            counts_t[g, :] += added_t_counts
        return cv

    @numba.njit(parallel=True, cache=True)
    def fill_pairs(
        values: Float32Array,
        rounds: RoundArray,
        open_cells: IntArray,
        grouping: tuple[IntArray, IntArray, IntArray],
        state: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
        block_sums: FloatArray,
        block_counts: FloatArray,
        round_tag: int,
    ) -> None:
        # Fig. 1b: the mean of the defined SIM over G(a) × G(b). This process reads only the
        # block sums, so R is updated in place.
        label, members, group_start = grouping
        sums, counts, sums_t, counts_t = state
        size = values.shape[0]
        groups = len(group_start) - 1
        for g in numba.prange(groups):
            for m in range(group_start[g], group_start[g + 1]):
                a = members[m]
                if open_cells[a] == 0:
                    continue
                for b in range(size):
                    if a == b or rounds[a, b] != UNDEFINED_ROUND:
                        continue
                    group_b = label[b]
                    used = block_counts[g, group_b]
                    if used > 0.0:
                        values[a, b] = block_sums[g, group_b] / used
                        rounds[a, b] = round_tag
                        open_cells[a] -= 1
                        stored = float(values[a, b])
                        sums[a, group_b] += stored
                        counts[a, group_b] += 1.0
                        sums_t[g, b] += stored
                        counts_t[g, b] += 1.0

    @numba.njit(parallel=True, cache=True)
    def merge_columns(matrix: FloatArray, coarse_of_fine: IntArray, groups: int) -> FloatArray:
        # Column sums of fine groups merged into the coarser groups one level up.
        out = np.zeros((matrix.shape[0], groups))
        for a in numba.prange(matrix.shape[0]):
            for g in range(matrix.shape[1]):
                out[a, coarse_of_fine[g]] += matrix[a, g]
        return out

    @numba.njit(parallel=True, cache=True)
    def sum_rows_by_group(matrix: FloatArray, members: IntArray, group_start: IntArray) -> Any:
        # out[g, :] = Σ_{a ∈ g} matrix[a, :], one group per thread, reading rows contiguously.
        groups = len(group_start) - 1
        out = np.zeros((groups, matrix.shape[1]))
        for g in numba.prange(groups):
            for m in range(group_start[g], group_start[g + 1]):
                out[g, :] += matrix[members[m], :]
        return out

    return group_sums, fill_one_sided, fill_pairs, merge_columns, sum_rows_by_group


_KERNELS: tuple[Any, ...] | None = None


def _group_labels(thesaurus: Thesaurus, height: int) -> tuple[IntArray, int]:
    """Group of every leaf by its ancestor ``height`` steps up, and the number of groups."""
    _, label = np.unique(thesaurus.leaf_ancestors(height), return_inverse=True)
    label = label.astype(np.int64).ravel()
    return label, int(label.max()) + 1 if len(label) else 0


def _members(label: IntArray, groups: int) -> tuple[IntArray, IntArray]:
    """Leaves sorted by group, and where each group starts in that order."""
    members = np.argsort(label, kind="stable").astype(np.int64)
    group_start = np.zeros(groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(label, minlength=groups), out=group_start[1:])
    return members, group_start


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
    model: SimilarityModel,
    thesaurus: Thesaurus,
    *,
    max_height: int | None = None,
    diagonal: bool = True,
) -> Estimation:
    """Fill undefined SIM values round by round (§4 step 4); tag each with its round.

    The per-row group sums R[a, g] are computed once (height 1), then kept up to date with
    what each process fills, and merged column-wise when the groups grow one level up.
    ``diagonal``: defined SIM(C, C) take part in the means, and unseen classes get their own
    SIM(C, C) estimated after the rounds (module docstring).
    """
    global _KERNELS
    if model.leaf_ids != thesaurus.leaf_ids:
        raise InvalidInput("the similarity model was not built over this thesaurus' leaves")
    if _KERNELS is None:
        _KERNELS = _kernels()
    group_sums, fill_one_sided, fill_pairs, merge_columns, sum_rows_by_group = _KERNELS
    values = np.ascontiguousarray(model.values, dtype=np.float32).copy()
    rounds = np.ascontiguousarray(model.rounds, dtype=np.int8).copy()
    size = len(model.leaf_ids)
    index = np.arange(size)
    corpus = rounds == CORPUS_ROUND
    corpus[index, index] = False
    corpus_cv = coefficient_of_variation(values, corpus)
    del corpus
    open_cells = (rounds == UNDEFINED_ROUND).sum(axis=1).astype(np.int64)
    open_cells -= np.diagonal(rounds) == UNDEFINED_ROUND  # the rounds leave the diagonal alone
    top = thesaurus.max_leaf_depth if max_height is None else max_height
    first_cv, first_pairs = float("nan"), 0
    label, groups = _group_labels(thesaurus, 1)
    members, group_start = _members(label, groups)
    sums, counts, squares, sums_t, counts_t, squares_t = group_sums(
        values, rounds, label, members, group_start, True, diagonal
    )
    for height in range(1, top + 1):
        if not open_cells.any():
            break  # only the diagonal is left (estimated after the rounds)
        if height > 1:
            coarse, groups = _group_labels(thesaurus, height)
            coarse_of_fine = np.zeros(int(label.max()) + 1, dtype=np.int64)
            coarse_of_fine[label] = coarse
            fine_members, fine_start = _members(coarse_of_fine, groups)
            sums = merge_columns(sums, coarse_of_fine, groups)
            counts = merge_columns(counts, coarse_of_fine, groups)
            sums_t = sum_rows_by_group(sums_t, fine_members, fine_start)
            counts_t = sum_rows_by_group(counts_t, fine_members, fine_start)
            label = coarse
            members, group_start = _members(label, groups)
        grouping = (label, members, group_start)
        state = (sums, counts, sums_t, counts_t)
        first = height == 1
        cv = fill_one_sided(
            values, rounds, open_cells, grouping, state, squares, squares_t, first, 2 * height - 1
        )
        if first:
            squares = squares[:0]
            squares_t = squares_t[:, :0]
            if cv[:, 1].sum() > 0:
                # Both (a, b) and (b, a) were filled: halve to count unordered pairs.
                first_cv = float(cv[:, 0].sum() / cv[:, 1].sum())
                first_pairs = int(cv[:, 1].sum()) // 2
        # Block[g1, g2] = Σ_{a ∈ g1} R[a, g2] = Σ over g1 × g2 of the defined SIM.
        block_sums = sum_rows_by_group(sums, members, group_start)
        block_counts = sum_rows_by_group(counts, members, group_start)
        fill_pairs(
            values, rounds, open_cells, grouping, state, block_sums, block_counts, 2 * height
        )
    if diagonal:
        _estimate_diagonal(values, rounds, thesaurus, top)
    return Estimation(values, rounds, first_cv, first_pairs, corpus_cv)


def _estimate_diagonal(
    values: Float32Array, rounds: RoundArray, thesaurus: Thesaurus, top: int
) -> None:
    """SIM(C, C) of each unseen class: the mean corpus-defined SIM(C', C') over the nearest
    G_k(C) holding one (round 2k); in place. Reads corpus values only, so order-free."""
    index = np.arange(values.shape[0])
    own = values[index, index].astype(np.float64)
    seen = rounds[index, index] == CORPUS_ROUND
    open_leaves = rounds[index, index] == UNDEFINED_ROUND
    for height in range(1, top + 1):
        if not open_leaves.any():
            break
        ancestor = thesaurus.leaf_ancestors(height)
        sums = np.bincount(ancestor, weights=np.where(seen, own, 0.0))
        counts = np.bincount(ancestor, weights=seen.astype(np.float64))
        fill = open_leaves & (counts[ancestor] > 0)
        leaves = index[fill]
        values[leaves, leaves] = sums[ancestor[fill]] / counts[ancestor[fill]]
        rounds[leaves, leaves] = 2 * height
        open_leaves &= ~fill
