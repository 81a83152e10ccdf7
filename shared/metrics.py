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
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

__all__ = ["CONTENT_TYPE_LATEST", "StageMetrics", "metrics_payload", "stage_metrics"]

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0)
WAIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0, 60.0, 600)


@dataclass(frozen=True)
class StageMetrics:
    """Per-stage counters, latency and in-flight gauge (label ``stage``).

    ``messages_rejected`` counts messages a worker refused before running anything (a body that
    is not JSON, e.g. pickle); ``pairs_resent`` counts page pairs
    :mod:`shared.delivery.reconcile` sent again; ``worker_ready`` is 1 once a worker consumes
    its stage's queue. page_match counts
    the page pairs it finds by how (``url``, ``content``) and sets the pages waiting for a
    counterpart (``age``: ``any``, or ``over_7_days``). ``queue_wait`` is a message's time
    from its publish to its task's start (the publisher's and the worker's wall clocks: on
    two hosts their skew counts too); the time a stage's messages wait is what tells an
    operator to add workers. ``site_pairs_used`` counts the site's earlier sentence pairs
    sentence_align learned from (``Settings.site_pairs``).
    """

    messages_in: Counter
    messages_out: Counter
    messages_failed: Counter
    messages_retried: Counter
    messages_deferred: Counter
    messages_rejected: Counter
    pairs_resent: Counter
    latency: Histogram
    queue_wait: Histogram
    in_flight: Gauge
    worker_ready: Gauge
    pages_matched: Counter
    page_pairs_superseded: Counter
    pages_waiting: Gauge
    site_pairs_used: Counter

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
                "paramine_messages_retried",
                "Retries of transient failures",
                ["stage"],
                registry=registry,
            ),
            messages_deferred=Counter(
                "paramine_messages_deferred",
                "Messages sent again later: earlier page pairs of the site were not through "
                "the stage yet (shared/delivery/ordering.py)",
                ["stage"],
                registry=registry,
            ),
            messages_rejected=Counter(
                "paramine_messages_rejected",
                "Messages refused undecoded (content type not allowed, malformed envelope)",
                ["stage"],
                registry=registry,
            ),
            pairs_resent=Counter(
                "paramine_pairs_resent",
                "Tracked page pairs the reconciler sent again (their message was lost)",
                ["stage"],
                registry=registry,
            ),
            latency=Histogram(
                "paramine_stage_latency_seconds",
                "Time a stage spends on one message",
                ["stage"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            queue_wait=Histogram(
                "paramine_queue_wait_seconds",
                "Time from a message's publish to the start of its task",
                ["stage"],
                buckets=WAIT_BUCKETS,
                registry=registry,
            ),
            in_flight=Gauge(
                "paramine_in_flight",
                "Messages being processed now",
                ["stage"],
                registry=registry,
                multiprocess_mode="livesum",
            ),
            worker_ready=Gauge(
                "paramine_worker_ready",
                "1 while a worker process consumes the stage's queue",
                ["stage"],
                registry=registry,
                multiprocess_mode="livemax",
            ),
            pages_matched=Counter(
                "paramine_pages_matched",
                "Page pairs page_match found, by how (url, content)",
                ["by"],
                registry=registry,
            ),
            page_pairs_superseded=Counter(
                "paramine_page_pairs_superseded",
                "Page pairs page_match replaced (why: changed, one of its pages changed; "
                "better, a better pair of one of its pages in the same languages)",
                ["why"],
                registry=registry,
            ),
            pages_waiting=Gauge(
                "paramine_pages_waiting",
                "Stored pages in no page pair yet (age: any, over_7_days)",
                ["age"],
                registry=registry,
                multiprocess_mode="mostrecent",
            ),
            site_pairs_used=Counter(
                "paramine_site_pairs_used",
                "Stored sentence pairs of the same site that sentence_align added to page "
                "pairs' text for their length model and Model 1",
                registry=registry,
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
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return registry
    return REGISTRY


def metrics_payload() -> bytes:
    """The text exposition of every metric this process (or process group) has."""
    return generate_latest(collecting_registry())


class QueueDepthCollector:
    """``paramine_queue_depth{queue}``: messages waiting in each stage queue, read at scrape."""

    def __init__(self, redis_url: str, queues: list[str]) -> None:
        self.redis_url = redis_url
        self.queues = queues

    def collect(self) -> Iterator[Any]:
        import redis  # lazy: redis-py stays off in-process runs, which have no queue to read

        family = GaugeMetricFamily(
            "paramine_queue_depth", "Messages waiting in a stage queue", labels=["queue"]
        )
        try:
            client = redis.Redis.from_url(self.redis_url, socket_timeout=2)
            for queue in self.queues:
                family.add_metric([queue], float(client.llen(queue)))
        except redis.RedisError:
            return  # an unreachable broker shows as missing samples (alert: absent())
        yield family


def queue_depth_payload(redis_url: str, queues: list[str]) -> bytes:
    """Exposition text of the queue-depth gauge alone."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(QueueDepthCollector(redis_url, queues))
    return generate_latest(registry)
