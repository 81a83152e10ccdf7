"""The phrase table is computed by a paraphrase worker's periodic task; the gateway reads it."""

from __future__ import annotations

import time

import httpx
import pytest

from shared.config import Settings
from shared.delivery.celery_app import make_celery, queue_name
from shared.store import Store
from tests.integration.conftest import Cluster

pytestmark = pytest.mark.integration

OBSERVATIONS = [
    {
        "id": f"snapshot-test-{number}",
        "kind": "pc-mobile",
        "lang": "en",
        "src_text": f"the enormous {thing} stood there",
        "tgt_text": f"the gigantic {thing} stood there",
    }
    for number, thing in enumerate(("tower", "statue", "wall", "tree"))
]


def _pairs(cluster: Cluster) -> set[tuple[str, str]]:
    entries = httpx.get(
        f"{cluster.gateway}/v1/paraphrases/phrases",
        params={"q": "enormous", "limit": 1000},
        timeout=30,
    ).json()
    return {(entry["phrase"], entry["paraphrase"]) for entry in entries}


def test_the_worker_recomputes_and_the_gateway_only_reads(cluster: Cluster) -> None:
    Store(cluster.env["PARAMINE_DATABASE_URL"]).add_paraphrase_observations(OBSERVATIONS)
    assert ("enormous", "gigantic") not in _pairs(cluster)  # a query computes nothing
    app = make_celery(Settings(redis_url=cluster.env["PARAMINE_REDIS_URL"]))
    app.send_task("paramine.paraphrase.recompute", queue=queue_name("paraphrase"))
    deadline = time.monotonic() + 180
    while ("enormous", "gigantic") not in _pairs(cluster):
        assert time.monotonic() < deadline, "no phrase table snapshot within 180 s"
        assert cluster.processes["paraphrase"].poll() is None, "the paraphrase worker died"
        time.sleep(1)
