"""Tests of URL language markers: every scheme reduces a page and its translation to one key."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.intake.url_language import (
    has_language_marker,
    language_markers,
    language_parameters,
    strip_language,
)

SCHEMES = [
    ("https://x.org/en/about.html", "https://x.org/fr/about.html"),
    ("https://x.org/eng/report/7.asp", "https://x.org/fra/report/7.asp"),
    ("https://x.org/english/a.html", "https://x.org/francais/a.html"),
    ("https://x.org/en-us/a", "https://x.org/fr-ca/a"),
    ("https://en.x.org/a", "https://fr.x.org/a"),
    ("https://x.org/a?id=3&lang=en", "https://x.org/a?lang=fr&id=3"),
    ("https://x.org/a?hl=en", "https://x.org/a?hl=fr"),
    ("https://x.org/doc_en.html", "https://x.org/doc_fr.html"),
    ("https://x.org/doc-eng.htm", "https://x.org/doc-fra.htm"),
    ("https://x.org/s_0101_e.htm", "https://x.org/s_0101_f.htm"),
    ("https://x.org/w/en:archive", "https://x.org/w/fr:archive"),
    ("https://x.org/eng-s100.html", "https://x.org/fre-s100.html"),
    ("https://x.org/index_3.html", "https://x.org/index_3_fr.html"),
    ("https://x.org/a/b", "https://x.org/fr/a/b"),
    ("https://x.org/health/", "https://x.org/health/index_fr.html"),
    ("https://x.org/p?id=S2&lang=en", "https://x.org/p?id=S2"),
    ("https://x.org/d.aspx?goto=en_us-home", "https://x.org/d.aspx?goto=fr_ca-home"),
    ("http://www.x.org/us/a.html", "https://x.org/fr/a.html"),
]


@pytest.mark.parametrize(("english", "french"), SCHEMES)
def test_a_page_and_its_translation_reduce_to_one_key(english: str, french: str) -> None:
    assert strip_language(english, "en") == strip_language(french, "fr")
    assert has_language_marker(english, "en") or has_language_marker(french, "fr")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("https://x.org/en/a.html", "https://x.org/en/b.html"),  # other pages
        ("https://x.org/a?id=3&lang=en", "https://x.org/a?id=4&lang=fr"),
        ("https://x.org/en/a", "https://y.org/fr/a"),  # other sites
        ("https://x.org/entry/a", "https://x.org/frame/a"),  # words starting with a code
        ("https://x.org/friends/a", "https://x.org/english-friends/a"),
    ],
)
def test_other_pages_keep_other_keys(first: str, second: str) -> None:
    assert strip_language(first, "en") != strip_language(second, "fr")


def test_markers_come_from_the_language_data() -> None:
    assert {"en", "eng", "english", "us"} <= language_markers("en")
    assert {"fr", "fra", "fre", "french", "francais"} <= language_markers("fr")
    assert {"de", "deu", "ger", "german", "deutsch"} <= language_markers("de-AT")
    assert {"zh", "zho", "chi", "chinese", "cn"} <= language_markers("zh")
    assert language_markers("xx") >= {"xx"}  # an unknown code marks itself only


def test_a_sites_own_language_parameter_is_learned_from_its_urls() -> None:
    english = [f"https://x.org/index.php?article_id={k}&clang=1" for k in range(5)]
    french = [f"https://x.org/index.php?article_id={k}&clang=2" for k in range(3)]
    ignore = language_parameters(english, french)
    assert ignore == frozenset({"clang"})
    assert strip_language(english[2], "en", ignore) == strip_language(french[2], "fr", ignore)
    # a parameter that varies within a language (the article id) is no language code, nor
    # one seen once on a side
    assert language_parameters(english, french[:1]) == frozenset()


@given(
    path=st.lists(st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True), min_size=1, max_size=4),
    lang=st.sampled_from(["en", "fr", "de", "zh", "ja", "is"]),
)
def test_stripping_is_idempotent_and_a_plain_url_is_unmarked(path: list[str], lang: str) -> None:
    url = "https://site.example/" + "/".join(path)
    once = strip_language(url, lang)
    assert strip_language("https://" + once, lang) == once
    if not any(part in language_markers(lang) for part in path):
        marked = "https://site.example/" + "/".join([lang, *path])
        assert has_language_marker(marked, lang)
        assert strip_language(marked, lang) == strip_language(url, lang)
