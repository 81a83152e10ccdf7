"""Every table paramine uses, created (or checked) when a process starts: the store's own
tables and the derived tables each stage keeps (page_match, paraphrase, thesaurus), whose
``ensure_schema`` functions the caller passes (``services.wiring.registry.stage_schemas``:
the store imports no stage).

``paramine process``, each worker and the gateway call ``prepare_store`` at start-up, so no
message or request creates a schema; the handlers' own checks that remain are a set lookup
after that (``shared.store.create_tables_once``) and still create the tables for a caller
that skipped the start-up (a test calling a handler on a fresh store).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

import sqlalchemy as sa

from shared.errors import ConfigurationError, TransientError
from shared.store import Store

log = logging.getLogger(__name__)

# A stage's ``ensure_schema``: creates its missing tables on an engine.
SchemaCreator = Callable[[sa.Engine], None]


def prepare_store(store: Store, stage_schemas: Iterable[SchemaCreator]) -> None:
    """Create the missing tables of the store and of every stage (``ConfigurationError``: the
    store needs ``paramine migrate-store`` first)."""
    store.ensure_schema()
    for ensure_schema in stage_schemas:
        ensure_schema(store.engine)


def prepare_store_at_start(store: Store, stage_schemas: Iterable[SchemaCreator]) -> None:
    """``prepare_store`` for a long-running process (worker, gateway): a store unreachable
    or needing migration at start-up is logged, not fatal, as before (its first message or
    request meets the same error and reports it there)."""
    try:
        prepare_store(store, stage_schemas)
    except (TransientError, ConfigurationError) as exc:
        log.warning("store schema not prepared at start-up: %s", exc)
