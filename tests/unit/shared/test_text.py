"""Japanese analysis under threads: the gateway runs handlers in a thread pool."""

from __future__ import annotations

import unicodedata
from concurrent.futures import ThreadPoolExecutor

import pytest

from shared.text import (
    analyse_japanese,
    is_word,
    japanese_nouns,
    normalise_japanese,
    tokenize_words,
)

TEXTS = (
    "強い冬型の気圧配置の影響で、東北地方では12日、各地で大雪となった。" * 20,
    "プロ野球の来季の日程が発表された。開幕戦は3月に東京ドームで行われる。" * 20,
)


def test_concurrent_analyses_equal_the_serial_ones() -> None:
    # With one MeCab tagger shared by every thread, about one analysis in ten came back
    # with other text's morphemes (e.g. 影響 analysed as 発, a symbol).
    expected = [analyse_japanese(text) for text in TEXTS]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda k: analyse_japanese(TEXTS[k % 2]), range(400)))
    wrong = sum(result != expected[k % 2] for k, result in enumerate(results))
    assert wrong == 0


def test_normalise_japanese_composes_and_widens_kana_only() -> None:
    decomposed = unicodedata.normalize("NFD", "データを集める")
    assert decomposed != "データを集める"
    assert normalise_japanese(decomposed) == "データを集める"
    assert normalise_japanese("ﾃﾞｰﾀを集める") == "データを集める"
    assert normalise_japanese("ＡＢＣ１２３") == "ＡＢＣ１２３"  # full-width Latin is kept


def test_a_nul_does_not_cut_the_analysis_short() -> None:
    # MeCab reads a C string: everything after a NUL was lost (本 alone)
    surfaces = [m.surface for m in analyse_japanese("本\x00を読む。彼は新製品を発表")]
    assert surfaces == [m.surface for m in analyse_japanese("本 を読む。彼は新製品を発表")]
    assert surfaces[-3:] == ["製品", "を", "発表"]


def test_words_keep_their_combining_marks() -> None:
    # \w leaves combining marks out: Devanagari words fell apart into letters and signs
    assert tokenize_words("मैंने किताब खरीदी।") == ["मैंने", "किताब", "खरीदी", "।"]
    decomposed = unicodedata.normalize("NFD", "Grüße aus Köln, well-known!")
    assert tokenize_words(decomposed) == ["Grüße", "aus", "Köln", ",", "well-known", "!"]


def test_a_word_of_an_abugida_is_a_word_with_its_vowel_signs() -> None:
    # str.isalpha is False for "ઈસુએ" (its vowel signs are marks, not letters)
    for word in ("ઈસુએ", "किताब", "ภาษาไทย", "Köln", unicodedata.normalize("NFD", "Köln")):
        assert is_word(word), word
    for token in ("", "12", "well-known", "a1", "\u0941x", "'s"):
        assert not is_word(token), token


def test_numbers_and_the_counters_after_them_are_no_content_nouns() -> None:
    # shared by unrelated articles of one day, they paired an accident with a baseball game
    nouns = japanese_nouns("２０２４年３月５日、車５台の事故で１０人がけが。損害は１００万円。")
    assert nouns == ["車", "事故", "けが", "損害"]
    # a counter-like noun that follows no number stays a noun
    assert japanese_nouns("去年から円が上がった。時は金なり。") == ["去年", "円", "時", "金"]


def test_long_text_goes_to_mecab_in_pieces_that_lose_nothing() -> None:
    from shared.text import MECAB_PIECE_CHARS, mecab_pieces

    text = ("今日は晴れ。" * 3_000) + ("a" * 20_000) + "\n明日は雨。"
    pieces = mecab_pieces(text)
    assert "".join(pieces) == text and all(len(p) <= MECAB_PIECE_CHARS for p in pieces)
    assert all(p.endswith("。") for p in pieces[:2])  # cut after a sentence where there is one
    assert mecab_pieces("短い文。") == ["短い文。"]
    words = [m.surface for m in analyse_japanese("本を読んだ。" * 2_000)]
    assert words == ["本", "を", "読ん", "だ", "。"] * 2_000


@pytest.mark.parametrize(
    ("tag", "base"),
    [
        ("jpn", "ja"),
        ("ja_JP", "ja"),
        ("ZHO", "zh"),
        ("en-GB", "en"),
        ("deu", "de"),
        ("ger", "de"),
        ("hye", "hy"),
        ("ell", "el"),
        ("hin", "hi"),
        ("qqq", "qqq"),  # no language: kept
        ("x1y", "x1y"),
    ],
)
def test_three_letter_codes_are_their_two_letter_languages(tag: str, base: str) -> None:
    # "jpn" text was split as Japanese but joined with spaces and never reached the thesaurus
    from shared.text import base_lang

    assert base_lang(tag) == base
