"""Leases on unacked messages: a live worker keeps what it holds; a cut-off one loses it soon.

Why: kombu's Redis transport records each delivered message in the ``unacked`` hash and its
delivery time in the ``unacked_index`` sorted set; any consumer's restore sweep puts back on
its queue a message whose score is older than the visibility timeout. With the score left at
the delivery time, the timeout has to exceed the longest task (the hard time limit), and a
message held by a worker cut off from the network (not killed: nothing closes its
connections) waited that long before it was done elsewhere.

How: the consumer process of every worker runs a thread (:func:`start_thread`) that every
``queue.lease_renewal_interval`` seconds sets the score of each message it holds (received,
running, or waiting for its countdown) to now, with ``ZADD XX`` (an entry already acked or
restored is not recreated). The visibility timeout is then the lease: a message whose worker
stopped renewing (cut off, frozen, dead) is restored by a sweep of any live worker at most
``visibility_timeout`` + ``lease_renewal_interval`` + ``restore_interval`` seconds later.
A worker that is only slow to renew (Redis away for longer than a lease) may see its message
run twice elsewhere: every write is idempotent (content-keyed rows), so that costs work, not
correctness.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from typing import Any

import redis
from celery.worker import state

from shared.config import get_settings

log = logging.getLogger(__name__)

UNACKED_INDEX = "unacked_index"  # kombu's Redis transport: delivery tag -> delivery time


def renew(client: Any, tags: Iterable[str], now: float, key: str = UNACKED_INDEX) -> int:
    """Set the lease of each delivery tag still unacked to ``now``; how many were renewed.
    (``key``: kombu's index under a ``global_keyprefix``.)"""
    scores = {tag: now for tag in tags}
    if not scores:
        return 0
    return int(client.zadd(key, scores, xx=True, ch=True))


def held_delivery_tags() -> set[str]:
    """Delivery tags of the messages this worker process holds: reserved, running, or
    scheduled for a countdown (Celery's worker state, read by the consumer's threads)."""
    for _attempt in range(5):
        try:
            requests = [
                *tuple(state.reserved_requests),
                *tuple(state.active_requests),
                *tuple(state.scheduled_requests),
            ]
            break
        except RuntimeError:  # a set changed size while it was copied: read again
            continue
    else:
        return set()
    tags = set()
    for request in requests:
        tag = getattr(getattr(request, "message", None), "delivery_tag", None)
        if tag is not None:
            tags.add(str(tag))
    return tags


def run_forever(stop: threading.Event, redis_url: str, interval: float, timeout: float) -> None:
    """Renew the held messages' leases every ``interval`` seconds until ``stop`` is set; a
    failed renewal (Redis unreachable) is logged and tried again at the next tick."""
    client = redis.Redis.from_url(redis_url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        while not stop.wait(interval):
            try:
                renew(client, held_delivery_tags(), time.time())
            except redis.RedisError as exc:
                log.warning("lease renewal failed, trying again later: %r", exc)
    finally:
        client.close()


def start_thread() -> threading.Event | None:
    """Start the renewal thread with the settings' broker (None when leases are off or there
    is no broker); set the returned event to stop it."""
    settings = get_settings()
    interval = settings.queue.lease_renewal_interval
    if interval <= 0 or not settings.redis_url:
        return None
    stop = threading.Event()
    threading.Thread(
        target=run_forever,
        args=(stop, settings.redis_url, interval, settings.queue.broker_socket_timeout),
        name="lease-renewal",
        daemon=True,
    ).start()
    return stop
