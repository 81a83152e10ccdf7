"""``submit --wait``'s poll (shared/gateway_client.wait_for_job): the job's status is asked
until nothing of it is queued. The gateway is an httpx transport answering a scripted
sequence (the poll's logic, not the gateway, is under test; the README's distributed tour
runs it against a real gateway and workers)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from shared.intake import gateway_client
from shared.intake.gateway_client import GatewayRefused, wait_for_job


def scripted(answers: list[tuple[int, dict[str, object]]]) -> tuple[httpx.Client, list[str]]:
    asked: list[str] = []
    replies: Iterator[tuple[int, dict[str, object]]] = iter(answers)

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        code, body = next(replies)
        return httpx.Response(code, json=body)

    return httpx.Client(base_url="http://gw", transport=httpx.MockTransport(answer)), asked


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gateway_client, "wait", lambda seconds: None)


def test_waits_through_unknown_and_running_until_done() -> None:
    client, asked = scripted(
        [
            (404, {"detail": "no job"}),  # right after submit the job may not be there yet
            (200, {"state": "running", "pairs": 4, "completed": 1}),
            (503, {"detail": "store away"}),
            (200, {"state": "done", "pairs": 4, "completed": 4}),
        ]
    )
    waited = wait_for_job(client, "job1", timeout=60)
    assert waited.finished and waited.status["completed"] == 4
    assert asked == ["/v1/jobs/job1"] * 4


@pytest.mark.parametrize("state", ["waiting", "done-with-errors"])
def test_pages_waiting_for_a_counterpart_and_errors_end_the_wait(state: str) -> None:
    client, _ = scripted([(200, {"state": state})])
    assert wait_for_job(client, "job1", timeout=60).finished


def test_a_job_still_running_when_time_runs_out_is_not_finished() -> None:
    client, asked = scripted([(200, {"state": "running"})] * 3)
    waited = wait_for_job(client, "job1", timeout=0)
    assert not waited.finished and waited.status["state"] == "running" and len(asked) == 1


def test_an_error_answer_is_refused_at_once() -> None:
    client, _ = scripted([(401, {"detail": "bad key"})])
    with pytest.raises(GatewayRefused, match="401"):
        wait_for_job(client, "job1", timeout=60)
