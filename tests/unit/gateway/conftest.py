"""Fixtures of the gateway's viewer and export tests: a filled temp SQLite store and a client."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from shared.config import Settings
from shared.store import Store
from tests.unit.gateway.sample_store import fill


@pytest.fixture
def store_url(embedded_url: str) -> str:
    """A temp SQLite store holding :func:`fill`'s rows; the settings point at it, no broker."""
    fill(Store(embedded_url))
    return embedded_url


@pytest.fixture
def client(store_url: str) -> TestClient:
    return TestClient(create_app(Settings()))
