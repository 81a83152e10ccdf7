"""Secrets come only from settings (environment), production refuses to run without a key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shared.config import Settings, secret
from shared.errors import ConfigurationError

REPO = Path(__file__).resolve().parents[3]


def test_api_keys_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARAMINE_API_KEY", "from-env")
    monkeypatch.setenv("PARAMINE_ADMIN_API_KEY", "admin-from-env")
    settings = Settings()
    assert secret(settings.api_key) == "from-env"
    assert secret(settings.admin_api_key) == "admin-from-env"


def test_production_mode_without_an_api_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARAMINE_API_KEY", raising=False)
    monkeypatch.setenv("PARAMINE_MODE", "production")
    with pytest.raises(ConfigurationError, match="PARAMINE_API_KEY"):
        Settings()


def test_no_secret_is_hard_coded_in_the_services() -> None:
    pattern = re.compile(r"""(api_key|password|secret|token)\s*[:=]\s*["'][^"']{4,}["']""", re.I)
    offenders = [
        f"{path.relative_to(REPO)}: {match.group(0)}"
        for root in ("shared", "services")
        for path in sorted((REPO / root).rglob("*.py"))
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_settings_repr_does_not_show_the_keys() -> None:
    settings = Settings(api_key="very-secret-ingest", admin_api_key="very-secret-admin")
    assert "very-secret" not in repr(settings)
