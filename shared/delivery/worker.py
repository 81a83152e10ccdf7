"""The Celery side of a stage: one task definition shared by every stage's thin tasks.py.

Timing and counting live in :func:`shared.delivery.pipeline.run_stage`; this module adds what only a
queue worker needs: retries with exponential backoff, a dead-letter record for everything that
cannot be processed, and forwarding of the emitted messages to the next queues.

Failure policy (:func:`retries_allowed`), by what was raised:

- ``InvalidInput`` (the message or its document is bad): dead-lettered on the first attempt;
- ``TransientError`` (database or broker away): retried up to ``queue.max_retries`` times;
- anything else (a bug, ``SoftTimeLimitExceeded``): retried up to ``queue.failure_retries``
  times, then dead-lettered with the last reason and the number of attempts.

Retries count across kinds: a message that already used its retries on an outage is
dead-lettered on its next unexpected failure. A task that ignores its soft limit (stuck in
native code) is killed at the hard limit; Celery then acks its message, so the consumer
process writes it to the dead-letter table first (:class:`StageRequest`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import Any

import sqlalchemy as sa
from celery import Celery
from celery.exceptions import Reject, SoftTimeLimitExceeded, TimeLimitExceeded
from celery.worker.request import Request
from kombu.exceptions import KombuError
from prometheus_client import multiprocess

from shared.config import QueueSettings, get_settings
from shared.delivery.celery_app import task_name
from shared.delivery.ordering import DeferralPauses
from shared.delivery.pipeline import (
    SENT_AT_HEADER,
    CelerySender,
    Handler,
    describe_error,
    run_stage,
)
from shared.errors import Deferred, InvalidInput, TransientError
from shared.metrics import StageMetrics, stage_metrics
from shared.store import Store

log = logging.getLogger(__name__)

_stores: dict[int, Store] = {}


def worker_store() -> Store:
    """One store (and connection pool) per process: pools must not cross a fork."""
    pid = os.getpid()
    store = _stores.get(pid)
    if store is None:
        for inherited in _stores.values():
            # The parent's pool (the consumer dead-letters hard time-outs) was forked along:
            # drop it without closing the parent's connections.
            inherited.engine.dispose(close=False)
        _stores.clear()
        settings = get_settings()
        store = _stores[pid] = Store(settings.database_url)
        end_idle_transactions(store, settings.queue.soft_time_limit + 10)
    return store


def end_idle_transactions(store: Store, seconds: float) -> None:
    """PostgreSQL ends a session of this store that stays idle inside a transaction for
    ``seconds`` (rolled back, its locks released). A task's transaction is idle while its
    handler computes, which the soft limit interrupts (only a task stuck in native code runs
    on, and the hard limit kills it anyway); a worker cut off from the network mid-transaction
    sends nothing more and closes nothing, and its row locks held back the worker its message
    was redelivered to until the link came back."""
    if store.engine.dialect.name != "postgresql":
        return
    milliseconds = int(1000 * seconds)

    @sa.event.listens_for(store.engine, "connect")
    def _limit(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET idle_in_transaction_session_timeout = {milliseconds}")
        dbapi_connection.commit()


def retry_countdown(retries: int, cap: float) -> float:
    """Exponential backoff: 1, 2, 4, ... seconds, capped."""
    return float(min(2.0**retries, cap))


def retries_allowed(exc: BaseException, queue: QueueSettings) -> int:
    """How many retries a failure of this kind gets before its message is dead-lettered."""
    if isinstance(exc, InvalidInput):
        return 0
    if isinstance(exc, TransientError):
        return queue.max_retries
    return queue.failure_retries


class StageRequest(Request):  # type: ignore[misc]
    """A task request that dead-letters its message when the hard time limit kills it."""

    def on_timeout(self, soft: bool, timeout: float) -> None:
        super().on_timeout(soft, timeout)
        if not soft:
            _forget_killed_process(self.worker_pid)
        if soft or not self.args:
            return
        stage = str(getattr(self.task, "stage", "unknown"))
        attempts = int(self.request_dict.get("retries") or 0) + 1
        try:
            _dead_letter(worker_store(), stage, self.args[0], TimeLimitExceeded(timeout), attempts)
        except Exception:  # the message is acked either way: say so loudly
            log.exception("%s: could not dead-letter a message killed at the hard limit", stage)


def _forget_killed_process(pid: int | None) -> None:
    """The pool process killed at the hard limit never runs its shutdown hook: its live
    gauges (``paramine_in_flight``) stayed counted until the worker restarted."""
    if pid and os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


# How long this process holds the messages it defers (one worker process, one message at a time)
_PAUSES = DeferralPauses()


def define_stage_task(app: Celery, stage: str, handler: Handler) -> Any:
    """Register ``paramine.<stage>.process`` on ``app``: validate, handle, forward."""
    queue_settings = get_settings().queue
    retry_cap = max(queue_settings.max_retries, queue_settings.failure_retries)

    @app.task(  # type: ignore[untyped-decorator]
        bind=True,
        name=task_name(stage),
        acks_late=True,
        reject_on_worker_lost=True,
        max_retries=retry_cap,
        Request=StageRequest,
        stage=stage,
    )
    def process(self: Any, *args: Any, **kwargs: Any) -> int:
        started = time.time()
        store = worker_store()
        metrics = stage_metrics()
        observe_queue_wait(metrics, stage, self.name, self.request, started)
        # A message is one JSON payload; any other envelope (no argument, two, keywords)
        # failed in Celery's call with a TypeError, acked and lost: dead-lettered instead.
        payload: Any = args[0] if len(args) == 1 and not kwargs else {"args": args, **kwargs}
        malformed = (
            None
            if len(args) == 1 and not kwargs
            else InvalidInput(
                f"a {stage} message carries exactly one payload; got {len(args)} positional and "
                f"{len(kwargs)} keyword arguments"
            )
        )
        attempts = int(self.request.retries) + 1
        countdown = retry_countdown(self.request.retries, queue_settings.retry_backoff_max)

        def give_up(exc: BaseException) -> int:
            try:
                _dead_letter(store, stage, payload, exc, attempts)
            except TransientError as store_down:
                # The dead-letter table is unreachable too: keep the message on the queue.
                metrics.messages_retried.labels(stage).inc()
                raise self.retry(
                    exc=retry_reason(store_down),
                    countdown=countdown,
                    max_retries=self.request.retries + 1,
                ) from None
            return 0

        # PostgreSQL: the message's writes commit together, once. (Not SQLite: a handler that
        # writes through a second connection would wait for this transaction's file lock.)
        postgres = store.engine.dialect.name == "postgresql"
        try:
            # counted in before the transaction opens (with the database down, a message
            # that never reached the handler was not counted at all)
            with (
                metrics.observe(stage),
                store.one_transaction() if postgres else contextlib.nullcontext(),
            ):
                if malformed is not None:
                    raise malformed
                outgoing = run_stage(stage, payload, handler, store, metrics, observed=True)
        except Deferred as deferred:
            # Not a failure: the same message again a little later, sent as a new message
            # (sent first, then this one acked: a crash between runs it twice, idempotently).
            # The wait is spent here, holding this one message: sent with a countdown, it
            # would come back as an ETA message, which a worker takes beyond its prefetch
            # and holds in memory (a SIGTERM'd or cut-off worker then sits on many).
            metrics.messages_deferred.labels(stage).inc()
            pause = _PAUSES.pause(deferred)
            log.debug("%s defers a message by %.1f s: %s", stage, pause, deferred)
            time.sleep(pause)
            CelerySender(app).send_payload(stage, payload)
            return 0
        except Exception as exc:
            if self.request.retries >= retries_allowed(exc, queue_settings):
                if not isinstance(exc, InvalidInput | TransientError):
                    log.error(
                        "%s gives up on a message after %d attempts: %s",
                        stage, attempts, describe_error(exc), exc_info=exc,
                    )  # fmt: skip
                return give_up(exc)
            if not isinstance(exc, TransientError):
                log.warning(
                    "%s failed (attempt %d), retrying in %.0f s: %s",
                    stage, attempts, countdown, describe_error(exc),
                )  # fmt: skip
            metrics.messages_retried.labels(stage).inc()
            raise self.retry(
                exc=retry_reason(exc), countdown=countdown, max_retries=retry_cap
            ) from None
        _PAUSES.completed()
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


# The longest reason a retry carries back to the consumer.
RETRY_REASON_CHARS = 1000


class RetryReason(TransientError):
    """Why a task is retried, in a few hundred bytes: what the pool process sends back to the
    consumer in place of the exception itself."""


def retry_reason(exc: BaseException) -> RetryReason:
    """``exc`` as a :class:`RetryReason`: its type and message (``describe_error``) cut to
    RETRY_REASON_CHARS.

    Why: a retry's exception goes back to the consumer pickled, through the pipe the pool
    process shares with it. A database error pickles its statement's parameters (a page
    pair's HTML: tens of kilobytes), more than the pipe holds, so the process waited on the
    write; a hard time limit's SIGKILL then cut the message in two and the consumer stopped
    on the garbage (benchmarks/results/hosts.md). A reason this short is written at once."""
    return RetryReason(describe_error(exc)[:RETRY_REASON_CHARS])


def queue_wait(request: Any, started: float) -> float | None:
    """Seconds from the message's publish (its ``SENT_AT_HEADER``) to ``started``, or None for
    a message without it (sent by another client) or with a value that is not a time."""
    sent = getattr(request, SENT_AT_HEADER, None)
    if sent is None:
        sent = (getattr(request, "headers", None) or {}).get(SENT_AT_HEADER)
    if isinstance(sent, bool) or not isinstance(sent, int | float):
        return None
    return max(0.0, started - float(sent))


def observe_queue_wait(
    metrics: StageMetrics, stage: str, task: str, request: Any, started: float
) -> None:
    """Record the message's queue wait in ``paramine_queue_wait_seconds`` and log it with the
    task id (INFO, beside Celery's own received/succeeded lines)."""
    wait = queue_wait(request, started)
    if wait is None:
        return
    metrics.queue_wait.labels(stage).observe(wait)
    log.info("Task %s[%s] waited %.1f ms in its queue", task, request.id, 1000 * wait)


def _dead_letter(store: Store, stage: str, payload: Any, exc: BaseException, attempts: int) -> None:
    if isinstance(exc, SoftTimeLimitExceeded):
        reason = "TimeLimitExceeded: the message took longer than the soft time limit"
    elif isinstance(exc, TimeLimitExceeded):
        reason = f"TimeLimitExceeded: killed at the hard time limit ({exc.args[0]} s)"
    else:
        reason = describe_error(exc)
    # If the store itself is down this raises TransientError and the broker redelivers.
    store.record_dead_letter(
        stage=stage,
        payload=payload,
        error_type=exc.__class__.__name__,
        reason=reason,
        attempts=attempts,
    )
    # counted once the dead letter is written (counted before, a store that was down made
    # the alert fire for messages still being retried)
    stage_metrics().messages_failed.labels(stage, exc.__class__.__name__).inc()
