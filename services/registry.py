"""Which handler serves which stage: the table both run modes dispatch through."""

from __future__ import annotations

import importlib

from shared.delivery.pipeline import Handler
from shared.schemas import STAGES


def handler_for(stage: str) -> Handler:
    """The ``handle`` function of ``services/<stage>/handler.py``."""
    if stage not in STAGES:
        raise KeyError(f"unknown stage {stage!r}; stages are {', '.join(STAGES)}")
    module = importlib.import_module(f"services.{stage}.handler")
    handler: Handler = module.handle
    return handler


def all_handlers() -> dict[str, Handler]:
    return {stage: handler_for(stage) for stage in STAGES}
