"""The tokens IBM Model 1 reads (:mod:`services.lexical.model1`), and the page matcher's and
the pair features' too: lower-cased words and punctuation; Japanese morphemes (UniDic, their
dictionary forms), Chinese words (jieba), CJK punctuation written as ASCII.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

import regex

from shared.text import analyse_japanese, base_lang

_TOKEN_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)
# Outside ASCII, a word holds its combining marks too: Python's \w leaves out the vowel
# signs and viramas of Devanagari, Bengali, Tamil, Myanmar ... (categories Mn, Mc), so
# "भारत" would be the tokens भ ा रत. The regex library knows the Unicode classes.
_MARKED_TOKEN_RE = regex.compile(r"[\w\p{M}]+|[^\w\s\p{M}]")
# Typographic quotes unified (str.replace per quote: str.translate with a dict table cost
# about 20 microseconds a sentence, the largest part of tokenizing).
_QUOTES = (("«", '"'), ("»", '"'), ("“", '"'), ("”", '"'), ("„", '"'), ("‘", "'"), ("’", "'"))

# CJK punctuation written as its ASCII counterpart (after NFKC, which already folds the
# full-width forms of ASCII: ，！？：；（）０-９), so that punctuation, brackets and quotes are
# identical-token cues across scripts.
_CJK_PUNCTUATION = str.maketrans(
    {"。": ".", "、": ",", "「": '"', "」": '"', "『": '"', "』": '"', "《": '"', "》": '"',
     "〈": '"', "〉": '"', "【": "(", "】": ")", "〔": "(", "〕": ")", "・": "-", "～": "~",
     "…": "...", "—": "-", "–": "-"}
)  # fmt: skip


def tokenize(sentence: str, lang: str | None) -> list[str]:
    """Lower-cased word and punctuation tokens. Japanese: UniDic morphemes, each as its
    dictionary form (so that inflected verbs meet their dictionary headword); Chinese: jieba's
    words; both after NFKC and with CJK punctuation written as ASCII."""
    return list(tokens(sentence, lang))


# Sentences come back: a site's earlier sentence pairs join each of its page pairs' Model 1
# training (sentence_align's handler), and segmenting Chinese and Japanese is the dearest part
# of encoding them. Sentences up to CACHED_LENGTH characters are remembered (20,000 of them:
# at most about 40 MB).
CACHED_LENGTH = 500


def tokens(sentence: str, lang: str | None) -> Sequence[str]:
    """The tokens of a sentence (remembered for sentences up to CACHED_LENGTH characters)."""
    if len(sentence) <= CACHED_LENGTH:
        return _cached_tokens(sentence, lang)
    return _tokenize(sentence, lang)


@functools.lru_cache(maxsize=20_000)
def _cached_tokens(sentence: str, lang: str | None) -> tuple[str, ...]:
    return tuple(_tokenize(sentence, lang))


def clear_token_cache() -> None:
    """Forget the remembered tokens of sentences (for measurements that start cold)."""
    _cached_tokens.cache_clear()


def _tokenize(sentence: str, lang: str | None) -> list[str]:
    base = base_lang(lang or "")
    text = sentence.lower()
    if not text.isascii():
        for quote, plain in _QUOTES:
            if quote in text:
                text = text.replace(quote, plain)
    if base in ("ja", "zh"):
        text = unicodedata.normalize("NFKC", text).translate(_CJK_PUNCTUATION).lower()
    if base == "ja":
        return [m.base or m.surface for m in analyse_japanese(text) if not m.surface.isspace()]
    if base == "zh":
        return [word for word in _segment_chinese(text) if not word.isspace()]
    if text.isascii():
        return _TOKEN_RE.findall(text)
    return _MARKED_TOKEN_RE.findall(text)


@functools.lru_cache(maxsize=1)
def _jieba() -> Any:
    """jieba (imported on first use: it builds its prefix dictionary then, about a second)."""
    import jieba  # lazy: Chinese text only, so jieba loads on first use

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def _segment_chinese(text: str) -> list[str]:
    """Chinese words by jieba (its default dictionary and HMM for unknown words)."""
    words: list[str] = _jieba().lcut(text)
    return words
