"""Bring a store written by an older paramine up to date (``paramine migrate-store``):
sentence_pairs gains its dedup key, flag, provenance and posterior columns, every stored pair
its key and flag (computed as the pipeline now does when it stores a pair), the provenance
``unrecorded`` (nothing says what produced it) and its score as its posterior (before the
pair classifier a pair's score was its bead's DP posterior), and the indexes it lacks. Idempotent: a
current store is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from shared.corpus_clean import dedup_key, pair_flag
from shared.store import POSTERIOR, PROVENANCE, missing_columns, sentence_pairs

UNRECORDED = "unrecorded"
_BATCH = 2_000


@dataclass(frozen=True)
class Migration:
    """What a migration did."""

    added_columns: tuple[str, ...]
    pairs_updated: int
    added_indexes: tuple[str, ...] = ()


def migrate(engine: Engine) -> Migration:
    """Add the missing sentence_pairs columns and fill them in; a current store is left as it
    is. Run it once, with no worker writing (it takes the table a batch at a time)."""
    if not sa.inspect(engine).has_table(sentence_pairs.name):
        return Migration((), 0)
    missing = missing_columns(engine)
    with engine.begin() as conn:
        for name in missing:
            column = sentence_pairs.c[name]
            kind = column.type.compile(engine.dialect)
            if name == POSTERIOR:  # a number, NULL for pairs of no bead aligner
                conn.execute(sa.text(f"ALTER TABLE sentence_pairs ADD COLUMN {name} {kind}"))
                conn.execute(
                    sa.update(sentence_pairs)
                    .where(~sentence_pairs.c.bead.like("article:%"))
                    .values({POSTERIOR: sentence_pairs.c.score})
                )
                continue
            conn.execute(
                sa.text(f"ALTER TABLE sentence_pairs ADD COLUMN {name} {kind} NOT NULL DEFAULT ''")
            )
        if "dedup_key" in missing:
            index = next(i for i in sentence_pairs.indexes if "dedup_key" in i.columns)
            index.create(conn, checkfirst=True)
    updated = 0
    if "dedup_key" in missing or "flag" in missing:
        updated = _fill_keys_and_flags(engine, provenance=any(n in missing for n in PROVENANCE))
    present = {index["name"] for index in sa.inspect(engine).get_indexes(sentence_pairs.name)}
    added = sorted(str(index.name) for index in sentence_pairs.indexes if index.name not in present)
    with engine.begin() as conn:
        for index in sentence_pairs.indexes:
            if index.name in added:
                index.create(conn)
    return Migration(tuple(missing), updated, tuple(added))


def _fill_keys_and_flags(engine: Engine, *, provenance: bool) -> int:
    table = sentence_pairs
    updated = 0
    last = ""
    while True:
        with engine.begin() as conn:
            rows = conn.execute(
                sa.select(table.c.id, table.c.src_lang, table.c.tgt_lang, table.c.src_text,
                          table.c.tgt_text)
                .where(table.c.id > last)
                .order_by(table.c.id)
                .limit(_BATCH)
            ).all()  # fmt: skip
            if not rows:
                return updated
            names = ["dedup_key", "flag", *(PROVENANCE if provenance else ())]
            statement = (
                sa.update(table)
                .where(table.c.id == sa.bindparam("row_id"))
                .values({name: sa.bindparam(f"new_{name}") for name in names})
            )
            values = [
                {
                    "row_id": row.id,
                    "new_dedup_key": dedup_key(row.src_lang, row.tgt_lang, row.src_text,
                                               row.tgt_text),
                    "new_flag": pair_flag(row.src_text, row.tgt_text, row.src_lang, row.tgt_lang),
                    **({f"new_{name}": UNRECORDED for name in PROVENANCE} if provenance else {}),
                }
                for row in rows
            ]  # fmt: skip
            conn.execute(statement, values)  # one executemany per batch
            updated += len(rows)
            last = rows[-1].id
