"""Start-up schema preparation (shared/store/schema.py, the stages' schemas from
services/wiring/registry.py): every table of the store and of the stages exists afterwards,
and a stage's schema is checked once per engine."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from services.page_match import repository as page_match
from services.paraphrase import repository as paraphrase
from services.thesaurus import repository as thesaurus
from services.wiring.registry import STAGES_WITH_TABLES, stage_schemas
from shared.errors import TransientError
from shared.store import Store, metadata
from shared.store.schema import prepare_store, prepare_store_at_start


def test_prepare_store_creates_every_table(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'fresh.db'}")
    prepare_store(store, stage_schemas())
    present = set(sa.inspect(store.engine).get_table_names())
    for tables in (metadata, page_match.metadata, paraphrase.metadata, thesaurus.metadata):
        assert set(tables.tables) <= present


def test_a_stage_schema_is_checked_once_per_engine(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'once.db'}")
    prepare_store(store, stage_schemas())
    thesaurus.metadata.drop_all(store.engine)
    thesaurus.ensure_schema(store.engine)  # the same engine: not checked again
    assert not set(thesaurus.metadata.tables) & set(sa.inspect(store.engine).get_table_names())
    other = Store(store.url)  # another engine checks, and creates them
    thesaurus.ensure_schema(other.engine)
    assert set(thesaurus.metadata.tables) <= set(sa.inspect(other.engine).get_table_names())


def test_an_unreachable_store_does_not_stop_a_start() -> None:
    # nothing listens on port 1: the start-up logs it, the first message or request reports it
    unreachable = Store("postgresql://postgres@127.0.0.1:1/test?connect_timeout=5")
    with pytest.raises(TransientError):
        prepare_store(unreachable, stage_schemas())
    prepare_store_at_start(unreachable, stage_schemas())


def test_the_registry_gives_the_schemas_of_the_stages_with_tables() -> None:
    assert STAGES_WITH_TABLES == ("page_match", "paraphrase", "thesaurus")
    expected = [page_match.ensure_schema, paraphrase.ensure_schema, thesaurus.ensure_schema]
    assert stage_schemas() == expected
