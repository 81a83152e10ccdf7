"""Store.one_transaction: a message's writes commit together or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.store import Store, pair_progress


def test_writes_in_one_transaction_commit_together(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    with store.one_transaction():
        store.record_progress("p1", "tree_align", 2)
        store.record_progress("p2", "tree_align", 3)
        assert store.count(pair_progress) == 2  # reads in the block see its writes
    assert store.count(pair_progress) == 2


def test_a_failure_in_the_block_rolls_every_write_back(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.record_progress("before", "tree_align", 1)
    with pytest.raises(RuntimeError, match="handler failed"), store.one_transaction():
        store.record_progress("p1", "tree_align", 2)
        store.record_progress("p2", "tree_align", 3)
        raise RuntimeError("handler failed")
    assert store.count(pair_progress) == 1
    store.record_progress("after", "tree_align", 1)  # outside the block: own transaction again
    assert store.count(pair_progress) == 2


def test_another_store_keeps_its_own_transactions(tmp_path: Path) -> None:
    first = Store(f"sqlite:///{tmp_path / 'first.db'}")
    second = Store(f"sqlite:///{tmp_path / 'second.db'}")
    with pytest.raises(RuntimeError), first.one_transaction():
        first.record_progress("p1", "tree_align", 1)
        second.record_progress("p1", "tree_align", 1)
        raise RuntimeError("rolled back")
    assert first.count(pair_progress) == 0 and second.count(pair_progress) == 1
