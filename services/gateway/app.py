"""The FastAPI gateway application factory."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from services.gateway.deps import refuse_control_characters, store_for
from services.gateway.exports import router as exports_router
from services.gateway.jobs import router as jobs_router
from services.gateway.pages import router as pages_router
from services.gateway.routes import router, short_loc_part
from services.gateway.security import BodySizeLimit, RateLimiter
from services.gateway.viewer import router as viewer_router
from services.wiring.registry import stage_schemas
from shared.config import Settings, get_settings
from shared.errors import TransientError
from shared.store.schema import prepare_store_at_start

log = logging.getLogger(__name__)


# Seconds a client is asked to wait when the store or the broker is briefly unreachable.
UNAVAILABLE_RETRY_AFTER = 5


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    """503 with Retry-After, not a 500: the database or Redis was unreachable (a
    TransientError of the store, a kombu OperationalError of the publish); the request may
    be sent again, and ``paramine submit`` does so."""
    log.warning("%s %s: unavailable: %r", request.method, request.url.path, exc)
    return JSONResponse(
        status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
        content={"detail": f"temporarily unavailable ({exc.__class__.__name__}); retry later"},
        headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER)},
    )


async def _invalid_request(request: Request, exc: Exception) -> JSONResponse:
    """422 with where and why, without the refused values: echoed, a NaN or a lone
    surrogate among them made the answer itself fail (a 500), and a too-long list came back
    whole (a 20 MB request, a 20 MB answer)."""
    assert isinstance(exc, RequestValidationError)
    return JSONResponse(
        status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        content={"detail": jsonable_encoder(_without_inputs(exc.errors()))},
    )


def _without_inputs(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """Validation errors without the values they refused (``input``) and their context, and
    with each part of ``loc`` cut short: a forbidden key is part of ``loc``, and a 5 MB one
    came back whole."""
    return [
        {
            key: [short_loc_part(part) for part in value] if key == "loc" else value
            for key, value in error.items()
            if key not in ("input", "ctx", "url")
        }
        for error in errors
    ]


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the gateway; settings default to the environment's."""
    settings = settings or get_settings()
    database_url = settings.database_url

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # every schema, once, at start-up
        prepare_store_at_start(store_for(database_url), stage_schemas())
        yield

    app = FastAPI(
        title="paramine gateway",
        version="0.1.0",
        dependencies=[Depends(refuse_control_characters)],
        lifespan=lifespan,
    )
    for unavailable in (TransientError, OperationalError, RedisConnectionError):
        app.add_exception_handler(unavailable, _unavailable)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.state.rate_limiter = RateLimiter(settings.rate_limit_per_minute)
    app.include_router(router)
    app.include_router(jobs_router)
    app.include_router(pages_router)
    app.include_router(exports_router)  # in the OpenAPI schema, unlike the viewer's pages
    app.include_router(viewer_router)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    return app
