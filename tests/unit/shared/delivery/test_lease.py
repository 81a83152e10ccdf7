"""Lease renewal: which delivery tags a worker holds (Celery's worker state)."""

from __future__ import annotations

from types import SimpleNamespace

from celery.worker import state

from shared.delivery.lease import held_delivery_tags


class FakeRequest:
    """What the renewal thread reads of a Celery request: its message's delivery tag."""

    def __init__(self, tag: str | None) -> None:
        self.message = SimpleNamespace(delivery_tag=tag)


def test_tags_of_reserved_running_and_scheduled_requests_are_held() -> None:
    reserved, running, scheduled, untagged = (
        FakeRequest("r"),
        FakeRequest("a"),
        FakeRequest("s"),
        FakeRequest(None),
    )
    state.reserved_requests.update((reserved, running, untagged))
    state.active_requests.add(running)
    state.scheduled_requests.add(scheduled)
    try:
        assert held_delivery_tags() == {"r", "a", "s"}
    finally:
        for requests in (state.reserved_requests, state.active_requests, state.scheduled_requests):
            for request in (reserved, running, scheduled, untagged):
                requests.discard(request)
    assert held_delivery_tags() == set()
