"""The result store on SQLAlchemy Core: SQLite file by default, PostgreSQL by URL.

Every row is keyed by a content-derived id and written with an insert that ignores
conflicts, so replaying a message (redelivery, resubmission) leaves the tables unchanged.
Aggregates (job progress, paraphrase tables) are computed from these observations.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from shared.corpus_clean import dedup_key
from shared.errors import ConfigurationError, InvalidInput, TransientError
from shared.ids import content_id
from shared.pair_query import SentencePairQuery, select_flag_counts, select_pairs
from shared.schemas import pair_id_of

__all__ = ["SentencePairQuery", "Store"]

metadata = sa.MetaData()

SOURCE_LENGTH = 256  # jobs.source: a label, cut to fit
SITE_LENGTH = 256  # sentence_pairs.site: a host name (at most 253 characters)

jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("job_id", sa.String(64), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("source", sa.String(SOURCE_LENGTH), nullable=False, server_default=""),
)

job_pairs = sa.Table(
    "job_pairs",
    metadata,
    sa.Column("job_id", sa.String(64), primary_key=True),
    sa.Column("pair_id", sa.String(64), primary_key=True),
    sa.Column("src_url", sa.Text, nullable=False, server_default=""),
    sa.Column("tgt_url", sa.Text, nullable=False, server_default=""),
    # Delivery tracking (distributed mode, shared/reconcile.py): the message that starts the
    # pair's work, kept until the pair completes. state: NULL untracked (embedded runs),
    # 'pending', 'done' (payload dropped) or 'dead' (dead-lettered; kept for a retry).
    sa.Column("state", sa.String(8), nullable=True),
    sa.Column("stage", sa.String(32), nullable=True),
    sa.Column("payload", sa.Text, nullable=True),
    sa.Column("enqueued_at", sa.Float, nullable=True),
    sa.Column("enqueues", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_job_pairs_state_enqueued", "state", "enqueued_at"),
    sa.Index("ix_job_pairs_pair_id", "pair_id"),
)

pair_progress = sa.Table(
    "pair_progress",
    metadata,
    sa.Column("pair_id", sa.String(64), primary_key=True),
    sa.Column("stage", sa.String(32), primary_key=True),
    sa.Column("outputs", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

# Columns this version added to sentence_pairs: a store without them is migrated by
# `paramine migrate-store` (shared/store_migrate.py).
PROVENANCE = ("method", "version", "model_version")
PROVENANCE_COLUMNS = (
    sa.Column("method", sa.String(64), nullable=False, server_default=""),
    sa.Column("version", sa.String(64), nullable=False, server_default=""),
    sa.Column("model_version", sa.String(128), nullable=False, server_default=""),
)
ADDED_COLUMNS = ("dedup_key", "flag", *PROVENANCE)
MIGRATE_COMMAND = "paramine migrate-store"

sentence_pairs = sa.Table(
    "sentence_pairs",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("pair_id", sa.String(64), nullable=False, index=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("src_url", sa.Text, nullable=False),
    sa.Column("tgt_url", sa.Text, nullable=False),
    sa.Column("site", sa.String(SITE_LENGTH), nullable=False, index=True),
    sa.Column("src_lang", sa.String(16), nullable=False),
    sa.Column("tgt_lang", sa.String(16), nullable=False),
    sa.Column("src_text", sa.Text, nullable=False),
    sa.Column("tgt_text", sa.Text, nullable=False),
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("bead", sa.String(128), nullable=False),
    # Index of the aligned text chunk (node pair) the bead came from; -1: not from a tree.
    sa.Column("chunk", sa.Integer, nullable=False, server_default="-1"),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    # The corpus conventions (shared/corpus_clean.py): pairs with one dedup_key are one pair
    # of the corpus; flag '' or why the pair is no translation (untranslated, wrong-language).
    sa.Column("dedup_key", sa.String(64), nullable=False, server_default="", index=True),
    sa.Column("flag", sa.String(32), nullable=False, server_default=""),
    # Provenance (shared/provenance.py): what produced the pair.
    *PROVENANCE_COLUMNS,
)

# The tree alignment's aligned text chunks of one page pair (what sentence_align worked
# inside): the xpaths of the two block elements, their text and the summed -log Pr.
node_pairs = sa.Table(
    "node_pairs",
    metadata,
    sa.Column("pair_id", sa.String(64), primary_key=True),
    sa.Column("chunk", sa.Integer, primary_key=True),
    sa.Column("src_xpath", sa.Text, nullable=False),
    sa.Column("tgt_xpath", sa.Text, nullable=False),
    sa.Column("src_text", sa.Text, nullable=False),
    sa.Column("tgt_text", sa.Text, nullable=False),
    sa.Column("cost", sa.Float, nullable=False),
)

paraphrase_observations = sa.Table(
    "paraphrase_observations",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("lang", sa.String(16), nullable=False),
    sa.Column("src_text", sa.Text, nullable=False),
    sa.Column("tgt_text", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

dead_letters = sa.Table(
    "dead_letters",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("stage", sa.String(32), nullable=False, index=True),
    sa.Column("job_id", sa.String(64), nullable=True, index=True),
    sa.Column("error_type", sa.String(128), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)


def normalise_url(url: str) -> str:
    """Use the psycopg 3 driver for plain ``postgresql://`` URLs."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def make_engine(url: str) -> Engine:
    """An engine for the store URL, with connection checks so restarts are survived."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        path = sqlite_path(url)
        if path is not None:  # the default store's folder (~/.local/share/paramine) may be new
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"timeout": 30})
    else:
        engine = sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
    return engine


# One process at a time creates the tables (a PostgreSQL advisory lock, transaction-scoped);
# concurrent first requests on an empty database raced in CREATE TYPE/TABLE and got 500s.
_SCHEMA_LOCK_KEY = zlib.crc32(b"paramine.schema")
_schema_lock = threading.Lock()


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


def without_nul(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with NUL characters in its strings replaced by U+FFFD: PostgreSQL text cannot
    hold a NUL, and a sentence, reason or URL holding one failed the whole message's insert
    (its dead letter too, so the message was lost). SQLite gets the same text."""
    if not any(isinstance(value, str) and "\x00" in value for value in row.values()):
        return row
    return {
        key: value.replace("\x00", "\ufffd") if isinstance(value, str) else value
        for key, value in row.items()
    }


