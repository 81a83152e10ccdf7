"""Which site pairs a page pair learns from and where its pairs go (``mining.routing``)."""

from __future__ import annotations

import pytest

from services.sentence_align.mining.routing import (
    SITE_PAIR_MAX_LENGTH,
    SITE_PAIR_MIN_SCORE,
    SitePairs,
    next_messages,
    site_pairs_wanted,
)
from shared.schemas import ChunkPairs, JapaneseSentences, PairContext, SentencePairs
from shared.sentence_pair import SentencePairRecord

CONTEXT = PairContext(pair_id="pp1", job_id="j1", kind="translation",
                      src_url="https://en.example.org/a", tgt_url="https://ja.example.org/a",
                      src_lang="en", tgt_lang="ja")  # fmt: skip


def message(method: str = "hybrid", **context: str) -> ChunkPairs:
    return ChunkPairs(context=CONTEXT.model_copy(update=context), chunks=[], method=method)


def test_a_bilingual_page_pair_of_a_lexical_method_learns_from_both_hosts() -> None:
    assert site_pairs_wanted(message(), 500) == SitePairs(
        sites=("en.example.org", "ja.example.org"),
        langs=("en", "ja"),
        limit=500,
        exclude_pair_id="pp1",
        min_score=SITE_PAIR_MIN_SCORE,
        max_length=SITE_PAIR_MAX_LENGTH,
    )


@pytest.mark.parametrize(
    ("chunks", "limit"),
    [(message("length"), 500), (message("anchors"), 500), (message(), 0),
     (message(src_lang="ja-JP"), 500)],
)  # fmt: skip
def test_no_site_pairs_without_model1_a_limit_or_two_languages(
    chunks: ChunkPairs, limit: int
) -> None:
    assert site_pairs_wanted(chunks, limit) is None


def record(src: str, tgt: str) -> SentencePairRecord:
    return SentencePairRecord(id="sp1", pair_id="pp1", kind="pc-mobile", src_url="", tgt_url="",
                              site="", src_lang="ja", tgt_lang="ja", src_text=src, tgt_text=tgt,
                              score=0.5, bead="[0]:[0]", chunk=0, position=0)  # fmt: skip


def test_monolingual_pairs_go_to_paraphrase_and_their_sources_to_the_thesaurus() -> None:
    context = CONTEXT.model_copy(update={"kind": "pc-mobile", "src_lang": "ja"})
    pairs = [record("積雪は60センチ。", "積雪が60センチ。")]
    (paraphrase, stage_message), (thesaurus, sentences) = next_messages(context, pairs)
    assert (paraphrase, thesaurus) == ("paraphrase", "thesaurus")
    assert isinstance(stage_message, SentencePairs)
    assert stage_message.pairs == [pairs[0].message_pair()]
    assert isinstance(sentences, JapaneseSentences)
    assert sentences.sentences == ["積雪は60センチ。"]


def test_a_pair_without_japanese_of_two_languages_goes_nowhere() -> None:
    context = CONTEXT.model_copy(update={"tgt_lang": "de"})
    assert next_messages(context, [record("Snow.", "Schnee.")]) == []
    assert next_messages(CONTEXT, []) == []
