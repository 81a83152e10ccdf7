"""The page_match handler keeps pages until their counterparts come, across jobs."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from services.page_match import repository
from services.page_match.handler import handle
from shared.schemas import CrawledPages, Page, PagePair
from shared.store import Store

ENGLISH = (
    "<html><body><nav><a href='/'>Home</a></nav><h1>The Rhine bridge</h1>"
    "<p>The new bridge over the Rhine opened in 1998 after four years of work.</p>"
    "<p>It carries 40,000 cars a day between Basel and the German border.</p></body></html>"
)
GERMAN = (
    "<html><body><nav><a href='/'>Start</a></nav><h1>Die Rheinbrücke</h1>"
    "<p>Die neue Brücke über den Rhein wurde 1998 nach vier Jahren Bauzeit eröffnet.</p>"
    "<p>Sie trägt täglich 40.000 Autos zwischen Basel und der deutschen Grenze.</p>"
    "</body></html>"
)


FRENCH = (
    "<html><body><nav><a href='/'>Accueil</a></nav><h1>Le pont sur le Rhin</h1>"
    "<p>Le nouveau pont sur le Rhin a ouvert en 1998 après quatre ans de travaux.</p>"
    "<p>Il porte 40 000 voitures par jour entre Bâle et la frontière allemande.</p>"
    "</body></html>"
)


def _message(job_id: str, *pages: tuple[str, str]) -> CrawledPages:
    return CrawledPages(
        job_id=job_id, pages=[Page(url=url, lang="und", html=html) for url, html in pages]
    )


def _sent(outgoing: list[tuple[str, object]]) -> list[tuple[str, str, str]]:
    result = []
    for stage, message in outgoing:
        assert stage == "tree_align" and isinstance(message, PagePair)
        result.append((message.job_id, message.src.url, message.tgt.url))
    return result


def _superseded(why: str) -> float:
    value = REGISTRY.get_sample_value("paramine_page_pairs_superseded_total", {"why": why})
    return value or 0.0


def test_a_page_waits_for_its_translation_from_a_later_job(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    english = ("https://bridge.example/en/rhine.html", ENGLISH)
    german = ("https://bridge.example/de/rhine.html", GERMAN)
    assert handle(_message("job-1", english), store) == []  # alone: it waits
    assert repository.waiting_pages(store.engine) == 1
    sent = _sent(handle(_message("job-2", german), store))
    assert sent == [("job-2", german[0], english[0])]
    status = store.job_status("job-2")
    assert status is not None and status.pairs == 1
    # redelivered: the same pair again (tree_align's work is keyed by its content)
    assert _sent(handle(_message("job-2", german), store)) == sent
    # a re-crawl of the English page with the same content changes nothing
    assert handle(_message("job-3", english), store) == []
    assert len(repository.current_matches(store.engine)) == 1
    assert repository.waiting_pages(store.engine) == 0


def test_a_page_pairs_with_one_page_of_each_other_language(tmp_path: Path) -> None:
    # A site in three languages: each page is in one pair per language of its partner (a
    # page in one pair at all kept only the last of the three pairs found together).
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    pages = [
        ("https://bridge.example/en/rhine.html", ENGLISH),
        ("https://bridge.example/de/rhine.html", GERMAN),
        ("https://bridge.example/fr/rhine.html", FRENCH),
    ]
    sent = _sent(handle(_message("job-1", *pages), store))
    pairs = {frozenset((src, tgt)) for _, src, tgt in sent}
    urls = [url for url, _ in pages]
    assert pairs == {frozenset((a, b)) for k, a in enumerate(urls) for b in urls[k + 1 :]}
    current = repository.current_matches(store.engine)
    assert {frozenset((m["src_lang"], m["tgt_lang"])) for m in current} == {
        frozenset(("de", "en")),
        frozenset(("en", "fr")),
        frozenset(("de", "fr")),
    }
    # a changed German page re-matches: its two pairs are renewed, the en-fr pair stays
    changed = (pages[1][0], GERMAN.replace("1998", "1999"))
    renewed = _sent(handle(_message("job-2", changed), store))
    assert len(renewed) == 2 and all(pages[1][0] in (src, tgt) for _, src, tgt in renewed)
    assert len(repository.current_matches(store.engine)) == 3


def test_a_third_language_arriving_later_pairs_by_content_with_paired_pages(
    tmp_path: Path,
) -> None:
    check_third_language_arriving_later(Store(f"sqlite:///{tmp_path / 'store.db'}"))


def check_third_language_arriving_later(store: Store, host: str = "bridge.example") -> None:
    """Opaque URLs: no URL rule. The English and German pages pair in the first job; the
    French page of a later job pairs with both (a paired page stays open for the languages
    it has no partner in), and the en-de pair stands (also run on PostgreSQL)."""
    english = (f"https://{host}/p/83412.html", ENGLISH)
    german = (f"https://{host}/p/19077.html", GERMAN)
    french = (f"https://{host}/p/55120.html", FRENCH)
    assert len(_sent(handle(_message(f"{host}-1", english, german), store))) == 1
    sent = _sent(handle(_message(f"{host}-2", french), store))
    assert {frozenset((src, tgt)) for _, src, tgt in sent} == {
        frozenset((french[0], english[0])),
        frozenset((french[0], german[0])),
    }
    current = repository.current_matches(store.engine, host)
    assert {frozenset((m["src_url"], m["tgt_url"])) for m in current} == {
        frozenset((english[0], german[0])),
        frozenset((french[0], english[0])),
        frozenset((french[0], german[0])),
    }
    # pages are not matched again in the language pairs they have partners in: a copy of
    # the English page at another URL finds no German or French page to pair with
    copy = (f"https://{host}/p/70001.html", ENGLISH.replace("Home", "Start page"))
    assert handle(_message(f"{host}-3", copy), store) == []
    assert len(repository.current_matches(store.engine, host)) == 3


OTHER_GERMAN = (
    "<html><body><nav><a href='/'>Start</a></nav><h1>Der Hafen von Kiel</h1>"
    "<p>Der alte Hafen von Kiel wurde 1871 nach zwei Jahren Planung umgebaut.</p>"
    "<p>Er nimmt jede Woche 300 Schiffe zwischen Oslo und der Ostsee auf.</p></body></html>"
)


def test_a_content_pair_gives_way_to_a_better_twin_that_arrives_later(tmp_path: Path) -> None:
    # Alone together, the English page and an unrelated German page of the same shape pair
    # by content (nothing better is there); the English page's real translation arrives in a
    # later job and takes its place; the unrelated page waits again.
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    english = ("https://bridge.example/p/83412.html", ENGLISH)
    unrelated = ("https://bridge.example/p/31337.html", OTHER_GERMAN)
    twin = ("https://bridge.example/p/19077.html", GERMAN)
    assert len(_sent(handle(_message("job-1", english, unrelated), store))) == 1
    before = _superseded("better")
    sent = _sent(handle(_message("job-2", twin), store))
    assert _superseded("better") == before + 1  # operators see the replaced pair
    assert [frozenset((src, tgt)) for _, src, tgt in sent] == [frozenset((english[0], twin[0]))]
    (current,) = repository.current_matches(store.engine)
    assert {current["src_url"], current["tgt_url"]} == {english[0], twin[0]}
    with store.engine.connect() as conn:
        assert [p.features.url for p in repository.open_site_pages(conn, "bridge.example")] == [
            unrelated[0]
        ]


def test_a_changed_page_rematches_and_supersedes_its_old_pair(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    english = ("https://bridge.example/en/rhine.html", ENGLISH)
    german = ("https://bridge.example/de/rhine.html", GERMAN)
    handle(_message("job-1", english, german), store)
    (first,) = repository.current_matches(store.engine)
    changed = (german[0], GERMAN.replace("1998", "1999"))
    before = _superseded("changed")
    sent = _sent(handle(_message("job-2", changed), store))
    assert sent == [("job-2", german[0], english[0])]
    assert _superseded("changed") == before + 1
    (current,) = repository.current_matches(store.engine)
    assert current["job_id"] == "job-2" and current["src_digest"] != first["src_digest"]


def test_an_unreadable_page_is_a_dead_letter_and_the_rest_goes_on(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    binary = ("https://bridge.example/logo.png", "\x01\x02\x03" * 400)
    english = ("https://bridge.example/en/rhine.html", ENGLISH)
    german = ("https://bridge.example/de/rhine.html", GERMAN)
    sent = _sent(handle(_message("job-1", binary, english, german), store))
    assert len(sent) == 1
    (letter,) = store.list_dead_letters(stage="page_match")
    assert "logo.png" in letter["reason"]


def test_a_message_matches_the_open_pages_with_a_bounded_sample_of_paired_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.page_match import handler as stage

    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    pages = [(f"https://big.example/{lang}/p{k}.html", html.replace("1998", str(1900 + k)))
             for k in range(12) for lang, html in (("en", ENGLISH), ("de", GERMAN))]  # fmt: skip
    handle(_message("job-1", *pages), store)
    assert len(repository.current_matches(store.engine)) == 12
    seen: list[int] = []
    original = stage.match_site

    def counting(pages: list[object], **options: object) -> object:
        seen.append(len(pages))
        return original(pages, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(stage, "CONTEXT_PAGES", 5)
    monkeypatch.setattr(stage, "match_site", counting)
    late = ("https://big.example/de/late.html", GERMAN.replace("1998", "2001"))
    assert handle(_message("job-2", late), store) == []  # waits: no twin yet
    twin = ("https://big.example/en/late.html", ENGLISH.replace("1998", "2001"))
    sent = _sent(handle(_message("job-3", twin), store))
    assert sent == [("job-3", late[0], twin[0])]
    # the open pages, 5 paired ones and their partners (a pair is read whole), not the site's 26
    assert seen == [1 + 5 + 5, 2 + 5 + 5]
    assert len(repository.current_matches(store.engine)) == 13  # earlier pairs stand
    with store.engine.connect() as conn:
        assert len(repository.open_site_pages(conn, "big.example")) == 0
        assert len(repository.paired_site_pages(conn, "big.example", 7)) == 7


def test_a_url_twin_found_later_outranks_a_content_pair(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    english = ("https://news.example/en/rhine.html", ENGLISH)
    other = ("https://news.example/de/a8f3.html", GERMAN)  # no URL twin: paired by content
    handle(_message("job-1", english, other), store)
    (first,) = repository.current_matches(store.engine)
    assert first["found_by"] == "content"
    twin = ("https://news.example/de/rhine.html", GERMAN.replace("Basel", "Basel-Stadt"))
    sent = _sent(handle(_message("job-2", twin), store))
    assert sent == [("job-2", twin[0], english[0])]
    (current,) = repository.current_matches(store.engine)
    assert current["found_by"] == "url"
    assert repository.waiting_pages(store.engine) == 1  # the content twin waits again
