"""Text utilities shared by the stages: Japanese morphemes (fugashi + unidic-lite) and tokens."""

from __future__ import annotations

import functools
import re
import sys
import threading
import unicodedata
from dataclasses import dataclass
from typing import Any

import fugashi
import langcodes
import regex

# A word of letters and the combining marks that belong to them (``is_word``).
_LETTER_WORD = regex.compile(r"\p{L}[\p{L}\p{M}]*")

_JAPANESE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


@dataclass(frozen=True, slots=True)
class Morpheme:
    """One morpheme of Japanese text as UniDic describes it."""

    surface: str
    lemma: str
    base: str
    pos: tuple[str, str, str, str]

    @property
    def is_noun(self) -> bool:
        """Content noun (common or proper, incl. sahen nouns), not a pronoun or numeral."""
        return self.pos[0] == "名詞" and self.pos[1] in {"普通名詞", "固有名詞"}

    @property
    def is_sahen_noun(self) -> bool:
        """Action noun that takes する (UniDic 名詞-普通名詞-サ変可能)."""
        return self.pos[0] == "名詞" and self.pos[2].startswith("サ変")

    @property
    def is_verb(self) -> bool:
        return self.pos[0] == "動詞"

    @property
    def is_punctuation(self) -> bool:
        return self.pos[0] in {"補助記号", "空白"}


_local = threading.local()


def _tagger() -> Any:
    # One tagger per thread: a MeCab tagger is not safe to share between threads (the
    # gateway runs handlers in a thread pool; one shared tagger gave wrong morphemes under
    # concurrent calls: 60 of 600 analyses of four threads), nor across processes.
    tagger = getattr(_local, "tagger", None)
    if tagger is None:
        tagger = _local.tagger = fugashi.Tagger()
    return tagger


# MeCab is given text in pieces of at most this many characters: it crashed the process
# (SIGSEGV) on about 190,000 characters without a break (a base64 blob, a page of kanji),
# and grew faster than linearly on long runs of one script before that.
MECAB_PIECE_CHARS = 8_192
# Where a piece may end, best first: a line, a sentence, a space, a clause.
_PIECE_ENDS = ("\n", "。", "！", "？", ". ", " ", "\u3000", "、", "，")


