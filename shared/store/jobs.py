"""Jobs and their page pairs: registration, delivery tracking (``shared/delivery/reconcile.py``),
per-stage progress and the job status computed from them."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from shared.schemas import STAGES
from shared.store.base import StoreBase
from shared.store.inserts import insert_ignoring_conflicts
from shared.store.order import record_order
from shared.store.rows import FailureCount, JobStatus, TrackedPair
from shared.store.tables import (
    COMPLETING_STAGE,
    DEAD,
    DONE,
    PENDING,
    SOURCE_LENGTH,
    dead_letters,
    job_batches,
    job_pairs,
    jobs,
    pair_progress,
    sentence_pairs,
)

# A reason's leading subject, left out when reasons are counted: "<URL or id>: " or
# "<file>:<line>: ".
_SUBJECT = re.compile(r"^(?:\S*(?:://|/|_url|_id)\S*|\S+:\d+): (?=\S)")


def failure_counts(letters: Iterable[tuple[str, str]]) -> tuple[FailureCount, ...]:
    """Dead letters (stage, reason) counted per stage and reason, the page, pair or line each
    names left out of its reason; stages in pipeline order, the most frequent reason first."""
    counts: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], str] = {}
    for stage, reason in letters:
        key = (stage, _SUBJECT.sub("", reason, count=1))
        counts[key] += 1
        examples.setdefault(key, reason)
    order = {stage: i for i, stage in enumerate(("ingest", *STAGES))}
    ranked = sorted(counts.items(), key=lambda kv: (order.get(kv[0][0], 99), -kv[1], kv[0]))
    return tuple(
        FailureCount(stage, reason, n, examples[stage, reason]) for (stage, reason), n in ranked
    )


def _completed() -> sa.Exists:
    """A job_pairs row's pair has its completing stage's progress row."""
    return sa.exists().where(
        pair_progress.c.pair_id == job_pairs.c.pair_id, pair_progress.c.stage == COMPLETING_STAGE
    )


class JobRepository(StoreBase):
    """Jobs, their page pairs and the pairs' progress."""

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
        pair is tracked until it completes, so :mod:`shared.delivery.reconcile` can send it again if
        the broker loses its message."""
        now = time.time()
        with self.guard(), self.begin() as conn:
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
            record_order(conn, [(row["pair_id"], row["src_url"], row["tgt_url"]) for row in rows])

    def record_page_batches(self, job_id: str, batches: Sequence[tuple[str, int]]) -> None:
        """Register a job (if new) and its page_match messages (batch_id, pages) as pending;
        idempotent (a message sent again keeps its state)."""
        with self.guard(), self.begin() as conn:
            insert_ignoring_conflicts(
                conn, jobs, [{"job_id": job_id, "created_at": time.time(), "source": ""}]
            )
            insert_ignoring_conflicts(
                conn,
                job_batches,
                [
                    {"job_id": job_id, "batch_id": b, "pages": n, "state": PENDING}
                    for b, n in batches
                ],
            )

    def settle_page_batch(self, batch_id: str, state: str = DONE) -> None:
        """page_match is done with a message (``DONE``) or it became a dead letter (``DEAD``)."""
        with self.guard(), self.begin() as conn:
            conn.execute(
                sa.update(job_batches)
                .where(job_batches.c.batch_id == batch_id, job_batches.c.state == PENDING)
                .values(state=state)
            )

    def complete_tracked(self, before: float) -> int:
        """Pending pairs sent before ``before`` whose sentence_align progress exists: mark them
        done and drop their payloads. Returns how many."""
        done = _completed()
        statement = (
            sa.update(job_pairs)
            .where(job_pairs.c.state == PENDING, job_pairs.c.enqueued_at < before, done)
            .values(state=DONE, payload=None)
        )
        with self.guard(), self.begin() as conn:
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
        with self.guard(), self.begin() as conn:
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
        with self.guard(), self.begin() as conn:
            return [TrackedPair(*row) for row in conn.execute(statement)]

    def track_again(self, pair_id: str) -> None:
        """A dead-lettered pair sent again (``dead-letters retry``): tracked as pending anew."""
        statement = (
            sa.update(job_pairs)
            .where(job_pairs.c.pair_id == pair_id, job_pairs.c.state == DEAD)
            .values(state=PENDING, enqueued_at=time.time())
        )
        with self.guard(), self.begin() as conn:
            conn.execute(statement)

    def track_dead_again(self, pair_id: str) -> None:
        """Undo :meth:`track_again` when the retried send failed: the pair is a dead letter
        again, not pending (the reconciler would otherwise send it anyway)."""
        statement = (
            sa.update(job_pairs)
            .where(job_pairs.c.pair_id == pair_id, job_pairs.c.state == PENDING)
            .values(state=DEAD)
        )
        with self.guard(), self.begin() as conn:
            conn.execute(statement)

    def tracked_states(self, job_id: str) -> dict[str, tuple[str | None, int]]:
        """pair_id → (state, times sent) of a job's pairs."""
        statement = sa.select(job_pairs.c.pair_id, job_pairs.c.state, job_pairs.c.enqueues).where(
            job_pairs.c.job_id == job_id
        )
        with self.guard(), self.begin() as conn:
            return {row.pair_id: (row.state, row.enqueues) for row in conn.execute(statement)}

    def record_progress(self, pair_id: str, stage: str, outputs: int) -> None:
        with self.guard(), self.begin() as conn:
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

    def job_status(self, job_id: str) -> JobStatus | None:
        """The job's progress from its rows: pairs, pages, dead letters (``JobStatus.state``).
        Its pages waiting for a counterpart live in page_match's tables: that stage's reader
        fills ``waiting_pages`` in."""
        with self.guard(), self.begin() as conn:
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
            letters = conn.execute(
                sa.select(dead_letters.c.stage, dead_letters.c.reason).where(
                    dead_letters.c.job_id == job_id
                )
            ).all()
            batches = conn.execute(
                sa.select(job_batches.c.state, sa.func.sum(job_batches.c.pages), sa.func.count())
                .where(job_batches.c.job_id == job_id)
                .group_by(job_batches.c.state)
            ).all()
            n_sentences = (
                conn.scalar(
                    sa.select(sa.func.count())
                    .select_from(sentence_pairs)
                    .where(sentence_pairs.c.pair_id.in_(pair_ids))
                )
                or 0
            )
        by_stage = Counter(stage for stage, _ in letters)
        pages = {state: (int(n or 0), int(count)) for state, n, count in batches}
        dead_pages, dead_batches = pages.get(DEAD, (0, 0))
        return JobStatus(
            job_id,
            int(total),
            int(completed),
            failed=by_stage["tree_align"] + by_stage["sentence_align"],
            sentence_pairs=int(n_sentences),
            refused=by_stage["ingest"],
            pages=sum(n for n, _ in pages.values()),
            pending_pages=pages.get(PENDING, (0, 0))[0],
            # a dead batch is one letter for all its pages; each refused page is a letter
            failed_pages=dead_pages + by_stage["page_match"] - dead_batches,
            failures=failure_counts(letters),
        )

    def job_page_pairs(
        self, job_id: str, limit: int | None = None, offset: int = 0
    ) -> list[dict[str, Any]]:
        """A job's page pairs (``pair_id``, ``src_url``, ``tgt_url``) by source URL, with their
        stored sentence pairs' count and mean score (``sentence_pairs``, ``mean_score``)."""
        statement = (
            sa.select(
                job_pairs.c.pair_id,
                job_pairs.c.src_url,
                job_pairs.c.tgt_url,
                sa.func.count(sentence_pairs.c.id).label("sentence_pairs"),
                sa.func.avg(sentence_pairs.c.score).label("mean_score"),
            )
            .select_from(
                job_pairs.outerjoin(sentence_pairs, sentence_pairs.c.pair_id == job_pairs.c.pair_id)
            )
            .where(job_pairs.c.job_id == job_id)
            .group_by(job_pairs.c.pair_id, job_pairs.c.src_url, job_pairs.c.tgt_url)
            .order_by(job_pairs.c.src_url, job_pairs.c.pair_id)
            .limit(limit)
            .offset(offset)
        )
        return self.mappings(statement)

    def page_pair_urls(self, pair_id: str) -> tuple[str, str] | None:
        """The (src_url, tgt_url) a job recorded for the page pair; None: no job did."""
        statement = sa.select(job_pairs.c.src_url, job_pairs.c.tgt_url).where(
            job_pairs.c.pair_id == pair_id
        )
        with self.guard(), self.begin() as conn:
            row = conn.execute(statement).first()
        return None if row is None else (row.src_url, row.tgt_url)

    def count_jobs(self) -> int:
        return self.count(jobs)

    def list_jobs(self, limit: int, offset: int = 0) -> list[dict[str, Any]]:
        """Jobs newest first (``job_id``, ``created_at``, ``source``), with their page-pair and
        sentence-pair counts (``pairs``, ``sentence_pairs``): the viewer's jobs page and
        ``GET /v1/jobs`` (which asks each job's :meth:`job_status`)."""
        pair_count = (
            sa.select(sa.func.count()).where(job_pairs.c.job_id == jobs.c.job_id).scalar_subquery()
        )
        # One join correlated to the outer jobs row (an IN over a nested select took its own
        # ``jobs`` there and counted every job's pairs for every row).
        sentence_count = (
            sa.select(sa.func.count())
            .select_from(
                sentence_pairs.join(job_pairs, job_pairs.c.pair_id == sentence_pairs.c.pair_id)
            )
            .where(job_pairs.c.job_id == jobs.c.job_id)
            .correlate(jobs)
            .scalar_subquery()
        )
        statement = (
            sa.select(
                jobs.c.job_id,
                jobs.c.created_at,
                jobs.c.source,
                pair_count.label("pairs"),
                sentence_count.label("sentence_pairs"),
            )
            .order_by(jobs.c.created_at.desc(), jobs.c.job_id)
            .limit(limit)
            .offset(offset)
        )
        return self.mappings(statement)
