"""The reconciler: page pairs whose message the broker lost are sent again.

Why: kombu's Redis transport takes a message off its list with BRPOP and records it in the
``unacked`` hash with a second command (celery/kombu#305). If Redis stops between the two, or
the BRPOP reply is lost with the connection, the message is nowhere: not queued, not unacked,
never dead-lettered. Late acks and the visibility timeout cannot bring it back.

How: ingest records every accepted page pair with the message that starts its work
(``job_pairs.state = 'pending'``, :meth:`Store.record_job`) *before* sending it, so the store,
not Redis, is the record of what was accepted. A sweep (:func:`sweep`):

1. marks pending pairs sent more than ``age`` seconds ago whose sentence_align progress row
   exists as done, dropping their payloads;
2. lists the other pending pairs sent more than ``age`` ago (at most ``batch``);
3. if there are any, reads in one MULTI the alignment queues and the ``unacked`` hash: a pair
   waiting or in flight there is not lost (a killed worker's message is restored by kombu after
   the visibility timeout). When they hold more than ``batch`` messages the sweep stops: in a
   backlog a late pair is not lost, and sending more would only grow it;
4. claims each remaining pair with one UPDATE (its send time and count move on; of several
   reconcilers only one claims a pair) and sends its message to its first stage again.

A dead-lettered pair is marked ``dead`` and left alone until ``paramine dead-letters retry``.
Every write is idempotent (content-keyed rows), so a pair sent twice (a race between the
snapshot and a worker, a message popped at the instant of the snapshot) costs only work.
"""

from __future__ import annotations

import base64
import json
import logging
import multiprocessing
import multiprocessing.connection
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any

import redis

from shared.config import get_settings
from shared.delivery.celery_app import get_celery, queue_name
from shared.delivery.pipeline import CelerySender
from shared.metrics import stage_metrics
from shared.schemas import pair_id_of
from shared.store import Store

log = logging.getLogger(__name__)

ALIGNMENT_STAGES = ("tree_align", "sentence_align")
UNACKED = "unacked"  # kombu's Redis transport: delivery tag -> [message, exchange, routing key]


@dataclass(frozen=True)
class SweepResult:
    completed: int = 0  # pending pairs found done and marked so
    stale: int = 0  # pending pairs older than the age, not done
    in_redis: int = 0  # of those, waiting or in flight in Redis
    resent: int = 0  # sent again
    backlog: bool = False  # skipped: the queues hold more than a batch


def queued_pair_ids(client: Any, queues: list[str], limit: int) -> set[str] | None:
    """Pair ids of every message waiting in ``queues`` or unacked, read in one MULTI; None
    when more than ``limit`` messages are there (a backlog)."""
    with client.pipeline(transaction=False) as pipe:  # a cheap look first
        for queue in queues:
            pipe.llen(queue)
        pipe.hlen(UNACKED)
        if sum(int(n) for n in pipe.execute()) > limit:
            return None
    with client.pipeline(transaction=True) as pipe:
        for queue in queues:
            pipe.llen(queue)
        pipe.hlen(UNACKED)
        for queue in queues:
            pipe.lrange(queue, 0, limit)
        pipe.hvals(UNACKED)
        replies = pipe.execute()
    if sum(int(n) for n in replies[: len(queues) + 1]) > limit:
        return None  # grown since the first look: the snapshot may be incomplete
    envelopes = [json.loads(raw) for reply in replies[len(queues) + 1 : -1] for raw in reply]
    envelopes += [json.loads(raw)[0] for raw in replies[-1]]
    return {pair for envelope in envelopes if (pair := message_pair_id(envelope)) is not None}


def message_pair_id(envelope: Any) -> str | None:
    """The pair a kombu/Celery (protocol 2, JSON) message belongs to."""
    try:
        if envelope.get("content-type") != "application/json":
            return None
        args = json.loads(base64.b64decode(envelope["body"]))[0]
        payload = args[0] if args else None
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
    return pair_id_of(payload) if isinstance(payload, dict) else None


