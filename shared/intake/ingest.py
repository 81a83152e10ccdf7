"""Turning crawler inputs into a job of page-pair messages (shared by CLI, gateway and submit)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from shared.errors import InvalidInput
from shared.ids import content_id
from shared.intake.inputs import PairSource
from shared.schemas import CrawledPages, Page, PagePair
from shared.store import Store


@dataclass
class Job:
    """A batch of page pairs with a content-derived id, plus the inputs that were refused."""

    job_id: str
    pairs: list[PagePair] = field(default_factory=list)
    refused: list[InvalidInput] = field(default_factory=list)


def build_job(items: Iterable[PairSource | InvalidInput], job_id: str | None = None) -> Job:
    """Collect page pairs; the job id is derived from the pairs unless one is given.

    A pair given twice (same content, so the same pair id) is kept once: it was listed twice
    in the answer and, in local runs, aligned twice."""
    by_id: dict[str, PagePair] = {}
    refused: list[InvalidInput] = []
    for item in items:
        if isinstance(item, InvalidInput):
            refused.append(item)
            continue
        try:
            draft = PagePair.model_validate(
                {"job_id": "-", "kind": item.kind, "src": item.src, "tgt": item.tgt}
            )
        except ValidationError as exc:
            refused.append(InvalidInput(f"{item.origin}: {exc.errors()[0]['msg']}"))
            continue
        by_id.setdefault(draft.pair_id, draft)
    drafts = list(by_id.values())
    if job_id is None:
        # The refusals count too: requests whose pairs were all refused got one shared id.
        keys = sorted(draft.pair_id for draft in drafts) + sorted(map(str, refused))
        job_id = content_id(*(keys or ["empty"]), prefix="job")
    return Job(job_id, [draft.model_copy(update={"job_id": job_id}) for draft in drafts], refused)


def register_job(
    store: Store, job: Job, source: str, payloads: dict[str, dict[str, Any]] | None = None
) -> None:
    """Record the job, its pairs, and a dead letter for every refused input. With ``payloads``
    (pair_id → tree_align message as JSON types) the pairs are tracked until they complete."""
    store.record_job(
        job.job_id,
        [(p.pair_id, p.src.url, p.tgt.url) for p in job.pairs],
        source,
        stage="tree_align",
        payloads=None
        if payloads is None
        else {pair_id: json.dumps(payload) for pair_id, payload in payloads.items()},
    )
    for error in job.refused:
        payload: dict[str, Any] = {"job_id": job.job_id, "error": str(error)}
        if error.refused is not None:
            payload["input"] = error.refused
        store.record_dead_letter(
            stage="ingest",
            payload=payload,
            error_type=error.__class__.__name__,
            reason=str(error),
            attempts=1,
            job_id=job.job_id,
        )


def send_job(store: Store, job: Job, source: str, sender: Any) -> None:
    """Distributed mode: record the job with each pair's message (tracked, durable first),
    then put the messages on the tree_align queue with ``sender.send_payload``."""
    payloads = {pair.pair_id: pair.model_dump(mode="json") for pair in job.pairs}
    register_job(store, job, source, payloads)
    for payload in payloads.values():
        sender.send_payload("tree_align", payload)


# Pages in one page_match message: one site's pages go together, in batches of this size.
PAGES_PER_MESSAGE = 200


@dataclass
class PageJob:
    """Single pages read for page_match, plus the inputs that were refused."""

    pages: list[Page] = field(default_factory=list)
    refused: list[InvalidInput] = field(default_factory=list)


def single_page_input(path: Path) -> bool:
    """Whether ``path`` holds single pages for page_match rather than page pairs: a .lett or
    WARC file (when no pairing option is given), or a .jsonl whose first record is a page
    (``{"url", "html", ...}``, where a pair has ``src`` and ``tgt``)."""
    name = path.name.lower()
    if name.endswith((".lett", ".lett.gz", ".warc", ".warc.gz")):
        return True
    if not name.endswith((".jsonl", ".jsonl.gz", ".ndjson")) or not path.is_file():
        return False
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    return isinstance(record, dict) and "html" in record and "src" not in record
    except (OSError, EOFError, ValueError):
        return False  # read as pairs, whose reader names the problem
    return False


def build_page_job(items: Iterable[Page | InvalidInput], job_id: str | None = None) -> PageJob:
    """Collect pages (a URL given twice with the same HTML: kept once)."""
    pages: dict[tuple[str, str], Page] = {}
    refused: list[InvalidInput] = []
    for item in items:
        if isinstance(item, InvalidInput):
            refused.append(item)
        else:
            pages.setdefault((item.url, content_id(item.html, prefix="h")), item)
    return PageJob(list(pages.values()), refused)


def merged_job(pairs: Job, pages: PageJob, job_id: str | None) -> Job:
    """One job for the page pairs and the single pages of a run; its id derived from both
    (pages by URL and content) unless one is given."""
    refused = pairs.refused + pages.refused
    if job_id is None:
        keys = sorted(p.pair_id for p in pairs.pairs)
        keys += sorted(content_id(p.url, p.lang, p.html, prefix="pg") for p in pages.pages)
        keys += sorted(map(str, refused))
        job_id = content_id(*(keys or ["empty"]), prefix="job")
    return Job(job_id, [p.model_copy(update={"job_id": job_id}) for p in pairs.pairs], refused)


def page_messages(job_id: str, pages: Iterable[Page]) -> Iterator[dict[str, Any]]:
    """page_match messages (JSON types): the pages grouped by site, PAGES_PER_MESSAGE a message."""
    by_site: dict[str, list[Page]] = {}
    for page in pages:
        try:
            site = urlsplit(page.url).hostname or ""
        except ValueError:
            site = ""
        by_site.setdefault(site, []).append(page)
    for site in sorted(by_site):
        group = by_site[site]
        for start in range(0, len(group), PAGES_PER_MESSAGE):
            batch = group[start : start + PAGES_PER_MESSAGE]
            keys = (content_id(p.url, p.lang, p.html) for p in batch)
            batch_id = content_id(job_id, *keys, prefix="pb")
            message = CrawledPages(job_id=job_id, pages=batch, batch_id=batch_id)
            yield message.model_dump(mode="json")


def register_page_messages(
    store: Store, job_id: str, payloads: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Record a job's page_match messages as pending (job_batches) before they are sent, so
    the job is "running" until page_match is done with each; returns them as a list."""
    messages = list(payloads)
    store.record_page_batches(
        job_id, [(str(m["batch_id"]), len(m["pages"])) for m in messages if m.get("batch_id")]
    )
    return messages
