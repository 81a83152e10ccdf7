"""``POST /v1/pages``: single pages in, page pairs found across requests, same protections."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from shared.config import Settings, get_settings
from shared.delivery.celery_app import get_celery
from tests.unit.page_match.test_handler import ENGLISH, GERMAN

KEY = {"X-API-Key": "k1"}


def _client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: int, rate: int) -> TestClient:
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'g.db'}")
    monkeypatch.setenv("PARAMINE_API_KEY", "k1")
    monkeypatch.setenv("PARAMINE_MAX_BODY_BYTES", str(body))
    monkeypatch.setenv("PARAMINE_RATE_LIMIT_PER_MINUTE", str(rate))
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    return TestClient(create_app(Settings()))


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    yield _client(tmp_path, monkeypatch, 1_000_000, 100)
    get_settings.cache_clear()


def test_a_page_and_its_translation_in_two_requests_make_one_pair(client: TestClient) -> None:
    english = {"url": "https://bridge.example/en/rhine.html", "html": ENGLISH}
    german = {"url": "https://bridge.example/de/rhine.html", "html": GERMAN, "lang": "DE"}
    first = client.post("/v1/pages", json={"job_id": "p1", "pages": [english]}, headers=KEY)
    assert first.status_code == 202 and first.json() == {"job_id": "p1", "accepted": 1}
    assert client.get("/v1/jobs/p1").json()["pairs"] == 0  # it waits for its counterpart
    second = client.post("/v1/pages", json={"pages": [german]}, headers=KEY)
    assert second.status_code == 202
    job = client.get(f"/v1/jobs/{second.json()['job_id']}").json()
    assert job["pairs"] == 1 and job["sentence_pairs"] >= 2 and job["state"] == "done"


def test_pages_need_the_key_and_a_wellformed_body(client: TestClient) -> None:
    page = {"url": "https://a.example/x", "html": "<p>x</p>"}
    assert client.post("/v1/pages", json={"pages": [page]}).status_code == 401
    assert client.post("/v1/pages", json={"pages": []}, headers=KEY).status_code == 422
    assert client.post("/v1/pages", json={"pages": [{"url": "x"}]}, headers=KEY).status_code == 422
    bad_lang = {**page, "lang": "not a language"}
    assert client.post("/v1/pages", json={"pages": [bad_lang]}, headers=KEY).status_code == 422
    nul = {**page, "url": "https://a.example/\u0000"}
    assert client.post("/v1/pages", json={"pages": [nul]}, headers=KEY).status_code == 422


def test_pages_over_the_body_limit_or_the_rate_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = _client(tmp_path, monkeypatch, 1_000, 2)
    page = {"url": "https://a.example/x", "html": "<p>x</p>"}
    big = {"url": "https://a.example/y", "html": "<p>" + "x" * 2_000 + "</p>"}
    assert client.post("/v1/pages", json={"pages": [big]}, headers=KEY).status_code == 413
    statuses = [
        client.post("/v1/pages", json={"pages": [page]}, headers=KEY).status_code for _ in range(3)
    ]
    assert statuses[-1] == 429
    get_settings.cache_clear()


def test_a_job_of_pages_is_waiting_not_done_while_its_page_has_no_counterpart(
    client: TestClient,
) -> None:
    # the job said "done" with 0 pairs at once: a client polling until done stopped there
    english = {"url": "https://alone.example/en/rhine.html", "html": ENGLISH}
    client.post("/v1/pages", json={"job_id": "w1", "pages": [english]}, headers=KEY)
    job = client.get("/v1/jobs/w1").json()
    assert (job["state"], job["pages"], job["pending_pages"], job["waiting_pages"]) == (
        "waiting",
        1,
        0,
        1,
    )


def test_a_job_is_running_while_its_page_message_waits_in_the_queue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a real Redis, no worker: the page_match message stays queued, and so the job runs
    import redis

    url = "redis://127.0.0.1:6379/13"
    try:
        redis.Redis.from_url(url).ping()
    except redis.RedisError:
        pytest.skip("no Redis on 127.0.0.1:6379 (.ci/run starts one)")
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'g.db'}")
    monkeypatch.setenv("PARAMINE_API_KEY", "k1")
    monkeypatch.setenv("PARAMINE_REDIS_URL", url)
    get_settings.cache_clear()
    get_celery.cache_clear()  # built from the settings: this Redis
    try:
        client = TestClient(create_app(Settings()))
        english = {"url": "https://queued.example/en/rhine.html", "html": ENGLISH}
        client.post("/v1/pages", json={"job_id": "q1", "pages": [english]}, headers=KEY)
        job = client.get("/v1/jobs/q1").json()
        assert (job["state"], job["pending_pages"]) == ("running", 1)
    finally:
        redis.Redis.from_url(url).flushdb()
        get_settings.cache_clear()
        get_celery.cache_clear()
