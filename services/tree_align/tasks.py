"""Celery task of the tree_align stage: validate, call the handler, forward (see
shared.delivery.worker)."""

from __future__ import annotations

from services.tree_align.handler import handle
from shared.delivery.celery_app import get_celery
from shared.delivery.worker import define_stage_task

process = define_stage_task(get_celery(), "tree_align", handle)
