"""The thesaurus store on a real PostgreSQL server (throwaway database from conftest.py).

The unit tests run the repository on SQLite; here the same functions run on PostgreSQL, where
conflict handling (ON CONFLICT DO NOTHING), row counts of multi-row inserts, large binary
payloads and the per-thesaurus version numbering go through a different dialect and driver.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from services.thesaurus import repository
from services.thesaurus.cooccur import Cooccurrence, extract_cooccurrences
from shared.store import make_engine
from tests.unit.thesaurus.conftest import two_branch_tree

pytestmark = pytest.mark.integration

CORPUS = {
    "pg-1": "犬を飼い、猫を飼う。",
    "pg-2": "馬を飼う。",
    "pg-3": "車を運転し、船を運転する。",
    "pg-4": "犬と猫を散歩させる。",
}


@pytest.fixture
def pg_engine(postgres_url: str) -> Iterator[sa.Engine]:
    engine = make_engine(postgres_url)
    repository.ensure_schema(engine)
    yield engine
    repository.metadata.drop_all(engine)  # the database is shared by the session's tests
    engine.dispose()


def _feed(engine: sa.Engine) -> int:
    return repository.record_many(
        engine, [(sid, extract_cooccurrences(text)) for sid, text in CORPUS.items()]
    )


def test_recording_is_idempotent_on_postgres(pg_engine: sa.Engine) -> None:
    expected = sum(len(extract_cooccurrences(text)) for text in CORPUS.values())
    assert expected == 7  # 犬と猫を gives two observations
    assert _feed(pg_engine) == expected
    counts = repository.cooccurrence_counts(pg_engine)
    assert _feed(pg_engine) == 0  # the same sentences again: nothing new
    one = repository.record_cooccurrences(pg_engine, "pg-2", [Cooccurrence("馬", "飼う")])
    assert one == 0
    assert repository.cooccurrence_counts(pg_engine) == counts
    assert counts[Cooccurrence("犬", "飼う")] == 1
    assert counts[Cooccurrence("猫", "散歩する")] == 1


def test_snapshots_are_versioned_and_match_sqlite(pg_engine: sa.Engine, tmp_path: Path) -> None:
    tree = two_branch_tree()
    repository.save_thesaurus(pg_engine, tree)
    repository.save_thesaurus(pg_engine, tree)  # replaced, not duplicated
    assert repository.thesaurus_names(pg_engine) == ["fixture"]
    assert repository.load_thesaurus(pg_engine, "fixture").words == tree.words
    _feed(pg_engine)
    first = repository.rebuild_snapshot(pg_engine, "fixture", min_pair=1, min_verb=1)
    _feed(pg_engine)  # a replay between two rebuilds changes nothing
    second = repository.rebuild_snapshot(pg_engine, "fixture", min_pair=1, min_verb=1)
    old = repository.load_snapshot(pg_engine, first)
    new = repository.load_snapshot(pg_engine, second)
    assert (old.summary["version"], new.summary["version"]) == (1, 2)
    assert repository.latest_snapshot_id(pg_engine, "fixture") == second
    np.testing.assert_array_equal(old.model.values, new.model.values)
    np.testing.assert_array_equal(old.model.rounds, new.model.rounds)

    # The same observations and thesaurus on SQLite give the same model, bit for bit.
    lite = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    repository.ensure_schema(lite)
    repository.save_thesaurus(lite, tree)
    _feed(lite)
    reference = repository.load_snapshot(
        lite, repository.rebuild_snapshot(lite, "fixture", min_pair=1, min_verb=1)
    )
    np.testing.assert_array_equal(new.model.values, reference.model.values)
    np.testing.assert_array_equal(new.model.rounds, reference.model.rounds)

    answer = repository.similarity(pg_engine, "犬", "猫")
    assert answer is not None and answer.snapshot_id == second and answer.match is not None
    # 犬 and 猫 share 飼う and 散歩する with positive MI: a corpus value.
    assert answer.match.round == 0 and answer.match.value > 0
    far = repository.similarity(pg_engine, "犬", "船")
    assert far is not None and far.match is not None
    assert far.match.value < answer.match.value
