"""Celery tasks of the paraphrase stage: the stage task (validate, call the handler, forward;
see shared.delivery.worker) and the periodic phrase table recompute."""

from __future__ import annotations

from services.paraphrase.handler import handle, recompute_phrase_table
from shared.delivery.celery_app import get_celery
from shared.delivery.worker import define_stage_task, worker_store

app = get_celery()
process = define_stage_task(app, "paraphrase", handle)


@app.task(name="paramine.paraphrase.recompute", acks_late=True)  # type: ignore[untyped-decorator]
def recompute() -> int:
    """Rebuild the phrase table snapshot from the stored observations; the newest snapshot id."""
    return recompute_phrase_table(worker_store())
