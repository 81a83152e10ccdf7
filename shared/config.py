"""Typed settings for every paramine service, read from ``PARAMINE_*`` environment variables."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from pydantic import BaseModel, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.errors import ConfigurationError


class HtmlLimits(BaseModel):
    """Bounds on crawled HTML: anything larger is refused with a clear error."""

    max_bytes: int = Field(default=20_000_000, gt=0)
    max_depth: int = Field(default=1_000, gt=0)
    max_elements: int = Field(default=300_000, gt=0)
    # Work of one tree alignment pass (services.tree_align.decoder.DEFAULT_MAX_WORK; its time:
    # benchmarks/results/tuning_history.md, decoder work bound): wider page pairs are aligned
    # with restricted spans, or as flat text.
    max_alignment_work: float = Field(default=4e8, gt=0)
    # Memory of one tree alignment's tables (decoder.DEFAULT_MAX_TABLE_BYTES); over it, flat text.
    max_alignment_bytes: int = Field(default=1_500_000_000, gt=0)


class QueueSettings(BaseModel):
    """Celery delivery settings shared by every stage's worker."""

    soft_time_limit: float = Field(default=120.0, gt=0)
    hard_time_limit: float = Field(default=150.0, gt=0)
    # Seconds an unacked message may go without its lease being renewed before any worker's
    # restore sweep puts it back on its queue (shared/delivery/lease.py): a live worker renews what
    # it holds every lease_renewal_interval s, so this bounds the redelivery of a message held
    # by a worker cut off from Redis, not the length of a task. With renewal off (0) it must
    # exceed the hard limit, or Redis redelivers tasks that are still running.
    visibility_timeout: float = Field(default=60.0, gt=0)
    lease_renewal_interval: float = Field(default=15.0, ge=0)
    # Redis client of every process (kombu transport): a command with no reply for this long
    # fails (a publish to a cut-off broker gives the gateway a 503 instead of hanging), and
    # idle connections are probed (TCP keepalive, health checks) so a dead link is noticed.
    broker_socket_timeout: float = Field(default=10.0, gt=0)
    broker_health_check_interval: int = Field(default=10, ge=0)
    # TransientError (database or broker away): retries with backoff
    max_retries: int = Field(default=8, ge=0)
    # Any other failure (a bug, a time limit) is retried this often, then dead-lettered;
    # InvalidInput is dead-lettered at once (retrying cannot help).
    failure_retries: int = Field(default=3, ge=0)
    # seconds between sweeps restoring expired unacked messages
    restore_interval: int = Field(default=15, gt=0)
    # Reconciler (shared/delivery/reconcile.py, in the tree_align workers): every reconcile_interval
    # s (0: off) it sends again tracked page pairs sent more than reconcile_age s ago that are
    # neither completed nor dead-lettered nor anywhere in Redis; at most reconcile_batch per sweep,
    # and none while the queues and unacked hash hold more messages than that.
    reconcile_interval: float = Field(default=30.0, ge=0)
    reconcile_age: float = Field(default=300.0, ge=0)
    reconcile_batch: int = Field(default=500, gt=0)
    retry_backoff_max: float = Field(default=60.0, ge=0)


class Settings(BaseSettings):
    """All settings of a deployment; nested sections via ``PARAMINE_<SECTION>__<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="PARAMINE_", env_nested_delimiter="__")

    mode: str = Field(default="local", pattern="^(local|production)$")
    # One store for `make run` and every command, wherever it is run from.
    database_url: str = Field(default_factory=lambda: default_database_url())
    redis_url: str | None = None
    api_key: SecretStr | None = None
    admin_api_key: SecretStr | None = None
    max_body_bytes: int = Field(default=25_000_000, gt=0)
    rate_limit_per_minute: int = Field(default=6_000, gt=0)
    metrics_dir: Path | None = None
    # SIGTERM to the gateway: no new connections; requests in progress get this many seconds
    # (a pair recorded but not yet queued when they are cut is resent by the reconciler).
    gateway_shutdown_timeout: float = Field(default=20.0, gt=0)
    # Seconds the gateway keeps trying to queue an accepted request's messages while Redis is
    # unreachable before it answers 503 with Retry-After (the workers' forwarding waits 60 s).
    gateway_publish_patience: float = Field(default=10.0, gt=0)
    # sentence_align: at most this many of the site's latest distinct sentence pairs (one
    # sentence a side, score >= 0.9) join a page pair's text for its length model and
    # Model 1 (0: off)
    site_pairs: int = Field(default=500, ge=0)
    # tree_align: the content model counts a block on many pages of the site as template,
    # from the blocks of the site's pages aligned before (services/tree_align/repository.py)
    site_blocks: bool = True
    # Both learn only from the site's page pairs accepted before (shared/delivery/ordering.py): a
    # page pair whose earlier pairs are not through the stage yet waits for them, for at most this
    # many seconds after it was accepted (and an earlier pair accepted this long before it,
    # still not through, is taken as abandoned)
    site_wait: float = Field(default=900.0, ge=0)
    # seconds between recomputes of the similarity matrices and the phrase table snapshot
    recompute_interval: float = Field(default=3_600.0, gt=0)
    html: HtmlLimits = HtmlLimits()
    queue: QueueSettings = QueueSettings()

    @model_validator(mode="after")
    def _refuse_unsafe_production(self) -> Settings:
        if self.mode == "production" and not secret(self.api_key):
            raise ConfigurationError("PARAMINE_API_KEY must be set when PARAMINE_MODE=production")
        queue = self.queue
        if queue.lease_renewal_interval == 0 and queue.visibility_timeout <= queue.hard_time_limit:
            raise ConfigurationError(
                "queue.visibility_timeout must exceed queue.hard_time_limit "
                "when leases are not renewed (queue.lease_renewal_interval 0)"
            )
        if queue.visibility_timeout <= 2 * queue.lease_renewal_interval:
            raise ConfigurationError(
                "queue.visibility_timeout must exceed twice queue.lease_renewal_interval "
                "(a lease must survive one late renewal)"
            )
        return self


def default_store_path() -> Path:
    """Where the store lives when PARAMINE_DATABASE_URL is unset: ``paramine/paramine.db``
    in the XDG data folder (``$XDG_DATA_HOME``, else ``~/.local/share``)."""
    data_home = os.environ.get("XDG_DATA_HOME", "")
    folder = Path(data_home) if os.path.isabs(data_home) else Path.home() / ".local" / "share"
    return folder / "paramine" / "paramine.db"


def default_database_url() -> str:
    """The SQLite URL of :func:`default_store_path`."""
    return f"sqlite:///{default_store_path()}"


def secret(value: SecretStr | None) -> str | None:
    """The plain text of a secret setting (None when unset or empty)."""
    return value.get_secret_value() or None if value is not None else None


@functools.cache
def get_settings() -> Settings:
    """The process-wide settings; tests call ``get_settings.cache_clear()`` after changing env."""
    return Settings()
