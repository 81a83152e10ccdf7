"""The worker's failure policy: InvalidInput at once, other failures after their retries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from prometheus_client import REGISTRY

from shared.config import QueueSettings, Settings, get_settings
from shared.delivery import worker as worker_module
from shared.delivery.celery_app import make_celery
from shared.delivery.pipeline import Outgoing
from shared.delivery.worker import define_stage_task, retries_allowed, retry_countdown
from shared.errors import InputTooLarge, InvalidInput, TransientError
from shared.schemas import PagePair
from shared.store import Store


def test_each_kind_of_failure_gets_its_number_of_retries() -> None:
    queue = QueueSettings(max_retries=8, failure_retries=3)
    assert retries_allowed(InvalidInput("bad page"), queue) == 0
    assert retries_allowed(InputTooLarge("huge page"), queue) == 0
    assert retries_allowed(TransientError("database away"), queue) == 8
    assert retries_allowed(RuntimeError("a bug"), queue) == 3
    assert retries_allowed(SoftTimeLimitExceeded(), queue) == 3


def test_backoff_doubles_up_to_its_cap() -> None:
    assert [retry_countdown(n, 5.0) for n in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]


@pytest.fixture
def worker_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    monkeypatch.setenv("PARAMINE_QUEUE__FAILURE_RETRIES", "2")
    monkeypatch.setenv("PARAMINE_QUEUE__RETRY_BACKOFF_MAX", "0")
    monkeypatch.setattr(worker_module, "_stores", {})  # the process store of this test's URL
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


def _pair(html: str) -> dict[str, Any]:
    page = {"lang": "en", "html": html}
    return PagePair.model_validate({"job_id": "j", "src": page, "tgt": page}).model_dump(
        mode="json"
    )


def test_the_real_task_retries_a_bug_then_dead_letters_it(worker_settings: Settings) -> None:
    """The stage task itself, run eagerly (retries execute in place) on a SQLite store."""
    calls: list[str] = []

    def handler(message: PagePair, store: Store) -> list[Outgoing]:
        calls.append(message.src.html)
        if message.src.html == "bad":
            raise InvalidInput("page is bad")
        raise RuntimeError("boom")

    app = make_celery(worker_settings)
    app.conf.task_always_eager = True
    process = define_stage_task(app, "tree_align", handler)

    process.apply(args=[_pair("bug")])
    process.apply(args=[_pair("bad")])

    assert calls == ["bug", "bug", "bug", "bad"]  # 1 + FAILURE_RETRIES attempts, then 1
    letters = {
        letter["error_type"]: letter
        for letter in Store(worker_settings.database_url).list_dead_letters()
    }
    assert letters["RuntimeError"]["attempts"] == 3
    assert letters["RuntimeError"]["reason"] == "RuntimeError: boom"
    assert letters["InvalidInput"]["attempts"] == 1


def test_a_message_without_exactly_one_payload_is_dead_lettered(
    worker_settings: Settings,
) -> None:
    # no argument or two: Celery's call failed with a TypeError, acked, and nothing was kept
    app = make_celery(worker_settings)
    app.conf.task_always_eager = True
    process = define_stage_task(app, "paraphrase", lambda message, store: [])
    process.apply(args=[])
    process.apply(args=[{"a": 1}, {"b": 2}])
    letters = Store(worker_settings.database_url).list_dead_letters()
    assert len(letters) == 2
    assert all(
        letter["error_type"] == "InvalidInput" and "exactly one payload" in letter["reason"]
        for letter in letters
    )


def test_failures_are_counted_once_the_dead_letter_is_written(
    worker_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # counted before the write: with the store down the alert fired for a message that was
    # still being retried, and never dead-lettered
    labels = {"stage": "thesaurus", "error": "InvalidInput"}

    def failed() -> float:
        value = REGISTRY.get_sample_value("paramine_messages_failed_total", labels)
        return value or 0.0

    def store_down(*args: object, **kwargs: object) -> str:
        raise TransientError("database unavailable")

    store = Store(worker_settings.database_url)
    before = failed()
    monkeypatch.setattr(store, "record_dead_letter", store_down)
    with pytest.raises(TransientError):
        worker_module._dead_letter(store, "thesaurus", {}, InvalidInput("bad"), 1)
    assert failed() == before
    monkeypatch.delattr(store, "record_dead_letter")
    worker_module._dead_letter(store, "thesaurus", {}, InvalidInput("bad"), 1)
    assert failed() == before + 1


def test_a_process_killed_at_the_hard_limit_leaves_no_live_gauge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the killed pool process never ran its shutdown hook, so its paramine_in_flight file
    # stayed summed in until the worker restarted
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    live = tmp_path / "gauge_livesum_424242.db"
    live.write_bytes(b"")
    worker_module._forget_killed_process(424242)
    assert not live.exists()


def test_queue_wait_reads_the_publish_time_header() -> None:
    from types import SimpleNamespace

    from shared.delivery.pipeline import SENT_AT_HEADER
    from shared.delivery.worker import queue_wait

    # Celery puts a message's custom headers on the request; older protocols under .headers
    assert queue_wait(SimpleNamespace(**{SENT_AT_HEADER: 100.0}), 100.25) == pytest.approx(0.25)
    assert queue_wait(SimpleNamespace(headers={SENT_AT_HEADER: 99}), 100.5) == pytest.approx(1.5)
    # a publisher's clock ahead of the worker's: no negative wait
    assert queue_wait(SimpleNamespace(**{SENT_AT_HEADER: 101.0}), 100.0) == 0.0
    # another client's message, or a header that is no time: nothing to measure
    assert queue_wait(SimpleNamespace(headers=None), 100.0) is None
    assert queue_wait(SimpleNamespace(**{SENT_AT_HEADER: "soon"}), 100.0) is None
    assert queue_wait(SimpleNamespace(**{SENT_AT_HEADER: True}), 100.0) is None


def test_a_retry_carries_a_short_reason_whatever_the_error_holds() -> None:
    import pickle

    import sqlalchemy.exc

    from shared.delivery.worker import RETRY_REASON_CHARS, RetryReason, retry_reason

    # a database error pickles its statement's parameters: here a megabyte of page text
    error = sqlalchemy.exc.OperationalError(
        "INSERT INTO pages (html) VALUES (%(html)s)", {"html": "x" * 1_000_000}, OSError("gone")
    )
    assert len(pickle.dumps(error)) > 1_000_000
    reason = retry_reason(error)
    assert isinstance(reason, RetryReason)
    assert str(reason).startswith("OperationalError: ")
    assert len(str(reason)) <= RETRY_REASON_CHARS
    # far below a pipe's 64 KB and PIPE_BUF's 4 KB: written to the consumer at once
    assert len(pickle.dumps(reason)) < 4096


def test_a_deferred_message_is_sent_again_as_it_was_not_retried_nor_dead_lettered(
    worker_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deferred (earlier page pairs of the site not through the stage yet) is no failure: the
    same payload goes back on the stage's queue, without a countdown (an ETA message would be
    held by a worker beyond its prefetch), and the task ends without a retry or a letter."""
    from shared.delivery.pipeline import CelerySender
    from shared.errors import Deferred

    sent: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(
        CelerySender, "send_payload", lambda self, stage, payload: sent.append((stage, payload))
    )
    calls: list[str] = []

    def handler(message: PagePair, store: Store) -> list[Outgoing]:
        calls.append(message.src.html)
        raise Deferred("1 earlier page pairs of the site are not through tree_align yet", 0.0)

    app = make_celery(worker_settings)
    app.conf.task_always_eager = True
    process = define_stage_task(app, "tree_align", handler)
    labels = {"stage": "tree_align"}
    before = REGISTRY.get_sample_value("paramine_messages_deferred_total", labels) or 0.0
    payload = _pair("later")
    result = process.apply(args=[payload])
    assert result.successful() and calls == ["later"]  # run once: no retry
    assert sent == [("tree_align", payload)]
    assert REGISTRY.get_sample_value("paramine_messages_deferred_total", labels) == before + 1
    assert Store(worker_settings.database_url).list_dead_letters() == []
