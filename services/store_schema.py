"""Every table paramine uses, created (or checked) when a process starts: the store's own
tables and each stage's derived tables (page_match, paraphrase, thesaurus).

``paramine process``, each worker and the gateway call ``prepare_store`` at start-up, so no
message or request creates a schema; the handlers' own checks that remain are a set lookup
after that (``shared.store.create_tables_once``) and still create the tables for a caller
that skipped the start-up (a test calling a handler on a fresh store).
"""

from __future__ import annotations

import logging

from shared.errors import ConfigurationError, TransientError
from shared.store import Store

log = logging.getLogger(__name__)


def prepare_store(store: Store) -> None:
    """Create the missing tables of the store and of every stage (``ConfigurationError``: the
    store needs ``paramine migrate-store`` first)."""
    from services.page_match import repository as page_match
    from services.paraphrase import repository as paraphrase
    from services.thesaurus import repository as thesaurus

    store.ensure_schema()
    for repository in (page_match, paraphrase, thesaurus):
        repository.ensure_schema(store.engine)


def prepare_store_at_start(store: Store) -> None:
    """``prepare_store`` for a long-running process (worker, gateway): a store unreachable
    or needing migration at start-up is logged, not fatal, as before (its first message or
    request meets the same error and reports it there)."""
    try:
        prepare_store(store)
    except (TransientError, ConfigurationError) as exc:
        log.warning("store schema not prepared at start-up: %s", exc)
