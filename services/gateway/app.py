"""The FastAPI gateway application factory."""

from __future__ import annotations

from fastapi import FastAPI

from services.gateway.exports import router as exports_router
from services.gateway.routes import router
from services.gateway.security import BodySizeLimit, RateLimiter
from services.gateway.viewer import router as viewer_router
from shared.config import Settings, get_settings


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the gateway; settings default to the environment's."""
    settings = settings or get_settings()
    app = FastAPI(title="paramine gateway", version="0.1.0")
    app.state.rate_limiter = RateLimiter(settings.rate_limit_per_minute)
    app.include_router(router)
    app.include_router(exports_router)  # in the OpenAPI schema, unlike the viewer's pages
    app.include_router(viewer_router)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    return app
