"""Tests of sentence-ending paraphrase mining by backward branching factor (§3a)."""

from __future__ import annotations

import math

import pytest

from services.paraphrase.endings import (
    action_noun,
    mine_endings,
    para_score,
    rank_endings,
    strip_final_punctuation,
)
from shared.errors import InvalidInput


def test_rank_endings_hand_computed() -> None:
    # {Ws(発表)}: a..c, g end in を発表した, d in と発表した, e and f in を公表した.
    # BB(発表した) = |{を, と}| = 2, BB(を発表した) = |{a, b, c, g}| = 4  -> increase, freq 4
    # BB(した) = |{表}| = 1, BB(表した) = |{発, 公}| = 2                  -> increase, freq 7
    # BB(公表した) = |{を}| = 1, BB(を公表した) = |{e, f}| = 2            -> increase, freq 2
    # BB(と発表した) = 1 < 2, BB(公表した) = 1 < 2: no candidate.
    sentences = [
        tuple(s)
        for s in [
            "aを発表した",
            "bを発表した",
            "cを発表した",
            "gを発表した",
            "dと発表した",
            "eを公表した",
            "fを公表した",
        ]
    ]
    ranked = rank_endings("発表", sentences)
    assert [(c.suffix, c.freq, c.branching) for c in ranked] == [
        ("を発表した", 4, 4),
        ("表した", 7, 2),
        ("を公表した", 2, 2),
    ]
    assert ranked[0].score == pytest.approx(4 * math.log(4))
    assert ranked[1].score == pytest.approx(7 * math.log(2))
    assert ranked[2].score == pytest.approx(2 * math.log(4))


def test_sentence_start_counts_as_one_left_symbol() -> None:
    # Whole sentences "を発表した" x2 and "xを発表した": left of を発表した = {start, x}.
    ranked = rank_endings("発表", [tuple("を発表した"), tuple("を発表した"), tuple("xを発表した")])
    # BB(発表した) = |{を}| = 1 and BB(を発表した) = |{start, x}| = 2: the only increase.
    assert [(c.suffix, c.freq, c.branching) for c in ranked] == [("を発表した", 3, 2)]


def test_para_score_short_strings_score_zero() -> None:
    assert para_score(10, 2) == 0.0
    assert para_score(3, 5) == pytest.approx(3 * math.log(4))


def test_strip_final_punctuation() -> None:
    assert strip_final_punctuation("発表した。」 ") == "発表した"


def test_action_noun_from_mobile_sentence() -> None:
    assert action_noun("事故原因判明") == "判明"
    assert action_noun("政府が新方針を発表。") == "発表"
    assert action_noun("事故の原因が明らかになった。") is None


def test_half_width_katakana_is_read_as_full_width() -> None:
    # UniDic tags half-width ﾘﾘｰｽ as a plain noun: a mobile sentence in half-width kana had
    # no action noun, and its pairs were dropped
    assert action_noun("新機種をﾘﾘｰｽ") == action_noun("新機種をリリース") == "リリース"
    web = ["新機種をリリースしました。", "新製品をﾘﾘｰｽしました。", "新型機をリリースしました。"]
    half = [(sentence, "新機種をﾘﾘｰｽ") for sentence in web]
    full = [(sentence.replace("ﾘﾘｰｽ", "リリース"), "新機種をリリース") for sentence in web]
    for unit in ("char", "word"):
        table = mine_endings(half, unit=unit)  # type: ignore[arg-type]
        assert table == mine_endings(full, unit=unit)  # type: ignore[arg-type]
        assert [c.suffix for c in table["リリース"]] == ["をリリースしました"]


PAIRS = [
    ("政府は新しい方針を発表した。", "政府が新方針を発表"),
    ("会社は新製品を発表した。", "新製品を発表"),
    ("首相は辞任を発表した。", "首相が辞任発表"),
    ("市は計画を公表した。", "計画発表"),
    ("原因が明らかになった。", "原因判明"),
    ("犯人が分かった。", "犯人判明"),
    ("事実が明らかになった。", "事実判明"),
    ("真相が明らかになった。", "真相判明"),
]


@pytest.mark.parametrize("unit", ["char", "word"])
def test_mine_endings_depends_only_on_distinct_pairs(unit: str) -> None:
    once = mine_endings(PAIRS, unit=unit)  # type: ignore[arg-type]
    twice = mine_endings(list(reversed(PAIRS)) + PAIRS, unit=unit)  # type: ignore[arg-type]
    assert once == twice
    assert set(once) == {"発表", "判明"}


def test_mine_endings_finds_planted_paraphrase() -> None:
    table = mine_endings(PAIRS)
    assert table["判明"][0].suffix == "が明らかになった"
    assert table["発表"][0].suffix == "を発表した"


def test_mine_endings_rejects_bad_unit() -> None:
    with pytest.raises(InvalidInput):
        mine_endings(PAIRS, unit="byte")  # type: ignore[arg-type]
