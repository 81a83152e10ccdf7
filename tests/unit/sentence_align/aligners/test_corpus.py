"""Corpus mode (align_corpus, align-sentences with several pairs): the property tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from services.cli import app
from services.sentence_align.aligners.align import align_corpus, align_sentences
from services.sentence_align.aligners.beads import Bead, check_coverage, parse_beads

VOCABULARY = "der die das haus berg gipfel 1956 la le maison montagne sommet , . ( ) zürich"
sentences = st.lists(st.sampled_from(VOCABULARY.split()), min_size=1, max_size=12).map(" ".join)
corpora = st.lists(
    st.tuples(
        st.lists(sentences, min_size=1, max_size=10), st.lists(sentences, min_size=1, max_size=10)
    ),
    min_size=1,
    max_size=4,
)
POOLED = ["lexicon", "hybrid"]  # (an empty side anywhere: each document on its own)


@pytest.mark.parametrize("method", POOLED)
@settings(max_examples=20, derandomize=True)
@given(corpus=corpora)
def test_every_document_is_covered_once_in_order(
    method: str, corpus: list[tuple[list[str], list[str]]]
) -> None:
    aligned = align_corpus(corpus, method=method, src_lang="de", tgt_lang="fr")
    assert len(aligned) == len(corpus)
    for (src, tgt), beads in zip(corpus, aligned, strict=True):
        check_coverage(beads, len(src), len(tgt))


@pytest.mark.parametrize("method", POOLED)
@settings(max_examples=20, derandomize=True)
@given(docs=st.lists(st.lists(sentences, min_size=1, max_size=10, unique=True), max_size=4))
def test_documents_aligned_with_themselves_are_the_identity(
    method: str, docs: list[list[str]]
) -> None:
    aligned = align_corpus([(doc, doc) for doc in docs], method=method)
    assert [[(b.src, b.tgt) for b in beads] for beads in aligned] == [
        [((k,), (k,)) for k in range(len(doc))] for doc in docs
    ]


@pytest.mark.parametrize("method", POOLED)
@settings(max_examples=20, derandomize=True)
@given(corpus=corpora)
def test_swapping_sides_mirrors_every_document(
    method: str, corpus: list[tuple[list[str], list[str]]]
) -> None:
    forward = align_corpus(corpus, method=method, src_lang="de", tgt_lang="fr")
    backward = align_corpus(
        [(tgt, src) for src, tgt in corpus], method=method, src_lang="fr", tgt_lang="de"
    )
    for there, back in zip(forward, backward, strict=True):
        # Adjacent 1-0 / 0-1 beads may swap order; compare the beads as sets.
        assert {(b.src, b.tgt) for b in there} == {(b.tgt, b.src) for b in back}


def test_length_corpus_equals_separate_calls() -> None:
    corpus = [(["Der Berg ist hoch.", "Ja."], ["La montagne est haute."]), (["Gut."], ["Bon."])]
    assert align_corpus(corpus, method="length") == [
        align_sentences(src, tgt, method="length") for src, tgt in corpus
    ]


def test_empty_side_is_all_deletions() -> None:
    aligned = align_corpus([(["Der Berg."], ["La montagne."]), (["Ende."], [])])
    assert [(b.src, b.tgt) for b in aligned[0]] == [((0,), (0,))]
    assert aligned[1] == [Bead((0,), ())]


@pytest.mark.parametrize("corpus_flag", ["--corpus", "--no-corpus"])
def test_cli_aligns_several_pairs(tmp_path: Path, corpus_flag: str) -> None:
    texts = {
        "a.de": "Der Berg ist hoch.\nWir stiegen auf.\nEnde 1956.\n",
        "a.fr": "La montagne est haute.\nNous sommes montés.\nFin 1956.\n",
        "b.de": "Das Haus.\nDer Gipfel.\n",
        "b.fr": "La maison.\nLe sommet.\n",
    }
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    paths = [str(tmp_path / name) for name in texts]
    result = CliRunner().invoke(app, ["align-sentences", *paths, "--presplit", corpus_flag])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    headers = [k for k, line in enumerate(lines) if line.startswith("# ")]
    assert headers == [0, 4]
    assert lines[0] == f"# {paths[0]} {paths[1]}"
    check_coverage(parse_beads(lines[1:4]), 3, 3)
    check_coverage(parse_beads(lines[5:]), 2, 2)


def test_cli_rejects_an_odd_number_of_texts(tmp_path: Path) -> None:
    path = tmp_path / "a.de"
    path.write_text("Der Berg.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["align-sentences", str(path), str(path), str(path)])
    assert result.exit_code != 0
    assert "pairs" in result.output
