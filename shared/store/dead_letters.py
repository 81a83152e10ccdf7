"""Dead letters: messages a stage could not process, kept with why (and retried or purged
by ``paramine dead-letters``)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from shared.ids import content_id
from shared.schemas import pair_id_of
from shared.store.base import StoreBase
from shared.store.inserts import insert_ignoring_conflicts
from shared.store.tables import (
    DEAD,
    PENDING,
    dead_letters,
    job_batches,
    job_pairs,
    pair_order,
)


class DeadLetterRepository(StoreBase):
    """Dead letters."""

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
        A tracked page pair the message belongs to is marked dead (the reconciler leaves it),
        and so is a page_match message's batch (its job no longer waits for it)."""
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
        batch_id = payload.get("batch_id") if isinstance(payload, dict) else None
        with self.guard(), self.begin() as conn:
            insert_ignoring_conflicts(conn, dead_letters, [row])
            if isinstance(batch_id, str):  # a page_match message: its job is not waiting on it
                conn.execute(
                    sa.update(job_batches)
                    .where(job_batches.c.batch_id == batch_id, job_batches.c.state == PENDING)
                    .values(state=DEAD)
                )
            if pair_id is not None:
                conn.execute(
                    sa.update(job_pairs)
                    .where(job_pairs.c.pair_id == pair_id, job_pairs.c.state == PENDING)
                    .values(state=DEAD)
                )
                # later page pairs of its site no longer wait for it (shared.store.order)
                conn.execute(
                    sa.update(pair_order).where(pair_order.c.pair_id == pair_id).values(failed=1)
                )
        return letter_id

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
        return self.mappings(statement)

    def restore_dead_letters(self, rows: Sequence[dict[str, Any]]) -> None:
        """Put letters back as they were (rows of ``list_dead_letters``), e.g. after a failed
        retry; a letter recorded again meanwhile is kept."""
        with self.guard(), self.begin() as conn:
            insert_ignoring_conflicts(conn, dead_letters, [dict(row) for row in rows])

    def delete_dead_letters(self, ids: Sequence[str] | None = None) -> int:
        statement = sa.delete(dead_letters)
        if ids is not None:
            statement = statement.where(dead_letters.c.id.in_(list(ids)))
        with self.guard(), self.begin() as conn:
            deleted: int = conn.execute(statement).rowcount
        return max(deleted, 0)
