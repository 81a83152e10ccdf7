"""Fixtures shared by every test: the data kit in ../shared/data, seeds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
KIT_DATA = Path(os.environ.get("PARAMINE_KIT_DATA", REPO.parent / "shared" / "data"))

settings.register_profile("paramine", derandomize=True, deadline=None, max_examples=100)
settings.load_profile("paramine")


def kit_path(relative: str) -> Path:
    """A file or folder of the handed-over data kit; skip the test when it is absent."""
    path = KIT_DATA / relative
    if not path.exists():
        pytest.skip(f"data kit file {path} is absent (set PARAMINE_KIT_DATA to the kit's data/)")
    return path


@pytest.fixture(autouse=True, scope="session")
def _dictionary_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Merged bilingual dictionaries (services/lexical/registry.py) cached in a temp folder,
    not in the home of whoever runs the tests."""
    previous = os.environ.get("PARAMINE_CACHE_DIR")
    os.environ["PARAMINE_CACHE_DIR"] = str(tmp_path_factory.mktemp("paramine-cache"))
    yield
    if previous is None:
        os.environ.pop("PARAMINE_CACHE_DIR", None)
    else:
        os.environ["PARAMINE_CACHE_DIR"] = previous


@pytest.fixture
def embedded_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The settings of the embedded mode on a temp SQLite store (its URL): no broker, no API
    key, the default body limit."""
    from shared.config import get_settings

    url = f"sqlite:///{tmp_path / 'embedded.db'}"
    monkeypatch.setenv("PARAMINE_DATABASE_URL", url)
    for name in ("PARAMINE_REDIS_URL", "PARAMINE_API_KEY", "PARAMINE_MAX_BODY_BYTES"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()
