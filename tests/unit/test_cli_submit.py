"""``paramine submit --gateway``: a crawl too large for one ingest request goes in several, all
into one job; a rate-limited request is sent again after the gateway's Retry-After.

The gateway is the real app in embedded mode (SQLite, no Redis) served by uvicorn on a free
port in a thread, behind a recorder of what each ingest request carried and got.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from typer.testing import CliRunner

from services import cli
from services.gateway.app import create_app
from shared.config import Settings, get_settings
from shared.intake import gateway_client
from shared.store import Store

PAIRS = 8
BODY_LIMIT = 3_000  # bytes: two of the pairs below per request


def manifest(path: Path) -> Path:
    """PAIRS distinct en/de page pairs of ~1.2 KB each as a JSONL crawl manifest."""
    lines = []
    for number in range(PAIRS):
        src = f"<p>The museum number {number} opens daily except Mondays from ten to six.</p>"
        tgt = (
            f"<p>Das Museum Nummer {number} ist täglich außer montags von zehn bis sechs offen.</p>"
        )
        record = {
            "id": f"page-{number}",
            "src": {"url": f"https://x.org/en/{number}", "lang": "en", "html": src * 6},
            "tgt": {"url": f"https://x.org/de/{number}", "lang": "de", "html": tgt * 6},
        }
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


@dataclass
class IngestRecorder:
    """ASGI wrapper: records (status, body bytes) of each POST /v1/page-pairs; answers the first
    ``too_many`` of them itself with 429 and the given Retry-After headers (None: no header)."""

    app: ASGIApp
    too_many: list[str | None] = field(default_factory=list)
    requests: list[tuple[int, int]] = field(default_factory=list)
    status: int = 429  # of the canned answers (503: store or broker unreachable)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/v1/page-pairs":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        size = int(declared)
        if self.too_many:
            retry_after = self.too_many.pop(0)
            headers = [] if retry_after is None else [(b"retry-after", retry_after.encode())]
            await send({"type": "http.response.start", "status": self.status, "headers": headers})
            await send({"type": "http.response.body", "body": b'{"detail":"slow down"}'})
            self.requests.append((self.status, size))
            return

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.requests.append((message["status"], size))
            await send(message)

        await self.app(scope, receive, recording_send)


@pytest.fixture
def store_url(embedded_url: str) -> str:
    return embedded_url


@pytest.fixture
def serve() -> Iterator[Callable[[ASGIApp], str]]:
    """Start an app under uvicorn on a free loopback port; returns its base URL."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(app: ASGIApp) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        servers.append((server, thread))
        deadline = time.monotonic() + 20
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.started, "uvicorn did not start"
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(10)


def submit(crawl: Path, url: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli.app, ["submit", str(crawl), "--gateway", url])
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


def assert_one_job_of_every_pair(store_url: str, answer: dict[str, Any]) -> None:
    store = Store(store_url)
    assert store.count_jobs() == 1
    status = store.job_status(answer["job_id"])
    assert status is not None
    assert (status.pairs, status.completed, status.failed) == (PAIRS, PAIRS, 0)
    assert status.sentence_pairs >= PAIRS
    assert answer["accepted"] == len(set(answer["pair_ids"])) == PAIRS