def sweep(store: Store, client: Any, sender: Any, *, age: float, batch: int) -> SweepResult:
    """One reconciliation pass (see the module docstring); ``sender.send_payload`` sends."""
    before = time.time() - age
    completed = store.complete_tracked(before)
    stale = store.stale_tracked(before, batch)
    if not stale:
        return SweepResult(completed=completed)
    present = queued_pair_ids(client, [queue_name(s) for s in ALIGNMENT_STAGES], batch)
    if present is None:
        return SweepResult(completed=completed, stale=len(stale), backlog=True)
    lost = [(pair.job_id, pair.pair_id) for pair in stale if pair.pair_id not in present]
    resent = 0
    for pair in store.claim_tracked(lost, before):
        if pair.payload is None:
            continue
        sender.send_payload(pair.stage, json.loads(pair.payload))
        stage_metrics().pairs_resent.labels(pair.stage).inc()
        log.warning("reconciler: sent %s of job %s again (lost)", pair.pair_id, pair.job_id)
        resent += 1
    return SweepResult(completed, len(stale), len(stale) - len(lost), resent)


@contextmanager
def _connected() -> Iterator[Callable[[], SweepResult] | None]:
    """One sweep function bound to the settings' store, Redis and Celery app (closed on exit);
    None without a Redis URL."""
    settings = get_settings()
    queue = settings.queue
    if not settings.redis_url:
        yield None
        return
    store = Store(settings.database_url)
    client = redis.Redis.from_url(settings.redis_url, socket_timeout=10)
    sender = CelerySender(get_celery())
    try:
        yield lambda: sweep(
            store, client, sender, age=queue.reconcile_age, batch=queue.reconcile_batch
        )
    finally:
        client.close()
        store.engine.dispose()


def sweep_once() -> SweepResult:
    """One sweep with the settings' services (``paramine reconcile --once``)."""
    with _connected() as one_sweep:
        if one_sweep is None:
            raise ValueError("PARAMINE_REDIS_URL must be set to reconcile")
        return one_sweep()


def run_forever(stop: threading.Event) -> None:
    """Sweep every ``queue.reconcile_interval`` seconds until ``stop`` is set; errors (store or
    broker away) are logged and the next sweep tries again."""
    interval = get_settings().queue.reconcile_interval
    if interval <= 0:
        return
    with _connected() as one_sweep:
        if one_sweep is None:
            return
        while not stop.wait(interval):
            try:
                result = one_sweep()
            except Exception as exc:
                log.warning("reconciler: sweep failed, trying again later: %r", exc)
                continue
            if result.backlog:
                log.info("reconciler: %d late pairs, but the queues hold a backlog", result.stale)


def start_process() -> BaseProcess:
    """Run :func:`run_forever` in a process of its own, started fresh (``spawn``), that ends
    when its parent does.

    Why not a thread of the worker's consumer: that process forks every pool child, including
    the replacements of children that exit (a time limit, a crash), at any moment. A child
    inherits every lock as it was at the fork, held or not, and a thread that holds one (the
    reconciler is the only one of the consumer's threads that uses the store, the Celery
    producer pool and the metrics, as the children do) never releases it in the child."""
    process = multiprocessing.get_context("spawn").Process(
        target=_run_until_parent_exits, name="paramine-reconciler", daemon=True
    )
    process.start()
    return process


def _run_until_parent_exits() -> None:
    """The reconciler process: sweeps until its parent (the worker's consumer) is gone,
    however it ended (a daemon child is also stopped by its parent's normal exit)."""
    logging.basicConfig(
        level=logging.INFO, format="[%(asctime)s: %(levelname)s/Reconciler] %(message)s"
    )
    stop = threading.Event()
    parent = multiprocessing.parent_process()
    if parent is not None:
        sentinel = parent.sentinel

        def watch_parent() -> None:
            multiprocessing.connection.wait([sentinel])
            stop.set()

        threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()
    run_forever(stop)
