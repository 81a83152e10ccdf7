"""The link classifier's feature helpers (``paraphrase.link_features``) against brute force
and the pairwise functions they vectorise, and the gold lexicon's counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.typing import NDArray

from services.paraphrase.link_features import (
    GoldLexicon,
    _best_ending,
    _box_sum,
    _dice,
    _max_excluding_self,
    _trigrams,
    monotone_path,
    stem_matrix,
    trigram_dice_matrix,
)
from services.paraphrase.word_align import stem_match
from tests.unit.paraphrase.test_link_classifier import PAIRS


@settings(derandomize=True, max_examples=60)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 5)), elements=st.floats(0, 1))
)
def test_max_excluding_self_matches_brute_force(matrix: NDArray[np.float64]) -> None:
    rows, cols = matrix.shape
    by_row = _max_excluding_self(matrix, axis=1)
    by_column = _max_excluding_self(matrix, axis=0)
    for i in range(rows):
        for j in range(cols):
            others_row = [matrix[i, k] for k in range(cols) if k != j]
            others_col = [matrix[k, j] for k in range(rows) if k != i]
            assert by_row[i, j] == (max(others_row) if others_row else 0.0)
            assert by_column[i, j] == (max(others_col) if others_col else 0.0)


@settings(derandomize=True, max_examples=60)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 9), st.integers(1, 9)), elements=st.floats(0, 1)),
    st.integers(0, 4),
)
def test_box_sum_matches_brute_force(matrix: NDArray[np.float64], radius: int) -> None:
    rows, cols = matrix.shape
    boxes = _box_sum(matrix, radius)
    for i in range(rows):
        for j in range(cols):
            window = matrix[
                max(i - radius, 0) : i + radius + 1, max(j - radius, 0) : j + radius + 1
            ]
            assert boxes[i, j] == pytest.approx(window.sum(), abs=1e-9)


WORDS = st.lists(st.text(alphabet="abcdeé", max_size=9), min_size=1, max_size=6)


@settings(derandomize=True, max_examples=80)
@given(WORDS, WORDS)
def test_stem_and_dice_matrices_match_the_pairwise_functions(
    source: list[str], target: list[str]
) -> None:
    stems = stem_matrix(source, target)
    dice = trigram_dice_matrix(source, target)
    for i, a in enumerate(source):
        for j, b in enumerate(target):
            assert stems[i, j] == float(stem_match(a, b))
            assert dice[i, j] == pytest.approx(_dice(_trigrams(a), _trigrams(b)))


def test_gold_lexicon_counts_links_and_cooccurrences() -> None:
    lexicon = GoldLexicon.from_examples(
        [(["A", "b"], ["a", "c"], {(0, 0), (1, 1)}), (["a"], ["a", "a"], {(0, 0)})]
    )
    # (a, a): linked twice, co-occurring in 1 + 2 cells; (b, c): once in one cell
    assert lexicon.counts == {("a", "a"): (2, 3), ("b", "c"): (1, 1)}
    assert lexicon.ratio("a", "a") == pytest.approx(2 / 4)
    assert lexicon.ratio("b", "a") == 0.0


def _chains(rows: int, cols: int) -> list[list[tuple[int, int]]]:
    # every non-empty strictly monotone chain of cells, by enumeration of row and column subsets
    found = []
    for size in range(1, min(rows, cols) + 1):
        for chosen_rows in itertools.combinations(range(rows), size):
            for chosen_cols in itertools.combinations(range(cols), size):
                found.append(list(zip(chosen_rows, chosen_cols, strict=True)))
    return found


@settings(derandomize=True, max_examples=60)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4)), elements=st.floats(-1, 1))
)
def test_monotone_chains_match_brute_force(weights: NDArray[np.float64]) -> None:
    rows, cols = weights.shape
    chains = _chains(rows, cols)
    ending = _best_ending(weights)
    gap, on_best = monotone_path(weights)
    best = max(0.0, max(sum(weights[c] for c in chain) for chain in chains))
    for i in range(rows):
        for j in range(cols):
            ends_here = [sum(weights[c] for c in ch) for ch in chains if ch[-1] == (i, j)]
            through = max(sum(weights[c] for c in ch) for ch in chains if (i, j) in ch)
            assert ending[i, j] == pytest.approx(max(ends_here))
            assert gap[i, j] == pytest.approx(max(through - best, -5.0))
            if abs(through - best + 1e-9) > 1e-12:  # no float tie with the tolerance
                assert on_best[i, j] == float(through - best >= -1e-9)


def test_cross_fitted_lexicons_equal_lexicons_of_the_other_folds() -> None:
    examples = [(s, t, links) for s, t, links in PAIRS]
    folds = [k % 3 for k in range(len(examples))]
    *complements, full = GoldLexicon.cross_fitted(examples, folds, 3)
    assert full == GoldLexicon.from_examples(examples)
    for fold, lexicon in enumerate(complements):
        others = [e for e, f in zip(examples, folds, strict=True) if f != fold]
        expected = GoldLexicon.from_examples(others)
        assert lexicon.counts == expected.counts
        source, target = ["the", "man", "she"], ["died", "the", "revealed"]
        brute = [[expected.ratio(a, b) for b in target] for a in source]
        assert lexicon.ratios(source, target).tolist() == brute
