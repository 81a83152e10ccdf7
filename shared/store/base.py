"""What every repository of the store shares: its engine, the schema check, and the
transactions its writes run in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Self

import sqlalchemy as sa

from shared.errors import ConfigurationError, InvalidInput
from shared.store.engine import (
    SHARED_TRANSACTION,
    create_tables,
    display_url,
    make_engine,
    normalise_url,
    sqlite_path,
    transient_guard,
)
from shared.store.statistics import CHECK_EVERY, keep_statistics
from shared.store.tables import MIGRATE_COMMAND, metadata, missing_columns


class StoreBase:
    """A store URL's engine; the repositories of each domain build on it."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)
        self.engine = make_engine(self.url)
        self._schema_ready = False
        self._transactions = 0

    @classmethod
    def existing(cls, url: str) -> Self:
        """The store at ``url`` for a reading command: refused (``InvalidInput``, one line
        naming it) when it does not exist, where opening it would create an empty one."""
        location = display_url(url)
        path = sqlite_path(url)
        if path is not None and not path.is_file():
            raise InvalidInput(
                f"no paramine store at {location}: run `paramine process` first, or set "
                "PARAMINE_DATABASE_URL"
            )
        store = cls(url)
        with store.guard():
            if not sa.inspect(store.engine).get_table_names():
                raise InvalidInput(
                    f"no paramine store at {location} (it holds no paramine tables): run "
                    "`paramine process` first, or set PARAMINE_DATABASE_URL"
                )
        return store

    def ensure_schema(self) -> None:
        if not self._schema_ready:
            with self.guard():
                create_tables(self.engine, metadata)
                missing = missing_columns(self.engine)
            if missing:
                raise ConfigurationError(
                    f"the store at {display_url(self.url)} was written by an older paramine "
                    f"(sentence_pairs has no {', '.join(missing)}): run `{MIGRATE_COMMAND}` to "
                    "bring it up to date"
                )
            self._schema_ready = True

    def guard(self) -> AbstractContextManager[None]:
        return transient_guard()

    def mappings(self, statement: sa.Executable) -> list[dict[str, Any]]:
        """Every row a read gives, each as a dict of its columns."""
        with self.guard(), self.begin() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def begin(self) -> Any:
        shared = SHARED_TRANSACTION.get()
        if shared is not None and shared.engine is self.engine:
            return nullcontext(shared)  # inside one_transaction(): its commit is the only one
        self._counted()
        return self.engine.begin()

    def _counted(self) -> None:
        """Ready the schema and count a transaction: every ``CHECK_EVERY``-th, the planner's
        statistics are brought up to date first (``shared.store.statistics``)."""
        self.ensure_schema()
        self._transactions += 1
        if self._transactions % CHECK_EVERY == 0:
            keep_statistics(self.engine)

    @contextmanager
    def one_transaction(self) -> Iterator[None]:
        """Every write of this store inside the block joins one transaction: all or nothing,
        and one commit (one WAL flush) per message instead of one per store call."""
        self.ensure_schema()
        with self.guard(), self.engine.begin() as conn:
            token = SHARED_TRANSACTION.set(conn)
            try:
                yield
            finally:
                SHARED_TRANSACTION.reset(token)

    def count(self, table: sa.Table) -> int:
        with self.guard(), self.begin() as conn:
            count: int = conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0
        return int(count)
