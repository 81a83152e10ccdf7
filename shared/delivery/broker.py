"""The Redis transport of paramine's queues: kombu's, except for a queue item that is no
message envelope.

Why: kombu's Redis transport pops a queue item (BRPOP) and parses it as a kombu envelope
before anything can look at it. An item that is not one (another program's LPUSH of plain
text or JSON, a truncated write) raised in the consumer's event loop: `Unrecoverable error:
JSONDecodeError`, the worker stopped consuming, and the item, already popped, was lost
(issue 39: a non-kombu queue item stops the consumer).

Here the BRPOP reply is checked first (a response callback on the channel's client, a
redis-py API). An item that is no envelope is handed on wrapped in one: its exact bytes as
the body (base64), content type :data:`NO_ENVELOPE_TYPE`, no headers, a new delivery tag.
From there it is a message like any other: held in kombu's unacked set (restored if the
worker dies), and dead-lettered with its bytes by :class:`shared.delivery.consumer.StageConsumer`
(``NoEnvelope``). ``make_celery`` names :class:`Transport` as the broker transport.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Callable
from typing import Any

from kombu.transport import redis as kombu_redis

NO_ENVELOPE_TYPE = "application/x-paramine-no-envelope"
# What kombu appends to a queue's list name for a priority level (its ``sep``).
PRIORITY_SEPARATOR = "\x06\x16"


def is_envelope(item: bytes | str) -> bool:
    """Whether ``item`` is a kombu envelope the transport can deliver: a JSON object with a
    ``properties`` object holding a string delivery tag, a string body (base64 where its
    ``body_encoding`` says so) and headers that are an object or absent."""
    try:
        envelope = json.loads(item)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        return False
    if not isinstance(envelope, dict):
        return False
    properties = envelope.get("properties")
    if not isinstance(properties, dict) or not isinstance(properties.get("delivery_tag"), str):
        return False
    if not isinstance(envelope.get("headers") or {}, dict):
        return False
    if not isinstance(properties.get("delivery_info") or {}, dict):
        return False
    body = envelope.get("body")
    if body is None:
        return True
    if not isinstance(body, str):
        return False
    if properties.get("body_encoding") == "base64":
        try:
            base64.b64decode(body, validate=True)
        except binascii.Error:
            return False
    elif properties.get("body_encoding") is not None:
        return False
    return all(
        isinstance(envelope.get(key), str | None) for key in ("content-type", "content-encoding")
    )


def wrapped_item(list_name: bytes | str, item: bytes | str) -> bytes:
    """A kombu envelope carrying ``item``'s exact bytes, addressed to the queue the item was
    popped from (``list_name`` without a priority suffix)."""
    name = list_name.decode("utf-8", "replace") if isinstance(list_name, bytes) else list_name
    queue = name.rsplit(PRIORITY_SEPARATOR, 1)[0]
    raw = item if isinstance(item, bytes) else item.encode("utf-8", "surrogateescape")
    envelope = {
        "body": base64.b64encode(raw).decode("ascii"),
        "content-encoding": "binary",
        "content-type": NO_ENVELOPE_TYPE,
        "headers": {},
        "properties": {
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
            "delivery_info": {"exchange": queue, "routing_key": queue},
            "delivery_mode": 2,
            "priority": 0,
        },
    }
    return json.dumps(envelope).encode("ascii")


def checked_brpop(previous: Callable[..., Any] | None) -> Callable[..., Any]:
    """A BRPOP response callback: ``previous``'s reply, with an item that is no envelope
    replaced by :func:`wrapped_item`."""

    def callback(response: Any, **options: Any) -> Any:
        reply = previous(response, **options) if previous is not None else response
        if not reply:
            return reply
        list_name, item = reply
        if is_envelope(item):
            return reply
        return (list_name, wrapped_item(list_name, item))

    return callback


class Channel(kombu_redis.Channel):
    """kombu's Redis channel whose BRPOP replies are checked (:func:`checked_brpop`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[no-untyped-call]
        client = self.client  # the one BRPOP reads on (kombu: "used to publish, BRPOP etc.")
        previous = client.response_callbacks.get("BRPOP")
        client.set_response_callback("BRPOP", checked_brpop(previous))


class Transport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
