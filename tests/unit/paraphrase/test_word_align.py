"""Tests of the IBM-1 + HMM monolingual word aligner and symmetrisation."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from services.cli import app
from services.paraphrase.word_align import (
    AlignerConfig,
    TrainingProgress,
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


def test_progress_reports_every_em_iteration_without_changing_the_model() -> None:
    config = AlignerConfig(ibm1_iterations=3, hmm_iterations=2)
    events: list[TrainingProgress] = []
    with_progress = WordAligner(config).fit(CORPUS, progress=events.append)
    assert [e.step for e in events] == list(range(1, 11))
    assert {e.steps for e in events} == {10}
    assert [(e.direction, e.model, e.iteration) for e in events[:5]] == [
        (0, "ibm1", 1),
        (0, "ibm1", 2),
        (0, "ibm1", 3),
        (0, "hmm", 1),
        (0, "hmm", 2),
    ]
    assert [e.direction for e in events[5:]] == [1] * 5
    assert all(np.isfinite(e.log_likelihood) for e in events)
    assert with_progress.to_json() == WordAligner(config).fit(CORPUS).to_json()


def test_align_words_cli_keeps_stdout_to_links(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "\n".join(f"{' '.join(s)}\t{' '.join(t)}" for s, t in CORPUS) + "\n", encoding="utf-8"
    )
    for flags in ([], ["-q"]):
        result = CliRunner().invoke(
            app, ["align-words", str(pairs), "--symmetrize", "intersection", *flags]
        )
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert len(lines) == len(CORPUS)
        assert all(re.fullmatch(r"(\d+-\d+( \d+-\d+)*)?", line) for line in lines)
        assert "1-1" in lines[0].split()  # cat - cat


def test_the_default_symmetrisation_is_the_intersection() -> None:
    # docs/methods.md §3b and benchmarks/results/word_align.md: the phrase table of the
    # pipeline (tables.py, default config) used grow-diag-final-and, lower F1 there
    trained = WordAligner().fit(CORPUS)
    differing = 0
    for source, target in CORPUS:
        forward, backward = trained.directional(source, target)
        assert trained.align(source, target) == forward & backward
        differing += forward != backward
    assert differing > 0  # the directions disagree somewhere: the check tells methods apart


@pytest.mark.parametrize("source,target", [(["cat"], []), ([], ["cat"]), ([], [])])
def test_an_empty_side_has_no_links_and_zero_posteriors(
    aligner: WordAligner, source: list[str], target: list[str]
) -> None:
    # the compiled Viterbi raised on an empty side and forward-backward crashed the process
    assert aligner.directional(source, target) == (set(), set())
    for matrix in (
        *aligner.directional_posteriors(source, target),
        aligner.posteriors(source, target),
    ):
        assert matrix.shape == (len(source), len(target))
    assert aligner.align(source, target) == set()
