"""Prometheus metrics for every stage, defined once; multiprocess-aware for prefork workers.

Set ``PROMETHEUS_MULTIPROC_DIR`` (``paramine worker`` and ``paramine serve`` do it from
``PARAMINE_METRICS_DIR``) before the first import of prometheus_client when several processes
must be summed; otherwise the process-local default registry is used.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

__all__ = ["CONTENT_TYPE_LATEST", "StageMetrics", "metrics_payload", "stage_metrics"]

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0)


@dataclass(frozen=True)
class StageMetrics:
    """Per-stage counters, latency and in-flight gauge (label ``stage``)."""

    messages_in: Counter
    messages_out: Counter
    messages_failed: Counter
    messages_retried: Counter
    latency: Histogram
    in_flight: Gauge

    @classmethod
    def create(cls, registry: CollectorRegistry = REGISTRY) -> StageMetrics:
        return cls(
            messages_in=Counter(
                "paramine_messages_in", "Messages received by a stage", ["stage"], registry=registry
            ),
            messages_out=Counter(
                "paramine_messages_out", "Messages emitted by a stage", ["stage"], registry=registry
            ),
            messages_failed=Counter(
                "paramine_messages_failed",
                "Messages that ended in the dead-letter table",
                ["stage", "error"],
                registry=registry,
            ),
            messages_retried=Counter(
                "paramine_messages_retried", "Retries of transient failures", ["stage"], registry=registry
            ),
            latency=Histogram(
                "paramine_stage_latency_seconds",
                "Time a stage spends on one message",
                ["stage"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            in_flight=Gauge(
                "paramine_in_flight",
                "Messages being processed now",
                ["stage"],
                registry=registry,
                multiprocess_mode="livesum",
            ),
        )

    @contextmanager
    def observe(self, stage: str) -> Iterator[None]:
        """Count a message in, time it, and track it as in flight while it runs."""
        self.messages_in.labels(stage).inc()
        gauge = self.in_flight.labels(stage)
        gauge.inc()
        started = time.perf_counter()
        try:
            yield
        finally:
            self.latency.labels(stage).observe(time.perf_counter() - started)
            gauge.dec()


_stage_metrics: StageMetrics | None = None


def stage_metrics() -> StageMetrics:
    """The process-wide stage metrics on the default registry (created on first use)."""
    global _stage_metrics
    if _stage_metrics is None:
        _stage_metrics = StageMetrics.create()
    return _stage_metrics


def collecting_registry() -> CollectorRegistry:
    """The registry to expose: all processes' files in multiprocess mode, else the default."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


def metrics_payload() -> bytes:
    """The text exposition of every metric this process (or process group) has."""
    return generate_latest(collecting_registry())
