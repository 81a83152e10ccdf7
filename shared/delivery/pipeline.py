"""The one code path: validate a message, run a stage handler, route what it emits.

``run_stage`` is what both a Celery task and the in-process runner call. ``LocalRunner``
moves messages between stages in-process (embedded mode, no Redis); ``CelerySender`` puts
them on the stages' Redis queues (distributed mode). Nothing else differs between modes.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from shared.delivery.ordering import never_deferring
from shared.errors import InvalidInput, TransientError
from shared.metrics import StageMetrics
from shared.schemas import Message, parse_message
from shared.store import Store

Outgoing = tuple[str, Message]
Handler = Callable[[Any, Store], list[Outgoing]]


class Sender(Protocol):
    """Moves a message to a stage's queue."""

    def send(self, stage: str, message: Message) -> None: ...


def run_stage(
    stage: str,
    payload: Any,
    handler: Handler,
    store: Store,
    metrics: StageMetrics,
    *,
    observed: bool = False,
) -> list[Outgoing]:
    """Validate ``payload`` for ``stage``, run its handler, count what goes in and out
    (``observed``: the caller already counts it in, inside its ``metrics.observe``)."""
    with contextlib.nullcontext() if observed else metrics.observe(stage):
        message = parse_message(stage, payload)
        outgoing = handler(message, store)
    metrics.messages_out.labels(stage).inc(len(outgoing))
    return outgoing


def describe_error(exc: BaseException) -> str:
    """The reason written to a dead-letter record: type and message, never a traceback."""
    text = str(exc) or exc.__class__.__name__
    return f"{exc.__class__.__name__}: {text}"


@dataclass
class RunSummary:
    """What an in-process run did, per stage."""

    received: Counter[str] = field(default_factory=Counter)
    emitted: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    failures: list[tuple[str, str]] = field(default_factory=list)


class LocalRunner:
    """Runs stage handlers in-process, in order, against a store (embedded mode)."""

    def __init__(
        self,
        handlers: Mapping[str, Handler],
        store: Store,
        metrics: StageMetrics,
        *,
        transient_attempts: int = 3,
        on_message: Callable[[str], None] | None = None,
    ) -> None:
        self.handlers = handlers
        self.store = store
        self.metrics = metrics
        self.transient_attempts = transient_attempts
        self.on_message = on_message

    def run(
        self, stage: str, payloads: Iterable[Any], summary: RunSummary | None = None
    ) -> RunSummary:
        """Process each payload and everything it leads to before taking the next one."""
        summary = summary or RunSummary()
        # In this order every earlier page pair of a site has been through each stage (or
        # failed) when a later one reaches it: nothing to wait for (shared.delivery.ordering).
        with never_deferring():
            for payload in payloads:
                pending: deque[tuple[str, Any]] = deque([(stage, payload)])
                while pending:
                    current_stage, current = pending.popleft()
                    for next_stage, message in self._process(current_stage, current, summary):
                        pending.append((next_stage, message.model_dump(mode="json")))
        return summary

    def _process(self, stage: str, payload: Any, summary: RunSummary) -> list[Outgoing]:
        summary.received[stage] += 1
        started = time.perf_counter()
        try:
            for attempt in range(1, self.transient_attempts + 1):
                try:
                    outgoing = run_stage(
                        stage, payload, self.handlers[stage], self.store, self.metrics
                    )
                    summary.emitted[stage] += len(outgoing)
                    return outgoing
                except TransientError as exc:
                    if attempt == self.transient_attempts:
                        self._dead_letter(stage, payload, exc, attempt, summary)
                        return []
                    self.metrics.messages_retried.labels(stage).inc()
                    time.sleep(min(2.0**attempt * 0.1, 2.0))
                except InvalidInput as exc:
                    self._dead_letter(stage, payload, exc, attempt, summary)
                    return []
                except Exception as exc:
                    self._dead_letter(stage, payload, exc, attempt, summary)
                    return []
            raise AssertionError("unreachable: the last attempt returns or dead-letters")
        finally:
            summary.seconds[stage] += time.perf_counter() - started
            if self.on_message is not None:
                self.on_message(stage)

    def _dead_letter(
        self, stage: str, payload: Any, exc: BaseException, attempts: int, summary: RunSummary
    ) -> None:
        reason = describe_error(exc)
        summary.failed[stage] += 1
        summary.failures.append((stage, reason))
        self.metrics.messages_failed.labels(stage, exc.__class__.__name__).inc()
        self.store.record_dead_letter(
            stage=stage,
            payload=payload,
            error_type=exc.__class__.__name__,
            reason=reason,
            attempts=attempts,
        )


