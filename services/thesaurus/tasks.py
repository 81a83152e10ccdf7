"""Celery tasks of the thesaurus stage: the stage task and the periodic similarity recompute."""

from __future__ import annotations

from services.thesaurus.handler import handle, recompute_snapshots
from shared.delivery.celery_app import get_celery
from shared.delivery.worker import define_stage_task, worker_store

app = get_celery()
process = define_stage_task(app, "thesaurus", handle)


@app.task(name="paramine.thesaurus.recompute", acks_late=True)  # type: ignore[untyped-decorator]
def recompute() -> dict[str, int]:
    """Rebuild the similarity snapshot of every imported thesaurus from stored observations;
    the newest snapshot id per thesaurus name."""
    return recompute_snapshots(worker_store())
