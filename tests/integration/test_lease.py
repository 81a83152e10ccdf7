"""Lease renewal against kombu's own Redis transport: a renewed message survives another
consumer's restore sweep, an unrenewed one of the same age is put back on its queue, and an
acked message is not brought back by a late renewal; pool children forked while the renewal
thread runs take no lock held."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import sqlalchemy as sa
from kombu.connection import Connection

from shared.delivery.lease import UNACKED_INDEX, renew
from shared.store import engine as store_engine
from shared.store.engine import create_tables, make_engine

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


def test_pool_children_forked_while_the_lease_thread_renews_can_renew_and_store(
    redis_url: str, prefix: str, tmp_path: Path
) -> None:
    """The lease renewal is the one thread of a worker's consumer, the process that forks
    the pool's children at any moment; children forked while it renews (and while another
    thread holds the store's schema lock, as a first store use does) take neither lock
    held: each renews with its own client and creates tables within its budget."""
    client = redis.Redis.from_url(redis_url)
    index = prefix + UNACKED_INDEX
    client.zadd(index, {"tag-1": 0.0})
    stop, release, held = threading.Event(), threading.Event(), threading.Event()

    def renewing() -> None:  # run_forever's loop, without its interval
        while not stop.is_set():
            renew(client, ["tag-1"], time.time(), key=index)

    def creating_tables() -> None:
        with store_engine._schema_lock:
            held.set()
            release.wait(60)

    threads = [threading.Thread(target=t, daemon=True) for t in (renewing, creating_tables)]
    for thread in threads:
        thread.start()
    assert held.wait(10)
    statuses = []
    try:
        for number in range(20):
            pid = os.fork()
            if pid == 0:  # a pool child: its own client, its own store
                signal.alarm(10)
                code = 3
                try:
                    own = redis.Redis.from_url(redis_url, socket_timeout=5)
                    renewed = renew(own, ["tag-1"], time.time(), key=index)
                    tables = sa.MetaData()
                    sa.Table("lease_fork", tables, sa.Column("id", sa.Integer, primary_key=True))
                    engine = make_engine(f"sqlite:///{tmp_path / f'child-{number}.db'}")
                    create_tables(engine, tables)
                    code = 0 if renewed == 1 else 2
                finally:
                    os._exit(code)
            statuses.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    finally:
        stop.set()
        release.set()
        for thread in threads:
            thread.join(10)
    assert statuses == [0] * 20