def insert_ignoring_conflicts(
    connection: sa.Connection, table: sa.Table, rows: Sequence[dict[str, Any]]
) -> int:
    """Insert rows, silently keeping existing rows with the same primary key; returns inserts."""
    if not rows:
        return 0
    rows = [without_nul(row) for row in rows]
    dialect = connection.dialect.name
    if dialect == "postgresql" and _plain_rows(table, rows):
        try:
            text = json.dumps(rows, allow_nan=False)
        except (TypeError, ValueError):  # NaN or infinity, or a value JSON cannot carry
            return _insert_unnest(connection, table, rows)
        return _insert_json(connection, table, list(rows[0]), text)
    if dialect == "postgresql":
        statement: Any = postgresql.insert(table).on_conflict_do_nothing()
    elif dialect == "sqlite":
        statement = sqlite.insert(table).on_conflict_do_nothing()
    else:  # pragma: no cover - other back ends are not supported
        raise NotImplementedError(f"unsupported database dialect {dialect}")
    # RETURNING, not rowcount: a multi-row insert on PostgreSQL (psycopg, insertmanyvalues)
    # reports rowcount -1, which made every batch count as 0 inserted rows.
    returning = statement.returning(*table.primary_key.columns)
    return len(connection.execute(returning, list(rows)).all())


def _plain_rows(table: sa.Table, rows: Sequence[dict[str, Any]]) -> bool:
    """Rows with the same keys, every column a plain string, integer or float."""
    names = rows[0].keys()
    return all(row.keys() == names for row in rows) and all(
        isinstance(table.c[name].type, sa.String | sa.Integer | sa.Float) for name in names
    )


