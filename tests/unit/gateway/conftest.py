"""Fixtures of the gateway's viewer and export tests: a filled temp SQLite store and a client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from shared.config import Settings, get_settings
from shared.store import Store
from tests.unit.gateway.sample_store import fill


@pytest.fixture
def store_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A temp SQLite store holding :func:`fill`'s rows; the settings point at it, no broker."""
    url = f"sqlite:///{tmp_path / 'gateway.db'}"
    monkeypatch.setenv("PARAMINE_DATABASE_URL", url)
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    monkeypatch.delenv("PARAMINE_API_KEY", raising=False)
    get_settings.cache_clear()
    fill(Store(url))
    yield url
    get_settings.cache_clear()


@pytest.fixture
def client(store_url: str) -> TestClient:
    return TestClient(create_app(Settings()))
