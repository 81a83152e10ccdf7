"""The FastAPI gateway application factory."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from services.gateway.exports import router as exports_router
from services.gateway.routes import router
from services.gateway.security import BodySizeLimit, RateLimiter
from services.gateway.viewer import router as viewer_router
from shared.config import Settings, get_settings
from shared.errors import TransientError

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


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the gateway; settings default to the environment's."""
    settings = settings or get_settings()
    app = FastAPI(title="paramine gateway", version="0.1.0")
    for unavailable in (TransientError, OperationalError, RedisConnectionError):
        app.add_exception_handler(unavailable, _unavailable)
    app.state.rate_limiter = RateLimiter(settings.rate_limit_per_minute)
    app.include_router(router)
    app.include_router(exports_router)  # in the OpenAPI schema, unlike the viewer's pages
    app.include_router(viewer_router)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    return app
