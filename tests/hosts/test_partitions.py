"""Network partitions across hosts: a worker host cut off and healed after 60 s, a worker host
cut off for good, the gateway cut off from Redis while requests come in. Page pairs go in
through the gateway (a 503 or a dropped connection is sent again, as ``paramine submit`` does);
each run ends with every pair's sentence pairs stored exactly once (the embedded run's), the
queues empty and nothing left unacked.

With ``PARAMINE_HOSTS_TIMINGS=<file>`` each case appends its recovery times (seconds from the
cut to the pairs in flight at the cut being stored, and to the last pair stored) as a JSON
line: ``python -m benchmarks.system.hosts_recovery`` runs these tests and writes them up.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chaos.conftest import page_pairs
from tests.chaos.jobs import (
    completed,
    direct_store,
    in_flight_pair_ids,
    progress_rows,
    wait_until,
)
from tests.hosts.client import BATCH, assert_complete, post_pairs
from tests.hosts.conftest import HostsCluster

pytestmark = pytest.mark.hosts

HEAL_AFTER = 60.0


def stored_pair_ids(cluster: HostsCluster) -> set[str]:
    """Page pairs whose sentence pairs are stored (sentence_align's progress rows)."""
    return {row["pair_id"] for row in progress_rows(direct_store(cluster), "sentence_align")}


class Recovery:
    """Times from a cut, watched from the cut on in a thread: to every message held at the cut
    being acked (a cut-off worker's only after its lease ran out and another worker redid it),
    to the pairs in flight at the cut being stored (possibly before the cut: stored, not yet
    acked), and to the last pair stored."""

    def __init__(self, cluster: HostsCluster, job_id: str, pairs: int) -> None:
        self.cluster, self.job_id, self.pairs = cluster, job_id, pairs
        self.in_flight: set[str] = set()
        self.held: set[bytes | str] = set()
        self.cut_at = 0.0
        self.times: dict[str, float] = {}
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def cut(self, action: Any) -> None:
        self.in_flight = in_flight_pair_ids(self.cluster)
        self.held = set(self.cluster.redis_client().hkeys("unacked"))
        self.cut_at = time.monotonic()
        action()
        self._watcher.start()

    def _watch(self) -> None:
        client = self.cluster.redis_client()
        deadline = self.cut_at + 600
        while time.monotonic() < deadline:
            now = time.monotonic() - self.cut_at
            if "held_acked" not in self.times and not self.held & set(client.hkeys("unacked")):
                self.times["held_acked"] = now  # every message held at the cut acked
            if "in_flight_stored" not in self.times and self.in_flight <= stored_pair_ids(
                self.cluster
            ):
                self.times["in_flight_stored"] = now
            if len(self.times) == 2 and completed(self.cluster, self.job_id) >= self.pairs:
                self.times["last_pair_stored"] = now
                return
            time.sleep(0.5)

    def wait(self, timeout: float) -> dict[str, float]:
        self._watcher.join(timeout)
        if "last_pair_stored" not in self.times:
            raise TimeoutError(f"{self.job_id}: not every pair stored {timeout} s after the cut")
        return self.times


def record(case: str, pairs: int, in_flight: int, times: dict[str, float]) -> None:
    path = os.environ.get("PARAMINE_HOSTS_TIMINGS")
    if path:
        line = {"case": case, "pairs": pairs, "in_flight_at_cut": in_flight, **times}
        with Path(path).open("a") as handle:
            handle.write(json.dumps(line) + "\n")


def cut_a_busy_worker_host(
    cluster: HostsCluster, job_id: str, pairs: list[dict[str, Any]], role: str
) -> Recovery:
    """Submit, wait until the run is under way with messages in flight, cut ``role`` off."""
    post_pairs(cluster, job_id, pairs)
    client = cluster.redis_client()
    wait_until(lambda: completed(cluster, job_id) >= 10, 180, "10 pairs done")
    wait_until(lambda: client.hlen("unacked") >= 2, 60, "messages in flight")
    recovery = Recovery(cluster, job_id, len(pairs))
    recovery.cut(lambda: cluster.network.cut(cluster.host(role)))
    assert recovery.in_flight, "no message was in flight at the cut"
    return recovery


def test_a_worker_host_cut_off_for_a_minute_loses_nothing(
    cluster: HostsCluster, tmp_path: Path
) -> None:
    job_id, pairs = "hosts-heal", page_pairs(100, seed=11)
    recovery = cut_a_busy_worker_host(cluster, job_id, pairs, "w1")
    time.sleep(HEAL_AFTER)
    # done elsewhere while the host is still cut off: its leases ran out (10 s) and the
    # transaction it left open was ended (30 s), well within the minute
    assert recovery.in_flight <= stored_pair_ids(cluster)
    cluster.network.heal(cluster.host("w1"))
    times = recovery.wait(timeout=240)
    assert_complete(cluster, job_id, pairs, tmp_path)
    # the healed host's workers are still there and consume again
    assert all(cluster.processes[key].poll() is None for key in cluster.workers_on("w1"))
    record("worker host cut, healed after 60 s", len(pairs), len(recovery.in_flight), times)


def test_a_worker_host_cut_off_for_good_loses_nothing(
    cluster: HostsCluster, tmp_path: Path
) -> None:
    job_id, pairs = "hosts-gone", page_pairs(100, seed=12)
    recovery = cut_a_busy_worker_host(cluster, job_id, pairs, "w2")
    times = recovery.wait(timeout=300)
    assert_complete(cluster, job_id, pairs, tmp_path)
    cluster.kill_host("w2")  # never came back: its workers are replaced by the next test
    record("worker host cut for good", len(pairs), len(recovery.in_flight), times)


def test_the_gateway_cut_off_from_redis_answers_503_and_resent_requests_complete(
    cluster: HostsCluster, tmp_path: Path
) -> None:
    job_id, pairs = "hosts-gateway", page_pairs(100, seed=13)
    gateway, redis_address = cluster.host("gw"), cluster.network.redis_address
    post_pairs(cluster, job_id, pairs[:20])
    statuses: list[int] = []
    recovery = Recovery(cluster, job_id, len(pairs))
    recovery.cut(lambda: cluster.network.block(gateway, redis_address))
    sender = threading.Thread(
        target=post_pairs, args=(cluster, job_id, pairs[20:], statuses), daemon=True
    )
    sender.start()
    try:
        wait_until(lambda: 503 in statuses, 60, "a 503 from the gateway")
        ready = httpx.get(f"{cluster.gateway}/readyz", timeout=30)
        assert ready.status_code == 503  # taken out of service by a readiness probe
        time.sleep(20)
    finally:
        cluster.network.unblock(gateway, redis_address)
    sender.join(300)
    assert not sender.is_alive()
    assert statuses.count(202) == len(pairs[20:]) // BATCH
    assert set(statuses) <= {0, 202, 503}, statuses
    times = recovery.wait(timeout=240)
    assert_complete(cluster, job_id, pairs, tmp_path)
    record("gateway cut from Redis for about 30 s", len(pairs), len(recovery.in_flight), times)
