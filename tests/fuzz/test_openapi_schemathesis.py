"""schemathesis against the gateway's own OpenAPI schema, in-process: no response is a 500."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings

from services.gateway.app import create_app
from shared.config import Settings, get_settings

_SETTINGS = Settings(
    database_url=f"sqlite:///{Path(tempfile.mkdtemp(prefix='paramine-schemathesis-')) / 'f.db'}",
    redis_url=None,
    api_key="fuzz-key",
    rate_limit_per_minute=1_000_000,
    max_body_bytes=200_000,
)
_APP = create_app(_SETTINGS)
_APP.dependency_overrides[get_settings] = lambda: _SETTINGS
schema = schemathesis.openapi.from_asgi("/openapi.json", _APP)


@schema.parametrize()
@settings(max_examples=5, suppress_health_check=list(HealthCheck))
def test_no_operation_answers_with_a_server_error(case: schemathesis.Case) -> None:
    response = case.call(headers={"X-API-Key": "fuzz-key"})
    assert response.status_code < 500, (case.method, case.path, response.text[:300])
