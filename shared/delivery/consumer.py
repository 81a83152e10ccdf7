"""The worker's consumer: a message it cannot run is kept as a dead letter, not dropped.

Why: Celery's consumer logs a message whose body its serializer cannot decode (JSON that is
not UTF-8, truncated JSON) and acks it: the message was gone, with no dead letter and no count
(issue 39: undecodable bytes met by a consumer). So it does with a message that is no task
message (no ``task`` header: another client's), one naming a task this worker does not have
(a producer of another version during a rolling upgrade), one its task protocol cannot
read, and a queue item that is no message envelope at all (wrapped in one by
:mod:`shared.delivery.broker`). Here each one's bytes, content type and headers are written to the
dead-letter table with the reason, counted in ``paramine_messages_rejected_total{stage}``,
and only then acked. If the store cannot take the letter the message goes back on its
queue, so nothing is lost either way.

``make_celery`` names :class:`StageConsumer` as ``worker_consumer``; the consumer runs in the
worker's parent process (the pool's children never see an undecodable message).
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

from celery.worker.consumer import Consumer

from shared.delivery.worker import worker_store
from shared.metrics import stage_metrics

log = logging.getLogger(__name__)

QUEUE_PREFIX = "paramine."


def stage_of(message: Any) -> str:
    """The stage whose queue (``paramine.<stage>``) delivered ``message``; else ``unknown``."""
    delivery = getattr(message, "delivery_info", None) or {}
    key = str(delivery.get("routing_key") or "")
    return key[len(QUEUE_PREFIX) :] if key.startswith(QUEUE_PREFIX) else "unknown"


def undecodable_payload(message: Any) -> dict[str, Any]:
    """What the dead letter keeps of a message that could not be decoded: its body's exact
    bytes (base64), its content type and encoding, and its headers."""
    body = message.body
    raw = body if isinstance(body, bytes) else str(body).encode("utf-8", "surrogateescape")
    return {
        "body_base64": base64.b64encode(raw).decode("ascii"),
        "content_type": message.content_type,
        "content_encoding": message.content_encoding,
        "headers": dict(message.headers or {}),
    }


# The error types of the letters this consumer writes: their payload is the kept message.
CONSUMER_LETTERS = frozenset(
    {"DecodeError", "NoEnvelope", "UnknownMessage", "UnknownTask", "InvalidTask"}
)


def kept_stage_message(payload: Any) -> dict[str, Any] | None:
    """The stage message inside a letter this consumer wrote, for ``dead-letters retry``: a
    JSON task body (``[args, kwargs, embed]``) whose one argument is a JSON object; None when
    the kept bytes hold no such thing (not JSON, not UTF-8, a pickle, no single payload)."""
    if not isinstance(payload, dict) or payload.get("content_type") != "application/json":
        return None
    try:
        body = json.loads(base64.b64decode(str(payload.get("body_base64", "")), validate=True))
    except ValueError:  # binascii.Error, UnicodeDecodeError and JSONDecodeError among them
        return None
    if not isinstance(body, list) or not body or not isinstance(body[0], list):
        return None
    args = body[0]
    kwargs = body[1] if len(body) > 1 else {}
    if len(args) != 1 or kwargs or not isinstance(args[0], dict):
        return None
    return args[0]


def decode_reason(message: Any, exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__ or exc
    return (
        f"{exc.__class__.__name__}: the message body is not valid {message.content_type} "
        f"({cause.__class__.__name__}: {cause})"
    )


class StageConsumer(Consumer):  # type: ignore[misc]
    """Celery's consumer, except that a message it cannot run is dead-lettered, not dropped."""

    def on_decode_error(self, message: Any, exc: Exception) -> None:
        # lazy: redis-py (the broker's transport) stays off dead-letters retry, which reads
        # this module's letters without Redis
        from shared.delivery.broker import NO_ENVELOPE_TYPE

        if message.content_type == NO_ENVELOPE_TYPE:  # wrapped by shared.delivery.broker
            reason = "NoEnvelope: the queue item is no message envelope (another program's?)"
            self._dead_letter(message, "NoEnvelope", reason, "cannot read (no envelope)")
            return
        self._dead_letter(message, "DecodeError", decode_reason(message, exc), "cannot decode")

    def on_unknown_message(self, body: Any, message: Any) -> None:
        reason = "UnknownMessage: no task header; not a Celery task message"
        self._dead_letter(message, "UnknownMessage", reason, "cannot run (no task message)")

    def on_unknown_task(self, body: Any, message: Any, exc: Exception) -> None:
        name = (message.headers or {}).get("task")
        reason = f"UnknownTask: this worker has no task {str(name)[:200]!r} (another version?)"
        self._dead_letter(message, "UnknownTask", reason, "cannot run (unknown task)")

    def on_invalid_task(self, body: Any, message: Any, exc: Exception) -> None:
        reason = f"InvalidTask: {exc.__class__.__name__}: {str(exc)[:500]}"
        self._dead_letter(message, "InvalidTask", reason, "cannot run (invalid task message)")

    def _dead_letter(self, message: Any, error_type: str, reason: str, what: str) -> None:
        stage = stage_of(message)
        try:
            worker_store().record_dead_letter(
                stage=stage,
                payload=undecodable_payload(message),
                error_type=error_type,
                reason=reason,
                attempts=1,
            )
        except Exception as failure:  # the store away, or anything else: the consumer lives on
            # Back on its queue, taken again later: kept once the store takes it.
            log.error("%s could not dead-letter a message it %s: %r", stage, what, failure)
            message.reject(requeue=True)
            return
        stage_metrics().messages_rejected.labels(stage).inc()
        log.error("%s dead-lettered a message it %s: %s", stage, what, reason)
        message.ack()
