"""Celery task of the sentence_align stage (see shared.delivery.worker)."""

from __future__ import annotations

from services.sentence_align.handler import handle
from shared.delivery.celery_app import get_celery
from shared.delivery.worker import define_stage_task

process = define_stage_task(get_celery(), "sentence_align", handle)
