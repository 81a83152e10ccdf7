"""The worker's consumer: a message whose body cannot be decoded is kept as a dead letter.

Why: Celery's consumer logs a message whose body its serializer cannot decode (JSON that is
not UTF-8, truncated JSON) and acks it: the message was gone, with no dead letter and no count
(issue 39: undecodable bytes met by a consumer). Here its bytes, content type and headers are
written to the dead-letter table with the reason, counted in
``paramine_messages_rejected_total{stage}``, and only then acked. If the store cannot take the
letter the message goes back on its queue, so nothing is lost either way.

``make_celery`` names :class:`StageConsumer` as ``worker_consumer``; the consumer runs in the
worker's parent process (the pool's children never see an undecodable message).
"""

from __future__ import annotations

import base64
import logging
from typing import Any

from celery.worker.consumer import Consumer

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


def decode_reason(message: Any, exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__ or exc
    return (
        f"{exc.__class__.__name__}: the message body is not valid {message.content_type} "
        f"({cause.__class__.__name__}: {cause})"
    )


class StageConsumer(Consumer):  # type: ignore[misc]
    """Celery's consumer, except that an undecodable message is dead-lettered, not dropped."""

    def on_decode_error(self, message: Any, exc: Exception) -> None:
        from shared.metrics import stage_metrics
        from shared.worker import worker_store

        stage = stage_of(message)
        reason = decode_reason(message, exc)
        try:
            worker_store().record_dead_letter(
                stage=stage,
                payload=undecodable_payload(message),
                error_type="DecodeError",
                reason=reason,
                attempts=1,
            )
        except Exception as failure:  # the store away, or anything else: the consumer lives on
            # Back on its queue, taken again later: kept once the store takes it.
            log.error("%s could not dead-letter an undecodable message: %r", stage, failure)
            message.reject(requeue=True)
            return
        stage_metrics().messages_rejected.labels(stage).inc()
        log.error("%s dead-lettered a message it cannot decode: %s", stage, reason)
        message.ack()