def _insert_json(connection: sa.Connection, table: sa.Table, names: list[str], rows: str) -> int:
    """PostgreSQL: the rows as one JSON text parameter, expanded by the server
    (``INSERT … SELECT … FROM json_populate_recordset(NULL::table, :rows) ON CONFLICT DO
    NOTHING RETURNING pk``). ``json.dumps`` runs in C; a parameter per column (arrays for
    ``unnest``) cost psycopg a quoting pass with a regular expression per element, and a
    VALUES list a placeholder per value."""
    quote = connection.dialect.identifier_preparer.quote
    columns = ", ".join(quote(name) for name in names)
    keys = ", ".join(quote(column.name) for column in table.primary_key.columns)
    statement = sa.text(
        f"INSERT INTO {quote(table.name)} ({columns}) SELECT {columns}"
        f" FROM json_populate_recordset(NULL::{quote(table.name)}, CAST(:rows AS json))"
        f" ON CONFLICT DO NOTHING RETURNING {keys}"
    )
    return len(connection.execute(statement, {"rows": rows}).all())


def _insert_unnest(
    connection: sa.Connection, table: sa.Table, rows: Sequence[dict[str, Any]]
) -> int:
    """PostgreSQL, rows JSON cannot carry (NaN, infinity): one array parameter per column
    (``INSERT … SELECT * FROM unnest(…) ON CONFLICT DO NOTHING RETURNING pk``) instead of a
    VALUES list with a placeholder per value, which the driver parses and adapts one by one
    (a sentence_align message's rows cost several times the CPU that way)."""
    names = list(rows[0])
    quote = connection.dialect.identifier_preparer.quote
    casts = ", ".join(
        f"CAST(:c{i} AS {table.c[name].type.compile(connection.dialect)}[])"
        for i, name in enumerate(names)
    )
    keys = ", ".join(quote(column.name) for column in table.primary_key.columns)
    statement = sa.text(
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(name) for name in names)})"
        f" SELECT * FROM unnest({casts}) ON CONFLICT DO NOTHING RETURNING {keys}"
    )
    arrays = {
        f"c{i}": [
            float(row[name])  # one element type per array: ints among floats become floats
            if isinstance(table.c[name].type, sa.Float) and row[name] is not None
            else row[name]
            for row in rows
        ]
        for i, name in enumerate(names)
    }
    return len(connection.execute(statement, arrays).all())


def _superseded(pair_id: str, rows: Sequence[dict[str, Any]]) -> sa.Delete:
    """The stored rows of ``pair_id`` that ``rows`` (all of its new rows) replace."""
    table = sentence_pairs
    statement = sa.delete(table).where(table.c.pair_id == pair_id)
    if not rows:
        return statement
    provenance = {tuple(row.get(name, "") for name in PROVENANCE) for row in rows}
    other: list[sa.ColumnElement[bool]] = [table.c.id.not_in([row["id"] for row in rows])]
    if len(provenance) == 1:
        other.append(
            sa.tuple_(*(table.c[name] for name in PROVENANCE)) != sa.tuple_(*provenance.pop())
        )
    return statement.where(sa.or_(*other))


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


def missing_columns(engine: Engine) -> list[str]:
    """The columns this version added to sentence_pairs that the store's table lacks."""
    present = {column["name"] for column in sa.inspect(engine).get_columns(sentence_pairs.name)}
    return [name for name in ADDED_COLUMNS if name not in present]


def site_of(url: str) -> str:
    """The host name of a URL, lower case ('' when there is none). Port and user name are
    not part of it, nor a query string that follows the host without a path
    (``https://example.com?session=...``, once taken whole as the site: a 300-character
    one overflowed the column and lost the page pair's sentences)."""
    if "://" not in url:
        return ""
    try:
        host = urlsplit(url).hostname
    except ValueError:  # an unclosed IPv6 bracket, a port that is not a number
        return ""
    return (host or "")[:SITE_LENGTH]


# Tracked pair states (job_pairs.state) and the stage whose progress row completes a pair.
PENDING, DONE, DEAD = "pending", "done", "dead"
COMPLETING_STAGE = "sentence_align"


def _completed() -> sa.Exists:
    """A job_pairs row's pair has its completing stage's progress row."""
    return sa.exists().where(
        pair_progress.c.pair_id == job_pairs.c.pair_id, pair_progress.c.stage == COMPLETING_STAGE
    )


@dataclass(frozen=True)
class TrackedPair:
    """A tracked page pair (or article batch) and the message that starts its work."""

    job_id: str
    pair_id: str
    stage: str
    payload: str | None = None


