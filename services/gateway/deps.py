"""Gateway dependencies as ``Annotated`` aliases: settings, store, API-key checks, and the
query parameters several routes share (paging, filters), each with its OpenAPI description."""

from __future__ import annotations

import functools
import math
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Query, Request, status
from fastapi.exceptions import RequestValidationError

from services.gateway.security import RateLimiter, key_matches
from shared.config import Settings, get_settings, secret
from shared.schemas import CONTROL_CHARACTER, LANG_PATTERN
from shared.store import Store


@functools.cache
def store_for(url: str) -> Store:
    """The store of ``url``, one per process (the gateway's requests share its engine)."""
    return Store(url)


def get_store(settings: Annotated[Settings, Depends(get_settings)]) -> Store:
    return store_for(settings.database_url)


def refuse_control_characters(request: Request) -> None:
    """Every route: a path or query value holding a control character is a 422. A NUL in
    ``?job=`` reached PostgreSQL, which refuses it in text: a 500, or an export whose 200
    was already sent when its query failed (an empty download)."""
    values = [("path", key, value) for key, value in request.path_params.items()] + [
        ("query", key, value) for key, value in request.query_params.multi_items()
    ]
    errors = [
        {"type": "value_error", "loc": (where, key), "msg": "contains a control character"}
        for where, key, value in values
        if isinstance(value, str) and CONTROL_CHARACTER.search(value)
    ]
    if errors:
        raise RequestValidationError(errors)


def _limiter(request: Request) -> RateLimiter:
    limiter: RateLimiter = request.app.state.rate_limiter
    return limiter


def require_ingest_key(
    request: Request,
    settings: Annotated[Settings, Depends(get_settings)],
    x_api_key: Annotated[str | None, Header()] = None,
) -> str:
    """Ingest needs ``X-API-Key`` when PARAMINE_API_KEY is set. Requests are rate limited
    per key when one is set, else per client address: a header no key checks would let a
    client pick a new bucket for every request."""
    expected = secret(settings.api_key)
    if not key_matches(x_api_key, expected):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or wrong X-API-Key header")
    client = (
        x_api_key
        if expected and x_api_key
        else (request.client.host if request.client else "anonymous")
    )
    if not _limiter(request).allow(client):
        # Retry-After: the time one request's token takes to come back.
        wait = math.ceil(60 / settings.rate_limit_per_minute)
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            "rate limit exceeded; slow down",
            headers={"Retry-After": str(wait)},
        )
    return client


def require_admin_key(
    settings: Annotated[Settings, Depends(get_settings)],
    x_api_key: Annotated[str | None, Header()] = None,
) -> None:
    """Admin endpoints need the admin key (or the ingest key when no admin key is set)."""
    expected = secret(settings.admin_api_key) or secret(settings.api_key)
    if not key_matches(x_api_key, expected):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or wrong X-API-Key header")


StoreDep = Annotated[Store, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
IngestKey = Annotated[str, Depends(require_ingest_key)]
AdminKey = Annotated[None, Depends(require_admin_key)]


# The score filter of the sentence-pair listings and downloads.
MinScore = Annotated[
    float | None,
    Query(
        ge=0.0,
        le=1.0,
        description="lowest score kept; default: the pair classifier's export threshold "
        "(pairs the DP alone scored, such as news articles, are kept)",
    ),
]


# Paging of the listings (each route has its own default limit).
Limit = Annotated[int, Query(ge=1, le=1_000, description="rows to give at most (a page)")]
Offset = Annotated[int, Query(ge=0, le=10_000_000, description="rows to skip (paging)")]

# The filters of the sentence-pair listings and downloads.
JobFilter = Annotated[
    str | None, Query(max_length=64, description="only this job's pairs (its job id)")
]
SiteFilter = Annotated[
    str | None,
    Query(max_length=256, description="only pairs of this site (host name, e.g. example.org)"),
]
SrcLangFilter = Annotated[
    str | None,
    Query(
        max_length=16,
        pattern=LANG_PATTERN,
        description="only pairs of this source language (BCP 47 tag, e.g. en)",
    ),
]
TgtLangFilter = Annotated[
    str | None,
    Query(
        max_length=16,
        pattern=LANG_PATTERN,
        description="only pairs of this target language (BCP 47 tag, e.g. de)",
    ),
]
AllPairs = Annotated[
    bool,
    Query(alias="all", description="flagged pairs too (untranslated, wrong language, boilerplate)"),
]
Duplicates = Annotated[
    bool, Query(description="every stored occurrence, not each distinct pair once")
]
