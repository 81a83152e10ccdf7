"""Connections to the store: engines for a store URL (SQLite file by default, PostgreSQL by
URL), table creation that concurrent processes can run together, the transaction a block of
writes shares, and connection failures turned into ``TransientError``."""

from __future__ import annotations

import os
import threading
import weakref
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from shared.errors import ConfigurationError, TransientError


def normalise_url(url: str) -> str:
    """Use the psycopg 3 driver for plain ``postgresql://`` URLs."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


SUPPORTED_STORES = "sqlite:///PATH or postgresql://USER@HOST/DATABASE"


def make_engine(url: str) -> Engine:
    """An engine for the store URL, with connection checks so restarts are survived.

    A store that cannot be had is refused in one line naming PARAMINE_DATABASE_URL
    (``ConfigurationError``): a database other than SQLite and PostgreSQL, a URL SQLAlchemy
    cannot read, a SQLite file whose folder cannot be made or written (a 484-line traceback,
    a ``ModuleNotFoundError`` or an "invalid input" blamed on the input, once)."""
    url = normalise_url(url)
    try:
        dialect = sa.engine.make_url(url).get_backend_name()
    except sa.exc.ArgumentError:
        raise ConfigurationError(
            f"PARAMINE_DATABASE_URL is not a database URL ({url!r}): use {SUPPORTED_STORES}"
        ) from None
    if dialect not in ("sqlite", "postgresql"):
        raise ConfigurationError(
            f"PARAMINE_DATABASE_URL names a {dialect} database, which paramine does not "
            f"support: use {SUPPORTED_STORES}"
        )
    if dialect == "sqlite":
        path = sqlite_path(url)
        if path is not None:
            _check_sqlite_file(path)
        return sa.create_engine(url, connect_args={"timeout": 30})
    # Each execution planned with its own parameters and the tables' current statistics:
    # psycopg prepares a statement after its fifth execution on a connection, and PostgreSQL
    # may then keep one generic plan for the connection's life, made while the tables were
    # still empty, so the site-order queries of a growing site slowed pair after pair
    # (measured in benchmarks/results/soak.md, the reading).
    return sa.create_engine(
        url,
        pool_pre_ping=True,
        pool_size=5,
        max_overflow=5,
        connect_args={"options": "-c plan_cache_mode=force_custom_plan"},
    )


def _check_sqlite_file(path: Path) -> None:
    """Make the store file's folder (the default one, ~/.local/share/paramine, may be new)
    and, for a new store, open the file once: where that fails, say why in one line."""
    import sqlite3  # lazy: a PostgreSQL store never needs it

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            sqlite3.connect(path).close()
    except (OSError, sqlite3.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigurationError(
            f"PARAMINE_DATABASE_URL: cannot create the SQLite store {path} ({reason}); set "
            f"it to a writable place ({SUPPORTED_STORES})"
        ) from None


# One process at a time creates the tables (a PostgreSQL advisory lock, transaction-scoped);
# concurrent first requests on an empty database raced in CREATE TYPE/TABLE and got 500s.
_SCHEMA_LOCK_KEY = zlib.crc32(b"paramine.schema")
_schema_lock = threading.Lock()


def _new_schema_lock_in_child() -> None:
    """A forked process starts with a free schema lock. The lock is held across database
    round trips; a process forked while another thread held it (creating tables at its first
    store call) got a lock nobody in it would release, and a worker's pool child waited on it
    at the start of every task, forever (issue 39)."""
    global _schema_lock
    _schema_lock = threading.Lock()


os.register_at_fork(after_in_child=_new_schema_lock_in_child)


def create_tables(engine: Engine, tables: sa.MetaData) -> None:
    """``tables.create_all`` that concurrent threads and processes can call together."""
    with _schema_lock:
        if engine.dialect.name == "postgresql":
            with engine.begin() as conn:
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_SCHEMA_LOCK_KEY)))
                tables.create_all(conn)
            return
        try:
            tables.create_all(engine)
        except sa.exc.OperationalError as exc:  # SQLite: another process created one first
            if "already exists" not in str(exc):
                raise
            tables.create_all(engine)


# (engine, id of a MetaData) pairs whose tables this process created or found: a stage's
# schema is checked once per engine and process, not on every message or request.
_CREATED: weakref.WeakKeyDictionary[Engine, set[int]] = weakref.WeakKeyDictionary()


def create_tables_once(engine: Engine, tables: sa.MetaData) -> None:
    """``create_tables``, once per engine and process (start-up calls it; later calls are a
    set lookup)."""
    done = _CREATED.setdefault(engine, set())
    if id(tables) not in done:
        create_tables(engine, tables)
        done.add(id(tables))


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite store URL (None: another database, or in memory)."""
    url = normalise_url(url)
    if not url.startswith("sqlite"):
        return None
    database = sa.engine.make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def display_url(url: str) -> str:
    """A store URL to print: the file of a SQLite one, any other without its password."""
    path = sqlite_path(url)
    if path is not None:
        return str(path)
    return sa.engine.make_url(normalise_url(url)).render_as_string(hide_password=True)


# The connection of the current one_transaction() block (per thread and task, not global).
SHARED_TRANSACTION: ContextVar[sa.Connection | None] = ContextVar(
    "paramine_store_transaction", default=None
)


@contextmanager
def transient_guard() -> Iterator[None]:
    """Turn connection-level database failures into ``TransientError`` (retried by workers)."""
    try:
        yield
    except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
        if exc.connection_invalidated or is_connection_error(exc):
            raise TransientError(f"database unavailable: {str(exc.orig)[:300]}") from exc
        raise


def is_connection_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    needles = ("connection", "could not connect", "server closed", "database is locked", "terminat")
    return any(needle in text for needle in needles)
