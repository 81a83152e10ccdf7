"""What the hosts tests do as a client: post page pairs through the gateway as ``paramine
submit`` does (sent again after a 503 or a dropped connection), and check a finished run."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from shared.schemas import PagePair
from tests.chaos.jobs import (
    assert_same_rows,
    direct_store,
    embedded_rows,
    rows_of,
    wait_for_job,
)
from tests.hosts.conftest import API_KEY, LEASE, HostsCluster

BATCH = 10  # page pairs per request


def post_pairs(
    cluster: HostsCluster,
    job_id: str,
    pairs: list[dict[str, Any]],
    statuses: list[int] | None = None,
) -> list[int]:
    """POST the pairs in batches through the gateway, each batch until it is accepted: after a
    503 (which must carry Retry-After) or a dropped connection it is sent again. The status
    of every attempt (0: no answer), appended to ``statuses`` as they come."""
    statuses = [] if statuses is None else statuses
    for start in range(0, len(pairs), BATCH):
        body = {"job_id": job_id, "pairs": pairs[start : start + BATCH]}
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                response = httpx.post(
                    f"{cluster.gateway}/v1/page-pairs",
                    json=body,
                    headers={"X-API-Key": API_KEY},
                    timeout=60,
                )
            except httpx.TransportError:
                statuses.append(0)
                time.sleep(1)
                continue
            statuses.append(response.status_code)
            if response.status_code == 202:
                break
            assert response.status_code == 503, response.text
            time.sleep(float(response.headers["Retry-After"]))
        else:
            raise TimeoutError(f"batch {start // BATCH} of {job_id} was never accepted")
    return statuses


def messages_of(job_id: str, pairs: list[dict[str, Any]]) -> list[PagePair]:
    return [PagePair.model_validate({"job_id": job_id, **pair}) for pair in pairs]


def assert_complete(
    cluster: HostsCluster, job_id: str, pairs: list[dict[str, Any]], tmp: Path
) -> None:
    """Queues empty, nothing unacked, the embedded run's rows exactly once, no dead letter."""
    messages = messages_of(job_id, pairs)
    wait_for_job(cluster, job_id, len(messages), timeout=180, quiet=LEASE)
    store = direct_store(cluster)
    assert_same_rows(rows_of(store, job_id), embedded_rows(job_id, messages, tmp))
    assert [letter for letter in store.list_dead_letters() if letter["job_id"] == job_id] == []
