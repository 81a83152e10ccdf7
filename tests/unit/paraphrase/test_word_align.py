"""Tests of the IBM-1 + HMM monolingual word aligner and symmetrisation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.paraphrase.word_align import (
    AlignerConfig,
    WordAligner,
    identity_score,
    stem_match,
    symmetrize,
)
from shared.errors import InvalidInput

CORPUS = [
    (["the", "cat", "sat", "on", "the", "mat"], ["a", "cat", "was", "sitting", "on", "the", "mat"]),
    (["the", "dog", "sat", "on", "the", "rug"], ["a", "dog", "was", "sitting", "on", "the", "rug"]),
    (["my", "cat", "sat", "there"], ["my", "cat", "was", "sitting", "there"]),
    (["the", "cat", "slept"], ["the", "cat", "was", "sleeping"]),
    (["she", "announced", "the", "results"], ["she", "revealed", "the", "results"]),
    (["he", "announced", "a", "plan"], ["he", "revealed", "a", "plan"]),
]


@pytest.fixture(scope="module")
def aligner() -> WordAligner:
    return WordAligner(AlignerConfig(symmetrize="intersection")).fit(CORPUS)


def test_identical_words_align_on_the_diagonal(aligner: WordAligner) -> None:
    words = ["the", "dog", "sat", "on", "the", "mat"]
    assert aligner.align(words, words) == {(i, i) for i in range(len(words))}


def test_learns_a_paraphrase_from_context(aligner: WordAligner) -> None:
    links = aligner.align(["they", "announced", "the", "plan"], ["they", "revealed", "the", "plan"])
    assert (1, 1) in links


def test_json_round_trip_keeps_alignments(aligner: WordAligner) -> None:
    restored = WordAligner.from_json(aligner.to_json())
    for source, target in CORPUS:
        assert restored.align(source, target) == aligner.align(source, target)
    assert restored.to_json() == aligner.to_json()


def test_training_is_deterministic() -> None:
    first = WordAligner().fit(CORPUS).to_json()
    assert WordAligner().fit(CORPUS).to_json() == first


def test_errors() -> None:
    with pytest.raises(InvalidInput):
        WordAligner().align(["a"], ["a"])
    with pytest.raises(InvalidInput):
        WordAligner().fit([([], [])])
    with pytest.raises(InvalidInput):
        WordAligner.from_json('{"version": 1}')
    with pytest.raises(InvalidInput):
        WordAligner(AlignerConfig(symmetrize="diagonal")).fit(CORPUS)  # type: ignore[arg-type]


def test_identity_lexicon() -> None:
    assert identity_score("The", "the", 0.5) == 1.0
    assert stem_match("announced", "announcement")
    assert not stem_match("there", "their")
    assert identity_score("signed", "signing", 0.5) == 0.5


link_sets = st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=12)


@given(link_sets, link_sets)
def test_symmetrization_heuristics_are_nested(forward, backward) -> None:  # type: ignore[no-untyped-def]
    result = {
        m: symmetrize(forward, backward, 5, 5, m)
        for m in ("intersection", "grow-diag", "grow-diag-final", "grow-diag-final-and", "union")
    }
    assert result["intersection"] <= result["grow-diag"] <= result["grow-diag-final-and"]
    assert result["grow-diag"] <= result["grow-diag-final"] <= result["union"]
    assert result["grow-diag-final-and"] <= result["union"]
    # "final" adds greedily in order, so final-and is not always inside final: not asserted.
