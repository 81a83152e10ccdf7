"""``GET /v1/jobs`` and ``GET /v1/jobs/{id}``: the jobs' progress, one job or a page of them."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, status
from pydantic import BaseModel

from services.gateway.deps import Offset, StoreDep
from shared.store import JobStatus, Store

router = APIRouter()

JobState = Literal["running", "waiting", "done", "done-with-errors"]
MAX_JOBS_LISTED = 1_000  # jobs in one page of ``GET /v1/jobs``


class FailureOut(BaseModel):
    """The dead letters of a job that share a stage and a reason."""

    stage: str
    reason: str
    count: int
    line: str  # as the CLI prints it: "27 pages (page_match): HTML page looks like binary data"


class JobOut(BaseModel):
    """A job's progress. ``state``: "running" while a page_match message of the job is pending
    or a page pair neither completed nor failed; "waiting" when its pages are all matched but
    some wait for a counterpart (``waiting_pages``: a later page may pair them); then "done",
    or "done-with-errors" when anything was refused or failed (``failures``)."""

    job_id: str
    state: str  # one of JobState
    pairs: int
    completed: int
    failed: int
    sentence_pairs: int
    refused: int  # inputs refused at ingest, each a dead letter with its reason
    pages: int = 0  # single pages sent to page_match
    pending_pages: int = 0  # of them, not yet processed by page_match
    failed_pages: int = 0  # refused by page_match
    waiting_pages: int = 0  # stored, waiting for a counterpart
    failures: list[FailureOut] = []

    @classmethod
    def of_status(cls, job: JobStatus) -> JobOut:
        """The answer of a job's status."""
        return cls(
            job_id=job.job_id,
            state=job.state,
            pairs=job.pairs,
            completed=job.completed,
            failed=job.failed,
            sentence_pairs=job.sentence_pairs,
            refused=job.refused,
            pages=job.pages,
            pending_pages=job.pending_pages,
            failed_pages=job.failed_pages,
            waiting_pages=job.waiting_pages,
            failures=[
                FailureOut(stage=f.stage, reason=f.reason, count=f.count, line=f.line())
                for f in job.failures
            ],
        )


class JobPage(BaseModel):
    items: list[JobOut]
    limit: int
    offset: int
    next_offset: int | None


def job_status(store: Store, job_id: str) -> JobStatus | None:
    """The job's status with its pages waiting for a counterpart counted in (None: no such
    job)."""
    job = store.job_status(job_id)
    if job is None:
        return None
    # lazy: page_match's numba and scipy stay off the gateway's start (only its tables are read)
    from services.page_match.repository import with_waiting_pages

    return with_waiting_pages(store.engine, job)


def newest_statuses(store: Store, start: int, batch: int) -> Iterator[JobStatus]:
    """The jobs' statuses, newest first, from the ``start``-th job on (``batch`` jobs read
    from the store at a time)."""
    while True:
        rows = store.list_jobs(batch, start)
        for row in rows:
            job = job_status(store, row["job_id"])
            if job is not None:
                yield job
        if len(rows) < batch:
            return
        start += len(rows)


def listed_jobs(
    store: Store, state: str | None, limit: int, offset: int
) -> tuple[list[JobStatus], bool]:
    """Up to ``limit`` jobs newest first, after the first ``offset`` (of the jobs in ``state``
    when it is given), and whether more follow. A state is computed, not stored: with one,
    the jobs are read newest first until the page is full."""
    if state is None:
        statuses = newest_statuses(store, offset, limit + 1)
    else:
        in_state = (job for job in newest_statuses(store, 0, limit + 1) if job.state == state)
        statuses = islice(in_state, offset, None)
    page = list(islice(statuses, limit + 1))  # one more: whether a next page exists
    return page[:limit], len(page) > limit


@router.get("/v1/jobs", response_model=JobPage)
def list_jobs(
    store: StoreDep,
    limit: Annotated[
        int, Query(ge=1, le=MAX_JOBS_LISTED, description="jobs to give at most (a page)")
    ] = 50,
    offset: Offset = 0,
    state: Annotated[JobState | None, Query(description="only the jobs in this state")] = None,
) -> JobPage:
    """Jobs, newest first, paged, each as ``GET /v1/jobs/{id}`` gives it; ``state`` keeps
    the jobs in that state (``offset`` then counts those)."""
    jobs, more = listed_jobs(store, state, limit, offset)
    return JobPage(
        items=[JobOut.of_status(job) for job in jobs],
        limit=limit,
        offset=offset,
        next_offset=offset + limit if more else None,
    )


@router.get(
    "/v1/jobs/{job_id}", response_model=JobOut, responses={404: {"description": "unknown job"}}
)
def get_job(job_id: str, store: StoreDep) -> JobOut:
    """Progress of a job: pairs, completed, failed, sentence pairs stored, inputs refused
    (a job with refusals ends "done-with-errors")."""
    job = job_status(store, job_id)
    if job is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no job {job_id!r}")
    return JobOut.of_status(job)
