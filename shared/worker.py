"""The Celery side of a stage: one task definition shared by every stage's thin tasks.py.

Timing and counting live in :func:`shared.pipeline.run_stage`; this module adds what only a
queue worker needs: retry with backoff for ``TransientError``, a dead-letter record for
everything that cannot be processed, and forwarding of the emitted messages to the next
queues.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.exceptions import Reject, SoftTimeLimitExceeded
from kombu.exceptions import KombuError

from shared.config import get_settings
from shared.errors import InvalidInput, TransientError
from shared.metrics import stage_metrics
from shared.pipeline import CelerySender, Handler, describe_error, run_stage
from shared.store import Store

log = logging.getLogger(__name__)

_stores: dict[int, Store] = {}


def worker_store() -> Store:
    """One store (and connection pool) per process: pools must not cross a fork."""
    pid = os.getpid()
    store = _stores.get(pid)
    if store is None:
        store = Store(get_settings().database_url)
        _stores.clear()
        _stores[pid] = store
    return store


def retry_countdown(retries: int, cap: float) -> float:
    """Exponential backoff: 1, 2, 4, ... seconds, capped."""
    return float(min(2.0**retries, cap))


def define_stage_task(app: Celery, stage: str, handler: Handler) -> Any:
    """Register ``paramine.<stage>.process`` on ``app``: validate, handle, forward."""
    from shared.celery_app import task_name

    queue_settings = get_settings().queue

    @app.task(  # type: ignore[untyped-decorator]
        bind=True,
        name=task_name(stage),
        acks_late=True,
        reject_on_worker_lost=True,
        max_retries=queue_settings.max_retries,
    )
    def process(self: Any, payload: Any) -> int:
        store = worker_store()
        metrics = stage_metrics()
        attempts = int(self.request.retries) + 1
        countdown = retry_countdown(self.request.retries, queue_settings.retry_backoff_max)

        def give_up(exc: BaseException) -> int:
            try:
                _dead_letter(store, stage, payload, exc, attempts)
            except TransientError as store_down:
                # The dead-letter table is unreachable too: keep the message on the queue.
                metrics.messages_retried.labels(stage).inc()
                raise self.retry(
                    exc=store_down, countdown=countdown, max_retries=self.request.retries + 1
                ) from None
            return 0

        try:
            outgoing = run_stage(stage, payload, handler, store, metrics)
        except TransientError as exc:
            if self.request.retries >= self.max_retries:
                return give_up(exc)
            metrics.messages_retried.labels(stage).inc()
            raise self.retry(exc=exc, countdown=countdown) from None
        except (InvalidInput, SoftTimeLimitExceeded) as exc:
            return give_up(exc)
        except Exception as exc:
            log.exception("%s failed on a message; dead-lettering it", stage)
            return give_up(exc)
        sender = CelerySender(app)
        try:
            for next_stage, message in outgoing:
                sender.send(next_stage, message)
        except (OSError, KombuError) as exc:
            # The broker stayed away through the publish retries: hand the message back
            # unacked (Redis restores it after the visibility timeout); the rerun is idempotent.
            metrics.messages_retried.labels(stage).inc()
            raise Reject(f"could not forward to the next queue: {exc}", requeue=True) from exc
        return len(outgoing)

    return process


def _dead_letter(store: Store, stage: str, payload: Any, exc: BaseException, attempts: int) -> None:
    reason = (
        describe_error(exc)
        if not isinstance(exc, SoftTimeLimitExceeded)
        else ("TimeLimitExceeded: the message took longer than the soft time limit")
    )
    stage_metrics().messages_failed.labels(stage, exc.__class__.__name__).inc()
    # If the store itself is down this raises TransientError and the broker redelivers.
    store.record_dead_letter(
        stage=stage,
        payload=payload,
        error_type=exc.__class__.__name__,
        reason=reason,
        attempts=attempts,
    )
