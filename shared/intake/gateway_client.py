"""The HTTP client of ``paramine submit``: one job sent to the gateway's ingest endpoints in
as many requests as its body and pair limits need, rate-limited or unavailable requests sent
again, refusals recorded as the job's dead letters.

No command-line concern here: the caller prints what was accepted (``Submitted``) or, on
``SubmitFailed``, what was accepted before the failure.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx

from shared.config import get_settings
from shared.schemas import MAX_INGEST_PAIRS, MAX_REFUSAL_CHARS

if TYPE_CHECKING:
    from shared.intake.ingest import Job
    from shared.schemas import Page

# A rate-limited (429) or unavailable (503: store or broker briefly unreachable) ingest
# request is sent again up to this many times, after the gateway's
# Retry-After or else a doubling wait (1 s, 2 s, ... at most SUBMIT_BACKOFF_MAX); a Retry-After
# beyond RETRY_AFTER_MAX is cut to it so a wrong header cannot stall submit for hours.
SUBMIT_RETRIES = 8
SUBMIT_BACKOFF_MAX = 60.0
RETRY_AFTER_MAX = 600.0


@dataclass
class Submitted:
    """What the gateway accepted of one job, merged over the requests that carried it."""

    job_id: str
    accepted: int = 0
    pair_ids: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    requests: int = 0


class GatewayRefused(Exception):
    """The gateway answered an ingest request with an error that sending again cannot help."""


class SubmitFailed(Exception):
    """A submit stopped part-way: ``reason``, and what was accepted before (``submitted``)."""

    def __init__(self, reason: str, submitted: Submitted) -> None:
        super().__init__(reason)
        self.reason = reason
        self.submitted = submitted


def ingest_limits() -> tuple[int, int]:
    # The body limit is the gateway's setting (PARAMINE_MAX_BODY_BYTES, read here from the same
    # environment); the pair limit is the bound of its request model.
    return get_settings().max_body_bytes, MAX_INGEST_PAIRS


def ingest_body(job_id: str, pairs: Sequence[bytes], key: str = "pairs") -> bytes:
    """The JSON body of ``POST /v1/page-pairs`` (``key`` pages: ``/v1/pages``) from items
    already encoded as JSON."""
    # Assembled from items encoded once, so the size of a chunk is known before it is sent.
    head = b'{"job_id":' + json.dumps(job_id).encode() + b',"' + key.encode() + b'":['
    return head + b",".join(pairs) + b"]}"


def ingest_chunks(
    job_id: str, pairs: Sequence[bytes], max_bytes: int, max_pairs: int, key: str = "pairs"
) -> Iterator[list[bytes]]:
    """Consecutive runs of encoded pairs whose ingest body has at most ``max_pairs`` pairs and
    ``max_bytes`` bytes; a pair too large even alone goes alone, for the gateway to refuse."""
    empty = len(ingest_body(job_id, [], key))
    chunk: list[bytes] = []
    size = empty
    for pair in pairs:
        added = len(pair) + (1 if chunk else 0)  # the comma before every pair but the first
        if chunk and (len(chunk) >= max_pairs or size + added > max_bytes):
            yield chunk
            chunk, size, added = [], empty, len(pair)
        chunk.append(pair)
        size += added
    if chunk:
        yield chunk


def wait(seconds: float) -> None:
    time.sleep(seconds)


def retry_after(response: httpx.Response) -> float | None:
    # Retry-After is delay-seconds or an HTTP date (RFC 9110, section 10.2.3).
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), RETRY_AFTER_MAX)


def post_ingest(
    client: httpx.Client, url: str, body: bytes, headers: dict[str, str]
) -> httpx.Response:
    """POST one ingest body, sending it again while the gateway answers 429 or 503 (the job
    id is derived from the content, so a resent body lands in the same job)."""
    response = client.post(url, content=body, headers=headers)
    for attempt in range(SUBMIT_RETRIES):
        if response.status_code not in (429, 503):
            break
        delay = retry_after(response)
        wait(min(2.0**attempt, SUBMIT_BACKOFF_MAX) if delay is None else delay)
        response = client.post(url, content=body, headers=headers)
    return response


def send_chunks(
    client: httpx.Client,
    url: str,
    headers: dict[str, str],
    chunks: list[list[bytes]],
    submitted: Submitted,
    key: str = "pairs",
) -> list[str]:
    """Send every chunk under ``submitted.job_id``, merging the gateway's answers into
    ``submitted``; a chunk refused as too large (413: the gateway's limit is below ours) is
    halved and sent again. Returns the refusals of single pairs still too large."""
    too_large: list[str] = []
    pending = chunks[::-1]  # a stack: the next chunk on top, halves pushed back in order
    while pending:
        chunk = pending.pop()
        response = post_ingest(client, url, ingest_body(submitted.job_id, chunk, key), headers)
        submitted.requests += 1
        if response.status_code == 413 and len(chunk) > 1:
            half = len(chunk) // 2
            pending += [chunk[half:], chunk[:half]]
            continue
        if response.status_code == 413:
            # One pair over the gateway's body limit: refused, the rest goes on (it stopped
            # the whole submit, and sending again met the same 413).
            item = json.loads(chunk[0])
            name = f"page pair {item.get('id', '?')}" if key == "pairs" else f"page {item['url']}"
            too_large.append(f"{name}: {len(chunk[0]):,} bytes, over the gateway's body limit")
            continue
        if response.status_code >= 400:
            raise GatewayRefused(f"gateway answered {response.status_code}: {response.text}")
        answer = response.json()
        submitted.accepted += int(answer["accepted"])
        submitted.pair_ids += answer.get("pair_ids", [])
        submitted.refused += answer.get("refused", [])
    return too_large


def submit_job(
    gateway: str, job: Job, api_key: str | None, pages: Sequence[Page] = ()
) -> Submitted:
    """Send ``job`` (its page pairs, ``pages`` and its refusals) to the gateway at ``gateway``.

    One job in as many requests as the gateway's body and pair limits need, all under the job
    id build_job derived from every pair (the gateway adds each request's pairs to that job).
    Raises ``SubmitFailed`` when the gateway refuses a request or cannot be reached."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["X-API-Key"] = api_key
    encoded = [
        json.dumps(
            {
                "id": pair.pair_id,
                **pair.model_dump(mode="json", exclude={"job_id", "schema_version"}),
            },
            ensure_ascii=False,
        ).encode("utf-8")
        for pair in job.pairs
    ]
    chunks = list(ingest_chunks(job.job_id, encoded, *ingest_limits()))
    page_chunks = list(ingest_chunks(job.job_id, encoded_pages(pages), *ingest_limits(), "pages"))
    url = f"{gateway.rstrip('/')}/v1/page-pairs"
    submitted = Submitted(job.job_id)
    try:
        with httpx.Client(timeout=120) as client:
            too_large = send_chunks(client, url, headers, chunks, submitted)
            pages_url = f"{gateway.rstrip('/')}/v1/pages"
            too_large += send_chunks(client, pages_url, headers, page_chunks, submitted, "pages")
            # What was refused here, or by the gateway's body limit, becomes dead letters of
            # the job there, as with `process` (it was only printed here).
            refusals = [str(error) for error in job.refused] + too_large
            send_refusals(client, url, headers, refusals, submitted)
    except GatewayRefused as exc:
        raise SubmitFailed(str(exc), submitted) from None
    except httpx.HTTPError as exc:  # unreachable, timed out, connection lost
        raise SubmitFailed(f"{exc.__class__.__name__}: {exc}", submitted) from None
    return submitted


def encoded_pages(pages: Sequence[Page]) -> list[bytes]:
    # {"url", "html", "lang"?}: an undetermined language is left for page_match to identify
    return [
        json.dumps(
            {"url": page.url, "html": page.html}
            | ({} if page.lang == "und" else {"lang": page.lang}),
            ensure_ascii=False,
        ).encode("utf-8")
        for page in pages
    ]


# Refusals per request (each reason cut to the gateway's limit on one).
REFUSALS_PER_REQUEST = 1_000


def send_refusals(
    client: httpx.Client,
    url: str,
    headers: dict[str, str],
    refusals: Sequence[str],
    submitted: Submitted,
) -> None:
    for start in range(0, len(refusals), REFUSALS_PER_REQUEST):
        batch = [
            reason[:MAX_REFUSAL_CHARS] for reason in refusals[start : start + REFUSALS_PER_REQUEST]
        ]
        body = json.dumps({"job_id": submitted.job_id, "refused": batch}).encode("utf-8")
        response = post_ingest(client, url, body, headers)
        submitted.requests += 1
        if response.status_code >= 400:
            raise GatewayRefused(f"gateway answered {response.status_code}: {response.text}")
        submitted.refused += response.json()["refused"]


# What `submit --wait` waits for: a job is finished when nothing of it is in a queue; pages
# waiting for a counterpart ("waiting") may never get one, so they end the wait too.
FINISHED_STATES = frozenset({"done", "done-with-errors", "waiting"})


@dataclass(frozen=True)
class Waited:
    """The job's last status (the gateway's ``GET /v1/jobs/{id}`` answer) and whether it
    finished before the time allowed ran out."""

    status: dict[str, object]
    finished: bool


def wait_for_job(client: httpx.Client, job_id: str, timeout: float, poll: float = 1.0) -> Waited:
    """Ask ``GET /v1/jobs/{job_id}`` (relative to ``client``'s base URL) every ``poll``
    seconds until the job's state is in FINISHED_STATES or ``timeout`` seconds have passed.

    A job the gateway does not know yet (404 right after submit) and a 429/503 are asked
    again; any other error answer raises GatewayRefused."""
    deadline = time.monotonic() + timeout
    status: dict[str, object] = {"job_id": job_id, "state": "unknown"}
    while True:
        response = client.get(f"/v1/jobs/{job_id}")
        if response.status_code == 200:
            status = response.json()
            if status.get("state") in FINISHED_STATES:
                return Waited(status, True)
        elif response.status_code not in (404, 429, 503):
            raise GatewayRefused(f"GET /v1/jobs/{job_id}: {response.status_code} {response.text}")
        if time.monotonic() >= deadline:
            return Waited(status, False)
        wait(poll)
