"""LocalRunner: messages flow stage to stage; failures become dead letters; the batch goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from shared.delivery.pipeline import LocalRunner, Outgoing
from shared.errors import InvalidInput, TransientError
from shared.metrics import StageMetrics
from shared.schemas import JapaneseSentences, PagePair
from shared.store import Store


def _pair(html: str) -> dict[str, Any]:
    return {"job_id": "j", "src": {"lang": "ja", "html": html}, "tgt": {"lang": "ja", "html": html}}


class Recorder:
    """Explicit fake handlers: tree_align emits to thesaurus, which records what it saw."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []
        self.flaky_calls = 0

    def tree_align(self, message: PagePair, store: Store) -> list[Outgoing]:
        if message.src.html == "bad":
            raise InvalidInput("page is bad")
        if message.src.html == "bug":
            raise RuntimeError("boom")
        if message.src.html == "flaky":
            self.flaky_calls += 1
            if self.flaky_calls < 3:
                raise TransientError("db down")
        return [
            (
                "thesaurus",
                JapaneseSentences(source_id="s", job_id="j", sentences=[message.src.html]),
            )
        ]

    def thesaurus(self, message: JapaneseSentences, store: Store) -> list[Outgoing]:
        self.seen.append(message.sentences)
        return []


def test_failures_are_dead_lettered_and_the_rest_flows(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    recorder = Recorder()
    registry = CollectorRegistry()
    runner = LocalRunner(
        {"tree_align": recorder.tree_align, "thesaurus": recorder.thesaurus},
        store,
        StageMetrics.create(registry),
        transient_attempts=3,
    )
    payloads = [
        _pair("ok1"),
        _pair("bad"),
        {"job_id": "j"},
        _pair("bug"),
        _pair("flaky"),
        _pair("ok2"),
    ]
    summary = runner.run("tree_align", payloads)
    assert recorder.seen == [["ok1"], ["flaky"], ["ok2"]]
    assert summary.received["tree_align"] == 6 and summary.failed["tree_align"] == 3
    reasons = sorted(letter["reason"] for letter in store.list_dead_letters())
    assert reasons[0].startswith("InvalidInput: page is bad")
    assert any("does not match schema" in r for r in reasons)
    assert any(r.startswith("RuntimeError: boom") for r in reasons)
    assert (
        registry.get_sample_value("paramine_messages_retried_total", {"stage": "tree_align"}) == 2
    )
    assert registry.get_sample_value("paramine_messages_in_total", {"stage": "thesaurus"}) == 3


def test_transient_errors_that_persist_end_as_dead_letters(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.db'}")

    def always_down(message: PagePair, store: Store) -> list[Outgoing]:
        raise TransientError("still down")

    runner = LocalRunner(
        {"tree_align": always_down},
        store,
        StageMetrics.create(CollectorRegistry()),
        transient_attempts=2,
    )
    runner.run("tree_align", [_pair("x")])
    (letter,) = store.list_dead_letters()
    assert letter["attempts"] == 2 and "still down" in letter["reason"]


def test_task_messages_show_the_job_not_the_page() -> None:
    from shared.delivery.pipeline import args_label

    assert args_label({"job_id": "j1", "src": {"html": "x" * 10_000}}) == "(<message of job j1>,)"
    assert args_label({"context": {"job_id": "j2"}, "chunks": []}) == "(<message of job j2>,)"


class _FlakyBroker:
    """send_task fails with kombu's OperationalError ``failures`` times, then succeeds."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def send_task(self, *args: object, **kwargs: object) -> None:
        from kombu.exceptions import OperationalError

        self.calls += 1
        if self.calls <= self.failures:
            raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def test_a_send_outlasts_a_broker_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    # opening the connection gave up after about 6 s; the README promises about a minute
    from shared.delivery import pipeline

    pauses: list[float] = []
    monkeypatch.setattr(pipeline, "_pause", pauses.append)
    broker = _FlakyBroker(failures=4)
    pipeline.CelerySender(broker).send_payload("tree_align", {"job_id": "j"})
    assert broker.calls == 5 and pauses == [0.5, 1.0, 2.0, 4.0]
    monkeypatch.setattr(pipeline, "PUBLISH_PATIENCE", 0.0)  # past its patience: the error
    with pytest.raises(Exception, match="Connection refused"):
        pipeline.CelerySender(_FlakyBroker(failures=1)).send_payload("tree_align", {})
