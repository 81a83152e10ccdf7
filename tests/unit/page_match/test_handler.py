"""The page_match handler keeps pages until their counterparts come, across jobs."""

from __future__ import annotations

from pathlib import Path

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


def test_a_changed_page_rematches_and_supersedes_its_old_pair(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    english = ("https://bridge.example/en/rhine.html", ENGLISH)
    german = ("https://bridge.example/de/rhine.html", GERMAN)
    handle(_message("job-1", english, german), store)
    (first,) = repository.current_matches(store.engine)
    changed = (german[0], GERMAN.replace("1998", "1999"))
    sent = _sent(handle(_message("job-2", changed), store))
    assert sent == [("job-2", german[0], english[0])]
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
