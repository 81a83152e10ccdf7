"""Deployment files parse and agree with the code: services per stage, Prometheus targets."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from shared.schemas import STAGES
from tests.conftest import REPO


def test_compose_has_every_stage_and_redis_with_aof() -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"redis", "postgres", "gateway", "prometheus", *STAGES} <= set(services)
    assert "--appendonly" in services["redis"]["command"]
    for stage in STAGES:
        command = services[stage]["command"]
        assert command[:4] == ["paramine", "worker", "--stage", stage]
        assert services[stage]["environment"]["PARAMINE_REDIS_URL"].startswith("redis://")
    assert (REPO / services["gateway"]["build"]["dockerfile"]).exists()


def test_prometheus_scrapes_gateway_and_workers() -> None:
    config = yaml.safe_load((REPO / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert jobs["paramine-gateway"]["static_configs"][0]["targets"] == ["gateway:8000"]
    assert set(jobs["paramine-workers"]["dns_sd_configs"][0]["names"]) == set(STAGES)


def test_promtool_accepts_the_config() -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed (Debian package prometheus; .ci/run installs it)")
    result = subprocess.run(
        [promtool, "check", "config", str(REPO / "deploy/prometheus/prometheus.yml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
