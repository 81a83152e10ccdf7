"""Where ingested work goes: the first Redis queue when configured, else in-process."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from services.wiring.registry import all_handlers
from shared.config import get_settings
from shared.delivery.pipeline import LocalRunner
from shared.intake.ingest import Job, page_messages, register_job, register_page_messages, send_job
from shared.metrics import stage_metrics
from shared.schemas import CrawledPages, Message, Page, pair_id_of
from shared.store import Store


def _sender() -> Any:
    """The gateway's sender: it gives up after ``gateway_publish_patience`` seconds (a 503
    with Retry-After; what was recorded but not queued is resent by the reconciler)."""
    # lazy: Celery only where a broker is configured
    from shared.delivery.celery_app import get_celery
    from shared.delivery.pipeline import QUICK_RETRY_POLICY, CelerySender

    patience = get_settings().gateway_publish_patience
    return CelerySender(get_celery(), patience=patience, retry_policy=QUICK_RETRY_POLICY)


def enqueue_job(store: Store, job: Job, source: str) -> None:
    """Register the job, then queue its pairs (distributed) or run them now (embedded)."""
    if get_settings().redis_url:
        send_job(store, job, source, _sender())
        return
    register_job(store, job, source)
    runner = LocalRunner(all_handlers(), store, stage_metrics())
    runner.run("tree_align", (pair.model_dump(mode="json") for pair in job.pairs))


def enqueue_pages(store: Store, job_id: str, pages: Sequence[Page], source: str) -> None:
    """Record the job, then queue its single pages for page_match (distributed) or run them
    and what follows now (embedded); the job gains its page pairs as they are found."""
    if not pages:
        return
    store.record_job(job_id, [], source)
    for payload in register_page_messages(store, job_id, page_messages(job_id, pages)):
        dispatch(store, "page_match", CrawledPages.model_validate(payload))


def dispatch(store: Store, stage: str, message: Message) -> None:
    """Queue one message for ``stage`` (distributed) or run it and what follows now (embedded)."""
    if get_settings().redis_url:
        _sender().send(stage, message)
        return
    LocalRunner(all_handlers(), store, stage_metrics()).run(
        stage, [message.model_dump(mode="json")]
    )


def retry_dead_letters(store: Store, ids: Sequence[str] | None) -> dict[str, Any]:
    """Send dead letters back to their stage; what cannot be sent stays a dead letter.

    A letter the worker's consumer wrote (:data:`shared.delivery.consumer.CONSUMER_LETTERS`) sends
    the stage message its kept bytes hold. Ingest refusals, and letters whose payload is not a JSON
    object (e.g. a task's raw string argument, a pickle), cannot be retried: they stay and are
    counted as ``skipped``; ``ids`` that name no dead letter are listed as ``unknown`` (an id given
    twice counts once). Each letter is deleted before it is sent, since a fast worker that fails it
    again records it under the same id; if the send fails (broker down), the letter is put back as
    it was and retrying stops there (``failed``, ``error``; the letters after it, ``not_sent``,
    stay)."""
    # lazy: the consumer's module brings Celery, which the embedded mode does without
    from shared.delivery.consumer import CONSUMER_LETTERS, kept_stage_message

    stored = store.list_dead_letters(limit=1_000_000)
    known = {letter["id"] for letter in stored}
    wanted = None if ids is None else set(ids)
    unknown = [] if ids is None else [i for i in dict.fromkeys(ids) if i not in known]
    selected = [letter for letter in stored if wanted is None or letter["id"] in wanted]
    letters = [letter for letter in selected if letter["stage"] != "ingest"]
    result: dict[str, Any] = {
        "retried": 0,
        "skipped": len(selected) - len(letters),
        "failed": 0,
        "not_sent": 0,
        "unknown": unknown,
    }
    distributed = bool(get_settings().redis_url)
    for index, letter in enumerate(letters):
        try:
            payload = json.loads(letter["payload"])
        except ValueError:
            payload = None
        if letter.get("error_type") in CONSUMER_LETTERS:
            # kept bytes of a message the consumer could not run (a task of another version,
            # say): its stage message goes back, if the bytes hold one
            payload = kept_stage_message(payload)
        if not isinstance(payload, dict):
            result["skipped"] += 1
            continue
        store.delete_dead_letters([letter["id"]])
        if distributed:
            # lazy: Celery only where a broker is configured
            from shared.delivery.celery_app import get_celery, queue_name, task_name

            pair_id = pair_id_of(payload)
            if pair_id is not None:
                store.track_again(pair_id)  # first: if the send is lost, the reconciler resends
            try:
                get_celery().send_task(
                    task_name(letter["stage"]), args=[payload], queue=queue_name(letter["stage"])
                )
            except Exception as error:  # any broker failure: the letter is kept
                store.restore_dead_letters([letter])
                if pair_id is not None:
                    store.track_dead_again(pair_id)  # not resent by the reconciler either
                result |= {
                    "failed": 1,
                    "not_sent": len(letters) - index - 1,
                    "error": f"{type(error).__name__}: {error}",
                }
                return result
        else:
            LocalRunner(all_handlers(), store, stage_metrics()).run(letter["stage"], [payload])
        result["retried"] += 1
    return result
