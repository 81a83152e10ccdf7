"""Gateway protections: API keys (constant-time), a body-size limit and per-key rate limiting."""

from __future__ import annotations

import contextlib
import hmac
import threading
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def key_matches(given: str | None, expected: str | None) -> bool:
    """True when no key is configured, or the given key equals it (constant-time compare)."""
    if not expected:
        return True
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class RateLimiter:
    """Token bucket per client key: ``per_minute`` requests, refilled continuously."""

    def __init__(self, per_minute: int) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    # Buckets kept before the full ones (refilled: the same as a new bucket) are dropped.
    max_buckets = 10_000

    def allow(self, key: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._buckets) >= self.max_buckets:
                self._buckets = {
                    client: (tokens, last)
                    for client, (tokens, last) in self._buckets.items()
                    if tokens + (now - last) * self.rate < self.capacity
                }
            tokens, last = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                return False
            self._buckets[key] = (tokens - 1.0, now)
            return True


class BodySizeLimit:
    """ASGI middleware: refuse bodies over ``max_bytes`` with 413 before they are buffered."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        received = 0
        too_large = started = False

        async def limited_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise _BodyTooLarge
            return message

        async def guarded_send(message: Message) -> None:
            # Once the body passed the limit, the app's own answer is dropped: FastAPI turns
            # the exception raised in its body parsing into 400 "error parsing the body".
            nonlocal started
            if too_large and not started:
                return
            started = True
            await send(message)

        with contextlib.suppress(_BodyTooLarge):  # answered with 413 below
            await self.app(scope, limited_receive, guarded_send)
        if too_large and not started:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = (
            b'{"detail":"request body exceeds the configured limit of '
            + str(self.max_bytes).encode()
            + b' bytes (PARAMINE_MAX_BODY_BYTES)"}'
        )
        headers: list[Any] = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _BodyTooLarge(Exception):
    """Raised inside the app when the streamed body passes the limit."""
