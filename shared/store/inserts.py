"""Idempotent inserts: rows keyed by content-derived ids, written with an insert that ignores
conflicts (replaying a message leaves the tables unchanged), by the fastest statement each
database offers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite


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


def dialect_insert(connection: sa.Connection, table: sa.Table) -> Any:
    """The connection's dialect's INSERT, which can take ON CONFLICT DO NOTHING / DO UPDATE."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        return postgresql.insert(table)
    if dialect == "sqlite":
        return sqlite.insert(table)
    raise NotImplementedError(f"unsupported database dialect {dialect}")  # pragma: no cover


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
    statement = dialect_insert(connection, table).on_conflict_do_nothing()
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
