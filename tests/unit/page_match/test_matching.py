"""Tests of page matching: URL rules, the similarities, one-to-one assignment, whole sites."""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.page_match import matching
from services.page_match.features import PageFeatures, page_features
from services.page_match.matching import (
    best_assignment,
    break_similarity,
    match_pages,
    one_to_one,
)
from shared.errors import InvalidInput
from tests.conftest import kit_path
from tests.unit.page_match.textberg_site import textberg_site

EN = "<html><body><nav><a href='/en/'>Home</a></nav><h1>{title}</h1>{body}</body></html>"
DE = "<html><body><nav><a href='/de/'>Start</a></nav><h1>{title}</h1>{body}</body></html>"
TEXTS = {
    "en": [
        "The new bridge over the Rhine opened in 1998 after four years of work.",
        "It carries 40,000 cars a day between Basel and the German border.",
    ],
    "de": [
        "Die neue Brücke über den Rhein wurde 1998 nach vier Jahren Bauzeit eröffnet.",
        "Sie trägt täglich 40.000 Autos zwischen Basel und der deutschen Grenze.",
    ],
}


def _page(url: str, lang: str, paragraphs: list[str]) -> PageFeatures:
    template = EN if lang == "en" else DE
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return page_features(url, template.format(title=paragraphs[0][:20], body=body))


def test_url_rule_pairs_language_directories_and_query_parameters() -> None:
    pages = [
        _page("https://a.example/en/bridge.html", "en", TEXTS["en"]),
        _page("https://a.example/de/bridge.html", "de", TEXTS["de"]),
        _page("https://b.example/page?id=7&lang=en", "en", TEXTS["en"]),
        _page("https://b.example/page?id=7&lang=de", "de", TEXTS["de"]),
    ]
    found = {(m.src_url, m.tgt_url, m.by, m.src_lang, m.tgt_lang) for m in match_pages(pages)}
    assert found == {
        ("https://a.example/de/bridge.html", "https://a.example/en/bridge.html", "url", "de", "en"),
        ("https://b.example/page?id=7&lang=de", "https://b.example/page?id=7&lang=en", "url", "de",
         "en"),
    }  # fmt: skip


def test_languages_are_identified_from_the_text_not_the_label() -> None:
    english = " ".join(TEXTS["en"] * 2)
    page = page_features("https://x.example/p/1", f"<p>{english}</p>", declared="de")
    assert page.lang == "en"
    short = page_features("https://x.example/p/2", "<p>Impressum</p>", declared="de")
    assert short.lang == "de"  # too short to overrule the declaration


def test_pc_and_mobile_versions_pair_by_url() -> None:
    pages = [
        _page("https://news.example/a/1.html", "en", TEXTS["en"]),
        _page("https://m.news.example/a/1.html", "en", TEXTS["en"][:1]),
    ]
    (pair,) = match_pages(pages)
    assert (pair.kind, pair.src_url) == ("pc-mobile", "https://news.example/a/1.html")


positions = st.lists(st.floats(0.01, 0.99), min_size=0, max_size=6).map(
    lambda values: np.array(sorted(values))
)


@given(positions, positions)
def test_break_similarity_is_symmetric_bounded_and_one_on_itself(
    a: np.ndarray, b: np.ndarray
) -> None:
    assert break_similarity(a, b) == pytest.approx(break_similarity(b, a))
    assert 0.0 <= break_similarity(a, b) <= 1.0
    assert break_similarity(a, a) == pytest.approx(1.0)


scores = st.lists(
    st.tuples(st.floats(0.01, 1.0), st.integers(0, 3), st.integers(0, 3)), max_size=12
)


@given(scores)
def test_one_to_one_keeps_pages_once_and_only_best_of_row_or_column(
    scored: list[tuple[float, int, int]],
) -> None:
    matrix = np.zeros((4, 4))
    for value, i, j in scored:
        matrix[i, j] = max(matrix[i, j], value)
    chosen = one_to_one(scored, 4, 4)
    assert len({i for _, i, _ in chosen}) == len({j for _, _, j in chosen}) == len(chosen)
    for value, i, j in chosen:
        assert value == matrix[i, j] > 0
        assert value >= matrix[i].max() or value >= matrix[:, j].max()
    # the assignment before that filter has the greatest total: brute force over permutations
    best = max(sum(matrix[i, p[i]] for i in range(4)) for p in itertools.permutations(range(4)))
    assignment = best_assignment(matrix)
    assert sum(matrix[i, j] for i, j in assignment) == pytest.approx(best)
    assert {(i, j) for _, i, j in chosen} <= set(assignment)


