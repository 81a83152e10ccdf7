"""The content model's site repetition in ingest order: a page pair counts the blocks of the
pages of its site's pairs accepted before it, whatever order the work runs in, and waits
while one of those is not aligned yet (shared/delivery/ordering.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.tree_align import handler as tree_handler
from shared.config import get_settings
from shared.delivery.ordering import never_deferring
from shared.errors import Deferred
from shared.store import Store
from tests.unit.tree_align.test_site_blocks import BOX, TEXTS, _pair, _texts


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.delenv("PARAMINE_SITE_BLOCKS", raising=False)  # the default: on
    monkeypatch.delenv("PARAMINE_SITE_WAIT", raising=False)
    get_settings.cache_clear()
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    pairs = [_pair(k) for k in range(6)]
    store.record_job("j", [(p.pair_id, p.src.url, p.tgt.url) for p in pairs], "test")
    return store


def test_a_replay_sees_what_the_first_run_saw_not_the_pairs_after_it(store: Store) -> None:
    with never_deferring():
        first = _texts(tree_handler.handle(_pair(0), store))
        for k in range(1, 5):
            tree_handler.handle(_pair(k), store)
        last = _texts(tree_handler.handle(_pair(5), store))
        again = _texts(tree_handler.handle(_pair(0), store))  # a redelivery, after the others
    assert BOX[0] not in last and TEXTS[5][0][0] in last  # learned from the five before it
    # (before the ingest order the replay counted the five pairs after it and lost the box:
    # the first pair's output depended on when it ran)
    assert again == first and BOX[0] in again


def test_a_pair_waits_for_the_earlier_pairs_of_its_site(store: Store) -> None:
    tree_handler.handle(_pair(0), store)
    with pytest.raises(Deferred, match="2 earlier page pairs"):
        tree_handler.handle(_pair(3), store)  # pairs 1 and 2 are not aligned yet
    tree_handler.handle(_pair(1), store)
    tree_handler.handle(_pair(2), store)
    assert tree_handler.handle(_pair(3), store)


def test_the_wait_is_bounded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARAMINE_SITE_WAIT", "0")
    get_settings.cache_clear()
    assert tree_handler.handle(_pair(3), store)  # waited long enough: what is there
