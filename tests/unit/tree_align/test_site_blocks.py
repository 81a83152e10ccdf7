"""Site repetition in the stream: a block on many pages of a site is template for the pages
after them (tree_align's site_blocks table), with PARAMINE_SITE_BLOCKS on."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.tree_align import handler as tree_handler
from services.tree_align import repository
from shared.config import get_settings
from shared.schemas import ChunkPairs, PagePair
from shared.store import Store

BOX = (
    "Subscribe to our weekly newsletter and read every new report on the river first.",
    "Abonnieren Sie unseren Newsletter und lesen Sie jeden neuen Bericht über den Fluss zuerst.",
)
TEXTS = [
    (
        (f"The bridge number {k} opened in {1990 + k} after four years of work on both banks.",
         f"It carries {k} thousand cars a day between the two towns and a tram line."),
        (f"Die Brücke Nummer {k} wurde {1990 + k} nach vier Jahren Bauzeit eröffnet.",
         f"Sie trägt täglich {k} tausend Autos zwischen den beiden Städten und eine Tram."),
    )
    for k in range(6)
]  # fmt: skip


def _page(paragraphs: tuple[str, str], box: str) -> str:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return f"<html><body><main><article>{body}<p>{box}</p></article></main></body></html>"


def _pair(k: int) -> PagePair:
    pages = {
        side: {"url": f"https://river.example/{lang}/{k}.html", "lang": lang,
               "html": _page(TEXTS[k][index], BOX[index])}
        for index, (side, lang) in enumerate((("src", "en"), ("tgt", "de")))
    }  # fmt: skip
    return PagePair.model_validate({"job_id": "j", **pages})


def _texts(outgoing: list[tuple[str, object]]) -> str:
    ((_, message),) = outgoing
    assert isinstance(message, ChunkPairs)
    return "\n".join(chunk.src_text for chunk in message.chunks)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.delenv("PARAMINE_SITE_BLOCKS", raising=False)  # the default: on
    get_settings.cache_clear()
    return Store(f"sqlite:///{tmp_path / 'store.db'}")


def test_a_box_on_many_pages_of_the_site_becomes_template(store: Store) -> None:
    first = _texts(tree_handler.handle(_pair(0), store))
    assert BOX[0] in first  # one page: the box reads as the article's last paragraph
    for k in range(1, 5):
        tree_handler.handle(_pair(k), store)
    later = _texts(tree_handler.handle(_pair(5), store))
    assert BOX[0] not in later and TEXTS[5][0][0] in later
    # aligned again now, the first pair loses the box too (its own pages are not counted:
    # the box is on the five other page pairs' pages)
    again = _texts(tree_handler.handle(_pair(0), store))
    assert BOX[0] not in again and TEXTS[0][0][0] in again


def test_without_site_blocks_each_page_pair_stands_alone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARAMINE_SITE_BLOCKS", "0")
    get_settings.cache_clear()
    try:
        for k in range(5):
            tree_handler.handle(_pair(k), store)
        assert BOX[0] in _texts(tree_handler.handle(_pair(5), store))
    finally:
        get_settings.cache_clear()


def test_a_page_stored_again_replaces_its_blocks(store: Store) -> None:
    repository.ensure_schema(store.engine)
    repository.record_blocks(store.engine, "s.org", "https://s.org/a", ["k1", "k2"])
    repository.record_blocks(store.engine, "s.org", "https://s.org/b", ["k1"])
    counts = repository.block_counts(store.engine, "s.org", ["k1", "k2"], [], at_most=16)
    assert counts == {"k1": 2, "k2": 1}
    repository.record_blocks(store.engine, "s.org", "https://s.org/a", ["k3"])
    keys = ["k1", "k2", "k3"]
    found = repository.block_counts(store.engine, "s.org", keys, ["https://s.org/b"], at_most=16)
    assert found == {"k3": 1}


def test_a_blocks_count_stops_at_the_number_asked_for_and_keeps_its_conditions(
    store: Store,
) -> None:
    repository.ensure_schema(store.engine)
    for page in range(10):
        keys = ["menu", f"own{page}"] + (["half"] if page % 2 else [])
        repository.record_blocks(store.engine, "s.org", f"https://s.org/{page}", keys, page + 1)
    repository.record_blocks(store.engine, "t.org", "https://t.org/0", ["menu"], 1)
    keys = ["menu", "half", "own3", "absent"]

    def counts(at_most: int, before: int | None = None) -> dict[str, int]:
        return repository.block_counts(
            store.engine, "s.org", keys, ["https://s.org/3"], before, at_most=at_most
        )

    assert counts(100) == {"menu": 9, "half": 4}  # page 3 is the pair's own
    assert counts(5) == {"menu": 5, "half": 4}
    assert counts(100, before=6) == {"menu": 4, "half": 1}  # pages 0-4 stored before seq 6
    assert counts(3, before=6) == {"menu": 3, "half": 1}
