"""Tests of the estimation rounds on a small tree with known answers, and a brute-force oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.thesaurus.estimate import coefficient_of_variation, estimate_undefined
from services.thesaurus.similarity import SimilarityModel, best_class_pair
from services.thesaurus.thesauri import Thesaurus

NAN = np.nan
# SIM on the fixture tree's leaves a1 a2 a3 | b1 b2; a3 and b2 were never seen.
FIXTURE_VALUES = np.array(
    [
        [10, 4, NAN, 1, NAN],
        [4, 10, NAN, 3, NAN],
        [NAN, NAN, NAN, NAN, NAN],
        [1, 3, NAN, 10, NAN],
        [NAN, NAN, NAN, NAN, NAN],
    ]
)


def _model(thesaurus: Thesaurus, values: np.ndarray) -> SimilarityModel:
    rounds = np.where(np.isnan(values), -1, 0).astype(np.int8)
    size = len(thesaurus.leaves)
    return SimilarityModel(
        thesaurus.leaf_ids, values.astype(np.float32), rounds, np.ones(size), 1.0
    )


def test_rounds_on_the_fixture_tree(tree: Thesaurus) -> None:
    # Leaves a1 a2 a3 | b1 b2; a3 and b2 were never seen, so their pairs are undefined.
    values = FIXTURE_VALUES.copy()
    result = estimate_undefined(_model(tree, values), tree, diagonal=False)
    a1, a2, a3, b1, b2 = range(5)
    expected = {
        # 1st round (siblings, one side at a time):
        (a3, b1): (1, (1 + 3) / 2),  # SIM(a1,b1), SIM(a2,b1)
        (a3, a1): (1, 4.0),  # SIM(a2,a1); the diagonal SIM(a1,a1) is not used
        (a3, a2): (1, 4.0),
        (a1, b2): (1, 1.0),  # SIM(a1,b1)
        (a2, b2): (1, 3.0),  # SIM(a2,b1)
        # 2nd round (sibling pairs, using the 1st round's values): {a1,a2,a3} × {b1,b2}
        (a3, b2): (2, (1 + 3 + 2 + 1 + 3) / 5),
        # 3rd round (grandparent = root, one side at a time): SIM(x,b2) and SIM(b1,y)
        (b1, b2): (3, (1 + 3 + 2 + 1 + 3 + 2) / 6),
    }
    for (i, j), (round_tag, value) in expected.items():
        for a, b in ((i, j), (j, i)):
            assert result.rounds[a, b] == round_tag, (a, b)
            assert result.values[a, b] == pytest.approx(value), (a, b)
    assert result.rounds[a1, a2] == 0 and result.values[a1, a2] == 4
    # The diagonal is neither used nor estimated.
    assert result.rounds[a3, a3] == -1 and np.isnan(result.values[a3, a3])
    # CV of the 1st-round inputs: only (a3, b1) used two values {1, 3}: std 1 / mean 2.
    assert result.first_round_cv == pytest.approx(0.5)
    assert result.first_round_cv_pairs == 1
    corpus = np.array([4.0, 1.0, 3.0])
    assert result.corpus_cv == pytest.approx(corpus.std() / corpus.mean())


def test_first_round_averages_the_seen_siblings_self_similarity(tree: Thesaurus) -> None:
    # Paper-literal: the brothers of a3 include a1, so SIM(a1, a1) is one of the values.
    values = FIXTURE_VALUES.copy()
    result = estimate_undefined(_model(tree, values), tree)
    a1, a3, b1, b2 = 0, 2, 3, 4
    assert result.rounds[a3, a1] == 1 and result.values[a3, a1] == pytest.approx((10 + 4) / 2)
    # b1 is the only seen class of {b1, b2}: SIM(b1, b1) estimates SIM(b1, b2) in round 1.
    assert result.rounds[b1, b2] == 1 and result.values[b1, b2] == pytest.approx(10.0)
    # an unseen class's own SIM: its seen siblings' self-similarities (a round-2 estimate)
    assert result.rounds[a3, a3] == 2 and result.values[a3, a3] == pytest.approx(10.0)
    assert result.rounds[b2, b2] == 2 and result.values[b2, b2] == pytest.approx(10.0)


def test_two_words_of_one_unseen_class_are_similar(tree: Thesaurus) -> None:
    # SIM(a3, a3) stayed undefined: 馬 had no similarity to itself or a synonym in a3, while
    # 馬 and 犬 (sibling classes) had one
    values = FIXTURE_VALUES.copy()
    values[1, 1] = 6.0
    result = estimate_undefined(_model(tree, values), tree)
    model = _model(tree, values)
    estimated = SimilarityModel(
        model.leaf_ids, result.values, result.rounds, model.class_frequency, model.total
    )
    match = best_class_pair(estimated, tree, "馬", "馬")
    assert match is not None and match.round == 2 and match.value == pytest.approx(8.0)
    sibling = best_class_pair(estimated, tree, "馬", "犬")
    assert sibling is not None and match.value >= sibling.value


def test_coefficient_of_variation_of_nothing_is_nan() -> None:
    values = np.ones((3, 3), dtype=np.float32)
    assert np.isnan(coefficient_of_variation(values, np.zeros((3, 3), dtype=bool)))


def _brute_force(
    thesaurus: Thesaurus, values: np.ndarray, diagonal: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The rounds exactly as docs/methods.md §4 step 4 words them, pair by pair."""
    size = len(thesaurus.leaves)
    vals = values.astype(np.float64).copy()
    rounds = np.where(np.isnan(vals), -1, 0)
    for height in range(1, thesaurus.max_leaf_depth + 1):
        ancestor = thesaurus.leaf_ancestors(height)
        group = [[k for k in range(size) if ancestor[k] == ancestor[a]] for a in range(size)]
        for round_tag, one_sided in ((2 * height - 1, True), (2 * height, False)):
            before_vals, before_rounds = vals.copy(), rounds.copy()

            def defined(x: int, y: int) -> bool:
                return (diagonal or x != y) and before_rounds[x, y] != -1  # noqa: B023

            for a in range(size):
                for b in range(size):
                    if a == b or before_rounds[a, b] != -1:
                        continue
                    if one_sided:
                        used = [before_vals[x, b] for x in group[a] if defined(x, b)]
                        used += [before_vals[a, y] for y in group[b] if defined(a, y)]
                    else:
                        used = [
                            before_vals[x, y] for x in group[a] for y in group[b] if defined(x, y)
                        ]
                    if used:
                        vals[a, b] = np.mean(used)
                        rounds[a, b] = round_tag
    if diagonal:  # an unseen class's SIM(C, C): the nearest seen relatives' SIM(C', C')
        seen = [k for k in range(size) if np.diagonal(values)[k] == np.diagonal(values)[k]]
        for a in range(size):
            for height in range(1, thesaurus.max_leaf_depth + 1):
                if rounds[a, a] != -1:
                    break
                ancestor = thesaurus.leaf_ancestors(height)
                relatives = [k for k in seen if ancestor[k] == ancestor[a]]
                if relatives:
                    vals[a, a] = np.mean([values[k, k] for k in relatives])
                    rounds[a, a] = 2 * height
    return vals, rounds


