"""Tests of the sentence_align handler: an article batch's rows and what goes to the thesaurus
(the page pair's sentence pairs themselves: ``mining/test_records.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.sentence_align.handler import handle
from shared.schemas import ArticleBatch, ArticleIn, ChunkPairs, PairContext, TextChunkPair
from shared.store import SentencePairQuery, Store

URLS = {"src_url": "https://example.org/de/1", "tgt_url": "https://example.org/fr/1"}
CONTEXT = PairContext(
    pair_id="p1", job_id="j1", kind="translation", **URLS, src_lang="de", tgt_lang="fr"
)
SNOW_WEB = (
    "強い冬型の気圧配置の影響で、東北地方では12日、各地で大雪となった。"
    "気象庁によると、山形県では24時間で60センチを超える積雪を観測した。"
    "この雪の影響で、JR東日本は新幹線の一部区間で運転を見合わせることを決定した。"
    "高速道路では、東北自動車道の一部区間が通行止めとなった。"
)
SNOW_MOBILE = (
    "東北地方で12日、大雪。山形県では24時間で60センチを超える積雪を観測。"
    "JR東日本は新幹線の一部区間で運転見合わせを決定。東北自動車道の一部区間が通行止め。"
)
BALL_WEB = (
    "プロ野球の来季の日程が12日に発表された。開幕戦は3月28日に東京ドームで行われる。"
    "巨人は阪神と対戦し、セ・リーグの全6球団が同じ日に開幕を迎える。"
    "日本シリーズは10月下旬に開催される予定だ。"
)
BALL_MOBILE = (
    "プロ野球の来季日程が発表。開幕戦は3月28日に東京ドーム。"
    "巨人は阪神と対戦。日本シリーズは10月下旬に開催予定。"
)


def test_article_pairs_of_a_batch_get_positions_through_the_batch(tmp_path: Path) -> None:
    # All rows of a batch are filed under its id; with positions restarting at 0 for each
    # article pair, listings (ordered by pair and position) interleaved the articles.
    day = "2026-01-12"
    batch = ArticleBatch(
        job_id="j1",
        web=[
            ArticleIn(id="w1", date=day, title="東北で大雪", body=SNOW_WEB,
                      keywords=["大雪", "東北", "新幹線", "積雪"], url="https://news.example.jp/w1"),
            ArticleIn(id="w2", date=day, title="プロ野球の日程", body=BALL_WEB,
                      keywords=["プロ野球", "開幕戦", "東京ドーム", "巨人"], url="https://news.example.jp/w2"),
        ],
        mobile=[
            ArticleIn(id="m1", date=day, body=SNOW_MOBILE, url="https://m.news.example.jp/m1"),
            ArticleIn(id="m2", date=day, body=BALL_MOBILE, url="https://m.news.example.jp/m2"),
        ],
    )  # fmt: skip
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    handle(batch, store)
    rows = store.list_sentence_pairs(SentencePairQuery(limit=100))
    urls = [row.src_url for row in rows]
    assert set(urls) == {"https://news.example.jp/w1", "https://news.example.jp/w2"}
    assert urls == sorted(urls, key=urls.index)  # each article pair's rows together
    assert [row.position for row in rows] == list(range(len(rows)))


@pytest.mark.parametrize(
    ("src_lang", "tgt_lang", "sides"), [("ja", "ja", ["src"]), ("en", "ja", ["tgt"])]
)
def test_the_thesaurus_gets_each_japanese_text_once(
    tmp_path: Path, src_lang: str, tgt_lang: str, sides: list[str]
) -> None:
    # a PC/mobile pair sent both sides: one article's cooccurrences counted twice, enough to
    # pass the filter that drops pairs seen once
    context = CONTEXT.model_copy(
        update={"kind": "pc-mobile", "src_lang": src_lang, "tgt_lang": tgt_lang}
    )
    src = "積雪は60センチを越えた。" if src_lang == "ja" else "The snow passed 60 cm."
    chunk = TextChunkPair(src_text=src, tgt_text="積雪が60センチを越えた。")
    store = Store(f"sqlite:///{tmp_path / 'h.db'}")
    outgoing = handle(ChunkPairs(context=context, chunks=[chunk]), store)
    (sentences,) = [message for stage, message in outgoing if stage == "thesaurus"]
    texts = {"src": chunk.src_text, "tgt": chunk.tgt_text}
    assert sentences.sentences == [texts[side] for side in sides]  # type: ignore[attr-defined]
