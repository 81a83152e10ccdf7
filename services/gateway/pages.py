"""``POST /v1/pages``: single crawled pages for page_match, which pairs them with each other and
with the pages stored before (same key, limits and 413/422/429 answers as page pairs)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, status
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from services.gateway.deps import IngestKey, StoreDep
from services.wiring.dispatch import enqueue_pages
from shared.intake.ingest import Job as PairJob
from shared.intake.ingest import build_page_job, merged_job
from shared.metrics import stage_metrics
from shared.schemas import (
    JOB_ID_PATTERN,
    LANG_PATTERN,
    MAX_INGEST_PAIRS,
    Page,
    Text,
    Url,
)

router = APIRouter()


class PageIn(BaseModel):
    """One crawled page; ``lang`` is a declaration, evidence for page_match, not truth."""

    model_config = ConfigDict(extra="forbid")
    url: Url
    html: Text
    lang: Annotated[str | None, Field(default=None, max_length=16, pattern=LANG_PATTERN)] = None


class PagesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    job_id: str | None = Field(default=None, pattern=JOB_ID_PATTERN)
    pages: list[PageIn] = Field(min_length=1, max_length=MAX_INGEST_PAIRS)


class PagesAccepted(BaseModel):
    job_id: str
    accepted: int


@router.post(
    "/v1/pages",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=PagesAccepted,
    responses={413: {"description": "body too large"}, 422: {"description": "malformed body"}},
)
async def ingest_pages(batch: PagesIn, store: StoreDep, _key: IngestKey) -> PagesAccepted:
    """Accept single pages: each waits in the store until its counterpart arrives, in this
    request or a later one; the page pairs found go through every stage under this job."""
    pages = build_page_job(
        Page(url=page.url, lang=(page.lang or "und").lower(), html=page.html)
        for page in batch.pages
    )
    job = merged_job(PairJob("-"), pages, batch.job_id)
    stage_metrics().messages_in.labels("gateway").inc(len(batch.pages))
    # the job exists from now on; its page pairs are added as page_match finds them
    await run_in_threadpool(enqueue_pages, store, job.job_id, pages.pages, "pages")
    return PagesAccepted(job_id=job.job_id, accepted=len(pages.pages))