@given(scores)
def test_the_greedy_fallback_is_one_to_one_too(scored: list[tuple[float, int, int]]) -> None:
    original = matching.DENSE_CELLS
    matching.DENSE_CELLS = 0
    try:
        chosen = one_to_one(scored, 4, 4)
    finally:
        matching.DENSE_CELLS = original
    assert len({i for _, i, _ in chosen}) == len({j for _, _, j in chosen}) == len(chosen)
    if scored:
        assert chosen[0][0] == max(value for value, _, _ in scored)


def test_a_textberg_site_with_opaque_urls_is_matched_by_content() -> None:
    crawl, gold = textberg_site(["test0", "test1", "test2"], "site.example", random.Random(7))
    pages = [page_features(url, html) for url, html in crawl]
    found = {(m.src_url, m.tgt_url) for m in match_pages(pages)}
    hits = len(found & gold)
    assert len(gold) >= 25 and hits / len(gold) >= 0.8 and hits / max(len(found), 1) >= 0.8


def test_copies_of_one_template_without_text_of_their_own_pair_at_most_once() -> None:
    # 10,000 pages of one site, one template, no text of their own (features computed once
    # a language: what matching does with them is the point, bounded by the copies' digest)
    template = "<html><body><nav>Home About</nav><p>{}</p></body></html>"
    english = page_features("https://c.example/p/0", template.format(" ".join(TEXTS["en"])))
    german = page_features("https://c.example/q/0", template.format(" ".join(TEXTS["de"])))
    pages = [dataclasses.replace(english, url=f"https://c.example/p/{k}") for k in range(5_000)]
    pages += [dataclasses.replace(german, url=f"https://c.example/q/{k}") for k in range(5_000)]
    assert len(match_pages(pages)) <= 1


def test_a_page_without_text_or_letters_is_undetermined_and_waits() -> None:
    empty = page_features("https://e.example/en/a", "<html><body></body></html>")
    numbers = page_features("https://e.example/b", "<p>12 345 678 +++ 90</p>")
    assert empty.lang == "en"  # no text: the URL's language marker
    assert numbers.lang == "und"
    assert match_pages([numbers, _page("https://e.example/c", "de", TEXTS["de"])]) == []


def test_features_round_trip_through_json() -> None:
    import json

    page = _page("https://a.example/en/bridge.html", "en", TEXTS["en"])
    assert PageFeatures.from_json(json.loads(json.dumps(page.to_json()))) == page
    with pytest.raises(InvalidInput, match="malformed page features"):
        PageFeatures.from_json({"url": "x"})


def test_pages_without_text_are_paired_by_url_only() -> None:
    # an image gallery in two languages: no text to compare, so no content pair between
    # two such pages, while their URL twins still pair
    gallery = "<html><body><img src='/a.jpg'><img src='/b.jpg'></body></html>"
    pages = [
        page_features("https://g.example/p/1", gallery, declared="en"),
        page_features("https://g.example/p/2", gallery.replace("b.jpg", "c.jpg"), declared="de"),
        page_features("https://g.example/en/x", gallery.replace("a.jpg", "d.jpg"), declared="en"),
        page_features("https://g.example/de/x", gallery.replace("a.jpg", "e.jpg"), declared="de"),
    ]
    assert all(page.text_length == 0 for page in pages)
    found = {(m.src_url, m.tgt_url, m.by) for m in match_pages(pages)}
    assert found == {("https://g.example/de/x", "https://g.example/en/x", "url")}


def test_site_wide_anchors_are_no_evidence() -> None:
    # every page links to the menu and shows the logo: those anchors weigh nothing, and a
    # pair of pages with nothing else in common has no anchor similarity (not 1.0)
    site = [frozenset({"link:home", "img:logo.png", f"#{k}"}) for k in range(10)]
    idf = matching._idf(site, singletons=False, common=matching.BOILERPLATE_SHARE)
    assert idf["link:home"] == idf["img:logo.png"] == 0.0
    a = _page("https://a.example/p/1", "en", TEXTS["en"])
    b = _page("https://a.example/p/2", "de", TEXTS["de"])
    only_menu = {item: 0.0 for item in matching._anchor_set(a) | matching._anchor_set(b)}
    assert matching.anchor_similarity(a, b, only_menu) is None
    weighted = dict.fromkeys(only_menu, 1.0)
    value = matching.anchor_similarity(a, b, weighted)
    assert value is not None and 0.0 < value <= 1.0


