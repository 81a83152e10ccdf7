"""Hostile request bodies through the gateway's ASGI app in-process (embedded mode): never a 500."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from shared.config import Settings, get_settings
from tests.fuzz.html_generator import random_html

KEY = {"X-API-Key": "fuzz-key"}
API_BODIES = 800


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'fuzz.db'}")
    monkeypatch.setenv("PARAMINE_API_KEY", "fuzz-key")
    monkeypatch.setenv("PARAMINE_RATE_LIMIT_PER_MINUTE", "1000000")
    monkeypatch.setenv("PARAMINE_MAX_BODY_BYTES", "200000")
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    with TestClient(create_app(Settings()), raise_server_exceptions=False) as test_client:
        yield test_client
    get_settings.cache_clear()


def random_json(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice(
            [None, True, 0, -1, 1e308, "", "x" * rng.randint(0, 300), "\ufeff", [], {}]
        )
    if roll < 0.5:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["pairs", "src", "tgt", "html", "lang", "url", "kind", "job_id", "id", "web", "mobile"]
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def plausible_pair(rng: random.Random) -> dict[str, object]:
    def page() -> dict[str, object]:
        fields: dict[str, object] = {
            "url": rng.choice(["", "https://a.example/x", "javascript:1", "x" * 5_000]),
            "lang": rng.choice(["en", "ja", "fr", "", "e", "english!", "zh-Hant"]),
            "html": random_html(rng).encode("utf-8", "replace").decode("utf-8"),
        }
        if rng.random() < 0.1:
            fields.pop(rng.choice(list(fields)))
        return fields

    return {"kind": rng.choice(["translation", "pc-mobile", "other"]), "src": page(), "tgt": page()}


def test_random_and_plausible_bodies_never_give_a_server_error(client: TestClient) -> None:
    rng = random.Random(5)
    statuses: dict[int, int] = {}
    for number in range(API_BODIES):
        if number % 3 == 0:
            body = json.dumps(random_json(rng)).encode()
        elif number % 3 == 1:
            body = json.dumps(
                {"pairs": [plausible_pair(rng) for _ in range(rng.randint(1, 3))]}
            ).encode()
        else:
            body = rng.randbytes(rng.randint(0, 300))
        path = "/v1/articles" if number % 10 == 0 else "/v1/page-pairs"
        response = client.post(
            path, content=body, headers={**KEY, "content-type": "application/json"}
        )
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert response.status_code < 500, (number, body[:300], response.text[:300])
    assert statuses.get(202, 0) > 0 and statuses.get(422, 0) > 0, statuses


def test_a_body_over_the_limit_is_refused_with_413(client: TestClient) -> None:
    response = client.post("/v1/page-pairs", content=b"[" * 300_000, headers=KEY)
    assert response.status_code == 413
    assert "PARAMINE_MAX_BODY_BYTES" in response.json()["detail"]


def test_deeply_nested_json_is_a_client_error(client: TestClient) -> None:
    body = b"[" * 50_000 + b"]" * 50_000
    response = client.post("/v1/page-pairs", content=body, headers=KEY)
    assert 400 <= response.status_code < 500, response.text[:300]


def test_a_lone_surrogate_escape_in_a_page_is_a_client_error(client: TestClient) -> None:
    body = (
        b'{"pairs": [{"src": {"lang": "en", "html": "<p>a \\ud800 b</p>"},'
        b' "tgt": {"lang": "fr", "html": "<p>c</p>"}}]}'
    )
    response = client.post(
        "/v1/page-pairs", content=body, headers={**KEY, "content-type": "application/json"}
    )
    assert response.status_code < 500, response.text[:300]
