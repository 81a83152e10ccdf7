"""The corpus rules on PostgreSQL: distinct-pair listings, flag counts and superseding
replays give what SQLite gives, and a store of the old schema migrates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from shared.errors import ConfigurationError
from shared.store import SentencePairQuery, Store
from shared.store.migrate import migrate
from tests.integration.conftest import fresh_database
from tests.unit.sentence_align.test_handler_site import PAGES as SITE_PAGES
from tests.unit.sentence_align.test_handler_site import learnable, site_message, site_pairs_used
from tests.unit.shared.test_pair_query import row
from tests.unit.shared.test_store_corpus import fill_site_rows
from tests.unit.shared.test_store_migrate import OLD_STORE

pytestmark = pytest.mark.integration

DRAWN = [
    (0, 0, 0.5, ""), (1, 1, 0.9, ""), (1, 3, 1.0, "untranslated"), (2, 2, 0.8, ""),
    (3, 0, 0.1, ""), (4, 4, 0.7, ""), (4, 1, 0.2, ""), (0, 2, 0.6, "untranslated"),
]  # fmt: skip


def _fill(store: Store) -> None:
    positions: dict[int, int] = {}
    for pair, text, score, flag in DRAWN:
        position = positions.get(pair, 0)
        positions[pair] = position + 1
        store.add_sentence_pairs(
            [row(pair, position, text, score, flag)], pair_id=f"pp{pair}", stage="s"
        )


def _listing(store: Store, query: SentencePairQuery) -> list[tuple[Any, ...]]:
    return [(r.id, float(r.score), int(r.count)) for r in store.iter_sentence_pairs(query, batch=2)]


@pytest.mark.parametrize(
    "query",
    [SentencePairQuery(), SentencePairQuery(flagged=True), SentencePairQuery(duplicates=True),
     SentencePairQuery(site="a0.org", min_score=0.5)],
)  # fmt: skip
def test_listings_match_sqlite(query: SentencePairQuery, tmp_path: Path) -> None:
    lite = Store(f"sqlite:///{tmp_path / 'lite.db'}")
    _fill(lite)
    with fresh_database() as url:
        pg = Store(url)
        _fill(pg)
        assert _listing(pg, query) == _listing(lite, query)
        assert pg.flag_counts(query) == lite.flag_counts(query)
        pg.engine.dispose()


def test_site_pairs_match_sqlite() -> None:
    lite = Store("sqlite://")
    fill_site_rows(lite)
    with fresh_database() as url:
        pg = Store(url)
        fill_site_rows(pg)
        for langs in (("en", "de"), ("de", "en"), ("en", "fr")):
            for exclude in ("", "pp6"):
                ask = {"limit": 3, "min_score": 0.9, "exclude_pair_id": exclude}
                expected = lite.site_pairs(["e.org", "other.org"], langs, **ask)
                assert pg.site_pairs(["e.org", "other.org"], langs, **ask) == expected
        pg.engine.dispose()


def test_the_sentence_align_stage_learns_from_its_sites_pairs_on_postgresql() -> None:
    from services.sentence_align.handler import handle

    with fresh_database() as url:
        store = Store(url)
        handle(site_message("pp1", "alps.example", SITE_PAGES[0]), store)
        earlier = learnable(store, "pp1")
        before = site_pairs_used()
        handle(site_message("pp2", "alps.example", SITE_PAGES[1]), store)
        assert earlier >= 2 and site_pairs_used() == before + earlier
        store.engine.dispose()


def test_a_replay_supersedes_on_postgresql() -> None:
    with fresh_database() as url:
        store = Store(url)
        old = [{**row(1, n, n, 0.5), "method": "tree+length"} for n in range(3)]
        store.add_sentence_pairs(old, pair_id="pp1", stage="s", supersede="pp1")
        new = [{**row(1, n, n, 0.5), "id": f"new-{n}", "method": "tree+hybrid"} for n in range(2)]
        store.add_sentence_pairs(new, pair_id="pp1", stage="s", supersede="pp1")
        rows = store.list_sentence_pairs(SentencePairQuery(duplicates=True, flagged=True))
        assert [(r.id, r.method) for r in rows] == [("new-0", "tree+hybrid"),
                                                          ("new-1", "tree+hybrid")]  # fmt: skip
        store.engine.dispose()


def test_an_old_store_on_postgresql_migrates() -> None:
    old = sa.MetaData()
    lite = sa.create_engine(f"sqlite:///{OLD_STORE}")
    old.reflect(lite, only=["jobs", "job_pairs", "pair_progress", "sentence_pairs"])
    with fresh_database() as url:
        store = Store(url)
        with store.engine.begin() as conn, lite.connect() as source:
            old.create_all(conn)
            for table in old.sorted_tables:
                rows = [dict(r._mapping) for r in source.execute(sa.select(table))]
                if rows:
                    conn.execute(table.insert(), rows)
        with pytest.raises(ConfigurationError, match="paramine migrate-store"):
            store.list_sentence_pairs(SentencePairQuery())
        done = migrate(store.engine)
        assert done.pairs_updated == 45 and "dedup_key" in done.added_columns
        migrated = Store(url)
        rows = migrated.list_sentence_pairs(SentencePairQuery(duplicates=True, flagged=True))
        assert len(rows) == 45 and {r.method for r in rows} == {"unrecorded"}
        assert migrate(migrated.engine).added_columns == ()
        store.engine.dispose()
        migrated.engine.dispose()


def test_a_sites_earlier_pairs_are_read_alike_on_postgresql() -> None:
    from tests.unit.shared.test_store_order import check_order, filled

    with fresh_database() as url:
        store = Store(url)
        check_order(filled(store))
        store.engine.dispose()
