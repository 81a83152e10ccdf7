"""The wrong-language verdict of shared.langid: confident only, never on short texts."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared import langid


def test_a_long_text_in_another_language_is_wrong_and_in_its_own_is_not() -> None:
    german = "Die Firma wurde im Jahr 2002 gegründet und baut seitdem Maschinen für Kunden."
    assert langid.wrong_language(german, "en")
    assert langid.wrong_language(german, "fr")
    assert not langid.wrong_language(german, "de")
    assert not langid.wrong_language(german, "de-CH")  # a region does not change the language


@pytest.mark.parametrize(
    ("text", "declared"),
    [
        ("Impressum", "en"),  # a menu item: 9 letters, no verdict
        ("Home", "de"),
        ("2019 - 2024", "fr"),  # numbers are no evidence
        ("Kontakt", "en"),
    ],
)
def test_short_segments_are_never_called_wrong(text: str, declared: str) -> None:
    assert langid.letters(text) < langid.MIN_LETTERS
    assert not langid.wrong_language(text, declared)


def test_a_language_the_model_does_not_know_is_never_wrong() -> None:
    text = "Die Firma wurde im Jahr 2002 gegründet und baut seitdem Maschinen für Kunden."
    assert not langid.known("haw")  # Hawaiian: not among py3langid's languages
    assert not langid.wrong_language(text, "haw")


def test_close_languages_share_a_group() -> None:
    norwegian = "Selskapet ble grunnlagt i 2002 og bygger maskiner for kunder over hele verden."
    assert langid.language_group("nb") == langid.language_group("nn") == "no"
    assert not langid.wrong_language(norwegian, "nb")
    assert not langid.wrong_language(norwegian, "nn")
    assert langid.language_group("zh_Hant") == "zh"
    assert langid.model_version().startswith("py3langid-")


@given(st.text(max_size=30), st.integers(-1, 12))
def test_has_letters_agrees_with_counting_them(text: str, count: int) -> None:
    assert langid.has_letters(text, count) == (langid.letters(text) >= count)


def test_the_cache_keeps_probabilities_not_verdicts_of_other_languages() -> None:
    langid.clear_cache()
    text = "Alle Rechte vorbehalten, auch die der Übersetzung in andere Sprachen."
    fresh = langid.declared_probability(text, "de", cache=False)
    assert langid.declared_probability(text, "de") == fresh  # first call fills the cache
    assert langid.declared_probability(text, "de-AT") == fresh  # one group, one entry
    assert langid.wrong_language(text, "en") == langid.wrong_language(text, "en", cache=False)
    assert langid.declared_probability(text, "en") != fresh  # the group is part of the key
    long_text = text * 10  # over CACHED_CHARS: computed every time, never kept
    assert len(long_text) > langid.CACHED_CHARS
    assert langid.declared_probability(long_text, "de") == langid.declared_probability(
        long_text, "de", cache=False
    )


def _ranked_group_probability(text: str, declared: str) -> float:
    """The oracle: py3langid's own ``rank`` (every language, best first), summed over the
    declared language's group, as shared.langid computed it before the compiled walk."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = _reference_identifier(LanguageIdentifier, MODEL_FILE)
    group = langid.language_group(declared)
    return sum(
        float(probability)
        for label, probability in identifier.rank(text)
        if langid.language_group(label) == group
    )


@functools.cache
def _reference_identifier(cls: Any, model_file: str) -> Any:
    return cls.from_model_file(model_file, norm_probs=True)


REAL_TEXTS = [
    "Die Firma wurde im Jahr 2002 gegründet und baut seitdem Maschinen für Kunden.",
    "你要用歌斐木造一只方舟，分一间一间地造，里外抹上松香。",
    "And Noah begat three sons, Shem, Ham, and Japheth.",
    "プロ野球、来季の日程が判明",
    "Ово је српски језик, а ово je latinica.",
    "HOME COLLECTIONS",  # all capitals: the library lowers them first
    "Fussballstadion Fussballstadion",
    "2019 - 2024",
    "",
    "   ",
    "\ud800 a lone surrogate",  # encoded with surrogatepass, as the library does
]


@pytest.mark.parametrize("text", REAL_TEXTS)
@pytest.mark.parametrize("declared", ["en", "de", "zh", "ja", "sr", "hr", "fr"])
def test_group_probability_is_py3langids_own_to_the_bit(text: str, declared: str) -> None:
    got = langid.declared_probability(text, declared, cache=False)
    assert got == _ranked_group_probability(text, declared)


@given(st.text(max_size=200), st.sampled_from(["en", "de", "zh", "ru", "no", "ms", "xx"]))
def test_group_probability_matches_the_library_on_any_text(text: str, declared: str) -> None:
    got = langid.declared_probability(text, declared, cache=False)
    assert got == _ranked_group_probability(text, declared)
