"""What a corpus user expects of a parallel corpus, per sentence pair: a deduplication key
(Bifixer-style: Unicode NFKC, case, whitespace and punctuation do not count) and a flag for
pairs that are no translation (untranslated: identical or near-identical sides; wrong
language: a side confidently not in its declared language, :mod:`shared.langid`).

Pure: no store, queue or web imports. The store keeps the key and the flag of every pair;
exports give each key once and leave flagged pairs out unless asked.
"""

from __future__ import annotations

import difflib
import unicodedata

from shared import langid
from shared.ids import content_id

UNTRANSLATED = "untranslated"
WRONG_LANGUAGE = "wrong-language"
# menus and footers translated on both pages (template by the content model, on both sides)
BOILERPLATE = "boilerplate"
FLAGS = (UNTRANSLATED, WRONG_LANGUAGE, BOILERPLATE)
# Sides this alike (difflib ratio of the normalised texts) are one text with a typo-level
# change, not a translation; only for texts of NEAR_MIN_CHARS or more, where a cognate
# ("Information" / "Informationen") no longer explains the likeness.
NEAR_IDENTICAL = 0.95
NEAR_MIN_CHARS = 20


def normalise(text: str) -> str:
    """The text as deduplication sees it: NFKC, case-folded, letters, marks and digits only
    (whitespace, punctuation and symbols dropped). A text of none of those is kept
    NFKC-folded with its whitespace collapsed, so "---" and "***" stay apart."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(char for char in folded if unicodedata.category(char)[0] in "LMN")
    return kept or " ".join(folded.split())


def dedup_key(src_lang: str, tgt_lang: str, src: str, tgt: str) -> str:
    """The pair's deduplication key: its languages (base codes, lower case) and both sides
    normalised. Pairs with the same key are one pair of the corpus."""
    return content_id(
        langid.language_group(src_lang),
        langid.language_group(tgt_lang),
        normalise(src),
        normalise(tgt),
        prefix="dk",
    )


def _letters_only(normalised: str) -> str:
    return "".join(char for char in normalised if not unicodedata.category(char).startswith("N"))


def untranslated(src: str, tgt: str) -> bool:
    """Identical or near-identical sides: equal once normalised, equal but for their digits
    ("Seite 2" / "Seite 3" on an untranslated page), or alike to NEAR_IDENTICAL when long."""
    a, b = normalise(src), normalise(tgt)
    if a == b:
        return True
    letters_a, letters_b = _letters_only(a), _letters_only(b)
    if letters_a and letters_a == letters_b:
        return True
    if min(len(a), len(b)) < NEAR_MIN_CHARS:
        return False
    # real_quick_ratio and quick_ratio are upper bounds of ratio (difflib's documentation):
    # the sides of most translations fail them, and the quadratic ratio is not computed.
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return (
        matcher.real_quick_ratio() >= NEAR_IDENTICAL
        and matcher.quick_ratio() >= NEAR_IDENTICAL
        and matcher.ratio() >= NEAR_IDENTICAL
    )


def pair_flag(src: str, tgt: str, src_lang: str, tgt_lang: str) -> str:
    """'' for a pair that may be a translation, else why not: UNTRANSLATED for a pair of two
    languages whose sides are (near-)identical, WRONG_LANGUAGE when a side is confidently not
    its declared language. A monolingual pair (a page and its mobile version) may have
    identical sides; only the language check applies to it."""
    translation = langid.language_group(src_lang) != langid.language_group(tgt_lang)
    if translation and untranslated(src, tgt):
        return UNTRANSLATED
    if langid.wrong_language(src, src_lang) or langid.wrong_language(tgt, tgt_lang):
        return WRONG_LANGUAGE
    return ""
