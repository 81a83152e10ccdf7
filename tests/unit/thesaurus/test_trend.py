"""Tests of the Table-2 trend statistics against hand-computed small examples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from services.thesaurus.similarity import ClassCounts, similarity_matrix
from services.thesaurus.trend import (
    bootstrap_verbs,
    level_means,
    pair_spearman,
    percentile_interval,
    relative_levels,
    spearman,
    step_intervals,
)
from shared.errors import InvalidInput
from tests.unit.thesaurus.conftest import two_level_tree


def test_spearman_without_ties_by_hand() -> None:
    # d = 0, 1, 1, 0: rho = 1 − 6·2 / (4·15) = 0.8
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_spearman_with_ties_uses_average_ranks() -> None:
    # ranks 1.5 1.5 3.5 3.5 vs 1 2 3 4: centred −1 −1 1 1 and −1.5 −.5 .5 1.5 → 4 / √(4·5)
    assert spearman([7, 7, 9, 9], [10, 20, 30, 40]) == pytest.approx(4 / math.sqrt(20))


def test_spearman_of_a_constant_is_nan() -> None:
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_level_means_over_defined_upper_pairs() -> None:
    nan = np.nan
    values = np.array(
        [[9.0, 1.0, 2.0, nan], [1.0, 9.0, 4.0, 6.0], [2.0, 4.0, 9.0, 8.0], [nan, 6.0, 8.0, 9.0]],
        dtype=np.float32,
    )
    level = np.array([[2, 0, 1, 1], [0, 2, 1, 0], [1, 1, 2, 0], [1, 0, 0, 2]], dtype=np.int16)
    counts, means = level_means(values, level, 3)
    # level 0: (0,1)=1, (1,3)=6, (2,3)=8; level 1: (0,2)=2, (1,2)=4, (0,3) undefined; none at 2
    assert counts.tolist() == [3, 2, 0]
    assert means[:2] == pytest.approx([5.0, 3.0])
    assert math.isnan(means[2])
    # pairs in order (0,1) (0,2) (1,2) (1,3) (2,3): levels 0 1 1 0 0, values 1 2 4 6 8;
    # level ranks 2 4.5 4.5 2 2 (centred −1 1.5 1.5 −1 −1), value ranks centred −2 −1 0 1 2:
    # rho = −2.5 / √(7.5·10)
    assert pair_spearman(values, level) == pytest.approx(-2.5 / math.sqrt(75))


def test_relative_levels_bin_wu_palmer_closeness() -> None:
    tree = two_level_tree()  # leaves p1 p2 r1 q1 q2, all at depth 3
    depth = tree.depth[tree.leaves]
    levels = relative_levels(tree.common_ancestor_depth(), depth, bins=5)
    p1, p2, r1, q1 = (tree.leaf_ids.index(c) for c in ("p1", "p2", "r1", "q1"))
    # p1–p2 meet at P (depth 2): 4/6 → level 4; p1–r1 at X (1): 2/6 → 2; p1–q1 at root: 1
    assert (levels[p1, p2], levels[p1, r1], levels[p1, q1]) == (4, 2, 1)
    # bin edges are exact: closeness 2·2/(4+6) = 0.4 opens level 3, 0.3999 would be level 2
    lca = np.array([[6, 2], [2, 6]], dtype=np.int16)
    assert relative_levels(lca, np.array([4, 6]), bins=5)[0, 1] == 3


def test_relative_levels_reject_zero_bins() -> None:
    with pytest.raises(InvalidInput):
        relative_levels(np.zeros((1, 1), dtype=np.int16), np.array([1]), bins=0)


def _counts(matrix: np.ndarray) -> ClassCounts:
    verbs = tuple(f"v{i}" for i in range(matrix.shape[0]))
    leaves = tuple(f"c{i}" for i in range(matrix.shape[1]))
    return ClassCounts(verbs, leaves, matrix, int(matrix.sum()), 0)


def test_bootstrap_of_one_verb_reproduces_the_model() -> None:
    counts = _counts(np.array([[2.0, 1.0, 3.0]]))
    original = similarity_matrix(counts).values[0, 2]
    draws = bootstrap_verbs(
        counts, lambda model: np.array([model.values[0, 2]]), replicates=4, seed=1
    )
    assert draws.shape == (4, 1)
    assert draws.ravel().tolist() == pytest.approx([original] * 4)


def test_bootstrap_draws_only_resampled_verb_sums() -> None:
    # N = 10, f(v) = 5 5, f(c) = 3 4 3: on (c0, c2) v0 has MI log2(20/15) twice (sim 0.415)
    # and v1 log2(10/15) twice (sim 0.585); a replicate sums a verb's term per draw.
    matrix = np.array([[2.0, 1.0, 2.0], [1.0, 3.0, 1.0]])
    n, f_v, f_c = 10.0, matrix.sum(axis=1), matrix.sum(axis=0)
    mi = np.log2(matrix * n / np.outer(f_v, f_c))
    per_verb = [
        min(abs(mi[v, 0]), abs(mi[v, 2])) if mi[v, 0] * mi[v, 2] > 0 else 0.0 for v in (0, 1)
    ]
    assert per_verb[0] > 0 and per_verb[1] > 0  # v0 both positive, v1 both negative
    draws = bootstrap_verbs(
        _counts(matrix), lambda model: np.array([model.values[0, 2]]), replicates=30, seed=7
    )
    possible = [2 * per_verb[0], 2 * per_verb[1], per_verb[0] + per_verb[1]]
    assert all(min(abs(d - p) for p in possible) < 1e-5 for d in draws.ravel())
    assert len({round(float(d), 5) for d in draws.ravel()}) > 1
    again = bootstrap_verbs(
        _counts(matrix), lambda model: np.array([model.values[0, 2]]), replicates=30, seed=7
    )
    assert np.array_equal(draws, again)


def test_verb_weights_scale_each_verbs_term() -> None:
    matrix = np.array([[2.0, 1.0, 2.0], [1.0, 3.0, 1.0]])
    plain = similarity_matrix(_counts(matrix)).values.astype(np.float64)
    only_first = similarity_matrix(
        _counts(matrix), verb_weights=np.array([3.0, 0.0])
    ).values.astype(np.float64)
    n, f_v, f_c = 10.0, matrix.sum(axis=1), matrix.sum(axis=0)
    mi_first = np.log2(matrix[0] * n / (f_v[0] * f_c))
    assert only_first[0, 2] == pytest.approx(3 * min(abs(mi_first[0]), abs(mi_first[2])))
    assert only_first[1, 1] == pytest.approx(3 * abs(mi_first[1]), rel=1e-5)
    assert np.isfinite(only_first).all() and np.isfinite(plain).all()
    with pytest.raises(InvalidInput):
        similarity_matrix(_counts(matrix), verb_weights=np.array([1.0]))


def test_percentile_and_step_intervals() -> None:
    samples = np.array([[0.0, 1.0, 0.5], [1.0, 3.0, 2.0], [2.0, 5.0, 1.0]])
    low, high = percentile_interval(samples, level=1.0)
    assert low.tolist() == [0.0, 1.0, 0.5]
    assert high.tolist() == [2.0, 5.0, 2.0]
    step_low, step_high, rising = step_intervals(samples, level=1.0)
    # steps: (1, −0.5), (2, −1), (3, −4)
    assert step_low.tolist() == [1.0, -4.0]
    assert step_high.tolist() == [3.0, -0.5]
    assert rising.tolist() == [1.0, 0.0]
