"""Gateway protections as pure logic: key comparison, token bucket, body-size middleware."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.security import RateLimiter, key_matches
from shared.config import Settings, get_settings


def test_key_matches_only_the_configured_key() -> None:
    assert key_matches(None, None) and key_matches("anything", "")
    assert key_matches("secret", "secret")
    assert not key_matches("secreT", "secret") and not key_matches(None, "secret")


def test_token_bucket_refills_over_time() -> None:
    limiter = RateLimiter(per_minute=2)
    assert limiter.allow("k", now=0.0) and limiter.allow("k", now=0.0)
    assert not limiter.allow("k", now=1.0)
    assert limiter.allow("other", now=1.0)
    assert limiter.allow("k", now=31.0)


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'g.db'}")
    monkeypatch.setenv("PARAMINE_API_KEY", "k1")
    monkeypatch.setenv("PARAMINE_MAX_BODY_BYTES", "1000")
    monkeypatch.setenv("PARAMINE_RATE_LIMIT_PER_MINUTE", "3")
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    client = TestClient(create_app(Settings()))
    yield client
    get_settings.cache_clear()


def test_ingest_checks_key_size_schema_and_rate(client: TestClient) -> None:
    pair = {
        "src": {"lang": "en", "html": "<p>Hello.</p>"},
        "tgt": {"lang": "de", "html": "<p>Hallo.</p>"},
    }
    assert client.post("/v1/page-pairs", json={"pairs": [pair]}).status_code == 401
    assert (
        client.post(
            "/v1/page-pairs", json={"pairs": [pair]}, headers={"X-API-Key": "k2"}
        ).status_code
        == 401
    )
    big = client.post(
        "/v1/page-pairs", content=b"{" + b" " * 2000 + b"}", headers={"X-API-Key": "k1"}
    )
    assert big.status_code == 413
    bad = client.post("/v1/page-pairs", json={"pairs": []}, headers={"X-API-Key": "k1"})
    assert bad.status_code == 422
    statuses = [
        client.post(
            "/v1/page-pairs", json={"pairs": [pair]}, headers={"X-API-Key": "k1"}
        ).status_code
        for _ in range(3)
    ]
    assert statuses == [202, 202, 429]  # the 422 above used the first of three tokens


def test_unknown_job_is_404_and_health_reports_the_store(client: TestClient) -> None:
    assert client.get("/v1/jobs/none").status_code == 404
    health = client.get("/healthz").json()
    assert health == {"status": "ok", "database": "ok", "broker": "embedded"}
