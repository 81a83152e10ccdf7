"""sentence_align learns from the site's pairs in ingest order: a page pair learns from the
page pairs of its site accepted before it, waits while one of them is not aligned yet, and
a replay learns what the first run learned (shared/delivery/ordering.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services.sentence_align.handler import handle, site_learning
from shared.config import get_settings
from shared.delivery.ordering import never_deferring
from shared.errors import Deferred
from shared.store import SentencePairQuery, Store
from tests.unit.sentence_align.test_handler_site import (
    PAGES,
    learnable,
    site_message,
    site_pairs_used,
)

PAIRS = ("pp1", "pp2", "pp3")
THIRD = (
    "Der See war gefroren. Die Kinder liefen 1963 über das Eis nach Lindau.",
    "Le lac était gelé. Les enfants ont traversé la glace jusqu'à Lindau en 1963.",
)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    for name in ("PARAMINE_SITE_PAIRS", "PARAMINE_SITE_WAIT"):
        monkeypatch.delenv(name, raising=False)  # the defaults
    get_settings.cache_clear()
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    messages = [message(pair_id) for pair_id in PAIRS]
    store.record_job(
        "j1", [(m.context.pair_id, m.context.src_url, m.context.tgt_url) for m in messages], "t"
    )
    yield store
    get_settings.cache_clear()


def message(pair_id: str):  # type: ignore[no-untyped-def]
    return site_message(pair_id, "alps.example", (*PAGES, THIRD)[PAIRS.index(pair_id)])


def stored(store: Store, pair_id: str) -> list[tuple[str, str, str, float]]:
    rows = store.list_sentence_pairs(SentencePairQuery(duplicates=True, flagged=True))
    return sorted((r.bead, r.src_text, r.tgt_text, r.score) for r in rows if r.pair_id == pair_id)


def test_a_replay_learns_from_the_pairs_before_it_only(store: Store) -> None:
    with never_deferring():
        handle(message("pp1"), store)
        handle(message("pp2"), store)
        first = stored(store, "pp2")
        handle(message("pp3"), store)
        before = site_pairs_used()
        handle(message("pp2"), store)  # redelivered after pp3 was stored
    # pp1's pairs only, as the first time (the latest of the site counted pp3's as well)
    assert learnable(store, "pp3") > 0
    assert site_pairs_used() == before + learnable(store, "pp1")
    assert stored(store, "pp2") == first


def test_a_pair_waits_while_an_earlier_one_is_not_aligned(store: Store) -> None:
    handle(message("pp1"), store)
    with pytest.raises(Deferred, match="1 earlier page pairs"):
        handle(message("pp3"), store)
    handle(message("pp2"), store)
    handle(message("pp3"), store)
    assert stored(store, "pp3")


def test_a_failed_earlier_pair_is_not_waited_for(store: Store) -> None:
    handle(message("pp1"), store)
    store.record_dead_letter(
        stage="sentence_align",
        payload=message("pp2").model_dump(mode="json"),
        error_type="InvalidInput",
        reason="a bad page",
        attempts=1,
    )
    handle(message("pp3"), store)
    assert stored(store, "pp3")


def test_a_pair_no_job_recorded_learns_from_what_is_stored(store: Store) -> None:
    handle(message("pp1"), store)
    handle(site_message("loose", "alps.example", PAGES[1]), store)  # never deferred
    assert stored(store, "loose")


def test_a_pair_learns_from_the_snapshot_at_its_checkpoint_and_the_pairs_since(
    store: Store,
) -> None:
    """The fourth page pair of a site has three before it: the snapshot of the first two
    (site_lexicon.checkpoint(3) == 2), the one the third page pair used too, and the third's
    pairs trained on with the page pair."""
    fourth = site_message("pp4", "alps.example", PAGES[0])
    store.record_job("j2", [("pp4", fourth.context.src_url, fourth.context.tgt_url)], "t")
    with never_deferring():
        for pair_id in PAIRS:
            handle(message(pair_id), store)
        third_site, third_since = site_learning(message("pp3"), store)
        site, since = site_learning(fourth, store)
    assert site is not None and third_site is site  # one snapshot, trained once
    assert third_since == []  # the third's checkpoint is its own: nothing since
    assert len(site.texts) == learnable(store, "pp1") + learnable(store, "pp2")
    assert len(since) == learnable(store, "pp3") > 0
    assert not set(since) & set(site.texts)
