"""Retrying dead letters (``paramine dead-letters retry``): nothing is lost on the way."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.wiring.dispatch import retry_dead_letters
from shared.config import get_settings
from shared.store import Store

# A paraphrase message of one Web/mobile pair with no sentence pairs: it runs to the end.
PAYLOAD = {
    "context": {
        "pair_id": "pp1", "job_id": "j1", "kind": "pc-mobile", "src_url": "", "tgt_url": "",
        "src_lang": "ja", "tgt_lang": "ja",
    },
    "pairs": [],
    "schema_version": 1,
}  # fmt: skip


@pytest.fixture
def store(embedded_url: str) -> Store:
    return Store(embedded_url)


def _letter(store: Store, payload: object) -> str:
    return store.record_dead_letter(
        stage="paraphrase", payload=payload, error_type="RuntimeError",
        reason="RuntimeError: bug since fixed", attempts=4,
    )  # fmt: skip


def test_a_letter_the_broker_cannot_take_stays(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing listens on port 1: the send fails as with a broker that is down. The letter
    # was deleted before the send and is lost unless it is put back.
    monkeypatch.setenv("PARAMINE_REDIS_URL", "redis://127.0.0.1:1/0")
    get_settings.cache_clear()
    store.record_job("j1", [("pp1", "", "")], "test", stage="paraphrase", payloads={"pp1": "{}"})
    _letter(store, PAYLOAD)
    assert store.tracked_states("j1")["pp1"][0] == "dead"
    before = store.list_dead_letters()
    result = retry_dead_letters(store, None)
    assert (result["retried"], result["failed"]) == (0, 1)
    assert "127.0.0.1:1" in result["error"]
    assert store.list_dead_letters() == before
    # still dead, not pending: the reconciler sent a letter the command said it kept
    assert store.tracked_states("j1")["pp1"][0] == "dead"


def test_an_unreadable_letter_does_not_block_the_others(store: Store) -> None:
    # A worker dead-letters a task's raw string argument as it is; it cannot be sent back.
    raw = _letter(store, "<p>hello</p>")
    result = retry_dead_letters(store, None)
    assert (result["retried"], result["skipped"], result["failed"]) == (0, 1, 0)
    _letter(store, PAYLOAD)
    result = retry_dead_letters(store, None)
    assert (result["retried"], result["skipped"], result["failed"]) == (1, 1, 0)
    assert [letter["id"] for letter in store.list_dead_letters()] == [raw]


def test_an_id_that_names_no_letter_is_reported(store: Store) -> None:
    # retry of an unknown id said {"skipped": 1} and exited 0, as if it were unreadable
    letter = _letter(store, PAYLOAD)
    result = retry_dead_letters(store, [letter, "dl-nope"])
    assert (result["retried"], result["skipped"], result["unknown"]) == (1, 0, ["dl-nope"])
    outcome = CliRunner().invoke(app, ["dead-letters", "retry", "dl-nope"])
    assert outcome.exit_code == 1 and "no dead letter dl-nope" in outcome.output


def test_skipped_counts_the_letters_that_cannot_be_retried(store: Store) -> None:
    # 'skipped' was derived: all letters counted ingest refusals only when ids were named,
    # and an id named twice counted as a skipped letter
    ingest = store.record_dead_letter(
        stage="ingest", payload={"line": 3}, error_type="InvalidInput",
        reason="InvalidInput: truncated gzip", attempts=1,
    )  # fmt: skip
    letter = _letter(store, PAYLOAD)
    result = retry_dead_letters(store, [letter, letter])
    assert (result["retried"], result["skipped"], result["unknown"]) == (1, 0, [])
    again = _letter(store, PAYLOAD)
    result = retry_dead_letters(store, None)
    assert (result["retried"], result["skipped"], result["failed"]) == (1, 1, 0)
    assert [row["id"] for row in store.list_dead_letters()] == [ingest]
    assert again != ingest


def test_letters_after_a_failed_send_are_counted_as_not_sent(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARAMINE_REDIS_URL", "redis://127.0.0.1:1/0")
    get_settings.cache_clear()
    first = _letter(store, PAYLOAD)
    second = _letter(store, PAYLOAD | {"pairs": [], "schema_version": 1, "extra": 1})
    result = retry_dead_letters(store, None)
    assert (result["retried"], result["skipped"], result["failed"]) == (0, 0, 1)
    assert result["not_sent"] == 1
    assert {row["id"] for row in store.list_dead_letters()} == {first, second}