def test_link_texts_are_not_the_pages_words() -> None:
    # a sidebar of links to other pages, titled in their words, is not this page's content
    html = (
        "<html><body><p>The bridge over the Rhine opened in 1998.</p>"
        "<ul><li><a href='/p/9'>Harvest festival in Lucerne</a></li></ul></body></html>"
    )
    page = page_features("https://a.example/p/1", html, declared="en")
    assert "bridg" in page.words or "bridge" in page.words
    assert not {"harvest", "festiv", "festival", "lucern", "lucerne"} & page.words
    assert "#1998" in page.anchors and "lucerne" not in page.anchors
    assert page.text_length > len("The bridge over the Rhine opened in 1998.")  # all text counts


def test_the_translation_evidence_outweighs_a_structure_coincidence() -> None:
    # the French translation runs the German page's two paragraphs together; another French
    # page of the same length keeps two paragraphs at the same place but says something
    # else: the dictionary's evidence (FreeDict de-fr, installed by the set-up) decides
    kit_path("textberg-bleualign-de-fr/test3.defr")
    german = page_features(
        "https://d.example/p/eins",
        "<html><body><p>Die neue Brücke über den Fluss wurde nach vier Jahren Bauzeit "
        "eröffnet.</p><p>Sie trägt täglich viele Autos zwischen der Stadt und der Grenze.</p>"
        "</body></html>",
    )
    twin = page_features(
        "https://d.example/q/un",
        "<html><body><p>Le nouveau pont sur le fleuve a été ouvert après quatre années de "
        "travaux. Il porte chaque jour beaucoup de voitures entre la ville et la frontière."
        "</p></body></html>",
    )
    decoy = page_features(
        "https://d.example/q/deux",
        "<html><body><p>La fête des vendanges attire chaque automne des visiteurs de la région.</p>"
        "<p>Les vignerons servent leur vin sur la place du marché du village.</p>"
        "</body></html>",
    )
    assert (german.lang, twin.lang, decoy.lang) == ("de", "fr", "fr")
    found = {(m.src_url, m.tgt_url) for m in match_pages([german, twin, decoy])}
    assert found == {(german.url, twin.url)}


def test_a_marker_on_one_side_and_a_sites_own_language_code_pair_by_url() -> None:
    pages = [
        _page("https://a.example/news/bridge.html", "en", TEXTS["en"]),
        _page("https://a.example/news/bridge_de.html", "de", TEXTS["de"]),
        _page("https://b.example/index.php?id=7&clang=1", "en", TEXTS["en"]),
        _page("https://b.example/index.php?id=7&clang=2", "de", TEXTS["de"]),
        _page("https://b.example/index.php?id=8&clang=1", "en", TEXTS["en"][:1]),
        _page("https://b.example/index.php?id=8&clang=2", "de", TEXTS["de"][:1]),
    ]
    found = {(m.src_url, m.tgt_url) for m in match_pages(pages) if m.by == "url"}
    assert found == {
        ("https://a.example/news/bridge_de.html", "https://a.example/news/bridge.html"),
        ("https://b.example/index.php?id=7&clang=2", "https://b.example/index.php?id=7&clang=1"),
        ("https://b.example/index.php?id=8&clang=2", "https://b.example/index.php?id=8&clang=1"),
    }


def test_pages_in_an_abugida_have_content_words() -> None:
    # Gujarati words carry vowel signs (marks, not letters): the dictionary's translation
    # evidence read no word of such a page
    from services.page_match.features import content_words

    assert content_words("ઈસુએ તેઓને કહ્યું કે તમે જાઓ", "gu") == ["ઈસુએ", "તેઓને", "કહ્યું", "તમે", "જાઓ"]
    assert content_words("मैंने किताब खरीदी", "hi") == ["मैंने", "किताब", "खरीदी"]


def test_latin_words_are_anchors_on_pages_of_another_script() -> None:
    # read off the page's letters, not a list of language codes: Gujarati (and Serbian in
    # Cyrillic) was taken for a Latin-script language, so "iphone" was no anchor there
    from services.page_match.features import anchor_tokens

    assert "iphone" in anchor_tokens("નવો iphone 2024 માં બજારમાં આવ્યો અને લોકોને ગમ્યો")
    assert "iphone" in anchor_tokens("Нови iphone стиже у продавнице широм земље")
    assert "iphone" in anchor_tokens("新的iphone今天在全国各地上市了")
    latin = anchor_tokens("Novi iphone stiže u prodavnice, kaže Apple")
    assert "iphone" not in latin and "apple" in latin