def test_submit_splits_a_crawl_over_the_body_limit_into_one_job(
    tmp_path: Path, store_url: str, serve: Callable[[ASGIApp], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The whole crawl went in one request: over the gateway's body limit it got 413.
    monkeypatch.setenv("PARAMINE_MAX_BODY_BYTES", str(BODY_LIMIT))  # gateway and submit
    get_settings.cache_clear()
    crawl = manifest(tmp_path / "crawl.jsonl")
    assert crawl.stat().st_size > 2 * BODY_LIMIT
    recorder = IngestRecorder(create_app(Settings()))
    answer = submit(crawl, serve(recorder))
    assert [status for status, _ in recorder.requests] == [202] * answer["requests"]
    assert answer["requests"] >= 3
    assert all(size <= BODY_LIMIT for _, size in recorder.requests)
    assert_one_job_of_every_pair(store_url, answer)


def test_submit_halves_requests_a_gateway_with_a_lower_limit_refuses(
    tmp_path: Path, store_url: str, serve: Callable[[ASGIApp], str]
) -> None:
    # The gateway's PARAMINE_MAX_BODY_BYTES is below the one submit knows (the default).
    recorder = IngestRecorder(create_app(Settings(max_body_bytes=BODY_LIMIT)))
    answer = submit(manifest(tmp_path / "crawl.jsonl"), serve(recorder))
    statuses = [status for status, _ in recorder.requests]
    assert statuses[0] == 413 and statuses.count(202) >= 3
    assert set(statuses) == {413, 202} and len(statuses) == answer["requests"]
    assert all(size <= BODY_LIMIT for status, size in recorder.requests if status == 202)
    assert_one_job_of_every_pair(store_url, answer)


@pytest.mark.parametrize(
    ("status", "retry_after", "waits_expected"),
    [
        (429, ["3", None], [3.0, 2.0]),  # rate limited: Retry-After, else 1 s, 2 s, ...
        (503, ["5"], [5.0]),  # database or Redis briefly away
    ],
)
def test_submit_waits_as_the_gateway_asks(
    tmp_path: Path,
    store_url: str,
    serve: Callable[[ASGIApp], str],
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    retry_after: list[str | None],
    waits_expected: list[float],
) -> None:
    # A 429 or a 503 ended the submit; now it waits and sends again.
    waits: list[float] = []
    monkeypatch.setattr(gateway_client, "wait", waits.append)
    recorder = IngestRecorder(create_app(Settings()), too_many=list(retry_after), status=status)
    answer = submit(manifest(tmp_path / "crawl.jsonl"), serve(recorder))
    assert waits == waits_expected
    assert [code for code, _ in recorder.requests] == [status] * len(retry_after) + [202]
    assert answer["requests"] == 1
    assert_one_job_of_every_pair(store_url, answer)


def test_submit_reports_a_refusal_and_what_was_accepted(
    tmp_path: Path, store_url: str, serve: Callable[[ASGIApp], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gateway_client, "SUBMIT_RETRIES", 1)
    monkeypatch.setattr(gateway_client, "wait", lambda seconds: None)
    recorder = IngestRecorder(create_app(Settings()), too_many=[None, None])
    url = serve(recorder)
    result = CliRunner().invoke(
        cli.app, ["submit", str(manifest(tmp_path / "c.jsonl")), "--gateway", url]
    )
    assert result.exit_code == 1
    assert "submit failed: gateway answered 429" in result.output
    assert f"0 of {PAIRS} page pairs were accepted" in result.output


def test_chunks_respect_both_limits_and_keep_the_order() -> None:
    pairs = [json.dumps({"n": number, "pad": "x" * (number * 10)}).encode() for number in range(9)]
    chunks = list(gateway_client.ingest_chunks("job-1", pairs, max_bytes=120, max_pairs=2))
    assert [pair for chunk in chunks for pair in chunk] == pairs
    assert all(1 <= len(chunk) <= 2 for chunk in chunks)
    too_large = [chunk for chunk in chunks if len(gateway_client.ingest_body("job-1", chunk)) > 120]
    assert all(len(chunk) == 1 for chunk in too_large) and too_large  # alone, for the gateway
    body = json.loads(gateway_client.ingest_body("job-1", chunks[0]))
    assert body == {"job_id": "job-1", "pairs": [json.loads(pair) for pair in chunks[0]]}


def test_the_pairs_bound_of_submit_is_the_gateways(store_url: str) -> None:
    _, max_pairs = gateway_client.ingest_limits()
    client = TestClient(create_app(Settings()))
    refused = client.post("/v1/page-pairs", json={"pairs": [{}] * (max_pairs + 1)})
    assert refused.status_code == 422


def test_submit_records_what_it_cannot_send_and_sends_the_rest(
    tmp_path: Path, store_url: str, serve: Callable[[ASGIApp], str]
) -> None:
    # A pair over the gateway's body limit stopped the whole submit (later pairs never sent),
    # and inputs refused while reading were only printed: no dead letter, job 'done', exit 0.
    crawl = manifest(tmp_path / "crawl.jsonl")
    huge = {
        "id": "huge",
        "src": {"url": "https://x.org/en/huge", "lang": "en", "html": "<p>big</p>" * 400},
        "tgt": {"url": "https://x.org/de/huge", "lang": "de", "html": "<p>groß</p>" * 400},
    }
    lines = crawl.read_text(encoding="utf-8").splitlines()
    lines[:0] = [json.dumps(huge), "{not json"]
    crawl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    url = serve(create_app(Settings(max_body_bytes=BODY_LIMIT)))
    result = CliRunner().invoke(cli.app, ["submit", str(crawl), "--gateway", url])
    assert result.exit_code == 1, result.output
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["accepted"] == PAIRS and len(answer["refused"]) == 2
    store = Store(store_url)
    status = store.job_status(answer["job_id"])
    assert status is not None
    assert (status.pairs, status.completed, status.refused) == (PAIRS, PAIRS, 2)
    reasons = sorted(letter["reason"] for letter in store.list_dead_letters())
    assert len(reasons) == 2
    assert "crawl.jsonl:2" in reasons[0] and "over the gateway's body limit" in reasons[1]


def test_submit_sends_single_pages_in_chunks_and_they_pair_at_the_gateway(
    tmp_path: Path, store_url: str, serve: Callable[[ASGIApp], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The manifest's pairs as single pages, one {"url", "html", "lang"?} line each: submit
    # sends them to POST /v1/pages (in requests within the body limit), page_match pairs them.
    monkeypatch.setenv("PARAMINE_MAX_BODY_BYTES", str(BODY_LIMIT))
    get_settings.cache_clear()
    pairs = [
        json.loads(line) for line in manifest(tmp_path / "pairs.jsonl").read_text().splitlines()
    ]
    pages = [
        {"url": p[side]["url"], "html": p[side]["html"]} for p in pairs for side in ("src", "tgt")
    ]
    crawl = tmp_path / "pages.jsonl"
    crawl.write_text("".join(json.dumps(page) + "\n" for page in pages), encoding="utf-8")
    answer = submit(crawl, serve(create_app(Settings())))
    assert answer["accepted"] == 2 * PAIRS and answer["requests"] >= 3
    status = Store(store_url).job_status(answer["job_id"])
    assert status is not None and (status.pairs, status.completed) == (PAIRS, PAIRS)