def mecab_pieces(text: str, limit: int = MECAB_PIECE_CHARS) -> list[str]:
    """``text`` cut into pieces of at most ``limit`` characters, each after the best break
    found in the second half of its window (a hard cut when there is none)."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > limit:
        window = text[start : start + limit]
        end = limit
        for mark in _PIECE_ENDS:
            found = window.rfind(mark)
            if found >= limit // 2:
                end = found + len(mark)
                break
        pieces.append(window[:end])
        start += end
    pieces.append(text[start:])
    return pieces


def analyse_japanese(text: str) -> list[Morpheme]:
    """Split Japanese text into UniDic morphemes (surface, lemma, base form, POS).

    A NUL is read as a space: MeCab takes its input as a C string, so everything after a
    NUL was silently lost (other control characters come back as morphemes of their own).
    Long text is analysed in pieces (:func:`mecab_pieces`)."""
    text = text.replace("\x00", " ")
    if len(text) > MECAB_PIECE_CHARS:
        return [m for piece in mecab_pieces(text) for m in analyse_japanese(piece)]
    morphemes: list[Morpheme] = []
    for word in _tagger()(text):
        feature = word.feature
        pos = (feature.pos1 or "*", feature.pos2 or "*", feature.pos3 or "*", feature.pos4 or "*")
        lemma = feature.lemma if feature.lemma and feature.lemma != "*" else word.surface
        base = feature.orthBase if feature.orthBase and feature.orthBase != "*" else word.surface
        morphemes.append(Morpheme(word.surface, lemma, base, pos))
    return morphemes


_HALFWIDTH_KANA = re.compile("[\uff61-\uff9f]+")


def normalise_japanese(text: str) -> str:
    """One spelling for one word: NFC (a decomposed データ composed) and half-width katakana
    (ﾃﾞｰﾀ) made full-width. Nothing else changes: full-width Latin letters and digits are kept
    (NFKC would turn them into ASCII, and UniDic and treebank forms keep them)."""
    text = unicodedata.normalize("NFC", text)
    return _HALFWIDTH_KANA.sub(lambda run: unicodedata.normalize("NFKC", run.group()), text)


def japanese_nouns(text: str) -> list[str]:
    """Content nouns of a Japanese text, by surface form, in order (duplicates kept).

    Numbers and the counter after a number are left out (５台, ２０件, ３時, １００万円; UniDic
    tags full-width １０ before 人 as a common noun): shared by unrelated articles of a day,
    they paired a traffic accident with a baseball game on their own."""
    nouns: list[str] = []
    after_number = False
    for morpheme in analyse_japanese(text):
        number = morpheme.pos[1] == "数詞" or morpheme.surface.isdecimal()
        counter = after_number and morpheme.pos[2] == "助数詞可能"
        if morpheme.is_noun and not number and not counter:
            nouns.append(morpheme.surface)
        after_number = number
    return nouns


@functools.cache
def _word_re() -> re.Pattern[str]:
    # A word: \w (letters, digits, _) and combining marks (Unicode category M), which \w
    # leaves out, so Devanagari "किताब" or Thai fell apart into letters and signs; joined by
    # - ' ’ inside. The marks' ranges are read from unicodedata once, on first use.
    ranges: list[str] = []
    first = previous = -2
    for code in range(sys.maxunicode + 1):
        if unicodedata.category(chr(code)).startswith("M"):
            if code != previous + 1:
                if first >= 0:
                    ranges.append(f"{re.escape(chr(first))}-{re.escape(chr(previous))}")
                first = code
            previous = code
    ranges.append(f"{re.escape(chr(first))}-{re.escape(chr(previous))}")
    word = rf"[\w{''.join(ranges)}]"
    return re.compile(rf"{word}+(?:[-'’]{word}+)*|(?:(?!{word})[^\s])")


def is_word(token: str) -> bool:
    """Whether a token is letters only, as ``str.isalpha`` but with the combining marks of
    abugidas (a Gujarati or Hindi vowel sign, a Thai tone mark) counted with their letters:
    ``"ઈસુએ".isalpha()`` is False. It starts with a letter."""
    return _LETTER_WORD.fullmatch(token) is not None


def tokenize_words(text: str) -> list[str]:
    """Unicode word/punctuation tokens for space-separated languages (text read as NFC)."""
    return _word_re().findall(unicodedata.normalize("NFC", text))


# Three-letter codes langcodes keeps as they are but that are read as a two-letter language:
# Mandarin is Chinese ("jpn", "zho", "kor" ... langcodes maps itself; "jpn" text was once
# split as Japanese but joined with spaces and never sent to the thesaurus stage).
_TWO_LETTER = {"cmn": "zh"}


@functools.lru_cache(maxsize=1024)
def base_lang(lang: str) -> str:
    """The language of a tag: ``ja_JP``, ``ja-JP``, ``JA`` and ``jpn`` are all ``ja``; other
    three-letter codes (ISO 639-2/3: ``deu``, ``ger``, ``hye``, ``ell``) their two-letter
    code where one exists (langcodes), so that the language's rules apply to them too."""
    code = lang.replace("_", "-").split("-")[0].lower()
    if code in _TWO_LETTER:
        return _TWO_LETTER[code]
    if len(code) == 3 and code.isalpha():
        try:
            return str(langcodes.standardize_tag(code)).split("-")[0]
        except ValueError:  # not a language code: kept as it is
            return code
    return code


def looks_japanese(text: str) -> bool:
    """True when the text contains kana or CJK ideographs."""
    return _JAPANESE_RE.search(text) is not None