# A stage forwards its output after storing it and before its own message is acked: keep
# publishing through a broker restart (about a minute) so the next stage's message is not lost.
# The policy covers a publish on an open connection; opening one gives up after Celery's
# broker_connection_timeout (4 s; longer with Redis away: benchmarks/results/tuning_history.md,
# shared/delivery/pipeline.py), so CelerySender tries the whole send again until
# PUBLISH_PATIENCE seconds have passed.
PUBLISH_PATIENCE = 60.0
PUBLISH_RETRY_POLICY = {
    "max_retries": 40,
    "interval_start": 0.2,
    "interval_step": 0.5,
    "interval_max": 2.0,
}
# The gateway's: a request whose publish cannot get through is answered 503 soon (the client
# sends it again), instead of holding its connection for the minute a stage waits.
QUICK_RETRY_POLICY = {**PUBLISH_RETRY_POLICY, "max_retries": 2}


# The message header holding its publish time (Unix seconds): the worker's queue-wait metric.
SENT_AT_HEADER = "paramine_sent_at"


class CelerySender:
    """Puts messages on the stages' Redis queues (distributed mode)."""

    def __init__(
        self,
        app: Any,
        patience: float | None = None,
        retry_policy: dict[str, float] | None = None,
    ) -> None:
        self.app = app
        self.patience = patience  # None: PUBLISH_PATIENCE
        self.retry_policy = retry_policy or PUBLISH_RETRY_POLICY

    def send(self, stage: str, message: Message) -> None:
        self.send_payload(stage, message.model_dump(mode="json"))

    def send_payload(self, stage: str, payload: dict[str, Any]) -> None:
        """Send an already serialised message (a dict of JSON types), trying again for
        ``patience`` (``PUBLISH_PATIENCE``) seconds while the broker cannot be reached."""
        # lazy: Celery and kombu load with the first message sent to a broker, so in-process
        # runs (paramine process) never import them
        from kombu.exceptions import OperationalError

        from shared.delivery.celery_app import queue_name, task_name

        deadline = time.monotonic() + (PUBLISH_PATIENCE if self.patience is None else self.patience)
        pause = 0.5
        while True:
            try:
                self.app.send_task(
                    task_name(stage),
                    args=[payload],
                    queue=queue_name(stage),
                    retry=True,
                    retry_policy=self.retry_policy,
                    argsrepr=args_label(payload),
                    headers={SENT_AT_HEADER: time.time()},
                )
                return
            except (OperationalError, OSError):
                if time.monotonic() + pause > deadline:
                    raise
                _pause(pause)
                pause = min(pause * 2, 4.0)


def _pause(seconds: float) -> None:
    time.sleep(seconds)


def args_label(payload: dict[str, Any]) -> str:
    """What a task message shows for its arguments (``argsrepr``): the job, not the page.

    Celery otherwise walks the whole payload (tens of KB of HTML or text) with its safe repr
    on every send, about a third of a millisecond, to keep its first kilobyte."""
    context = payload.get("context")
    job_id = context.get("job_id") if isinstance(context, dict) else payload.get("job_id")
    return f"(<message of job {str(job_id)[:64]}>,)"
