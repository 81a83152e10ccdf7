"""Gateway security: API keys on ingest and admin endpoints, body size limit, per-key rate limit."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.gateway import security
from services.gateway.app import create_app
from shared.config import Settings, get_settings

PAIR = {
    "pairs": [
        {
            "src": {"lang": "en", "html": "<p>Hello world. Second sentence.</p>"},
            "tgt": {"lang": "fr", "html": "<p>Bonjour le monde. Deuxième phrase.</p>"},
        }
    ]
}


def make_client(tmp_path: Path, **overrides: object) -> TestClient:
    values: dict[str, object] = {
        "database_url": f"sqlite:///{tmp_path / 'security.db'}",
        "redis_url": None,
        "api_key": "ingest-secret",
        "admin_api_key": "admin-secret",
        "rate_limit_per_minute": 1_000,
        "max_body_bytes": 10_000,
        **overrides,
    }
    settings = Settings.model_validate(values)
    app = create_app(settings)
    app.dependency_overrides[get_settings] = lambda: settings
    return TestClient(app, raise_server_exceptions=False)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as test_client:
        yield test_client


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": "wrong"}, {"X-API-Key": "ingest-secre"}])
def test_ingest_refuses_a_missing_or_wrong_key(client: TestClient, headers: dict[str, str]) -> None:
    assert client.post("/v1/page-pairs", json=PAIR, headers=headers).status_code == 401
    assert client.post("/v1/articles", json={}, headers=headers).status_code == 401


def test_ingest_accepts_the_configured_key(client: TestClient) -> None:
    response = client.post("/v1/page-pairs", json=PAIR, headers={"X-API-Key": "ingest-secret"})
    assert response.status_code == 202, response.text


def test_admin_endpoints_need_the_admin_key_not_the_ingest_key(client: TestClient) -> None:
    assert client.get("/v1/dead-letters").status_code == 401
    assert client.get("/v1/dead-letters", headers={"X-API-Key": "ingest-secret"}).status_code == 401
    assert client.get("/v1/dead-letters", headers={"X-API-Key": "admin-secret"}).status_code == 200


def test_keys_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real_compare = hmac.compare_digest

    def recording_compare(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real_compare(a, b)

    monkeypatch.setattr(security.hmac, "compare_digest", recording_compare)
    assert security.key_matches("abc", "abc") and not security.key_matches("abd", "abc")
    assert calls == [(b"abc", b"abc"), (b"abd", b"abc")]
    assert not security.key_matches(None, "abc") and security.key_matches(None, None)


def test_a_declared_oversized_body_is_refused_before_reading(client: TestClient) -> None:
    response = client.post(
        "/v1/page-pairs", content=b"x" * 10_001, headers={"X-API-Key": "ingest-secret"}
    )
    assert response.status_code == 413 and "limit" in response.json()["detail"]


@pytest.mark.parametrize("path", ["/v1/page-pairs", "/v1/articles"])
def test_a_streamed_oversized_body_without_length_is_refused(client: TestClient, path: str) -> None:
    # /v1/articles parses its body with FastAPI, which answered the limit's exception with
    # 400 "There was an error parsing the body".
    def chunks() -> Iterator[bytes]:
        yield b'{"web": [{"id": "w", "body": "'
        for _ in range(20):
            yield b"x" * 1_000
        yield b'"}], "mobile": []}'

    response = client.post(
        path,
        content=chunks(),
        headers={"X-API-Key": "ingest-secret", "content-type": "application/json"},
    )
    assert response.status_code == 413 and "limit" in response.json()["detail"]


def test_without_a_configured_key_the_rate_limit_is_per_client(tmp_path: Path) -> None:
    # No key checks the header then, so a client choosing a new X-API-Key for each request
    # got a new bucket each time: the header no longer picks the bucket.
    with make_client(tmp_path, api_key=None, admin_api_key=None, rate_limit_per_minute=3) as client:
        bad = {"pairs": []}  # refused with 422 after the key and rate checks
        codes = [
            client.post("/v1/page-pairs", json=bad, headers={"X-API-Key": key}).status_code
            for key in ("a", "b", "c", "d", "e")
        ]
        assert codes == [422, 422, 422, 429, 429]


def test_the_configured_key_is_rate_limited(tmp_path: Path) -> None:
    with make_client(tmp_path, rate_limit_per_minute=2) as client:
        responses = [
            client.post(
                "/v1/page-pairs", json={"pairs": []}, headers={"X-API-Key": "ingest-secret"}
            )
            for _ in range(3)
        ]
        assert [response.status_code for response in responses] == [422, 422, 429]
        # One request's token comes back after 30 s (2 a minute): clients are told so.
        assert responses[-1].headers["Retry-After"] == "30"


def test_the_limiter_forgets_refilled_buckets() -> None:
    limiter = security.RateLimiter(per_minute=60)
    limiter.max_buckets = 100
    assert all(limiter.allow(f"client{k}", now=0.0) for k in range(100))
    assert limiter.allow("late", now=0.5)  # the others are not yet full again: all kept
    assert len(limiter._buckets) == 101
    assert limiter.allow("later", now=10.0)  # now they are: only the new one is left
    assert set(limiter._buckets) == {"later"}


def test_token_bucket_refills_over_time() -> None:
    limiter = security.RateLimiter(per_minute=60)
    assert all(limiter.allow("k", now=0.0) for _ in range(60))
    assert not limiter.allow("k", now=0.0)
    assert limiter.allow("k", now=1.01) and not limiter.allow("k", now=1.02)
