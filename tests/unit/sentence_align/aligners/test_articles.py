"""Tests of Web-vs-mobile article pairing (SimArticle) and sentence pairing (docs/methods.md §2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from services.sentence_align.aligners.articles import (
    Article,
    ArticlePair,
    SentencePairing,
    batch_keywords,
    first_paragraph_sentences,
    pair_articles,
    pair_sentences,
    parse_article,
    sim_article,
)
from shared.errors import InvalidInput
from shared.schemas import ArticleBatch

# Title nouns {東京, 大雨, 交通, 影響}; body nouns {気象, 東京, 都心, 大雨, 鉄道, 運行, 影響, 発表}.
WEB = Article(
    id="w1",
    date="2010-05-22T14:30:00+0900",
    title="東京で大雨、交通に影響",
    body="気象庁は東京都心で大雨が降り、鉄道の運行に影響が出たと発表した。",
    keywords=("大雨", "鉄道", "台風"),
)
# Nouns {大雨, 鉄道, 影響}.
MOBILE = Article(id="m1", date="2010-05-22", title="", body="大雨で鉄道に影響")


@pytest.mark.parametrize(
    ("a", "b", "score"),
    [
        (3.0, 3.0, 3 * 2 + 3 * 2 + 3),  # K = 2 (大雨, 鉄道), T = 2 (大雨, 影響), NN = 3
        (1.0, 2.0, 1 * 2 + 2 * 2 + 3),
        (0.0, 0.0, 3),
    ],
)
def test_sim_article_hand_computed(a: float, b: float, score: float) -> None:
    assert sim_article(WEB, MOBILE, a=a, b=b) == ArticlePair("w1", "m1", score, 2, 2, 3)


def test_pair_articles_only_pairs_same_day() -> None:
    other_day = Article("w0", "2010-05-21", WEB.title, WEB.body, WEB.keywords)
    distractor = Article(
        "w2", "2010-05-22", "新型電池の発表", "政府は新しい電池の開発計画を発表した。"
    )
    pairs = pair_articles([other_day, distractor, WEB], [MOBILE], threshold=15.0)
    assert pairs == [ArticlePair("w1", "m1", 15.0, 2, 2, 3)]
    assert pair_articles([other_day], [MOBILE], threshold=0.0) == []


def test_pair_articles_threshold_and_ties() -> None:
    twin = Article("w1b", WEB.date, WEB.title, WEB.body, WEB.keywords)
    assert pair_articles([WEB, twin], [MOBILE], threshold=15.0)[0].web_id == "w1"
    assert pair_articles([twin, WEB], [MOBILE], threshold=15.0)[0].web_id == "w1b"
    assert pair_articles([WEB], [MOBILE], threshold=15.5) == []
    assert pair_articles([WEB], [MOBILE]) == []  # paper threshold 35 is far above this pair


def test_empty_and_repeated_keywords_count_once_or_not_at_all() -> None:
    # "" is in every text and a repeated keyword counted again: 12 empty keywords gave an
    # unrelated article K = 12, a SimArticle of 36, and a pair
    messy = Article(WEB.id, WEB.date, WEB.title, WEB.body, ("大雨", "大雨", "", " 鉄道 ", "台風"))
    assert sim_article(messy, MOBILE) == sim_article(WEB, MOBILE)
    cat = Article("w9", MOBILE.date, "猫の話", "猫が庭で昼寝をしていた。", ("",) * 12)
    assert sim_article(cat, MOBILE).k == 0
    assert pair_articles([cat], [MOBILE]) == []


def test_repeated_article_ids_are_refused() -> None:
    # a pair scored on one article with a repeated id got the sentences of the other
    other = Article(WEB.id, WEB.date, "大阪で祭り", "大阪で祭りが開かれた。")
    with pytest.raises(InvalidInput, match="Web article ids must be unique"):
        pair_articles([WEB, other], [MOBILE])
    with pytest.raises(InvalidInput, match="mobile article ids must be unique"):
        pair_articles([WEB], [MOBILE, MOBILE])
    record = {"id": "a", "date": "d", "title": "", "body": "x"}
    with pytest.raises(ValidationError, match="repeated"):
        ArticleBatch(job_id="j", web=[record, record], mobile=[])


def test_batch_keywords_tf_idf_within_the_day() -> None:
    # A nouns: 電池 x3, 開発 x2, 発表 x2, 日程 x1; B nouns: 開発 x2, 計画 x2.
    # idf(df=1) = ln(3/2) + 1 = 1.405, idf(df=2) = 1:
    #   A: 電池 4.22, 発表 2.81, 開発 2.00, 日程 1.41   B: 計画 2.81, 開発 2.00
    a = Article("a", "d", "電池の開発", "電池の開発と電池の発表。発表の日程。")
    b = Article("b", "d", "開発の計画", "開発の計画。")
    given = Article("c", "d", "開発の計画", "開発の計画。", keywords=("手動",))
    assert batch_keywords([a, b], per_article=3) == [("電池", "発表", "開発"), ("計画", "開発")]
    assert batch_keywords([a, given], per_article=3)[1] == ("手動",)


WEB_BODY = (
    "政府は電池の開発を発表した。東京で記者会見が開かれた。\n"
    "\u3000\n"
    "新型電池の量産計画も明らかにした。"
)
WS1, WS2 = "政府は電池の開発を発表した。", "東京で記者会見が開かれた。"


def test_pair_sentences_hand_computed() -> None:
    web = Article("w", "d", "電池", WEB_BODY)
    mobile = Article(
        "m", "d", "", "電池開発を発表。東京で会見。記者会見で電池の量産計画を説明。電池と東京。"
    )
    assert pair_sentences(web, mobile) == [
        SentencePairing(WS1, "電池開発を発表。", 3),
        SentencePairing(WS2, "東京で会見。", 2),
        # the third Web sentence shares 3 nouns but is outside the first paragraph
        SentencePairing(WS2, "記者会見で電池の量産計画を説明。", 2),
        SentencePairing(WS1, "電池と東京。", 1),  # tie 1-1: the earlier Web sentence
    ]


def test_first_paragraph_without_blank_lines_is_first_sentences() -> None:
    body = "一文目。二文目。三文目。四文目。"
    assert first_paragraph_sentences(body) == ["一文目。", "二文目。", "三文目。"]
    assert first_paragraph_sentences(WEB_BODY) == [WS1, WS2]
    assert pair_sentences(Article("w", "d", "", ""), MOBILE) == []


def test_invalid_weights_are_rejected() -> None:
    with pytest.raises(InvalidInput):
        pair_articles([WEB], [MOBILE], a=float("inf"))


def test_parse_article_reads_json_fields() -> None:
    record = {"id": "w1", "date": "2010-05-22", "title": "t", "body": "b", "keywords": ["k"]}
    assert parse_article(record) == Article("w1", "2010-05-22", "t", "b", ("k",))


@pytest.mark.parametrize(
    "record",
    [[], {"date": "d"}, {"id": 3}, {"id": "x", "body": 1}, {"id": "x", "keywords": "kw"}],
)
def test_parse_article_rejects_bad_records(record: object) -> None:
    with pytest.raises(InvalidInput):
        parse_article(record)


def test_pair_articles_without_keywords_uses_batch_tf_idf_keywords() -> None:
    bare = Article("w1", WEB.date, WEB.title, WEB.body)
    other = Article("w2", WEB.date, "新型電池の発表", "政府は新しい電池の開発計画を発表した。")
    keywords = batch_keywords([bare, other])[0]
    assert keywords  # the day batch gives the bare article keywords of its own
    (pair,) = pair_articles([bare, other], [MOBILE], threshold=0.0)
    assert pair.web_id == "w1"
    assert pair.k == sum(1 for keyword in keywords if keyword in MOBILE.body)
    assert pair.score == 3.0 * pair.k + 3.0 * pair.t + pair.nn


def test_first_paragraph_of_a_crlf_text() -> None:
    # "\r\n\r\n" is no blank line to "\n[ \t]*\n": paragraph 2 leaked into paragraph 1
    assert first_paragraph_sentences("最初の文。\r\n\r\n第二段落。") == ["最初の文。"]


_WORDS = ["東京", "大雨", "鉄道", "影響", "政府", "電池", "発表", "雪", "選挙", "株価"]
_texts = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6).map("で".join)
_keywords = st.lists(st.sampled_from([*_WORDS, "雪が", "京", "大"]), max_size=3)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(_texts, _keywords), min_size=1, max_size=6),
    st.lists(_texts, min_size=1, max_size=4),
    st.sampled_from([0.5, 5.0, 12.0]),
)
def test_pairing_finds_what_scoring_every_article_finds(
    web_specs: list[tuple[str, list[str]]], mobile_bodies: list[str], threshold: float
) -> None:
    # A positive threshold scores only the Web articles sharing a keyword or noun with the
    # mobile one (the others score 0); a threshold of -1 scores every article of the day,
    # as the former code did: the oracle.
    web = [
        Article(f"w{k}", "2010-05-22", body[:4], body, tuple(keywords))
        for k, (body, keywords) in enumerate(web_specs)
    ]
    mobile = [Article(f"m{k}", "2010-05-22", "", body) for k, body in enumerate(mobile_bodies)]
    every = pair_articles(web, mobile, threshold=-1.0)
    assert len(every) == len(mobile)
    expected = [pair for pair in every if pair.score >= threshold]
    assert pair_articles(web, mobile, threshold=threshold) == expected
