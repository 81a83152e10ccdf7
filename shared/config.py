"""Typed settings for every paramine service, read from ``PARAMINE_*`` environment variables."""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import BaseModel, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.errors import ConfigurationError


class HtmlLimits(BaseModel):
    """Bounds on crawled HTML: anything larger is refused with a clear error."""

    max_bytes: int = 20_000_000
    max_depth: int = 1_000
    max_elements: int = 300_000
    # Work of one tree alignment pass (services.tree_align.decoder.DEFAULT_MAX_WORK, about
    # 6-27 s): wider page pairs are aligned with restricted spans, or as flat text.
    max_alignment_work: float = 4e8
    # Memory of one tree alignment's tables (decoder.DEFAULT_MAX_TABLE_BYTES); over it, flat text.
    max_alignment_bytes: int = 1_500_000_000


class QueueSettings(BaseModel):
    """Celery delivery settings shared by every stage's worker."""

    soft_time_limit: float = 120.0
    hard_time_limit: float = 150.0
    # Must exceed the hard limit, or Redis redelivers tasks that are still running.
    visibility_timeout: float = 3_600.0
    max_retries: int = 8  # TransientError (database or broker away): retries with backoff
    # Any other failure (a bug, a time limit) is retried this often, then dead-lettered;
    # InvalidInput is dead-lettered at once (retrying cannot help).
    failure_retries: int = 3
    restore_interval: int = 30  # seconds between sweeps restoring expired unacked messages
    # Reconciler (shared/reconcile.py, in the tree_align workers): every reconcile_interval s
    # (0: off) it sends again tracked page pairs sent more than reconcile_age s ago that are
    # neither completed nor dead-lettered nor anywhere in Redis; at most reconcile_batch per
    # sweep, and none while the queues and unacked hash hold more messages than that.
    reconcile_interval: float = 30.0
    reconcile_age: float = 300.0
    reconcile_batch: int = 500
    retry_backoff_max: float = 60.0


class Settings(BaseSettings):
    """All settings of a deployment; nested sections via ``PARAMINE_<SECTION>__<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="PARAMINE_", env_nested_delimiter="__")

    mode: str = Field(default="local", pattern="^(local|production)$")
    database_url: str = "sqlite:///paramine.db"
    redis_url: str | None = None
    api_key: SecretStr | None = None
    admin_api_key: SecretStr | None = None
    max_body_bytes: int = 25_000_000
    rate_limit_per_minute: int = 6_000
    metrics_dir: Path | None = None
    recompute_interval: float = 3_600.0  # seconds between similarity-matrix recomputes
    html: HtmlLimits = HtmlLimits()
    queue: QueueSettings = QueueSettings()

    @model_validator(mode="after")
    def _refuse_unsafe_production(self) -> Settings:
        if self.mode == "production" and not secret(self.api_key):
            raise ConfigurationError("PARAMINE_API_KEY must be set when PARAMINE_MODE=production")
        if self.queue.visibility_timeout <= self.queue.hard_time_limit:
            raise ConfigurationError("queue.visibility_timeout must exceed queue.hard_time_limit")
        return self


def secret(value: SecretStr | None) -> str | None:
    """The plain text of a secret setting (None when unset or empty)."""
    return value.get_secret_value() or None if value is not None else None


@functools.cache
def get_settings() -> Settings:
    """The process-wide settings; tests call ``get_settings.cache_clear()`` after changing env."""
    return Settings()
