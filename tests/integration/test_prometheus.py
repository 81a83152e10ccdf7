"""A real Prometheus scrapes a live gateway and worker: the pipeline's metrics arrive."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import yaml

from shared.intake.inputs import pairs_from_html_dir
from tests.integration import processes as proc
from tests.integration.conftest import REDIS_URL, STAGES

pytestmark = pytest.mark.integration
PROMETHEUS = "/usr/bin/prometheus"
DEADLINE_SECONDS = 60.0


@dataclass
class Scraped:
    prometheus: str
    gateway: str


def _missing(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _own_redis_db() -> str:
    """The shared test Redis on its own database index (14): other suites never see our messages."""
    base, _, _ = REDIS_URL.rpartition("/")
    url = f"{base}/14"
    try:
        redis.Redis.from_url(url).flushdb()
    except redis.RedisError as exc:
        _missing(f"Redis is not reachable ({exc}); .ci/run installs and starts it")
    return url


@pytest.fixture
def scraped(tmp_path: Path) -> Iterator[Scraped]:
    if not Path(PROMETHEUS).exists() and shutil.which("prometheus") is None:
        _missing("prometheus not installed (Debian package prometheus; .ci/run installs it)")
    broker = _own_redis_db()
    env = {
        **os.environ,
        "PARAMINE_REDIS_URL": broker,
        "PARAMINE_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.pop("PARAMINE_API_KEY", None)
    gateway_port, worker_port, prometheus_port = (proc.free_port() for _ in range(3))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name in ("gateway", "worker"):
            (tmp_path / f"metrics-{name}").mkdir()
        processes.append(
            proc.start_paramine(
                ["serve", "--host", "127.0.0.1", "--port", str(gateway_port)],
                {**env, "PARAMINE_METRICS_DIR": str(tmp_path / "metrics-gateway")},
                tmp_path / "gateway.log",
            )
        )
        processes.append(
            proc.start_paramine(
                [
                    "worker",
                    "--stage",
                    "tree_align",
                    "--concurrency",
                    "1",
                    "--metrics-port",
                    str(worker_port),
                ],
                {**env, "PARAMINE_METRICS_DIR": str(tmp_path / "metrics-worker")},
                tmp_path / "worker.log",
            )
        )
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [
                {
                    "job_name": "paramine-gateway",
                    "static_configs": [{"targets": [f"127.0.0.1:{gateway_port}"]}],
                },
                {
                    "job_name": "paramine-workers",
                    "static_configs": [{"targets": [f"127.0.0.1:{worker_port}"]}],
                },
            ],
        }
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
        log = (tmp_path / "prometheus.log").open("wb")
        processes.append(
            subprocess.Popen(
                [
                    PROMETHEUS if Path(PROMETHEUS).exists() else "prometheus",
                    f"--config.file={tmp_path / 'prometheus.yml'}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{prometheus_port}",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        gateway = f"http://127.0.0.1:{gateway_port}"
        prometheus = f"http://127.0.0.1:{prometheus_port}"
        proc.wait_for_http(f"{gateway}/healthz", timeout=DEADLINE_SECONDS, process=processes[0])
        proc.wait_for_worker_ready(
            f"http://127.0.0.1:{worker_port}/metrics", "tree_align", process=processes[1]
        )
        proc.wait_for_http(f"{prometheus}/-/ready", timeout=DEADLINE_SECONDS, process=processes[2])
        yield Scraped(prometheus=prometheus, gateway=gateway)
    finally:
        for process in reversed(processes):
            proc.stop(process)
        redis.Redis.from_url(broker).flushdb()


def _query(prometheus: str, expr: str) -> list[dict[str, Any]]:
    body = httpx.get(f"{prometheus}/api/v1/query", params={"query": expr}, timeout=5).json()
    assert body["status"] == "success", body
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


def test_prometheus_receives_gateway_and_worker_metrics(scraped: Scraped) -> None:
    pairs = [
        {"kind": source.kind, "src": source.src.model_dump(), "tgt": source.tgt.model_dump()}
        for source in pairs_from_html_dir(proc.REPO / "samples" / "crawl")
    ]
    response = httpx.post(f"{scraped.gateway}/v1/page-pairs", json={"pairs": pairs}, timeout=30)
    assert response.status_code == 202, response.text
    accepted = len(response.json()["pair_ids"])
    assert accepted == len(pairs)

    deadline = time.monotonic() + DEADLINE_SECONDS
    seen: dict[str, float] = {}
    while time.monotonic() < deadline:
        rows = _query(scraped.prometheus, "paramine_messages_in_total")
        seen = {row["metric"]["stage"]: float(row["value"][1]) for row in rows}
        if seen.get("gateway", 0) >= accepted and seen.get("tree_align", 0) >= accepted:
            break
        time.sleep(0.5)
    assert seen.get("gateway") == accepted, seen
    assert seen.get("tree_align") == accepted, seen
    # the worker's latency histogram and both targets' health arrive too
    latency = _query(scraped.prometheus, 'paramine_stage_latency_seconds_count{stage="tree_align"}')
    assert [float(row["value"][1]) for row in latency] == [accepted]
    depth = _query(scraped.prometheus, 'paramine_queue_depth{job="paramine-gateway"}')
    assert {row["metric"]["queue"] for row in depth} == {f"paramine.{stage}" for stage in STAGES}
    up = {row["metric"]["job"]: row["value"][1] for row in _query(scraped.prometheus, "up")}
    assert up == {"paramine-gateway": "1", "paramine-workers": "1"}