@st.composite
def trees_with_values(draw: st.DrawFn) -> tuple[Thesaurus, np.ndarray]:
    nodes = draw(st.integers(2, 9))
    parents = [draw(st.integers(0, i - 1)) for i in range(1, nodes)]
    classes = [("n0", None, "")] + [(f"n{i}", f"n{p}", "") for i, p in enumerate(parents, 1)]
    thesaurus = Thesaurus.build("random", classes, [])
    size = len(thesaurus.leaves)
    seen = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    raw = np.array(
        draw(st.lists(st.floats(0, 10), min_size=size * size, max_size=size * size))
    ).reshape(size, size)
    values = (raw + raw.T) / 2
    mask = np.outer(seen, seen)
    values[~mask] = np.nan
    return thesaurus, values


@given(trees_with_values(), st.booleans())
def test_estimation_matches_the_brute_force_rounds(
    case: tuple[Thesaurus, np.ndarray], diagonal: bool
) -> None:
    thesaurus, values = case
    result = estimate_undefined(_model(thesaurus, values), thesaurus, diagonal=diagonal)
    oracle_values, oracle_rounds = _brute_force(thesaurus, values.astype(np.float32), diagonal)
    np.testing.assert_array_equal(result.rounds, oracle_rounds)
    np.testing.assert_allclose(result.values, oracle_values, rtol=1e-5, atol=1e-5, equal_nan=True)
