"""Turning crawler inputs into a job of page-pair messages (shared by CLI, gateway and submit)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import ValidationError

from shared.errors import InvalidInput
from shared.ids import content_id
from shared.inputs import PairSource
from shared.schemas import PagePair
from shared.store import Store


@dataclass
class Job:
    """A batch of page pairs with a content-derived id, plus the inputs that were refused."""

    job_id: str
    pairs: list[PagePair] = field(default_factory=list)
    refused: list[InvalidInput] = field(default_factory=list)


def build_job(items: Iterable[PairSource | InvalidInput], job_id: str | None = None) -> Job:
    """Collect page pairs; the job id is derived from the pairs unless one is given."""
    drafts: list[PagePair] = []
    refused: list[InvalidInput] = []
    for item in items:
        if isinstance(item, InvalidInput):
            refused.append(item)
            continue
        try:
            drafts.append(
                PagePair.model_validate(
                    {"job_id": "-", "kind": item.kind, "src": item.src, "tgt": item.tgt}
                )
            )
        except ValidationError as exc:
            refused.append(InvalidInput(f"{item.origin}: {exc.errors()[0]['msg']}"))
    if job_id is None:
        keys = sorted(draft.pair_id for draft in drafts) or ["empty"]
        job_id = content_id(*keys, prefix="job")
    return Job(job_id, [draft.model_copy(update={"job_id": job_id}) for draft in drafts], refused)


def register_job(store: Store, job: Job, source: str) -> None:
    """Record the job, its pairs, and a dead letter for every refused input."""
    store.record_job(job.job_id, [(p.pair_id, p.src.url, p.tgt.url) for p in job.pairs], source)
    for error in job.refused:
        store.record_dead_letter(
            stage="ingest",
            payload={"job_id": job.job_id, "error": str(error)},
            error_type=error.__class__.__name__,
            reason=str(error),
            attempts=1,
            job_id=job.job_id,
        )
