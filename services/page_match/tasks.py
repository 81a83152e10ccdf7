"""Celery task of the page_match stage: validate, call the handler, forward (see
shared.delivery.worker)."""

from __future__ import annotations

from services.page_match.handler import handle
from shared.delivery.celery_app import get_celery
from shared.delivery.worker import define_stage_task

process = define_stage_task(get_celery(), "page_match", handle)
