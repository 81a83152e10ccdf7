"""Tests of noun–を–verb extraction and the frequency filter."""

from __future__ import annotations

import unicodedata

import pytest

from services.thesaurus.cooccur import (
    Cooccurrence,
    count_cooccurrences,
    extract_cooccurrences,
    filter_counts,
)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("本を読んだ人が来た。", [("本", "読む")]),  # relative clause: the clause's own verb
        ("政府は経済成長を促す。", [("成長", "促す")]),  # compound noun: its head
        ("データを速く分析した。", [("データ", "分析する")]),  # adverb between, サ変 + する
        ("「本」を読む。", [("本", "読む")]),  # closing bracket before を
        ("推理小説などを訳した。", [("小説", "訳す")]),  # restrictive particle before を
        ("『おしゃれBOOK』（学習研究社）を見せた。", [("BOOK", "見せる")]),  # parenthetical aside
        ("人を人として思う。", [("人", "思う")]),  # として is not the predicate
        ("本を彼に渡す。", [("本", "渡す")]),  # another argument phrase in between
        ("彼を信じた。", []),  # pronoun object
        ("本を。読む。", []),  # the sentence ended before any verb
        ("水を飲み、パンを食べた。", [("水", "飲む"), ("パン", "食べる")]),
        # coordination: every conjunct is an object
        ("リンゴとバナナを食べた。", [("リンゴ", "食べる"), ("バナナ", "食べる")]),
        ("パンや牛乳を買う。", [("パン", "買う"), ("牛乳", "買う")]),
        ("販売網の強化と顧客へのサービスの充実を図る。", [("強化", "図る"), ("充実", "図る")]),
        ("企業や政府の管理を回避する。", [("管理", "回避する")]),  # 企業 modifies 管理
        ("友人との約束を守る。", [("約束", "守る")]),  # AとのB is no coordination
        ("「家元」と本家を呼ぶ。", [("本家", "呼ぶ")]),  # quotation と
        # light verb する, its potential, nominal predicates, compound particles
        ("売上を目的としている。", [("売上", "為る")]),
        ("端末を保護できる。", [("端末", "保護する")]),
        ("倉庫を開設。", []),
        ("倉庫を開設、社員を雇う。", [("社員", "雇う")]),
        ("この件をめぐって議論した。", []),
        ("この件をめぐり対立した。", []),  # continuative めぐり too
        ("ネットを通じ販売する。", []),
        ("画面をタップする。", [("画面", "タップする")]),  # common noun used as a サ変 noun
        ("宿題を全部した。", [("宿題", "為る")]),  # ... but not an adverbial noun
        ("東京を中心に活動する。", []),
        ("春をテーマに作品を作る。", [("作品", "作る")]),  # Xを N に: adverbial
        ("鍵を元に戻す。", [("鍵", "戻す")]),  # ... unless a verb follows
        ("便利さを実感する。", []),  # nominalised adjective
    ],
)
def test_extraction_rules(sentence: str, expected: list[tuple[str, str]]) -> None:
    assert extract_cooccurrences(sentence) == [Cooccurrence(n, v) for n, v in expected]


def test_max_gap_bounds_the_distance_to_the_verb() -> None:
    sentence = "本を図書館でゆっくり読んだ。"
    assert extract_cooccurrences(sentence) == [Cooccurrence("本", "読む")]
    assert extract_cooccurrences(sentence, max_gap=2) == []


def test_filter_drops_singletons_and_rare_verbs() -> None:
    counts = {
        Cooccurrence("本", "読む"): 15,
        Cooccurrence("新聞", "読む"): 5,
        Cooccurrence("雑誌", "読む"): 1,  # seen once: dropped
        Cooccurrence("水", "飲む"): 20,  # 飲む seen 20 times in all: dropped
    }
    kept = filter_counts(counts)
    # 読む is seen 21 times counting the singleton, so it stays.
    assert kept == {Cooccurrence("本", "読む"): 15, Cooccurrence("新聞", "読む"): 5}
    assert filter_counts(counts, min_pair=1, min_verb=1) == counts


def test_count_cooccurrences() -> None:
    pairs = [Cooccurrence("本", "読む"), Cooccurrence("本", "読む"), Cooccurrence("水", "飲む")]
    assert count_cooccurrences(pairs) == {
        Cooccurrence("本", "読む"): 2,
        Cooccurrence("水", "飲む"): 1,
    }


@pytest.mark.parametrize(
    "spelling", [unicodedata.normalize("NFD", "彼がデータを集める。"), "彼がﾃﾞｰﾀを集める。"]
)
def test_decomposed_or_half_width_text_gives_the_same_pair(spelling: str) -> None:
    # NFD hid the particle を (nothing found); half-width kana gave a noun no thesaurus lists
    assert extract_cooccurrences(spelling) == [Cooccurrence("データ", "集める")]
