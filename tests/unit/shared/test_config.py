"""Settings: environment overrides and refusal of unsafe values."""

from __future__ import annotations

import pytest

from shared.config import Settings
from shared.errors import ConfigurationError


def test_environment_overrides_nested_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARAMINE_REDIS_URL", "redis://r:6379/0")
    monkeypatch.setenv("PARAMINE_HTML__MAX_DEPTH", "50")
    settings = Settings()
    assert settings.redis_url == "redis://r:6379/0" and settings.html.max_depth == 50


def test_production_without_api_key_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="API_KEY"):
        Settings(mode="production")


def test_visibility_timeout_must_exceed_hard_limit_without_lease_renewal() -> None:
    limits = {"hard_time_limit": 100, "soft_time_limit": 90, "visibility_timeout": 50}
    with pytest.raises(ConfigurationError, match="visibility_timeout"):
        Settings(queue={**limits, "lease_renewal_interval": 0})
    # renewed leases: the timeout bounds a silent worker's hold, not a task's length
    assert Settings(queue={**limits, "lease_renewal_interval": 10}).queue.visibility_timeout == 50


def test_a_lease_must_survive_one_late_renewal() -> None:
    with pytest.raises(ConfigurationError, match="lease_renewal_interval"):
        Settings(queue={"visibility_timeout": 30, "lease_renewal_interval": 15})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PARAMINE_RATE_LIMIT_PER_MINUTE", "0"),  # every ingest divided by it: a 500
        ("PARAMINE_RATE_LIMIT_PER_MINUTE", "-5"),  # a 429 with Retry-After: -12
        ("PARAMINE_MAX_BODY_BYTES", "0"),
        ("PARAMINE_HTML__MAX_DEPTH", "0"),
        ("PARAMINE_QUEUE__RECONCILE_BATCH", "0"),
    ],
)
def test_sizes_and_rates_that_cannot_work_are_refused(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError, match="greater than 0"):
        Settings()
