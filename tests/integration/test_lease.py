"""Lease renewal against kombu's own Redis transport: a renewed message survives another
consumer's restore sweep, an unrenewed one of the same age is put back on its queue, and an
acked message is not brought back by a late renewal."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
import redis
from kombu.connection import Connection

from shared.lease import UNACKED_INDEX, renew

AGE = 100.0  # seconds: both messages look delivered long before the visibility timeout


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    """Every key of the test under its own prefix on the test Redis database."""
    name = f"lease-{uuid.uuid4().hex[:8]}:"
    yield name
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(f"{name}*"):
        client.delete(key)


def test_a_renewed_lease_survives_a_restore_sweep_and_an_expired_one_does_not(
    redis_url: str, prefix: str
) -> None:
    options = {"visibility_timeout": 30, "global_keyprefix": prefix}
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    index, unacked = prefix + UNACKED_INDEX, prefix + "unacked"
    with Connection(redis_url, transport_options=options) as worker:  # type: ignore[no-untyped-call]
        queue = worker.SimpleQueue("lease-test")
        queue.put({"n": 1})
        queue.put({"n": 2})
        kept, lost = queue.get(timeout=5), queue.get(timeout=5)
        assert client.zcard(index) == 2 and client.hlen(unacked) == 2
        old = time.time() - AGE
        client.zadd(index, {kept.delivery_tag: old, lost.delivery_tag: old})

        assert renew(client, [kept.delivery_tag], time.time(), key=index) == 1

        with Connection(redis_url, transport_options=options) as other:  # type: ignore[no-untyped-call]
            other.default_channel.qos.restore_visible(num=100, interval=1)
        assert set(client.hkeys(unacked)) == {kept.delivery_tag}
        back = queue.get(timeout=5)
        assert back.payload == lost.payload

        kept.ack()
        back.ack()
        assert renew(client, [kept.delivery_tag], time.time(), key=index) == 0
        assert client.zscore(index, kept.delivery_tag) is None
        queue.close()
