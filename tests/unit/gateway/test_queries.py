"""services.gateway.queries: the reads the routes and the viewer share give one answer."""

from __future__ import annotations

from pathlib import Path

from services.gateway.queries import best_match, matching_phrases, word_similarity
from services.paraphrase.phrases import PhraseTableEntry
from services.paraphrase.repository import save_phrase_table
from services.thesaurus.repository import SimilarityAnswer
from services.thesaurus.similarity import ClassPairMatch
from shared.store import Store


def test_matching_phrases_searches_either_side_and_one_language(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'phrases.db'}")
    table = [
        PhraseTableEntry("the bank of", "the shore of", 1, 1.0, 1.0, lang="en", alignment="0-0"),
        PhraseTableEntry("Bank", "Ufer", 1, 1.0, 1.0, lang="de", alignment="0-0"),
        PhraseTableEntry("a dog", "a hound", 1, 1.0, 1.0, lang="en", alignment="0-0"),
    ]
    save_phrase_table(store.engine, table, observations=3, digest="test", model="test")
    assert [e.phrase for e in matching_phrases(store, "bank")] == ["the bank of", "Bank"]
    assert [e.phrase for e in matching_phrases(store, "bank", lang="de")] == ["Bank"]
    assert len(matching_phrases(store, None)) == len(matching_phrases(store, "")) == 3


def test_no_snapshot_is_no_similarity_and_no_match(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'empty.db'}")
    assert word_similarity(store, "a", "b") is None
    assert best_match(None) is None
    assert best_match(SimilarityAnswer(1, "t", None)) is None
    match = ClassPairMatch(0.5, 0, "c1", "c2")
    assert best_match(SimilarityAnswer(1, "t", match)) == {
        "value": 0.5, "round": 0, "first_class": "c1", "second_class": "c2"
    }  # fmt: skip
