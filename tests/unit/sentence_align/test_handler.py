"""Tests of the sentence_align handler's chunk alignment (one model per page pair)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.sentence_align.aligners.align import align_segments
from services.sentence_align.aligners.beads import parse_bead
from services.sentence_align.handler import handle
from services.sentence_align.mining.records import sentence_pairs
from shared.schemas import ArticleBatch, ArticleIn, ChunkPairs, PairContext, TextChunkPair
from shared.store import SentencePairQuery, Store

URLS = {"src_url": "https://example.org/de/1", "tgt_url": "https://example.org/fr/1"}
CONTEXT = PairContext(
    pair_id="p1", job_id="j1", kind="translation", **URLS, src_lang="de", tgt_lang="fr"
)
CHUNKS = [
    TextChunkPair(src_text="Der Gipfel ist hoch.", tgt_text="Le sommet est haut."),
    TextChunkPair(src_text="", tgt_text="Menu"),
    TextChunkPair(
        src_text="Wir stiegen 1956 auf. Es schneite in Zürich.",
        tgt_text="Nous sommes montés en 1956. Il neigeait à Zürich.",
    ),
]


@pytest.mark.parametrize("method", ["length", "lexicon", "hybrid", "anchors"])
def test_pairs_stay_inside_their_chunk_with_chunk_relative_beads(method: str) -> None:
    message = ChunkPairs(context=CONTEXT, chunks=CHUNKS, method=method)
    pairs = sentence_pairs(message)
    assert {pair.chunk for pair in pairs} <= {0, 2}  # chunk 1 has no source sentence
    for pair in pairs:
        bead = parse_bead(pair.bead)
        assert max(bead.src) < 2 and max(bead.tgt) < 2
    assert [(p.chunk, p.src_text, p.tgt_text) for p in pairs if p.chunk == 0] == [
        (0, "Der Gipfel ist hoch.", "Le sommet est haut.")
    ]


def test_chunk_lines_end_sentences() -> None:
    # a tree-aligned chunk's lines are <br> lines or blocks (a heading over its paragraph):
    # a line without final punctuation ran into the next one as one sentence
    chunk = TextChunkPair(
        src_text="Hotel Adler\nHauptstrasse 3\nWir haben 20 Zimmer.",
        tgt_text="Hôtel Adler\nHauptstrasse 3\nNous avons 20 chambres.",
    )
    pairs = sentence_pairs(ChunkPairs(context=CONTEXT, chunks=[chunk], method="length"))
    assert [(p.src_text, p.tgt_text) for p in pairs] == [
        ("Hotel Adler", "Hôtel Adler"),
        ("Hauptstrasse 3", "Hauptstrasse 3"),
        ("Wir haben 20 Zimmer.", "Nous avons 20 chambres."),
    ]


def test_handler_beads_equal_align_segments() -> None:
    message = ChunkPairs(context=CONTEXT, chunks=[CHUNKS[0], CHUNKS[2]], method="hybrid")
    segments = [
        (["Der Gipfel ist hoch."], ["Le sommet est haut."]),
        (
            ["Wir stiegen 1956 auf.", "Es schneite in Zürich."],
            ["Nous sommes montés en 1956.", "Il neigeait à Zürich."],
        ),
    ]
    expected = [
        (chunk, bead.src, bead.tgt)
        for chunk, beads in enumerate(align_segments(segments, src_lang="de", tgt_lang="fr"))
        for bead in beads
        if bead.src and bead.tgt
    ]
    got = [
        (pair.chunk, parse_bead(pair.bead).src, parse_bead(pair.bead).tgt)
        for pair in sentence_pairs(message)
    ]
    assert got == expected


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
    urls = [row["src_url"] for row in rows]
    assert set(urls) == {"https://news.example.jp/w1", "https://news.example.jp/w2"}
    assert urls == sorted(urls, key=urls.index)  # each article pair's rows together
    assert [row["position"] for row in rows] == list(range(len(rows)))


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
