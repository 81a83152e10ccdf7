"""Tests of the language-aware sentence splitter."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from services.sentence_align.aligners.splitter import (
    _CJK_COMMAS,
    _CLOSERS,
    _LINE_ENDERS,
    _LOWERCASE_WORD,
    _page_lines,
    _unclosed_brackets,
    split_sentences,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今日は晴れ。明日は雨？", ["今日は晴れ。", "明日は雨？"]),
        # No boundary inside 「」 or （）; runs of terminators stay with their sentence.
        (
            "「そうですね。明日も？」と言った。本当！？はい",
            ["「そうですね。明日も？」と言った。", "本当！？", "はい"],
        ),
        ("（注。下記参照）以上です｡次", ["（注。下記参照）以上です｡", "次"]),
        ("这是一个句子。这是第二个！", ["这是一个句子。", "这是第二个！"]),
        # A closing quote after the terminator stays with its sentence (MAC-Dev's gold cuts
        # there too), also with a space before it; inside the quote a 。 still ends one.
        (
            "那男孩道：“呸，你不会摔交。 ”韦小宝道：“谁说不会？”跃起身来。",
            ["那男孩道：“呸，你不会摔交。 ”", "韦小宝道：“谁说不会？”", "跃起身来。"],
        ),
        ("他想：“真笨。该走了。”说完就走。", ["他想：“真笨。", "该走了。”", "说完就走。"]),
        # an utterance broken off ends at its closing quote; a pause inside one does not
        (
            "她问道：“你为什么——”说到这里停了。“好……我走。”",
            ["她问道：“你为什么——”", "说到这里停了。", "“好……我走。”"],
        ),
    ],
)
def test_cjk_rules(text: str, expected: list[str]) -> None:
    lang = "zh" if "这" in text else "ja"
    assert split_sentences(text, lang) == expected


def test_chinese_corner_brackets_are_quotes_as_in_traditional_text() -> None:
    """Traditional Chinese quotes with 「」『』 where simplified text has “” ‘’: the same
    boundaries (a quote may hold several sentences); Japanese keeps 「」 as brackets."""
    simplified = "他说：“我们走吧。你呢？”她说：“好。”然后走了。"
    traditional = "他說：「我們走吧。你呢？」她說：「好。」然後走了。"
    assert split_sentences(simplified, "zh") == [
        "他说：“我们走吧。",
        "你呢？”",
        "她说：“好。”",
        "然后走了。",
    ]
    assert split_sentences(traditional, "zh-TW") == [
        "他說：「我們走吧。",
        "你呢？」",
        "她說：「好。」",
        "然後走了。",
    ]
    assert split_sentences("「そうですね。明日も？」と言った。", "ja") == [
        "「そうですね。明日も？」と言った。"
    ]


def test_european_keeps_abbreviations_numbers_and_ordinals() -> None:
    text = "Dr. Müller kam am 3. Mai an. Es kostet 3.5 Euro, d.h. wenig! Z.B. hier. Ende"
    assert split_sentences(text, "de") == [
        "Dr. Müller kam am 3. Mai an.",
        "Es kostet 3.5 Euro, d.h. wenig!",
        "Z.B. hier.",
        "Ende",
    ]


def test_european_initials_and_quotes() -> None:
    text = 'J. Smith said "Stop." Then he left. « Non ! » Il part.'
    assert split_sentences(text, "en") == [
        'J. Smith said "Stop."',
        "Then he left.",
        "« Non ! »",  # the space before » kept this and the next sentence together
        "Il part.",
    ]


def test_german_closing_quotes_and_unclosed_cjk_brackets() -> None:
    assert split_sentences("Er sagte: „Ja.“ Dann ging er.", "de") == [
        "Er sagte: „Ja.“",
        "Dann ging er.",
    ]
    assert split_sentences("He left. “Hello,” she said.", "en") == [
        "He left.",
        "“Hello,” she said.",
    ]
    # an unclosed 「 kept every later sentence of the block in one
    assert split_sentences("閉じない「括弧。その後の文。さらに文。", "ja") == [
        "閉じない「括弧。",
        "その後の文。",
        "さらに文。",
    ]
    assert split_sentences("彼は「行く。戻る。」と言った。次の文。", "ja") == [
        "彼は「行く。戻る。」と言った。",
        "次の文。",
    ]


def test_lowercase_after_period_is_not_a_boundary() -> None:
    assert split_sentences("Er kam ca. um zehn. usw. und so", "de") == [
        "Er kam ca. um zehn. usw. und so"
    ]


def test_newlines_are_not_boundaries_unless_configured() -> None:
    assert split_sentences("Ein Satz\nder weitergeht.", "de") == ["Ein Satz der weitergeht."]
    assert split_sentences("日本\n語です。", "ja") == ["日本語です。"]
    assert split_sentences("Titel\nEin Satz.", "de", newline_is_boundary=True) == [
        "Titel",
        "Ein Satz.",
    ]


def test_a_page_line_starting_in_lowercase_continues_the_sentence() -> None:
    # the albatec crawl hard-wraps sentences with <br>; its address lines are units
    wrapped = "Albatec started to work as a producer in\na medical sector.\nIt grew."
    assert split_sentences(wrapped, "en", newline_is_boundary=True) == [
        "Albatec started to work as a producer in a medical sector.",
        "It grew.",
    ]
    assert split_sentences(
        "As a supplier in the medical field we have already\ndemonstrated.", "en",
        newline_is_boundary=True,
    ) == ["As a supplier in the medical field we have already demonstrated."]  # fmt: skip
    units = [
        "Peter Pfeifer\nIblherstrasse 10 b\n82380 Peißenberg\nE-Mail: pp@albatec.de",
        "82380 Peißenberg\nmobile: +49-172-143 382 5\noffice: +49-8803-488 560 2",
        "Kontakt\nTel. 0123\nwww.albatec.de\ninfo@albatec.de",
        "Choose one of the options\na) first\nb) second",
        "home\nabout us\ncontact",
    ]
    for text in units:
        assert split_sentences(text, "en", newline_is_boundary=True) == text.split("\n")
    assert split_sentences("東京\nです。", "ja", newline_is_boundary=True) == ["東京", "です。"]
    georgian = "ეს არის პირველი ხაზი\nმეორე ხაზი"  # lowercase letters, no capitals
    for lang in ("ka", "ka-GE", "ka_GE"):
        assert split_sentences(georgian, lang, newline_is_boundary=True) == georgian.split("\n")
    quoted = [
        ("fr", "Il a dit « Bonjour.\u00a0»\nsuite de la page"),
        ("fr", "Il a dit « Bonjour. »\nsuite de la page"),
        ("da", "Han sagde da »Ja.«\nog gik"),
    ]
    for lang, text in quoted:  # a closing quote, spaced or not, after the final stop
        assert split_sentences(text, lang, newline_is_boundary=True) == text.split("\n")


def test_empty_text_gives_no_sentences() -> None:
    assert split_sentences("  \n ", "fr") == []
    assert split_sentences("", "ja") == []


@pytest.mark.parametrize(
    "text",
    ["It costs $3.50. That is cheap.", "Version 2.0. It works.", "Pi is 3.14. Next one."],
)
def test_a_decimal_number_before_the_period_ends_the_sentence(text: str) -> None:
    # "3.50" was taken for an abbreviation like "U.S.": two sentences stayed one
    assert len(split_sentences(text, "en")) == 2


def test_a_german_day_and_month_does_not_end_the_sentence() -> None:
    assert split_sentences("Am 24.12. Abends kam er.", "de") == ["Am 24.12. Abends kam er."]


def test_a_japanese_page_line_after_a_comma_or_an_open_bracket_continues() -> None:
    # No case in Japanese: a <br> inside a sentence split it in two.
    wrapped = "本日、新しい製品を発表しました。当社は、\n来月から販売を開始します。"
    assert split_sentences(wrapped, "ja", newline_is_boundary=True) == [
        "本日、新しい製品を発表しました。",
        "当社は、来月から販売を開始します。",
    ]
    quoted = "彼は「今日は\n晴れだ」と言った。"
    assert split_sentences(quoted, "ja-JP", newline_is_boundary=True) == [
        "彼は「今日は晴れだ」と言った。"
    ]
    assert split_sentences("我们认为，\n这是正确的。", "zh", newline_is_boundary=True) == [
        "我们认为，这是正确的。"
    ]
    # headings, menu items and closed brackets stay lines
    for text in ("会社について\n当社は東京にあります。", "お知らせ（重要）\n休業日のご案内"):
        assert split_sentences(text, "ja", newline_is_boundary=True) == text.split("\n")


@pytest.mark.parametrize(
    "text",
    [
        "Der 2. Weltkrieg endete 1945.",
        "Im 19. Jahrhundert wuchs die Stadt.",
        "Er wohnt in der Hauptstr. 5 in Bern.",
        "Siehe Abb. 3 unten.",
        "Sie wurde geb. 1950 in Wien.",
    ],
)
def test_german_ordinals_and_abbreviations_before_numbers_end_no_sentence(text: str) -> None:
    assert split_sentences(text, "de") == [text]


def test_a_day_and_month_is_a_date_only_where_dates_are_written_so() -> None:
    # "2.5." was read as the 2nd of May in every language: the sentence after it stayed on
    assert split_sentences("The rate is 2.5. Then it fell.", "en") == [
        "The rate is 2.5.",
        "Then it fell.",
    ]
    assert split_sentences("Am 2.5. Abends kam er.", "de") == ["Am 2.5. Abends kam er."]


def test_german_quotes_and_dialogue_dashes() -> None:
    assert split_sentences("Er ging. „Warum?“ fragte sie.", "de") == [
        "Er ging.",
        "„Warum?“ fragte sie.",
    ]
    assert split_sentences("Er sagte: »Nein.« Dann ging er.", "de") == [
        "Er sagte: »Nein.«",
        "Dann ging er.",
    ]
    assert split_sentences("Sie nickte. – Gut, sagte er.", "de") == [
        "Sie nickte.",
        "– Gut, sagte er.",
    ]
    # French: a spaced « opens the next sentence
    assert split_sentences("Il partit. « Bonjour », dit-elle.", "fr") == [
        "Il partit.",
        "« Bonjour », dit-elle.",
    ]


def test_an_ascii_mark_inside_latin_text_ends_no_japanese_sentence() -> None:
    text = "Yahoo!ニュースで見た。詳細はhttp://example.jp/a?id=3を参照。すごい!本当に?"
    assert split_sentences(text, "ja") == [
        "Yahoo!ニュースで見た。",
        "詳細はhttp://example.jp/a?id=3を参照。",
        "すごい!",
        "本当に?",
    ]


def _page_lines_oracle(text: str, cased: bool, cjk: bool) -> list[str]:
    """The line joining asked of the whole joined text each time (the former code: right,
    but quadratic in the number of lines joined)."""
    lines: list[str] = []
    for line in text.splitlines():
        previous = lines[-1] if lines else ""
        open_ended = previous.rstrip()[-1:] in _CJK_COMMAS or bool(_unclosed_brackets(previous))
        if lines and cjk and line.strip() and open_ended:
            lines[-1] = previous.rstrip() + line.lstrip()
            continue
        first = line.split(maxsplit=1)[0] if line.strip() else ""
        unfinished = previous.rstrip(_CLOSERS)[-1:] not in _LINE_ENDERS
        lowercase = _LOWERCASE_WORD.fullmatch(first) is not None and first[0].islower()
        if lines and cased and len(previous.split()) >= 3 and unfinished and lowercase:
            lines[-1] += " " + line
            continue
        lines.append(line)
    return lines


_LINE_PIECES = st.sampled_from(
    [
        "\n",
        " ",
        "a",
        "Der",
        "über",
        "word",
        ".",
        ":",
        "、",
        "，",
        "「",
        "」",
        "（",
        "）",
        "»",
        ")",
        "あ",
    ]
)


@settings(max_examples=3_000, deadline=None)
@example("「a\nb」 c\nd", True, True)  # two words after a CJK joint, not three
@example("a b、\nc d\ne", True, True)
@given(st.lists(_LINE_PIECES, max_size=40).map("".join), st.booleans(), st.booleans())
def test_page_lines_join_as_the_whole_text_oracle_does(text: str, cased: bool, cjk: bool) -> None:
    assert _page_lines(text, cased, cjk) == _page_lines_oracle(text, cased, cjk)


@given(
    st.lists(
        st.sampled_from(["他说", "：“", "好", "。", "！", "？", "”", " ", "，", "走了"]),
        max_size=30,
    )
)
def test_no_chinese_sentence_starts_with_the_quote_that_closes_the_previous_one(
    pieces: list[str],
) -> None:
    text = "".join(pieces)
    sentences = split_sentences(text, "zh")
    assert "".join(sentences).replace(" ", "") == text.replace(" ", "")
    for previous, sentence in itertools.pairwise(sentences):
        if previous.rstrip()[-1:] in "。！？":
            assert not sentence.lstrip().startswith("”")


def test_english_i_before_a_period_is_the_pronoun_not_an_initial() -> None:
    text = "She was satisfied, and so was I. At those moments J. Smith left."
    assert split_sentences(text, "en") == [
        "She was satisfied, and so was I.",
        "At those moments J. Smith left.",
    ]
    # elsewhere a lone capital before a period stays an initial
    assert split_sentences("Es sprach I. Kant. Dann ging er.", "de") == [
        "Es sprach I. Kant.",
        "Dann ging er.",
    ]


@pytest.mark.parametrize(
    ("lang", "text", "count"),
    [
        # the danda of Indic scripts
        ("hi", "भारत एक विशाल देश है। यहाँ अनेक भाषाएँ बोली जाती हैं। क्या आप हिंदी बोलते हैं?", 3),
        ("bn", "আমি বাংলায় কথা বলি। তুমি কেমন আছ?", 2),
        ("mr", "हे पहिले वाक्य आहे॥ हे दुसरे वाक्य आहे।", 2),
        # Arabic question mark, Urdu full stop
        ("ar", "هذه جملة أولى. هذه جملة ثانية؟ نعم، هذه ثالثة!", 3),
        ("fa", "این جمله اول است. آیا این دومی است؟ بله.", 3),
        ("ur", "پاکستان ایک ملک ہے۔ یہاں بہت سی زبانیں بولی جاتی ہیں۔ کیا آپ اردو بولتے ہیں؟", 3),
        # Armenian (its own full stop, and the ASCII colon typed for it), Ethiopic, Myanmar,
        # Khmer, Greek question mark (U+037E and the ASCII semicolon)
        ("hy", "Սա առաջին նախադասությունն է։ Սա երկրորդն է։", 2),
        ("hy", "Նրա եղբօր անունը Յոբաղ է: Նա է յօրինել երգն ու քնարը:", 2),
        ("hye", "Նրա եղբօր անունը Յոբաղ է: Նա է յօրինել երգն ու քնարը:", 2),
        ("am", "ይህ የመጀመሪያው ዓረፍተ ነገር ነው። ይህ ሁለተኛው ነው፧ አዎ።", 3),
        ("my", "ဒါက ပထမ စာကြောင်း ဖြစ်ပါတယ်။ ဒါက ဒုတိယ ဖြစ်ပါတယ်။", 2),
        ("km", "នេះគឺជាប្រយោគទីមួយ។ នេះគឺជាប្រយោគទីពីរ។", 2),
        ("el", "Αυτή είναι η πρώτη πρόταση. Είναι αυτή η δεύτερη; Ναι.", 3),
        ("el", "Είναι αυτή η δεύτερη\u037e Ναι.", 2),
        # the look-alikes stay punctuation elsewhere
        ("en", "Note: this is one; so is this. Yes.", 2),
        ("de", "Hinweis: Das ist einer; und das auch. Ja.", 2),
    ],
)
def test_sentence_ends_of_other_scripts(lang: str, text: str, count: int) -> None:
    sentences = split_sentences(text, lang)
    assert len(sentences) == count, sentences
    assert "".join("".join(sentences).split()) == "".join(text.split())  # nothing lost
