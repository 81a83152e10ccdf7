"""``GET /v1/jobs`` and ``GET /v1/jobs/{id}`` on a temp SQLite store holding two jobs."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from shared.config import Settings
from shared.store import Store

# Named so that the newer job also sorts first by id: the order holds on a clock too coarse
# to tell the two jobs' creation apart (ties are listed by id).
OLDER, NEWER = "job-b-done", "job-a-running"


def _sentence(pair_id: str) -> dict[str, Any]:
    return {
        "id": f"sp-{pair_id}",
        "pair_id": pair_id,
        "kind": "translation",
        "src_url": "https://e.org/en/a",
        "tgt_url": "https://e.org/de/a",
        "site": "e.org",
        "src_lang": "en",
        "tgt_lang": "de",
        "src_text": "Hello.",
        "tgt_text": "Hallo.",
        "score": 0.9,
        "bead": "[0]:[0]",
        "chunk": 0,
        "position": 0,
    }


@pytest.fixture
def client(embedded_url: str) -> TestClient:
    """Two jobs: the older done (its one pair aligned), the newer running (no pair done)."""
    store = Store(embedded_url)
    store.record_job(OLDER, [("pp-done", "https://e.org/en/a", "https://e.org/de/a")], "t")
    store.add_sentence_pairs([_sentence("pp-done")], pair_id="pp-done", stage="sentence_align")
    pairs = [("pp-1", "https://e.org/en/1", "https://e.org/de/1"), ("pp-2", "x", "y")]
    store.record_job(NEWER, pairs, "t")
    return TestClient(create_app(Settings()))


def _ids(answer: dict[str, Any]) -> list[str]:
    return [job["job_id"] for job in answer["items"]]


def test_jobs_are_listed_newest_first_as_each_job_is_given(client: TestClient) -> None:
    answer = client.get("/v1/jobs").json()
    assert _ids(answer) == [NEWER, OLDER]
    assert (answer["limit"], answer["offset"], answer["next_offset"]) == (50, 0, None)
    for job in answer["items"]:
        assert job == client.get(f"/v1/jobs/{job['job_id']}").json()
    newer, older = answer["items"]
    assert (newer["state"], newer["pairs"], newer["completed"]) == ("running", 2, 0)
    assert (older["state"], older["completed"], older["sentence_pairs"]) == ("done", 1, 1)


def test_jobs_are_paged(client: TestClient) -> None:
    first = client.get("/v1/jobs", params={"limit": 1}).json()
    assert _ids(first) == [NEWER] and first["next_offset"] == 1
    rest = client.get("/v1/jobs", params={"limit": 1, "offset": first["next_offset"]}).json()
    assert _ids(rest) == [OLDER] and rest["next_offset"] is None
    assert client.get("/v1/jobs", params={"offset": 2}).json()["items"] == []


def test_jobs_are_filtered_by_state(client: TestClient) -> None:
    assert _ids(client.get("/v1/jobs", params={"state": "done"}).json()) == [OLDER]
    running = client.get("/v1/jobs", params={"state": "running"}).json()
    assert _ids(running) == [NEWER] and running["next_offset"] is None
    # the offset counts the jobs in the state
    assert client.get("/v1/jobs", params={"state": "done", "offset": 1}).json()["items"] == []
    assert client.get("/v1/jobs", params={"state": "waiting"}).json()["items"] == []


def test_a_state_is_looked_for_past_the_first_jobs_read(
    client: TestClient, embedded_url: str
) -> None:
    # jobs are read limit + 1 at a time: the one done job is behind four newer running ones
    store = Store(embedded_url)
    for number in range(3):
        store.record_job(f"job-0{number}", [(f"pp-0{number}", "x", "y")], "t")
    done = client.get("/v1/jobs", params={"state": "done", "limit": 1}).json()
    assert _ids(done) == [OLDER] and done["next_offset"] is None
    running = client.get("/v1/jobs", params={"state": "running", "limit": 2, "offset": 2})
    assert len(running.json()["items"]) == 2 and running.json()["next_offset"] is None


@pytest.mark.parametrize(
    "params", [{"limit": 0}, {"limit": 1001}, {"offset": -1}, {"state": "finished"}]
)
def test_a_bad_listing_parameter_is_a_422(client: TestClient, params: dict[str, Any]) -> None:
    assert client.get("/v1/jobs", params=params).status_code == 422


def test_the_limit_goes_up_to_a_thousand(client: TestClient) -> None:
    assert _ids(client.get("/v1/jobs", params={"limit": 1000}).json()) == [NEWER, OLDER]


def test_an_unknown_job_is_404(client: TestClient) -> None:
    assert client.get("/v1/jobs/nope").status_code == 404
