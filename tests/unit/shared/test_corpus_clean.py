"""Deduplication keys and untranslated / wrong-language flags of shared.corpus_clean."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from shared.corpus_clean import (
    UNTRANSLATED,
    WRONG_LANGUAGE,
    dedup_key,
    normalise,
    pair_flag,
    untranslated,
)


def test_normalise_ignores_width_case_whitespace_and_punctuation() -> None:
    assert (
        normalise("Ｓｋｉｐ  to the\tCONTENT.")
        == normalise("skip to the content")
        == ("skiptothecontent")
    )
    assert normalise("Straße") == normalise("STRASSE")  # case folding
    assert normalise("café") == normalise("cafe\u0301")  # NFKC composes the accent
    assert normalise("---") != normalise("***")  # no letters: the text itself


def test_dedup_key_joins_variants_and_keeps_languages_apart() -> None:
    key = dedup_key("en", "de", "Home", "Startseite")
    assert dedup_key("EN-gb", "de", " home ", "Startseite!") == key
    assert dedup_key("en", "fr", "Home", "Startseite") != key
    assert dedup_key("en", "de", "Startseite", "Home") != key  # sides are not symmetric
    assert dedup_key("en", "de", "Home", "Start seite 2") != key


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüß", min_size=1, max_size=8)


glues = st.sampled_from([" ", "  ", "\t", " - ", ", "])


@given(st.lists(words, min_size=1, max_size=6), st.lists(words, min_size=1, max_size=6),
       glues, st.sampled_from(["", ".", "!", " ?"]))  # fmt: skip
def test_dedup_key_ignores_case_spacing_and_punctuation(
    src: list[str], tgt: list[str], glue: str, end: str
) -> None:
    plain = dedup_key("en", "de", " ".join(src), " ".join(tgt))
    varied = dedup_key("en", "de", glue.join(src).upper() + end, glue.join(tgt).title() + end)
    assert varied == plain


def test_identical_and_near_identical_sides_are_untranslated() -> None:
    assert untranslated("Skip to the content.", "Skip to the content.")
    assert untranslated("fax: +49-8803-488 560 4", "Fax: +49-8803-488 560 4")
    assert untranslated("Seite 2 von 10", "Seite 3 von 10")  # only the digits differ
    long = "Albatec GmbH, Iblherstrasse 10 b, 82380 Peissenberg, Germany"
    assert untranslated(long, long.replace("Peissenberg", "Peißenberg"))
    # a translation that happens to share most letters is not: cognates, short words
    assert not untranslated("Information", "Informationen")
    assert not untranslated("Contact", "Kontakt")
    assert not untranslated("Home", "Startseite")


def test_pair_flags() -> None:
    assert pair_flag("Skip to the content.", "Skip to the content.", "en", "de") == UNTRANSLATED
    english = "The company was founded in 2002 and has built machines for its customers since."
    german = "Die Firma wurde im Jahr 2002 gegründet und baut seitdem Maschinen für Kunden."
    assert pair_flag(english, german, "en", "de") == ""
    assert pair_flag(english, english + " Today.", "en", "de") == UNTRANSLATED
    assert pair_flag(english, "Willkommen", "en", "fr") == ""  # too short for a verdict
    assert pair_flag(english, german, "en", "fr") == WRONG_LANGUAGE  # the target is German
    assert pair_flag(german, english, "en", "de") == WRONG_LANGUAGE
    # a page and its mobile version: the same sentence on both sides is what they share
    assert pair_flag("東北で大雪、交通に影響", "東北で大雪、交通に影響", "ja", "ja") == ""


_NEAR_TEXT = st.text(alphabet="abcdeé 12", min_size=0, max_size=60)


@given(_NEAR_TEXT, st.lists(st.tuples(st.integers(0, 59), st.sampled_from("abxé1 ")), max_size=4))
def test_the_quick_ratio_bounds_change_no_verdict(text: str, edits: list[tuple[int, str]]) -> None:
    # oracle: the verdict from difflib's full ratio alone, without the upper-bound prefilters;
    # near-identical inputs (a few edits of one text) reach the ratio test on both sides of it
    import difflib

    from shared.corpus_clean import NEAR_IDENTICAL, NEAR_MIN_CHARS

    other = list(text)
    for position, char in edits:
        if other:
            other[position % len(other)] = char
    edited = "".join(other)
    a, b = normalise(text), normalise(edited)
    letters_a, letters_b = ("".join(c for c in side if not c.isdigit()) for side in (a, b))
    expected = (
        a == b
        or (bool(letters_a) and letters_a == letters_b)
        or (
            min(len(a), len(b)) >= NEAR_MIN_CHARS
            and difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= NEAR_IDENTICAL
        )
    )
    assert untranslated(text, edited) == expected