@dataclass(frozen=True)
class JobStatus:
    """Progress of one job, computed from observations."""

    job_id: str
    pairs: int
    completed: int
    failed: int
    sentence_pairs: int
    refused: int = 0  # inputs refused at ingest (dead letters of stage "ingest")

    @property
    def state(self) -> str:
        if self.completed + self.failed >= self.pairs:
            return "done" if self.failed == 0 and self.refused == 0 else "done-with-errors"
        return "running"


class Store:
    """All reads and writes of paramine's own tables."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)
        self.engine = make_engine(self.url)
        self._schema_ready = False

    @classmethod
    def existing(cls, url: str) -> Store:
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
        with store._guard():
            if not sa.inspect(store.engine).get_table_names():
                raise InvalidInput(
                    f"no paramine store at {location} (it holds no paramine tables): run "
                    "`paramine process` first, or set PARAMINE_DATABASE_URL"
                )
        return store

    def ensure_schema(self) -> None:
        if not self._schema_ready:
            with self._guard():
                create_tables(self.engine, metadata)
                missing = missing_columns(self.engine)
            if missing:
                raise ConfigurationError(
                    f"the store at {display_url(self.url)} was written by an older paramine "
                    f"(sentence_pairs has no {', '.join(missing)}): run `{MIGRATE_COMMAND}` to "
                    "bring it up to date"
                )
            self._schema_ready = True

    def _guard(self) -> AbstractContextManager[None]:
        return _transient_guard()

    def begin(self) -> Any:
        shared = _SHARED_TRANSACTION.get()
        if shared is not None and shared.engine is self.engine:
            return nullcontext(shared)  # inside one_transaction(): its commit is the only one
        self.ensure_schema()
        return self.engine.begin()

    @contextmanager
    def one_transaction(self) -> Iterator[None]:
        """Every write of this store inside the block joins one transaction: all or nothing,
        and one commit (one WAL flush) per message instead of one per store call."""
        self.ensure_schema()
        with self._guard(), self.engine.begin() as conn:
            token = _SHARED_TRANSACTION.set(conn)
            try:
                yield
            finally:
                _SHARED_TRANSACTION.reset(token)

    # -- writes ---------------------------------------------------------------------------
    def record_job(
        self,
        job_id: str,
        pairs: Iterable[tuple[str, str, str]],
        source: str,
        *,
        stage: str | None = None,
        payloads: Mapping[str, str] | None = None,
    ) -> None:
        """Register a job and its page pairs (pair_id, src_url, tgt_url); idempotent.

        With ``payloads`` (pair_id → JSON of the message about to be sent to ``stage``) each
        pair is tracked until it completes, so :mod:`shared.reconcile` can send it again if
        the broker loses its message."""
        now = time.time()
        with self._guard(), self.begin() as conn:
            # the source is a label (the CLI's input paths, joined): cut to fit its column
            source = source[:SOURCE_LENGTH]
            insert_ignoring_conflicts(
                conn, jobs, [{"job_id": job_id, "created_at": now, "source": source}]
            )
            rows: list[dict[str, Any]] = [
                {"job_id": job_id, "pair_id": p, "src_url": s, "tgt_url": t} for p, s, t in pairs
            ]
            if payloads is not None:
                rows = [
                    {
                        **row,
                        "state": PENDING,
                        "stage": stage,
                        "payload": payloads[row["pair_id"]],
                        "enqueued_at": now,
                        "enqueues": 1,
                    }
                    for row in rows
                ]
            insert_ignoring_conflicts(conn, job_pairs, rows)

    # -- delivery tracking (shared/reconcile.py) -----------------------------------------
    def complete_tracked(self, before: float) -> int:
        """Pending pairs sent before ``before`` whose sentence_align progress exists: mark them
        done and drop their payloads. Returns how many."""
        done = _completed()
        statement = (
            sa.update(job_pairs)
            .where(job_pairs.c.state == PENDING, job_pairs.c.enqueued_at < before, done)
            .values(state=DONE, payload=None)
        )
        with self._guard(), self.begin() as conn:
            updated: int = conn.execute(statement).rowcount
        return max(updated, 0)

    def stale_tracked(self, before: float, limit: int) -> list[TrackedPair]:
        """Pending pairs last sent before ``before`` and not completed, oldest first."""
        done = _completed()
        statement = (
            sa.select(job_pairs.c.job_id, job_pairs.c.pair_id, job_pairs.c.stage)
            .where(job_pairs.c.state == PENDING, job_pairs.c.enqueued_at < before, ~done)
            .order_by(job_pairs.c.enqueued_at)
            .limit(limit)
        )
        with self._guard(), self.begin() as conn:
            return [TrackedPair(*row) for row in conn.execute(statement)]

    def claim_tracked(self, keys: Sequence[tuple[str, str]], before: float) -> list[TrackedPair]:
        """Claim stale pairs for sending again: bump their send time and count, atomically, so
        that of several reconcilers only one sends a pair. Returns the claimed pairs with their
        payloads (a pair completed or claimed meanwhile is left out)."""
        if not keys:
            return []
        statement = (
            sa.update(job_pairs)
            .where(
                job_pairs.c.state == PENDING,
                job_pairs.c.enqueued_at < before,
                sa.tuple_(job_pairs.c.job_id, job_pairs.c.pair_id).in_(list(keys)),
                ~_completed(),  # done since it was listed (stored, then acked): not lost
            )
            .values(enqueued_at=time.time(), enqueues=job_pairs.c.enqueues + 1)
            .returning(
                job_pairs.c.job_id, job_pairs.c.pair_id, job_pairs.c.stage, job_pairs.c.payload
            )
        )
        with self._guard(), self.begin() as conn:
            return [TrackedPair(*row) for row in conn.execute(statement)]

    def track_again(self, pair_id: str) -> None:
        """A dead-lettered pair sent again (``dead-letters retry``): tracked as pending anew."""
        statement = (
            sa.update(job_pairs)
            .where(job_pairs.c.pair_id == pair_id, job_pairs.c.state == DEAD)
            .values(state=PENDING, enqueued_at=time.time())
        )
        with self._guard(), self.begin() as conn:
            conn.execute(statement)

    def track_dead_again(self, pair_id: str) -> None:
        """Undo :meth:`track_again` when the retried send failed: the pair is a dead letter
        again, not pending (the reconciler would otherwise send it anyway)."""
        statement = (
            sa.update(job_pairs)
            .where(job_pairs.c.pair_id == pair_id, job_pairs.c.state == PENDING)
            .values(state=DEAD)
        )
        with self._guard(), self.begin() as conn:
            conn.execute(statement)

    def tracked_states(self, job_id: str) -> dict[str, tuple[str | None, int]]:
        """pair_id → (state, times sent) of a job's pairs."""
        statement = sa.select(job_pairs.c.pair_id, job_pairs.c.state, job_pairs.c.enqueues).where(
            job_pairs.c.job_id == job_id
        )
        with self._guard(), self.begin() as conn:
            return {row.pair_id: (row.state, row.enqueues) for row in conn.execute(statement)}

    def record_progress(self, pair_id: str, stage: str, outputs: int) -> None:
        with self._guard(), self.begin() as conn:
            insert_ignoring_conflicts(
                conn,
                pair_progress,
                [
                    {
                        "pair_id": pair_id,
                        "stage": stage,
                        "outputs": outputs,
                        "updated_at": time.time(),
                    }
                ],
            )

    def add_sentence_pairs(
        self,
        rows: Sequence[dict[str, Any]],
        *,
        pair_id: str,
        stage: str,
        supersede: str | None = None,
    ) -> int:
        """Store sentence pairs and mark the page pair done for ``stage`` in one transaction.

        A row without a ``dedup_key`` gets the one of its languages and text (without a flag
        or provenance: ''; every row then has the same columns). ``supersede``:
        the rows are all of that page pair's (its ``pair_id`` column): its stored rows not
        among them, or produced with other provenance (method, version, model version), are
        deleted first, so replaying a page pair with other settings replaces its pairs
        (the same settings change nothing)."""
        now = time.time()
        rows = [
            {
                "flag": "",
                **dict.fromkeys(PROVENANCE, ""),
                **row,
                "created_at": now,
                "dedup_key": row.get("dedup_key")
                or dedup_key(row["src_lang"], row["tgt_lang"], row["src_text"], row["tgt_text"]),
            }
            for row in rows
        ]
        with self._guard(), self.begin() as conn:
            if supersede is not None:
                conn.execute(_superseded(supersede, rows))
            inserted = insert_ignoring_conflicts(conn, sentence_pairs, rows)
            insert_ignoring_conflicts(
                conn,
                pair_progress,
                [{"pair_id": pair_id, "stage": stage, "outputs": len(rows), "updated_at": now}],
            )
        return inserted

    def add_node_pairs(self, pair_id: str, rows: Sequence[dict[str, Any]]) -> int:
        """Store a page pair's aligned text chunks (keys of :data:`node_pairs` but pair_id)."""
        with self._guard(), self.begin() as conn:
            return insert_ignoring_conflicts(
                conn, node_pairs, [{**row, "pair_id": pair_id} for row in rows]
            )

    def add_paraphrase_observations(self, rows: Sequence[dict[str, Any]]) -> int:
        now = time.time()
        with self._guard(), self.begin() as conn:
            return insert_ignoring_conflicts(
                conn, paraphrase_observations, [{**row, "created_at": now} for row in rows]
            )

    def record_dead_letter(
        self,
        *,
        stage: str,
        payload: Any,
        error_type: str,
        reason: str,
        attempts: int,
        job_id: str | None = None,
    ) -> str:
        """Keep a message that cannot be processed, with why; the same message is kept once.
        A tracked page pair the message belongs to is marked dead (the reconciler leaves it)."""
        text = (
            payload
            if isinstance(payload, str)
            else json.dumps(payload, sort_keys=True, default=str)
        )
        letter_id = content_id(stage, text, prefix="dl")
        if job_id is None and isinstance(payload, dict):
            # A malformed message's context need not be an object: it is recorded all the same.
            context = payload.get("context")
            candidate = payload.get("job_id") or (
                context.get("job_id") if isinstance(context, dict) else None
            )
            job_id = str(candidate)[:64] if candidate else None
        row = {
            "id": letter_id,
            "stage": stage,
            "job_id": job_id,
            "error_type": error_type[:128],
            "reason": reason[:10_000],
            "payload": text,
            "attempts": attempts,
            "created_at": time.time(),
        }
        pair_id = pair_id_of(payload) if isinstance(payload, dict) else None
        with self._guard(), self.begin() as conn:
            insert_ignoring_conflicts(conn, dead_letters, [row])
            if pair_id is not None:
                conn.execute(
                    sa.update(job_pairs)
                    .where(job_pairs.c.pair_id == pair_id, job_pairs.c.state == PENDING)
                    .values(state=DEAD)
                )
        return letter_id

    # -- reads ----------------------------------------------------------------------------
    def job_status(self, job_id: str) -> JobStatus | None:
        with self._guard(), self.begin() as conn:
            if (
                conn.execute(sa.select(jobs.c.job_id).where(jobs.c.job_id == job_id)).first()
                is None
            ):
                return None
            pair_ids = sa.select(job_pairs.c.pair_id).where(job_pairs.c.job_id == job_id)
            total = conn.scalar(sa.select(sa.func.count()).select_from(pair_ids.subquery())) or 0
            completed = (
                conn.scalar(
                    sa.select(sa.func.count())
                    .select_from(pair_progress)
                    .where(
                        pair_progress.c.stage == "sentence_align",
                        pair_progress.c.pair_id.in_(pair_ids),
                    )
                )
                or 0
            )
            failed = (
                conn.scalar(
                    sa.select(sa.func.count(sa.distinct(dead_letters.c.id))).where(
                        dead_letters.c.job_id == job_id,
                        dead_letters.c.stage.in_(("tree_align", "sentence_align")),
                    )
                )
                or 0
            )
            refused = (
                conn.scalar(
                    sa.select(sa.func.count()).where(
                        dead_letters.c.job_id == job_id, dead_letters.c.stage == "ingest"
                    )
                )
                or 0
            )
            n_sentences = (
                conn.scalar(
                    sa.select(sa.func.count())
                    .select_from(sentence_pairs)
                    .where(sentence_pairs.c.pair_id.in_(pair_ids))
                )
                or 0
            )
        return JobStatus(
            job_id, int(total), int(completed), int(failed), int(n_sentences), int(refused)
        )

    def list_sentence_pairs(
        self, query: SentencePairQuery, *, after: tuple[str, int, str] | None = None
    ) -> list[dict[str, Any]]:
        """A page of the pairs matching the filters, in (pair_id, position, id) order; the id
        breaks ties, so pages neither repeat nor skip rows. ``after``: the (pair_id,
        position, id) of the previous page's last row, instead of ``query.offset`` (rows
        stored meanwhile then shift nothing)."""
        statement = select_pairs(sentence_pairs, job_pairs, query, after)
        with self._guard(), self.begin() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def flag_counts(self, query: SentencePairQuery) -> dict[str, int]:
        """flag → stored rows of the flagged pairs the query's other filters select."""
        statement = select_flag_counts(sentence_pairs, job_pairs, query)
        with self._guard(), self.begin() as conn:
            return {str(flag): int(count) for flag, count in conn.execute(statement)}

    def iter_sentence_pairs(
        self, query: SentencePairQuery, *, batch: int = 1_000
    ) -> Iterator[dict[str, Any]]:
        """All pairs matching the filters, in pages (for exports of any size): from
        ``query.offset`` on, then each page after the last row of the one before, so pairs
        stored while an export runs neither repeat nor push rows out of it."""
        page_query = replace(query, limit=batch)
        after: tuple[str, int, str] | None = None
        while True:
            page = self.list_sentence_pairs(page_query, after=after)
            yield from page
            if len(page) < batch:
                return
            last = page[-1]
            after = (last["pair_id"], last["position"], last["id"])

    def node_pairs(self, pair_id: str) -> list[dict[str, Any]]:
        """A page pair's aligned text chunks in chunk order (empty if none were stored)."""
        statement = (
            sa.select(node_pairs)
            .where(node_pairs.c.pair_id == pair_id)
            .order_by(node_pairs.c.chunk)
        )
        with self._guard(), self.begin() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def paraphrase_observations(self, *, kind: str | None = None) -> list[dict[str, Any]]:
        statement = sa.select(paraphrase_observations).order_by(paraphrase_observations.c.id)
        if kind:
            statement = statement.where(paraphrase_observations.c.kind == kind)
        with self._guard(), self.begin() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def list_dead_letters(
        self, *, stage: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[dict[str, Any]]:
        """Dead letters, oldest first (the id breaks ties, so pages are stable)."""
        statement = (
            sa.select(dead_letters)
            .order_by(dead_letters.c.created_at, dead_letters.c.id)
            .limit(limit)
            .offset(offset)
        )
        if stage:
            statement = statement.where(dead_letters.c.stage == stage)
        with self._guard(), self.begin() as conn:
            return [dict(row._mapping) for row in conn.execute(statement)]

    def restore_dead_letters(self, rows: Sequence[dict[str, Any]]) -> None:
        """Put letters back as they were (rows of ``list_dead_letters``), e.g. after a failed
        retry; a letter recorded again meanwhile is kept."""
        with self._guard(), self.begin() as conn:
            insert_ignoring_conflicts(conn, dead_letters, [dict(row) for row in rows])

    def delete_dead_letters(self, ids: Sequence[str] | None = None) -> int:
        statement = sa.delete(dead_letters)
        if ids is not None:
            statement = statement.where(dead_letters.c.id.in_(list(ids)))
        with self._guard(), self.begin() as conn:
            deleted: int = conn.execute(statement).rowcount
        return max(deleted, 0)

    def count_jobs(self) -> int:
        return self.count(jobs)

    def count(self, table: sa.Table) -> int:
        with self._guard(), self.begin() as conn:
            count: int = conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0
        return int(count)


# The connection of the current one_transaction() block (per thread and task, not global).
_SHARED_TRANSACTION: ContextVar[sa.Connection | None] = ContextVar(
    "paramine_store_transaction", default=None
)


@contextmanager
def _transient_guard() -> Iterator[None]:
    """Turn connection-level database failures into ``TransientError`` (retried by workers)."""
    try:
        yield
    except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
        if exc.connection_invalidated or _is_connection_error(exc):
            raise TransientError(f"database unavailable: {str(exc.orig)[:300]}") from exc
        raise


def _is_connection_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    needles = ("connection", "could not connect", "server closed", "database is locked", "terminat")
    return any(needle in text for needle in needles)
