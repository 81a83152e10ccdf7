"""Tests of page matching: URL rules, the similarities, one-to-one assignment, whole sites."""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.page_match import site_crawl, textberg_documents
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
    kit_path("textberg-bleualign-de-fr/test3.defr")
    documents = textberg_documents(["test0", "test1", "test2"])
    crawl, gold = site_crawl(documents, "opaque", "site.example", random.Random(7))
    pages = [page_features(p.url, p.html) for p in crawl]
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
