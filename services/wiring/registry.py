"""Which handler serves which stage, and which stages keep derived tables: the table both run
modes dispatch through and every process prepares the store from."""

from __future__ import annotations

import importlib

from shared.delivery.pipeline import Handler
from shared.schemas import STAGES
from shared.store.schema import SchemaCreator

# The stages with tables of their own (``services/<stage>/repository.py``).
STAGES_WITH_TABLES = ("page_match", "paraphrase", "thesaurus")


def handler_for(stage: str) -> Handler:
    """The ``handle`` function of ``services/<stage>/handler.py``."""
    if stage not in STAGES:
        raise KeyError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
    # by name: a process imports only the stages it runs (a worker runs one)
    module = importlib.import_module(f"services.{stage}.handler")
    handler: Handler = module.handle
    return handler


def all_handlers() -> dict[str, Handler]:
    return {stage: handler_for(stage) for stage in STAGES}


def stage_schemas() -> list[SchemaCreator]:
    """The ``ensure_schema`` of every stage that keeps tables, for
    :func:`shared.store.schema.prepare_store`."""
    schemas: list[SchemaCreator] = []
    for stage in STAGES_WITH_TABLES:  # by name, as the handlers: imported when asked for
        schemas.append(importlib.import_module(f"services.{stage}.repository").ensure_schema)
    return schemas
