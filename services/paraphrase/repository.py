"""Persistence of the paraphrase stage's phrase table: snapshots computed off the request path.

Training the word aligner and classifying every cell of every stored pair takes seconds to
minutes, so the PPDB-style phrase table is computed by the periodic task (Celery beat:
``paramine.paraphrase.recompute``; in embedded mode ``paramine process`` and ``paramine export
--format ppdb``, both through ``handler.recompute_phrase_table``) and stored as a snapshot;
the gateway's queries, downloads and viewer only read the newest one.

A snapshot records what it was built from: the number of distinct observations, a digest of
them and of the word model that aligned them (and of the entries' format), so a recompute with
nothing new stores nothing.
Tables live in this module's own ``MetaData`` (``ensure_schema``); every function takes an
``Engine``, so the same code runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import asdict

import sqlalchemy as sa

from services.paraphrase.phrases import PhraseTableEntry
from services.paraphrase.tables import Observation, default_word_model, phrase_paraphrases
from shared.errors import InvalidInput
from shared.store import create_tables_once
from shared.text import base_lang

KEEP_SNAPSHOTS = 3

metadata = sa.MetaData()

phrase_table_snapshots = sa.Table(
    "phrase_table_snapshots",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("observations", sa.Integer, nullable=False),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("model", sa.String(64), nullable=False),
    sa.Column("entries", sa.Text, nullable=False),  # JSON list of PhraseTableEntry fields
)


def ensure_schema(engine: sa.Engine) -> None:
    """Create this stage's tables when they are missing (safe for concurrent callers); once
    per engine and process, so a query does not check the schema again."""
    create_tables_once(engine, metadata)


def observations_digest(observations: Sequence[Observation]) -> str:
    """SHA-256 over the distinct (lang, kind, src, tgt) of the observations, in sorted order."""
    digest = hashlib.sha256()
    for obs in sorted({(o.lang, o.kind, o.src, o.tgt) for o in observations}):
        digest.update(json.dumps(obs, ensure_ascii=False).encode("utf-8") + b"\n")
    return digest.hexdigest()


# The format of a snapshot's entries: another format means another table. 2: each entry
# holds its word alignment (a snapshot of format 1 had none; it is computed again, not kept).
TABLE_FORMAT = 2


@functools.cache
def model_digest() -> str:
    """SHA-256 of the table format and the shipped word model's JSON: another model or
    another format means another table."""
    payload = f"phrase table format {TABLE_FORMAT}\n" + default_word_model().to_json()
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def rebuild_phrase_table(
    engine: sa.Engine, observations: Sequence[Observation], *, unless_unchanged: bool = True
) -> int:
    """Compute the phrase table of ``observations`` and store it as the newest snapshot; its id.

    ``unless_unchanged``: when the newest snapshot was built from the same observations with
    the same model, keep it (its id) instead of computing again.
    """
    ensure_schema(engine)
    digest, model = observations_digest(observations), model_digest()
    if unless_unchanged:
        newest = _newest(engine)
        if newest is not None and (newest.digest, newest.model) == (digest, model):
            return int(newest.id)
    entries = phrase_paraphrases(observations)
    distinct = len({(o.lang, o.kind, o.src, o.tgt) for o in observations})
    return save_phrase_table(engine, entries, observations=distinct, digest=digest, model=model)


def save_phrase_table(
    engine: sa.Engine,
    entries: Sequence[PhraseTableEntry],
    *,
    observations: int,
    digest: str,
    model: str,
) -> int:
    """Store ``entries`` as the newest snapshot, built from ``observations`` distinct
    observations of that ``digest`` with that ``model``; the oldest beyond KEEP_SNAPSHOTS are
    dropped. Returns the snapshot's id."""
    ensure_schema(engine)
    payload = json.dumps([asdict(entry) for entry in entries], ensure_ascii=False)
    with engine.begin() as conn:
        row = conn.execute(
            phrase_table_snapshots.insert()
            .values(
                created_at=time.time(),
                observations=observations,
                digest=digest,
                model=model,
                entries=payload,
            )
            .returning(phrase_table_snapshots.c.id)
        ).one()
        stale = (
            sa.select(phrase_table_snapshots.c.id)
            .order_by(phrase_table_snapshots.c.id.desc())
            .offset(KEEP_SNAPSHOTS)
        )
        conn.execute(
            sa.delete(phrase_table_snapshots).where(phrase_table_snapshots.c.id.in_(stale))
        )
    return int(row.id)


def latest_phrase_table(engine: sa.Engine, *, lang: str | None = None) -> list[PhraseTableEntry]:
    """The newest snapshot's entries (one language's with ``lang``); [] before the first one."""
    ensure_schema(engine)
    newest = _newest(engine, with_entries=True)
    if newest is None:
        return []
    try:
        entries = [PhraseTableEntry(**item) for item in json.loads(newest.entries)]
    except (TypeError, ValueError) as error:
        raise InvalidInput(f"phrase table snapshot {newest.id} is corrupt: {error}") from None
    if lang is not None:
        language = base_lang(lang)
        entries = [entry for entry in entries if entry.lang == language]
    return entries


def _newest(engine: sa.Engine, *, with_entries: bool = False) -> sa.Row[tuple[object, ...]] | None:
    columns = [
        phrase_table_snapshots.c.id,
        phrase_table_snapshots.c.digest,
        phrase_table_snapshots.c.model,
    ]
    if with_entries:
        columns.append(phrase_table_snapshots.c.entries)
    with engine.connect() as conn:
        return conn.execute(
            sa.select(*columns).order_by(phrase_table_snapshots.c.id.desc()).limit(1)
        ).first()
