"""Celery app factory: JSON only, one queue per stage, late acks, bounded retries."""

from __future__ import annotations

import functools
import socket

from celery import Celery
from kombu.entity import Queue

from shared.config import Settings, get_settings
from shared.schemas import STAGES


def queue_name(stage: str) -> str:
    return f"paramine.{stage}"


def task_name(stage: str) -> str:
    return f"paramine.{stage}.process"


def keepalive_options(timeout: float) -> dict[int, int]:
    """TCP keepalive probes that give up on a silent peer after about ``timeout`` seconds
    (Linux option names; other systems keep their defaults)."""
    names = ("TCP_KEEPIDLE", "TCP_KEEPINTVL", "TCP_KEEPCNT")
    if not all(hasattr(socket, name) for name in names):
        return {}
    interval = max(1, int(timeout) // 4)
    return {socket.TCP_KEEPIDLE: interval, socket.TCP_KEEPINTVL: interval, socket.TCP_KEEPCNT: 3}


def restore_lock_expiry(socket_timeout: float) -> int:
    """Seconds the restore sweep's lock lives when its holder vanishes: two of a command's
    socket timeouts (a live sweep is a few commands). A sweep that outlives it overlaps with
    the next one harmlessly: kombu restores each message in a WATCH transaction."""
    return max(2, int(2 * socket_timeout))


def make_celery(settings: Settings) -> Celery:
    """A Celery app whose delivery guarantees follow ARCHITECTURE.md (at-least-once)."""
    broker = settings.redis_url or "memory://"
    app = Celery("paramine", broker=broker, set_as_current=False)
    queue = settings.queue
    app.conf.update(
        # kombu's Redis transport, except that a queue item that is no message envelope is
        # dead-lettered instead of stopping the worker (shared/delivery/broker.py)
        broker_transport="shared.delivery.broker:Transport" if settings.redis_url else None,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],  # a pickled message is refused by the worker
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=queue.soft_time_limit,
        task_time_limit=queue.hard_time_limit,
        broker_transport_options={
            "visibility_timeout": queue.visibility_timeout,
            # How often a worker looks for unacked messages of dead workers to restore.
            "unacked_restore_interval": queue.restore_interval,
            "unacked_restore_throttle": 1,
            # One sweep at a time holds this lock; a worker cut off during its sweep cannot
            # release it, and kombu's 300 s default then stopped every restore that long.
            "unacked_mutex_expire": restore_lock_expiry(queue.broker_socket_timeout),
            # A cut link is noticed: commands time out, idle connections are probed.
            "socket_timeout": queue.broker_socket_timeout,
            "socket_connect_timeout": queue.broker_socket_timeout,
            "socket_keepalive": True,
            "socket_keepalive_options": keepalive_options(queue.broker_socket_timeout),
            "health_check_interval": queue.broker_health_check_interval,
        },
        broker_connection_retry_on_startup=True,
        task_queues=[Queue(queue_name(stage)) for stage in STAGES],  # type: ignore[no-untyped-call]
        task_default_queue=queue_name(STAGES[0]),
        task_routes={
            **{task_name(stage): {"queue": queue_name(stage)} for stage in STAGES},
            "paramine.thesaurus.recompute": {"queue": queue_name("thesaurus")},
            "paramine.paraphrase.recompute": {"queue": queue_name("paraphrase")},
        },
        worker_hijack_root_logger=False,
        # An undecodable message is dead-lettered, not dropped (shared/delivery/consumer.py).
        worker_consumer="shared.delivery.consumer:StageConsumer",
        worker_send_task_events=False,
        include=[f"services.{stage}.tasks" for stage in STAGES],
        beat_schedule={
            "thesaurus-recompute": {
                "task": "paramine.thesaurus.recompute",
                "schedule": settings.recompute_interval,
                "options": {"queue": queue_name("thesaurus")},
            },
            "paraphrase-recompute": {
                "task": "paramine.paraphrase.recompute",
                "schedule": settings.recompute_interval,
                "options": {"queue": queue_name("paraphrase")},
            },
        },
    )
    return app


@functools.cache
def get_celery() -> Celery:
    """The process-wide Celery app built from the current settings."""
    return make_celery(get_settings())
